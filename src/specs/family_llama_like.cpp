// Families that keep Llama's field names with layouts of their own: Granite, Cohere and Cohere
// 2, Gemma 3, OLMo (1, 2, OLMoE), ChatGLM.
// See hf_family.h; the registry that selects each reader is hf_config.cpp.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "hf_family.h"
#include "napkin/ground/error.h"

namespace napkin::specs::family {

// Granite (modeling_granite.py GraniteForCausalLM): Llama's tensors; embedding_multiplier,
// attention_multiplier, residual_multiplier and logits_scaling scale activations and add no
// weights. configuration_granite.py: attention_bias and mlp_bias default false,
// tie_word_embeddings false.
void read_granite(const Fields& f, ModelSpec& m) {
  read_llama_like(f, m, false);
  m.ffn = f.positive("intermediate_size", kFfn);
}

// Cohere (modeling_cohere.py CohereDecoderLayer): one input_layernorm feeding attention and the
// gated MLP in parallel; CohereLayerNorm has a weight and no bias (the final norm too); q_proj ..
// o_proj biases follow attention_bias, the MLP has none; use_qk_norm adds q_norm [H, d_head] and
// k_norm [H_kv, d_head]. configuration_cohere.py: tie_word_embeddings true, attention_bias false,
// use_qk_norm false. Cohere 2 (modular_cohere2.py): the same layer without QK-norm, d_head =
// hidden_size / num_attention_heads whatever head_dim says, sliding_window 4096 on the layers
// layer_types marks, else three in four (sliding_window_pattern 4: layer i is global when
// (i + 1) % 4 == 0); configuration_cohere2.py.
void read_cohere(const Fields& f, ModelSpec& m, bool cohere2) {
  read_llama_like(f, m, true);
  m.ffn = f.positive("intermediate_size", kFfn);
  m.norm = NormKind::layernorm;
  m.norm_bias = false;
  m.norms_per_layer = 1;
  if (!cohere2) {
    m.qk_norm_per_head = f.bool_or("use_qk_norm", false);
    m.sliding_window = 0;  // CohereAttention attends to every position
    m.layer_kinds.clear();
    return;
  }
  m.head_dim = m.hidden / m.heads;
  m.sliding_window = f.int_or("sliding_window", 4096, kCount);
  slide_by_pattern(m, f.int_or("sliding_window_pattern", 4, kCount));
}

// Gemma 3 (modeling_gemma3.py): Gemma 2's four norms per layer and tied head, Qwen3-style q_norm
// and k_norm over d_head, and five sliding layers to one global (sliding_window_pattern 6: layer i
// is global when (i + 1) % 6 == 0) unless layer_types lists them. Class defaults from
// configuration_gemma3.py Gemma3TextConfig (as mirrored in bminixhofer/tokenkit
// configuration_tpu_gemma3.py): vocab 262208, hidden 2304, intermediate 9216, 26 layers, 8 heads,
// 4 KV heads, head_dim 256, 131072 positions, sliding_window 4096, pattern 6, tied embeddings.
void read_gemma3(const Fields& given, ModelSpec& m) {
  static const json kDefaults = {{"vocab_size", 262208},     {"hidden_size", 2304},
                                 {"intermediate_size", 9216}, {"num_hidden_layers", 26},
                                 {"num_attention_heads", 8},  {"num_key_value_heads", 4},
                                 {"head_dim", 256},           {"max_position_embeddings", 131072},
                                 {"sliding_window", 4096},    {"sliding_window_pattern", 6}};
  const json merged = with_defaults(given, kDefaults, "configuration_gemma3.py Gemma3TextConfig", m);
  const Fields f(merged, given);
  read_llama_like(f, m, true);
  m.ffn = f.positive("intermediate_size", kFfn);
  m.norms_per_layer = 4;
  m.qk_norm = true;
  slide_by_pattern(m, f.int_or("sliding_window_pattern", 6, kCount));
}

// OLMo (modeling_olmo.py): Llama's projections (attention_bias, default false; clip_qkv clamps
// activations and adds no weights), but OlmoLayerNorm is a LayerNorm without weight or bias: no
// norm parameters at all. configuration_olmo.py: tie_word_embeddings defaults to false.
// OLMo-2 (modeling_olmo2.py): RMSNorm after attention and after the MLP (post_attention_layernorm,
// post_feedforward_layernorm; no pre-norms), q_norm over H·d_head and k_norm over H_kv·d_head.
// OLMoE (modeling_olmoe.py): pre-norms, the same full-width q_norm/k_norm, every layer MoE with
// num_experts experts of width intermediate_size and a router without bias.
void read_olmo(const Fields& f, ModelSpec& m, const std::string& model_type) {
  read_llama_like(f, m, false);
  if (model_type == "olmo") {
    m.ffn = f.positive("intermediate_size", kFfn);
    m.norm = NormKind::layernorm;
    m.norms_per_layer = 0;
    m.final_norm = false;
    m.notes.push_back("OLMo's LayerNorms have no weights (OlmoLayerNorm, modeling_olmo.py): no norm parameters");
    return;
  }
  m.qk_norm = true;
  m.qk_norm_full_width = true;
  if (model_type == "olmoe") {
    m.moe.n_experts = f.positive("num_experts", "a positive integer (experts)");
    m.moe.experts_per_token = f.positive("num_experts_per_tok", "a positive integer (experts per token)");
    m.moe.expert_ffn = f.positive("intermediate_size", kFfn);
    return;
  }
  m.ffn = f.positive("intermediate_size", kFfn);
}

// ChatGLM2/3 and GLM-4 in THUDM's remote code (configuration_chatglm.py, modeling_chatglm.py):
// query_key_value fuses H·d + 2·G·d outputs (G = multi_query_group_num when multi_query_attention,
// else H; d = kv_channels) with a bias when add_qkv_bias; dense (H·d → D), dense_h_to_4h (D → 2·F,
// SwiGLU) and dense_4h_to_h carry a bias only when add_bias_linear; RMSNorm when rmsnorm, else
// LayerNorm; final_layernorm when post_layer_norm; output_layer untied. The rotary inv_freq is a
// buffer. ChatGLM-6B (the first version) is GLM-130B's layout under the same model_type: refused.
void read_chatglm(const Fields& f, ModelSpec& m) {
  for (const char* k : {"position_encoding_2d", "inner_hidden_size"})
    if (f.has(k))
      throw InputError(f.where(k) + ": the first ChatGLM-6B layout (2D positions, GLM-130B blocks) is not counted; "
                                    "expected ChatGLM2/3 or GLM-4 (ffn_hidden_size, kv_channels, padded_vocab_size)");
  m.hidden = f.positive("hidden_size", kHidden);
  m.layers = f.positive("num_layers", kLayers);
  m.heads = f.positive("num_attention_heads", kHeads);
  m.head_dim = f.positive("kv_channels", "a positive integer (d_head, kv_channels)");
  m.kv_heads = f.bool_or("multi_query_attention", false)
                   ? f.positive("multi_query_group_num", "a positive integer (key/value groups)")
                   : m.heads;
  m.ffn = f.positive("ffn_hidden_size", kFfn);
  m.ffn_kind = FfnKind::gated;
  m.vocab = f.positive("padded_vocab_size", kVocab);
  m.qkv_bias = f.bool_or("add_qkv_bias", false);
  m.o_bias = m.mlp_bias = f.bool_or("add_bias_linear", false);
  m.norm = f.bool_or("rmsnorm", true) ? NormKind::rmsnorm : NormKind::layernorm;
  m.final_norm = f.bool_or("post_layer_norm", true);
  m.tied_embeddings = false;  // output_layer is its own padded_vocab_size × D matrix
  m.positions = PositionKind::rotary;
  m.max_context = f.int_or("seq_length", 0, kCount);
  m.attention_dropout = f.probability_or("attention_dropout", 0.0);
  m.hidden_dropout = f.probability_or("hidden_dropout", 0.0);
  attention_kind(m);
}

}  // namespace napkin::specs::family
