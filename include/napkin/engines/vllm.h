// vLLM's own KV-cache budget (`--engine vllm`): how much of the GPU the engine gives its paged KV
// cache, in whole blocks, and how many requests of a given length fit in it at once.
//
// The figures follow vLLM's V1 engine as of v0.10 (vllm/v1/worker/gpu_worker.py
// determine_available_memory; vllm/v1/core/kv_cache_utils.py; vllm/engine/arg_utils.py
// get_batch_defaults). Its start-up profile sizes the pool as
//
//   kv_pool = gpu_memory_utilization × total_gpu_memory
//             − (weights + activation peak of the profiling run + non-torch memory)
//
// where total_gpu_memory is what torch.cuda.mem_get_info() reports (79.19–79.22 GiB on an H100
// 80GB, less than nvidia-smi's 79.65 GiB), and each of the three deductions is per GPU. V0 from
// v0.6.5 on and V1 up to v0.10 size the pool by the same formula, so start-up logs of those
// versions calibrate it (tests/engine_vllm_test.cpp cites them). Later versions also deduct the
// CUDA-graph pool profiled before the KV cache is sized; that is not modelled here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "napkin/ground/dtype.h"
#include "napkin/ground/result.h"
#include "napkin/ground/units.h"
#include "napkin/model/model_spec.h"

namespace napkin {

struct VllmInput {
  Bytes gpu_memory{};                    // total_gpu_memory: the device total as torch reports it
  double gpu_memory_utilization = 0.9;   // vLLM's default (EngineArgs.gpu_memory_utilization)
  Count max_num_batched_tokens = 8192.0 * units::one;  // tokens of the profiling forward pass
  Count max_num_seqs = 1024.0 * units::one;            // rows of the sampler warm-up
  Count block_size = 16.0 * units::one;                // tokens per KV block (CacheConfig default)
  Count context{};                       // tokens per request (max_model_len), for max_concurrency
  Count users = 1.0 * units::one;        // requests of `context` tokens the pool must hold at once (--users)
  std::string_view users_flag = "--users";      // the flag that sets it, for messages
  std::string_view context_flag = "--context";  // the flag(s) that set it, for messages
  Count tp = 1.0 * units::one;
  Dtype kv_dtype = Dtype::bf16;
  Bytes weights{};                       // per GPU, as the inference ledger holds them
  // Where gpu_memory came from (the caller's sentence: a preset's measured CUDA total, the
  // driver's total, --gpu-memory); empty: the ledger states the total as torch's.
  std::string_view total_source{};
};

struct VllmBudget {
  Bytes budget{};           // gpu_memory_utilization × gpu_memory
  Bytes weights{};
  Bytes forward_peak{};     // per-token activations of the profiling batch
  Bytes sampler_peak{};     // fp32 logits of the sampler warm-up
  Bytes activation_peak{};  // forward_peak + sampler_peak
  Bytes non_torch{};
  Bytes kv_pool{};          // budget − weights − activation_peak − non_torch, or 0 when that is negative
  Bytes shortfall{};        // weights + activation_peak + non_torch − budget when positive (vLLM will not start), else 0
  Bytes page{};             // one block of one layer: block_size × K,V bytes per token per layer (per GPU)
  std::int64_t attention_layers = 0;  // layers with a KV cache
  std::int64_t groups = 1;            // KV cache groups (one per attention type, split to group_size layers)
  std::int64_t group_size = 0;        // layers per group (the layers that share one block's tensor)
  std::int64_t kv_blocks = 0;         // ⌊kv_pool / (page × group_size)⌋, 0 when the pool is negative
  std::int64_t kv_pool_tokens = 0;    // ⌊kv_blocks / groups⌋ × block_size
  std::int64_t blocks_per_request = 0;  // blocks one request of `context` tokens takes over all groups
  double max_concurrency = 0;           // kv_blocks / blocks_per_request
  double users = 1;                     // in.users
  double per_token_activation = 0;      // bytes per token of the profiling batch
};

/// vLLM's own checks of its settings, raised at start-up as vLLM raises them (InputError naming
/// the flag): in.context at most the model's context_limit (napkin/model/context_limit.h: vLLM's
/// derived max_model_len; the config's model_max_length may allow more); --block-size one of 1, 8, 16, 32, 64, 128 (vllm/config/cache.py BlockSize);
/// --max-num-batched-tokens at least --max-num-seqs (vllm/config/scheduler.py
/// SchedulerConfig._verify_args). vllm_budget calls it.
void validate_vllm_settings(const specs::ModelSpec& m, const VllmInput& in);

/// The batch defaults vLLM picks for `vllm serve` (UsageContext.OPENAI_API_SERVER) in
/// EngineArgs.get_batch_defaults (v0.9–v0.10): a GPU of at least 70 GiB whose name does not
/// contain "a100" gets max_num_batched_tokens 8192 and max_num_seqs 1024 (H100, H200, MI300X);
/// every other GPU 2048 and 256 (PR #17885 keeps A100s on the small defaults).
struct VllmBatchDefaults {
  double max_num_batched_tokens = 0;
  double max_num_seqs = 0;
  bool large = false;  // the ≥ 70 GiB, non-A100 branch
};
VllmBatchDefaults vllm_batch_defaults(Bytes gpu_memory, std::string_view device_name);

/// Bytes the profiling forward pass holds per token at its peak, inside the MLP of one layer:
/// the residual stream, the normed input and the MLP input copy (3 · D, not split by TP) and the
/// MLP intermediates (gated: gate-and-up output 2F plus the activation output F, 3F; plain: 2F),
/// F being one GPU's share (F / tp; for MoE layers top_k × expert width / tp), all at 2 B.
double vllm_activation_bytes_per_token(const specs::ModelSpec& m, double tp);

/// The KV pool vLLM would allocate, its blocks and tokens, and the concurrency at in.context.
/// Sliding-window (and chunked-attention) layers form their own KV cache groups as vLLM's hybrid
/// allocator makes them: layers of one attention type are split into groups of group_size
/// layers (the smallest type's layer count, or the largest when it is below 1.25 × the
/// smallest); every group draws blocks from one pool of ⌊kv_pool / (page · group_size)⌋ blocks.
/// A full-attention group needs ⌈context / block_size⌉ blocks per request, a sliding group
/// ⌈min(window − 1 + max_num_batched_tokens, context) / block_size⌉ + 1. Mamba layers and
/// encoder-decoders are refused (InputError), and so are 2^53 blocks or more in the pool (naming
/// --gpu-memory) or in one request (naming in.context_flag): block counts stay exact integers.
/// Preconditions: gpu_memory, context, block_size, max_num_batched_tokens, max_num_seqs positive;
/// 0 < gpu_memory_utilization ≤ 1.
VllmBudget vllm_budget(const specs::ModelSpec& m, const VllmInput& in);
/// The same as result rows with formulas and assumptions. As a ledger (memory --engine vllm):
/// gpu_budget, weights, activation_peak, non_torch, kv_pool, per_gpu (their sum, = gpu_budget),
/// total, kv_blocks, kv_pool_tokens, max_concurrency, fits. Beside another ledger (serve), the
/// rows that would repeat it (weights, per_gpu, total, fits, and the inputs context, tp,
/// kv_dtype) are left out.
void vllm_budget(const specs::ModelSpec& m, const VllmInput& in, ResultSet& out, bool ledger = true);

/// Whether vLLM would start: no_cache_memory when the share falls short or the pool holds no block (vLLM:
/// "No available memory for the cache blocks"), request_too_long when one request of in.context
/// tokens needs more blocks than the pool holds (vLLM refuses max_model_len), too_few_requests when
/// vLLM starts but its pool holds fewer than in.users such requests at once (the rest queue).
enum class VllmFit { fits, no_cache_memory, request_too_long, too_few_requests };
VllmFit vllm_fit(const VllmBudget& b);

}  // namespace napkin
