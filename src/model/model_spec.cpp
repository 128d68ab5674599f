#include "napkin/model/model_spec.h"

#include <stdexcept>
#include <string>

#include "napkin/ground/error.h"

namespace napkin::specs {

ModelSpec bare_model(std::int64_t params) {
  if (params <= 0) throw std::invalid_argument("bare_model: a positive parameter count");
  ModelSpec m;
  m.name = "(a bare parameter count)";
  m.family = "none";
  m.bare_params = params;
  m.final_norm = false;
  m.norms_per_layer = 0;
  return m;
}

void refuse_encoder_decoder(const ModelSpec& m, std::string_view command) {
  if (!m.encoder_decoder) return;
  throw InputError(std::string(command) + ": MODEL '" + m.name + "' is an encoder-decoder (" + m.family +
                   "), which " + std::string(command) +
                   " does not model (it counts a decoder-only model); expected a decoder-only model, or for an "
                   "encoder-decoder napkin params and napkin memory (inference)");
}

void refuse_mamba_layers(const ModelSpec& m, std::string_view what) {
  if (!m.has_mamba()) return;
  throw InputError((m.name.empty() ? std::string("MODEL") : m.name) + ": " + std::to_string(m.mamba_layers()) +
                   " Mamba (state-space) layers: " + std::string(what) +
                   "; expected a model without Mamba layers (napkin params and memory count them)");
}

void refuse_unmodelled_layers(const ModelSpec& m, std::string_view what) {
  const std::string name = m.name.empty() ? std::string("MODEL") : m.name;
  if (m.has_recurrent())
    throw InputError(name + ": " + std::to_string(m.recurrent_layers()) + " " + m.recurrent.kind +
                     " layers (a recurrent state per sequence): " + std::string(what) +
                     "; expected a model without recurrent-state layers (napkin params, memory and flops size them)");
  if (m.has_layer_kv())
    throw InputError(name + ": layers of different KV shapes or KV-shared layers (per-layer KV heads and head "
                     "sizes, or layers reading an earlier layer's cache): " + std::string(what) +
                     "; expected a model whose attending layers share one KV shape (napkin params, memory and flops "
                     "size it)");
  if (m.indexer.heads > 0)
    throw InputError(name + ": DeepSeek Sparse Attention (an indexer of " + std::to_string(m.indexer.heads) +
                     " heads keeping the top " + std::to_string(m.indexer.top_k) + " keys per query): " +
                     std::string(what) + "; expected a model with dense attention (napkin params, memory and flops "
                                         "size it)");
}

std::string_view to_string(FfnKind k) { return k == FfnKind::gated ? "gated" : "plain"; }

std::string_view to_string(PositionKind k) {
  switch (k) {
    case PositionKind::rotary: return "rotary";
    case PositionKind::learned: return "learned";
    case PositionKind::none: return "none";
  }
  return "none";
}

std::string_view to_string(NormKind k) { return k == NormKind::layernorm ? "layernorm" : "rmsnorm"; }

std::string_view to_string(AttentionKind k) {
  switch (k) {
    case AttentionKind::mha: return "mha";
    case AttentionKind::gqa: return "gqa";
    case AttentionKind::mqa: return "mqa";
    case AttentionKind::mla: return "mla";
  }
  return "mha";
}

std::string_view to_string(LayerAttention k) {
  switch (k) {
    case LayerAttention::full: return "full";
    case LayerAttention::sliding: return "sliding";
    case LayerAttention::chunked: return "chunked";
    case LayerAttention::none: return "none";
  }
  return "full";
}

}  // namespace napkin::specs
