// The inference ledger of a model (course notes 7.4): weights, KV cache, transient activations and
// the runtime reserve of the most loaded GPU. See napkin/memory/ledgers.h.
#include "napkin/memory/ledgers.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/model/context_limit.h"
#include "napkin/model/parallel.h"
#include "napkin/model/tensor_table.h"
#include "napkin/model/params.h"

// ---- the inference ledger of a model ----------------------------------------------------------

namespace napkin {

using namespace units;

namespace {

struct InferenceParts {
  InferenceParts() {}  // not `= default`: each field set by one store, not a `rep stos` over the whole (a sweep row)
  InferenceMemory mem;
  StageShard stage;
  Weights w;
  double chunk_tokens = 0;  // tokens in one forward pass
  double ffn_width = 0;     // MLP intermediate columns per GPU
  double head_rows = 0;     // vocabulary rows per GPU
  double ctx_full = 0, ctx_window = 0, ctx_chunk = 0;
  std::int64_t counts_total = 0;  // the model's parameter count
};

// An encoder-decoder (T5) on one GPU: all its parameters, and the decoder's layers as the ones
// that cache (encoder_decoder_kv_streams below). Sharding its two stacks over TP or PP is not
// modelled, so tp and pp other than 1 are refused.
std::vector<StageShard> encoder_decoder_stage(const specs::ModelSpec& m, const ParamCount& c,
                                              const InferenceMemoryInput& in) {
  require_positive_integer(in.tp, "tp");
  require_positive_integer(in.pp, "pp");
  for (const auto& [flag, v] : {std::pair{"--tp", in.tp.in(one)}, std::pair{"--pp", in.pp.in(one)}})
    if (v != 1.0)
      throw InputError(flag, format_plain_number(v),
                       "1 for the encoder-decoder '" + m.name + "' (sharding its encoder and decoder is not modelled)");
  StageShard st;
  st.layers = m.decoder_layers;
  st.params = static_cast<double>(c.total);
  st.kept_params = static_cast<double>(c.group(ParamGroup::embedding) + c.group(ParamGroup::head) +
                                       c.group(ParamGroup::norm));
  st.kv_heads = static_cast<double>(m.kv_heads);
  st.has_embedding = st.has_head = true;
  return {st};
}

// Token streams each caching layer keeps K,V for: an encoder-decoder's decoder layers cache their
// own tokens (self-attention) and the encoder's (cross-attention), --context tokens each.
double kv_streams(const specs::ModelSpec& m) { return m.encoder_decoder ? 2.0 : 1.0; }


// The weight matrices of the routed experts a stage holds, without their biases: what MXFP4
// quantizes. One expert is c.moe_layer.routed_one parameters, of which 3·D·F_e (gated) or
// 2·D·F_e are matrices; the stage holds st.expert_params / routed_one whole experts (an exact
// integer quotient whenever TP and EP divide evenly).
double routed_expert_matrices(const specs::ModelSpec& m, const ParamCount& c, const StageShard& st) {
  if (!m.moe.is_moe() || c.moe_layer.routed_one <= 0) return 0.0;
  const double mats = (m.ffn_kind == specs::FfnKind::gated ? 3.0 : 2.0) * static_cast<double>(m.hidden) *
                      static_cast<double>(m.moe.expert_ffn);
  return st.expert_params / static_cast<double>(c.moe_layer.routed_one) * mats;
}

// Mamba and recurrent layers among the stage's layers: those that keep a state per sequence.
std::int64_t stage_state_layers(const specs::ModelSpec& m, const StageShard& st) {
  return m.state_layers(st.first_layer, st.layers);
}

// The state one sequence keeps in one of those layers on one GPU of `tp`.
Bytes state_per_layer(const specs::ModelSpec& m, double tp) {
  return m.has_mamba() ? ssm_state_per_layer(m) : recurrent_state_per_layer(m, tp);
}

InferenceParts compute_inference(const specs::ModelSpec& m, const InferenceMemoryInput& in) {
  require_positive_integer(in.batch, "batch");
  require_positive_integer(in.context, "context");
  require_positive_integer(in.prefill_chunk, "prefill_chunk");
  require_non_negative(in.cuda_context, "cuda_context");
  if (!(in.fragmentation >= 0.0 && in.fragmentation < 1.0))
    throw InputError("fragmentation", format_plain_number(in.fragmentation), "a fraction in [0, 1)");
  if (in.counts == nullptr) {
    // Counted here (a sweep row passes its counts, and no ParamCount is built per row); no
    // stage cache without them.
    const ParamCount counted = count_params(m);
    InferenceMemoryInput with = in;
    with.counts = &counted;
    with.stage_cache = nullptr;
    return compute_inference(m, with);
  }
  const ParamCount& c = *in.counts;
  InferenceParts p;
  std::vector<StageShard> split;
  InferenceMemoryInput::StageCache* cache = !m.encoder_decoder ? in.stage_cache : nullptr;
  if (cache != nullptr && !(cache->valid && cache->tp == in.tp.in(one) && cache->pp == in.pp.in(one))) {
    cache->valid = false;
    cache->stages = shard_stages(m, c, in.tp, in.pp);  // may throw: the cache stays empty
    cache->tp = in.tp.in(one);
    cache->pp = in.pp.in(one);
    cache->valid = true;
  }
  if (cache == nullptr)
    split = m.encoder_decoder ? encoder_decoder_stage(m, c, in) : shard_stages(m, c, in.tp, in.pp);
  const std::vector<StageShard>& stages = cache != nullptr ? cache->stages : split;
  p.counts_total = c.total;
  const double t = in.tp.in(one);
  const bool keep = !in.quantize_all && dtype_bits(in.weights_dtype) < 16;
  p.ctx_full = in.context.in(one);
  p.ctx_window = m.sliding_window > 0 ? std::min(p.ctx_full, static_cast<double>(m.sliding_window)) : p.ctx_full;
  p.ctx_chunk = m.attention_chunk > 0 ? std::min(p.ctx_full, static_cast<double>(m.attention_chunk)) : p.ctx_full;

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
  if (m.has_mamba()) {
    // A Mamba layer's widest intermediate is its in_proj output: 2·E (Mamba-1), 2·E + 2·G·N + H (Mamba-2).
    const auto& s = m.mamba;
    const double proj = static_cast<double>(2 * s.d_inner + (s.version == 2 ? 2 * s.groups * s.d_state + s.heads : 0));
    p.ffn_width = std::max(p.ffn_width, proj / t);
  }
  if (m.has_recurrent()) p.ffn_width = std::max(p.ffn_width, static_cast<double>(m.recurrent.proj_width) / t);
  p.head_rows = static_cast<double>(m.vocab) / t;
  const Bytes activations = p.chunk_tokens * (2.0 * static_cast<double>(m.hidden) + p.ffn_width) * 2.0 * byte +
                            in.batch.in(one) * p.head_rows * 4.0 * byte;

  // One GPU of a stage: its weights, the KV cache of its layers and KV heads, the activations,
  // and the reserve, rounded up to whole bytes so that the ledger stays an integer count.
  auto stage_ledger = [&](const StageShard& st, Weights& w, InferenceMemory& r) {
    if (in.stored_weights) {
      // The checkpoint's own bytes, shared out in proportion to the parameters held (exact on
      // one GPU; under TP/PP each tensor's bytes are taken to split as its parameters do).
      w = Weights{};
      w.quantized =
          std::ceil((*in.stored_weights * (std::ceil(st.params) / static_cast<double>(c.total))).in(byte)) * byte;
    } else {
      const double kept = !keep                         ? 0.0
                          : in.experts_only ? std::ceil(st.params) - routed_expert_matrices(m, c, st)
                                            : std::ceil(st.kept_params);
      w = inference_weights({.params = std::ceil(st.params) * param,
                             .dtype = in.weights_dtype,
                             .unquantized = kept * param,
                             .group_size = in.group_size,
                             .scale_dtype = in.scale_dtype,
                             .zero_points = in.zero_points});
    }
    const Bytes per_layer_token = kv_bytes_per_token_per_layer(m, in.kv_dtype, st.kv_heads);
    r.weights = w.total();
    if (m.has_layer_kv())
      r.kv_cache = in.batch.in(one) *
                   (st.kv_width_full * p.ctx_full + st.kv_width_window * p.ctx_window + st.kv_width_chunk * p.ctx_chunk) *
                   dtype_size(in.kv_dtype);
    else
      r.kv_cache = in.batch.in(one) * kv_streams(m) *
                   (static_cast<double>(st.full_layers()) * p.ctx_full +
                    static_cast<double>(st.windowed_layers) * p.ctx_window +
                    static_cast<double>(st.chunked_layers) * p.ctx_chunk) *
                   per_layer_token;
    r.ssm_state = in.batch.in(one) * static_cast<double>(stage_state_layers(m, st)) * state_per_layer(m, t);
    r.activations = activations;
    r.runtime_reserve =
        std::ceil((in.cuda_context + in.fragmentation * (r.weights + r.kv_cache + r.ssm_state + r.activations)).in(byte)) *
        byte;
  };

  // The most loaded stage is shown; the total covers every stage's GPUs, TP ranks alike. The
  // first stage's ledger is written in place (a sweep row: no copy of a just-built struct).
  Bytes total{};
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (i == 0) {
      stage_ledger(stages[0], p.w, p.mem);
      p.stage = stages[0];
      total += t * p.mem.per_gpu();
      continue;
    }
    Weights w;
    InferenceMemory r;
    stage_ledger(stages[i], w, r);
    total += t * r.per_gpu();
    if (r.per_gpu() > p.mem.per_gpu()) {
      p.mem = r;
      p.stage = stages[i];
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

namespace {

// The ledger of a bare parameter count: the same rows as a model's, less those that need an
// architecture (KV cache, activations), which are omitted and named in an assumption.
void bare_inference_memory(const specs::ModelSpec& m, const InferenceMemoryInput& in, const InferenceParts& p,
                           ResultSet& out) {
  const InferenceMemory& r = p.mem;
  const double gpus = in.tp.in(one) * in.pp.in(one);
  out.command = "memory";
  out.input("params", value(static_cast<double>(m.bare_params) * param));
  out.input("weights_dtype", verdict(dtype_name(in.weights_dtype)));
  out.input("tp", value(in.tp));
  out.input("pp", value(in.pp));
  const Params held = std::ceil(p.stage.params) * param;
  if (p.w.scales.in(byte) > 0.0)
    out.item("weights", "weights", value(r.weights), "P_gpu · bits/8 + scales",
             text("{} · {}/8 + {}", held, dtype_bits(in.weights_dtype), p.w.scales));
  else if (gpus > 1.0)
    out.item("weights", "weights", value(r.weights), "P / (tp·pp) · bits/8",
             text("{} / {} · {}/8", static_cast<double>(m.bare_params) * param, gpus, dtype_bits(in.weights_dtype)));
  else
    out.item("weights", "weights", value(r.weights), "P · bits/8",
             text("{} · {}/8", held, dtype_bits(in.weights_dtype)));
  out.item("runtime_reserve", "runtime reserve", value(r.runtime_reserve), "CUDA context + fragmentation · rows above",
           text("{} + {} · {}", in.cuda_context, in.fragmentation, r.weights));
  out.item("per_gpu", "per GPU", value(r.per_gpu()), "sum of the rows above",
           text("{} + {}", r.weights, r.runtime_reserve))
      .is_total = true;
  out.item("total", "all GPUs", value(r.total), "per GPU · tp · pp", text("{} GPU(s)", gpus));
  if (in.capacity) fit_items(r.per_gpu(), *in.capacity, out);
  out.assume("weights_dtype", text("weights stored in {} ({} bits per parameter), every parameter: which are "
                                   "embeddings and norms is not known",
                                   dtype_name(in.weights_dtype), dtype_bits(in.weights_dtype)));
  if (in.group_size.in(one) > 0.0)
    out.assume("group_size", text("one {} scale{} per group of {} weights", dtype_name(in.scale_dtype),
                                  in.zero_points ? " and zero point (at the weights' width)" : "", in.group_size));
  if (gpus > 1.0)
    out.assume("tp", text("P split evenly over TP {} × PP {} GPUs (no architecture: replicated norms and whole KV "
                          "heads are not modelled)", in.tp, in.pp));
  out.assume("cuda_context", text("{} per GPU for the CUDA context, libraries and kernels", in.cuda_context));
  out.assume("fragmentation", text("allocator fragmentation {} of the weights", in.fragmentation));
  out.assume("bare_params", text("a bare parameter count: the KV cache and activations need an architecture and are "
                                 "not computed (give MODEL)"));
}

// The ledger of a model as the memory command's result, from compute_inference's numbers: each
// step below adds one part of it, in the order the renderers print it.
struct InferenceReport {
  const specs::ModelSpec& m;
  const InferenceMemoryInput& in;
  const InferenceParts& p;
  const InferenceMemory& r;  // the shown stage's ledger
  bool keep;                 // embeddings, head and norms kept at 2 B (weights below 16 bits)
  double gpus;               // tp · pp
  Params held;               // parameters the shown stage's GPU holds
  // The parameters kept at 2 B on the shown stage (embeddings, head and norms; with experts_only
  // everything but the routed experts' matrices).
  Params kept;
  Bytes e;  // one KV cache element

  InferenceReport(const specs::ModelSpec& model, const InferenceMemoryInput& i, const InferenceParts& parts)
      : m(model), in(i), p(parts), r(parts.mem), keep(!i.quantize_all && dtype_bits(i.weights_dtype) < 16),
        gpus(i.tp.in(one) * i.pp.in(one)), held(std::ceil(parts.stage.params) * param),
        kept(parts.w.unquantized.in(byte) / 2.0 * param), e(dtype_size(i.kv_dtype)) {}

  void inputs(ResultSet& out) const;
  void weights_item(ResultSet& out) const;
  void kv_cache_item(ResultSet& out) const;
  void ledger_rows(ResultSet& out) const;
  void whole_model_items(ResultSet& out) const;
  void weights_assumptions(ResultSet& out) const;
  void shape_assumptions(ResultSet& out) const;
  void runtime_assumptions(ResultSet& out) const;
};

// The command's name and the ledger's inputs.
void InferenceReport::inputs(ResultSet& out) const {
  out.command = "memory";
  out.input("model", verdict(m.name));
  out.input("weights_dtype", verdict(in.stored_weights ? std::string_view("as stored") : dtype_name(in.weights_dtype)));
  out.input("kv_dtype", verdict(dtype_name(in.kv_dtype)));
  out.input("batch", value(in.batch));
  out.input("context", value(in.context));
  out.input("tp", value(in.tp));
  out.input("pp", value(in.pp));
}

// The weights row: the checkpoint's stored bytes, or the parameters at the weights' width (with
// scales and the parameters kept at 2 B).
void InferenceReport::weights_item(ResultSet& out) const {
  if (in.stored_weights && gpus > 1.0)
    out.item("weights", "weights", value(r.weights), "stored bytes · P_gpu / P",
             text("{} · {} / {}", *in.stored_weights, held, static_cast<double>(p.counts_total) * param));
  else if (in.stored_weights)
    out.item("weights", "weights", value(r.weights), "the tensors' stored bytes", text("{}", *in.stored_weights));
  else if (p.w.scales.in(byte) > 0.0 || (keep && kept.in(param) > 0.0))
    out.item("weights", "weights", value(r.weights), "P_q · bits/8 + scales + P_keep · 2 B",
             text("{} · {}/8 + {} + {} · 2 B", held - kept, dtype_bits(in.weights_dtype), p.w.scales, kept));
  else
    out.item("weights", "weights", value(r.weights), "P_gpu · bits/8",
             text("{} · {}/8", held, dtype_bits(in.weights_dtype)));
}

// The KV cache row, by the attention's kind and the stage's windowed and chunked layers.
void InferenceReport::kv_cache_item(ResultSet& out) const {
  if (m.encoder_decoder)
    out.item("kv_cache", "KV cache (decoder self- and cross-attention)", value(r.kv_cache),
             "2 · L_dec · H · d_kv · (ctx_dec + ctx_enc) · batch · bytes",
             text("2 · {} · {} · {} · ({} + {}) · {} · {}", static_cast<double>(p.stage.layers), p.stage.kv_heads,
                  static_cast<double>(m.head_dim), in.context, in.context, in.batch, e));
  else if (m.has_layer_kv())
    out.item("kv_cache", "KV cache (per-layer shapes)", value(r.kv_cache),
             "(Σ_full 2·H_kv·d · ctx + Σ_win 2·H_kv·d · min(ctx, W) + Σ_chunk 2·H_kv·d · min(ctx, C)) · batch · bytes",
             text("({} · {} + {} · {} + {} · {}) · {} · {}", p.stage.kv_width_full, in.context, p.stage.kv_width_window,
                  p.ctx_window, p.stage.kv_width_chunk, p.ctx_chunk, in.batch, e));
  else if (m.attention == specs::AttentionKind::mla && m.indexer.heads > 0)
    out.item("kv_cache", "KV cache (MLA latent + indexer key)", value(r.kv_cache),
             "L_gpu · ((d_c + d_rope) · bytes + indexer key) · ctx · batch",
             text("{} · (({} + {}) · {} + {}) · {} · {}", static_cast<double>(p.stage.full_layers()),
                  static_cast<double>(m.mla.kv_lora_rank), static_cast<double>(m.mla.qk_rope_head_dim), e,
                  indexer_bytes_per_token_per_layer(m), in.context, in.batch));
  else if (m.attention == specs::AttentionKind::mla)
    out.item("kv_cache", "KV cache", value(r.kv_cache), "L_gpu · (d_c + d_rope) · ctx · batch · bytes",
             text("{} · ({} + {}) · {} · {} · {}", static_cast<double>(p.stage.full_layers()),
                  static_cast<double>(m.mla.kv_lora_rank), static_cast<double>(m.mla.qk_rope_head_dim), in.context,
                  in.batch, e));
  else if (p.stage.windowed_layers > 0 && p.stage.chunked_layers > 0)
    out.item("kv_cache", "KV cache", value(r.kv_cache),
             "2 · H_kv · d_head · (L_full · ctx + L_win · min(ctx, W) + L_chunk · min(ctx, C)) · batch · bytes",
             text("2 · {} · {} · ({} · {} + {} · {} + {} · {}) · {} · {}", p.stage.kv_heads,
                  static_cast<double>(m.head_dim), static_cast<double>(p.stage.full_layers()), in.context,
                  static_cast<double>(p.stage.windowed_layers), p.ctx_window,
                  static_cast<double>(p.stage.chunked_layers), p.ctx_chunk, in.batch, e));
  else if (p.stage.windowed_layers > 0)
    out.item("kv_cache", "KV cache", value(r.kv_cache),
             "2 · H_kv · d_head · (L_full · ctx + L_win · min(ctx, W)) · batch · bytes",
             text("2 · {} · {} · ({} · {} + {} · {}) · {} · {}", p.stage.kv_heads, static_cast<double>(m.head_dim),
                  static_cast<double>(p.stage.full_layers()), in.context,
                  static_cast<double>(p.stage.windowed_layers), p.ctx_window, in.batch, e));
  else if (p.stage.chunked_layers > 0)
    out.item("kv_cache", "KV cache", value(r.kv_cache),
             "2 · H_kv · d_head · (L_full · ctx + L_chunk · min(ctx, C)) · batch · bytes",
             text("2 · {} · {} · ({} · {} + {} · {}) · {} · {}", p.stage.kv_heads, static_cast<double>(m.head_dim),
                  static_cast<double>(p.stage.full_layers()), in.context,
                  static_cast<double>(p.stage.chunked_layers), p.ctx_chunk, in.batch, e));
  else
    out.item("kv_cache", "KV cache", value(r.kv_cache), "2 · L · H_kv · d_head · ctx · batch · bytes",
             text("2 · {} · {} · {} · {} · {} · {}", static_cast<double>(p.stage.full_layers()), p.stage.kv_heads,
                  static_cast<double>(m.head_dim), in.context, in.batch, e));
}

// The Mamba state, the activations, the runtime reserve, per GPU and all GPUs.
void InferenceReport::ledger_rows(ResultSet& out) const {
  if (m.has_mamba()) {
    const auto& s = m.mamba;
    const double conv = static_cast<double>(s.conv_channels() * (s.conv_kernel - 1));
    const double state = static_cast<double>(s.d_inner * s.d_state);
    out.item("ssm_state", "Mamba state (conv window + SSM state)", value(r.ssm_state),
             "batch · L_mamba · (C·(K − 1) · 2 B + E·N · bytes)",
             text("{} · {} · ({} · 2 B + {} · {} B)", in.batch, static_cast<double>(stage_state_layers(m, p.stage)), conv,
                  state, s.ssm_state_fp32 ? 4.0 : 2.0));
  } else if (m.has_recurrent()) {
    const auto& s = m.recurrent;
    const double conv = s.conv_kernel > 1 ? static_cast<double>(s.conv_channels * (s.conv_kernel - 1)) : 0.0;
    out.item("ssm_state", out.keep(s.kind + " state (conv window + recurrent state)"), value(r.ssm_state),
             "batch · L_rec · (C·(K − 1) · 2 B + S · bytes) / tp",
             text("{} · {} · ({} · 2 B + {} · {} B) / {}", in.batch, static_cast<double>(stage_state_layers(m, p.stage)),
                  conv, static_cast<double>(s.state), s.state_fp32 ? 4.0 : 2.0, in.tp));
  }
  out.item("activations", "activations (transient)", value(r.activations),
           "tokens · (2·D + F_mlp) · 2 B + batch · V · 4 B",
           text("{} · (2 · {} + {}) · 2 B + {} · {} · 4 B", p.chunk_tokens, static_cast<double>(m.hidden), p.ffn_width,
                in.batch, p.head_rows));
  out.item("runtime_reserve", "runtime reserve", value(r.runtime_reserve), "CUDA context + fragmentation · rows above",
           text("{} + {} · {}", in.cuda_context, in.fragmentation, r.weights + r.kv_cache + r.ssm_state + r.activations));
  if (m.has_state_layers())
    out.item("per_gpu", "per GPU", value(r.per_gpu()), "sum of the rows above",
             text("{} + {} + {} + {} + {}", r.weights, r.kv_cache, r.ssm_state, r.activations, r.runtime_reserve))
        .is_total = true;
  else
    out.item("per_gpu", "per GPU", value(r.per_gpu()), "sum of the rows above",
             text("{} + {} + {} + {}", r.weights, r.kv_cache, r.activations, r.runtime_reserve))
        .is_total = true;
  out.item("total", "all GPUs", value(r.total), "Σ over stages · tp", text("{} GPU(s)", gpus));
}

// The figures users quote, for the whole model (all layers and KV heads, before sharding).
void InferenceReport::whole_model_items(ResultSet& out) const {
  const Bytes per_token = kv_bytes_per_token(m, in.kv_dtype);
  if (m.encoder_decoder)
    out.item("kv_per_token", "KV cache per token of either stream (whole model)", value(per_token),
             "2 · L_dec · H · d_kv · bytes",
             text("2 · {} · {} · {} · {}", static_cast<double>(m.decoder_layers), static_cast<double>(m.kv_heads),
                  static_cast<double>(m.head_dim), e));
  else if (m.has_layer_kv())
    out.item("kv_per_token", "KV cache per token (whole model)", value(per_token), "Σ_layers 2 · H_kv · d_head · bytes",
             text("{} · {}", per_token / e, e));
  else if (m.attention == specs::AttentionKind::mla && m.indexer.heads > 0)
    out.item("kv_per_token", "KV cache per token (whole model)", value(per_token),
             "L · ((d_c + d_rope) · bytes + indexer key)",
             text("{} · (({} + {}) · {} + {})", static_cast<double>(attention_layers(m)),
                  static_cast<double>(m.mla.kv_lora_rank), static_cast<double>(m.mla.qk_rope_head_dim), e,
                  indexer_bytes_per_token_per_layer(m)));
  else if (m.attention == specs::AttentionKind::mla)
    out.item("kv_per_token", "KV cache per token (whole model)", value(per_token), "L · (d_c + d_rope) · bytes",
             text("{} · ({} + {}) · {}", static_cast<double>(attention_layers(m)), static_cast<double>(m.mla.kv_lora_rank),
                  static_cast<double>(m.mla.qk_rope_head_dim), e));
  else
    out.item("kv_per_token", "KV cache per token (whole model)", value(per_token), "2 · L · H_kv · d_head · bytes",
             text("2 · {} · {} · {} · {}", static_cast<double>(attention_layers(m)), static_cast<double>(m.kv_heads),
                  static_cast<double>(m.head_dim), e));
  const Bytes per_sequence = kv_cache(m, KvCacheInput{.batch = 1.0 * one, .context = in.context, .kv_dtype = in.kv_dtype});
  if (m.encoder_decoder)
    out.item("kv_per_sequence", "KV cache per sequence (whole model)", value(per_sequence),
             "per token · (ctx_dec + ctx_enc)", text("{} · ({} + {})", per_token, in.context, in.context));
  else if (m.layers_of(specs::LayerAttention::sliding) > 0 || m.layers_of(specs::LayerAttention::chunked) > 0)
    out.item("kv_per_sequence", "KV cache per sequence (whole model)", value(per_sequence),
             "per token · ctx, windowed and chunked layers capped", text("at context {}", in.context));
  else
    out.item("kv_per_sequence", "KV cache per sequence (whole model)", value(per_sequence), "per token · ctx",
             text("{} · {}", per_token, in.context));
  if (m.has_state_layers()) {
    const auto n = static_cast<double>(m.state_layers(0, m.layers));
    out.item("state_per_sequence", "recurrent state per sequence (whole model)", value(n * state_per_layer(m, 1.0)),
             "L_state · state per layer", text("{} · {}", n, state_per_layer(m, 1.0)));
  }
}

// How the weights are stored: as the checkpoint holds them, or at a dtype (what is kept at 2 B,
// the scales).
void InferenceReport::weights_assumptions(ResultSet& out) const {
  if (in.stored_weights) {
    if (gpus > 1.0)
      out.assume("weights_dtype", text("weights as stored in {}: {} ({}); each GPU holds them in proportion to its "
                                       "parameters", in.stored_source, *in.stored_weights, in.stored_detail));
    else
      out.assume("weights_dtype", text("weights as stored in {}: {} ({})", in.stored_source, *in.stored_weights,
                                       in.stored_detail));
  } else {
    out.assume("weights_dtype", text("weights stored in {} ({} bits per parameter)", dtype_name(in.weights_dtype),
                                     dtype_bits(in.weights_dtype)));
    if (keep && in.experts_only)
      out.assume("unquantized",
                 text("only the routed experts' weight matrices ({} per GPU) are quantized; attention, router, "
                      "embeddings, LM head, norms and every bias (the experts' too) kept in bf16 ({} per GPU)",
                      held - kept, kept));
    else if (keep)
      out.assume("unquantized", text("embeddings, LM head and norms kept in bf16 ({} per GPU)", kept));
    if (in.group_size.in(one) > 0.0 && keep && in.experts_only)
      out.assume("group_size", text("one 1-byte scale (MXFP4's E8M0, counted as {}) per block of {} expert weights",
                                    dtype_name(in.scale_dtype), in.group_size));
    else if (in.group_size.in(one) > 0.0)
      out.assume("group_size", text("one {} scale{} per group of {} weights", dtype_name(in.scale_dtype),
                                    in.zero_points ? " and zero point (at the weights' width)" : "", in.group_size));
  }
}

// The sequences, the KV cache's layout and the forward pass's tokens.
void InferenceReport::shape_assumptions(ResultSet& out) const {
  if (m.encoder_decoder)
    out.assume("batch_context", text("{} sequence(s), all resident: {} tokens into the encoder and {} generated by the "
                                     "decoder each (encoder-decoder: --context is both lengths); each of the {} decoder "
                                     "layers caches self-attention K,V over the decoder's tokens and cross-attention "
                                     "K,V over the encoder's, the encoder none",
                                     in.batch, in.context, in.context, static_cast<double>(m.decoder_layers)));
  else
    out.assume("batch_context", text("{} sequence(s) of {} tokens each (prompt + generated), all resident",
                                     in.batch, in.context));
  check_trained_context(m, in.context.in(one), "--context", out);
  out.assume("kv_dtype", text("KV cache stored in {} ({} per element)", dtype_name(in.kv_dtype), e));
  if (m.attention == specs::AttentionKind::mla && m.indexer.heads > 0)
    out.assume("kv_layout", text("MLA caches the compressed latent and the RoPE key per layer, not full K and V; "
                                 "DeepSeek Sparse Attention's indexer caches one {}-element key per token and layer "
                                 "in fp8 with an fp32 scale per 128 ({} per token, whatever --kv-dtype: "
                                 "DeepSeek-V3.2-Exp inference/model.py), and each query reads its top {} keys",
                                 static_cast<double>(m.indexer.head_dim), indexer_bytes_per_token_per_layer(m),
                                 static_cast<double>(m.indexer.top_k)));
  else if (m.attention == specs::AttentionKind::mla)
    out.assume("kv_layout", text("MLA caches the compressed latent and the RoPE key per layer, not full K and V"));
  if (m.has_layer_kv()) {
    std::int64_t own = 0, shared = 0;
    std::vector<std::string> shapes;
    for (std::int64_t l = 0; l < m.layers; ++l) {
      if (m.layer_attention(l) == specs::LayerAttention::none) continue;
      if (m.kv_shared(l)) {
        ++shared;
        continue;
      }
      ++own;
      const std::string shape = std::to_string(m.kv_heads_of(l)) + " × " + std::to_string(m.head_dim_of(l));
      if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end()) shapes.push_back(shape);
    }
    std::string list;
    for (const std::string& x : shapes) list += (list.empty() ? "" : ", ") + x;
    if (shared > 0)
      out.assume("kv_layout",
                 text("per-layer KV shapes: {} layers cache their own K and V (KV heads × head size: {}); {} KV-shared "
                      "layers read an earlier layer's cache and keep none",
                      static_cast<double>(own), out.keep(list), static_cast<double>(shared)));
    else
      out.assume("kv_layout", text("per-layer KV shapes: {} layers cache their own K and V (KV heads × head size: {})",
                                   static_cast<double>(own), out.keep(list)));
  }
  if (p.stage.windowed_layers > 0)
    out.assume("sliding_window", text("{} layers keep a sliding window of {} tokens",
                                      static_cast<double>(p.stage.windowed_layers), static_cast<double>(m.sliding_window)));
  if (p.stage.chunked_layers > 0)
    out.assume("attention_chunk", text("{} layers attend within chunks of {} tokens and keep at most that many keys",
                                       static_cast<double>(p.stage.chunked_layers), static_cast<double>(m.attention_chunk)));
  if (m.has_mamba())
    out.assume("ssm_state",
               text("each sequence keeps, per Mamba layer, its last K − 1 = {} convolution inputs over {} channels and "
                    "an {} × {} SSM state, in the model's 16-bit dtype (vLLM's mamba_cache_dtype and "
                    "mamba_ssm_cache_dtype \"auto\"){}; constant in the context",
                    static_cast<double>(m.mamba.conv_kernel - 1), static_cast<double>(m.mamba.conv_channels()),
                    static_cast<double>(m.mamba.d_inner), static_cast<double>(m.mamba.d_state),
                    m.mamba.ssm_state_fp32 ? std::string_view(", the SSM state in fp32 (config.json mamba_ssm_cache_dtype)")
                                           : std::string_view("")));
  if (m.has_recurrent()) {
    const auto& rs = m.recurrent;
    std::string kept;
    if (rs.conv_kernel > 1 && rs.conv_channels > 0)
      kept = "its last K − 1 = " + std::to_string(rs.conv_kernel - 1) + " convolution inputs over " +
             std::to_string(rs.conv_channels) + " channels";
    if (rs.state > 0)
      kept += (kept.empty() ? "" : " and ") + std::string("a recurrent state of ") + std::to_string(rs.state) +
              " elements";
    out.assume("ssm_state",
               text("each sequence keeps, per {} layer, {}, in the model's 16-bit dtype{}; constant in the context, "
                    "split by head over TP (vLLM's conv and temporal state, mamba_cache_dtype \"auto\")",
                    std::string_view(rs.kind), out.keep(kept),
                    rs.state_fp32 ? std::string_view(", the state in fp32 (config.json mamba_ssm_cache_dtype)")
                                  : std::string_view("")));
  }
  out.assume("prefill_chunk", text("a forward pass holds {} tokens at once; scores are not materialised "
                                   "(FlashAttention-style kernels)", p.chunk_tokens));
  if (m.tower)
    out.assume("tower", text("the weights include the vision tower and projector the checkpoint ships ({}), as an "
                             "engine loads them; text-only requests: the tower's activations and an engine's encoder "
                             "cache for images are not in the ledger (--text-only drops the tower)",
                             std::string_view(m.tower->family)));
}

// The runtime reserve's terms and the sharding over GPUs.
void InferenceReport::runtime_assumptions(ResultSet& out) const {
  out.assume("cuda_context", text("{} per GPU for the CUDA context, libraries and kernels", in.cuda_context));
  out.assume("fragmentation", text("allocator fragmentation {} of weights, KV cache and activations", in.fragmentation));
  if (gpus > 1.0)
    out.assume("tp", text("TP {} splits heads, MLP and vocabulary; norms replicated; PP {} stage(s), the "
                          "most loaded one shown ({} layers)", in.tp, in.pp, static_cast<double>(p.stage.layers)));
}

}  // namespace

void inference_memory(const specs::ModelSpec& m, const InferenceMemoryInput& in, ResultSet& out) {
  const InferenceParts p = compute_inference(m, in);
  if (m.count_only()) return bare_inference_memory(m, in, p, out);
  const InferenceReport report(m, in, p);
  report.inputs(out);
  report.weights_item(out);
  report.kv_cache_item(out);
  report.ledger_rows(out);
  report.whole_model_items(out);
  if (in.capacity) fit_items(p.mem.per_gpu(), *in.capacity, out);
  report.weights_assumptions(out);
  report.shape_assumptions(out);
  report.runtime_assumptions(out);
}

}  // namespace napkin
