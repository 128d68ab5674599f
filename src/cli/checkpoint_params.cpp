#include "checkpoint_params.h"

#include <array>
#include <cstdint>

#include "napkin/ground/error.h"
#include "napkin/model/params.h"

namespace napkin::cli {

namespace {

using i64 = std::int64_t;
Params P(std::uint64_t v) { return static_cast<double>(v) * units::param; }

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }
bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// Group index of a tensor, as params.h orders the groups.
std::size_t group_index(std::string_view name) {
  const std::string_view g = specs::tensor_group(name);
  for (std::size_t i = 0; i < kParamGroups.size(); ++i)
    if (param_group_name(kParamGroups[i]) == g) return i;
  return static_cast<std::size_t>(ParamGroup::other);
}

struct GgufMoe {
  std::uint64_t experts = 0, used = 0, routed = 0;  // E, k, elements of the *_exps tensors
};

GgufMoe gguf_moe(const specs::Checkpoint& ck) {
  GgufMoe m;
  if (ck.format != "gguf") return m;
  const specs::GgufModelFacts f = specs::gguf_model_facts(ck);
  if (!f.expert_count || !f.expert_used_count || *f.expert_count == 0) return m;
  for (const auto& t : ck.tensors)
    if (contains(t.name, "_exps.")) m.routed += t.elements;
  if (m.routed == 0 || m.routed % *f.expert_count != 0) return m;
  m.experts = *f.expert_count;
  m.used = *f.expert_used_count;
  return m;
}

// "1,234,567 params", kept in `store` (the warning points into it). A warning about a
// difference quotes exact counts, where the table's compact form would round them away.
std::string_view exact_params(std::deque<std::string>& store, i64 v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  store.push_back((v < 0 ? "-" : "") + out + " params");
  return store.back();
}

}  // namespace

bool is_buffer_tensor(std::string_view name) {
  for (std::string_view part : {"inv_freq", "position_ids", "masked_bias", "rope_freqs", "rope_factors_long"})
    if (contains(name, part)) return true;
  // GPT-2's and GPT-NeoX's causal masks: a bias straight under the attention module.
  return ends_with(name, ".attn.bias") || ends_with(name, ".attention.bias");
}

void checkpoint_params(const std::string& model_arg, CheckpointCount& c, const specs::ModelSpec* config,
                       ResultSet& out) {
  const specs::Checkpoint& ck = c.checkpoint;
  std::array<std::uint64_t, kParamGroups.size()> groups{};
  std::uint64_t buffers = 0, buffer_tensors = 0, params = 0, tensors = 0, weight_bytes = 0;
  for (const auto& t : ck.tensors) {
    if (is_buffer_tensor(t.name)) {
      buffers += t.elements;
      ++buffer_tensors;
      continue;
    }
    groups[group_index(t.name)] += t.elements;
    params += t.elements;
    weight_bytes += t.bytes;
    ++tensors;
  }
  const auto g = [&groups](ParamGroup x) { return groups[static_cast<std::size_t>(x)]; };
  const std::uint64_t embedding = g(ParamGroup::embedding) + g(ParamGroup::head);

  out.command = "params";
  out.input("model", verdict(model_arg));
  out.input("format", verdict(ck.format));
  out.item("total_params", "total parameters (headers)", value(P(params)), "Σ elements of the weight tensors",
           text("{} tensors in {} file(s)", static_cast<double>(tensors), static_cast<double>(ck.files.size())));
  ParamCount cc;
  if (config != nullptr) cc = count_params(*config);
  if (params == 0)  // the readers refuse a checkpoint without weights; this one holds only buffers
    throw InputError(model_arg + ": no weight tensors (" + std::to_string(buffer_tensors) +
                     " buffer tensor(s) only); expected a checkpoint with weights");
  if (config != nullptr && config->moe.is_moe()) {
    // The experts a token skips, as config.json counts them, come out of the checkpoint's expert
    // tensors: more than those hold means the config does not describe these weights.
    const i64 skipped = cc.total - cc.active;
    const std::uint64_t experts = g(ParamGroup::experts);
    if (skipped < 0 || static_cast<std::uint64_t>(skipped) > experts)
      throw InputError(model_arg + ": config.json says a token skips " +
                       std::string(exact_params(c.exact, skipped)) + " of expert weights, but the checkpoint's "
                       "expert tensors hold " + std::string(exact_params(c.exact, static_cast<i64>(experts))) +
                       "; expected the config.json of these weights (a packed quantized checkpoint, such as GPTQ "
                       "int32, counts fewer elements than parameters)");
    out.item("active_params", "active per token", value(P(params - static_cast<std::uint64_t>(skipped))),
             "total − experts a token skips (config.json)", text("{} − {}", P(params), P(skipped)));
  } else if (const auto moe = gguf_moe(ck); moe.experts > 0) {
    // llama.cpp stores each layer's routed experts stacked in one *_exps tensor: a token uses
    // k of the E slices. read_gguf refuses k > E, so the difference does not wrap.
    if (moe.used > moe.experts)
      throw InputError(model_arg + ": expert_used_count " + std::to_string(moe.used) + " is above expert_count " +
                       std::to_string(moe.experts));
    const std::uint64_t skipped = moe.routed / moe.experts * (moe.experts - moe.used);
    out.item("active_params", "active per token", value(P(params - skipped)),
             "total − routed·(E − k)/E (GGUF expert_count, expert_used_count)",
             text("{} − {} · ({} − {}) / {}", P(params), P(moe.routed), static_cast<double>(moe.experts),
                  static_cast<double>(moe.used), static_cast<double>(moe.experts)));
  } else {
    out.item("active_params", "active per token", value(P(params)), "total (dense)", text("{}", P(params)));
    if (groups[static_cast<std::size_t>(ParamGroup::experts)] > 0)
      out.warn(text("the checkpoint has expert tensors but no config.json beside it says how many a token uses: "
                    "active_params is the total; put config.json beside the weights"));
  }
  out.item("embedding_params", "embedding (+ untied head)", value(P(embedding)), "embedding + head",
           text("{} + {}", P(g(ParamGroup::embedding)), P(g(ParamGroup::head))));
  out.item("non_embedding_params", "non-embedding (P of 6PD)", value(P(params - embedding)), "total − embedding",
           text("{} − {}", P(params), P(embedding)));
  for (const auto grp : kParamGroups)
    if (g(grp) > 0)
      out.item(param_group_name(grp), param_group_name(grp), value(P(g(grp))), "Σ elements of the group's tensors",
               text("{}", P(g(grp))));
  const Bytes bytes = static_cast<double>(weight_bytes) * units::byte;
  const double bits = 8.0 * static_cast<double>(weight_bytes) / static_cast<double>(params);  // params > 0
  out.item("weights_bytes", "weight data", value(bytes), "Σ bytes of the weight tensors", text("{}", bytes));
  out.item("bits_per_weight", "bits per weight", value(bits), "8 · bytes / params", text("8 · {} / {}", bytes, P(params)));
  for (std::size_t i = 0; i < ck.dtypes.size(); ++i) {
    const auto& d = ck.dtypes[i];
    if (d.elements == 0)  // only empty tensors of this type: no bits per weight to state
      out.item(c.dtype_keys[i], c.dtype_labels[i], value(P(d.elements)), "elements stored as this type",
               text("{} tensors, all empty", static_cast<double>(d.tensors)));
    else
      out.item(c.dtype_keys[i], c.dtype_labels[i], value(P(d.elements)), "elements stored as this type",
               text("{} tensors, {}, {} bits/weight", static_cast<double>(d.tensors),
                    static_cast<double>(d.bytes) * units::byte, d.bits_per_weight()));
  }
  if (config != nullptr) {
    out.item("config_total_params", "config.json formula count", value(P(static_cast<std::uint64_t>(cc.total))),
             "napkin params config.json", text("{}", P(static_cast<std::uint64_t>(cc.total))));
    const double diff = static_cast<double>(params) - static_cast<double>(cc.total);
    out.item("config_difference", "headers − config.json", value(diff * units::param), "checkpoint − config",
             text("{} − {}", P(params), P(static_cast<std::uint64_t>(cc.total))));
    // One pattern per group: the CLI prints each warning pattern once per run.
    static constexpr std::array<std::string_view, kParamGroups.size()> kDiff{
        "embedding: the checkpoint holds {} and config.json implies {} (difference {}); check the config",
        "attention: the checkpoint holds {} and config.json implies {} (difference {}); check the config",
        "mlp: the checkpoint holds {} and config.json implies {} (difference {}); check the config",
        "experts: the checkpoint holds {} and config.json implies {} (difference {}); check the config",
        "router: the checkpoint holds {} and config.json implies {} (difference {}); check the config",
        "norm: the checkpoint holds {} and config.json implies {} (difference {}); check the config",
        "head: the checkpoint holds {} and config.json implies {} (difference {}); check the config",
        "other: the checkpoint holds {} and config.json implies {} (difference {}); check the config",
        "ssm: the checkpoint holds {} and config.json implies {} (difference {}); check the config",
        "vision: the checkpoint holds {} and config.json implies {} (difference {}); check the config",
    };
    for (std::size_t i = 0; i < kParamGroups.size(); ++i) {
      const auto mine = static_cast<i64>(groups[i]), theirs = cc.groups[i];
      if (mine != theirs)
        out.warn(text(kDiff[i], exact_params(c.exact, mine), exact_params(c.exact, theirs),
                      exact_params(c.exact, mine - theirs)));
    }
    out.assume("config_crosscheck",
               text("config.json beside the weights: its formula count is compared group by group"));
  }
  out.assume("headers_only", text("counted from the {} headers; no weight was read", std::string_view(ck.format)));
  if (buffer_tensors > 0)
    out.assume("buffers",
               text("{} buffer tensor(s) ({} elements: rotary inv_freq, causal masks) stored beside the weights are "
                    "not parameters",
                    static_cast<double>(buffer_tensors), static_cast<double>(buffers)));
  for (const auto& w : ck.warnings) out.warn(text("{}", std::string_view(w)));
}

}  // namespace napkin::cli
