// Serving a model: a roofline model of inference (prefill and decode), per kernel, per GPU, with
// the memory ledger beside it. Course notes 7.2 (three bottlenecks: compute, memory, overhead),
// 7.3 (FLOP from matrix shapes), 7.4 (the ledger), 7.5 (roofline). The per-op view follows
// LLM-Viewer (Yuan et al. 2024, "LLM Inference Unveiled: Survey and Roofline Model Insights").
//
// The model, stated once here and as assumptions in the ResultSet:
//   - a forward pass is a sequence of kernels (ops); each op's time is
//       max(C / R_peak, Q / BW, kernels · t_launch)
//     (the roofline with perfect overlap, and a floor from the kernel launch: the CPU does not
//     run ahead of the GPU), and the pass is the sum over its ops;
//   - prefill runs the B·P prompt tokens as one pass; decode runs B tokens (one per sequence)
//     attending to the mean context of the G − 1 decode steps, P + G/2;
//   - linear layers: C = 2 · tokens · W, Q = W · bytes/param + inputs + outputs (bf16);
//   - attention is one fused (FlashAttention-style) kernel: prefill attends causally,
//     P(P+1)/2 query-key pairs per sequence (a window W caps each row at W keys), decode reads
//     the KV cache of every sequence;
//   - MoE: the routed experts of a layer that n tokens touch, E·(1 − (1 − k/E)^n) in
//     expectation under uniform independent routing, are read once;
//   - TP: Megatron-style, 2 all-reduces of tokens·D·2 B per layer, ring: 2(t−1)/t · bytes / link.
//
// Preconditions (InputError naming the input): positive integers for batch, prompt, generate and
// tp; positive peak and bandwidth; a link bandwidth when tp > 1; a decoder model.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "napkin/ground/dtype.h"
#include "napkin/ground/result.h"
#include "napkin/ground/units.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/model_spec.h"
#include "napkin/plans/serve_expected.h"

namespace napkin {

using TokenRate = Quantity<DimDiv<Tokens::dim, Seconds::dim>>;  // tokens/s

struct ServeInput {
  Dtype weights_dtype = Dtype::bf16;
  Count group_size{};                     // quantization group (one scale each); 0: none
  Dtype scale_dtype = Dtype::fp16;        // the per-group scale (fp32 for FP8 blocks, bitsandbytes)
  bool zero_points = false;               // a zero point per group too, in scale_dtype
  bool quantize_all = false;              // embeddings, LM head and norms quantized too
  bool experts_only = false;              // only routed experts' matrices quantized (MXFP4; InferenceMemoryInput)
  std::optional<Bytes> stored_weights{};  // the checkpoint's tensor bytes (InferenceMemoryInput)
  std::string_view stored_source{};       // where they were read (outlives the ResultSet)
  std::string_view stored_detail{};       // the storage types read
  Dtype kv_dtype = Dtype::bf16;
  Dtype compute_dtype = Dtype::bf16;      // the dtype `peak` is for (for the assumption text)
  Count batch = 1.0 * units::one;         // concurrent sequences B
  Count prompt = 1024.0 * units::one;     // prompt tokens per sequence P
  Count generate = 256.0 * units::one;    // generated tokens per sequence G
  Count tp = 1.0 * units::one;
  FlopRate peak{};                        // dense peak for compute_dtype
  Bandwidth bandwidth{};                  // memory bandwidth
  std::optional<Bandwidth> link_bandwidth{};  // per direction, for the TP all-reduce
  std::optional<Bytes> capacity{};        // GPU memory, for the fit verdict
  Seconds launch_overhead = 5.0 * units::us;  // per kernel launched from the CPU
  bool cuda_graphs = false;               // decode replayed from a CUDA graph
  Seconds graph_overhead = 1.0 * units::us;   // per kernel inside a graph
  // The engine's efficiency (serve_expected.h): the expected_* results beside the bound; nullopt:
  // the bound only. efficiency_source says where each coefficient came from (a profile fitted on
  // published measurements, or a flag), one text per coefficient, outliving the ResultSet.
  std::optional<Efficiency> efficiency{};
  struct EfficiencySource {
    std::string_view profile, bandwidth, compute, prefill_half, pass_overhead;
    bool operator==(const EfficiencySource&) const = default;
  } efficiency_source{};
  bool operator==(const ServeInput&) const = default;  // serve.cpp memoizes on it
};

enum class Bound { compute, memory, overhead, communication };
std::string_view to_string(Bound b);

/// One op of a pass, summed over the layers it appears in.
struct OpCost {
  std::string_view name;
  double count = 0;    // instances in the pass (layers, or 2 per layer for the all-reduce)
  double kernels = 0;  // launches over all instances
  Flops flops{};
  Bytes bytes{};        // HBM traffic (weights, activations, KV cache)
  Bytes weight_bytes{}, kv_bytes{};
  Bytes comm_bytes{};   // all-reduce payload (sent over the link, not counted in `bytes`)
  bool matmul = false;  // a weight GEMM (projections, MLP, experts, router, LM head)
  Seconds compute{}, memory{}, comm{}, launch{};  // Σ C/R, Σ Q/BW, Σ link time, kernels · t_kernel
  Seconds roof{};       // Σ max(C/R, Q/BW, link time)
  Seconds time{};       // Σ max(roof, kernels · t_kernel): what the op costs
  /// The largest of compute, memory, comm and launch (compute on a tie with memory: the
  /// notes' I ≥ I* condition).
  Bound bound() const;
  Intensity intensity() const;  // C / Q (0 when Q is 0)
};

struct PhaseCost {
  std::vector<OpCost> ops;
  Flops flops{};
  Bytes bytes{}, weight_bytes{}, kv_bytes{}, comm_bytes{};
  Seconds compute{}, memory{}, comm{}, launch{};  // ΣC/R, ΣQ/BW, Σ link, kernels · t_kernel
  Seconds roof{}, time{};
  double kernels = 0;
  Flops matmul_flops{};  // of the weight GEMMs only
  Bytes matmul_bytes{};
  /// The pass as one roofline: the largest of ΣC/R, ΣQ/BW, Σ link time and kernels · t_kernel.
  /// compute vs memory flips exactly where ΣC/ΣQ crosses the ridge R/BW.
  Bound bound() const;
  Intensity intensity() const { return flops / bytes; }
};

struct Serve {
  PhaseCost prefill, decode;
  std::optional<PhaseCost> decode_alternative;  // decode with the other launch mode (graphs or not)
  double decode_context = 0;                    // P + G/2
  double decode_steps = 0;                      // G − 1 (the first token comes from prefill)
  double touched_experts_decode = 0, touched_experts_prefill = 0;  // per MoE layer
  std::optional<std::int64_t> compute_bound_batch;  // nullopt: never at this context
  Intensity decode_limit_intensity{};              // intensity as batch → ∞
  std::optional<std::int64_t> matmul_compute_bound_batch;  // the weight GEMMs alone
  Intensity matmul_limit_intensity{};
  std::optional<ExpectedPhase> expected_prefill, expected_decode;  // with in.efficiency
  InferenceMemory memory;
  std::optional<std::int64_t> max_batch;  // memory solver at context P + G, when capacity is known
  Seconds latency() const;
};

/// Expected distinct experts n tokens touch when each picks k of E uniformly: E·(1 − (1 − k/E)^n).
double expected_experts_touched(double experts, double top_k, double tokens);

/// The inference ledger's input for a serving run: its weights' storage, KV dtype, batch, the
/// context P + G, TP and capacity (what serve's memory rows and the engines' weights read).
InferenceMemoryInput serve_memory_input(const ServeInput& in);

/// A training micro-batch's forward: the prefill pass of in.batch sequences of in.prompt tokens at
/// in.tp, with the LM head over every token (not only the last), as per-op costs (link time not
/// filled in: in.link_bandwidth is not read). The plans layer's training step model reads it.
PhaseCost training_forward_pass(const specs::ModelSpec& m, const ServeInput& in);

/// The prefill pass, one decode step at the mean context, the batch at which decode turns
/// compute-bound and the memory ledger (inference_memory at context P + G).
Serve serve(const specs::ModelSpec& m, const ServeInput& in);
/// The `serve` command's result; `per_op` adds the prefill_ops and decode_ops series. The spec
/// must outlive `out`.
void serve(const specs::ModelSpec& m, const ServeInput& in, bool per_op, ResultSet& out);

}  // namespace napkin
