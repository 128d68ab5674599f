// State-space and hybrid families: Mamba and Falcon-Mamba, Jamba, Nemotron-H.
// See hf_family.h; the registry that selects each reader is hf_config.cpp.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "hf_family.h"
#include "napkin/ground/error.h"

namespace napkin::specs::family {

// Every layer of a model as `mixer` with feed-forward `ffn`; a layer without attention keeps no KV
// cache (LayerAttention::none).
void set_layer(ModelSpec& m, std::int64_t l, LayerMixer mixer, LayerFfn ffn) {
  const auto i = static_cast<std::size_t>(l);
  m.layer_mixers.resize(static_cast<std::size_t>(m.layers), LayerMixer::attention);
  m.layer_ffns.resize(static_cast<std::size_t>(m.layers), LayerFfn::dense);
  m.layer_kinds.resize(static_cast<std::size_t>(m.layers), LayerAttention::full);
  m.layer_mixers[i] = mixer;
  m.layer_ffns[i] = ffn;
  m.layer_kinds[i] = mixer == LayerMixer::attention ? LayerAttention::full : LayerAttention::none;
}

// config.json's mamba_ssm_cache_dtype (configuration_nemotron_h.py: "float32" by default; the
// memory ledger keeps the SSM state in fp32 only where the config says so).
void read_ssm_cache_dtype(const Fields& f, ModelSpec& m) {
  m.mamba.ssm_state_fp32 = f.str_or("mamba_ssm_cache_dtype", "") == "float32";
}

// Mamba (configuration_mamba.py MambaConfig, modeling_mamba.py) and Falcon-Mamba
// (configuration_falcon_mamba.py, modeling_falcon_mamba.py): every layer one RMSNorm and a
// Mamba-1 mixer, no attention, no MLP; norm_f; the head tied unless tie_word_embeddings is false.
// Class defaults: state_size 16, conv_kernel 4, expand 2 (intermediate_size = expand·hidden_size),
// time_step_rank "auto" = ceil(hidden_size / 16), use_bias false, use_conv_bias true,
// tie_word_embeddings true. Falcon-Mamba's RMS norms over B, C and dt have no weights
// (modeling_falcon_mamba.py rms_forward; vLLM's MambaMixer takes rms_norm_has_weight = not
// is_falcon_mamba).
void read_mamba(const Fields& f, ModelSpec& m) {
  m.hidden = f.positive("hidden_size", kHidden);
  m.layers = f.positive_any({"num_hidden_layers", "n_layer"}, kLayers);
  m.vocab = f.positive("vocab_size", kVocab);
  m.heads = m.kv_heads = m.head_dim = 0;
  m.ffn = 0;
  m.norm = NormKind::rmsnorm;
  m.norms_per_layer = 1;
  m.positions = PositionKind::none;
  m.tied_embeddings = f.bool_or("tie_word_embeddings", true);
  auto& s = m.mamba;
  s.version = 1;
  s.d_inner = f.has("intermediate_size") ? f.positive("intermediate_size", "a positive integer (Mamba inner width)")
                                         : f.int_or("expand", 2, kCount) * m.hidden;
  s.d_state = f.has("state_size") ? f.positive("state_size", "a positive integer (SSM state size N)") : 16;
  s.conv_kernel = f.has("conv_kernel") ? f.positive("conv_kernel", "a positive integer (convolution kernel)") : 4;
  const bool auto_rank = !f.has("time_step_rank") || (f.raw("time_step_rank").is_string() &&
                                                     f.raw("time_step_rank").get<std::string>() == "auto");
  s.dt_rank = auto_rank ? (m.hidden + 15) / 16 : f.positive("time_step_rank", "a positive integer or \"auto\" (dt rank)");
  s.proj_bias = f.bool_or("use_bias", false);
  s.conv_bias = f.bool_or("use_conv_bias", true);
  read_ssm_cache_dtype(f, m);
  for (std::int64_t l = 0; l < m.layers; ++l) set_layer(m, l, LayerMixer::mamba, LayerFfn::none);
}

// Layer `l` has `kind` when l % period == offset (Jamba's attn_layer_* and expert_layer_*).
std::int64_t read_period(const Fields& f, const char* key, std::int64_t fallback) {
  return f.has(key) ? f.positive(key, "a positive integer (a layer period)") : fallback;
}

// Jamba (configuration_jamba.py JambaConfig, modeling_jamba.py): attention on layer i when
// i % attn_layer_period == attn_layer_offset (class defaults 8 and 4), a Mamba-1 mixer elsewhere
// with RMSNorm weights over dt, B and C (dt_layernorm, b_layernorm, c_layernorm); an MoE FFN (gated
// experts of intermediate_size, router D×E without bias) when i % expert_layer_period ==
// expert_layer_offset (2 and 1) and num_experts > 1, a gated dense MLP elsewhere; input_layernorm
// and pre_ff_layernorm in every layer, final_layernorm; attention without biases or positions.
// Class defaults: mamba_d_state 16, mamba_d_conv 4, mamba_expand 2, mamba_dt_rank "auto" =
// ceil(hidden_size / 16), mamba_conv_bias true, mamba_proj_bias false, tie_word_embeddings false.
void read_jamba(const Fields& f, ModelSpec& m) {
  read_llama_like(f, m, false);
  m.ffn = f.positive("intermediate_size", kFfn);
  m.positions = PositionKind::none;
  m.sliding_window = 0;
  m.qkv_bias = m.o_bias = m.mlp_bias = false;
  auto& s = m.mamba;
  s.version = 1;
  s.d_inner = f.int_or("mamba_expand", 2, kCount) * m.hidden;
  s.d_state = f.has("mamba_d_state") ? f.positive("mamba_d_state", "a positive integer (SSM state size N)") : 16;
  s.conv_kernel = f.has("mamba_d_conv") ? f.positive("mamba_d_conv", "a positive integer (convolution kernel)") : 4;
  const bool auto_rank = !f.has("mamba_dt_rank") || (f.raw("mamba_dt_rank").is_string() &&
                                                    f.raw("mamba_dt_rank").get<std::string>() == "auto");
  s.dt_rank = auto_rank ? (m.hidden + 15) / 16 : f.positive("mamba_dt_rank", "a positive integer or \"auto\" (dt rank)");
  s.proj_bias = f.bool_or("mamba_proj_bias", false);
  s.conv_bias = f.bool_or("mamba_conv_bias", true);
  s.inner_norms = true;
  read_ssm_cache_dtype(f, m);
  const std::int64_t ap = read_period(f, "attn_layer_period", 8), ao = f.int_or("attn_layer_offset", 4, kCount);
  const std::int64_t ep = read_period(f, "expert_layer_period", 2), eo = f.int_or("expert_layer_offset", 1, kCount);
  if (ao >= ap) f.bad("attn_layer_offset", ("an integer below attn_layer_period (" + std::to_string(ap) + ")").c_str());
  if (eo >= ep)
    f.bad("expert_layer_offset", ("an integer below expert_layer_period (" + std::to_string(ep) + ")").c_str());
  const std::int64_t experts = f.int_or("num_experts", 16, kCount);
  if (experts > 1) {
    m.moe.n_experts = experts;
    m.moe.experts_per_token = f.positive("num_experts_per_tok", "a positive integer (experts per token)");
    m.moe.expert_ffn = m.ffn;
    m.moe.first_k_dense = eo;  // MoE on layers eo, eo + ep, ...: is_moe_layer's pattern
    m.moe.layer_freq = ep;
  }
  for (std::int64_t l = 0; l < m.layers; ++l)
    set_layer(m, l, l % ap == ao ? LayerMixer::attention : LayerMixer::mamba,
              experts > 1 && l % ep == eo ? LayerFfn::moe : LayerFfn::dense);
}

// Nemotron-H MoE blocks ("E", Nemotron 3; modeling_nemotron_h.py NemotronHMoE on DeepseekV3MoE):
// the router NemotronHTopkRouter (weight [n_routed_experts, D], no bias; its
// e_score_correction_bias [n_routed_experts] is a registered buffer, stored in fp32 in the
// checkpoint but not a parameter: the index's total_parameters leaves it out), NemotronHExperts
// (n_routed_experts experts of up_proj and down_proj, relu², no gate and no biases, of width
// moe_intermediate_size) and one shared expert NemotronHMLP of width
// moe_shared_expert_intermediate_size (biases per mlp_bias). Refused: a latent MoE
// (moe_latent_size: fc1_latent_proj / fc2_latent_proj, experts over the latent width), a
// shared-expert count other than 1, and mlp_bias with experts (the shared expert would carry
// biases the routed ones do not; MoeSpec counts both alike).
void read_nemotron_h_moe(const Fields& f, ModelSpec& m) {
  if (f.has("moe_latent_size"))
    throw InputError(f.where("moe_latent_size") + ": " + f.raw("moe_latent_size").dump() +
                     ": a latent mixture of experts (fc1_latent_proj, fc2_latent_proj; experts over the latent "
                     "width) is not counted yet; expected null or no moe_latent_size");
  m.moe.n_experts = f.positive("n_routed_experts", "a positive integer (routed experts)");
  m.moe.experts_per_token = f.positive("num_experts_per_tok", "a positive integer (experts per token)");
  if (m.moe.experts_per_token > m.moe.n_experts)
    f.bad("num_experts_per_tok", ("at most n_routed_experts (" + std::to_string(m.moe.n_experts) + ")").c_str());
  m.moe.expert_ffn = f.positive("moe_intermediate_size", "a positive integer (expert MLP width)");
  m.moe.shared_ffn =
      f.positive("moe_shared_expert_intermediate_size", "a positive integer (shared expert MLP width)");
  if (f.positive("n_shared_experts", "1 (one shared expert per E block)") != 1)
    f.bad("n_shared_experts", "1 (one shared expert per E block)");
  if (m.mlp_bias)
    f.bad("mlp_bias", "false in a model with E blocks (NemotronHExperts have no biases, the shared expert "
                      "follows mlp_bias: not counted yet)");
  m.moe.n_shared_experts = 0;  // one shared expert of its own width: shared_ffn
  m.moe.router_bias = false;   // e_score_correction_bias is a buffer
  m.notes.push_back("e_score_correction_bias (" + std::to_string(m.moe.n_experts) +
                    " per E block, fp32) is a registered buffer the checkpoint stores: not counted as parameters, "
                    "as the checkpoint index's total_parameters does not count it");
}

// Nemotron-H (configuration_nemotron_h.py NemotronHConfig, modeling_nemotron_h.py): one block per
// character of hybrid_override_pattern ("M" a Mamba-2 mixer, "*" attention, "-" an MLP), or per
// entry of layers_block_type; each block one RMSNorm; norm_f. Attention: q/k/v/o without biases,
// no positions, head_dim (older configs: attention_head_dim; class default 128). MLP: up_proj and
// down_proj (relu², not gated) with mlp_bias. Mamba-2: mamba_num_heads × mamba_head_dim inner
// width, n_groups, ssm_state_size, conv_kernel, use_conv_bias (class default true), in_proj and
// out_proj biases per use_bias (class default false). MoE blocks ("E", Nemotron 3) per
// read_nemotron_h_moe.
void read_nemotron_h(const Fields& f, ModelSpec& m) {
  std::string pattern;
  if (f.has("hybrid_override_pattern")) {
    pattern = f.str_or("hybrid_override_pattern", "");
  } else if (f.has("layers_block_type") && f.raw("layers_block_type").is_array()) {
    for (const auto& v : f.raw("layers_block_type")) {
      const std::string k = v.is_string() ? v.get<std::string>() : std::string();
      pattern += k == "mamba" || k == "linear_attention" ? 'M'
                 : k == "attention" || k == "full_attention" ? '*'
                 : k == "mlp"                                 ? '-'
                 : k == "moe"                                 ? 'E'
                                                              : '?';
    }
  }
  if (pattern.empty()) {
    constexpr const char* kPattern = "a string of one block kind per layer (M Mamba, * attention, - MLP)";
    if (!f.has("hybrid_override_pattern")) f.missing("hybrid_override_pattern", kPattern);
    f.bad("hybrid_override_pattern", kPattern);
  }
  m.hidden = f.positive("hidden_size", kHidden);
  m.layers = static_cast<std::int64_t>(pattern.size());
  if (f.has("num_hidden_layers") && f.positive("num_hidden_layers", kLayers) != m.layers)
    f.bad("num_hidden_layers", ("the length of hybrid_override_pattern (" + std::to_string(m.layers) + ")").c_str());
  m.vocab = f.positive("vocab_size", kVocab);
  m.heads = f.positive("num_attention_heads", kHeads);
  m.kv_heads = f.has("num_key_value_heads") ? f.positive("num_key_value_heads", kKvHeads) : m.heads;
  m.head_dim = f.has("head_dim")             ? f.positive("head_dim", "a positive integer (d_head)")
               : f.has("attention_head_dim") ? f.positive("attention_head_dim", "a positive integer (d_head)")
                                             : 128;
  attention_kind(m);
  m.ffn = f.positive("intermediate_size", kFfn);
  m.ffn_kind = FfnKind::plain;
  m.mlp_bias = f.bool_or("mlp_bias", false);
  m.qkv_bias = m.o_bias = false;
  m.positions = PositionKind::none;
  m.norm = NormKind::rmsnorm;
  m.norms_per_layer = 1;
  m.tied_embeddings = f.bool_or("tie_word_embeddings", false);
  m.max_context = f.int_or("max_position_embeddings", 0, kCount);
  m.attention_dropout = f.probability_or("attention_dropout", 0.0);
  m.hidden_dropout = f.probability_or("hidden_dropout", 0.0);
  auto& s = m.mamba;
  s.version = 2;
  s.heads = f.positive("mamba_num_heads", "a positive integer (Mamba-2 heads)");
  s.d_inner = s.heads * f.positive("mamba_head_dim", "a positive integer (Mamba-2 head dimension)");
  s.groups = f.has("n_groups") ? f.positive("n_groups", "a positive integer (Mamba-2 groups)") : 8;
  s.d_state = f.has("ssm_state_size") ? f.positive("ssm_state_size", "a positive integer (SSM state size N)") : 128;
  s.conv_kernel = f.has("conv_kernel") ? f.positive("conv_kernel", "a positive integer (convolution kernel)") : 4;
  s.conv_bias = f.bool_or("use_conv_bias", true);
  s.proj_bias = f.bool_or("use_bias", false);
  read_ssm_cache_dtype(f, m);
  for (std::int64_t l = 0; l < m.layers; ++l) {
    const char c = pattern[static_cast<std::size_t>(l)];
    if (c == 'M') set_layer(m, l, LayerMixer::mamba, LayerFfn::none);
    else if (c == '*') set_layer(m, l, LayerMixer::attention, LayerFfn::none);
    else if (c == '-') set_layer(m, l, LayerMixer::none, LayerFfn::dense);
    else if (c == 'E') set_layer(m, l, LayerMixer::none, LayerFfn::moe);
    else
      throw InputError(f.where("hybrid_override_pattern") + ": block " + std::to_string(l) + " is '" +
                       std::string(1, c) + "'; expected M (Mamba-2), * (attention), - (MLP) or E (mixture of experts)");
  }
  if (pattern.find('E') != std::string::npos) read_nemotron_h_moe(f, m);
}

}  // namespace napkin::specs::family
