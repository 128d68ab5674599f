// The serve command's result: serve()'s numbers (serve.cpp) as items, per-op series and assumptions.
#include "napkin/plans/serve.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/model/context_limit.h"
#include "napkin/model/parallel.h"
#include "napkin/model/params.h"

namespace napkin {

using namespace units;

namespace {

void op_series(ResultSet& out, std::string_view key, std::string_view label, const PhaseCost& c) {
  Series& se = out.add_series(key, label, {"op", "count", "kernels", "flops", "bytes", "intensity", "bound", "time",
                                           "share"});
  for (const OpCost& o : c.ops) {
    se.cells.push_back(verdict(o.name));
    se.cells.push_back(value(o.count));
    se.cells.push_back(value(o.kernels));
    se.cells.push_back(value(o.flops));
    se.cells.push_back(value(o.bytes));
    se.cells.push_back(value(o.intensity()));
    se.cells.push_back(verdict(to_string(o.bound())));
    se.cells.push_back(value(o.time));
    se.cells.push_back(value(c.time.in(second) > 0.0 ? o.time / c.time : 0.0));
  }
}

void phase_items(ResultSet& out, const ServeInput& in, const PhaseCost& c, std::string_view time_key,
                 std::string_view time_label, std::string_view bound_key, std::string_view bound_label) {
  const bool tp = in.tp.in(one) > 1.0;
  if (tp)
    out.item(time_key, time_label, value(c.time), "Σ_ops max(C/R, Q/BW, link, n_k·t_k)",
             text("{} kernels: {} / {} = {}, {} / {} = {}, link {}, launch {}", c.kernels, c.flops, in.peak,
                  c.compute, c.bytes, in.bandwidth, c.memory, c.comm, c.launch));
  else
    out.item(time_key, time_label, value(c.time), "Σ_ops max(C/R, Q/BW, n_k·t_k)",
             text("{} kernels: {} / {} = {}, {} / {} = {}, launch {}", c.kernels, c.flops, in.peak, c.compute,
                  c.bytes, in.bandwidth, c.memory, c.launch));
  if (tp)
    out.item(bound_key, bound_label, verdict(to_string(c.bound())), "largest of ΣC/R, ΣQ/BW, Σ link, n_k·t_k",
             text("max({}, {}, {}, {})", c.compute, c.memory, c.comm, c.launch));
  else
    out.item(bound_key, bound_label, verdict(to_string(c.bound())), "largest of ΣC/R, ΣQ/BW, n_k·t_k",
             text("max({}, {}, {})", c.compute, c.memory, c.launch));
}

// The expected figures beside the bound (serve_expected.h), or null values saying why there are
// none (in.efficiency_source.profile: no profile for this engine and hardware).
void expected_items(ResultSet& out, const ServeInput& in, const Serve& r) {
  const ServeInput::EfficiencySource& src = in.efficiency_source;
  if (!in.efficiency) {
    if (src.profile.empty()) return;
    const Value none = no_value("no profile");
    constexpr std::string_view why = "no efficiency profile: the bound only";
    out.item("expected_prefill_time", "expected time to first token", none, why, text(""));
    out.item("expected_decode_time_per_token", "expected time per output token", none, why, text(""));
    out.item("expected_tokens_per_second", "expected decode throughput", none, why, text(""));
    out.item("expected_latency", "expected request latency", none, why, text(""));
    out.remark(text("{}", src.profile));
    return;
  }
  const Efficiency& e = *in.efficiency;
  const bool tp = in.tp.in(one) > 1.0;
  auto phase = [&](std::string_view key, std::string_view label, const ExpectedPhase& x) {
    const bool prefill = x.tokens > 0.0;
    const std::string_view formula = prefill ? "Σ_ops max(C/(η_c·n/(n + n½)·R), Q/(η_bw·BW), link) + t_pass"
                                             : "Σ_ops max(C/(η_c·R), Q/(η_bw·BW), link) + t_pass";
    if (prefill && tp)
      out.item(key, label, value(x.time), formula,
               text("η = {} · {}/({} + {}) = {}: compute {}, memory {}, link {}, + {}", e.compute, x.tokens, x.tokens,
                    e.prefill_half, x.compute_efficiency, x.compute, x.memory, x.comm, e.pass_overhead));
    else if (prefill)
      out.item(key, label, value(x.time), formula,
               text("η = {} · {}/({} + {}) = {}: compute {}, memory {}, + {}", e.compute, x.tokens, x.tokens,
                    e.prefill_half, x.compute_efficiency, x.compute, x.memory, e.pass_overhead));
    else if (tp)
      out.item(key, label, value(x.time), formula,
               text("compute {} at η_c = {}, memory {} at η_bw = {}, link {}, + {}", x.compute, e.compute, x.memory,
                    e.bandwidth, x.comm, e.pass_overhead));
    else
      out.item(key, label, value(x.time), formula,
               text("compute {} at η_c = {}, memory {} at η_bw = {}, + {}", x.compute, e.compute, x.memory,
                    e.bandwidth, e.pass_overhead));
  };
  const ExpectedPhase& pf = *r.expected_prefill;
  const ExpectedPhase& dc = *r.expected_decode;
  phase("expected_prefill_time", "expected time to first token", pf);
  phase("expected_decode_time_per_token", "expected time per output token", dc);
  out.item("expected_tokens_per_second", "expected decode throughput", value((in.batch.in(one) * token) / dc.time),
           "B / t_decode_expected", text("{} / {} (bound {})", in.batch, dc.time, (in.batch.in(one) * token) / r.decode.time));
  out.item("expected_latency", "expected request latency", value(pf.time + r.decode_steps * dc.time),
           "t_prefill + (G − 1) · t_decode, expected", text("{} + {} · {}", pf.time, r.decode_steps, dc.time));
}

// The assumptions behind the expected figures, after the bound's.
void expected_assumptions(ResultSet& out, const ServeInput& in) {
  if (!in.efficiency) return;
  const Efficiency& e = *in.efficiency;
  const ServeInput::EfficiencySource& src = in.efficiency_source;
  out.assume("efficiency", text("expected_*: the bound's ops at η_bw = {} of the bandwidth, η_c = {} of the peak "
                                "(a prefill of n tokens at η_c · n/(n + n½), n½ = {}), {} per pass for the launch "
                                "floor: {}",
                                e.bandwidth, e.compute, e.prefill_half, e.pass_overhead, src.profile));
  if (!src.bandwidth.empty()) out.assume("efficiency_bandwidth", text("{}", src.bandwidth));
  if (!src.compute.empty()) out.assume("efficiency_compute", text("{}", src.compute));
  if (!src.prefill_half.empty()) out.assume("prefill_half_tokens", text("{}", src.prefill_half));
  if (!src.pass_overhead.empty()) out.assume("token_overhead", text("{}", src.pass_overhead));
  if (in.cuda_graphs)
    out.assume("efficiency_launch", text("--cuda-graphs changes the bound only: t_pass is the engine's cost per pass "
                                         "as its measurements ran (with or without graphs, as that engine does)"));
}

const OpCost* find_op(const PhaseCost& c, std::string_view name) {
  for (const auto& o : c.ops)
    if (o.name == name) return &o;
  return nullptr;
}

// The numbers the serve result itemizes, all computed before its first row; each step below adds
// one part of the result from them, in the order the renderers print it.
struct ServeReport {
  const specs::ModelSpec& m;
  const ServeInput& in;
  Serve r;
  bool tp = false, moe = false, mla = false;
  Count batch{}, ctx{}, context{};  // B; the decode step's mean context P + G/2; the ledger's P + G
  Intensity ridge{};

  ServeReport(const specs::ModelSpec& model, const ServeInput& i);

  void inputs(ResultSet& out) const;
  void speed_items(ResultSet& out) const;
  void decode_items(ResultSet& out) const;
  void crossing_items(ResultSet& out) const;
  void launch_items(ResultSet& out) const;
  void memory_items(ResultSet& out) const;
  void notes(ResultSet& out) const;
  void dtype_assumptions(ResultSet& out) const;
  void roofline_assumptions(ResultSet& out) const;
  void kernel_assumptions(ResultSet& out) const;
  void run_assumptions(ResultSet& out) const;
};

ServeReport::ServeReport(const specs::ModelSpec& model, const ServeInput& i) : m(model), in(i), r(serve(model, i)) {
  tp = in.tp.in(one) > 1.0;
  moe = m.moe.is_moe();
  mla = m.attention == specs::AttentionKind::mla;
  batch = in.batch;
  ctx = r.decode_context * one;
  context = in.prompt + in.generate;
  ridge = in.peak / in.bandwidth;
}

// The command's inputs: the model, the dtypes, the shape of the run, the hardware and launch
// figures, and the efficiency coefficients when there are expected figures.
void ServeReport::inputs(ResultSet& out) const {
  out.command = "serve";
  out.input("model", verdict(m.name));
  out.input("weights_dtype", verdict(in.stored_weights ? std::string_view("as stored") : dtype_name(in.weights_dtype)));
  out.input("kv_dtype", verdict(dtype_name(in.kv_dtype)));
  out.input("compute_dtype", verdict(dtype_name(in.compute_dtype)));
  out.input("batch", value(in.batch));
  out.input("prompt", value(in.prompt));
  out.input("generate", value(in.generate));
  out.input("tp", value(in.tp));
  out.input("peak", value(in.peak));
  out.input("bandwidth", value(in.bandwidth));
  if (tp) out.input("link_bandwidth", value(*in.link_bandwidth));
  out.input("launch_overhead", value(in.launch_overhead));
  out.input("cuda_graphs", boolean(in.cuda_graphs));
  if (in.efficiency) {
    out.input("efficiency_bandwidth", value(in.efficiency->bandwidth));
    out.input("efficiency_compute", value(in.efficiency->compute));
    out.input("prefill_half_tokens", value(in.efficiency->prefill_half));
    out.input("token_overhead", value(in.efficiency->pass_overhead));
  }
}

// Prefill and decode times with their bounds, the decode throughput and the request latency,
// then the expected figures beside them.
void ServeReport::speed_items(ResultSet& out) const {
  phase_items(out, in, r.prefill, "prefill_time", "prefill (time to first token)", "prefill_bound", "prefill bound");
  phase_items(out, in, r.decode, "decode_time_per_token", "decode step (time per output token)", "decode_bound",
              "decode bound");
  out.item("tokens_per_second", "decode throughput, all sequences", value((batch.in(one) * token) / r.decode.time),
           "B / t_decode", text("{} / {}", batch, r.decode.time));
  out.item("tokens_per_second_per_sequence", "decode speed of one sequence", value((1.0 * token) / r.decode.time),
           "1 / t_decode", text("1 / {}", r.decode.time));
  out.item("latency", "request latency", value(r.latency()), "t_prefill + (G − 1) · t_decode",
           text("{} + {} · {}", r.prefill.time, r.decode_steps, r.decode.time));
  expected_items(out, in, r);
}

// What a decode step reads (weights, KV cache) and its intensity against the ridge.
void ServeReport::decode_items(ResultSet& out) const {
  out.item("decode_weight_bytes", "weights read per decode step", value(r.decode.weight_bytes),
           "Σ weights of the step's kernels", text("{} of the {} stored (embedding: the batch's rows only)",
                                                   r.decode.weight_bytes, r.memory.weights));
  out.item("decode_kv_bytes", "KV cache read and written per step", value(r.decode.kv_bytes),
           "Σ_layers B · (min(ctx, W) + 1) · KV/token/layer", text("{} sequence(s) at mean context {}", batch, ctx));
  out.item("decode_intensity", "decode intensity", value(r.decode.intensity()), "ΣC / ΣQ",
           text("{} / {}", r.decode.flops, r.decode.bytes));
  out.item("ridge_intensity", "ridge point", value(ridge), "I* = R_peak / BW", text("{} / {}", in.peak, in.bandwidth));
}

// The batches at which the decode step, and its weight matmuls alone, turn compute-bound (or never).
void ServeReport::crossing_items(ResultSet& out) const {
  if (r.compute_bound_batch)
    out.item("compute_bound_batch", "decode turns compute-bound at batch", value(static_cast<double>(*r.compute_bound_batch)),
             "min B with ΣC(B) / ΣQ(B) ≥ I*",
             text("at context {}: ΣC/ΣQ rises with B towards {}, reaching {} at B = {}", ctx, r.decode_limit_intensity,
                  ridge, static_cast<double>(*r.compute_bound_batch)));
  else
    out.item("compute_bound_batch", "decode turns compute-bound at batch", no_value("never"),
             "ΣC(B) / ΣQ(B) < I* for every B",
             text("at context {}: ΣC/ΣQ → {} as B → ∞ (KV reads grow with B like the FLOP), below {}", ctx,
                  r.decode_limit_intensity, ridge));
  if (r.matmul_compute_bound_batch)
    out.item("matmul_compute_bound_batch", "weight matmuls turn compute-bound at batch",
             value(static_cast<double>(*r.matmul_compute_bound_batch)), "min B with ΣC_mm(B) / ΣQ_mm(B) ≥ I*",
             text("the weight GEMMs alone (their weights and activations): → {} as B → ∞, reaching {} at B = {}",
                  r.matmul_limit_intensity, ridge, static_cast<double>(*r.matmul_compute_bound_batch)));
  else
    out.item("matmul_compute_bound_batch", "weight matmuls turn compute-bound at batch", no_value("never"),
             "ΣC_mm(B) / ΣQ_mm(B) < I* for every B",
             text("the weight GEMMs alone: → {} as B → ∞, below {}", r.matmul_limit_intensity, ridge));
}

// The decode time lost to launches, the step in the other launch mode, and the all-reduce under TP.
void ServeReport::launch_items(ResultSet& out) const {
  out.item("decode_launch_time", "decode time lost to launch overhead", value(r.decode.time - r.decode.roof),
           "Σ_ops max(0, n_k·t_k − roofline time)", text("{} − {}", r.decode.time, r.decode.roof));
  if (in.cuda_graphs)
    out.item("decode_time_eager", "decode step without CUDA graphs", value(r.decode_alternative->time),
             "as decode, t_k = t_launch", text("{} kernels · {} floor", r.decode_alternative->kernels, in.launch_overhead));
  else
    out.item("decode_time_cuda_graphs", "decode step with --cuda-graphs", value(r.decode_alternative->time),
             "as decode, t_k = t_graph, + one graph launch",
             text("{} kernels · {} floor + {}", r.decode_alternative->kernels - 1.0, in.graph_overhead,
                  in.launch_overhead));
  if (tp) {
    if (const OpCost* ar = find_op(r.decode, "all_reduce"))
      out.item("decode_all_reduce_time", "decode all-reduce time", value(ar->time),
               "2 · L · max(2(t−1)/t · B·D·2 B / BW_link, t_k)",
               text("{} · max(2 · ({} − 1)/{} · {} / {}, {})", ar->count, in.tp, in.tp, ar->comm_bytes / ar->count,
                    *in.link_bandwidth, in.cuda_graphs ? in.graph_overhead : in.launch_overhead));
  }
}

// The ledger, as napkin memory computes it at the final context, and whether it fits.
void ServeReport::memory_items(ResultSet& out) const {
  const InferenceMemory& mem = r.memory;
  out.item("weights", "weights", value(mem.weights), "napkin memory ledger", text(""));
  out.item("kv_cache", "KV cache", value(mem.kv_cache), "napkin memory ledger",
           text("{} sequence(s) · {} tokens", batch, context));
  out.item("activations", "activations (transient)", value(mem.activations), "napkin memory ledger", text(""));
  out.item("runtime_reserve", "runtime reserve", value(mem.runtime_reserve), "napkin memory ledger", text(""));
  out.item("per_gpu", "per GPU", value(mem.per_gpu()), "sum of the rows above",
           text("{} + {} + {} + {}", mem.weights, mem.kv_cache, mem.activations, mem.runtime_reserve))
      .is_total = true;
  if (in.capacity) {
    fit_items(mem.per_gpu(), *in.capacity, out);
    out.item("max_batch", "largest batch that fits", value(static_cast<double>(*r.max_batch)),
             "napkin memory --max batch", text("at context {}", context));
  }
}

// The notes --explain shows: what bounds a decode step and when it turns compute-bound.
void ServeReport::notes(ResultSet& out) const {
  out.note(text("decode reads {} of weights per step: {} / {} = {}, the memory floor of a step at any batch",
                r.decode.weight_bytes, r.decode.weight_bytes, in.bandwidth, r.decode.weight_bytes / in.bandwidth));
  out.note(text("the KV cache adds {} per step ({} / {} = {}), growing with batch and context", r.decode.kv_bytes,
                r.decode.kv_bytes, in.bandwidth, r.decode.kv_bytes / in.bandwidth));
  out.note(text("{} kernels per step at {} each: {} of launch time; a kernel shorter than that takes its launch time, "
                "so small steps are overhead-bound (notes 7.2)",
                r.decode.kernels, in.cuda_graphs ? in.graph_overhead : in.launch_overhead, r.decode.launch));
  out.note(text("a step turns compute-bound when ΣC/ΣQ ≥ I* = {}; at batch {} it is {}", ridge, batch,
                r.decode.intensity()));
  if (r.compute_bound_batch && r.max_batch && *r.compute_bound_batch > *r.max_batch)
    out.note(text("decode turns compute-bound at batch {}, but the GPU memory holds at most {} sequences of {} tokens",
                  static_cast<double>(*r.compute_bound_batch), static_cast<double>(*r.max_batch), context));
}

// The run's shape and how the weights, the KV cache and the matmuls are stored and computed.
void ServeReport::dtype_assumptions(ResultSet& out) const {
  out.assume("serve_shape", text("{} sequence(s): {}-token prompt, {} generated tokens; prefill gives the first token, "
                                 "{} decode steps at the mean context P + G/2 = {}",
                                 batch, in.prompt, in.generate, r.decode_steps, ctx));
  if (in.stored_weights) {
    out.assume("weights_dtype", text("weights as stored in {}: {} ({}), read at their mean width (stored bytes / "
                                     "parameters)", in.stored_source, *in.stored_weights, in.stored_detail));
  } else {
    out.assume("weights_dtype", text("weights stored and read in {} ({} bits per parameter)",
                                     dtype_name(in.weights_dtype), dtype_bits(in.weights_dtype)));
    if (!in.quantize_all && dtype_bits(in.weights_dtype) < 16)
      out.assume("unquantized", text(in.experts_only ? "only the routed experts' weight matrices quantized; attention, "
                                                       "router, embeddings, LM head and norms kept in bf16"
                                                     : "embeddings, LM head and norms kept in bf16"));
    if (in.group_size.in(one) > 0.0)
      out.assume("group_size", text("one {} scale{} per group of {} weights, read with them",
                                    dtype_name(in.scale_dtype),
                                    in.zero_points ? " and zero point (at the weights' width)" : "", in.group_size));
  }
  out.assume("kv_dtype", text("KV cache stored in {} ({} per element)", dtype_name(in.kv_dtype), dtype_size(in.kv_dtype)));
  out.assume("compute_dtype", text("matmuls run at the dense {} peak (lower-precision weights dequantized in the kernel)",
                                   dtype_name(in.compute_dtype)));
}

// The roofline each kernel runs on: peak, bandwidth, the launch floor and CUDA graphs.
void ServeReport::roofline_assumptions(ResultSet& out) const {
  out.assume("peak", text("{} is the peak compute rate (dense)", in.peak));
  out.assume("bandwidth", text("{} memory bandwidth for weights, KV cache and activations", in.bandwidth));
  out.assume("roofline_model", text("each kernel takes max(C/R, Q/BW): compute and memory overlap perfectly; caches, "
                                    "latency, occupancy and wave quantization ignored"));
  out.assume("launch_overhead", text("{} per kernel launch, not hidden: a kernel takes at least that long (the CPU does "
                                     "not run ahead); {} kernels in prefill, {} in a decode step",
                                     in.launch_overhead, r.prefill.kernels, r.decode.kernels));
  if (in.cuda_graphs) {
    out.assume("cuda_graphs", text("decode replayed from a CUDA graph: one {} launch per step, then {} per kernel; "
                                   "prefill launched eagerly", in.launch_overhead, in.graph_overhead));
    out.assume("graph_overhead", text("{} per kernel inside a CUDA graph (a round figure, not a measurement)",
                                      in.graph_overhead));
  } else {
    out.assume("cuda_graphs", text("decode launched kernel by kernel (no CUDA graphs)"));
  }
}

// How the ops are counted: kernels per layer, FLOP per element, attention, and the model's
// MLA, windowed, chunked and MoE layers.
void ServeReport::kernel_assumptions(ResultSet& out) const {
  const std::string_view qkv_kernels = !mla ? "fused QKV" : m.mla.q_lora_rank > 0 ? "MLA projections and norms 6"
                                                                                   : "MLA projections and norm 4";
  const bool shared = m.moe.n_shared_experts > 0 || m.moe.shared_ffn > 0;
  if (moe)
    out.assume("kernel_count",
               text("kernels per layer: norm + residual, {}, RoPE, attention, O, norm + residual, then dense layers "
                    "gate/up, activation, down; MoE layers router 2, experts 3 (grouped GEMMs), permute/combine 2{}{}",
                    qkv_kernels, shared ? ", shared expert 3" : "", tp ? "; 2 all-reduces" : ""));
  else
    out.assume("kernel_count",
               text("kernels per layer: norm + residual, {}, RoPE, attention, O, norm + residual, fused gate/up, "
                    "activation, down (vLLM-style fusion){}", qkv_kernels, tp ? "; 2 all-reduces" : ""));
  out.assume("op_counting", text("FLOP per element: norm + residual 5, RoPE 3, SiLU·mul 5, GELU 9; softmax, scaling and "
                                 "masking not counted; activations move in bf16, logits in fp32"));
  out.assume("attention_kernel", text("one fused FlashAttention-style kernel: scores stay on chip, K/V read once; "
                                      "causal prefill computes P(P+1)/2 query-key pairs per sequence"));
  if (mla)
    out.assume("mla_attention", text("MLA: prefill decompresses K and V per head; decode attends over the cached latent "
                                     "with the up-projections absorbed (DeepSeek-V2 §2.1.2)"));
  if (m.layers_of(specs::LayerAttention::sliding) > 0)
    out.assume("sliding_window", text("windowed layers attend to at most {} keys", static_cast<double>(m.sliding_window)));
  if (m.layers_of(specs::LayerAttention::chunked) > 0)
    out.assume("attention_chunk", text("{} chunked layers attend within chunks of {} tokens (in decode, at most {} keys: "
                                       "an upper bound)",
                                       static_cast<double>(m.layers_of(specs::LayerAttention::chunked)),
                                       static_cast<double>(m.attention_chunk), static_cast<double>(m.attention_chunk)));
  if (moe)
    out.assume("moe_routing", text("uniform, independent routing: n tokens touch E·(1 − (1 − k/E)^n) of a layer's {} "
                                   "experts, {} in a decode step, {} in prefill; each touched expert read once",
                                   static_cast<double>(m.moe.n_experts), r.touched_experts_decode,
                                   r.touched_experts_prefill));
}

// The prefill pass, tensor parallelism, the memory ledger's settings and what is not counted.
void ServeReport::run_assumptions(ResultSet& out) const {
  out.assume("prefill_pass", text("the {} prompt tokens run as one forward pass (weights read once); logits only for "
                                  "the last position of each prompt", batch.in(one) * in.prompt));
  if (tp) {
    out.assume("tp", text("TP {}: heads, MLP columns and vocabulary split Megatron-style; 2 ring all-reduces of "
                          "tokens·D·2 B per layer; collective latency beyond the kernel launch not modelled", in.tp));
    out.assume("link_bandwidth", text("{} per direction between GPUs", *in.link_bandwidth));
  }
  out.assume("memory_ledger", text("weights … per_gpu: napkin memory's inference ledger at context {} (512 MiB CUDA "
                                   "context, 5% fragmentation, 2048-token prefill chunk; napkin memory MODEL --context "
                                   "{} for the details)", context, context));
  out.assume("serve_extras", text("not counted: sampling, detokenization, the scheduler's CPU time, host-device copies, "
                                  "speculative decoding; no pipeline parallelism"));
}

}  // namespace

void serve(const specs::ModelSpec& m, const ServeInput& in, bool per_op, ResultSet& out) {
  const ServeReport t(m, in);
  check_trained_context(m, in.prompt.in(units::one) + in.generate.in(units::one), "--prompt + --generate", out);
  t.inputs(out);
  t.speed_items(out);
  t.decode_items(out);
  t.crossing_items(out);
  t.launch_items(out);
  t.memory_items(out);
  t.notes(out);
  if (per_op) {
    op_series(out, "prefill_ops", "Prefill ops (per GPU, summed over layers)", t.r.prefill);
    op_series(out, "decode_ops", "Decode ops (one step, per GPU, summed over layers)", t.r.decode);
  }
  t.dtype_assumptions(out);
  t.roofline_assumptions(out);
  t.kernel_assumptions(out);
  t.run_assumptions(out);
  expected_assumptions(out, in);
}

}  // namespace napkin
