#include "napkin/model/params.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/model/tensor_table.h"
#include "params_table.h"

namespace napkin {

using specs::AttentionKind;
using specs::FfnKind;
using specs::ModelSpec;
using specs::NormKind;
using specs::PositionKind;

std::string_view param_group_name(ParamGroup g) {
  switch (g) {
    case ParamGroup::embedding: return "embedding";
    case ParamGroup::attention: return "attention";
    case ParamGroup::mlp: return "mlp";
    case ParamGroup::experts: return "experts";
    case ParamGroup::router: return "router";
    case ParamGroup::norm: return "norm";
    case ParamGroup::head: return "head";
    case ParamGroup::other: return "other";
    case ParamGroup::ssm: return "ssm";
    case ParamGroup::vision: return "vision";
  }
  return "other";
}

namespace {

using i64 = std::int64_t;

// Upper bounds on the fields, far above any real model (the widest hidden size is in the tens of
// thousands, the deepest model has a few hundred layers), that keep every per-layer product
// below 2^60, so that the integer arithmetic below cannot overflow. The total is then checked
// against 2^53 before the layers are summed (kMaxTotal).
constexpr i64 kMaxWidth = i64{1} << 20;  // 1,048,576: hidden, head_dim, ffn, expert widths, MLA ranks
constexpr i64 kMaxCount = i64{1} << 16;  // 65,536: layers, heads, experts
constexpr i64 kMaxRows = i64{1} << 32;   // vocabulary, position and token-type rows
constexpr i64 kMaxNorms = 16;            // norms per layer
// Counts are printed as doubles, exact up to 2^53.
constexpr i64 kMaxTotal = i64{1} << 53;

// The message names the model (a file, a preset) and its field: "config.json: kv_heads: '5':
// expected ...". Not InputError's field form, which the CLI would turn into a flag name.
void require(const ModelSpec& m, bool ok, const char* field, i64 v, const std::string& expected) {
  if (!ok)
    throw InputError((m.name.empty() ? std::string() : m.name + ": ") + field + ": '" + std::to_string(v) +
                     "': expected " + expected);
}

void in_range(const ModelSpec& m, const char* field, i64 v, i64 min, i64 max, const char* what) {
  require(m, v >= min && v <= max, field, v,
          std::string(what) + " from " + std::to_string(min) + " to " + std::to_string(max));
}

// A state-space model's Mamba mixer and per-layer lists.
void check_mamba(const ModelSpec& m) {
  const auto& s = m.mamba;
  const auto n = static_cast<i64>(m.layer_mixers.size()), f = static_cast<i64>(m.layer_ffns.size());
  require(m, n == 0 || n == m.layers, "layer_mixers", n, "one mixer per layer (" + std::to_string(m.layers) + ")");
  require(m, f == 0 || f == m.layers, "layer_ffns", f, "one feed-forward kind per layer (" + std::to_string(m.layers) + ")");
  if (!m.has_mamba()) return;
  require(m, s.version == 1 || s.version == 2, "mamba_version", s.version, "1 or 2 (a model with Mamba layers)");
  in_range(m, "d_inner", s.d_inner, 1, kMaxWidth, "a Mamba inner width");
  in_range(m, "d_state", s.d_state, 1, kMaxWidth, "a Mamba state size");
  in_range(m, "conv_kernel", s.conv_kernel, 1, kMaxWidth, "a Mamba convolution kernel");
  if (s.version == 1) {
    in_range(m, "dt_rank", s.dt_rank, 1, kMaxWidth, "a Mamba time-step rank");
  } else {
    in_range(m, "ssm_heads", s.heads, 1, kMaxCount, "a number of Mamba-2 heads");
    in_range(m, "n_groups", s.groups, 1, kMaxCount, "a number of Mamba-2 groups");
    require(m, s.d_inner % s.heads == 0, "d_inner", s.d_inner,
            "a multiple of the " + std::to_string(s.heads) + " Mamba-2 heads");
    require(m, s.heads % s.groups == 0, "n_groups", s.groups,
            "a divisor of the " + std::to_string(s.heads) + " Mamba-2 heads");
  }
}

bool has_attention(const ModelSpec& m) {
  for (i64 l = 0; l < m.layers; ++l)
    if (m.layer_mixer(l) == specs::LayerMixer::attention) return true;
  return false;
}

void check(const ModelSpec& m) {
  require(m, m.hidden > 0, "hidden", m.hidden, "a positive integer (hidden size D)");
  require(m, m.layers > 0, "layers", m.layers, "a positive integer (number of layers L)");
  in_range(m, "layers", m.layers, 1, kMaxCount, "a number of layers L");
  check_mamba(m);
  const bool attends = has_attention(m);  // a pure state-space model has no attention heads
  if (attends) require(m, m.heads > 0, "heads", m.heads, "a positive integer (attention heads H)");
  require(m, m.vocab > 0, "vocab", m.vocab, "a positive integer (vocabulary size V)");
  require(m, m.ffn >= 0, "ffn", m.ffn, "a non-negative integer (MLP width F)");
  in_range(m, "hidden", m.hidden, 1, kMaxWidth, "a hidden size D");
  if (attends) in_range(m, "heads", m.heads, 1, kMaxCount, "a number of attention heads H");
  in_range(m, "vocab", m.vocab, 1, kMaxRows, "a vocabulary size V");
  in_range(m, "ffn", m.ffn, 0, kMaxWidth, "an MLP width F");
  in_range(m, "position_table", m.position_table, 0, kMaxRows, "a number of learned positions");
  in_range(m, "type_vocab", m.type_vocab, 0, kMaxRows, "a number of token types");
  in_range(m, "norms_per_layer", m.norms_per_layer, 0, kMaxNorms, "a number of norms per layer");
  if (!attends) {
    // no attention tensors to size
  } else if (m.attention != AttentionKind::mla) {
    require(m, m.head_dim > 0, "head_dim", m.head_dim, "a positive integer (d_head)");
    in_range(m, "head_dim", m.head_dim, 1, kMaxWidth, "a head dimension d_head");
    require(m, m.kv_heads > 0 && m.heads % m.kv_heads == 0, "kv_heads", m.kv_heads,
            "a positive divisor of the number of attention heads (" + std::to_string(m.heads) + ")");
  } else {
    require(m, m.mla.kv_lora_rank > 0, "kv_lora_rank", m.mla.kv_lora_rank, "a positive integer");
    require(m, m.mla.qk_rope_head_dim > 0, "qk_rope_head_dim", m.mla.qk_rope_head_dim, "a positive integer");
    require(m, m.mla.qk_nope_head_dim >= 0, "qk_nope_head_dim", m.mla.qk_nope_head_dim, "a non-negative integer");
    require(m, m.mla.v_head_dim > 0, "v_head_dim", m.mla.v_head_dim, "a positive integer");
    in_range(m, "q_lora_rank", m.mla.q_lora_rank, 0, kMaxWidth, "a query latent rank");
    in_range(m, "kv_lora_rank", m.mla.kv_lora_rank, 1, kMaxWidth, "a KV latent rank");
    in_range(m, "qk_rope_head_dim", m.mla.qk_rope_head_dim, 1, kMaxWidth, "a rotary head dimension");
    in_range(m, "qk_nope_head_dim", m.mla.qk_nope_head_dim, 0, kMaxWidth, "a head dimension");
    in_range(m, "v_head_dim", m.mla.v_head_dim, 1, kMaxWidth, "a value head dimension");
  }
  if (m.moe.is_moe()) {
    require(m, m.moe.experts_per_token > 0 && m.moe.experts_per_token <= m.moe.n_experts, "experts_per_token",
            m.moe.experts_per_token, "between 1 and the number of experts (" + std::to_string(m.moe.n_experts) + ")");
    require(m, m.moe.expert_ffn > 0, "expert_ffn", m.moe.expert_ffn, "a positive integer");
    require(m, m.moe.first_k_dense >= 0 && m.moe.first_k_dense <= m.layers, "first_k_dense",
            m.moe.first_k_dense, "between 0 and the number of layers (" + std::to_string(m.layers) + ")");
    in_range(m, "experts", m.moe.n_experts, 1, kMaxCount, "a number of routed experts");
    in_range(m, "shared_experts", m.moe.n_shared_experts, 0, kMaxCount, "a number of shared experts");
    in_range(m, "expert_ffn", m.moe.expert_ffn, 1, kMaxWidth, "an expert MLP width");
    in_range(m, "shared_ffn", m.moe.shared_ffn, 0, kMaxWidth, "a shared-expert MLP width");
  }
  require(m, m.embed_proj_dim >= 0, "embed_proj_dim", m.embed_proj_dim, "a non-negative integer");
  in_range(m, "embed_proj_dim", m.embed_proj_dim, 0, kMaxWidth, "an embedding projection width");
}

// Weights (and biases) of one norm over `width` features.
i64 norm_params(const ModelSpec& m, i64 width) {
  return m.norm == NormKind::layernorm && m.norm_bias ? 2 * width : width;
}

// An MLP D→F→D: 3 matrices when gated (gate, up, down), 2 when plain; biases on each.
i64 mlp_params(const ModelSpec& m, i64 f, bool bias) {
  const i64 d = m.hidden;
  if (m.ffn_kind == FfnKind::gated) return 3 * d * f + (bias ? 2 * f + d : 0);
  return 2 * d * f + (bias ? f + d : 0);
}
i64 mlp_params(const ModelSpec& m, i64 f) { return mlp_params(m, f, m.mlp_bias); }

i64 attention_params(const ModelSpec& m) {
  const i64 d = m.hidden, h = m.heads;
  if (m.attention == AttentionKind::mla) {
    // DeepSeek-V2 §2.1.2/2.1.3 (modeling_deepseek.py DeepseekV2Attention): q_a_proj + q_b_proj
    // (or q_proj), kv_a_proj_with_mqa (latent + shared RoPE key), kv_b_proj (K_nope and V per
    // head), o_proj. The latent norms are counted under norm.
    const auto& a = m.mla;
    const i64 qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    const i64 q = a.q_lora_rank > 0 ? d * a.q_lora_rank + a.q_lora_rank * h * qk : d * h * qk;
    const i64 kv_a = d * (a.kv_lora_rank + a.qk_rope_head_dim);
    const i64 kv_b = a.kv_lora_rank * h * (a.qk_nope_head_dim + a.v_head_dim);
    const i64 o = h * a.v_head_dim * d;
    return q + kv_a + kv_b + o + (m.o_bias ? d : 0);
  }
  const i64 hd = m.head_dim, kv = m.kv_heads;
  const i64 qkv = d * (h + 2 * kv) * hd + (m.qkv_bias ? (h + 2 * kv) * hd : 0);
  const i64 o = h * hd * d + (m.o_bias ? d : 0);
  return qkv + o + (m.attention_sinks ? h : 0);  // gpt-oss: one sink logit per query head
}

i64 layer_norm_params(const ModelSpec& m) {
  i64 n = static_cast<i64>(m.norms_per_layer) * norm_params(m, m.hidden);
  // Qwen3 q_norm, k_norm: a norm over d_head each; OLMo-2: over H·d_head and H_kv·d_head. Phi-2's
  // optional q/k LayerNorms carry a bias too (norm_params).
  if (m.qk_norm)
    n += m.qk_norm_full_width ? norm_params(m, (m.heads + m.kv_heads) * m.head_dim) : 2 * norm_params(m, m.head_dim);
  if (m.qk_norm_per_head) n += (m.heads + m.kv_heads) * m.head_dim;  // Cohere, StableLM: one weight per head
  if (m.attention == AttentionKind::mla)
    n += (m.mla.q_lora_rank > 0 ? m.mla.q_lora_rank : 0) + m.mla.kv_lora_rank;
  return n;
}

LayerParams dense_layer(const ModelSpec& m) {
  LayerParams p;
  p.attention = attention_params(m);
  p.norm = layer_norm_params(m);
  p.mlp = mlp_params(m, m.ffn);
  return p;
}

LayerParams moe_layer(const ModelSpec& m) {
  LayerParams p;
  p.attention = attention_params(m);
  p.norm = layer_norm_params(m);
  const i64 d = m.hidden, e = m.moe.n_experts;
  p.routed_one = mlp_params(m, m.moe.expert_ffn, m.mlp_bias || m.moe.expert_bias);
  p.routed = e * p.routed_one;
  // DeepSeek: n_shared_experts experts of the routed width, fused into one MLP of width
  // n_shared · F_e. Qwen-MoE: one shared expert of width shared_ffn.
  if (m.moe.n_shared_experts > 0) p.shared = mlp_params(m, m.moe.n_shared_experts * m.moe.expert_ffn);
  if (m.moe.shared_ffn > 0) p.shared += mlp_params(m, m.moe.shared_ffn);
  p.router = d * e + (m.moe.router_bias ? e : 0) + (m.moe.shared_expert_gate ? d : 0);
  return p;
}

// One Mamba mixer (MambaSpec): its tensors under ssm, its inner norms (Jamba's dt/B/C norms,
// Mamba-2's gated RMSNorm) under norm.
LayerParams mamba_mixer(const ModelSpec& m) {
  LayerParams p;
  const auto& s = m.mamba;
  if (!m.has_mamba()) return p;
  const i64 d = m.hidden, e = s.d_inner, n = s.d_state, k = s.conv_kernel, c = s.conv_channels();
  const i64 conv = c * k + (s.conv_bias ? c : 0);
  const i64 out = e * d + (s.proj_bias ? d : 0);
  if (s.version == 1) {
    const i64 r = s.dt_rank;
    const i64 in = d * 2 * e + (s.proj_bias ? 2 * e : 0);
    p.ssm = in + conv + e * (r + 2 * n) + (r * e + e) + e * n + e + out;  // x_proj, dt_proj, A_log, D
    p.norm = s.inner_norms ? r + 2 * n : 0;
  } else {
    const i64 proj = 2 * e + 2 * s.groups * n + s.heads;
    p.ssm = d * proj + (s.proj_bias ? proj : 0) + conv + 3 * s.heads + out;  // dt_bias, A_log, D
    p.norm = e;  // gated RMSNorm over E
  }
  return p;
}

i64 position_rows(const ModelSpec& m) {
  return m.positions == PositionKind::learned ? m.position_table : 0;
}

i64 token_embedding_width(const ModelSpec& m) {
  return m.embed_proj_dim > 0 ? m.embed_proj_dim : m.hidden;
}

}  // namespace

// ---- encoder-decoder (T5) ---------------------------------------------------------------------
//
// modeling_t5.py: an encoder block is self-attention (q, k, v: D → H·d_kv; o: H·d_kv → D; no
// biases), the MLP and 2 T5LayerNorms (weight only); a decoder block adds cross-attention
// (EncDecAttention, the same four matrices) and a third norm. Each stack has a final norm and
// one relative_attention_bias (buckets × H) in its first block. The token embedding is one matrix,
// `shared`, which the encoder's and decoder's embed_tokens (and a tied lm_head) alias.

namespace {

struct EncDecParts {
  i64 attention_one = 0;  // one attention block's q, k, v, o
  i64 mlp_one = 0;        // one block's MLP
  i64 relative_bias = 0;  // one stack's relative_attention_bias
  i64 encoder_layer = 0, decoder_layer = 0;
  i64 encoder = 0, decoder = 0;  // each stack with its relative bias and final norm
};

EncDecParts encdec_parts(const ModelSpec& m) {
  EncDecParts p;
  const i64 d = m.hidden;
  p.attention_one = 4 * d * m.heads * m.head_dim;
  p.mlp_one = mlp_params(m, m.ffn);
  p.relative_bias = m.relative_attention_buckets * m.heads;
  p.encoder_layer = p.attention_one + p.mlp_one + 2 * d;
  p.decoder_layer = 2 * p.attention_one + p.mlp_one + 3 * d;
  p.encoder = m.layers * p.encoder_layer + p.relative_bias + d;
  p.decoder = m.decoder_layers * p.decoder_layer + p.relative_bias + d;
  return p;
}

ParamCount count_encoder_decoder(const ModelSpec& m) {
  in_range(m, "decoder_layers", m.decoder_layers, 1, kMaxCount, "a number of decoder layers");
  in_range(m, "relative_attention_buckets", m.relative_attention_buckets, 0, kMaxRows,
           "a number of relative-position buckets");
  const EncDecParts p = encdec_parts(m);  // each term below 2^60 by check()'s bounds
  ParamCount c;
  auto add = [&c](ParamGroup g, i64 v) { c.groups[static_cast<std::size_t>(g)] += v; };
  const i64 d = m.hidden, layers = m.layers + m.decoder_layers;
  add(ParamGroup::embedding, m.vocab * d);
  add(ParamGroup::attention, (m.layers + 2 * m.decoder_layers) * p.attention_one + 2 * p.relative_bias);
  add(ParamGroup::mlp, layers * p.mlp_one);
  add(ParamGroup::norm, (2 * m.layers + 3 * m.decoder_layers + 2) * d);
  if (!m.tied_embeddings) add(ParamGroup::head, m.vocab * d);
  for (i64 g : c.groups) c.total += g;
  if (c.total > kMaxTotal)
    throw InputError((m.name.empty() ? std::string("model") : m.name) + ": " + std::to_string(c.total) +
                     " parameters; expected a model below 2^53 = 9007199254740992 parameters, the largest exact count");
  c.embedding = c.group(ParamGroup::embedding) + c.group(ParamGroup::head);
  c.non_embedding = c.total - c.embedding;
  c.active = c.total;
  // One block of each stack; dense_layers (and attention_layers: every block attends) counts both
  // stacks' blocks, as a table's decoder stack does (params_table.cpp).
  c.dense_layers = c.attention_layers = layers;
  c.dense_layer = LayerParams{.attention = p.attention_one, .norm = 2 * d, .mlp = p.mlp_one};
  return c;
}

ParamCount count_language_model(const ModelSpec& m);

}  // namespace

ParamCount count_params(const ModelSpec& m) {
  if (!m.tower_refusal.empty())
    throw InputError(m.tower_refusal + " (napkin counts the language model alone with --text-only)");
  ParamCount c = m.tensors ? detail::count_table(m) : count_language_model(m);
  if (m.tensors && m.has_mamba()) {
    // One Mamba mixer as the spec states it, where the table's first Mamba layer holds it.
    const LayerParams mixer = mamba_mixer(m);
    for (i64 l = 0; l < m.layers; ++l)
      if (m.layer_mixer(l) == specs::LayerMixer::mamba) {
        if (c.table_layers[static_cast<std::size_t>(l)].ssm == mixer.ssm) c.mamba_mixer = mixer;
        break;
      }
  }
  if (m.tower) {
    // The tower: counted in total (the checkpoint holds it, vLLM loads it), not in the active
    // parameters of a text token.
    i64 v = 0;
    for (const specs::TableTensor& x : m.tower->tensors) v += x.elements() * x.copies;
    c.groups[static_cast<std::size_t>(ParamGroup::vision)] += v;
    c.total += v;
    c.non_embedding += v;
    if (c.total > kMaxTotal)
      throw InputError((m.name.empty() ? std::string("model") : m.name) + ": " + std::to_string(c.total) +
                       " parameters; expected a model below 2^53 = 9007199254740992 parameters, the largest exact count");
  }
  return c;
}

namespace {

ParamCount count_language_model(const ModelSpec& m) {
  ParamCount c;
  if (m.count_only()) {
    // A bare count: which parameters are embeddings is unknown; all of them count as "other".
    c.groups[static_cast<std::size_t>(ParamGroup::other)] = m.bare_params;
    c.total = c.active = c.non_embedding = m.bare_params;
    return c;
  }
  check(m);
  if (m.encoder_decoder) return count_encoder_decoder(m);
  auto add = [&c](ParamGroup g, i64 v) { c.groups[static_cast<std::size_t>(g)] += v; };
  const i64 d = m.hidden, ew = token_embedding_width(m);

  add(ParamGroup::embedding, m.vocab * ew + position_rows(m) * d + m.type_vocab * d);
  if (!m.tied_embeddings && !m.encoder_only) add(ParamGroup::head, m.vocab * ew + (m.lm_head_bias ? m.vocab : 0));
  // OPT-350m: project_in (P→D) and project_out (D→P), no biases.
  if (m.embed_proj_dim > 0 && m.embed_proj_dim != d) add(ParamGroup::other, 2 * m.embed_proj_dim * d);
  if (m.pooler) add(ParamGroup::other, d * d + d);
  if (m.final_norm) add(ParamGroup::norm, norm_params(m, d));
  if (m.embedding_norm) add(ParamGroup::norm, norm_params(m, d));

  c.dense_layer = dense_layer(m);
  if (m.moe.is_moe()) c.moe_layer = moe_layer(m);
  c.mamba_mixer = mamba_mixer(m);
  {
    // Before summing: at most L layers of the larger kind on top of what is counted so far.
    double bound = static_cast<double>(m.layers) *
                   (static_cast<double>(std::max(c.dense_layer.total(), c.moe_layer.total())) +
                    static_cast<double>(c.mamba_mixer.total()));
    for (i64 g : c.groups) bound += static_cast<double>(g);
    if (bound > static_cast<double>(kMaxTotal))
      throw InputError((m.name.empty() ? std::string("model") : m.name) + ": about " + format_plain_number(bound) +
                       " parameters (" + std::to_string(m.layers) + " layers of up to " +
                       std::to_string(std::max(c.dense_layer.total(), c.moe_layer.total())) +
                       "); expected a model below 2^53 = 9007199254740992 parameters, the largest exact count");
  }
  for (i64 l = 0; l < m.layers; ++l) {
    const LayerParams p = layer_params(m, c, l);
    const specs::LayerFfn ffn = m.layer_ffn(l);
    if (ffn != specs::LayerFfn::none) (ffn == specs::LayerFfn::moe ? c.moe_layers : c.dense_layers) += 1;
    const specs::LayerMixer mixer = m.layer_mixer(l);
    c.attention_layers += mixer == specs::LayerMixer::attention ? 1 : 0;
    c.mamba_layers += mixer == specs::LayerMixer::mamba ? 1 : 0;
    add(ParamGroup::attention, p.attention);
    add(ParamGroup::norm, p.norm);
    add(ParamGroup::mlp, p.mlp);
    add(ParamGroup::experts, p.routed + p.shared);
    add(ParamGroup::router, p.router);
    add(ParamGroup::ssm, p.ssm);
  }
  for (i64 g : c.groups) c.total += g;
  c.embedding = c.group(ParamGroup::embedding) + c.group(ParamGroup::head);
  c.non_embedding = c.total - c.embedding;
  c.active = c.total;
  if (m.moe.is_moe())
    c.active -= c.moe_layers * (m.moe.n_experts - m.moe.experts_per_token) * c.moe_layer.routed_one;
  return c;
}

}  // namespace

LayerParams layer_params(const ModelSpec& m, const ParamCount& c, i64 l) {
  if (m.tensors)
    return l >= 0 && static_cast<std::size_t>(l) < c.table_layers.size() ? c.table_layers[static_cast<std::size_t>(l)]
                                                                          : detail::table_layer(*m.tensors, l);
  const specs::LayerFfn ffn = m.layer_ffn(l);
  LayerParams p = ffn == specs::LayerFfn::moe ? c.moe_layer : c.dense_layer;
  if (ffn == specs::LayerFfn::none) p.mlp = p.routed = p.routed_one = p.shared = p.router = 0;
  const specs::LayerMixer mixer = m.layer_mixer(l);
  if (mixer != specs::LayerMixer::attention) {
    p.attention = 0;
    p.norm = static_cast<i64>(m.norms_per_layer) * norm_params(m, m.hidden);  // no q/k or latent norms
  }
  if (mixer == specs::LayerMixer::mamba) {
    p.ssm = c.mamba_mixer.ssm;
    p.norm += c.mamba_mixer.norm;
  }
  return p;
}

// ---- the params command's ResultSet --------------------------------------------------------

namespace {

using units::param;

Params P(i64 v) { return static_cast<double>(v) * param; }
double N(i64 v) { return static_cast<double>(v); }

void embedding_item(const ModelSpec& m, const ParamCount& c, ResultSet& out) {
  const i64 g = c.group(ParamGroup::embedding);
  const i64 ew = token_embedding_width(m);
  if (m.type_vocab > 0)
    out.item("embedding", "token, position and type embeddings", value(P(g)), "V·D + P_max·D + T·D",
             text("{} · {} + {} · {} + {} · {}", N(m.vocab), N(ew), N(position_rows(m)), N(m.hidden),
                  N(m.type_vocab), N(m.hidden)));
  else if (position_rows(m) > 0)
    out.item("embedding", "token and position embeddings", value(P(g)), "V·D + P_max·D",
             text("{} · {} + {} · {}", N(m.vocab), N(ew), N(position_rows(m)), N(m.hidden)));
  else
    out.item("embedding", "token embeddings", value(P(g)), "V·D", text("{} · {}", N(m.vocab), N(ew)));
}

void attention_item(const ModelSpec& m, const ParamCount& c, ResultSet& out) {
  const Params v = P(c.group(ParamGroup::attention));
  const char* label = "attention projections";
  if (m.attention == AttentionKind::mla) {
    const auto& a = m.mla;
    const i64 d = m.hidden, h = m.heads, qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    const i64 q = a.q_lora_rank > 0 ? d * a.q_lora_rank + a.q_lora_rank * h * qk : d * h * qk;
    const i64 kv_a = d * (a.kv_lora_rank + a.qk_rope_head_dim);
    const i64 kv_b = a.kv_lora_rank * h * (a.qk_nope_head_dim + a.v_head_dim);
    const i64 o = h * a.v_head_dim * d;
    out.item("attention", label, value(v),
             "L·(q + kv_a + kv_b + o)",
             text("{} · ({} + {} + {} + {})", N(c.attention_layers), N(q), N(kv_a), N(kv_b), N(o)));
    out.note(text("MLA per layer: q = {} (q_lora_rank {}), kv_a = D·(r_kv + d_rope) = {} · {}, kv_b = r_kv·H·(d_nope + "
                  "d_v) = {} · {} · {}, o = H·d_v·D",
                  N(q), N(a.q_lora_rank), N(d), N(a.kv_lora_rank + a.qk_rope_head_dim), N(a.kv_lora_rank), N(h),
                  N(a.qk_nope_head_dim + a.v_head_dim)));
    return;
  }
  const double L = N(c.attention_layers), D = N(m.hidden), H = N(m.heads), K = N(m.kv_heads), d = N(m.head_dim);
  if (m.qkv_bias && m.o_bias)
    out.item("attention", label, value(v), "L·(D·(H + 2·H_kv)·d + H·d·D + (H + 2·H_kv)·d + D)",
             text("{} · ({} · ({} + 2·{}) · {} + {} · {} · {} + biases {})", L, D, H, K, d, H, d, D,
                  N((m.heads + 2 * m.kv_heads) * m.head_dim + m.hidden)));
  else if (m.qkv_bias)
    out.item("attention", label, value(v), "L·(D·(H + 2·H_kv)·d + H·d·D + (H + 2·H_kv)·d)",
             text("{} · ({} · ({} + 2·{}) · {} + {} · {} · {} + biases {})", L, D, H, K, d, H, d, D,
                  N((m.heads + 2 * m.kv_heads) * m.head_dim)));
  else
    out.item("attention", label, value(v), "L·(D·(H + 2·H_kv)·d + H·d·D)",
             text("{} · ({} · ({} + 2·{}) · {} + {} · {} · {})", L, D, H, K, d, H, d, D));
}

void mlp_item(const ModelSpec& m, const ParamCount& c, ResultSet& out) {
  const Params v = P(c.group(ParamGroup::mlp));
  const double Ld = N(c.dense_layers), D = N(m.hidden), F = N(m.ffn);
  const bool g = m.ffn_kind == FfnKind::gated;
  if (g && m.mlp_bias)
    out.item("mlp", "dense MLP (gate, up, down)", value(v), "L_dense·(3·D·F + 2·F + D)",
             text("{} · (3 · {} · {} + 2 · {} + {})", Ld, D, F, F, D));
  else if (g)
    out.item("mlp", "dense MLP (gate, up, down)", value(v), "L_dense·3·D·F", text("{} · 3 · {} · {}", Ld, D, F));
  else if (m.mlp_bias)
    out.item("mlp", "dense MLP (up, down)", value(v), "L_dense·(2·D·F + F + D)",
             text("{} · (2 · {} · {} + {} + {})", Ld, D, F, F, D));
  else
    out.item("mlp", "dense MLP (up, down)", value(v), "L_dense·2·D·F", text("{} · 2 · {} · {}", Ld, D, F));
}

void experts_item(const ModelSpec& m, const ParamCount& c, ResultSet& out) {
  const Params v = P(c.group(ParamGroup::experts));
  const double Lm = N(c.moe_layers), E = N(m.moe.n_experts);
  const double one = N(c.moe_layer.routed_one), shared = N(c.moe_layer.shared);
  if (c.moe_layer.shared > 0)
    out.item("experts", "routed and shared experts", value(v), "L_moe·(E·expert + shared)",
             text("{} · ({} · {} + {})", Lm, E, one, shared));
  else
    out.item("experts", "routed experts", value(v), "L_moe·E·expert", text("{} · {} · {}", Lm, E, one));
}

void router_item(const ModelSpec& m, const ParamCount& c, ResultSet& out) {
  const Params v = P(c.group(ParamGroup::router));
  const double Lm = N(c.moe_layers), E = N(m.moe.n_experts), D = N(m.hidden);
  if (m.moe.router_bias)
    out.item("router", "router (+ score correction bias)", value(v), "L_moe·(E·D + E)",
             text("{} · ({} · {} + {})", Lm, E, D, E));
  else if (m.moe.shared_expert_gate)
    out.item("router", "router and shared-expert gate", value(v), "L_moe·(E·D + D)",
             text("{} · ({} · {} + {})", Lm, E, D, D));
  else
    out.item("router", "router", value(v), "L_moe·E·D", text("{} · {} · {}", Lm, E, D));
}

void norm_item(const ModelSpec& m, const ParamCount& c, ResultSet& out) {
  const Params v = P(c.group(ParamGroup::norm));
  if (c.mamba_layers > 0) {
    // Layers differ: every block's own norms, the Mamba mixers' inner norms, the final norm.
    const i64 per_layer = static_cast<i64>(m.norms_per_layer) * norm_params(m, m.hidden);
    const i64 inner = c.mamba_layers * c.mamba_mixer.norm;
    const i64 rest = c.group(ParamGroup::norm) - m.layers * per_layer - inner;
    out.item("norm", m.norm == NormKind::layernorm ? "LayerNorms (weight + bias)" : "RMSNorm weights", value(v),
             "L·per layer + L_mamba·mixer norms + final",
             text("{} · {} + {} · {} + {}", N(m.layers), N(per_layer), N(c.mamba_layers), N(c.mamba_mixer.norm),
                  N(rest)));
    return;
  }
  const i64 per_layer = c.dense_layer.norm;  // same in dense and MoE layers
  const i64 rest = c.group(ParamGroup::norm) - m.layers * per_layer;
  out.item("norm",
           m.norm == NormKind::rmsnorm ? "RMSNorm weights"
           : m.norm_bias               ? "LayerNorms (weight + bias)"
                                       : "LayerNorms (weight only)",
           value(v), "L·per layer + final", text("{} · {} + {}", N(m.layers), N(per_layer), N(rest)));
}

void head_item(const ModelSpec& m, const ParamCount& c, ResultSet& out) {
  const Params v = P(c.group(ParamGroup::head));
  if (m.lm_head_bias)
    out.item("head", "LM head (untied, + bias)", value(v), "V·D + V",
             text("{} · {} + {}", N(m.vocab), N(token_embedding_width(m)), N(m.vocab)));
  else
    out.item("head", "LM head (untied)", value(v), "V·D", text("{} · {}", N(m.vocab), N(token_embedding_width(m))));
}

// The Mamba mixers, tensor by tensor (MambaSpec).
void ssm_item(const ModelSpec& m, const ParamCount& c, ResultSet& out) {
  const Params v = P(c.group(ParamGroup::ssm));
  const auto& s = m.mamba;
  const i64 d = m.hidden, e = s.d_inner, n = s.d_state, ch = s.conv_channels();
  const i64 conv = ch * s.conv_kernel + (s.conv_bias ? ch : 0);
  const i64 out_proj = e * d + (s.proj_bias ? d : 0);
  if (s.version == 1) {
    const i64 r = s.dt_rank;
    const i64 in = d * 2 * e + (s.proj_bias ? 2 * e : 0);
    out.item("ssm", "Mamba mixers (in_proj, conv1d, x_proj, dt_proj, A_log, D, out_proj)", value(v),
             "L_mamba·(D·2E + conv + E·(R + 2N) + (R·E + E) + E·N + E + E·D)",
             text("{} · ({} + {} + {} + {} + {} + {} + {})", N(c.mamba_layers), N(in), N(conv), N(e * (r + 2 * n)),
                  N(r * e + e), N(e * n), N(e), N(out_proj)));
    out.note(text("Mamba-1 mixer: D = {}, E = {}, N = {}, R = {}, conv1d over E channels of kernel {}{}", N(d), N(e),
                  N(n), N(r), N(s.conv_kernel), s.proj_bias ? std::string_view(", in/out_proj biases") : ""));
  } else {
    const i64 proj = 2 * e + 2 * s.groups * n + s.heads;
    const i64 in = d * proj + (s.proj_bias ? proj : 0);
    out.item("ssm", "Mamba-2 mixers (in_proj, conv1d, dt_bias, A_log, D, out_proj)", value(v),
             "L_mamba·(D·(2E + 2GN + H) + conv + 3H + E·D)",
             text("{} · ({} + {} + {} + {})", N(c.mamba_layers), N(in), N(conv), N(3 * s.heads), N(out_proj)));
    out.note(text("Mamba-2 mixer: D = {}, E = {}, G = {}, N = {}, H = {}, conv1d over E + 2GN = {} channels of kernel {}",
                  N(d), N(e), N(s.groups), N(n), N(s.heads), N(ch), N(s.conv_kernel)));
  }
}

void other_item(const ModelSpec& m, const ParamCount& c, ResultSet& out) {
  const Params v = P(c.group(ParamGroup::other));
  if (m.pooler)
    out.item("other", "pooler", value(v), "D·D + D", text("{} · {} + {}", N(m.hidden), N(m.hidden), N(m.hidden)));
  else
    out.item("other", "project_in and project_out", value(v), "2·P·D",
             text("2 · {} · {}", N(m.embed_proj_dim), N(m.hidden)));
}

// The params rows of an encoder-decoder: each group and each stack with its formula.
void encoder_decoder_items(const ModelSpec& m, const ParamCount& c, ResultSet& out) {
  const EncDecParts p = encdec_parts(m);
  const double D = N(m.hidden), H = N(m.heads), d = N(m.head_dim), F = N(m.ffn), B = N(m.relative_attention_buckets);
  const double Le = N(m.layers), Ld = N(m.decoder_layers);
  const bool gated = m.ffn_kind == FfnKind::gated;
  out.item("embedding", "shared token embedding (encoder, decoder)", value(P(c.group(ParamGroup::embedding))), "V·D",
           text("{} · {}", N(m.vocab), D));
  out.item("attention", "attention projections (+ relative position bias)", value(P(c.group(ParamGroup::attention))),
           "(L_enc + 2·L_dec)·4·D·H·d_kv + 2·B·H",
           text("({} + 2·{}) · 4 · {} · {} · {} + 2 · {} · {}", Le, Ld, D, H, d, B, H));
  out.item("mlp", gated ? "MLP (wi_0, wi_1, wo)" : "MLP (wi, wo)", value(P(c.group(ParamGroup::mlp))),
           gated ? "(L_enc + L_dec)·3·D·F" : "(L_enc + L_dec)·2·D·F", text("({} + {}) · {} · {} · {}", Le, Ld, gated ? 3.0 : 2.0, D, F));
  out.item("norm", "RMSNorm weights (T5LayerNorm)", value(P(c.group(ParamGroup::norm))), "(2·L_enc + 3·L_dec + 2)·D",
           text("(2·{} + 3·{} + 2) · {}", Le, Ld, D));
  if (c.group(ParamGroup::head) > 0)
    out.item("head", "LM head (untied)", value(P(c.group(ParamGroup::head))), "V·D", text("{} · {}", N(m.vocab), D));
  out.item("encoder_params", "encoder (blocks, relative bias, final norm)", value(P(p.encoder)),
           "L_enc·encoder layer + B·H + D", text("{} · {} + {} · {} + {}", Le, N(p.encoder_layer), B, H, D));
  out.item("decoder_params", "decoder (blocks, relative bias, final norm)", value(P(p.decoder)),
           "L_dec·decoder layer + B·H + D", text("{} · {} + {} · {} + {}", Ld, N(p.decoder_layer), B, H, D));
  out.item("encoder_layer_params", "one encoder layer", value(P(p.encoder_layer)),
           "self-attention + MLP + 2 norms", text("{} + {} + 2 · {}", P(p.attention_one), P(p.mlp_one), D));
  out.item("decoder_layer_params", "one decoder layer", value(P(p.decoder_layer)),
           "self- and cross-attention + MLP + 3 norms",
           text("2 · {} + {} + 3 · {}", P(p.attention_one), P(p.mlp_one), D));
  if (m.tied_embeddings)
    out.assume("tied_embeddings", text("tied embeddings: the LM head is the shared embedding (counted once)"));
  else
    out.assume("tied_embeddings", text("untied embeddings: the LM head is its own V×D matrix"));
  out.assume("embedding_params",
             text("encoder.embed_tokens and decoder.embed_tokens are the shared embedding (modeling_t5.py): "
                  "counted once, though a .bin checkpoint or its index lists all of them"));
  out.assume("embedding_params", text("embedding params = shared token embedding + untied LM head"));
  out.assume("positions", text("relative position bias: one {} × {} table (buckets × heads) in the first block of "
                               "each stack, no position embeddings",
                               B, H));
  out.assume("buffers", text("weights only: buffers are not counted"));
  for (const auto& note : m.notes) out.assume("model_config", text("{}", std::string_view(note)));
}

// The spec's formulas' count (count_language_model, the tower added as count_params adds it) where
// it equals the table's count `c` of `m` exactly: every group, the layer kinds and one layer of
// each kind (a Mamba mixer's tensors are in the ssm and norm groups); nullopt where the formulas
// cannot say what the tensors do.
std::optional<ParamCount> formula_count(const ModelSpec& m, const ParamCount& c) {
  ModelSpec f = m;
  f.tensors = nullptr;
  f.tower = nullptr;
  ParamCount x;
  try {
    x = count_language_model(f);
  } catch (const InputError&) {
    return std::nullopt;
  }
  const i64 tower = c.group(ParamGroup::vision);
  x.groups[static_cast<std::size_t>(ParamGroup::vision)] += tower;
  x.total += tower;
  x.non_embedding += tower;
  for (ParamGroup g : kParamGroups)
    if (x.group(g) != c.group(g)) return std::nullopt;
  const bool equal = x.mtp == c.mtp && x.total == c.total && x.active == c.active && x.embedding == c.embedding &&
                     x.non_embedding == c.non_embedding && x.dense_layers == c.dense_layers &&
                     x.moe_layers == c.moe_layers && x.attention_layers == c.attention_layers &&
                     x.mamba_layers == c.mamba_layers &&
                     // one layer of each kind is shown where no Mamba mixer makes layers differ
                     (c.mamba_layers > 0 || c.dense_layers == 0 || x.dense_layer == c.dense_layer) &&
                     (c.mamba_layers > 0 || c.moe_layers == 0 || x.moe_layer == c.moe_layer);
  if (!equal) return std::nullopt;
  return x;
}

}  // namespace

bool formulas_reproduce_tensors(const ModelSpec& m) {
  if (!m.tensors) return true;
  return formula_count(m, count_params(m)).has_value();
}

void count_params(const ModelSpec& m, ResultSet& out) {
  // A table family whose spec the formulas reproduce, group by group and layer kind by layer kind
  // (the families of 2019–24, migrated from hand-written readers), shows its rows as formulas with the
  // numbers substituted; any other table family shows each group's tensors.
  const ParamCount counted = count_params(m);
  const std::optional<ParamCount> formula = m.tensors ? formula_count(m, counted) : std::nullopt;
  const bool tensor_rows = m.tensors && !formula;
  const ParamCount& c = formula ? *formula : counted;
  out.command = "params";
  out.input("model", verdict(m.name));
  if (!m.repo.empty()) out.input("repo", verdict(m.repo));
  out.input("family", verdict(m.family));

  const auto g = [&c](ParamGroup x) { return P(c.group(x)); };
  {
    // The sum of the non-empty groups, each shown below with its own formula.
    static constexpr std::array<std::string_view, 11> kSums{
        "{}", "{}", "{} + {}", "{} + {} + {}", "{} + {} + {} + {}", "{} + {} + {} + {} + {}",
        "{} + {} + {} + {} + {} + {}", "{} + {} + {} + {} + {} + {} + {}", "{} + {} + {} + {} + {} + {} + {} + {}",
        "{} + {} + {} + {} + {} + {} + {} + {} + {}", "{} + {} + {} + {} + {} + {} + {} + {} + {} + {}"};
    Text sum;
    for (const auto grp : kParamGroups)
      if (c.group(grp) > 0) sum.ops[sum.n++] = op(g(grp));
    sum.pattern = kSums[sum.n];
    out.item("total_params", "total parameters", value(P(c.total)), "Σ of the groups below", sum);
  }
  if (m.moe.is_moe())
    if (c.group(ParamGroup::vision) > 0)
      out.item("active_params", "active per token", value(P(c.active)), "total − L_moe·(E − k)·expert − tower",
               text("{} − {} · ({} − {}) · {} − {}", P(c.total), N(c.moe_layers), N(m.moe.n_experts),
                    N(m.moe.experts_per_token), N(c.moe_layer.routed_one), g(ParamGroup::vision)));
    else
      out.item("active_params", "active per token", value(P(c.active)), "total − L_moe·(E − k)·expert",
               text("{} − {} · ({} − {}) · {}", P(c.total), N(c.moe_layers), N(m.moe.n_experts),
                    N(m.moe.experts_per_token), N(c.moe_layer.routed_one)));
  else if (c.group(ParamGroup::vision) > 0)
    out.item("active_params", "active per token", value(P(c.active)), "total − tower (a text token skips it)",
             text("{} − {}", P(c.total), g(ParamGroup::vision)));
  else
    out.item("active_params", "active per token", value(P(c.active)), "total (dense)", text("{}", P(c.total)));
  out.item("embedding_params", "embedding (+ untied head)", value(P(c.embedding)), "embedding + head",
           text("{} + {}", g(ParamGroup::embedding), g(ParamGroup::head)));
  out.item("non_embedding_params", "non-embedding (P of 6PD)", value(P(c.non_embedding)),
           "total − embedding", text("{} − {}", P(c.total), P(c.embedding)));
  if (m.encoder_decoder) return encoder_decoder_items(m, c, out);
  if (tensor_rows) {
    detail::table_items(m, c, out);
    detail::extra_items(m, c, out);
    out.assume("tensor_table", text("counted tensor by tensor from the architecture table {} (data/architectures; {})",
                                    std::string_view(m.tensors->family), std::string_view(m.tensors->source)));
  } else {
    embedding_item(m, c, out);
  if (c.group(ParamGroup::attention) > 0 || c.mamba_layers == 0) attention_item(m, c, out);
  if (c.group(ParamGroup::ssm) > 0) ssm_item(m, c, out);
  if (c.group(ParamGroup::mlp) > 0) mlp_item(m, c, out);
  if (c.group(ParamGroup::experts) > 0) experts_item(m, c, out);
  if (c.group(ParamGroup::router) > 0) router_item(m, c, out);
  norm_item(m, c, out);
  if (c.group(ParamGroup::head) > 0) head_item(m, c, out);
  if (c.group(ParamGroup::other) > 0) other_item(m, c, out);
    detail::extra_items(m, c, out);
  }
  if (c.mamba_layers > 0 && !tensor_rows)  // a table names its mixers' tensors instead
    out.item("mamba_layers", "layers by mixer", value(N(c.mamba_layers)), "Mamba layers of L",
             text("{} Mamba, {} attention, {} neither, of {} layers ({} with a dense MLP, {} with MoE)",
                  N(c.mamba_layers), N(c.attention_layers), N(m.layers - c.mamba_layers - c.attention_layers),
                  N(m.layers), N(c.dense_layers), N(c.moe_layers)));
  if (c.dense_layers > 0 && c.mamba_layers == 0)
    out.item("dense_layer_params", "one dense layer", value(P(c.dense_layer.total())),
             "attention + norms + MLP", text("{} + {} + {}  (× {} layers)", P(c.dense_layer.attention),
                                             P(c.dense_layer.norm), P(c.dense_layer.mlp), N(c.dense_layers)));
  if (c.moe_layers > 0 && c.mamba_layers == 0)
    out.item("moe_layer_params", "one MoE layer", value(P(c.moe_layer.total())),
             "attention + norms + experts + router",
             text("{} + {} + {} + {}  (× {} layers)", P(c.moe_layer.attention), P(c.moe_layer.norm),
                  P(c.moe_layer.routed + c.moe_layer.shared), P(c.moe_layer.router), N(c.moe_layers)));

  // Assumptions: what was counted and how.
  if (m.tied_embeddings)
    out.assume("tied_embeddings", text("tied embeddings: the LM head shares the embedding matrix (counted once)"));
  else if (!m.encoder_only)
    out.assume("tied_embeddings", text("untied embeddings: the LM head is its own V×D matrix"));
  out.assume("embedding_params",
             text("embedding params = token, position and type embeddings + untied LM head (Pythia's "
                  "non-embedding convention)"));
  if (m.moe.is_moe())
    out.assume("active_params",
               text("active = all weights except the {} of {} routed experts a token skips in each of {} MoE "
                    "layers; shared experts, dense layers, embeddings and head count in full",
                    N(m.moe.n_experts - m.moe.experts_per_token), N(m.moe.n_experts), N(c.moe_layers)));
  switch (m.positions) {
    case PositionKind::rotary:
      out.assume("positions", text("rotary position embeddings: no position weights"));
      break;
    case PositionKind::learned:
      out.assume("positions", text("learned position table of {} rows", N(m.position_table)));
      break;
    case PositionKind::none: break;
  }
  if (m.mtp_layers > 0 && c.mtp == 0)  // a table that sizes them says so itself (extra_items)
    out.assume("mtp_layers",
               text("{} multi-token-prediction layer(s) (num_nextn_predict_layers) not counted: the main "
                    "model only",
                    N(m.mtp_layers)));
  if (m.encoder_only)
    out.assume("encoder_heads", text("encoder and pooler only: task heads (MLM, NSP) not counted"));
  out.assume("buffers", text("weights only: buffers (rotary inv_freq, attention masks) not counted"));
  for (const auto& note : m.notes) out.assume("model_config", text("{}", std::string_view(note)));
}

}  // namespace napkin
