// config.json field names and defaults per family. Sources: the transformers configuration and
// modeling files of each family (configuration_llama.py, modeling_qwen2.py, ...), cited where a
// default decides a count. A default that changes the count and that the file does not state is
// recorded as a note (shown under Assumptions).
#include "napkin/specs/hf_config.h"


#include "json_fields.h"
#include "napkin/error.h"
#include "napkin/specs/files.h"

namespace napkin::specs {

namespace {

using json = nlohmann::json;
using i64 = std::int64_t;

using Fields = JsonFields;

constexpr const char* kHidden = "a positive integer (hidden size D)";
constexpr const char* kLayers = "a positive integer (number of layers L)";
constexpr const char* kHeads = "a positive integer (attention heads H)";
constexpr const char* kKvHeads = "a positive integer (key/value heads)";
constexpr const char* kFfn = "a positive integer (MLP width F)";
constexpr const char* kVocab = "a positive integer (vocabulary size V)";
constexpr const char* kCount = "a non-negative integer";

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

void read_gpt2(const Fields& f, ModelSpec& m) {
  // configuration_gpt2.py / modeling_gpt2.py: Conv1D projections with biases, LayerNorm,
  // learned positions (n_positions rows), n_inner = 4·D when null, wte tied to lm_head.
  read_shape(f, m, {"n_embd", "hidden_size"}, {"n_layer", "num_hidden_layers"}, {"n_head", "num_attention_heads"});
  classic_layout(m);
  m.ffn = f.has("n_inner") ? f.positive("n_inner", kFfn) : 4 * m.hidden;
  m.vocab = f.positive("vocab_size", kVocab);
  m.max_context = f.positive_any({"n_positions", "n_ctx"}, "a positive integer (learned positions)");
  m.position_table = m.max_context;
  m.positions = PositionKind::learned;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.tied_embeddings = f.bool_or("tie_word_embeddings", true);
  // configuration_gpt2.py: attn_pdrop = resid_pdrop = 0.1 by default.
  m.attention_dropout = f.probability_or("attn_pdrop", 0.1);
  m.hidden_dropout = f.probability_or("resid_pdrop", 0.1);
}

void read_neox(const Fields& f, ModelSpec& m) {
  // configuration_gpt_neox.py: attention_bias defaults to true, tie_word_embeddings to false;
  // rotary_pct < 1 rotates part of each head and adds no weights.
  read_shape(f, m, {"hidden_size"}, {"num_hidden_layers"}, {"num_attention_heads"});
  classic_layout(m);
  m.ffn = f.positive("intermediate_size", kFfn);
  m.vocab = f.positive("vocab_size", kVocab);
  m.max_context = f.int_or("max_position_embeddings", 0, kCount);
  m.qkv_bias = m.o_bias = f.bool_or("attention_bias", true);
  m.mlp_bias = true;
  m.tied_embeddings = f.bool_or("tie_word_embeddings", false);
  // configuration_gpt_neox.py: attention_dropout = hidden_dropout = 0.0 by default.
  m.attention_dropout = f.probability_or("attention_dropout", 0.0);
  m.hidden_dropout = f.probability_or("hidden_dropout", 0.0);
}

void read_opt(const Fields& f, ModelSpec& m) {
  // modeling_opt.py: OPTLearnedPositionalEmbedding keeps 2 extra rows (offset 2); the decoder
  // has project_in/project_out when word_embed_proj_dim != hidden_size; the final LayerNorm
  // exists only with do_layer_norm_before and not _remove_final_layer_norm (OPT-350m has none).
  read_shape(f, m, {"hidden_size"}, {"num_hidden_layers"}, {"num_attention_heads"});
  classic_layout(m);
  m.ffn = f.positive("ffn_dim", kFfn);
  m.vocab = f.positive("vocab_size", kVocab);
  m.max_context = f.positive("max_position_embeddings", "a positive integer (learned positions)");
  m.position_offset = 2;
  m.position_table = m.max_context + m.position_offset;
  m.positions = PositionKind::learned;
  const i64 proj = f.int_or("word_embed_proj_dim", m.hidden, kCount);
  m.embed_proj_dim = proj != m.hidden ? proj : 0;
  m.qkv_bias = m.o_bias = m.mlp_bias = f.bool_or("enable_bias", true);
  const bool affine = f.bool_or("layer_norm_elementwise_affine", true);
  if (!affine) m.norms_per_layer = 0;
  m.final_norm = affine && f.bool_or("do_layer_norm_before", true) && !f.bool_or("_remove_final_layer_norm", false);
  m.tied_embeddings = f.bool_or("tie_word_embeddings", true);
  // configuration_opt.py: dropout = 0.1 (residual), attention_dropout = 0.0 by default.
  m.attention_dropout = f.probability_or("attention_dropout", 0.0);
  m.hidden_dropout = f.probability_or("dropout", 0.1);
}

void read_falcon(const Fields& f, ModelSpec& m, const std::string& model_type) {
  // configuration_falcon.py: multi_query defaults to true, parallel_attn to true, bias to
  // false, new_decoder_architecture to false, ffn_hidden_size to 4·D. modeling_falcon.py:
  // new_decoder_architecture has ln_attn and ln_mlp (num_kv_heads KV groups); otherwise one
  // input_layernorm with parallel attention, two without.
  read_shape(f, m, {"hidden_size"}, {"num_hidden_layers", "n_layer"}, {"num_attention_heads", "n_head"});
  m.head_dim = m.hidden / m.heads;
  m.vocab = f.positive("vocab_size", kVocab);
  m.ffn = f.has("ffn_hidden_size") ? f.positive("ffn_hidden_size", kFfn) : 4 * m.hidden;
  // The legacy "RefinedWeb" configs (Falcon-40B and 180B before their migration to model_type
  // falcon) are the new decoder architecture, their KV heads in n_head_kv (tiiuae/falcon-40b
  // configuration_RW.py and modelling_RW.py: ln_attn and ln_mlp in every layer); "RefinedWebModel"
  // (Falcon-7B) is the old one.
  const bool new_arch = model_type == "RefinedWeb" || f.bool_or("new_decoder_architecture", false);
  if (new_arch) {
    m.kv_heads = f.has("num_kv_heads")  ? f.positive("num_kv_heads", kKvHeads)
                 : f.has("n_head_kv") ? f.positive("n_head_kv", kKvHeads)
                                      : m.heads;
    const i64 norms = f.int_or("num_ln_in_parallel_attn", 2, kCount);
    if (norms > 16) f.bad("num_ln_in_parallel_attn", "an integer from 0 to 16");
    m.norms_per_layer = static_cast<int>(norms);
  } else {
    m.kv_heads = f.bool_or("multi_query", true) ? 1 : m.heads;
    m.norms_per_layer = f.bool_or("parallel_attn", true) ? 1 : 2;
  }
  m.positions = f.bool_or("alibi", false) ? PositionKind::none : PositionKind::rotary;
  m.max_context = f.int_or("max_position_embeddings", 0, kCount);
  m.ffn_kind = FfnKind::plain;
  m.norm = NormKind::layernorm;
  m.qkv_bias = m.o_bias = m.mlp_bias = f.bool_or("bias", false);
  m.tied_embeddings = f.bool_or("tie_word_embeddings", true);
  // configuration_falcon.py: attention_dropout = hidden_dropout = 0.0 by default.
  m.attention_dropout = f.probability_or("attention_dropout", 0.0);
  m.hidden_dropout = f.probability_or("hidden_dropout", 0.0);
  attention_kind(m);
}

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

void read_bert(const Fields& f, ModelSpec& m) {
  // modeling_bert.py BertModel: word, position (absolute) and token-type embeddings with a
  // LayerNorm, post-norm encoder layers (attention output LayerNorm, output LayerNorm), pooler.
  read_shape(f, m, {"hidden_size"}, {"num_hidden_layers"}, {"num_attention_heads"});
  classic_layout(m);
  m.ffn = f.positive("intermediate_size", kFfn);
  m.vocab = f.positive("vocab_size", kVocab);
  m.max_context = f.positive("max_position_embeddings", "a positive integer (learned positions)");
  m.position_table = m.max_context;
  m.positions = PositionKind::learned;
  m.type_vocab = f.int_or("type_vocab_size", 2, kCount);
  m.encoder_only = true;
  m.pooler = true;
  m.embedding_norm = true;
  m.final_norm = false;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.tied_embeddings = true;  // no LM head in BertModel
  // configuration_bert.py: hidden_dropout_prob = attention_probs_dropout_prob = 0.1 by default.
  m.attention_dropout = f.probability_or("attention_probs_dropout_prob", 0.1);
  m.hidden_dropout = f.probability_or("hidden_dropout_prob", 0.1);
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

// Phi-1/1.5/2 (modeling_phi.py PhiDecoderLayer): one input_layernorm feeding attention and MLP in
// parallel, q/k/v/dense and fc1/fc2 all with biases, a plain GELU MLP, a final LayerNorm and an
// untied lm_head with a bias; partial_rotary_factor rotates part of each head (no weights);
// qk_layernorm adds a LayerNorm over d_head for q and for k. configuration_phi.py defaults:
// tie_word_embeddings false, qk_layernorm false, resid_pdrop 0.0, attention_dropout 0.0.
void read_phi(const Fields& f, ModelSpec& m) {
  read_llama_like(f, m, false);
  m.ffn = f.positive("intermediate_size", kFfn);
  m.ffn_kind = FfnKind::plain;
  m.norm = NormKind::layernorm;
  m.norms_per_layer = 1;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.lm_head_bias = true;
  m.qk_norm = f.bool_or("qk_layernorm", false);
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

// ---- the registry of families ---------------------------------------------------------------
//
// Each family napkin counts exactly: the model_type values and architectures[] class names that
// select it, the transformers files its field names and class defaults come from, and its reader.
// An unknown model_type is refused (ModelSpec is never a guess); --as FAMILY reads it by analogy,
// saying so on every command.

using Reader = void (*)(const Fields&, ModelSpec&, const std::string& model_type);

struct Family {
  std::string_view name;
  std::vector<std::string_view> model_types;
  std::vector<std::string_view> architectures;
  std::string_view source;  // where the field names and class defaults come from
  bool moe = false;         // reads mixture-of-experts fields
  Reader read;
};

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
  const Fields f(merged, given.file(), given.prefix());
  read_llama_like(f, m, true);
  m.ffn = f.positive("intermediate_size", kFfn);
  m.norms_per_layer = 4;
  m.qk_norm = true;
  slide_by_pattern(m, f.int_or("sliding_window_pattern", 6, kCount));
}

// BLOOM (modeling_bloom.py): ALiBi (no position weights), a LayerNorm over the word embeddings,
// fused query_key_value and every linear with a bias, a plain GELU MLP of 4·D, tied head;
// configuration_bloom.py spells the width n_embed (hidden_size) and the heads n_head.
void read_bloom(const Fields& f, ModelSpec& m) {
  read_shape(f, m, {"hidden_size", "n_embed"}, {"n_layer", "num_hidden_layers"}, {"num_attention_heads", "n_head"});
  classic_layout(m);
  m.ffn = 4 * m.hidden;
  m.vocab = f.positive("vocab_size", kVocab);
  m.positions = PositionKind::none;
  m.embedding_norm = true;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.tied_embeddings = f.bool_or("tie_word_embeddings", true);
  m.max_context = f.int_or("seq_length", 0, kCount);
  m.attention_dropout = f.probability_or("attention_dropout", 0.0);
  m.hidden_dropout = f.probability_or("hidden_dropout", 0.0);
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

void read_moe_layout(const Fields& f, ModelSpec& m) {
  m.moe.n_experts = f.positive("num_experts", "a positive integer (experts)");
  m.moe.experts_per_token = f.positive("num_experts_per_tok", "a positive integer (experts per token)");
  m.moe.expert_ffn = f.positive("moe_intermediate_size", "a positive integer (expert MLP width)");
  if (f.int_or("decoder_sparse_step", 1, kCount) != 1)
    throw InputError(f.where("decoder_sparse_step") + ": only 1 (MoE on every layer) is supported");
  if (f.nonempty_array("mlp_only_layers"))
    throw InputError(f.where("mlp_only_layers") + ": dense layers between MoE layers are not supported; expected []");
}

// ---- Granite, Cohere, StarCoder2, GPT-J, StableLM (dense families) ----------------------

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

// StarCoder2 (modeling_starcoder2.py): LayerNorm with bias (norm_epsilon), q/k/v/o biases and a
// plain MLP c_fc -> c_proj with biases when use_bias, every layer windowed by sliding_window when
// set. configuration_starcoder2.py: num_key_value_heads 2, use_bias true, tie_word_embeddings true,
// sliding_window null, attention_dropout = residual_dropout = 0.0.
void read_starcoder2(const Fields& f, ModelSpec& m) {
  m.hidden = f.positive("hidden_size", kHidden);
  m.layers = f.positive("num_hidden_layers", kLayers);
  m.heads = f.positive("num_attention_heads", kHeads);
  m.kv_heads = f.has("num_key_value_heads") ? f.positive("num_key_value_heads", kKvHeads) : 2;
  m.head_dim = f.has("head_dim") ? f.positive("head_dim", "a positive integer (d_head)") : m.hidden / m.heads;
  m.ffn = f.positive("intermediate_size", kFfn);
  m.ffn_kind = FfnKind::plain;
  m.vocab = f.positive("vocab_size", kVocab);
  m.tied_embeddings = f.bool_or("tie_word_embeddings", true);
  m.max_context = f.int_or("max_position_embeddings", 0, kCount);
  m.norm = NormKind::layernorm;
  m.positions = PositionKind::rotary;
  m.qkv_bias = m.o_bias = m.mlp_bias = f.bool_or("use_bias", true);
  m.sliding_window = f.int_or("sliding_window", 0, kCount);
  m.attention_dropout = f.probability_or("attention_dropout", 0.0);
  m.hidden_dropout = f.probability_or("residual_dropout", 0.0);
  attention_kind(m);
}

// GPT-J (modeling_gptj.py GPTJBlock): one ln_1 (LayerNorm, weight + bias) feeding attention and
// MLP in parallel; q/k/v/out_proj without bias; plain MLP fc_in -> fc_out with biases, n_inner
// null meaning 4·n_embd; lm_head untied with a bias; rotary_dim rotates part of each head (no
// weights). configuration_gptj.py: tie_word_embeddings false, attn_pdrop = resid_pdrop = 0.0.
void read_gptj(const Fields& f, ModelSpec& m) {
  read_shape(f, m, {"n_embd", "hidden_size"}, {"n_layer", "num_hidden_layers"}, {"n_head", "num_attention_heads"});
  classic_layout(m);
  m.ffn = f.has("n_inner") ? f.positive("n_inner", kFfn) : 4 * m.hidden;
  m.vocab = f.positive("vocab_size", kVocab);
  m.max_context = f.int_or("n_positions", 0, kCount);
  m.positions = PositionKind::rotary;
  m.norms_per_layer = 1;
  m.qkv_bias = m.o_bias = false;
  m.mlp_bias = true;
  m.lm_head_bias = true;
  m.tied_embeddings = f.bool_or("tie_word_embeddings", false);
  m.attention_dropout = f.probability_or("attn_pdrop", 0.0);
  m.hidden_dropout = f.probability_or("resid_pdrop", 0.0);
}

// StableLM (modeling_stablelm.py): LayerNorm with bias, q/k/v biases when use_qkv_bias (o_proj
// never), gated MLP without biases, qk_layernorm as StableLmLayerNormPerHead (a LayerNorm(d_head)
// per head, bias=False), use_parallel_residual drops post_attention_layernorm (one norm per
// layer); partial_rotary_factor adds no weights. configuration_stablelm.py: num_key_value_heads
// 32, tie_word_embeddings, use_qkv_bias, qk_layernorm and use_parallel_residual false.
void read_stablelm(const Fields& f, ModelSpec& m) {
  read_llama_like(f, m, false);
  m.ffn = f.positive("intermediate_size", kFfn);
  m.norm = NormKind::layernorm;
  m.qkv_bias = f.bool_or("use_qkv_bias", false);
  m.o_bias = false;
  m.mlp_bias = false;
  m.qk_norm_per_head = f.bool_or("qk_layernorm", false);
  m.norms_per_layer = f.bool_or("use_parallel_residual", false) ? 1 : 2;
  m.sliding_window = 0;  // StableLmAttention attends to every position
  m.layer_kinds.clear();
  m.hidden_dropout = f.probability_or("hidden_dropout", 0.0);
}

// T5 and Flan-T5 (modeling_t5.py T5ForConditionalGeneration): a shared token embedding, an
// encoder of num_layers blocks (self-attention q/k/v/o without biases, inner width
// num_heads·d_kv, which need not equal d_model; the DenseReluDense MLP: wi, wo for "relu", wi_0,
// wi_1, wo for "gated-…"; a weight-only T5LayerNorm before each sublayer) and a decoder of
// num_decoder_layers blocks that add cross-attention (EncDecAttention, same shapes) and a third
// norm; each stack ends in final_layer_norm and holds one relative_attention_bias
// (relative_attention_num_buckets × num_heads) in its first block only. The LM head is its own
// V×D matrix unless tie_word_embeddings. configuration_t5.py T5Config: num_decoder_layers
// defaults to num_layers, relative_attention_num_buckets to 32, feed_forward_proj to "relu",
// dropout_rate to 0.1; tie_word_embeddings to true (PretrainedConfig; the original t5-small/base
// configs leave it out, T5 v1.1 and Flan-T5 write false). The shape fields are required: every
// released config writes them.
void read_t5(const Fields& f, ModelSpec& m) {
  m.hidden = f.positive("d_model", kHidden);
  m.layers = f.positive("num_layers", "a positive integer (encoder layers)");
  m.heads = f.positive("num_heads", kHeads);
  m.kv_heads = m.heads;
  m.head_dim = f.positive("d_kv", "a positive integer (d_kv, the width of one head)");
  m.ffn = f.positive("d_ff", kFfn);
  m.vocab = f.positive("vocab_size", kVocab);
  m.encoder_decoder = true;
  m.decoder_layers = f.has("num_decoder_layers") ? f.positive("num_decoder_layers", "a positive integer (decoder layers)")
                                                 : m.layers;
  m.relative_attention_buckets = f.int_or("relative_attention_num_buckets", 32, kCount);
  // configuration_t5.py: "gated-ACT" or "ACT"; anything else is refused there too.
  const std::string proj = f.str_or("feed_forward_proj", "relu");
  const auto dash = proj.find('-');
  if (proj.empty() || (dash != std::string::npos && (proj.compare(0, dash, "gated") != 0 || dash + 1 >= proj.size() ||
                                                     proj.find('-', dash + 1) != std::string::npos)))
    f.bad("feed_forward_proj", "'gated-ACT' or 'ACT' (e.g. gated-gelu, relu)");
  m.ffn_kind = dash != std::string::npos ? FfnKind::gated : FfnKind::plain;
  m.tied_embeddings = f.bool_or("tie_word_embeddings", true);
  if (!f.has("tie_word_embeddings"))
    m.notes.push_back("tie_word_embeddings absent: the LM head is tied to the shared embedding (PretrainedConfig "
                      "default true, as in the original t5-small/base)");
  if (!f.has("num_decoder_layers"))
    m.notes.push_back("num_decoder_layers absent: the decoder has num_layers blocks (configuration_t5.py)");
  m.attention = AttentionKind::mha;
  m.norm = NormKind::rmsnorm;
  m.norms_per_layer = 2;  // encoder blocks; decoder blocks have 3 (params.cpp)
  m.positions = PositionKind::none;
  m.qkv_bias = m.o_bias = m.mlp_bias = false;
  // modeling_t5.py: dropout_rate on the attention probabilities and on every sublayer output.
  m.attention_dropout = m.hidden_dropout = f.probability_or("dropout_rate", 0.1);
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
  const Fields f(merged, given.file(), given.prefix());
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

// ---- state-space (Mamba) and hybrid families ----------------------------------------------------

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

// Nemotron-H (configuration_nemotron_h.py NemotronHConfig, modeling_nemotron_h.py): one block per
// character of hybrid_override_pattern ("M" a Mamba-2 mixer, "*" attention, "-" an MLP), or per
// entry of layers_block_type; each block one RMSNorm; norm_f. Attention: q/k/v/o without biases,
// no positions, head_dim (older configs: attention_head_dim; class default 128). MLP: up_proj and
// down_proj (relu², not gated) with mlp_bias. Mamba-2: mamba_num_heads × mamba_head_dim inner
// width, n_groups, ssm_state_size, conv_kernel, use_conv_bias (class default true), in_proj and
// out_proj biases per use_bias (class default false). MoE blocks ("E", Nemotron 3) are refused.
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
  if (pattern.empty())
    f.bad("hybrid_override_pattern", "a string of one block kind per layer (M Mamba, * attention, - MLP)");
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
    else
      throw InputError(f.where("hybrid_override_pattern") + ": block " + std::to_string(l) + " is '" +
                       std::string(1, c) + "'" +
                       (c == 'E' ? std::string(" (a mixture-of-experts block, Nemotron 3): not counted yet")
                                 : std::string()) +
                       "; expected M (Mamba-2), * (attention) or - (MLP)");
  }
}

const std::vector<Family>& families() {
  static const std::vector<Family> kFamilies = {
      {"llama",
       // Baichuan 2, InternLM 2.5 and MiniCPM keep Llama's tensors under other model_types (their
       // remote-code configs use Llama's field names); issue 13's check against their real
       // configs found Llama's count exact.
       {"llama", "mistral", "phi3", "baichuan", "internlm2", "minicpm"},
       {"LlamaForCausalLM", "MistralForCausalLM", "Phi3ForCausalLM", "BaichuanForCausalLM", "InternLM2ForCausalLM",
        "MiniCPMForCausalLM"},
       "configuration_llama.py, configuration_mistral.py, configuration_phi3.py",
       false,
       [](const Fields& f, ModelSpec& m, const std::string&) {
         read_llama_like(f, m, false);
         m.ffn = f.positive("intermediate_size", kFfn);
       }},
      {"mixtral",
       // GraniteMoE keeps Mixtral's tensors (input_linear fuses gate and up, router without bias);
       // its multipliers add no weights. Exact against granite-3.1-1b-a400m's checkpoint.
       {"mixtral", "granitemoe"},
       {"MixtralForCausalLM", "GraniteMoeForCausalLM"},
       "configuration_mixtral.py, modeling_mixtral.py, modeling_granitemoe.py",
       true,
       [](const Fields& f, ModelSpec& m, const std::string&) {
         // Every layer is MoE, experts w1/w2/w3 of width intermediate_size, router D×E without bias.
         read_llama_like(f, m, false);
         m.moe.n_experts = f.positive("num_local_experts", "a positive integer (experts)");
         m.moe.experts_per_token = f.positive("num_experts_per_tok", "a positive integer (experts per token)");
         m.moe.expert_ffn = f.positive("intermediate_size", kFfn);
       }},
      {"llama4", {"llama4_text", "llama4"}, {"Llama4ForCausalLM", "Llama4ForConditionalGeneration"},
       "configuration_llama4.py, modeling_llama4.py", true,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_llama4(f, m); }},
      {"qwen2", {"qwen2", "qwen2_moe"}, {"Qwen2ForCausalLM", "Qwen2MoeForCausalLM"},
       "configuration_qwen2.py, modeling_qwen2.py, modeling_qwen2_moe.py", true,
       [](const Fields& f, ModelSpec& m, const std::string& t) {
         // q/k/v projections have biases, o_proj has none.
         read_llama_like(f, m, false);
         m.qkv_bias = true;
         m.o_bias = false;
         m.ffn = f.int_or("intermediate_size", 0, kCount);
         if (t == "qwen2_moe") {
           // shared_expert (width shared_expert_intermediate_size) with a D→1 shared_expert_gate.
           read_moe_layout(f, m);
           m.moe.shared_ffn = f.int_or("shared_expert_intermediate_size", 0, kCount);
           m.moe.shared_expert_gate = m.moe.shared_ffn > 0;
         }
       }},
      {"qwen3", {"qwen3", "qwen3_moe"}, {"Qwen3ForCausalLM", "Qwen3MoeForCausalLM"},
       "configuration_qwen3.py, modeling_qwen3.py", true,
       [](const Fields& f, ModelSpec& m, const std::string& t) {
         // q_norm and k_norm (RMSNorm over d_head) in every attention block; biases follow
         // attention_bias (default false).
         read_llama_like(f, m, false);
         m.qk_norm = true;
         m.ffn = f.int_or("intermediate_size", 0, kCount);
         if (t == "qwen3_moe") read_moe_layout(f, m);
       }},
      {"gemma", {"gemma", "gemma2"}, {"GemmaForCausalLM", "Gemma2ForCausalLM"},
       "modeling_gemma.py, modeling_gemma2.py", false,
       [](const Fields& f, ModelSpec& m, const std::string& t) {
         // lm_head tied to embed_tokens; Gemma 2 adds post_attention and post_feedforward norms
         // (4 per layer) and slides a window on every other layer.
         read_llama_like(f, m, true);
         m.ffn = f.positive("intermediate_size", kFfn);
         if (t == "gemma2") {
           m.norms_per_layer = 4;
           m.sliding_every = m.sliding_window > 0 ? 2 : 0;
         }
       }},
      {"gemma3", {"gemma3_text"}, {"Gemma3ForCausalLM"}, "configuration_gemma3.py, modeling_gemma3.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_gemma3(f, m); }},
      {"gpt_oss", {"gpt_oss"}, {"GptOssForCausalLM"}, "configuration_gpt_oss.py, modeling_gpt_oss.py", true,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_gpt_oss(f, m); }},
      // State-space and hybrid models (Mamba layers).
      {"mamba", {"mamba", "falcon_mamba"}, {"MambaForCausalLM", "FalconMambaForCausalLM"},
       "configuration_mamba.py, modeling_mamba.py, configuration_falcon_mamba.py, modeling_falcon_mamba.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_mamba(f, m); }},
      {"jamba", {"jamba"}, {"JambaForCausalLM"}, "configuration_jamba.py, modeling_jamba.py", true,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_jamba(f, m); }},
      {"nemotron_h", {"nemotron_h"}, {"NemotronHForCausalLM"}, "configuration_nemotron_h.py, modeling_nemotron_h.py",
       false, [](const Fields& f, ModelSpec& m, const std::string&) { read_nemotron_h(f, m); }},
      {"bloom", {"bloom"}, {"BloomForCausalLM"}, "configuration_bloom.py, modeling_bloom.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_bloom(f, m); }},
      {"gpt2", {"gpt2"}, {"GPT2LMHeadModel", "GPT2Model"}, "configuration_gpt2.py, modeling_gpt2.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_gpt2(f, m); }},
      {"gpt_neox", {"gpt_neox"}, {"GPTNeoXForCausalLM"}, "configuration_gpt_neox.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_neox(f, m); }},
      {"opt", {"opt"}, {"OPTForCausalLM"}, "modeling_opt.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_opt(f, m); }},
      {"falcon", {"falcon", "RefinedWeb", "RefinedWebModel"}, {"FalconForCausalLM", "RWForCausalLM"},
       "configuration_falcon.py, modeling_falcon.py", false,
       [](const Fields& f, ModelSpec& m, const std::string& t) { read_falcon(f, m, t); }},
      {"deepseek", {"deepseek_v2", "deepseek_v3"}, {"DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM"},
       "configuration_deepseek.py, modeling_deepseek.py (DeepSeek-V2/V3 repositories)", true,
       [](const Fields& f, ModelSpec& m, const std::string& t) { read_deepseek(f, m, t == "deepseek_v3"); }},
      // OLMo, ChatGLM/GLM, Phi, DeepSeek-MoE v1 (tests/families_dense_b_test.cpp).
      {"olmo", {"olmo", "olmo2", "olmoe"}, {"OlmoForCausalLM", "Olmo2ForCausalLM", "OlmoeForCausalLM"},
       "configuration_olmo.py, modeling_olmo.py, modeling_olmo2.py, modeling_olmoe.py", true,
       [](const Fields& f, ModelSpec& m, const std::string& t) { read_olmo(f, m, t); }},
      {"chatglm", {"chatglm"}, {"ChatGLMModel", "ChatGLMForConditionalGeneration"},
       "configuration_chatglm.py, modeling_chatglm.py (THUDM ChatGLM2/3, GLM-4 repositories)", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_chatglm(f, m); }},
      {"glm", {"glm", "glm4"}, {"GlmForCausalLM", "Glm4ForCausalLM"},
       "configuration_glm.py, modeling_glm.py, modeling_glm4.py", false,
       [](const Fields& f, ModelSpec& m, const std::string& t) {
         // GlmAttention: q/k/v biases follow attention_bias (configuration_glm.py default true),
         // o_proj has none; gate_up_proj fuses gate and up (2·F) without bias. GLM-4-0414 adds
         // post_self_attn_layernorm and post_mlp_layernorm (4 RMSNorms per layer).
         read_llama_like(f, m, false);
         m.ffn = f.positive("intermediate_size", kFfn);
         m.qkv_bias = f.bool_or("attention_bias", true);
         m.o_bias = false;
         if (t == "glm4") m.norms_per_layer = 4;
       }},
      {"phi", {"phi"}, {"PhiForCausalLM"}, "configuration_phi.py, modeling_phi.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_phi(f, m); }},
      {"deepseek_moe", {"deepseek"}, {"DeepseekForCausalLM"},
       "configuration_deepseek.py, modeling_deepseek.py (deepseek-ai/deepseek-moe-16b-base)", true,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_deepseek_v1(f, m); }},
      {"bert", {"bert"}, {"BertForMaskedLM", "BertModel"}, "modeling_bert.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_bert(f, m); }},
      // Dense families, exact against the checkpoints in tests/families_dense_a_test.cpp.
      {"granite", {"granite"}, {"GraniteForCausalLM"}, "configuration_granite.py, modeling_granite.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_granite(f, m); }},
      {"cohere", {"cohere", "cohere2"}, {"CohereForCausalLM", "Cohere2ForCausalLM"},
       "configuration_cohere.py, modeling_cohere.py, configuration_cohere2.py, modular_cohere2.py", false,
       [](const Fields& f, ModelSpec& m, const std::string& t) { read_cohere(f, m, t == "cohere2"); }},
      {"starcoder2", {"starcoder2"}, {"Starcoder2ForCausalLM"}, "configuration_starcoder2.py, modeling_starcoder2.py",
       false, [](const Fields& f, ModelSpec& m, const std::string&) { read_starcoder2(f, m); }},
      {"gptj", {"gptj"}, {"GPTJForCausalLM"}, "configuration_gptj.py, modeling_gptj.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_gptj(f, m); }},
      {"stablelm", {"stablelm"}, {"StableLmForCausalLM"}, "configuration_stablelm.py, modeling_stablelm.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_stablelm(f, m); }},
      {"t5", {"t5"}, {"T5ForConditionalGeneration"}, "configuration_t5.py, modeling_t5.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_t5(f, m); }},
  };
  return kFamilies;
}

const Family* family_by_model_type(std::string_view t) {
  for (const Family& fam : families())
    for (std::string_view mt : fam.model_types)
      if (mt == t) return &fam;
  return nullptr;
}

const Family* family_by_name(std::string_view name) {
  for (const Family& fam : families())
    if (fam.name == name) return &fam;
  return family_by_model_type(name);
}


// Keys no supported family reads silently: a config carrying them is never counted by analogy
// with a family that ignores them.
constexpr const char* kMoeKeys[] = {"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts",
                                    "num_experts_per_tok", "moe_intermediate_size"};
constexpr const char* kSsmKeys[] = {"ssm_cfg", "state_size", "d_state", "mamba_d_state", "mamba_expand",
                                    "conv_kernel", "hybrid_override_pattern", "attn_layer_period"};
constexpr const char* kEncDecKeys[] = {"is_encoder_decoder", "num_decoder_layers", "decoder_layers",
                                       "encoder_layers"};

void refuse_unread_layout(const Fields& f, const Family& as, const std::string& t) {
  auto first_present = [&](const auto& keys) -> const char* {
    for (const char* k : keys)
      if (f.has(k)) return k;
    return nullptr;
  };
  const std::string what = "model_type '" + t + "' with --as " + std::string(as.name);
  if (const char* k = first_present(kSsmKeys))
    throw InputError(f.where(k) + ": a state-space (Mamba) layer key; " + what +
                     " would drop those layers; expected a supported family (" + family_names() + ")");
  if (const char* k = first_present(kEncDecKeys); k != nullptr && as.name != "t5" &&
                                                  !(std::string_view(k) == "is_encoder_decoder" &&
                                                    !f.bool_or("is_encoder_decoder", false)))
    throw InputError(f.where(k) + ": an encoder-decoder key; " + what +
                     " counts a decoder only; expected a supported family (" + family_names() + ")");
  if (const char* k = first_present(kMoeKeys); k != nullptr && !as.moe) {
    std::string moe;
    for (const Family& fam : families())
      if (fam.moe) moe += (moe.empty() ? "" : ", ") + std::string(fam.name);
    throw InputError(f.where(k) + ": a mixture-of-experts key; " + what +
                     " counts a dense model; expected --as a family that reads experts (" + moe + ")");
  }
}

ModelSpec read(const Fields& f, std::string model_type, const std::string& file, std::string_view as) {
  ModelSpec m;
  m.model_type = model_type;
  m.stored_dtype = f.has("torch_dtype") ? f.str_or("torch_dtype", "") : f.str_or("dtype", "");
  std::string t = model_type;
  const Family* fam = t.empty() ? nullptr : family_by_model_type(t);
  if (t.empty()) {
    // No model_type: architectures[] names the class (older configs).
    std::string arch;
    if (f.has("architectures")) {
      const JsonFields::json& a = f.raw("architectures");
      if (a.is_array() && !a.empty() && a.front().is_string()) arch = a.front().get<std::string>();
    }
    for (const Family& x : families())
      for (std::string_view c : x.architectures)
        if (!arch.empty() && c == arch) {
          fam = &x;
          t = std::string(x.model_types.front());
          m.notes.push_back("no model_type: architectures[0] " + arch + " read as " + std::string(x.name));
        }
    if (fam == nullptr && as.empty() && f.has("n_embd")) {
      // openai-community/gpt2's first config.json has neither: its n_embd/n_layer/n_head are GPT-2's.
      fam = family_by_model_type("gpt2");
      t = "gpt2";
      m.notes.push_back("no model_type: n_embd/n_layer/n_head read with GPT-2 conventions (biases, LayerNorm, "
                        "learned positions, tied head)");
    }
  }
  if (!as.empty()) {
    const Family* by = family_by_name(as);
    if (by == nullptr)
      throw InputError("--as", std::string(as), "a family napkin counts: " + family_names());
    if (fam != nullptr)
      throw InputError("--as", std::string(as),
                       "no --as for a known family: " + file + " says model_type '" + model_type + "' (" +
                           std::string(fam->name) + "); --as reads an unknown model_type by analogy");
    refuse_unread_layout(f, *by, model_type);
    fam = by;
    m.analogy = (model_type.empty() ? std::string("a config without model_type") : "model_type '" + model_type + "'") +
                " counted as " + std::string(by->name) + " (--as " + std::string(as) +
                "): the count is by analogy, not exact";
    m.notes.push_back(m.analogy);
    t = std::string(by->model_types.front());
  }
  if (fam == nullptr)
    throw InputError(f.where("model_type") + ": " +
                     (model_type.empty() ? std::string("missing") : "'" + model_type + "' is not a family napkin counts") +
                     "; expected one of " + family_names() +
                     " (or --as FAMILY to count it by analogy with one, stated as a warning)");
  // The family shown is the model_type read (mistral, qwen2_moe, deepseek_v3, ...), except that
  // Falcon's legacy RefinedWeb names show as falcon.
  m.family = (t == "RefinedWeb" || t == "RefinedWebModel") ? std::string(fam->name) : t;
  fam->read(f, m, t);
  // Layouts counted from their modeling files that no checkpoint total has yet confirmed
  // (tests/real-configs: the hand computations and the rounded figures published for them).
  static constexpr std::pair<std::string_view, std::string_view> kUnverified[] = {
      {"starcoder2", "modeling_starcoder2.py (StarCoder2-3B: 3.03B published, rounded)"},
      {"cohere2", "modular_cohere2.py"},
      {"falcon_mamba", "modeling_falcon_mamba.py (Falcon-Mamba-7B: 7.27B published, rounded)"},
      {"olmo", "modeling_olmo.py"},
      {"glm4", "modular_glm4.py"}};
  for (const auto& [type, source] : kUnverified)
    if (m.analogy.empty() && t == type) {
      m.unverified = "model_type '" + t + "' is counted from " + std::string(source) +
                     "; no checkpoint total has confirmed it yet";
      m.notes.push_back(m.unverified);
    }
  return m;
}

}  // namespace

namespace {

// quantization_config as the quantizers write it (transformers' utils/quantization_config.py):
// AWQ (bits/w_bit, group_size/q_group_size, zero_point), GPTQ (bits, group_size, sym; its
// checkpoints store qzeros whatever sym says), bitsandbytes (load_in_4bit with nf4/fp4 and 64
// weights per absmax, load_in_8bit), FP8 (weight_block_size [128, 128]: one fp32 scale per block).
// Anything else (MXFP4's per-module layout, ...) is recorded as not modelled.
void read_quantization(const Fields& top, ModelSpec& m) {
  if (!top.has("quantization_config")) return;
  const Fields q = top.sub("quantization_config");
  const std::string method = q.str_or("quant_method", q.bool_or("load_in_4bit", false) || q.bool_or("load_in_8bit", false)
                                                          ? "bitsandbytes"
                                                          : "");
  m.quant_method = method;
  auto bits = [&]() { return q.has("bits") ? q.positive("bits", "a positive integer (bits)") : q.int_or("w_bit", 0, kCount); };
  if (method == "awq" || method == "gptq") {
    const i64 b = bits();
    if (b != 4 && b != 8) {
      m.quant_note = method + " with " + std::to_string(b) + "-bit weights is not modelled (4 or 8 are)";
      return;
    }
    m.quant_dtype = b == 4 ? "int4" : "int8";
    const i64 g = q.has("group_size") ? q.raw("group_size").is_number_integer() ? q.raw("group_size").get<i64>() : 0
                                      : q.int_or("q_group_size", 128, kCount);
    m.quant_group = g > 0 ? g : 0;
    m.quant_zero_points = method == "gptq" ? true : q.bool_or("zero_point", true);
    m.quant_note = method + " " + std::to_string(b) + "-bit weights" +
                   (m.quant_group > 0 ? ", group " + std::to_string(m.quant_group) : ", per-channel scales (not counted)") +
                   (m.quant_zero_points ? ", zero points" : "");
  } else if (method == "bitsandbytes") {
    if (q.bool_or("load_in_4bit", false)) {
      m.quant_dtype = q.str_or("bnb_4bit_quant_type", "fp4") == "nf4" ? "nf4" : "fp4";
      m.quant_group = 64;  // bitsandbytes' 4-bit blocksize: one absmax per 64 weights
      m.quant_scale_dtype = "fp32";
      m.quant_note = "bitsandbytes 4-bit (" + m.quant_dtype + "), one fp32 absmax per 64 weights";
    } else {
      m.quant_dtype = "int8";
      m.quant_note = "bitsandbytes 8-bit (LLM.int8)";
    }
  } else if (method == "fp8") {
    m.quant_dtype = "fp8";
    if (q.has("weight_block_size") && q.raw("weight_block_size").is_array() && q.raw("weight_block_size").size() == 2 &&
        q.raw("weight_block_size")[0].is_number_integer() && q.raw("weight_block_size")[1].is_number_integer()) {
      const i64 a = q.raw("weight_block_size")[0].get<i64>(), b = q.raw("weight_block_size")[1].get<i64>();
      if (a > 0 && b > 0 && a <= 65536 && b <= 65536) m.quant_group = a * b;
    }
    m.quant_scale_dtype = "fp32";
    m.quant_note = "fp8 weights" + (m.quant_group > 0 ? ", one fp32 scale per block of " + std::to_string(m.quant_group)
                                                       : std::string(", per-tensor scales (not counted)"));
  } else if (method == "mxfp4" && m.moe.is_moe()) {
    // OCP Microscaling Formats (MX) v1.0, §5: MXFP4 is 4-bit E2M1 elements with one shared E8M0
    // (8-bit) scale per block of 32. gpt-oss (transformers integrations/mxfp4.py,
    // Mxfp4GptOssExperts) stores only the experts' gate_up_proj and down_proj that way, as
    // *_blocks (2 values per byte) and *_scales (1 B per 32); modules_to_not_convert and the
    // biases stay bf16. tests/real-configs/gpt-oss-20b/SOURCE.md checks the split byte for byte.
    m.quant_dtype = "fp4";
    m.quant_group = 32;
    m.quant_scale_dtype = "fp8";  // one byte, as E8M0 is
    m.quant_experts_only = true;
    m.quant_note = "mxfp4: the routed experts' weight matrices as 4-bit E2M1 values with one 1-byte E8M0 scale per "
                   "32; attention, router, embeddings, head, norms and every bias in bf16";
  } else if (method == "mxfp4") {
    m.quant_note = "quant_method 'mxfp4' on a model without routed experts is not modelled (gpt-oss quantizes its "
                   "experts only)";
  } else {
    m.quant_note = "quant_method '" + method + "' is not modelled";
  }
}

}  // namespace

std::string family_names() {
  std::string s;
  for (const Family& fam : families()) s += (s.empty() ? "" : ", ") + std::string(fam.name);
  return s;
}

ModelSpec from_hf_config(const json& j, std::string_view file, std::string_view as) {
  const std::string f(file);
  if (!j.is_object()) throw InputError(f + ": expected a JSON object (a config.json), got " + std::string(j.type_name()));
  // Vision-language configs keep the language model in text_config.
  const bool nested = j.contains("text_config") && j.at("text_config").is_object() && !j.contains("hidden_size") &&
                      !j.contains("n_embd");
  const json& src = nested ? j.at("text_config") : j;
  Fields fields(src, f, nested ? "/text_config" : "");
  std::string mt = fields.str_or("model_type", "");
  ModelSpec m = read(fields, mt, f, as);
  read_quantization(Fields(j, f, ""), m);
  if (nested) m.notes.push_back("language model read from text_config; the vision tower and projector are not counted");
  return m;
}

json read_json_file(const std::string& path, std::string_view expected, std::string_view hint) {
  return parse_json_text(read_json_text(path, path, expected, hint), path);
}

namespace {

// Python's json module writes float('inf') and float('nan') as the bare tokens Infinity,
// -Infinity and NaN, and real config.json files carry them (e.g. a loss coefficient). Outside
// strings they become null: a field napkin reads that holds one is then "missing" and named
// as such, never a number. Returns false when there was nothing to replace.
bool python_tokens_to_null(std::string& s) {
  bool in_string = false, changed = false;
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < s.size()) out += s[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    bool replaced = false;
    for (std::string_view tok : {std::string_view("-Infinity"), std::string_view("Infinity"), std::string_view("NaN")}) {
      if (s.compare(i, tok.size(), tok) == 0) {
        out += "null";
        i += tok.size() - 1;
        replaced = changed = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  if (changed) s = std::move(out);
  return changed;
}

}  // namespace

json parse_json_text(std::string_view text, const std::string& what) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::string python(text);
    if (python_tokens_to_null(python)) {
      try {
        return json::parse(python);
      } catch (const json::exception&) {
        // not only Python's tokens: report the original error
      }
    }
    throw InputError(what + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const json::out_of_range& e) {
    // "[json.exception.out_of_range.406] number overflow parsing '1e999'": name the number.
    const std::string m = e.what();
    const auto q = m.find('\'');
    throw InputError(what + ": number " + (q == std::string::npos ? std::string("(unnamed)") : m.substr(q)) +
                     " is out of range; expected JSON numbers a double holds (magnitude below 1.8e308)");
  }
}

ModelSpec read_hf_config(const std::string& path) {
  ModelSpec m = from_hf_config(read_json_file(path), path);
  m.name = path;
  return m;
}

}  // namespace napkin::specs
