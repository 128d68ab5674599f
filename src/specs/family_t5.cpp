// Encoder-decoders: T5 and Flan-T5.
// See hf_family.h; the registry that selects each reader is hf_config.cpp.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "hf_family.h"
#include "napkin/ground/error.h"

namespace napkin::specs::family {

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

}  // namespace napkin::specs::family
