// The sums of a tensor table and their params rows (params_table.h).
#include "params_table.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/model/tensor_table.h"

namespace napkin::detail {

namespace {

using i64 = std::int64_t;
using specs::ModelSpec;

Params P(i64 v) { return static_cast<double>(v) * units::param; }

ParamGroup group_of(specs::TensorGroup g) { return static_cast<ParamGroup>(static_cast<int>(g)); }

// Adds tensor `x` to the parameters of its layer.
void add_to_layer(LayerParams& p, const specs::TableTensor& x) {
  const i64 n = x.elements() * x.copies;
  switch (x.group) {
    case specs::TensorGroup::attention: p.attention += n; break;
    case specs::TensorGroup::norm: p.norm += n; break;
    case specs::TensorGroup::mlp: p.mlp += n; break;
    case specs::TensorGroup::experts:
      if (x.routed) {
        p.routed += n;
        p.routed_one += x.elements();
      } else {
        p.shared += n;
      }
      break;
    case specs::TensorGroup::router: p.router += n; break;
    case specs::TensorGroup::ssm: p.ssm += n; break;
    default: p.other += n; break;  // embedding, head, other or vision tensors inside a layer
  }
}

}  // namespace

LayerParams table_layer(const specs::TensorTable& t, i64 l) {
  LayerParams p;
  for (const specs::TableTensor& x : t.tensors)
    if (x.layer == l) add_to_layer(p, x);
  return p;
}

ParamCount count_table(const ModelSpec& m) {
  const specs::TensorTable& t = *m.tensors;
  ParamCount c;
  const i64 k = m.moe.experts_per_token;
  for (const specs::TableTensor& x : t.tensors) {
    const i64 n = x.elements() * x.copies;
    if (x.mtp) {
      c.mtp += n;
      continue;
    }
    c.groups[static_cast<std::size_t>(group_of(x.group))] += n;
    c.total += n;
    c.active += x.routed ? x.elements() * std::min(k, x.copies) : n;
  }
  // An encoder-decoder's decoder blocks follow the encoder's L layers (arch_table.cpp "stack":
  // "decoder"): both stacks' blocks are layers here, as count_encoder_decoder counts them.
  const i64 blocks = std::max<i64>(m.layers, 0) + (m.encoder_decoder ? std::max<i64>(m.decoder_layers, 0) : 0);
  c.table_layers.assign(static_cast<std::size_t>(blocks), LayerParams{});
  for (const specs::TableTensor& x : t.tensors)
    if (x.layer >= 0 && x.layer < blocks && !x.mtp) add_to_layer(c.table_layers[static_cast<std::size_t>(x.layer)], x);
  bool seen_dense = false, seen_moe = false;
  for (i64 l = 0; l < blocks; ++l) {
    const LayerParams& p = c.table_layers[static_cast<std::size_t>(l)];
    if (p.routed > 0) {
      ++c.moe_layers;
      if (!seen_moe) c.moe_layer = p;
      seen_moe = true;
    } else if (p.mlp > 0 || p.shared > 0) {
      ++c.dense_layers;
      if (!seen_dense) c.dense_layer = p;
      seen_dense = true;
    }
    c.attention_layers += m.layer_attention(l) != specs::LayerAttention::none && p.attention > 0 ? 1 : 0;
    c.mamba_layers += p.ssm > 0 ? 1 : 0;
  }
  c.embedding = c.group(ParamGroup::embedding) + c.group(ParamGroup::head);
  c.non_embedding = c.total - c.embedding;
  return c;
}

namespace {

// The tensors of `t` that `pick` selects, summed by name: "32 · (4096·4096) self_attn.q_proj.weight
// + ...", at most six names. `tensors` receives how many tensors were summed.
template <class Pick>
std::string tensor_sum(const specs::TensorTable& t, Pick pick, i64& tensors) {
  struct Term {
    std::string_view name;
    i64 count = 0, elements = 0;
    bool same = true;  // every instance of one size
    const std::vector<i64>* shape = nullptr;
  };
  std::vector<Term> terms;
  tensors = 0;
  for (const specs::TableTensor& x : t.tensors) {
    if (!pick(x)) continue;
    tensors += x.copies;
    auto it = std::find_if(terms.begin(), terms.end(), [&](const Term& a) { return a.name == x.name; });
    if (it == terms.end()) {
      terms.push_back(Term{x.name, 0, x.elements(), true, &x.shape});
      it = terms.end() - 1;
    }
    it->same = it->same && it->elements == x.elements();
    it->count += x.copies;
  }
  std::string sum;
  std::size_t shown = 0;
  for (const Term& a : terms) {
    if (shown == 6) {
      sum += " + … (" + std::to_string(terms.size() - shown) + " more names)";
      break;
    }
    // model.layers.{l}.self_attn.q_proj.weight shows as self_attn.q_proj.weight
    std::string_view shortname = a.name;
    if (const auto p = a.name.rfind("}."); p != std::string_view::npos) shortname = a.name.substr(p + 2);
    std::string dims;
    for (i64 s : *a.shape) dims += (dims.empty() ? "" : "·") + std::to_string(s);
    sum += (sum.empty() ? "" : " + ") + (a.count > 1 ? std::to_string(a.count) + " · " : std::string()) +
           (a.same ? (a.shape->size() > 1 ? "(" + dims + ")" : dims) : std::string("(sizes vary by layer)")) + " " +
           std::string(shortname);
    ++shown;
  }
  return sum;
}

}  // namespace

// The rows of a family described as data: one per non-empty group, its tensors summed by name.
void table_items(const ModelSpec& m, const ParamCount& c, ResultSet& out) {
  for (const auto grp : kParamGroups) {
    if (c.group(grp) == 0 || grp == ParamGroup::vision) continue;
    i64 tensors = 0;
    const std::string sum =
        tensor_sum(*m.tensors, [grp](const specs::TableTensor& x) { return !x.mtp && group_of(x.group) == grp; }, tensors);
    out.item(param_group_name(grp),
             out.keep(std::string(param_group_name(grp)) + " (" + std::to_string(tensors) + " tensors)"),
             value(P(c.group(grp))), "Σ of the group's tensors (count · shape name)", text("{}", out.keep(sum)));
  }
}

// The tower's row and the multi-token-prediction layers' note.
void extra_items(const ModelSpec& m, const ParamCount& c, ResultSet& out) {
  if (m.tower) {
    i64 tensors = 0;
    const std::string sum = tensor_sum(*m.tower, [](const specs::TableTensor&) { return true; }, tensors);
    out.item("vision", out.keep("vision tower and projector (" + std::to_string(tensors) + " tensors)"),
             value(P(c.group(ParamGroup::vision))), "Σ of the tower's tensors (count · shape name)",
             text("{}", out.keep(sum)));
    out.assume("tower", text("the vision tower and projector the checkpoint ships are counted ({}, {}); "
                             "--text-only drops them; not in the active parameters of a text token",
                             std::string_view(m.tower->family), std::string_view(m.tower->source)));
  }
  if (c.mtp > 0)
    out.assume("mtp_layers", text("the checkpoint also stores {} of multi-token-prediction layers, not counted: the "
                                  "main model only (checkpoint total {})",
                                  P(c.mtp), P(c.total + c.mtp)));
}

}  // namespace napkin::detail
