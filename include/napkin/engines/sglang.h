// SGLang's own KV-cache budget (`--engine sglang`): the static memory SGLang takes at start-up
// (--mem-fraction-static), the token pool it carves out of it and the requests of a given length
// that fit.
//
// SGLang sizes the pool in ModelRunner.profile_max_num_token (python/sglang/srt/model_executor/
// model_runner.py, v0.4–v0.5.2; model_runner_kv_cache_mixin.py from v0.5.3 on):
//
//   rest   = available_after_weights − available_before_weights × (1 − mem_fraction_static)
//          = P · mem_fraction_static − weights          (P: free memory before the weights load)
//   tokens = ⌊rest / cell_size⌋, then min(--max-total-tokens) and rounded down to --page-size
//
// where P is the minimum over the ranks of torch.cuda.mem_get_info's free memory after the
// distributed init ("Load weight begin. avail mem=" in the log), cell_size the K and V bytes of one
// token over every layer on one GPU: max(1, ⌊kv_heads / tp⌋) · head_dim · 2 · layers · dtype bytes,
// or for MLA (kv_lora_rank + qk_rope_head_dim) · layers · dtype bytes, whole on every GPU.
//
// When --mem-fraction-static is not given SGLang picks it from the GPU's memory (nvidia-smi's
// total in MiB, server_args.py get_device_memory_capacity) by one of four rules, by release
// (SglangHeuristic below). tests/engine_sglang_test.cpp and data/engines/sglang.csv hold the
// start-up logs the budget is checked against.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "napkin/ground/dtype.h"
#include "napkin/ground/result.h"
#include "napkin/ground/units.h"
#include "napkin/model/model_spec.h"

namespace napkin {

/// How a release picks mem_fraction_static when it is not given (python/sglang/srt/server_args.py).
enum class SglangHeuristic : std::uint8_t {
  tp_table,         // up to v0.4.6: 0.88 at TP 1, 0.87 at TP 2, 0.85 at 4, 0.81 at 8, 0.79 at 16
  memory_table,     // v0.4.7–v0.5.2 (PR #7054, 2025-06-10): reserved = a table by GPU memory and TP · PP
  reserve_formula,  // v0.5.3–v0.5.7 (PR #10975, 2025-09-27, and #11076): reserved from the chunked-prefill
                    // size, the CUDA-graph batch size and TP · PP, at least 10 GiB on GPUs above 60 GiB
  prefill_graphs,   // v0.5.8 on: the same plus the piecewise prefill CUDA graphs captured by default
};

/// The rule release `version` follows ("0.5.2", "v0.4.3.post4", "0.5.10rc0"). InputError naming
/// --sglang-version for text that does not start with MAJOR.MINOR.PATCH.
SglangHeuristic sglang_heuristic(std::string_view version);
std::string_view sglang_heuristic_name(SglangHeuristic h);

/// What links the GPUs of a TP group: the communicators SGLang sets up before the weights load
/// differ (custom all-reduce buffers over NVLink; NCCL alone over PCIe, where SGLang disables its
/// custom all-reduce for more than two GPUs).
enum class SglangLinks : std::uint8_t { nvlink, pcie };

struct SglangInput {
  Bytes gpu_memory{};     // torch's total of one GPU (torch.cuda.mem_get_info()[1])
  Bytes device_memory{};  // the driver's total (nvidia-smi), which the default fraction is computed from
  std::optional<double> mem_fraction_static;  // --mem-fraction-static; absent: the release's default
  SglangHeuristic heuristic = SglangHeuristic::prefill_graphs;
  std::string_view version = "0.5.8";        // as given, for the assumptions
  std::optional<Count> chunked_prefill_size;  // absent: SGLang's default for the GPU
  std::optional<Count> cuda_graph_max_bs;     // absent: SGLang's default for the GPU and TP
  std::optional<Count> max_total_tokens;      // --max-total-tokens: a cap on the pool
  Count page_size = 1.0 * units::one;         // tokens per KV page (--page-size)
  Count context{};                            // tokens per request (--context-length)
  std::string_view context_flag = "--context";
  Count tp = 1.0 * units::one;
  SglangLinks links = SglangLinks::nvlink;
  Dtype kv_dtype = Dtype::bf16;
  Bytes weights{};  // per GPU, as the inference ledger holds them
};

/// The defaults SGLang derives from the GPU's memory (server_args.py _handle_gpu_memory_settings)
/// and, where the release computes it, the memory it reserves outside the static pool (MB = MiB).
struct SglangDefaults {
  double chunked_prefill_size = 0, cuda_graph_max_bs = 0;
  double metadata_mb = 0;       // 512: attention-backend metadata
  double activation_mb = 0;     // 1.5 · max(chunked_prefill_size, 2048)
  double decode_graph_mb = 0;   // 2 · cuda_graph_max_bs
  double prefill_graph_mb = 0;  // 8 per prefill graph size (1.5 GiB for MLA), prefill_graphs only
  double prefill_graphs = 0;    // piecewise prefill graph sizes captured
  double parallel_mb = 0;       // TP · PP / 8 · 1024
  double reserved_mb = 0;       // what the default fraction leaves out
  bool floor_applied = false;   // raised to 10 GiB (GPUs above 60 GiB)
  double mem_fraction_static = 0;
};
SglangDefaults sglang_defaults(const specs::ModelSpec& m, const SglangInput& in);

struct SglangBudget {
  SglangDefaults defaults;
  double mem_fraction_static = 0;
  bool fraction_given = false;
  Bytes startup{};        // torch's total − P: CUDA context, allocator, communicators
  Bytes available{};      // P: free before the weights load
  Bytes static_budget{};  // P · mem_fraction_static
  Bytes weights{};        // the weights and what loading them leaves allocated (load_extras)
  Bytes load_extras{};
  Bytes rest{};           // static_budget − weights, 0 when negative
  Bytes shortfall{};      // weights − static_budget when positive (SGLang will not start), else 0
  Bytes headroom{};       // P · (1 − mem_fraction_static): activations and CUDA graphs
  Bytes cell{};           // K and V bytes of one token over every layer, one GPU
  std::int64_t attention_layers = 0;
  std::int64_t profiled_tokens = 0;  // ⌊rest / cell⌋
  std::int64_t kv_pool_tokens = 0;   // after --max-total-tokens and --page-size
  bool capped = false;               // --max-total-tokens set the pool
  Bytes kv_pool{};                   // kv_pool_tokens · cell: the K and V buffers allocated
  std::int64_t req_pool = 0;               // ReqToTokenPool rows
  std::int64_t max_running_requests = 0;   // min(tokens / 2, req_pool)
  double requests_at_context = 0;          // kv_pool_tokens / context
};

/// The budget SGLang would allocate. Refuses (InputError) encoder-decoders, Mamba and
/// recurrent-state layers, sparse-attention indexers, per-layer KV shapes, and the architectures
/// SGLang gives a hybrid sliding-window pool (Llama 4, Gemma 4, MiMo-V2, Step-3.5: their pool
/// split is not modelled); a fraction outside (0, 1] (naming --mem-fraction-static); pools or
/// requests of 2^53 tokens or more. Preconditions: gpu_memory, device_memory, context, tp,
/// page_size positive.
SglangBudget sglang_budget(const specs::ModelSpec& m, const SglangInput& in);
/// The same as result rows with formulas and assumptions. As a ledger (memory --engine sglang):
/// startup, available, mem_fraction_static, static_budget, weights, kv_pool, activation_headroom, per_gpu
/// (their sum with startup: the GPU's total), total, prefill_reserve, cuda_graph,
/// kv_pool_tokens, max_running_requests, max_concurrency, fits. Beside another ledger (serve), the
/// rows that would repeat it (weights, per_gpu, total, fits and the inputs context, tp, kv_dtype)
/// are left out.
void sglang_budget(const specs::ModelSpec& m, const SglangInput& in, ResultSet& out, bool ledger = true);

/// Whether SGLang would serve a request of in.context tokens: no_cache_memory when the weights
/// leave nothing for the pool (SGLang stops: "Not enough memory. Please try to increase
/// --mem-fraction-static"), request_too_long when the pool holds fewer tokens than one request
/// (SGLang starts but caps a request at the pool's size).
enum class SglangFit { fits, no_cache_memory, request_too_long };
SglangFit sglang_fit(const SglangBudget& b);

}  // namespace napkin
