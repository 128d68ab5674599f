#include "napkin/model/parallel.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"

namespace napkin {

using namespace units;

namespace {

std::optional<std::int64_t> whole(const std::optional<Count>& n, const char* flag) {
  if (!n) return std::nullopt;
  const double v = n->in(one);
  if (!std::isfinite(v) || v < 1.0 || std::floor(v) != v)
    throw InputError(flag, format_plain_number(v), "a positive integer");
  return static_cast<std::int64_t>(v);
}

}  // namespace

// Megatron-LM's uneven split, NVIDIA/Megatron-LM d98e8a6: get_num_layers_to_build
// (megatron/core/transformer/transformer_block.py, lines 103-146) takes the given first and last
// counts off, and the stages left share the layers left, `layers_to_distribute %
// pipeline_stages_left == 0` asserted; TransformerConfig.__post_init__ (transformer_config.py,
// lines 2294-2368) refuses a count ≤ 0 and layers left without stages left or stages without
// layers ("Mismatch"). Megatron's own balanced split asserts L % pp == 0 (transformer_block.py,
// lines 147-158); napkin's puts the remainder on the first stages instead, as before.
std::vector<std::int64_t> stage_layer_counts(std::int64_t layers, std::int64_t pp, std::optional<std::int64_t> first,
                                             std::optional<std::int64_t> last) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(std::max<std::int64_t>(pp, 0)));
  if (!first && !last) {
    const std::int64_t base = layers / pp, extra = layers % pp;
    for (std::int64_t s = 0; s < pp; ++s) out[static_cast<std::size_t>(s)] = base + (s < extra ? 1 : 0);
    return out;
  }
  const char* flag = first ? "--first-stage-layers" : "--last-stage-layers";
  const std::int64_t given = first ? *first : *last;
  const std::string value = std::to_string(given);
  if (pp < 2)
    throw InputError(flag, value, "--pp 2 or more with it (a pipeline's " + std::string(first ? "first" : "last") +
                                      " stage; --pp is " + std::to_string(pp) + ")");
  if ((first && *first < 1) || (last && *last < 1))
    throw InputError(first && *first < 1 ? "--first-stage-layers" : "--last-stage-layers",
                     std::to_string(first && *first < 1 ? *first : *last), "a positive integer");
  const std::int64_t middle = pp - (first ? 1 : 0) - (last ? 1 : 0);
  const std::int64_t left = layers - first.value_or(0) - last.value_or(0);
  // The text says what was taken off: "with --last-stage-layers 7" where both are given.
  const std::string with = first && last ? " with --last-stage-layers " + std::to_string(*last) : "";
  if (left < 0 || (left == 0) != (middle == 0) || (middle > 0 && left % middle != 0))
    throw InputError(flag, value,
                     middle == 0
                         ? "the model's " + std::to_string(layers) + " layers between the first and last stages" +
                               with + " (--pp 2 has no stage between them; Megatron-LM: layers left need stages left)"
                         : "a count" + with + " that leaves the " + std::to_string(middle) + " other stage(s) " +
                               "an equal whole share, at least one layer each, of the model's " +
                               std::to_string(layers) + " layers (" + std::to_string(left) +
                               " left; Megatron-LM's uneven split divides the layers left by the stages left)");
  for (std::int64_t s = 0; s < pp; ++s) {
    std::int64_t n = middle > 0 ? left / middle : 0;
    if (s == 0 && first) n = *first;
    if (s == pp - 1 && last) n = *last;
    out[static_cast<std::size_t>(s)] = n;
  }
  return out;
}

void check_expert_layout(const specs::ModelSpec& m, const ShardLayout& layout) {
  require_positive_integer(layout.ep, "ep");
  const auto ep = static_cast<std::int64_t>(layout.ep.in(one));
  if (ep > 1 && !m.moe.is_moe())
    throw InputError("--ep", std::to_string(ep), "1 (expert parallelism needs a mixture-of-experts model)");
  const std::optional<std::int64_t> etp = whole(layout.etp, "--etp");
  if (etp && !m.moe.is_moe())
    throw InputError("--etp", std::to_string(*etp),
                     "a mixture-of-experts model with it (expert tensor parallelism splits routed experts; " +
                         (m.count_only() ? std::string("a bare --params count") : m.name.empty() ? std::string("the model") : m.name) +
                         " has none)");
}

std::vector<StageShard> shard_stages(const specs::ModelSpec& m, const ParamCount& c, Count tp_count,
                                     Count pp_count, Count ep_count) {
  return shard_stages(m, c, ShardLayout{.tp = tp_count, .pp = pp_count, .ep = ep_count});
}

std::vector<StageShard> shard_stages(const specs::ModelSpec& m, const ParamCount& c, const ShardLayout& layout) {
  require_positive_integer(layout.tp, "tp");
  require_positive_integer(layout.pp, "pp");
  check_expert_layout(m, layout);
  const auto ep = static_cast<std::int64_t>(layout.ep.in(one));
  if (ep > 1 && m.moe.n_experts % ep != 0)
    throw InputError("--ep", std::to_string(ep),
                     "a divisor of the model's " + std::to_string(m.moe.n_experts) + " routed experts");
  const std::optional<std::int64_t> etp_given = whole(layout.etp, "--etp");
  const std::optional<std::int64_t> first_layers = whole(layout.first_stage_layers, "--first-stage-layers");
  const std::optional<std::int64_t> last_layers = whole(layout.last_stage_layers, "--last-stage-layers");
  const auto tp = static_cast<std::int64_t>(layout.tp.in(one));
  const auto pp = static_cast<std::int64_t>(layout.pp.in(one));
  if (m.count_only() && (first_layers || last_layers))
    throw InputError(first_layers ? "--first-stage-layers" : "--last-stage-layers",
                     std::to_string(first_layers ? *first_layers : *last_layers),
                     "a MODEL architecture (a bare --params has no layers to place)");
  if (m.count_only()) {
    // No architecture: P split evenly over tp · pp GPUs (no replicated norms, no KV heads); ep > 1
    // was refused above, a bare count having no experts.
    std::vector<StageShard> stages(static_cast<std::size_t>(pp));
    for (std::int64_t s = 0; s < pp; ++s) {
      StageShard& st = stages[static_cast<std::size_t>(s)];
      st.params = static_cast<double>(m.bare_params) / static_cast<double>(tp * pp);
      st.has_embedding = s == 0;
      st.has_head = s == pp - 1;
    }
    return stages;
  }
  if (pp > m.layers)
    throw InputError("--pp", std::to_string(pp), "at most the model's " + std::to_string(m.layers) + " layers");
  if (tp > 1 && m.has_mamba())
    throw InputError("--tp", std::to_string(tp),
                     "1 for " + (m.name.empty() ? std::string("a model") : m.name) +
                         ": how TP splits a Mamba mixer's in_proj, convolution and state is not modelled");
  if (tp > 1 && m.has_recurrent() && m.recurrent.tp_unit % tp != 0)
    throw InputError("--tp", std::to_string(tp),
                     "a divisor of " + std::to_string(m.recurrent.tp_unit) + ", the heads (or groups) TP splits " +
                         (m.name.empty() ? std::string("the model") : m.name) + "'s " + m.recurrent.kind +
                         " layers by");
  if (m.heads % tp != 0)
    throw InputError("--tp", std::to_string(tp),
                     "a divisor of the model's " + std::to_string(m.heads) + " attention heads");
  if (m.has_layer_kv()) {
    // Per-layer KV shapes: every attending layer's KV heads split evenly (replicating the heads of
    // a layer with fewer KV heads than ranks is not modelled for them).
    for (std::int64_t l = 0; l < m.layers; ++l)
      if (m.kv_width(l) > 0 && m.kv_heads_of(l) % tp != 0)
        throw InputError("--tp", std::to_string(tp),
                         "a divisor of layer " + std::to_string(l) + "'s " + std::to_string(m.kv_heads_of(l)) +
                             " KV heads (" + (m.name.empty() ? std::string("the model") : m.name) +
                             " has per-layer KV shapes, whose replicated heads napkin does not model)");
  }
  const bool mla = m.attention == specs::AttentionKind::mla;
  double kv_heads = 1.0;
  double kv_keep = 1.0;  // fraction of the K/V projection weights one rank keeps
  if (!mla && m.kv_heads == 0) {
    kv_heads = 0.0;  // a pure state-space model: no attention, no KV heads (tp is 1, above)
  } else if (!mla) {
    if (m.kv_heads >= tp) {
      if (m.kv_heads % tp != 0)
        throw InputError("--tp", std::to_string(tp),
                         "a divisor of the model's " + std::to_string(m.kv_heads) + " KV heads");
      kv_heads = static_cast<double>(m.kv_heads / tp);
      kv_keep = 1.0 / static_cast<double>(tp);
    } else {
      if (tp % m.kv_heads != 0)
        throw InputError("--tp", std::to_string(tp),
                         "a multiple of the model's " + std::to_string(m.kv_heads) + " KV heads");
      kv_heads = 1.0;
      kv_keep = 1.0 / static_cast<double>(m.kv_heads);
    }
  }
  // K and V projections of one layer (weights and biases), the part split by KV head.
  const double kv_proj = mla ? 0.0
                             : 2.0 * static_cast<double>(m.kv_heads * m.head_dim) *
                                   (static_cast<double>(m.hidden) + (m.qkv_bias ? 1.0 : 0.0));
  const double t = static_cast<double>(tp);
  // Routed experts split over etp · ep ranks (Megatron-Core's expert grid: NVIDIA/Megatron-LM
  // d98e8a6, megatron/core/parallel_state.py initialize_model_parallel, lines 870-896, builds the
  // expert rank generator with tp = expert_tensor_parallel_size, ep = expert_model_parallel_size).
  const double te = etp_given ? static_cast<double>(*etp_given) : t;
  // Mamba mixers (state-space layers) stay whole: tp is 1 on a model that has them. A recurrent
  // mixer of a table (linear attention, short convolution) splits by head as its state does.
  const double ssm_split = m.has_recurrent() ? t : 1.0;
  auto stage_layer_params = [&](std::int64_t i) {
    const LayerParams lp = layer_params(m, c, i);
    const double attn = static_cast<double>(lp.attention), kv = lp.attention > 0 ? kv_proj : 0.0;
    return (attn - kv) / t + kv * kv_keep + static_cast<double>(lp.mlp + lp.shared) / t +
           static_cast<double>(lp.routed) / (te * static_cast<double>(ep)) + static_cast<double>(lp.ssm) / ssm_split +
           static_cast<double>(lp.router + lp.norm + lp.other);
  };
  // Norms outside the layers (final norm, embedding norm) and "other" tensors (pooler,
  // projections) go with the last stage, replicated over TP.
  std::int64_t layer_norms = 0, layer_other = 0;
  for (std::int64_t i = 0; i < m.layers; ++i) {
    const LayerParams lp = layer_params(m, c, i);
    layer_norms += lp.norm;
    layer_other += lp.other;
  }
  const double outer_norms = static_cast<double>(c.group(ParamGroup::norm) - layer_norms);
  const double outer_other = static_cast<double>(c.group(ParamGroup::other) - layer_other);

  std::vector<StageShard> stages;
  const std::vector<std::int64_t> counts = stage_layer_counts(m.layers, pp, first_layers, last_layers);
  std::int64_t first = 0;
  for (std::int64_t s = 0; s < pp; ++s) {
    StageShard st;
    st.first_layer = first;
    st.layers = counts[static_cast<std::size_t>(s)];
    st.has_embedding = s == 0;
    st.has_head = s == pp - 1;
    st.kv_heads = kv_heads;
    for (std::int64_t i = first; i < first + st.layers; ++i) {
      const LayerParams lp = layer_params(m, c, i);
      st.params += stage_layer_params(i);
      st.largest_layer = std::max(st.largest_layer, stage_layer_params(i));
      st.expert_params += static_cast<double>(lp.routed) / (te * static_cast<double>(ep));
      st.kept_params += static_cast<double>(lp.norm);
      const double width = m.has_layer_kv() ? static_cast<double>(m.kv_width(i)) / t : 0.0;
      switch (m.layer_attention(i)) {
        case specs::LayerAttention::sliding: ++st.windowed_layers; st.kv_width_window += width; break;
        case specs::LayerAttention::chunked: ++st.chunked_layers; st.kv_width_chunk += width; break;
        case specs::LayerAttention::none: ++st.attention_free; break;
        case specs::LayerAttention::full: st.kv_width_full += width; break;
      }
    }
    if (st.has_embedding) {
      const double e = static_cast<double>(c.group(ParamGroup::embedding)) / t;
      st.params += e;
      st.kept_params += e;
      // A vision tower and projector run before the first layer: on the first stage, split over
      // TP as vLLM's Qwen2.5-VL and LLaVA towers are.
      st.params += static_cast<double>(c.group(ParamGroup::vision)) / t;
    }
    if (st.has_head) {
      const double h = static_cast<double>(c.group(ParamGroup::head)) / t;
      st.params += h + outer_norms + outer_other;
      st.kept_params += h + outer_norms;
    }
    stages.push_back(st);
    first += st.layers;
  }
  return stages;
}

bool chunkable(const StageShard& st, std::int64_t v) {
  const std::int64_t empty = st.layers / v == 0 ? v - st.layers % v : 0;
  return v >= 1 && (empty == 0 || (empty == 1 && (st.has_embedding || st.has_head)));
}

std::vector<std::int64_t> chunk_layers(const StageShard& st, std::int64_t v) {
  if (!chunkable(st, v))
    throw InputError("--virtual-stages", std::to_string(v),
                     "at most a stage's layers (a stage holds " + std::to_string(st.layers) +
                         "; only the embedding's first chunk or the head's last may hold no layer)");
  const std::int64_t base = st.layers / v, heavy = st.layers % v;
  std::vector<std::int64_t> chunks(static_cast<std::size_t>(v), base);
  // The heavier chunks: the last `heavy` on the embedding's stage, the first `heavy` elsewhere.
  for (std::int64_t k = 0; k < heavy; ++k)
    chunks[static_cast<std::size_t>(st.has_embedding ? v - 1 - k : k)] += 1;
  return chunks;
}

}  // namespace napkin
