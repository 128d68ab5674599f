#include "napkin/model/parallel.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"

namespace napkin {

using namespace units;

std::vector<StageShard> shard_stages(const specs::ModelSpec& m, const ParamCount& c, Count tp_count,
                                     Count pp_count, Count ep_count) {
  require_positive_integer(tp_count, "tp");
  require_positive_integer(pp_count, "pp");
  require_positive_integer(ep_count, "ep");
  const auto ep = static_cast<std::int64_t>(ep_count.in(one));
  if (ep > 1 && !m.moe.is_moe())
    throw InputError("--ep", std::to_string(ep), "1 (expert parallelism needs a mixture-of-experts model)");
  if (ep > 1 && m.moe.n_experts % ep != 0)
    throw InputError("--ep", std::to_string(ep),
                     "a divisor of the model's " + std::to_string(m.moe.n_experts) + " routed experts");
  const auto tp = static_cast<std::int64_t>(tp_count.in(one));
  const auto pp = static_cast<std::int64_t>(pp_count.in(one));
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
  // Mamba mixers (state-space layers) stay whole: tp is 1 on a model that has them. A recurrent
  // mixer of a table (linear attention, short convolution) splits by head as its state does.
  const double ssm_split = m.has_recurrent() ? t : 1.0;
  auto stage_layer_params = [&](std::int64_t i) {
    const LayerParams lp = layer_params(m, c, i);
    const double attn = static_cast<double>(lp.attention), kv = lp.attention > 0 ? kv_proj : 0.0;
    return (attn - kv) / t + kv * kv_keep + static_cast<double>(lp.mlp + lp.shared) / t +
           static_cast<double>(lp.routed) / (t * static_cast<double>(ep)) + static_cast<double>(lp.ssm) / ssm_split +
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
  // Balanced split: the first L mod pp stages take one layer more.
  const std::int64_t base = m.layers / pp, extra = m.layers % pp;
  std::int64_t first = 0;
  for (std::int64_t s = 0; s < pp; ++s) {
    StageShard st;
    st.first_layer = first;
    st.layers = base + (s < extra ? 1 : 0);
    st.has_embedding = s == 0;
    st.has_head = s == pp - 1;
    st.kv_heads = kv_heads;
    for (std::int64_t i = first; i < first + st.layers; ++i) {
      const LayerParams lp = layer_params(m, c, i);
      st.params += stage_layer_params(i);
      st.largest_layer = std::max(st.largest_layer, stage_layer_params(i));
      st.expert_params += static_cast<double>(lp.routed) / (t * static_cast<double>(ep));
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

}  // namespace napkin
