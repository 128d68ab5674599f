// The pieces the memory ledgers are built from: model states, inference weights and the KV cache
// (activations per layer: activations.cpp). See napkin/memory/ledgers.h.
#include "napkin/memory/ledgers.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"

namespace napkin {

using namespace units;

namespace {

constexpr BytesPerParam per_param(double b) { return b * byte / param; }

// bitsandbytes' 8-bit Adam keeps each moment in 1 byte plus one fp32 absmax per block of 2048
// values (Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization", §2; block size
// 2048 in bitsandbytes' optimizer implementation).
constexpr double kAdam8bitBlock = 2048.0;

}  // namespace

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::mixed: return "mixed";
    case Precision::fp32: return "fp32";
    case Precision::bf16: return "bf16";
  }
  return "?";
}

std::string_view to_string(Optimizer o) {
  switch (o) {
    case Optimizer::adamw: return "adamw";
    case Optimizer::adam_8bit: return "adam-8bit";
    case Optimizer::sgd: return "sgd";
    case Optimizer::sgd_momentum: return "sgd-momentum";
    case Optimizer::adafactor: return "adafactor";
  }
  return "?";
}

Precision parse_precision(std::string_view text, std::string_view field) {
  if (text == "mixed") return Precision::mixed;
  if (text == "fp32") return Precision::fp32;
  if (text == "bf16") return Precision::bf16;
  throw InputError(std::string(field), std::string(text), "mixed, fp32 or bf16");
}

Optimizer parse_optimizer(std::string_view text, std::string_view field) {
  if (text == "adamw" || text == "adam") return Optimizer::adamw;
  if (text == "adam-8bit") return Optimizer::adam_8bit;
  if (text == "sgd") return Optimizer::sgd;
  if (text == "sgd-momentum") return Optimizer::sgd_momentum;
  if (text == "adafactor") return Optimizer::adafactor;
  throw InputError(std::string(field), std::string(text), "adamw, adam-8bit, sgd, sgd-momentum or adafactor");
}

StateBytes state_bytes(const ModelStatesInput& in) {
  StateBytes s;
  // The dtype of the optimizer's fp32-or-not states follows the recipe.
  double state_width = 4.0;
  switch (in.precision) {
    case Precision::mixed:
      s.weights = per_param(2);
      s.gradients = per_param(2);
      s.master_weights = per_param(4);
      break;
    case Precision::fp32:
      s.weights = per_param(4);
      s.gradients = per_param(4);
      break;
    case Precision::bf16:
      s.weights = per_param(2);
      s.gradients = per_param(2);
      state_width = 2.0;
      break;
  }
  if (in.grad_dtype) s.gradients = dtype_size(*in.grad_dtype) / param;
  if (in.master_weights) s.master_weights = per_param(*in.master_weights ? 4.0 : 0.0);
  switch (in.optimizer) {
    case Optimizer::adamw: s.optimizer_states = per_param(2.0 * state_width); break;
    case Optimizer::adam_8bit: s.optimizer_states = per_param(2.0 * (1.0 + 4.0 / kAdam8bitBlock)); break;
    case Optimizer::sgd: s.optimizer_states = per_param(0); break;
    case Optimizer::sgd_momentum: s.optimizer_states = per_param(state_width); break;
    // Adafactor with its default β1 = 0 keeps no momentum, and its factored second moment is
    // O(rows + cols) per matrix (Shazeer & Stern 2018, §3): below 0.1 % of P for LLM shapes.
    case Optimizer::adafactor: s.optimizer_states = per_param(0); break;
  }
  return s;
}

ModelStates model_states(const ModelStatesInput& in) {
  require_positive(in.params, "params");
  require_positive_integer(in.dp, "dp");
  if (in.zero_stage < 0 || in.zero_stage > 3)
    throw InputError("zero", std::to_string(in.zero_stage), "a ZeRO stage 0, 1, 2 or 3");
  const StateBytes s = state_bytes(in);
  const double dp = in.dp.in(one);
  // ZeRO partitions; a byte count that does not divide evenly rounds up on the fullest rank.
  auto shard = [&](BytesPerParam b, bool sharded) {
    const double total = (b * in.params).in(byte);
    return (sharded ? std::ceil(total / dp) : total) * byte;
  };
  ModelStates m;
  m.weights = shard(s.weights, in.zero_stage >= 3);
  m.gradients = shard(s.gradients, in.zero_stage >= 2);
  m.master_weights = shard(s.master_weights, in.zero_stage >= 1);
  m.optimizer_states = shard(s.optimizer_states, in.zero_stage >= 1);
  return m;
}

void model_states(const ModelStatesInput& in, ResultSet& out) {
  const ModelStates m = model_states(in);
  const StateBytes s = state_bytes(in);
  const int z = in.zero_stage;
  if (z >= 3)
    out.item("weights", "weights", value(m.weights), "P · bytes / dp (ZeRO-3)",
             text("{} · {} / {}", in.params, s.weights, in.dp));
  else
    out.item("weights", "weights", value(m.weights), "P · bytes", text("{} · {}", in.params, s.weights));
  if (z >= 2)
    out.item("gradients", "gradients", value(m.gradients), "P · bytes / dp (ZeRO-2)",
             text("{} · {} / {}", in.params, s.gradients, in.dp));
  else
    out.item("gradients", "gradients", value(m.gradients), "P · bytes", text("{} · {}", in.params, s.gradients));
  if (z >= 1) {
    out.item("master_weights", "FP32 master weights", value(m.master_weights), "P · bytes / dp (ZeRO-1)",
             text("{} · {} / {}", in.params, s.master_weights, in.dp));
    out.item("optimizer_states", "optimizer states", value(m.optimizer_states), "P · bytes / dp (ZeRO-1)",
             text("{} · {} / {}", in.params, s.optimizer_states, in.dp));
  } else {
    out.item("master_weights", "FP32 master weights", value(m.master_weights), "P · bytes",
             text("{} · {}", in.params, s.master_weights));
    out.item("optimizer_states", "optimizer states", value(m.optimizer_states), "P · bytes",
             text("{} · {}", in.params, s.optimizer_states));
  }
  out.assume("precision", text("{} precision: weights {}, gradients {}, master weights {}",
                               to_string(in.precision), s.weights, s.gradients, s.master_weights));
  switch (in.optimizer) {
    case Optimizer::adamw:
      out.assume("optimizer", text("AdamW: two moments, {}", s.optimizer_states));
      break;
    case Optimizer::adam_8bit:
      out.assume("optimizer", text("8-bit Adam: two 1-byte moments plus an fp32 absmax per 2048 values, {} "
                                   "(Dettmers et al. 2022)", s.optimizer_states));
      break;
    case Optimizer::sgd:
      out.assume("optimizer", text("plain SGD keeps no optimizer state"));
      break;
    case Optimizer::sgd_momentum:
      out.assume("optimizer", text("SGD with momentum: one buffer, {}", s.optimizer_states));
      break;
    case Optimizer::adafactor:
      out.assume("optimizer", text("Adafactor with β1 = 0: no momentum; the factored second moment "
                                   "(rows + cols per matrix) is below 0.1 % of P and not counted"));
      break;
  }
  if (z == 0)
    out.assume("zero_stage", text("no ZeRO sharding: every data-parallel rank holds all model states"));
  else
    out.assume("zero_stage", text("ZeRO-{} over {} data-parallel ranks (1: optimizer states and master "
                                  "weights, 2: + gradients, 3: + weights), as the ZeRO paper counts (Rajbhandari et "
                                  "al. 2020, fig. 1); DeepSpeed's estimate_zero2/3_model_states_mem_needs differs "
                                  "(ZeRO-2: 16-bit weights and gradients whole, 4 B/param, plus 16 B/param / dp; "
                                  "ZeRO-3: 18 B/param / dp; CPU memory per node with a 1.5 buffer factor)",
                                  static_cast<double>(z), in.dp));
}

void fit_items(Bytes per_gpu, Bytes capacity, ResultSet& out) {
  out.item("fits", "fits", boolean(per_gpu <= capacity), "per GPU ≤ capacity", text("{} ≤ {}", per_gpu, capacity));
  out.item("headroom", "headroom", value(capacity - per_gpu), "capacity − per GPU", text("{} − {}", capacity, per_gpu));
}

// ---- inference weights ----------------------------------------------------------------------

Weights inference_weights(const WeightsInput& in) {
  require_positive(in.params, "params");
  require_non_negative(in.unquantized, "unquantized");
  if (in.unquantized > in.params)
    throw InputError("unquantized", format_plain_number(in.unquantized.in(param)),
                     "at most the total parameter count");
  if (in.group_size.in(one) != 0.0) require_positive_integer(in.group_size, "group_size");
  Weights w;
  const Params quantized = in.params - in.unquantized;
  // Packed sub-byte types round up to whole bytes.
  w.quantized = std::ceil((dtype_size(in.dtype) / param * quantized).in(byte)) * byte;
  w.unquantized = dtype_size(in.unquantized_dtype) / param * in.unquantized;
  if (in.group_size.in(one) > 0.0) {
    const double groups = std::ceil(quantized.in(param) / in.group_size.in(one));
    // A zero point is an offset in the quantized domain, stored packed at the weights' own
    // width, as AWQ and GPTQ store qzeros (4 bits per group for 4-bit weights).
    w.scales = std::ceil((groups * dtype_size(in.scale_dtype) +
                          (in.zero_points ? groups * dtype_size(in.dtype) : Bytes{})).in(byte)) * byte;
  }
  return w;
}

void inference_weights(const WeightsInput& in, ResultSet& out) {
  const Weights w = inference_weights(in);
  const Params quantized = in.params - in.unquantized;
  const bool extras = in.unquantized.in(param) > 0.0 || in.group_size.in(one) > 0.0;
  if (!extras) {
    out.item("weights", "weights", value(w.total()), "P · bits / 8",
             text("{} · {} / 8", in.params, dtype_bits(in.dtype)));
  } else {
    out.item("weights", "weights", value(w.total()), "P_q · bits / 8 + scales + P_keep · bytes",
             text("{} · {} / 8 + {} + {} · {}", quantized, dtype_bits(in.dtype), w.scales, in.unquantized,
                  dtype_size(in.unquantized_dtype)));
  }
  out.assume("weights_dtype", text("weights stored in {} ({} bits per parameter)", dtype_name(in.dtype),
                                   dtype_bits(in.dtype)));
  if (in.group_size.in(one) > 0.0)
    out.assume("group_size",
               text("one {} scale{} per group of {} weights", dtype_name(in.scale_dtype),
                    in.zero_points ? " and one zero point at the weights' width (packed, as AWQ/GPTQ qzeros)" : "",
                    in.group_size));
  if (in.unquantized.in(param) > 0.0)
    out.assume("unquantized", text("{} kept in {} (embeddings, head, norms)", in.unquantized,
                                   dtype_name(in.unquantized_dtype)));
}

// ---- KV cache -------------------------------------------------------------------------------

Bytes kv_bytes_per_token_per_layer(const specs::ModelSpec& m, Dtype kv_dtype, double kv_heads) {
  const Bytes e = dtype_size(kv_dtype);
  if (m.attention == specs::AttentionKind::mla)
    return static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * e + indexer_bytes_per_token_per_layer(m);
  return 2.0 * kv_heads * static_cast<double>(m.head_dim) * e;
}

Bytes kv_bytes_per_token_per_layer(const specs::ModelSpec& m, Dtype kv_dtype) {
  return kv_bytes_per_token_per_layer(m, kv_dtype, static_cast<double>(m.kv_heads));
}

Bytes kv_bytes_per_token(const specs::ModelSpec& m, Dtype kv_dtype) {
  // An encoder-decoder caches in its decoder layers only (self-attention over the decoder's
  // tokens, cross-attention over the encoder's): per token of either stream.
  const std::int64_t layers = m.encoder_decoder ? m.decoder_layers : attention_layers(m);
  if (m.has_layer_kv()) {
    std::int64_t width = 0;  // Σ over layers of the K and V elements each caches
    for (std::int64_t l = 0; l < m.layers; ++l) width += m.kv_width(l);
    return static_cast<double>(width) * dtype_size(kv_dtype);
  }
  return static_cast<double>(layers) * kv_bytes_per_token_per_layer(m, kv_dtype);
}

namespace {
// One sequence's state in one layer: the convolution window at the activations' 2 B and the
// state at 2 B, or 4 B when kept in fp32.
Bytes state_bytes(double conv_elements, double state_elements, bool state_fp32) {
  return (conv_elements * 2.0 + state_elements * (state_fp32 ? 4.0 : 2.0)) * byte;
}
}  // namespace

Bytes ssm_state_per_layer(const specs::ModelSpec& m) {
  const auto& s = m.mamba;
  if (s.version == 0) return Bytes{};
  return state_bytes(static_cast<double>(s.conv_channels() * (s.conv_kernel - 1)),
                     static_cast<double>(s.d_inner * s.d_state), s.ssm_state_fp32);
}

Bytes recurrent_state_per_layer(const specs::ModelSpec& m, double tp) {
  const auto& r = m.recurrent;
  const double conv = r.conv_kernel > 1 ? static_cast<double>(r.conv_channels * (r.conv_kernel - 1)) : 0.0;
  return state_bytes(conv, static_cast<double>(r.state), r.state_fp32) / tp;
}

Bytes indexer_bytes_per_token_per_layer(const specs::ModelSpec& m) {
  if (m.indexer.heads <= 0) return Bytes{};
  const double d = static_cast<double>(m.indexer.head_dim);
  return (d + std::ceil(d / 128.0) * 4.0) * byte;
}

std::int64_t attention_layers(const specs::ModelSpec& m) {
  return m.layers - m.layers_of(specs::LayerAttention::none);
}

namespace {
double layers_of(const specs::ModelSpec& m, specs::LayerAttention k) { return static_cast<double>(m.layers_of(k)); }
}  // namespace

Bytes kv_cache(const specs::ModelSpec& m, const KvCacheInput& in) {
  require_positive_integer(in.batch, "batch");
  require_positive_integer(in.context, "context");
  if (m.layers <= 0) throw InputError("layers", std::to_string(m.layers), "a model with at least one layer");
  const double ctx = in.context.in(one);
  // Encoder-decoder: --context tokens into the encoder and --context generated by the decoder;
  // every decoder layer keeps self-attention K,V of the one and cross-attention K,V of the other.
  if (m.encoder_decoder)
    return in.batch.in(one) * static_cast<double>(m.decoder_layers) * (ctx + ctx) *
           kv_bytes_per_token_per_layer(m, in.kv_dtype);
  if (m.has_layer_kv()) {
    double elements = 0.0;  // Σ over layers of keys kept · K and V elements per key
    for (std::int64_t l = 0; l < m.layers; ++l) elements += m.kept_keys(l, ctx) * static_cast<double>(m.kv_width(l));
    return in.batch.in(one) * elements * dtype_size(in.kv_dtype);
  }
  double keys = 0.0;  // Σ over layers of the keys each keeps (ModelSpec::kept_keys)
  if (m.layer_kinds.empty() && m.sliding_window <= 0 && static_cast<double>(m.layers) * ctx < 9007199254740992.0)
    keys = static_cast<double>(m.layers) * ctx;  // every layer full: the same sum, exact below 2^53 (a sweep's row)
  else
    for (std::int64_t l = 0; l < m.layers; ++l) keys += m.kept_keys(l, ctx);
  return in.batch.in(one) * keys * kv_bytes_per_token_per_layer(m, in.kv_dtype);
}

void kv_cache(const specs::ModelSpec& m, const KvCacheInput& in, ResultSet& out) {
  const Bytes total = kv_cache(m, in);
  const Bytes per_token = kv_bytes_per_token(m, in.kv_dtype);
  const Bytes e = dtype_size(in.kv_dtype);
  const double windowed = layers_of(m, specs::LayerAttention::sliding);
  const double chunked = layers_of(m, specs::LayerAttention::chunked);
  const double full = layers_of(m, specs::LayerAttention::full);
  const Count layers = static_cast<double>(attention_layers(m)) * one;
  if (m.has_layer_kv()) {
    out.item("kv_per_token", "KV cache per token", value(per_token), "Σ_layers 2 · H_kv · d_head · bytes",
             text("{} · {}", per_token / e, e));
    out.item("kv_cache", "KV cache", value(total), "batch · Σ_layers 2 · H_kv · d_head · kept keys · bytes",
             text("{} sequence(s) at context {}", in.batch, in.context));
    out.assume("kv_dtype", text("KV cache stored in {} ({})", dtype_name(in.kv_dtype), e));
    return;
  }
  if (m.encoder_decoder) {
    const double ld = static_cast<double>(m.decoder_layers);
    out.item("kv_per_token", "KV cache per token (of either stream)", value(per_token), "2 · L_dec · H · d_kv · bytes",
             text("2 · {} · {} · {} · {}", ld, static_cast<double>(m.kv_heads), static_cast<double>(m.head_dim), e));
    out.item("kv_cache", "KV cache (decoder self- and cross-attention)", value(total),
             "batch · (ctx_dec + ctx_enc) · per token", text("{} · ({} + {}) · {}", in.batch, in.context, in.context, per_token));
    out.assume("kv_dtype", text("KV cache stored in {} ({})", dtype_name(in.kv_dtype), e));
    out.assume("batch_context", text("encoder-decoder: --context {} tokens into the encoder and {} generated by the "
                                       "decoder; each of its {} decoder layers caches self-attention K,V over the "
                                       "decoder's tokens and cross-attention K,V over the encoder's",
                                       in.context, in.context, ld));
    return;
  }
  if (m.attention == specs::AttentionKind::mla)
    out.item("kv_per_token", "KV cache per token", value(per_token), "L · (d_c + d_rope) · bytes",
             text("{} · ({} + {}) · {}", layers, static_cast<double>(m.mla.kv_lora_rank),
                  static_cast<double>(m.mla.qk_rope_head_dim), e));
  else
    out.item("kv_per_token", "KV cache per token", value(per_token), "2 · L · H_kv · d_head · bytes",
             text("2 · {} · {} · {} · {}", layers, static_cast<double>(m.kv_heads), static_cast<double>(m.head_dim), e));
  const Bytes per_layer = kv_bytes_per_token_per_layer(m, in.kv_dtype);
  const double w = static_cast<double>(m.sliding_window), c = static_cast<double>(m.attention_chunk);
  if (windowed > 0.0 && chunked > 0.0)
    out.item("kv_cache", "KV cache", value(total),
             "batch · (L_full · ctx + L_window · min(ctx, W) + L_chunk · min(ctx, C)) · per layer",
             text("{} · ({} · {} + {} · min({}, {}) + {} · min({}, {})) · {}", in.batch, full, in.context, windowed,
                  in.context, w, chunked, in.context, c, per_layer));
  else if (windowed > 0.0)
    out.item("kv_cache", "KV cache", value(total),
             "batch · (L_full · ctx + L_window · min(ctx, W)) · per layer",
             text("{} · ({} · {} + {} · min({}, {})) · {}", in.batch, full, in.context, windowed, in.context, w,
                  per_layer));
  else if (chunked > 0.0)
    out.item("kv_cache", "KV cache", value(total), "batch · (L_full · ctx + L_chunk · min(ctx, C)) · per layer",
             text("{} · ({} · {} + {} · min({}, {})) · {}", in.batch, full, in.context, chunked, in.context, c,
                  per_layer));
  else
    out.item("kv_cache", "KV cache", value(total), "per token · ctx · batch",
             text("{} · {} · {}", per_token, in.context, in.batch));
  out.assume("kv_dtype", text("KV cache stored in {} ({})", dtype_name(in.kv_dtype), e));
  if (m.attention == specs::AttentionKind::mla)
    out.assume("kv_layout", text("MLA caches the compressed latent and the RoPE key per layer, not full K and V"));
  if (windowed > 0.0)
    out.assume("sliding_window", text("{} layers keep a sliding window of {} tokens", windowed, w));
  if (chunked > 0.0)
    out.assume("attention_chunk", text("{} layers attend within chunks of {} tokens and keep at most that many keys",
                                       chunked, c));
  if (layers_of(m, specs::LayerAttention::none) > 0.0)
    out.assume("attention_free_layers", text("{} layers without attention keep no KV cache",
                                             layers_of(m, specs::LayerAttention::none)));
}

}  // namespace napkin
