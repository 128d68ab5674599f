#include "napkin/memory.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "napkin/check.h"
#include "napkin/error.h"

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
                                  "weights, 2: + gradients, 3: + weights)", static_cast<double>(z), in.dp));
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
    w.scales = groups * (in.zero_points ? 2.0 : 1.0) * dtype_size(in.scale_dtype);
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
                    in.zero_points ? " and zero point" : "", in.group_size));
  if (in.unquantized.in(param) > 0.0)
    out.assume("unquantized", text("{} kept in {} (embeddings, head, norms)", in.unquantized,
                                   dtype_name(in.unquantized_dtype)));
}

// ---- KV cache -------------------------------------------------------------------------------

Bytes kv_bytes_per_token_per_layer(const specs::ModelSpec& m, Dtype kv_dtype, double kv_heads) {
  const Bytes e = dtype_size(kv_dtype);
  if (m.attention == specs::AttentionKind::mla)
    return static_cast<double>(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * e;
  return 2.0 * kv_heads * static_cast<double>(m.head_dim) * e;
}

Bytes kv_bytes_per_token_per_layer(const specs::ModelSpec& m, Dtype kv_dtype) {
  return kv_bytes_per_token_per_layer(m, kv_dtype, static_cast<double>(m.kv_heads));
}

Bytes kv_bytes_per_token(const specs::ModelSpec& m, Dtype kv_dtype) {
  return static_cast<double>(m.layers) * kv_bytes_per_token_per_layer(m, kv_dtype);
}

namespace {
// Layers that keep a sliding window (ModelSpec::is_windowed_layer, the rule the sharding uses).
double windowed_layers(const specs::ModelSpec& m) {
  std::int64_t n = 0;
  for (std::int64_t l = 0; l < m.layers; ++l) n += m.is_windowed_layer(l) ? 1 : 0;
  return static_cast<double>(n);
}
}  // namespace

Bytes kv_cache(const specs::ModelSpec& m, const KvCacheInput& in) {
  require_positive_integer(in.batch, "batch");
  require_positive_integer(in.context, "context");
  if (m.layers <= 0) throw InputError("layers", std::to_string(m.layers), "a model with at least one layer");
  const double ctx = in.context.in(one);
  const double windowed = windowed_layers(m);
  const double full = static_cast<double>(m.layers) - windowed;
  const double kept = windowed > 0.0 ? std::min(ctx, static_cast<double>(m.sliding_window)) : 0.0;
  const Bytes per_layer = kv_bytes_per_token_per_layer(m, in.kv_dtype);
  return in.batch.in(one) * (full * ctx + windowed * kept) * per_layer;
}

void kv_cache(const specs::ModelSpec& m, const KvCacheInput& in, ResultSet& out) {
  const Bytes total = kv_cache(m, in);
  const Bytes per_token = kv_bytes_per_token(m, in.kv_dtype);
  const Bytes e = dtype_size(in.kv_dtype);
  const double windowed = windowed_layers(m);
  const Count layers = static_cast<double>(m.layers) * one;
  if (m.attention == specs::AttentionKind::mla)
    out.item("kv_per_token", "KV cache per token", value(per_token), "L · (d_c + d_rope) · bytes",
             text("{} · ({} + {}) · {}", layers, static_cast<double>(m.mla.kv_lora_rank),
                  static_cast<double>(m.mla.qk_rope_head_dim), e));
  else
    out.item("kv_per_token", "KV cache per token", value(per_token), "2 · L · H_kv · d_head · bytes",
             text("2 · {} · {} · {} · {}", layers, static_cast<double>(m.kv_heads), static_cast<double>(m.head_dim), e));
  if (windowed > 0.0)
    out.item("kv_cache", "KV cache", value(total),
             "batch · (L_full · ctx + L_window · min(ctx, W)) · per layer",
             text("{} · ({} · {} + {} · min({}, {})) · {}", in.batch, static_cast<double>(m.layers) - windowed,
                  in.context, windowed, in.context, static_cast<double>(m.sliding_window),
                  kv_bytes_per_token_per_layer(m, in.kv_dtype)));
  else
    out.item("kv_cache", "KV cache", value(total), "per token · ctx · batch",
             text("{} · {} · {}", per_token, in.context, in.batch));
  out.assume("kv_dtype", text("KV cache stored in {} ({})", dtype_name(in.kv_dtype), e));
  if (m.attention == specs::AttentionKind::mla)
    out.assume("kv_layout", text("MLA caches the compressed latent and the RoPE key per layer, not full K and V"));
  if (windowed > 0.0)
    out.assume("sliding_window", text("{} layers keep a sliding window of {} tokens", windowed,
                                      static_cast<double>(m.sliding_window)));
}

// ---- activations ------------------------------------------------------------------------------

ActivationTerms activation_terms(const ActivationInput& in) {
  require_positive_integer(in.hidden, "hidden");
  require_positive_integer(in.heads, "heads");
  require_non_negative(in.kv_width, "kv_width");
  require_non_negative(in.ffn_width, "ffn_width");
  const double h = in.hidden.in(one);
  const double kv = in.kv_width.in(one) > 0.0 ? in.kv_width.in(one) / h : 1.0;   // h_kv / h
  const double f = in.ffn_width.in(one) > 0.0 ? in.ffn_width.in(one) / h : 4.0;  // f / h
  ActivationTerms t;
  // Korthikanti §4.1: two norm inputs (2·2), the attention and MLP block inputs (2 + 2), and the
  // two 1-byte dropout masks after attention and MLP.
  t.outside = 4.0 + 2.0 + 2.0 + (in.dropout ? 2.0 : 0.0);
  // Q (2), K and V (2·2·h_kv/h), the out-projection input (2), the MLP intermediates: GeLU input
  // and output (2f + 2f), or for a gated MLP the gate and up outputs and their product (3 · 2f).
  t.inside = 2.0 + 4.0 * kv + 2.0 + (in.gated ? 6.0 : 4.0) * f;
  // The softmax output (2 bytes per score), its dropout mask (1) and the dropout output (2).
  t.scores = in.attention_dropout ? 5.0 : 2.0;
  return t;
}

Bytes activations_per_layer(const ActivationInput& in) {
  require_positive_integer(in.seq, "seq");
  require_positive_integer(in.micro_batch, "micro_batch");
  require_positive_integer(in.tp, "tp");
  const ActivationTerms c = activation_terms(in);
  const double s = in.seq.in(one), b = in.micro_batch.in(one), h = in.hidden.in(one);
  const double a = in.heads.in(one), t = in.tp.in(one);
  const double sbh = s * b * h;
  if (in.recompute == Recompute::full) return 2.0 * sbh * byte;
  const bool keep_scores = in.recompute == Recompute::none && !in.flash_attention;
  const double scores = keep_scores ? c.scores * a * s / (h * t) : 0.0;
  // Outside the tensor-parallel region everything is replicated, unless sequence parallelism
  // splits it too (Korthikanti §4.2.2).
  const double linear = in.sequence_parallel ? (c.outside + c.inside) / t : c.outside + c.inside / t;
  return sbh * (linear + scores) * byte;
}

void activations_per_layer(const ActivationInput& in, ResultSet& out) {
  const Bytes a = activations_per_layer(in);
  const ActivationTerms c = activation_terms(in);
  const bool keep_scores = in.recompute == Recompute::none && !in.flash_attention;
  const double all = c.outside + c.inside;
  // c_s · a · s / h, the attention-score multiple before the TP split.
  const double score_term = c.scores * in.heads.in(one) * in.seq.in(one) / in.hidden.in(one);
  if (in.recompute == Recompute::full)
    out.item("activations_per_layer", "activations per layer (detail)", value(a), "2·s·b·h (full recompute)",
             text("2 · {} · {} · {}", in.seq, in.micro_batch, in.hidden));
  else if (in.sequence_parallel && keep_scores)
    out.item("activations_per_layer", "activations per layer (detail)", value(a), "s·b·h·(c/t + c_s·a·s/(h·t))",
             text("{} · {} · {} · ({}/{} + {}/{})", in.seq, in.micro_batch, in.hidden, all, in.tp, score_term, in.tp));
  else if (in.sequence_parallel)
    out.item("activations_per_layer", "activations per layer (detail)", value(a), "s·b·h·c/t",
             text("{} · {} · {} · {}/{}", in.seq, in.micro_batch, in.hidden, all, in.tp));
  else if (keep_scores)
    out.item("activations_per_layer", "activations per layer (detail)", value(a), "s·b·h·(c_o + c_i/t + c_s·a·s/(h·t))",
             text("{} · {} · {} · ({} + {}/{} + {}/{})", in.seq, in.micro_batch, in.hidden, c.outside, c.inside, in.tp,
                  score_term, in.tp));
  else
    out.item("activations_per_layer", "activations per layer (detail)", value(a), "s·b·h·(c_o + c_i/t)",
             text("{} · {} · {} · ({} + {}/{})", in.seq, in.micro_batch, in.hidden, c.outside, c.inside, in.tp));
  out.assume("activation_model",
             text("Korthikanti et al. 2022 §4.1, 16-bit activations: c_o = {} outside TP, c_i = {} inside ({} MLP), "
                  "c_s = {} per a·s/h (a GPT layer: 10, 24, 5)",
                  c.outside, c.inside, in.gated ? "gated" : "GeLU", c.scores));
  if (in.recompute == Recompute::none && in.flash_attention)
    out.assume("flash_attention", text("fused attention (FlashAttention, cuDNN/SDPA; the default of current training "
                                       "stacks): the a·s/h scores are never stored, only the output and softmax "
                                       "statistics"));
  else if (in.recompute == Recompute::none)
    out.assume("flash_attention", text("eager attention (Korthikanti 2022): the softmax output{} of every a·s/h score "
                                       "is stored",
                                       in.attention_dropout ? " and its dropout mask and output" : ""));
}

}  // namespace napkin

// ---- the inference ledger of a model ----------------------------------------------------------

namespace napkin {

namespace {

struct InferenceParts {
  InferenceMemory mem;
  StageShard stage;
  Weights w;
  double chunk_tokens = 0;  // tokens in one forward pass
  double ffn_width = 0;     // MLP intermediate columns per GPU
  double head_rows = 0;     // vocabulary rows per GPU
  double ctx_full = 0, ctx_window = 0;
};

InferenceParts compute_inference(const specs::ModelSpec& m, const InferenceMemoryInput& in) {
  require_positive_integer(in.batch, "batch");
  require_positive_integer(in.context, "context");
  require_positive_integer(in.prefill_chunk, "prefill_chunk");
  require_non_negative(in.cuda_context, "cuda_context");
  if (!(in.fragmentation >= 0.0 && in.fragmentation < 1.0))
    throw InputError("fragmentation", format_plain_number(in.fragmentation), "a fraction in [0, 1)");
  InferenceParts p;
  const ParamCount counted = in.counts != nullptr ? ParamCount{} : count_params(m);
  const ParamCount& c = in.counts != nullptr ? *in.counts : counted;
  const std::vector<StageShard> stages = shard_stages(m, c, in.tp, in.pp);
  const double t = in.tp.in(one);
  const bool keep = !in.quantize_all && dtype_bits(in.weights_dtype) < 16;
  p.ctx_full = in.context.in(one);
  p.ctx_window = m.sliding_window > 0 ? std::min(p.ctx_full, static_cast<double>(m.sliding_window)) : p.ctx_full;

  // Activations of one forward pass: the widest intermediate of a layer is the MLP's (gate and
  // up outputs for a gated MLP) next to the residual stream and the layer input; the same on
  // every stage (counted with the logits everywhere, an upper bound for all but the last).
  p.chunk_tokens = std::min(in.batch.in(one) * in.context.in(one), in.prefill_chunk.in(one));
  double ffn = static_cast<double>(m.ffn);
  if (m.moe.is_moe()) {
    const double expert = static_cast<double>(m.moe.expert_ffn) *
                          static_cast<double>(m.moe.experts_per_token + m.moe.n_shared_experts) +
                          static_cast<double>(m.moe.shared_ffn);
    ffn = std::max(ffn, expert);
  }
  p.ffn_width = (m.ffn_kind == specs::FfnKind::gated ? 2.0 : 1.0) * ffn / t;
  p.head_rows = static_cast<double>(m.vocab) / t;
  const Bytes activations = p.chunk_tokens * (2.0 * static_cast<double>(m.hidden) + p.ffn_width) * 2.0 * byte +
                            in.batch.in(one) * p.head_rows * 4.0 * byte;

  // One GPU of a stage: its weights, the KV cache of its layers and KV heads, the activations,
  // and the reserve, rounded up to whole bytes so that the ledger stays an integer count.
  auto stage_ledger = [&](const StageShard& st, Weights& w) {
    w = inference_weights({.params = std::ceil(st.params) * param,
                           .dtype = in.weights_dtype,
                           .unquantized = keep ? std::ceil(st.kept_params) * param : Params{},
                           .group_size = in.group_size,
                           .scale_dtype = in.scale_dtype,
                           .zero_points = in.zero_points});
    const Bytes per_layer_token = kv_bytes_per_token_per_layer(m, in.kv_dtype, st.kv_heads);
    InferenceMemory r;
    r.weights = w.total();
    r.kv_cache = in.batch.in(one) *
                 (static_cast<double>(st.layers - st.windowed_layers) * p.ctx_full +
                  static_cast<double>(st.windowed_layers) * p.ctx_window) *
                 per_layer_token;
    r.activations = activations;
    r.runtime_reserve =
        std::ceil((in.cuda_context + in.fragmentation * (r.weights + r.kv_cache + r.activations)).in(byte)) * byte;
    return r;
  };

  // The most loaded stage is shown; the total covers every stage's GPUs, TP ranks alike.
  Bytes total{};
  for (const StageShard& st : stages) {
    Weights w;
    const InferenceMemory r = stage_ledger(st, w);
    total += t * r.per_gpu();
    if (&st == &stages.front() || r.per_gpu() > p.mem.per_gpu()) {
      p.mem = r;
      p.stage = st;
      p.w = w;
    }
  }
  p.mem.total = total;
  if (in.capacity) p.mem.fits = p.mem.per_gpu() <= *in.capacity;
  return p;
}

}  // namespace

InferenceMemory inference_memory(const specs::ModelSpec& m, const InferenceMemoryInput& in) {
  return compute_inference(m, in).mem;
}

void inference_memory(const specs::ModelSpec& m, const InferenceMemoryInput& in, ResultSet& out) {
  const InferenceParts p = compute_inference(m, in);
  const InferenceMemory& r = p.mem;
  const bool keep = !in.quantize_all && dtype_bits(in.weights_dtype) < 16;
  const double gpus = in.tp.in(one) * in.pp.in(one);
  out.command = "memory";
  out.input("model", verdict(m.name));
  out.input("weights_dtype", verdict(dtype_name(in.weights_dtype)));
  out.input("kv_dtype", verdict(dtype_name(in.kv_dtype)));
  out.input("batch", value(in.batch));
  out.input("context", value(in.context));
  out.input("tp", value(in.tp));
  out.input("pp", value(in.pp));

  const Params held = std::ceil(p.stage.params) * param;
  if (p.w.scales.in(byte) > 0.0 || (keep && p.stage.kept_params > 0.0))
    out.item("weights", "weights", value(r.weights), "P_q · bits/8 + scales + P_keep · 2 B",
             text("{} · {}/8 + {} + {} · 2 B", held - std::ceil(keep ? p.stage.kept_params : 0.0) * param,
                  dtype_bits(in.weights_dtype), p.w.scales, std::ceil(keep ? p.stage.kept_params : 0.0) * param));
  else
    out.item("weights", "weights", value(r.weights), "P_gpu · bits/8",
             text("{} · {}/8", held, dtype_bits(in.weights_dtype)));
  const Bytes e = dtype_size(in.kv_dtype);
  if (m.attention == specs::AttentionKind::mla)
    out.item("kv_cache", "KV cache", value(r.kv_cache), "L_gpu · (d_c + d_rope) · ctx · batch · bytes",
             text("{} · ({} + {}) · {} · {} · {}", static_cast<double>(p.stage.layers),
                  static_cast<double>(m.mla.kv_lora_rank), static_cast<double>(m.mla.qk_rope_head_dim), in.context,
                  in.batch, e));
  else if (p.stage.windowed_layers > 0)
    out.item("kv_cache", "KV cache", value(r.kv_cache),
             "2 · H_kv · d_head · (L_full · ctx + L_win · min(ctx, W)) · batch · bytes",
             text("2 · {} · {} · ({} · {} + {} · {}) · {} · {}", p.stage.kv_heads, static_cast<double>(m.head_dim),
                  static_cast<double>(p.stage.layers - p.stage.windowed_layers), in.context,
                  static_cast<double>(p.stage.windowed_layers), p.ctx_window, in.batch, e));
  else
    out.item("kv_cache", "KV cache", value(r.kv_cache), "2 · L · H_kv · d_head · ctx · batch · bytes",
             text("2 · {} · {} · {} · {} · {} · {}", static_cast<double>(p.stage.layers), p.stage.kv_heads,
                  static_cast<double>(m.head_dim), in.context, in.batch, e));
  out.item("activations", "activations (transient)", value(r.activations),
           "tokens · (2·D + F_mlp) · 2 B + batch · V · 4 B",
           text("{} · (2 · {} + {}) · 2 B + {} · {} · 4 B", p.chunk_tokens, static_cast<double>(m.hidden), p.ffn_width,
                in.batch, p.head_rows));
  out.item("runtime_reserve", "runtime reserve", value(r.runtime_reserve), "CUDA context + fragmentation · rows above",
           text("{} + {} · {}", in.cuda_context, in.fragmentation, r.weights + r.kv_cache + r.activations));
  out.item("per_gpu", "per GPU", value(r.per_gpu()), "sum of the rows above",
           text("{} + {} + {} + {}", r.weights, r.kv_cache, r.activations, r.runtime_reserve))
      .is_total = true;
  out.item("total", "all GPUs", value(r.total), "Σ over stages · tp", text("{} GPU(s)", gpus));
  // The figures users quote, for the whole model (all layers and KV heads, before sharding).
  const Bytes per_token = kv_bytes_per_token(m, in.kv_dtype);
  if (m.attention == specs::AttentionKind::mla)
    out.item("kv_per_token", "KV cache per token (whole model)", value(per_token), "L · (d_c + d_rope) · bytes",
             text("{} · ({} + {}) · {}", static_cast<double>(m.layers), static_cast<double>(m.mla.kv_lora_rank),
                  static_cast<double>(m.mla.qk_rope_head_dim), e));
  else
    out.item("kv_per_token", "KV cache per token (whole model)", value(per_token), "2 · L · H_kv · d_head · bytes",
             text("2 · {} · {} · {} · {}", static_cast<double>(m.layers), static_cast<double>(m.kv_heads),
                  static_cast<double>(m.head_dim), e));
  const Bytes per_sequence = kv_cache(m, KvCacheInput{.batch = 1.0 * one, .context = in.context, .kv_dtype = in.kv_dtype});
  if (m.sliding_window > 0)
    out.item("kv_per_sequence", "KV cache per sequence (whole model)", value(per_sequence),
             "per token · ctx, windowed layers capped", text("at context {}", in.context));
  else
    out.item("kv_per_sequence", "KV cache per sequence (whole model)", value(per_sequence), "per token · ctx",
             text("{} · {}", per_token, in.context));
  if (in.capacity) fit_items(r.per_gpu(), *in.capacity, out);

  out.assume("weights_dtype", text("weights stored in {} ({} bits per parameter)", dtype_name(in.weights_dtype),
                                   dtype_bits(in.weights_dtype)));
  if (keep)
    out.assume("unquantized", text("embeddings, LM head and norms kept in bf16 ({} per GPU)",
                                   std::ceil(p.stage.kept_params) * param));
  if (in.group_size.in(one) > 0.0)
    out.assume("group_size", text("one {} scale{} per group of {} weights", dtype_name(in.scale_dtype),
                                  in.zero_points ? " and zero point" : "", in.group_size));
  out.assume("batch_context", text("{} sequence(s) of {} tokens each (prompt + generated), all resident",
                                   in.batch, in.context));
  if (m.max_context > 0 && in.context.in(one) > static_cast<double>(m.max_context))
    out.warn(text("--context {} is past the model's maximum context {} (max_position_embeddings): the ledger is "
                  "arithmetic, the model was not trained for it", in.context, static_cast<double>(m.max_context)));
  out.assume("kv_dtype", text("KV cache stored in {} ({} per element)", dtype_name(in.kv_dtype), e));
  if (m.attention == specs::AttentionKind::mla)
    out.assume("kv_layout", text("MLA caches the compressed latent and the RoPE key per layer, not full K and V"));
  if (p.stage.windowed_layers > 0)
    out.assume("sliding_window", text("{} layers keep a sliding window of {} tokens",
                                      static_cast<double>(p.stage.windowed_layers), static_cast<double>(m.sliding_window)));
  out.assume("prefill_chunk", text("a forward pass holds {} tokens at once; scores are not materialised "
                                   "(FlashAttention-style kernels)", p.chunk_tokens));
  out.assume("cuda_context", text("{} per GPU for the CUDA context, libraries and kernels", in.cuda_context));
  out.assume("fragmentation", text("allocator fragmentation {} of weights, KV cache and activations", in.fragmentation));
  if (gpus > 1.0)
    out.assume("tp", text("TP {} splits heads, MLP and vocabulary; norms replicated; PP {} stage(s), the "
                          "most loaded one shown ({} layers)", in.tp, in.pp, static_cast<double>(p.stage.layers)));
}

}  // namespace napkin

// ---- the training ledger of a model -----------------------------------------------------------

namespace napkin {

namespace {

// QLoRA stores the frozen base in 4-bit NF4 with one 8-bit scale per 64 weights plus one fp32
// constant per 256 scales: 4 + 0.127 bits per parameter (Dettmers et al. 2023, "QLoRA", §3,
// Double Quantization: "from 0.5 bits per parameter to 0.127 bits").
constexpr double kQloraBitsPerParam = 4.0 + 0.127;

std::int64_t lora_layer_params(const specs::ModelSpec& m, std::int64_t r, bool all_linear, bool moe_layer) {
  const std::int64_t d = m.hidden, q = m.heads * m.head_dim, kv = m.kv_heads * m.head_dim;
  std::int64_t p = r * ((d + q) + (d + kv) + (d + kv) + (q + d));  // q, k, v, o
  if (all_linear && !moe_layer && m.ffn > 0) {
    const std::int64_t mats = m.ffn_kind == specs::FfnKind::gated ? 3 : 2;  // gate, up, down
    p += r * mats * (d + m.ffn);
  }
  return p;
}

struct TrainingParts {
  TrainingMemory mem;
  StageShard stage;
  ModelStatesInput states;          // the trainable parameters outside the routed experts
  ModelStatesInput expert_states;   // the routed experts' (params 0 without EP/MoE)
  Bytes frozen{};  // LoRA: the frozen base weights of the shown stage
  Bytes per_layer{};
  double in_flight = 1;
  Bytes logits{};
  double largest_module = 0;  // parameters of the largest module per GPU (ZeRO-3 gather)
  ActivationInput act;
};

// The widest single module (one weight matrix, as DeepSpeed walks modules) one GPU gathers
// under ZeRO-3: the embedding or head, an attention projection, an MLP or expert matrix.
double largest_module_params(const specs::ModelSpec& m, double t) {
  const double d = static_cast<double>(m.hidden);
  double widest = std::max({static_cast<double>(m.vocab) * d,
                            static_cast<double>(m.heads * m.head_dim) * d,
                            static_cast<double>(m.ffn) * d});
  if (m.moe.is_moe())
    widest = std::max({widest, static_cast<double>(m.moe.expert_ffn) * d, static_cast<double>(m.moe.shared_ffn) * d});
  return std::ceil(widest / t);
}

// The activation shape of a model's layer: K/V width, the MLP intermediates one token passes
// through (for MoE: its k routed experts and the shared ones), gated or not.
ActivationInput activation_input(const specs::ModelSpec& m, const TrainingMemoryInput& in) {
  double ffn = static_cast<double>(m.ffn);
  if (m.moe.is_moe())
    ffn = std::max(ffn, static_cast<double>(m.moe.expert_ffn) *
                            static_cast<double>(m.moe.experts_per_token + m.moe.n_shared_experts) +
                        static_cast<double>(m.moe.shared_ffn));
  const double kv = m.attention == specs::AttentionKind::mla
                        ? static_cast<double>(m.heads * m.head_dim)
                        : static_cast<double>(m.kv_heads * m.head_dim);
  return ActivationInput{.seq = in.seq, .micro_batch = in.micro_batch, .hidden = static_cast<double>(m.hidden) * one,
                         .heads = static_cast<double>(m.heads) * one, .tp = in.tp,
                         .sequence_parallel = in.sequence_parallel, .recompute = in.recompute,
                         .flash_attention = in.flash_attention, .kv_width = kv * one, .ffn_width = ffn * one,
                         .gated = m.ffn_kind == specs::FfnKind::gated,
                         .dropout = in.dropout ? *in.dropout > 0.0 : m.hidden_dropout > 0.0,
                         .attention_dropout = in.dropout ? *in.dropout > 0.0 : m.attention_dropout > 0.0};
}

TrainingParts compute_training(const specs::ModelSpec& m, const TrainingMemoryInput& in) {
  const bool lora = in.lora_rank.in(one) > 0.0;
  if (lora) require_positive_integer(in.lora_rank, "lora_rank");
  if (lora && in.lora_rank.in(one) > static_cast<double>(m.hidden))
    throw InputError("--lora-rank", format_plain_number(in.lora_rank.in(one)),
                     "a rank at most the hidden size " + std::to_string(m.hidden) + " (a low-rank adapter)");
  if (in.qlora && !lora) throw InputError("--qlora", "(given)", "--lora-rank (QLoRA trains LoRA adapters)");
  if (lora && m.attention == specs::AttentionKind::mla)
    throw InputError("--lora-rank", format_plain_number(in.lora_rank.in(one)),
                     "a model without MLA attention (LoRA on MLA projections is not modelled yet)");
  require_positive_integer(in.micro_batch, "micro_batch");
  require_positive_integer(in.seq, "seq");
  require_positive_integer(in.ep, "ep");
  require_positive_integer(in.states.dp, "dp");
  require_non_negative(in.cuda_context, "cuda_context");
  if (!(in.fragmentation >= 0.0 && in.fragmentation < 1.0))
    throw InputError("fragmentation", format_plain_number(in.fragmentation), "a fraction in [0, 1)");
  if (in.dropout && !(*in.dropout >= 0.0 && *in.dropout < 1.0))
    throw InputError("dropout", format_plain_number(*in.dropout), "a dropout probability in [0, 1)");
  const double t = in.tp.in(one), pp = in.pp.in(one), dp = in.states.dp.in(one), ep = in.ep.in(one);
  if (ep > 1.0 && !m.moe.is_moe())
    throw InputError("--ep", format_plain_number(ep), "1 (expert parallelism needs a mixture-of-experts model)");
  if (std::fmod(dp, ep) != 0.0)
    throw InputError("--ep", format_plain_number(ep),
                     "a divisor of --dp " + format_plain_number(dp) + " (expert-parallel ranks are data-parallel ranks)");
  if (in.offload_params && in.states.zero_stage != 3)
    throw InputError("--offload-params", "(with --zero " + std::to_string(in.states.zero_stage) + ")",
                     "--zero 3 (parameter offload partitions the weights)");
  const bool offload_states = in.offload_optimizer || in.offload_params;
  const ParamCount counted = in.counts != nullptr ? ParamCount{} : count_params(m);
  const ParamCount& c = in.counts != nullptr ? *in.counts : counted;
  const std::vector<StageShard> stages = shard_stages(m, c, in.tp, in.pp, in.ep);
  const ActivationInput act = activation_input(m, in);
  const Bytes per_layer = activations_per_layer(act);
  // The cross-entropy input: fp32 logits of every position, vocabulary split over TP.
  const Bytes logits = in.seq.in(one) * in.micro_batch.in(one) * std::ceil(static_cast<double>(m.vocab) / t) * 4.0 * byte;
  const double largest = largest_module_params(m, t);

  TrainingParts best;
  Bytes total{};
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const StageShard& st = stages[i];
    ModelStatesInput s = in.states;
    ModelStatesInput se = in.states;  // routed experts: ZeRO shards them over the dp / ep ranks holding them
    se.dp = dp / ep * one;
    s.params = std::ceil(st.params - st.expert_params) * param;
    se.params = std::ceil(st.expert_params) * param;
    Bytes frozen{};
    if (lora) {
      // Adapters are the trainable parameters; the base is frozen weights only.
      double adapters = 0;
      for (std::int64_t l = st.first_layer; l < st.first_layer + st.layers; ++l)
        adapters += static_cast<double>(lora_layer_params(m, static_cast<std::int64_t>(in.lora_rank.in(one)),
                                                          in.lora_all_linear, m.is_moe_layer(l)));
      s.params = std::ceil(adapters / t) * param;
      se.params = Params{};
      const double base_bytes = in.qlora ? 0.0 : state_bytes(in.states).weights.in(byte / param);
      const double frozen_bytes = in.qlora ? (std::ceil(st.params) - std::ceil(st.kept_params)) * kQloraBitsPerParam / 8.0 +
                                                 std::ceil(st.kept_params) * 2.0
                                           : std::ceil(st.params) * base_bytes;
      frozen = std::ceil(in.states.zero_stage >= 3 ? frozen_bytes / dp : frozen_bytes) * byte;
    }
    ModelStates ms = s.params.in(param) > 0.0 ? model_states(s) : ModelStates{};
    if (se.params.in(param) > 0.0) {
      const ModelStates mse = model_states(se);
      ms.weights += mse.weights;
      ms.gradients += mse.gradients;
      ms.master_weights += mse.master_weights;
      ms.optimizer_states += mse.optimizer_states;
    }
    TrainingMemory r;
    r.weights = ms.weights + frozen;
    r.gradients = ms.gradients;
    r.master_weights = ms.master_weights;
    r.optimizer_states = ms.optimizer_states;
    if (in.states.zero_stage == 3 && dp > 1.0)
      r.gathered_params = 4.0 * largest * byte;
    const double in_flight = pp - static_cast<double>(i);  // 1F1B warm-up depth of stage i
    r.activations = static_cast<double>(st.layers) * in_flight * per_layer + (st.has_head ? logits : Bytes{});
    if (offload_states) {
      // ZeRO-Offload (Ren et al. 2021, §4.1): gradients, fp32 master weights and optimizer states
      // go to CPU memory and the update runs there; ZeRO-Infinity parameter offload moves the
      // 16-bit weights as well, leaving the gathered working set on the GPU.
      r.cpu_memory = r.gradients + r.master_weights + r.optimizer_states + (in.offload_params ? r.weights : Bytes{});
      r.gradients = Bytes{};
      r.master_weights = Bytes{};
      r.optimizer_states = Bytes{};
      if (in.offload_params) {
        r.weights = Bytes{};
        r.gathered_params = 4.0 * largest * byte;
      }
    }
    const Bytes rows = r.weights + r.gradients + r.master_weights + r.optimizer_states + r.gathered_params + r.activations;
    r.runtime_reserve = std::ceil((in.cuda_context + in.fragmentation * rows).in(byte)) * byte;
    r.stage = static_cast<std::int64_t>(i);
    total += t * dp * r.per_gpu();
    if (i == 0 || r.per_gpu() > best.mem.per_gpu()) {
      best.mem = r;
      best.stage = st;
      best.states = s;
      best.expert_states = se;
      best.frozen = frozen;
      best.in_flight = in_flight;
    }
  }
  best.per_layer = per_layer;
  best.logits = best.stage.has_head ? logits : Bytes{};
  best.largest_module = largest;
  best.act = act;
  best.mem.total = total;
  if (in.capacity) best.mem.fits = best.mem.per_gpu() <= *in.capacity;
  return best;
}

}  // namespace

TrainingMemory training_memory(const specs::ModelSpec& m, const TrainingMemoryInput& in) {
  return compute_training(m, in).mem;
}

std::int64_t lora_params(const specs::ModelSpec& m, std::int64_t rank, bool all_linear) {
  std::int64_t p = 0;
  for (std::int64_t l = 0; l < m.layers; ++l) p += lora_layer_params(m, rank, all_linear, m.is_moe_layer(l));
  return p;
}

// Adds the routed experts' share to the model-state rows model_states() wrote for the rest: under
// EP their states shard over dp / ep ranks, not dp.
void add_expert_states(const ModelStatesInput& experts, ResultSet& out) {
  const ModelStates e = model_states(experts);
  const std::pair<const char*, Bytes> rows[] = {{"weights", e.weights}, {"gradients", e.gradients},
                                                {"master_weights", e.master_weights},
                                                {"optimizer_states", e.optimizer_states}};
  for (const auto& [key, extra] : rows)
    for (std::size_t i = 0; i < out.items.size(); ++i)
      if (out.items[i].key == key) {
        const Item old = out.items[i];
        const Bytes rest = old.value.num * byte;
        out.item(old.key, old.label, value(rest + extra), "dense part + routed experts' part (dp/ep shards)",
                 text("{} + {} (routed experts: {} per GPU, ZeRO over dp/ep = {})", rest, extra, experts.params, experts.dp));
        out.items[i] = out.items.back();
        out.items.pop_back();
        break;
      }
}

void training_memory(const specs::ModelSpec& m, const TrainingMemoryInput& in, ResultSet& out) {
  const TrainingParts p = compute_training(m, in);
  const TrainingMemory& r = p.mem;
  const bool offload_states = in.offload_optimizer || in.offload_params;
  out.command = "memory";
  out.input("model", verdict(m.name));
  out.input("train", boolean(true));
  out.input("micro_batch", value(in.micro_batch));
  out.input("seq", value(in.seq));
  out.input("dp", value(in.states.dp));
  out.input("tp", value(in.tp));
  out.input("pp", value(in.pp));
  if (in.ep.in(one) > 1.0) out.input("ep", value(in.ep));
  out.input("zero", value(static_cast<double>(in.states.zero_stage)));
  const bool lora = in.lora_rank.in(one) > 0.0;
  if (lora) {
    out.input("lora_rank", value(in.lora_rank));
    out.input("qlora", boolean(in.qlora));
    const Params all = std::ceil(p.stage.params) * param, kept = std::ceil(p.stage.kept_params) * param;
    const Bytes adapter = r.weights - p.frozen;
    if (in.qlora)
      out.item("weights", "weights (frozen base + adapters)", value(r.weights),
               "(P − P_keep) · 4.127 bits/8 + P_keep · 2 B + adapters",
               text("({} − {}) · 4.127/8 + {} · 2 B + {}", all, kept, kept, adapter));
    else
      out.item("weights", "weights (frozen base + adapters)", value(r.weights), "P · bytes + adapters",
               text("{} · {} + {}", all, state_bytes(in.states).weights, adapter));
    // The gradient, master-weight and optimizer rows are the adapters' own model states.
    const std::size_t before = out.items.size();
    model_states(p.states, out);
    out.items.erase(out.items.begin() + static_cast<std::ptrdiff_t>(before));  // its weights row: shown above
  } else {
    model_states(p.states, out);
    if (p.expert_states.params.in(param) > 0.0) add_expert_states(p.expert_states, out);
  }
  if (r.gathered_params.in(byte) > 0.0)
    out.item("gathered_params", "ZeRO-3 gathered working set", value(r.gathered_params),
             "4 B · largest module's params per GPU", text("4 B · {}", p.largest_module * param));
  if (p.stage.has_head)
    out.item("activations", "activations saved for backward", value(r.activations),
             "L_stage · in-flight micro-batches · per layer + logits",
             text("{} · {} · {} + {}", static_cast<double>(p.stage.layers), p.in_flight, p.per_layer, p.logits));
  else
    out.item("activations", "activations saved for backward", value(r.activations),
             "L_stage · in-flight micro-batches · per layer",
             text("{} · {} · {}", static_cast<double>(p.stage.layers), p.in_flight, p.per_layer));
  out.item("runtime_reserve", "runtime reserve", value(r.runtime_reserve), "CUDA context + fragmentation · rows above",
           text("{} + {} · {}", in.cuda_context, in.fragmentation,
                r.weights + r.gradients + r.master_weights + r.optimizer_states + r.gathered_params + r.activations));
  if (lora) {
    out.assume("lora", text("LoRA rank {} on {}: {} of trainable adapters per GPU; the base is frozen "
                            "(no gradients or optimizer states)",
                            in.lora_rank, in.lora_all_linear ? "every linear layer" : "q, k, v, o", p.states.params));
    if (in.qlora)
      out.assume("qlora", text("QLoRA: frozen base in NF4 with double-quantized scales, 4.127 bits per parameter "
                               "(Dettmers et al. 2023, §3); embeddings, head and norms in bf16"));
  }
  if (offload_states)
    for (Item& it : out.items)
      if (it.key == "gradients" || it.key == "master_weights" || it.key == "optimizer_states" ||
          (in.offload_params && it.key == "weights")) {
        it.value = value(Bytes{});
        it.symbolic = "offloaded to CPU memory (see cpu_memory)";
        it.substituted = TextRef{};
      }
  if (r.gathered_params.in(byte) > 0.0)
    out.item("per_gpu", "per GPU", value(r.per_gpu()), "sum of the rows above",
             text("{} + {} + {} + {} + {} + {} + {}", r.weights, r.gradients, r.master_weights, r.optimizer_states,
                  r.gathered_params, r.activations, r.runtime_reserve))
        .is_total = true;
  else
    out.item("per_gpu", "per GPU", value(r.per_gpu()), "sum of the rows above",
             text("{} + {} + {} + {} + {} + {}", r.weights, r.gradients, r.master_weights, r.optimizer_states,
                  r.activations, r.runtime_reserve))
        .is_total = true;
  out.item("total", "all GPUs", value(r.total), "Σ over stages · tp · dp",
           text("{} GPU(s)", in.tp.in(one) * in.pp.in(one) * in.states.dp.in(one)));
  if (offload_states)
    out.item("cpu_memory", "CPU memory per GPU rank (offloaded)", value(r.cpu_memory),
             in.offload_params ? "weights + gradients + master weights + optimizer states"
                               : "gradients + master weights + optimizer states",
             text("{} moved off the GPU", r.cpu_memory));
  if (in.capacity) fit_items(r.per_gpu(), *in.capacity, out);
  if (in.offload_params)
    out.assume("offload", text("ZeRO-Infinity parameter offload: 16-bit weights, gradients, fp32 master weights and "
                               "optimizer states in CPU memory; the GPU holds the gathered working set"));
  else if (in.offload_optimizer)
    out.assume("offload", text("ZeRO-Offload (Ren et al. 2021, §4.1): gradients, fp32 master weights and optimizer "
                               "states in CPU memory, the update runs on the CPU; gradient buckets in flight not "
                               "counted"));
  if (r.gathered_params.in(byte) > 0.0)
    out.assume("zero3_gather", text("ZeRO-3 gathers a module's 16-bit weights and gradients in full: 4 B × the largest "
                                    "module, {} (DeepSpeed's ZeRO-3 estimator); prefetch not counted",
                                    p.largest_module * param));
  if (in.ep.in(one) > 1.0)
    out.assume("ep", text("EP {}: routed experts split over {} ranks taken from the {} data-parallel ranks, each "
                          "expert's matrices also split over TP; shared experts and routers replicated",
                          in.ep, in.ep, in.states.dp));
  activations_per_layer(p.act, out);
  switch (in.recompute) {
    case Recompute::none: out.assume("recompute", text("no activation recomputation")); break;
    case Recompute::selective:
      out.assume("recompute", text("selective recomputation: attention scores recomputed, not stored"));
      break;
    case Recompute::full: out.assume("recompute", text("full recomputation: only each layer's input is kept")); break;
  }
  if (in.dropout && *in.dropout > 0.0)
    out.assume("dropout", text("dropout {} (given): 1-byte masks after attention and MLP, and the mask and output of "
                               "the attention probabilities", *in.dropout));
  else if (in.dropout)
    out.assume("dropout", text("no dropout (given): no masks"));
  else if (p.act.dropout || p.act.attention_dropout)
    out.assume("dropout", text("dropout from the model's config: attention {}, hidden {} (1-byte masks and dropout "
                               "outputs, as in Korthikanti's GPT layers)",
                               m.attention_dropout, m.hidden_dropout));
  else
    out.assume("dropout", text("no dropout: the model's config has attention and hidden dropout 0 (or none), as "
                               "Llama, Qwen and Mistral configs do"));
  out.assume("pipeline_schedule", text("1F1B schedule: stage {} of {} holds {} micro-batch(es) in flight",
                                       static_cast<double>(r.stage), in.pp, p.in_flight));
  out.assume("activation_shape",
             m.moe.is_moe()
                 ? text("MoE layers: each token's k routed and shared experts' intermediates kept; token dispatch "
                        "buffers and router logits not counted; embedding-dropout activations not counted")
                 : text("embedding-dropout activations and the final norm's input not counted"));
  if (in.states.zero_stage > 0 && in.states.dp.in(one) == 1.0)
    out.warn(text("--zero {} with --dp 1 shards over one rank: nothing is saved", static_cast<double>(in.states.zero_stage)));
  out.assume("cuda_context", text("{} per GPU for the CUDA context, libraries and kernels", in.cuda_context));
  out.assume("fragmentation", text("allocator fragmentation {} of the rows above", in.fragmentation));
}

}  // namespace napkin

// ---- the solver -------------------------------------------------------------------------------

namespace napkin {

namespace {

bool fits_with(const specs::ModelSpec& m, InferenceMemoryInput in, SolveFor what, double x) {
  if (what == SolveFor::max_batch) in.batch = x * one;
  if (what == SolveFor::max_context) in.context = x * one;
  if (what == SolveFor::min_gpus) in.tp = x * one;
  return inference_memory(m, in).per_gpu() <= *in.capacity;
}

// TP degrees shard_stages accepts for this model, ascending.
std::vector<std::int64_t> valid_tp(const specs::ModelSpec& m) {
  std::vector<std::int64_t> out;
  for (std::int64_t t = 1; t <= m.heads; ++t) {
    if (m.heads % t != 0) continue;
    if (m.attention != specs::AttentionKind::mla && m.kv_heads > 0 &&
        !(m.kv_heads >= t ? m.kv_heads % t == 0 : t % m.kv_heads == 0))
      continue;
    out.push_back(t);
  }
  return out;
}

// Per-GPU memory never falls as batch or context grows (KV cache, activations and the reserve
// are non-decreasing in both), so the largest fitting value is found by doubling, then bisection.
// The context is bounded by the model's maximum (a model whose layers all keep a sliding window
// would otherwise fit any context).
constexpr std::int64_t kSearchCap = std::int64_t{1} << 40;  // far past any real batch

std::int64_t search_limit(const specs::ModelSpec& m, SolveFor what) {
  return what == SolveFor::max_context && m.max_context > 0 ? m.max_context : kSearchCap;
}

// The largest x in [1, limit] with fits(x), for fits monotone (true, then false); 0 when even
// 1 does not fit. Doubling, then bisection.
template <class Fits>
std::int64_t largest_fitting(std::int64_t limit, Fits fits) {
  if (!fits(1.0)) return 0;
  if (fits(static_cast<double>(limit))) return limit;
  std::int64_t lo = 1, hi = 2;
  while (hi < limit && fits(static_cast<double>(hi))) {
    lo = hi;
    hi *= 2;
  }
  hi = std::min(hi, limit);
  while (hi - lo > 1) {  // invariant: lo fits, hi does not
    const std::int64_t mid = lo + (hi - lo) / 2;
    (fits(static_cast<double>(mid)) ? lo : hi) = mid;
  }
  return lo;
}

std::int64_t largest_fitting(const specs::ModelSpec& m, const InferenceMemoryInput& in, SolveFor what) {
  return largest_fitting(search_limit(m, what), [&](double x) { return fits_with(m, in, what, x); });
}

// The row of a "largest value that fits" answer: `what` a fits and a + 1 does not, the model's
// maximum context fits, or not even 1 fits.
void largest_answer(ResultSet& out, std::string_view key, std::string_view label, std::string_view symbolic,
                    std::string_view what, double a, bool at_max) {
  if (at_max)
    out.item(key, label, value(a), symbolic, text("the model's maximum context {} fits", a));
  else if (a >= static_cast<double>(kSearchCap))
    out.item(key, label, value(a), symbolic, text("{} {} fits: the search stops at 2^40", what, a));
  else if (a > 0.0)
    out.item(key, label, value(a), symbolic, text("{} {} fits, {} does not", what, a, a + 1.0));
  else
    out.item(key, label, value(a), symbolic, text("even {} 1 does not fit", what));
}

}  // namespace

std::int64_t solve_inference(const specs::ModelSpec& m, const InferenceMemoryInput& in, SolveFor what) {
  if (!in.capacity) throw InputError("--gpu-memory", "(missing)", "a GPU memory capacity for the solver");
  require_positive(*in.capacity, "gpu_memory");
  if (what == SolveFor::min_gpus) {
    for (std::int64_t t : valid_tp(m))
      if (fits_with(m, in, what, static_cast<double>(t))) return t;
    return 0;
  }
  return largest_fitting(m, in, what);
}

void solve_inference(const specs::ModelSpec& m, const InferenceMemoryInput& in, SolveFor what, ResultSet& out) {
  const std::int64_t answer = solve_inference(m, in, what);
  InferenceMemoryInput at = in;
  const double shown = static_cast<double>(std::max<std::int64_t>(answer, 1));
  if (what == SolveFor::max_batch) at.batch = shown * one;
  if (what == SolveFor::max_context) at.context = shown * one;
  if (what == SolveFor::min_gpus) at.tp = (answer > 0 ? static_cast<double>(answer) : in.tp.in(one)) * one;
  inference_memory(m, at, out);
  const double a = static_cast<double>(answer);
  switch (what) {
    case SolveFor::max_batch:
      largest_answer(out, "max_batch", "largest batch that fits", "max b: per GPU(b) ≤ capacity", "batch", a, false);
      break;
    case SolveFor::max_context:
      largest_answer(out, "max_context", "longest context that fits", "max ctx: per GPU(ctx) ≤ capacity", "context", a,
                     answer > 0 && answer == search_limit(m, what));
      break;
    case SolveFor::min_gpus: {
      const std::vector<std::int64_t> tps = valid_tp(m);
      if (answer > 0) {
        const auto it = std::find(tps.begin(), tps.end(), answer);
        if (it != tps.begin())
          out.item("min_gpus", "fewest GPUs (TP degree) that fit", value(a * in.pp.in(one)), "min tp: per GPU(tp) ≤ capacity",
                   text("TP {} fits, TP {} does not (PP {})", a, static_cast<double>(*(it - 1)), in.pp));
        else
          out.item("min_gpus", "fewest GPUs (TP degree) that fit", value(a * in.pp.in(one)), "min tp: per GPU(tp) ≤ capacity",
                   text("TP 1 fits (PP {})", in.pp));
      } else {
        out.item("min_gpus", "fewest GPUs (TP degree) that fit", value(0.0), "min tp: per GPU(tp) ≤ capacity",
                 text("no TP degree up to {} fits (PP {})", static_cast<double>(tps.back()), in.pp));
      }
      break;
    }
  }
  out.assume("solver", text("solved on the per-GPU ledger above; TP degrees tried are divisors of the heads "
                            "compatible with the KV heads"));
}

}  // namespace napkin

// ---- the training solver ----------------------------------------------------------------------

namespace napkin {

namespace {

constexpr std::int64_t kMaxDp = std::int64_t{1} << 20;  // data-parallel ranks searched

TrainingMemoryInput with_value(TrainingMemoryInput in, TrainSolveFor what, double x, bool by_dp) {
  if (what == TrainSolveFor::max_micro_batch) in.micro_batch = x * one;
  if (what == TrainSolveFor::max_seq) in.seq = x * one;
  if (what == TrainSolveFor::min_gpus) {
    if (by_dp)
      in.states.dp = x * in.ep.in(one) * one;  // dp as a multiple of ep
    else
      in.tp = x * one;
  }
  return in;
}

bool train_fits(const specs::ModelSpec& m, const TrainingMemoryInput& in, TrainSolveFor what, double x, bool by_dp) {
  return training_memory(m, with_value(in, what, x, by_dp)).per_gpu() <= *in.capacity;
}

// ZeRO shards the states over dp, so more data-parallel ranks shrink the per-GPU ledger; without
// ZeRO only a higher TP degree does.
bool solve_by_dp(const TrainingMemoryInput& in) { return in.states.zero_stage >= 1; }

}  // namespace

std::int64_t solve_training(const specs::ModelSpec& m, const TrainingMemoryInput& in, TrainSolveFor what) {
  if (!in.capacity) throw InputError("--gpu-memory", "(missing)", "a GPU memory capacity for the solver");
  require_positive(*in.capacity, "gpu_memory");
  const bool by_dp = solve_by_dp(in);
  if (what == TrainSolveFor::min_gpus) {
    if (!by_dp) {
      for (std::int64_t t : valid_tp(m))
        if (train_fits(m, in, what, static_cast<double>(t), false)) return t;
      return 0;
    }
    // Per-GPU memory does not rise with dp: find the smallest multiple of ep that fits.
    const std::int64_t limit = kMaxDp;
    if (!train_fits(m, in, what, static_cast<double>(limit), true)) return 0;
    std::int64_t lo = 0, hi = limit;  // invariant: hi fits, lo does not (0: none tried)
    if (train_fits(m, in, what, 1.0, true)) return 1;
    lo = 1;
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      (train_fits(m, in, what, static_cast<double>(mid), true) ? hi : lo) = mid;
    }
    return hi;
  }
  const std::int64_t limit = what == TrainSolveFor::max_seq && m.max_context > 0 ? m.max_context : kSearchCap;
  return largest_fitting(limit, [&](double x) { return train_fits(m, in, what, x, false); });
}

void solve_training(const specs::ModelSpec& m, const TrainingMemoryInput& in, TrainSolveFor what, ResultSet& out) {
  const std::int64_t answer = solve_training(m, in, what);
  const bool by_dp = solve_by_dp(in);
  const double a = static_cast<double>(answer);
  const double shown = answer > 0 ? a : (what == TrainSolveFor::min_gpus ? (by_dp ? 1.0 : in.tp.in(one)) : 1.0);
  const TrainingMemoryInput at = with_value(in, what, what == TrainSolveFor::min_gpus && !by_dp && answer == 0
                                                          ? in.tp.in(one) : shown, by_dp);
  training_memory(m, at, out);
  switch (what) {
    case TrainSolveFor::max_micro_batch:
      largest_answer(out, "max_micro_batch", "largest micro-batch that fits", "max b: per GPU(b) ≤ capacity",
                     "micro-batch", a, false);
      break;
    case TrainSolveFor::max_seq:
      largest_answer(out, "max_seq", "longest sequence that fits", "max s: per GPU(s) ≤ capacity", "sequence", a,
                     answer > 0 && m.max_context > 0 && answer == m.max_context);
      break;
    case TrainSolveFor::min_gpus: {
      const double tp = in.tp.in(one), pp = in.pp.in(one), ep = in.ep.in(one);
      if (by_dp) {
        const double dp = a * ep;
        if (answer == 0)
          out.item("min_gpus", "fewest GPUs that fit", value(0.0), "min tp·pp·dp: per GPU(dp) ≤ capacity",
                   text("no data-parallel degree up to {} fits at TP {} and PP {} (activations and the unsharded "
                        "rows do not shrink with dp)", static_cast<double>(kMaxDp) * ep, in.tp, in.pp));
        else if (answer == 1)
          out.item("min_gpus", "fewest GPUs that fit", value(tp * pp * dp), "min tp·pp·dp: per GPU(dp) ≤ capacity",
                   text("dp {} fits (TP {}, PP {})", dp, in.tp, in.pp));
        else
          out.item("min_gpus", "fewest GPUs that fit", value(tp * pp * dp), "min tp·pp·dp: per GPU(dp) ≤ capacity",
                   text("dp {} fits, dp {} does not (TP {}, PP {})", dp, dp - ep, in.tp, in.pp));
      } else {
        const std::vector<std::int64_t> tps = valid_tp(m);
        const auto it = std::find(tps.begin(), tps.end(), answer);
        if (answer == 0)
          out.item("min_gpus", "fewest GPUs that fit", value(0.0), "min tp: per GPU(tp) ≤ capacity",
                   text("no TP degree up to {} fits (PP {}, no ZeRO: dp does not shrink the ledger)",
                        static_cast<double>(tps.back()), in.pp));
        else if (it == tps.begin())
          out.item("min_gpus", "fewest GPUs that fit", value(a * pp * in.states.dp.in(one)),
                   "min tp: per GPU(tp) ≤ capacity", text("TP 1 fits (PP {}, dp {})", in.pp, in.states.dp));
        else
          out.item("min_gpus", "fewest GPUs that fit", value(a * pp * in.states.dp.in(one)),
                   "min tp: per GPU(tp) ≤ capacity",
                   text("TP {} fits, TP {} does not (PP {}, dp {})", a, static_cast<double>(*(it - 1)), in.pp,
                        in.states.dp));
      }
      break;
    }
  }
  if (by_dp && what == TrainSolveFor::min_gpus)
    out.assume("solver", text("solved on the per-GPU ledger above: ZeRO-{} shards over dp, searched in multiples of "
                              "EP {} at the given TP and PP",
                              static_cast<double>(in.states.zero_stage), in.ep));
  else
    out.assume("solver", text("solved on the per-GPU ledger above; TP degrees tried are divisors of the heads "
                              "compatible with the KV heads"));
}

}  // namespace napkin
