// Families with the GPT-2-era layout or their own field names: GPT-2, GPT-NeoX, OPT, Falcon,
// BLOOM, BERT, GPT-J, StarCoder2, StableLM, Phi.
// See hf_family.h; the registry that selects each reader is hf_config.cpp.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "hf_family.h"
#include "napkin/ground/error.h"

namespace napkin::specs::family {

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

}  // namespace napkin::specs::family
