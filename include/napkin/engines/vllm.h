// vLLM's own KV-cache budget (`--engine vllm`): how much of the GPU the engine gives its paged KV
// cache, in whole blocks, and how many requests of a given length fit in it at once.
//
// The figures follow vLLM's V1 engine release by release, v0.8.0 to v0.21 (VllmInput::version;
// vllm/v1/worker/gpu_worker.py determine_available_memory, vllm/utils/mem_utils.py
// memory_profiling, vllm/v1/worker/gpu_model_runner.py profile_run, vllm/v1/core/kv_cache_utils.py,
// vllm/engine/arg_utils.py get_batch_defaults). Its start-up profile sizes the pool as
//
//   kv_pool = gpu_memory_utilization × total_gpu_memory
//             − (weights + activation peak of the profiling run + non-torch memory [+ CUDA graphs])
//
// where total_gpu_memory is what torch.cuda.mem_get_info() reports (79.18–79.22 GiB on an H100
// 80GB, less than nvidia-smi's 79.65 GiB), and each deduction is per GPU. What changed between
// releases, each change cited where it is modelled (src/engines/vllm.cpp):
//   - v0.8.0–v0.9.0: the original V1 profile subtracts torch's allocated peak (weights included)
//     and everything the device holds outside torch after the run (CUDA context included).
//   - v0.9.1: V1 reuses V0's memory_profiling (#19312): non-torch memory is what grew outside
//     torch since the worker's first snapshot, NCCL buffers included.
//   - v0.11.0: NCCL is set up before that snapshot (#25359).
//   - The profiling run's peak is the sampler's warm-up over min(max_num_seqs, max_num_batched_tokens)
//     rows of the whole vocabulary, or the forward pass when that is larger: PyTorch's sort-based
//     top-k/top-p holds ~38 B per logit, FlashInfer's sampler and the Triton one ~14 B. FlashInfer
//     samples where it is installed up to v0.11.0 (the Docker images ship it), PyTorch from v0.11.1
//     (#26859 turned FlashInfer's sampler off) until the Triton kernels (#33538, taken here as
//     v0.16.0), FlashInfer again from v0.21 (#40376).
//   - v0.21: the CUDA-graph pool, estimated by capturing two graphs of each mode, is deducted before
//     the pool is sized (#30515, on by default in #38284), and gpu_memory_utilization defaults to 0.92.
// Start-up logs of v0.10.1 to v0.14 calibrate it (tests/engine_vllm_test.cpp, data/engines/vllm.csv).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "napkin/ground/dtype.h"
#include "napkin/ground/result.h"
#include "napkin/ground/units.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/model_spec.h"

namespace napkin {

/// A vLLM release, as `vllm --version` prints it: major.minor.patch (a fourth number, a post
/// release such as 0.10.1.1, profiles as its patch release and is dropped).
struct VllmVersion {
  int major = 0, minor = 0, patch = 0;
  auto operator<=>(const VllmVersion&) const = default;
  std::string text() const;  // "0.10.1"
};
/// The oldest release napkin models (V1 by default from v0.8.0) and the newest whose source it
/// read (main of 2026-05-24, after v0.21.0); versions beyond are refused rather than guessed.
inline constexpr VllmVersion kVllmOldest{0, 8, 0};
inline constexpr VllmVersion kVllmNewest{0, 21, 99};
/// The default: the newest release napkin was checked against start-up logs of
/// (data/engines/vllm.csv: twenty v0.19.0 H100 start-ups of llm-d-incubation/llm-d-planner PR #205
/// @ d3121e059da8, 2026-04-22).
inline constexpr VllmVersion kVllmDefaultVersion{0, 19, 0};
/// "0.10.1", "v0.10.1", "0.10.1.1", "0.11" (patch 0). InputError("--vllm-version", text, ...) on
/// anything else, or on a release outside [kVllmOldest, kVllmNewest].
VllmVersion parse_vllm_version(std::string_view text);

/// The GPU generation, where vLLM picks kernels (and so weight layouts) by it: MXFP4 experts go to
/// Marlin below sm_90, to triton_kernels on Hopper (sm_90) and consumer Blackwell (sm_120), to
/// FlashInfer on datacenter Blackwell (sm_100) (vllm/model_executor/layers/quantization/mxfp4.py
/// get_mxfp4_backend).
enum class VllmGpuArch { pre_hopper, hopper, blackwell, consumer_blackwell };
/// From a device name (napkin's preset name and full name, as the CLI passes it to
/// vllm_batch_defaults): H100/H200/H800/H20/GH200 → hopper; B200/B300/GB200/GB300 → blackwell;
/// RTX 50xx → consumer_blackwell; anything else (A100, L40S, RTX 30/40, ...) → pre_hopper.
VllmGpuArch vllm_gpu_arch(std::string_view device_name);

struct VllmInput {
  Bytes gpu_memory{};                    // total_gpu_memory: the device total as torch reports it
  double gpu_memory_utilization = 0.9;   // vLLM's default (EngineArgs.gpu_memory_utilization; 0.92 from v0.21)
  Count max_num_batched_tokens = 8192.0 * units::one;  // tokens of the profiling forward pass
  Count max_num_seqs = 1024.0 * units::one;            // rows of the sampler warm-up
  Count block_size = 16.0 * units::one;                // tokens per KV block (CacheConfig default)
  Count context{};                       // tokens per request (max_model_len), for max_concurrency
  Count users = 1.0 * units::one;        // requests of `context` tokens the pool must hold at once (--users)
  std::string_view users_flag = "--users";      // the flag that sets it, for messages
  std::string_view context_flag = "--context";  // the flag(s) that set it, for messages
  Count tp = 1.0 * units::one;
  Dtype kv_dtype = Dtype::bf16;
  Bytes weights{};                       // per GPU, as the inference ledger holds them (vllm_weights adds vLLM's layout)
  VllmVersion version = kVllmDefaultVersion;
  // Pipeline stages (--pipeline-parallel-size): each GPU holds its stage's layers (ceil(L / pp) are
  // counted, the most loaded stage) and the last stage runs the sampler; `weights` is the caller's
  // per-GPU figure for that stage.
  Count pp = 1.0 * units::one;
  // Whether the sampler warm-up runs FlashInfer's top-k/top-p (FlashInfer installed; vLLM up to
  // v0.11.0 uses it when it can import it). Unset: as the release's default install does
  // (vllm_flashinfer_sampler). Ignored where vLLM never picks it (v0.11.1 to v0.20).
  std::optional<bool> flashinfer_sampler{};
  bool enforce_eager = false;  // --enforce-eager: no CUDA graphs captured, none deducted
  VllmGpuArch arch = VllmGpuArch::hopper;  // the GPU's generation, for vllm_weights (callers that use it)
  // Where gpu_memory came from (the caller's sentence: a preset's measured CUDA total, the
  // driver's total, --gpu-memory); empty: the ledger states the total as torch's.
  std::string_view total_source{};
};

struct VllmBudget {
  Bytes budget{};           // gpu_memory_utilization × gpu_memory
  Bytes weights{};
  Bytes forward_peak{};     // the profiling forward pass at its widest layer (max_num_batched_tokens)
  Bytes sampler_peak{};     // the sampler warm-up, with the forward pass's hidden states still held
  Bytes activation_peak{};  // max(forward_peak, sampler_peak): torch's allocated peak over the run
  Bytes non_torch{};
  Bytes cuda_graph{};       // the CUDA-graph pool deducted before the pool is sized (v0.21+), else 0
  Bytes cuda_graph_estimate{};  // napkin's estimate of the graph pool, deducted or not (0 with enforce_eager)
  Bytes kv_pool{};          // budget − weights − activation_peak − non_torch − cuda_graph, or 0 when that is negative
  Bytes shortfall{};        // weights + activation_peak + non_torch + cuda_graph − budget when positive (vLLM will not start), else 0
  Bytes page{};             // one block of one layer: block_size × K,V bytes per token per layer (per GPU)
  std::int64_t attention_layers = 0;  // layers with a KV cache (on this GPU's pipeline stage)
  std::int64_t groups = 1;            // KV cache groups (one per attention type, split to group_size layers)
  std::int64_t group_size = 0;        // layers per group (the layers that share one block's tensor)
  std::int64_t kv_blocks = 0;         // ⌊kv_pool / (page × group_size)⌋, 0 when the pool is negative
  std::int64_t kv_pool_tokens = 0;    // as vLLM logs "GPU KV cache size": ⌊kv_blocks / groups⌋ × block_size, from v0.21 ⌊max_concurrency × context⌋
  std::int64_t blocks_per_request = 0;  // blocks one request of `context` tokens takes over all groups
  double max_concurrency = 0;           // kv_blocks / blocks_per_request
  double users = 1;                     // in.users
  double per_token_activation = 0;      // bytes per token of the profiling forward pass
  double sampler_rows = 0;              // min(max_num_seqs, max_num_batched_tokens)
  double sampler_bytes_per_logit = 0;   // 38 (PyTorch's sort) or 14 (FlashInfer, Triton)
};

/// vLLM's own checks of its settings, raised at start-up as vLLM raises them (InputError naming
/// the flag): in.context at most the model's context_limit (napkin/model/context_limit.h: vLLM's
/// derived max_model_len; the config's model_max_length may allow more); --block-size one of 1, 8, 16, 32, 64, 128 (vllm/config/cache.py BlockSize);
/// --max-num-batched-tokens at least --max-num-seqs (vllm/config/scheduler.py
/// SchedulerConfig._verify_args). vllm_budget calls it.
void validate_vllm_settings(const specs::ModelSpec& m, const VllmInput& in);

/// The batch defaults vLLM picks (EngineArgs, vllm/engine/arg_utils.py): for `vllm serve`
/// (UsageContext.OPENAI_API_SERVER) from v0.9.0 a GPU of at least 70 GiB whose name does not
/// contain "a100" gets max_num_batched_tokens 8192 and max_num_seqs 1024 (H100, H200, MI300X),
/// every other GPU 2048 and 256 (PR #17885 keeps A100s on the small defaults). Offline (`LLM(...)`,
/// UsageContext.LLM_CLASS) the tokens are 16384 and 8192. Before v0.9.0 the large branch was a
/// name containing "h100" or "h200"; before v0.8.4 max_num_seqs was 1024 on every GPU (#16158).
struct VllmBatchDefaults {
  double max_num_batched_tokens = 0;
  double max_num_seqs = 0;
  bool large = false;  // the ≥ 70 GiB, non-A100 branch
};
VllmBatchDefaults vllm_batch_defaults(Bytes gpu_memory, std::string_view device_name);
VllmBatchDefaults vllm_batch_defaults(Bytes gpu_memory, std::string_view device_name, VllmVersion version,
                                      bool offline = false);
/// gpu_memory_utilization's default in a release: 0.9, 0.92 from v0.21 (#38284).
double vllm_default_gpu_memory_utilization(VllmVersion version);
/// Whether a release samples with FlashInfer in its profiling run when in.flashinfer_sampler is
/// unset: up to v0.11.0 yes (FlashInfer sampler on whenever importable; the Docker images ship
/// FlashInfer; a pip install without it prints "FlashInfer is not available" and sorts), then no
/// until v0.21 (#26859 off, #40376 on again).
bool vllm_flashinfer_sampler(VllmVersion version);

/// Bytes the profiling forward pass holds per token at its widest point, one GPU's share: in an
/// MLP the residual stream, the normed input and the MLP input (3 · D) and the intermediates
/// (gated: gate-and-up output 2F plus the activation output F; plain: 2F); in a routed-expert
/// layer fused_moe's workspaces (k · max(2F, D) and k · F, F = expert width / tp, k = top-k) and
/// its output; in attention the q, k, v projection and its output. All at 2 B; the widest layer
/// kind counts.
double vllm_activation_bytes_per_token(const specs::ModelSpec& m, double tp);

/// vLLM's weights on one GPU, as "Model loading took X GiB" reports them: the inference ledger's
/// weights (in.weights_dtype and the checkpoint's storage, per GPU of the most loaded stage) plus
/// what vLLM lays out differently: the rotary embedding's cos/sin cache (max_position × head_dim
/// at 2 B, one per model), and for MXFP4 experts (gpt-oss) the padding vLLM's kernels need
/// (intermediate size rounded to 64, 128 or 256 per GPU, hidden size to 256 on Marlin and
/// FlashInfer; triton_kernels' Hopper swizzle pads the value and scale tiles; triton keeps the
/// expert biases in fp32).
struct VllmWeights {
  Bytes ledger{};          // inference_memory(m, in).weights
  Bytes rope_cache{};
  Bytes mxfp4_padding{};   // 0 unless the routed experts are MXFP4 (in.experts_only at fp4)
  Bytes total() const { return ledger + rope_cache + mxfp4_padding; }
};
VllmWeights vllm_weights(const specs::ModelSpec& m, const InferenceMemoryInput& in, VllmGpuArch arch);
/// The same for a model at `weights_dtype` (a checkpoint's declared quantization applied as the
/// CLI applies it: MXFP4 experts only for gpt-oss) over tp GPUs.
Bytes vllm_weights_per_gpu(const specs::ModelSpec& m, Dtype weights_dtype, double tp,
                           VllmGpuArch arch = VllmGpuArch::hopper);

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
/// gpu_budget, weights, activation_peak, non_torch, cuda_graph (releases that deduct it), kv_pool,
/// per_gpu (their sum, = gpu_budget), total, kv_blocks, kv_pool_tokens, max_concurrency, fits.
/// Beside another ledger (serve), the rows that would repeat it (weights, per_gpu, total, fits,
/// and the inputs context, tp, kv_dtype) are left out.
void vllm_budget(const specs::ModelSpec& m, const VllmInput& in, ResultSet& out, bool ledger = true);

/// Whether vLLM would start: no_cache_memory when the share falls short or the pool holds no block (vLLM:
/// "No available memory for the cache blocks"), request_too_long when one request of in.context
/// tokens needs more blocks than the pool holds (vLLM refuses max_model_len), too_few_requests when
/// vLLM starts but its pool holds fewer than in.users such requests at once (the rest queue).
enum class VllmFit { fits, no_cache_memory, request_too_long, too_few_requests };
VllmFit vllm_fit(const VllmBudget& b);

}  // namespace napkin
