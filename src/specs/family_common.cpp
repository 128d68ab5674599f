// The helpers the family readers share: shapes under the families' spellings, Llama-style
// fields, per-layer attention, class defaults and the MoE layout of Qwen-MoE.
// See hf_family.h; the registry that selects each reader is hf_config.cpp.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "hf_family.h"
#include "napkin/ground/error.h"

namespace napkin::specs::family {

// Hidden size, layers and heads under the family's spellings (first one named in errors).
void read_shape(const Fields& f, ModelSpec& m, std::initializer_list<const char*> hidden,
                std::initializer_list<const char*> layers, std::initializer_list<const char*> heads) {
  m.hidden = f.positive_any(hidden, kHidden);
  m.layers = f.positive_any(layers, kLayers);
  m.heads = f.positive_any(heads, kHeads);
}

// The GPT-2-era layout: multi-head attention with d_head = D/H, plain MLP, LayerNorm.
void classic_layout(ModelSpec& m) {
  m.kv_heads = m.heads;
  m.head_dim = m.hidden / m.heads;
  m.ffn_kind = FfnKind::plain;
  m.norm = NormKind::layernorm;
  m.attention = AttentionKind::mha;
}

void attention_kind(ModelSpec& m) {
  if (m.kv_heads == m.heads) m.attention = AttentionKind::mha;
  else if (m.kv_heads == 1) m.attention = AttentionKind::mqa;
  else m.attention = AttentionKind::gqa;
}

// layer_types (transformers ≥ 4.53 writes it for every family with per-layer attention: Gemma 3,
// gpt-oss, Qwen3, ...): one entry per layer, "full_attention", "sliding_attention" or
// "chunked_attention". Other kinds (linear attention, Mamba layers) are refused here: the families
// that have them read their own layouts.
void read_layer_types(const Fields& f, ModelSpec& m) {
  if (!f.has("layer_types")) return;
  const JsonFields::json& a = f.raw("layer_types");
  if (!a.is_array() || static_cast<i64>(a.size()) != m.layers)
    f.bad("layer_types", ("an array of one attention kind per layer (" + std::to_string(m.layers) + ")").c_str());
  std::vector<LayerAttention> kinds;
  for (const auto& v : a) {
    const std::string k = v.is_string() ? v.get<std::string>() : std::string();
    if (k == "full_attention") kinds.push_back(LayerAttention::full);
    else if (k == "sliding_attention") kinds.push_back(LayerAttention::sliding);
    else if (k == "chunked_attention") kinds.push_back(LayerAttention::chunked);
    else
      throw InputError(f.where("layer_types") + ": '" + (v.is_string() ? k : v.dump()) +
                       "' is not a layer kind napkin counts; expected full_attention, sliding_attention or "
                       "chunked_attention");
  }
  m.layer_kinds = std::move(kinds);
  m.sliding_every = 0;
  if (std::find(m.layer_kinds.begin(), m.layer_kinds.end(), LayerAttention::chunked) != m.layer_kinds.end())
    m.attention_chunk = f.positive("attention_chunk_size", "a positive integer (tokens per attention chunk: "
                                                           "layer_types lists chunked_attention layers)");
}

// A sliding_window_pattern of p (Gemma 3, Cohere 2): layer i is global when (i + 1) % p == 0 and
// slides otherwise, unless layer_types already listed the layers.
void slide_by_pattern(ModelSpec& m, i64 pattern) {
  if (!m.layer_kinds.empty() || m.sliding_window <= 0) return;
  for (i64 i = 0; i < m.layers; ++i)
    m.layer_kinds.push_back(pattern <= 0 || (i + 1) % pattern != 0 ? LayerAttention::sliding : LayerAttention::full);
}

// Llama and the families that copy its field names (Mistral, Mixtral, Qwen, Gemma, Phi-3).
// configuration_llama.py: num_key_value_heads defaults to num_attention_heads, head_dim to
// hidden_size / num_attention_heads, tie_word_embeddings to false.
void read_llama_like(const Fields& f, ModelSpec& m, bool tied_default) {
  m.hidden = f.positive("hidden_size", kHidden);
  m.layers = f.positive("num_hidden_layers", kLayers);
  m.heads = f.positive("num_attention_heads", kHeads);
  m.kv_heads = f.has("num_key_value_heads") ? f.positive("num_key_value_heads", kKvHeads) : m.heads;
  m.head_dim = f.has("head_dim") ? f.positive("head_dim", "a positive integer (d_head)") : m.hidden / m.heads;
  m.vocab = f.positive("vocab_size", kVocab);
  m.tied_embeddings = f.bool_or("tie_word_embeddings", tied_default);
  m.max_context = f.int_or("max_position_embeddings", 0, kCount);
  m.ffn_kind = FfnKind::gated;
  m.norm = NormKind::rmsnorm;
  m.positions = PositionKind::rotary;
  const bool attn_bias = f.bool_or("attention_bias", false);
  m.qkv_bias = m.o_bias = attn_bias;
  m.mlp_bias = f.bool_or("mlp_bias", false);
  m.sliding_window = f.bool_or("use_sliding_window", true) ? f.int_or("sliding_window", 0, kCount) : 0;
  read_layer_types(f, m);
  // attention_dropout defaults to 0.0 in every Llama-style config class; these classes have no
  // hidden dropout, except Phi-3's resid_pdrop (configuration_phi3.py, default 0.0).
  m.attention_dropout = f.probability_or("attention_dropout", 0.0);
  m.hidden_dropout = f.probability_or("resid_pdrop", 0.0);
  attention_kind(m);
}

void read_rope_scaling(const Fields& f, ModelSpec& m) {
  m.model_max_length = f.int_or("model_max_length", 0, kCount);
  const char* key = f.has("rope_scaling") && !f.raw("rope_scaling").is_null() ? "rope_scaling"
                    : f.has("rope_parameters") && !f.raw("rope_parameters").is_null() ? "rope_parameters"
                                                                                        : nullptr;
  if (key == nullptr) return;
  const Fields r = f.sub(key);
  m.rope_type = r.has("rope_type") ? r.str_or("rope_type", "") : r.str_or("type", "");
  if (m.rope_type.empty()) m.rope_type = "default";
  m.rope_factor = r.positive_number_or("factor", 1.0, "a positive number (the RoPE scaling factor)");
  m.rope_original_context = r.int_or("original_max_position_embeddings", 0, kCount);
}

// The config with `defaults` filled in where it leaves a field out (HF's save_pretrained omits
// fields equal to the class default); the fields taken from the class are named in a note.
json with_defaults(const Fields& f, const json& defaults, std::string_view source, ModelSpec& m) {
  json merged = f.object();
  std::string used;
  for (const auto& [k, v] : defaults.items())
    if (!merged.contains(k) || merged.at(k).is_null()) {
      merged[k] = v;
      used += (used.empty() ? "" : ", ") + k + " " + v.dump();
    }
  if (!used.empty()) m.notes.push_back("absent from the config, the class defaults of " + std::string(source) + ": " + used);
  return merged;
}

void read_moe_layout(const Fields& f, ModelSpec& m) {
  m.moe.n_experts = f.positive("num_experts", "a positive integer (experts)");
  m.moe.experts_per_token = f.positive("num_experts_per_tok", "a positive integer (experts per token)");
  m.moe.expert_ffn = f.positive("moe_intermediate_size", "a positive integer (expert MLP width)");
  if (f.int_or("decoder_sparse_step", 1, kCount) != 1)
    throw InputError(f.where("decoder_sparse_step") + ": only 1 (MoE on every layer) is supported");
  if (f.nonempty_array("mlp_only_layers"))
    throw InputError(f.where("mlp_only_layers") + ": dense layers between MoE layers are not supported; expected []");
}

}  // namespace napkin::specs::family
