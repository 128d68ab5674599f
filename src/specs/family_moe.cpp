// Mixture-of-experts families with layouts of their own: DeepSeek (V1, V2, V3), gpt-oss, Llama 4.
// See hf_family.h; the registry that selects each reader is hf_config.cpp.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "hf_family.h"
#include "napkin/ground/error.h"

namespace napkin::specs::family {

void read_deepseek(const Fields& f, ModelSpec& m, bool v3) {
  // configuration_deepseek.py / modeling_deepseek.py (DeepSeek-V2 and V3 repositories): MLA
  // attention, first_k_dense_replace dense layers then MoE every moe_layer_freq layers,
  // n_shared_experts fused into one MLP, MoEGate.e_score_correction_bias when topk_method is
  // "noaux_tc" (V3). num_nextn_predict_layers extra MTP layers are not part of the main model.
  m.hidden = f.positive("hidden_size", kHidden);
  m.layers = f.positive("num_hidden_layers", kLayers);
  m.heads = f.positive("num_attention_heads", kHeads);
  m.kv_heads = f.has("num_key_value_heads") ? f.positive("num_key_value_heads", kKvHeads) : m.heads;
  m.vocab = f.positive("vocab_size", kVocab);
  m.ffn = f.positive("intermediate_size", kFfn);
  m.attention = AttentionKind::mla;
  m.mla.q_lora_rank = f.int_or("q_lora_rank", 0, kCount);
  m.mla.kv_lora_rank = f.positive("kv_lora_rank", "a positive integer (KV latent rank)");
  m.mla.qk_rope_head_dim = f.positive("qk_rope_head_dim", "a positive integer");
  m.mla.qk_nope_head_dim = f.positive("qk_nope_head_dim", "a positive integer");
  m.mla.v_head_dim = f.positive("v_head_dim", "a positive integer");
  m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
  if (f.has("n_routed_experts")) {
    m.moe.n_experts = f.positive("n_routed_experts", "a positive integer (routed experts)");
    m.moe.experts_per_token = f.positive("num_experts_per_tok", "a positive integer (experts per token)");
    m.moe.expert_ffn = f.positive("moe_intermediate_size", "a positive integer (expert MLP width)");
    m.moe.n_shared_experts = f.int_or("n_shared_experts", 0, kCount);
    m.moe.first_k_dense = f.int_or("first_k_dense_replace", 0, kCount);
    m.moe.layer_freq = f.int_or("moe_layer_freq", 1, kCount);
    m.moe.router_bias = f.str_or("topk_method", v3 ? "noaux_tc" : "greedy") == "noaux_tc";
  }
  m.mtp_layers = f.int_or("num_nextn_predict_layers", 0, kCount);
  m.max_context = f.int_or("max_position_embeddings", 0, kCount);
  m.ffn_kind = FfnKind::gated;
  m.norm = NormKind::rmsnorm;
  m.positions = PositionKind::rotary;
  m.qkv_bias = false;
  m.o_bias = f.bool_or("attention_bias", false);
  m.tied_embeddings = f.bool_or("tie_word_embeddings", false);
  m.attention_dropout = f.probability_or("attention_dropout", 0.0);  // configuration_deepseek.py: 0.0
}

// DeepSeek-MoE v1 (deepseek-ai/deepseek-moe-16b-base configuration_deepseek.py and
// modeling_deepseek.py): multi-head attention with Llama's projections (attention_bias, default
// false), first_k_dense_replace dense layers of width intermediate_size, then MoE layers of
// n_routed_experts experts (moe_intermediate_size) and n_shared_experts fused into one MLP, a
// router without bias (MoEGate.weight only). A layer is MoE when layer_idx % moe_layer_freq == 0,
// which is napkin's rule only for moe_layer_freq 1: any other value is refused.
void read_deepseek_v1(const Fields& f, ModelSpec& m) {
  read_llama_like(f, m, false);
  m.ffn = f.positive("intermediate_size", kFfn);
  if (!f.has("n_routed_experts")) return;
  m.moe.n_experts = f.positive("n_routed_experts", "a positive integer (routed experts)");
  m.moe.experts_per_token = f.positive("num_experts_per_tok", "a positive integer (experts per token)");
  m.moe.expert_ffn = f.positive("moe_intermediate_size", "a positive integer (expert MLP width)");
  m.moe.n_shared_experts = f.int_or("n_shared_experts", 0, kCount);
  m.moe.first_k_dense = f.int_or("first_k_dense_replace", 0, kCount);
  if (f.int_or("moe_layer_freq", 1, kCount) != 1)
    throw InputError(f.where("moe_layer_freq") + ": only 1 (MoE on every layer after the dense ones) is supported");
}

// gpt-oss (modeling_gpt_oss.py): every layer MoE (num_local_experts of width intermediate_size,
// gated, each expert with gate_up and down biases), a router with a bias, q/k/v/o biases
// (attention_bias), one attention-sink logit per head, alternating sliding and full layers
// (layer_types). Untied head.
void read_gpt_oss(const Fields& f, ModelSpec& m) {
  read_llama_like(f, m, false);
  m.moe.n_experts = f.positive("num_local_experts", "a positive integer (experts)");
  m.moe.experts_per_token = f.positive("num_experts_per_tok", "a positive integer (experts per token)");
  m.moe.expert_ffn = f.positive("intermediate_size", kFfn);
  m.moe.router_bias = true;
  m.moe.expert_bias = true;
  m.attention_sinks = true;
}

// Llama 4 (modeling_llama4.py Llama4TextModel; configuration_llama4.py Llama4TextConfig), read from
// Llama4ForConditionalGeneration's text_config or a bare Llama4ForCausalLM config:
// - MoE layers are moe_layers when given, else every interleave_moe_layer_step-th layer
//   (list(range(step - 1, L, step)): Scout's step 1 makes all 48 MoE, Maverick's step 2 the odd
//   ones). A Llama4TextMoe layer holds E routed experts (gate_up_proj [E, D, 2I], down_proj
//   [E, I, D], no biases), a router D×E without bias and one always-on shared_expert MLP of width
//   intermediate_size; a dense layer's Llama4TextMLP has width intermediate_size_mlp.
// - no_rope_layers (1: RoPE, 0: NoPE), else a NoPE layer every no_rope_layer_interval-th layer
//   ((i + 1) % interval == 0). RoPE layers attend within their attention_chunk_size chunk
//   (layer_types "chunked_attention"), NoPE layers to every earlier token ("full_attention");
//   a config's own layer_types wins.
// - use_qk_norm is Llama4TextL2Norm, which has no weights: nothing to count.
// - Two RMSNorms per layer, a final norm, untied lm_head (tie_word_embeddings false).
// Class defaults (Llama4TextConfig, configuration_llama4.py) where the config leaves a field out.
void read_llama4(const Fields& given, ModelSpec& m) {
  static const json kDefaults = {{"vocab_size", 202048},
                                 {"hidden_size", 5120},
                                 {"intermediate_size", 8192},
                                 {"intermediate_size_mlp", 16384},
                                 {"num_hidden_layers", 48},
                                 {"num_attention_heads", 40},
                                 {"num_key_value_heads", 8},
                                 {"head_dim", 128},
                                 {"max_position_embeddings", 131072},
                                 {"num_experts_per_tok", 1},
                                 {"num_local_experts", 16},
                                 {"interleave_moe_layer_step", 1},
                                 {"no_rope_layer_interval", 4},
                                 {"attention_chunk_size", 8192}};
  const json merged = with_defaults(given, kDefaults, "configuration_llama4.py Llama4TextConfig", m);
  const Fields f(merged, given);
  read_llama_like(f, m, false);
  m.ffn = f.positive("intermediate_size_mlp", "a positive integer (dense-layer MLP width)");
  m.moe.n_experts = f.positive("num_local_experts", "a positive integer (experts)");
  m.moe.experts_per_token = f.positive("num_experts_per_tok", "a positive integer (experts per token)");
  m.moe.expert_ffn = f.positive("intermediate_size", "a positive integer (expert and shared-expert MLP width)");
  m.moe.shared_ffn = m.moe.expert_ffn;
  // The MoE layers as ModelSpec::is_moe_layer says them: from first_k_dense, every layer_freq-th.
  const i64 step = f.positive("interleave_moe_layer_step", "a positive integer (layers per MoE layer)");
  m.moe.first_k_dense = step - 1;
  m.moe.layer_freq = step;
  if (f.has("moe_layers")) {
    const char* kList = "an increasing list of layer indices, evenly spaced up to the last layer "
                        "(every k-th layer from some layer on)";
    const json& a = f.raw("moe_layers");
    if (!a.is_array()) f.bad("moe_layers", kList);
    std::vector<i64> ids;
    for (const auto& v : a) {
      if (!v.is_number_integer() || v.get<i64>() < 0 || v.get<i64>() >= m.layers) f.bad("moe_layers", kList);
      ids.push_back(v.get<i64>());
    }
    if (ids.empty()) {
      m.moe = MoeSpec{};  // no MoE layer: every layer is the dense MLP
    } else {
      const i64 first = ids.front();
      const i64 gap = ids.size() > 1 ? ids[1] - first : m.layers - first;
      bool even = gap > 0 && ids.back() + gap >= m.layers;
      for (std::size_t i = 0; i < ids.size() && even; ++i) even = ids[i] == first + static_cast<i64>(i) * gap;
      if (!even) f.bad("moe_layers", kList);
      m.moe.first_k_dense = first;
      m.moe.layer_freq = gap;
    }
  }
  if (m.layer_kinds.empty()) {
    m.attention_chunk = f.positive("attention_chunk_size", "a positive integer (tokens per attention chunk)");
    const i64 interval = f.positive("no_rope_layer_interval", "a positive integer (layers per NoPE layer)");
    std::vector<bool> rope;
    if (f.nonempty_array("no_rope_layers")) {
      const json& a = f.raw("no_rope_layers");
      const char* kFlags = "one 0 (NoPE) or 1 (RoPE) per layer";
      if (static_cast<i64>(a.size()) < m.layers) f.bad("no_rope_layers", kFlags);
      for (i64 i = 0; i < m.layers; ++i) {
        const json& v = a[static_cast<std::size_t>(i)];
        if (!v.is_number_integer() || (v.get<i64>() != 0 && v.get<i64>() != 1)) f.bad("no_rope_layers", kFlags);
        rope.push_back(v.get<i64>() == 1);
      }
    } else {
      for (i64 i = 0; i < m.layers; ++i) rope.push_back((i + 1) % interval != 0);
    }
    for (bool r : rope) m.layer_kinds.push_back(r ? LayerAttention::chunked : LayerAttention::full);
  }
}

}  // namespace napkin::specs::family
