// vLLM's KV-cache budget. See napkin/engines/vllm.h for the formula and the releases it follows.
// vLLM source cited as file@commit of github.com/vllm-project/vllm (the commits are on main; the
// release a change first shipped in is inferred from the date and stated as such).
#include "napkin/engines/vllm.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/context_limit.h"

namespace napkin {

using namespace units;

namespace {

// Non-torch memory: what the profiling run adds outside PyTorch's allocator (NCCL communicators
// and their channel buffers, the custom all-reduce IPC buffers, cuBLAS workspaces). How much of it
// vLLM counts depends on when it takes its first snapshot:
//   - v0.8.0–v0.9.0 (vllm/v1/worker/gpu_worker.py determine_available_memory@d19110204c03):
//     everything the device holds outside torch's allocated bytes after the run, the CUDA context
//     included. Not checked against a log: the context (~0.45 GiB, napkin's 512 MiB runtime reserve
//     less the allocator's share) plus the parallel buffers below.
//   - v0.9.1–v0.10 (#19312, cc867be19; snapshot before init_worker_distributed_environment,
//     gpu_worker.py@2bef2d1405fa): NCCL counted. Logs: 0.07 GiB on one H100 (v0.10.2,
//     "Actual usage is 14.08 GiB for weight, 1.97 GiB for peak activation, 0.07 GiB for non-torch
//     memory"), 0.17–0.21 GiB on each of 8 L40S (v0.10.2).
//   - v0.11.0+ (#25359, abad204be: NCCL set up before the snapshot): 0.13–0.14 GiB on one H100,
//     0.54–0.55 GiB at TP 2 on H100s (https://github.com/llm-d/llm-d-benchmark/pull/622,
//     config_explorer/empirical-vllm-memory-results.md "Non-torch Memory (GiB)").
//   - v0.18.0+ on one GPU: 0.25–0.27 GiB (llm-d-incubation/llm-d-planner PR #205 @ d3121e059da8,
//     Qwen3-14B on v0.18.0, and its twenty v0.19.0 H100 logs: "Actual usage is ... 0.25 GiB for
//     non-torch memory"; v0.17.0 still 0.13).
//   - v0.19.0+ at TP ≥ 2: 2.07–2.21 GiB (the same PR's v0.19.0 logs at TP 2 and 4, which also print
//     "Initialized FlashInfer All Reduce workspace: backend=trtllm": the all-reduce workspace is
//     allocated during profiling). No TP ≥ 2 log of v0.15–v0.18 was found: the step is placed at
//     v0.19.0, the first release seen with it.
constexpr double kNonTorchLegacySingleGiB = 0.45, kNonTorchLegacyParallelGiB = 0.65;
constexpr double kNonTorchV09SingleGiB = 0.07, kNonTorchV09ParallelGiB = 0.20;
constexpr double kNonTorchV11SingleGiB = 0.13, kNonTorchV11ParallelGiB = 0.55;
constexpr double kNonTorchV18SingleGiB = 0.25, kNonTorchV19ParallelGiB = 2.10;

// Bytes of one activation element in the profiling run (the model's 16-bit dtype).
constexpr double kActivationBytes = 2.0;

// The sampler warm-up (gpu_model_runner.py _dummy_sampler_run): the LM head's logits of
// min(max_num_seqs, max_num_batched_tokens) rows over the whole vocabulary, cast to fp32
// (vllm/v1/sample/sampler.py forward), sampled with top_k = V − 1 and top_p = 0.9.
// PyTorch's path (vllm/v1/sample/ops/topk_topp_sampler.py apply_top_k_top_p) sorts the fp32
// logits: at the sort the bf16 logits (2 B), the fp32 copy (4), the sorted values (4) and indices
// (8), and the sort's own iota indices (8) and radix double buffers (4 + 8) are alive: 38 B per
// logit. Logs give 38.2–38.4 B (activation peaks of 4.76 GiB for Llama-3.1-8B's 1024 × 128256
// logits, 5.56 GiB for Qwen3-0.6B's 1024 × 151936, 7.38 GiB for gpt-oss-20b's 1024 × 201088,
// hidden states taken off: https://github.com/llm-d/llm-d-benchmark/pull/622; 1.4 GiB for
// 256 × 151936 on L40S, v0.10.2; vLLM PR #32558 measures the sort path at 1.25 GB for 256 × 131072).
// FlashInfer's top_k_top_p_sampling_from_logits (top_k_mask_logits, then softmax) and the Triton
// kernel (topk_topp_triton.py, in place; then softmax and the exponential draw) hold the bf16 and
// fp32 logits and two fp32 copies: 14 B.
constexpr double kSortSamplerBytes = 38.0;
constexpr double kLeanSamplerBytes = 14.0;

// CUDA-graph memory as vLLM estimates it from v0.21 (gpu_model_runner.py profile_cudagraph_memory:
// the first capture of each mode plus the second's growth times the graphs left). napkin: one
// capture's activations (the largest size × the per-token peak) plus 160 KiB per graph and
// layer, from the one v0.21 log at hand: 0.52 GiB for Qwen3-8B's 36 layers, PIECEWISE=51 and
// FULL=35 graphs (https://github.com/LMCache/LMCache/issues/3430, "Estimated CUDA graph memory:
// 0.52 GiB total"). A rough figure: logged pools range 0.1–3.5 GiB.
constexpr double kGraphBytesPerLayer = 160.0 * 1024.0;

constexpr std::array<double, 6> kVllmBlockSizes = {1, 8, 16, 32, 64, 128};

// Block counts are exact integers below 2^53, refused above it rather than cast past the range of
// an integer: a pool of more blocks is a GPU memory no device has (the smallest page, one token
// of one layer at 4 bits per K and V element, is 1 B: 2^53 blocks are 9 PB), a request of more
// blocks a context no model takes.
constexpr double kExactIntegers = 9007199254740992.0;

// The profiling batches of the start-up logs the activation model was checked against
// (tests/engine_vllm_test.cpp): 2048 to 8192 batched tokens, 256 to 1024 sequences. Outside them
// the activation peak is an extrapolation, and the ledger says so.
constexpr double kCalibratedTokensLow = 2048, kCalibratedTokensHigh = 8192;
constexpr double kCalibratedSeqsLow = 256, kCalibratedSeqsHigh = 1024;

double ceil_div(double a, double b) { return std::ceil(a / b); }

// One attention type of the model: its layers and the keys one request keeps in each.
struct AttentionType {
  specs::LayerAttention kind;
  std::int64_t window = 0;  // sliding window or chunk; 0 for full attention
  std::int64_t layers = 0;
};

std::vector<AttentionType> attention_types(const specs::ModelSpec& m, double pp) {
  std::vector<AttentionType> types;
  for (std::int64_t l = 0; l < m.layers; ++l) {
    const specs::LayerAttention k = m.layer_attention(l);
    if (k == specs::LayerAttention::none) continue;
    const std::int64_t w = k == specs::LayerAttention::sliding   ? m.sliding_window
                           : k == specs::LayerAttention::chunked ? m.attention_chunk
                                                                 : 0;
    auto it = std::find_if(types.begin(), types.end(), [&](const AttentionType& t) { return t.kind == k && t.window == w; });
    if (it == types.end()) types.push_back({k, w, 1});
    else ++it->layers;
  }
  // A pipeline stage holds ⌈L / pp⌉ layers at most (vllm/distributed/utils.py get_pp_indices:
  // ⌊L / pp⌋ each, the remainder one more on the stages before the last); each type's share is
  // taken the same way.
  if (pp > 1.0)
    for (auto& t : types) t.layers = static_cast<std::int64_t>(std::ceil(static_cast<double>(t.layers) / pp));
  return types;
}


bool at_least(VllmVersion v, int major, int minor, int patch = 0) { return v >= VllmVersion{major, minor, patch}; }

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return out;
}

bool contains_any(const std::string& text, std::initializer_list<const char*> needles) {
  return std::any_of(needles.begin(), needles.end(), [&](const char* n) { return text.find(n) != std::string::npos; });
}

// Non-torch memory by release and TP (the constants above).
double non_torch_gib(VllmVersion v, double tp) {
  const bool parallel = tp > 1.0;
  if (!at_least(v, 0, 9, 1)) return parallel ? kNonTorchLegacyParallelGiB : kNonTorchLegacySingleGiB;
  if (!at_least(v, 0, 11, 0)) return parallel ? kNonTorchV09ParallelGiB : kNonTorchV09SingleGiB;
  if (parallel) return at_least(v, 0, 19, 0) ? kNonTorchV19ParallelGiB : kNonTorchV11ParallelGiB;
  return at_least(v, 0, 18, 0) ? kNonTorchV18SingleGiB : kNonTorchV11SingleGiB;
}

// Bytes per logit of the sampler warm-up in release v (the constants above):
//   - up to v0.11.0 FlashInfer's sampler whenever FlashInfer imports (topk_topp_sampler.py@d19110204c03:
//     `envs.VLLM_USE_FLASHINFER_SAMPLER is not False`), else PyTorch's sort;
//   - v0.11.1 to v0.15: PyTorch's sort (#26859, e66d787bc "Disable FlashInfer sampler by default");
//   - from v0.17.0 the Triton kernel for 8 rows or more (#33538, c656ba3b4 of 2026-02-17): the
//     llm-d-planner PR #205 version sweep (Qwen3-14B on one H100) logs the sort's 5.64 GiB
//     activation peak on v0.15.0 and v0.16.0 and 2.23 GiB from v0.17.0; FlashInfer again from v0.21
//     (#40376, b92ef9ec5).
double sampler_bytes_per_logit(VllmVersion v, std::optional<bool> flashinfer, double rows) {
  if (at_least(v, 0, 17, 0)) return rows >= 8 ? kLeanSamplerBytes : kSortSamplerBytes;
  if (at_least(v, 0, 11, 1)) return kSortSamplerBytes;
  return flashinfer.value_or(true) ? kLeanSamplerBytes : kSortSamplerBytes;
}

// The CUDA-graph sizes vLLM captures (vllm/config/vllm.py _set_cudagraph_sizes, v0.21): up to
// min(2 · max_num_seqs, 512, max_num_batched_tokens): 1, 2, 4, then every 8 below 256, then every
// 16; piecewise graphs of each size, and (FULL_AND_PIECEWISE, the default) full decode graphs of
// the sizes up to max_num_seqs.
struct GraphSizes {
  double piecewise = 0, full = 0, largest = 0;
};
GraphSizes graph_sizes(double max_num_seqs, double max_num_batched_tokens) {
  const double largest = std::min({2.0 * max_num_seqs, 512.0, max_num_batched_tokens});
  GraphSizes g;
  g.largest = largest;
  auto count_upto = [](double top) {
    double n = 0;
    for (double s : {1.0, 2.0, 4.0})
      if (s <= top) n += 1;
    for (double s = 8; s < 256 && s <= top; s += 8) n += 1;
    for (double s = 256; s <= top; s += 16) n += 1;
    return n;
  };
  g.piecewise = count_upto(largest);
  g.full = count_upto(std::min(largest, max_num_seqs));
  return g;
}

// One MXFP4 expert layer's bytes on one GPU as vLLM lays it out (mxfp4.py Mxfp4MoEMethod
// create_weights@b1ded114b976): w13 [E, 2·I', D'/2] and w2 [E, D', I'/2] uint8 values, one uint8
// scale per 32 values, biases [E, 2·I'] and [E, D'] — bf16, fp32 once triton has them
// (process_weights_after_loading: `layer.w13_bias.to(torch.float32)`). I' and D' are the padded
// sizes. Hopper's triton_kernels layout (tensor_details/layout_details/hopper_value.py and
// hopper_scale.py, github.com/triton-lang/triton) pads the transposed values to 64 rows (of the
// halved K) by 256 columns, and the scales to 256 rows.
double mxfp4_layer_bytes(double experts, double i_pad, double d_pad, bool hopper_swizzle, bool fp32_bias) {
  auto round_up = [](double x, double a) { return std::ceil(x / a) * a; };
  double values = 0, scales = 0;
  if (hopper_swizzle) {
    // w13 as [E, K = D, N = 2I] fp4 with the block axis on K: storage K/2 → 64-aligned, N → 256-aligned.
    values += experts * round_up(d_pad / 2.0, 64) * round_up(2.0 * i_pad, 256);
    values += experts * round_up(i_pad / 2.0, 64) * round_up(d_pad, 256);
    scales += experts * round_up(2.0 * i_pad, 256) * round_up(d_pad / 32.0, 2);
    scales += experts * round_up(d_pad, 256) * round_up(i_pad / 32.0, 2);
  } else {
    values += experts * (2.0 * i_pad * d_pad / 2.0 + d_pad * i_pad / 2.0);
    scales += experts * (2.0 * i_pad * d_pad / 32.0 + d_pad * i_pad / 32.0);
  }
  const double biases = experts * (2.0 * i_pad + d_pad) * (fp32_bias ? 4.0 : 2.0);
  return values + scales + biases;
}

}  // namespace

void validate_vllm_settings(const specs::ModelSpec& m, const VllmInput& in) {
  // vllm/config/model.py _get_and_verify_max_len: "User-specified max_model_len (...) is greater
  // than the derived max_model_len (...)" is a ValueError unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.
  if (const ContextLimit limit = context_limit(m);
      limit.tokens > 0 && in.context.in(one) > static_cast<double>(limit.tokens) &&
      !(m.model_max_length > 0 && in.context.in(one) <= static_cast<double>(m.model_max_length)))
    throw InputError(std::string(in.context_flag), format_plain_number(in.context.in(one)),
                     "at most vLLM's derived max_model_len " + std::to_string(limit.tokens) + " (" + limit.source +
                         "); vLLM refuses a longer one unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1");
  // vllm/config/cache.py: BlockSize = Literal[1, 8, 16, 32, 64, 128] (the CLI's --block-size
  // choices; v0.10, earlier vllm/config.py CacheConfig).
  const double block = in.block_size.in(one);
  if (std::find(kVllmBlockSizes.begin(), kVllmBlockSizes.end(), block) == kVllmBlockSizes.end())
    throw InputError("--block-size", format_plain_number(block), "one of vLLM's block sizes 1, 8, 16, 32, 64 or 128");
  // vllm/config/scheduler.py SchedulerConfig._verify_args: "max_num_batched_tokens (...) must be
  // greater than or equal to max_num_seqs (...)".
  // vLLM schedules at most max_num_seqs requests at once (SchedulerConfig.max_num_seqs): more
  // users than that queue on any number of GPUs.
  if (in.users > in.max_num_seqs)
    throw InputError(std::string(in.users_flag), format_plain_number(in.users.in(one)),
                     "at most --max-num-seqs (" + format_plain_number(in.max_num_seqs.in(one)) +
                         "): vLLM runs at most max_num_seqs requests at once; raise --max-num-seqs");
  if (in.max_num_batched_tokens < in.max_num_seqs)
    throw InputError("--max-num-batched-tokens", format_plain_number(in.max_num_batched_tokens.in(one)),
                     "at least --max-num-seqs (" + format_plain_number(in.max_num_seqs.in(one)) +
                         "): vLLM refuses fewer tokens per step than sequences");
}

std::string VllmVersion::text() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

VllmVersion parse_vllm_version(std::string_view text) {
  const std::string expected = "a vLLM release " + kVllmOldest.text() + " to " + std::to_string(kVllmNewest.major) + "." +
                               std::to_string(kVllmNewest.minor) + ".x as MAJOR.MINOR[.PATCH] (\"0.10.1\"; V1 from 0.8.0; " +
                               "releases after the newest whose source napkin read are not modelled)";
  std::string_view t = text;
  if (!t.empty() && (t.front() == 'v' || t.front() == 'V')) t.remove_prefix(1);
  std::array<int, 4> parts{};
  std::size_t n = 0;
  while (true) {
    if (n == parts.size()) throw InputError("--vllm-version", std::string(text), expected);
    if (t.empty() || !std::isdigit(static_cast<unsigned char>(t.front())))
      throw InputError("--vllm-version", std::string(text), expected);
    int value = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
    if (ec != std::errc{} || end == t.data() || value < 0 || value > 9999)
      throw InputError("--vllm-version", std::string(text), expected);
    parts[n++] = value;
    t.remove_prefix(static_cast<std::size_t>(end - t.data()));
    if (t.empty()) break;
    if (t.front() != '.') throw InputError("--vllm-version", std::string(text), expected);
    t.remove_prefix(1);
  }
  if (n < 2) throw InputError("--vllm-version", std::string(text), expected);
  const VllmVersion v{parts[0], parts[1], parts[2]};
  if (v < kVllmOldest || v > kVllmNewest) throw InputError("--vllm-version", std::string(text), expected);
  return v;
}

VllmGpuArch vllm_gpu_arch(std::string_view device_name) {
  const std::string name = lower(device_name);
  if (contains_any(name, {"b200", "b300", "gb200", "gb300", "b100"})) return VllmGpuArch::blackwell;
  if (contains_any(name, {"h100", "h200", "h800", "h20", "gh200"})) return VllmGpuArch::hopper;
  if (contains_any(name, {"rtx-50", "rtx 50", "5090", "5080", "5070", "5060", "rtx pro 6000 blackwell"}))
    return VllmGpuArch::consumer_blackwell;
  return VllmGpuArch::pre_hopper;
}

VllmBatchDefaults vllm_batch_defaults(Bytes gpu_memory, std::string_view device_name) {
  return vllm_batch_defaults(gpu_memory, device_name, kVllmDefaultVersion);
}

VllmBatchDefaults vllm_batch_defaults(Bytes gpu_memory, std::string_view device_name, VllmVersion version, bool offline) {
  const std::string name = lower(device_name);
  // vllm/engine/arg_utils.py: from v0.9.0 (#17885, 911215528) `device_memory >= 70 * GiB_bytes and
  // "a100" not in device_name`; before it (_set_default_args_v1@61c6a5a79664) `"h100" in device_name
  // or "h200" in device_name`.
  const bool large = at_least(version, 0, 9, 0) ? gpu_memory >= 70.0 * GiB && name.find("a100") == std::string::npos
                                                 : contains_any(name, {"h100", "h200"});
  VllmBatchDefaults d;
  d.large = large;
  // {LLM_CLASS: 16384, OPENAI_API_SERVER: 8192} on the large branch, {8192, 2048} else.
  d.max_num_batched_tokens = large ? (offline ? 16384.0 : 8192.0) : (offline ? 8192.0 : 2048.0);
  // max_num_seqs 1024 on the large branch and 256 else (#16158, 66d433b94, v0.8.4); 1024 on every
  // GPU before it.
  d.max_num_seqs = large || !at_least(version, 0, 8, 4) ? 1024.0 : 256.0;
  return d;
}

double vllm_default_gpu_memory_utilization(VllmVersion version) {
  // vllm/config/cache.py CacheConfig.gpu_memory_utilization: 0.9, 0.92 with #38284 (96a85c575).
  return at_least(version, 0, 21, 0) ? 0.92 : 0.9;
}

bool vllm_flashinfer_sampler(VllmVersion version) { return !at_least(version, 0, 11, 1) || at_least(version, 0, 21, 0); }

double vllm_activation_bytes_per_token(const specs::ModelSpec& m, double tp) {
  const double d = static_cast<double>(m.hidden);
  const bool gated = m.ffn_kind == specs::FfnKind::gated;
  double widest = 0;  // elements per token of the widest layer kind
  bool dense_seen = false, moe_seen = false;
  for (std::int64_t l = 0; l < m.layers; ++l) {
    const specs::LayerFfn k = m.layer_ffn(l);
    if (k == specs::LayerFfn::dense && !dense_seen) {
      dense_seen = true;
      const double f = static_cast<double>(m.ffn) / tp;
      widest = std::max(widest, 3.0 * d + (gated ? 3.0 : 2.0) * f);
    } else if (k == specs::LayerFfn::moe && !moe_seen) {
      moe_seen = true;
      // vllm/model_executor/layers/fused_moe/fused_moe.py fused_experts_impl@b1ded114b976: cache13
      // [M, k, max(N, K)] shared by the gate-and-up output and the down output, cache2
      // [M·k, N/2], the output [M, K]; N = 2·I per GPU, K = D. Beside them the layer's input,
      // residual and normed input (3 · D).
      const double f = static_cast<double>(m.moe.expert_ffn) / tp;
      const double k_top = static_cast<double>(m.moe.experts_per_token);
      widest = std::max(widest, 4.0 * d + k_top * (std::max(2.0 * f, d) + f));
      // A shared expert (DeepSeek, Qwen-MoE) runs as a dense MLP beside the routed ones.
      const double shared = static_cast<double>(m.moe.n_shared_experts * m.moe.expert_ffn + m.moe.shared_ffn) / tp;
      if (shared > 0) widest = std::max(widest, 3.0 * d + 3.0 * shared);
    }
  }
  // Attention: the fused q, k, v projection and the attention output (the profiling run skips the
  // kernel itself: FlashAttentionImpl.forward returns early without attention metadata).
  const double q = static_cast<double>(m.heads * m.head_dim) / tp;
  const double kv = 2.0 * std::max(1.0, std::floor(static_cast<double>(m.kv_heads) / tp)) * static_cast<double>(m.head_dim);
  if (m.attention != specs::AttentionKind::mla) widest = std::max(widest, 2.0 * d + q + kv + q);
  return kActivationBytes * widest;
}

VllmWeights vllm_weights(const specs::ModelSpec& m, const InferenceMemoryInput& in, VllmGpuArch arch) {
  VllmWeights w;
  w.ledger = inference_memory(m, in).weights;
  // vllm/model_executor/layers/rotary_embedding/base.py RotaryEmbedding: cos_sin_cache
  // [max_position, rotary_dim] in the model's dtype, registered on the GPU with the model (one per
  // model: get_rope caches the instance). Llama-3.1-8B: 131072 × 128 × 2 B = 32 MiB, the gap
  // between its 14.96 GiB of bf16 parameters and vLLM's "Model loading took 14.99 GiB".
  if (m.positions == specs::PositionKind::rotary && m.max_context > 0 && m.head_dim > 0)
    w.rope_cache = static_cast<double>(m.max_context) * static_cast<double>(m.head_dim) * kActivationBytes * byte;
  // MXFP4 routed experts (gpt-oss): vLLM's layout minus the checkpoint's, per MoE layer of the stage.
  // MXFP4 experts: as the ledger's dtype arithmetic has them, or in a checkpoint whose stored
  // bytes the ledger took (src/cli/weight_storage.cpp) and whose config declares them.
  const bool mxfp4 = (in.experts_only && !in.quantize_all && in.weights_dtype == Dtype::fp4) ||
                     (in.stored_weights && m.quant_experts_only && m.quant_dtype == "fp4");
  if (mxfp4 && m.moe.is_moe()) {
    const double tp = in.tp.in(one), pp = in.pp.in(one);
    double moe_layers = 0;
    for (std::int64_t l = 0; l < m.layers; ++l) moe_layers += m.layer_ffn(l) == specs::LayerFfn::moe ? 1.0 : 0.0;
    moe_layers = std::ceil(moe_layers / pp);
    const double e = static_cast<double>(m.moe.n_experts), d = static_cast<double>(m.hidden);
    const double i = static_cast<double>(m.moe.expert_ffn) / tp;
    auto round_up = [](double x, double a) { return std::ceil(x / a) * a; };
    // mxfp4.py create_weights@b1ded114b976: Marlin pads I to 128 and D to 256; FlashInfer on sm_100
    // pads both to 256; triton pads I to 64.
    double i_pad = i, d_pad = d;
    bool swizzle = false, fp32_bias = false;
    switch (arch) {
      case VllmGpuArch::pre_hopper: i_pad = round_up(i, 128); d_pad = round_up(d, 256); break;
      case VllmGpuArch::blackwell: i_pad = round_up(i, 256); d_pad = round_up(d, 256); break;
      case VllmGpuArch::hopper: i_pad = round_up(i, 64); swizzle = true; fp32_bias = true; break;
      case VllmGpuArch::consumer_blackwell: i_pad = round_up(i, 64); fp32_bias = true; break;
    }
    const double vllm_bytes = mxfp4_layer_bytes(e, i_pad, d_pad, swizzle, fp32_bias);
    const double stored = mxfp4_layer_bytes(e, i, d, false, false);
    w.mxfp4_padding = moe_layers * std::max(0.0, vllm_bytes - stored) * byte;
  }
  return w;
}

Bytes vllm_weights_per_gpu(const specs::ModelSpec& m, Dtype weights_dtype, double tp, VllmGpuArch arch) {
  InferenceMemoryInput in;
  in.weights_dtype = weights_dtype;
  in.tp = tp * one;
  in.context = 1.0 * one;
  // The checkpoint's declared quantization, as the CLI applies it (src/cli/weight_storage.cpp):
  // its group and scale type, and MXFP4 on the experts only.
  if (!m.quant_method.empty() && !m.quant_dtype.empty() && dtype_name(weights_dtype) == m.quant_dtype) {
    in.group_size = static_cast<double>(m.quant_group) * one;
    in.scale_dtype = parse_dtype(m.quant_scale_dtype, "quantization_config");
    in.zero_points = m.quant_zero_points;
    in.experts_only = m.quant_experts_only;
  }
  return vllm_weights(m, in, arch).total();
}

VllmBudget vllm_budget(const specs::ModelSpec& m, const VllmInput& in) {
  require_positive(in.gpu_memory, "gpu_memory");
  require_positive_integer(in.context, "context");
  require_positive_integer(in.block_size, "block_size");
  require_positive_integer(in.max_num_batched_tokens, "max_num_batched_tokens");
  require_positive_integer(in.max_num_seqs, "max_num_seqs");
  require_positive_integer(in.tp, "tp");
  require_positive_integer(in.users, "users");
  require_positive_integer(in.pp, "pp");
  if (!(in.gpu_memory_utilization > 0.0 && in.gpu_memory_utilization <= 1.0))
    throw InputError("--gpu-memory-utilization", format_plain_number(in.gpu_memory_utilization),
                     "a fraction of the GPU's memory in (0, 1]");
  if (in.version < kVllmOldest || in.version > kVllmNewest)
    throw InputError("--vllm-version", in.version.text(), "a vLLM release " + kVllmOldest.text() + " to 0.21.x");
  specs::refuse_encoder_decoder(m, "--engine vllm");
  specs::refuse_mamba_layers(m, "--engine vllm (vLLM's Mamba state blocks are not modelled)");
  specs::refuse_unmodelled_layers(m, "--engine vllm (vLLM's state and indexer cache blocks are not modelled)");
  validate_vllm_settings(m, in);

  VllmBudget b;
  const double tp = in.tp.in(one), pp = in.pp.in(one);
  const double tokens = in.max_num_batched_tokens.in(one);
  const double block = in.block_size.in(one);
  const double context = in.context.in(one);
  b.budget = in.gpu_memory_utilization * in.gpu_memory;
  b.weights = in.weights;
  b.users = in.users.in(one);
  b.per_token_activation = vllm_activation_bytes_per_token(m, tp);
  b.forward_peak = tokens * b.per_token_activation * byte;
  // profile_run (gpu_model_runner.py@b1ded114b976): _dummy_run(max_num_tokens) returns the hidden
  // states [T, D], kept while _dummy_sampler_run takes the last position of each of
  // min(max_num_seqs, T) requests (and a random copy of them) to the LM head and the sampler. With
  // pipeline parallelism only the last stage samples; its forward pass is the same.
  b.sampler_rows = std::min(in.max_num_seqs.in(one), tokens);
  b.sampler_bytes_per_logit = sampler_bytes_per_logit(in.version, in.flashinfer_sampler, b.sampler_rows);
  const double d = static_cast<double>(m.hidden), v = static_cast<double>(m.vocab);
  b.sampler_peak = (kActivationBytes * tokens * d + 2.0 * kActivationBytes * b.sampler_rows * d +
                    b.sampler_rows * v * b.sampler_bytes_per_logit) *
                   byte;
  b.activation_peak = std::max(b.forward_peak, b.sampler_peak);
  b.non_torch = non_torch_gib(in.version, tp) * GiB;

  // The attention types on this GPU's stage, and the layers the CUDA graphs cover.
  const std::vector<AttentionType> types = attention_types(m, pp);
  const double stage_layers = std::ceil(static_cast<double>(m.layers) / pp);
  if (!in.enforce_eager) {
    const GraphSizes g = graph_sizes(in.max_num_seqs.in(one), tokens);
    b.cuda_graph_estimate = (g.largest * b.per_token_activation +
                             std::max(0.0, g.piecewise + g.full - 1.0) * stage_layers * kGraphBytesPerLayer) *
                            byte;
  }
  // gpu_worker.py determine_available_memory (main of 2026-05-24, #30515 and #38284): from v0.21
  // the estimate is subtracted unless VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.
  if (at_least(in.version, 0, 21, 0)) b.cuda_graph = b.cuda_graph_estimate;

  const Bytes left = b.budget - b.weights - b.activation_peak - b.non_torch - b.cuda_graph;
  b.kv_pool = left > Bytes{} ? left : Bytes{};
  b.shortfall = left < Bytes{} ? Bytes{} - left : Bytes{};

  // vLLM shards KV heads over TP and keeps at least one per GPU (num_kv_heads // tp_size, min 1);
  // an MLA latent is whole on every GPU.
  const double kv_heads = m.attention == specs::AttentionKind::mla
                              ? static_cast<double>(m.kv_heads)
                              : std::max(1.0, std::floor(static_cast<double>(m.kv_heads) / tp));
  b.page = block * kv_bytes_per_token_per_layer(m, in.kv_dtype, kv_heads);

  std::int64_t min_layers = 0, max_layers = 0;
  for (const auto& t : types) {
    b.attention_layers += t.layers;
    min_layers = min_layers == 0 ? t.layers : std::min(min_layers, t.layers);
    max_layers = std::max(max_layers, t.layers);
  }
  if (b.attention_layers == 0)
    throw InputError("--engine", "vllm", "a model with attention layers ('" + m.name + "' caches no keys)");
  // kv_cache_utils._get_kv_cache_config_uniform_page_size: group_size is the smallest type's
  // layer count, or the largest when that is below 1.25 × the smallest (fewer padded groups).
  b.group_size = static_cast<double>(max_layers) < 1.25 * static_cast<double>(min_layers) ? max_layers : min_layers;
  b.groups = 0;
  double blocks_per_request = 0;
  for (const auto& t : types) {
    const auto n = static_cast<std::int64_t>(ceil_div(static_cast<double>(t.layers), static_cast<double>(b.group_size)));
    b.groups += n;
    // FullAttentionSpec / SlidingWindowSpec (and ChunkedLocalAttentionSpec) max_memory_usage_bytes.
    const double per_group = t.kind == specs::LayerAttention::full
                                 ? ceil_div(context, block)
                                 : ceil_div(std::min(static_cast<double>(t.window) - 1.0 + tokens, context), block) + 1.0;
    blocks_per_request += static_cast<double>(n) * per_group;
  }
  if (blocks_per_request >= kExactIntegers)
    throw InputError(std::string(in.context_flag), format_plain_number(context),
                     "a context whose request takes fewer than 2^53 KV blocks (" + format_plain_number(blocks_per_request) +
                         " blocks over " + std::to_string(b.groups) + " KV cache groups at --block-size " +
                         format_plain_number(block) + ")");
  b.blocks_per_request = static_cast<std::int64_t>(blocks_per_request);
  if (b.kv_pool > Bytes{}) {
    const double blocks = std::floor(b.kv_pool.in(byte) / (b.page * static_cast<double>(b.group_size)).in(byte));
    if (blocks >= kExactIntegers)
      throw InputError("--gpu-memory", format_plain_number(in.gpu_memory.in(byte)) + " B",
                       "a GPU memory whose KV pool holds fewer than 2^53 blocks (a pool of " +
                           format_plain_number(blocks) + " blocks of " + format_plain_number(b.page.in(byte)) +
                           " B per layer)");
    b.kv_blocks = static_cast<std::int64_t>(blocks);
    b.max_concurrency = static_cast<double>(b.kv_blocks) / blocks_per_request;
    // "GPU KV cache size": kv_cache_utils.py@b1ded114b976 `num_blocks // len(kv_cache_groups) *
    // min_block_size`; from v0.21 (#41069, e68fa1b90) `int(max_concurrency * max_model_len)`.
    b.kv_pool_tokens = at_least(in.version, 0, 21, 0)
                           ? static_cast<std::int64_t>(std::floor(b.max_concurrency * context))
                           : (b.kv_blocks / b.groups) * static_cast<std::int64_t>(block);
  }
  return b;
}

VllmFit vllm_fit(const VllmBudget& b) {
  if (b.shortfall > Bytes{} || b.kv_blocks == 0) return VllmFit::no_cache_memory;
  if (b.max_concurrency < 1.0) return VllmFit::request_too_long;
  if (b.max_concurrency < b.users) return VllmFit::too_few_requests;
  return VllmFit::fits;
}

void vllm_budget(const specs::ModelSpec& m, const VllmInput& in, ResultSet& out, bool ledger) {
  const VllmBudget b = vllm_budget(m, in);
  const double tp = in.tp.in(one), pp = in.pp.in(one);
  const bool graphs = b.cuda_graph > Bytes{};
  if (ledger) out.command = "memory";
  out.input("engine", verdict("vllm"));
  out.input("vllm_version", verdict(out.keep(in.version.text())));
  out.input("gpu_memory", value(in.gpu_memory));
  out.input("gpu_memory_utilization", value(in.gpu_memory_utilization));
  out.input("max_num_batched_tokens", value(in.max_num_batched_tokens));
  out.input("max_num_seqs", value(in.max_num_seqs));
  out.input("block_size", value(in.block_size));
  if (ledger) {
    out.input("context", value(in.context));
    out.input("tp", value(in.tp));
    if (pp > 1.0) out.input("pp", value(in.pp));
    out.input("kv_dtype", verdict(dtype_name(in.kv_dtype)));
  }

  out.item("gpu_budget", "vLLM's share", value(b.budget), "u · total_gpu_memory",
           text("{} · {}", in.gpu_memory_utilization, in.gpu_memory));
  if (ledger)
    out.item("weights", "weights", value(b.weights), "vLLM's weights per GPU", text("{}", b.weights));
  const bool sampler_wins = b.sampler_peak >= b.forward_peak;
  if (sampler_wins)
    out.item("activation_peak", "activation peak", value(b.activation_peak),
             "T · D · 2 B + 2 · R · D · 2 B + R · V · (bytes per logit), R = min(S, T): the sampler warm-up",
             text("{} · {} · 2 B + 2 · {} · {} · 2 B + {} · {} · {} B", in.max_num_batched_tokens.in(one),
                  static_cast<double>(m.hidden), b.sampler_rows, static_cast<double>(m.hidden), b.sampler_rows,
                  static_cast<double>(m.vocab), b.sampler_bytes_per_logit));
  else
    out.item("activation_peak", "activation peak", value(b.activation_peak),
             "T · (bytes per token of the widest layer): the profiling forward pass",
             text("{} · {}", in.max_num_batched_tokens.in(one), b.per_token_activation * byte));
  out.item("non_torch", "non-torch memory", value(b.non_torch), tp > 1.0 ? "NCCL + all-reduce buffers (TP ≥ 2)" : "one GPU",
           text("{}", b.non_torch));
  if (graphs)
    out.item("cuda_graph", "CUDA graphs", value(b.cuda_graph),
             "largest capture · per-token activation + (graphs − 1) · layers · 160 KiB",
             text("{}", b.cuda_graph));
  const Bytes deducted = b.weights + b.activation_peak + b.non_torch + b.cuda_graph;
  if (b.shortfall > Bytes{}) {
    // Nothing is left for the cache: the pool is empty and the row below says by how much the
    // share falls short, so that no row is a negative byte count.
    if (graphs) {
      out.item("kv_pool", "KV pool", value(b.kv_pool), "max(0, budget − weights − activation peak − non-torch − CUDA graphs)",
               text("max(0, {} − {} − {} − {} − {})", b.budget, b.weights, b.activation_peak, b.non_torch, b.cuda_graph));
      out.item("shortfall", "vLLM's share short by", value(b.shortfall),
               "weights + activation peak + non-torch + CUDA graphs − budget",
               text("{} + {} + {} + {} − {}", b.weights, b.activation_peak, b.non_torch, b.cuda_graph, b.budget));
    } else {
      out.item("kv_pool", "KV pool", value(b.kv_pool), "max(0, budget − weights − activation peak − non-torch)",
               text("max(0, {} − {} − {} − {})", b.budget, b.weights, b.activation_peak, b.non_torch));
      out.item("shortfall", "vLLM's share short by", value(b.shortfall), "weights + activation peak + non-torch − budget",
               text("{} + {} + {} − {}", b.weights, b.activation_peak, b.non_torch, b.budget));
    }
  } else if (graphs) {
    out.item("kv_pool", "KV pool", value(b.kv_pool), "budget − weights − activation peak − non-torch − CUDA graphs",
             text("{} − {} − {} − {} − {}", b.budget, b.weights, b.activation_peak, b.non_torch, b.cuda_graph));
  } else {
    out.item("kv_pool", "KV pool", value(b.kv_pool), "budget − weights − activation peak − non-torch",
             text("{} − {} − {} − {}", b.budget, b.weights, b.activation_peak, b.non_torch));
  }
  if (ledger) {
    if (graphs)
      out.item("per_gpu", "per GPU", value(deducted + b.kv_pool),
               "weights + activation peak + non-torch + CUDA graphs + KV pool",
               text("{} + {} + {} + {} + {}", b.weights, b.activation_peak, b.non_torch, b.cuda_graph, b.kv_pool))
          .is_total = true;
    else
      out.item("per_gpu", "per GPU", value(deducted + b.kv_pool), "weights + activation peak + non-torch + KV pool",
               text("{} + {} + {} + {}", b.weights, b.activation_peak, b.non_torch, b.kv_pool))
        .is_total = true;
    out.item("total", "all GPUs", value(tp * pp * (deducted + b.kv_pool)), "per GPU · tp · pp",
             text("{} GPU(s)", tp * pp));
  }
  out.item("kv_blocks", "KV blocks", value(static_cast<double>(b.kv_blocks)), "⌊pool / (page · layers per group)⌋",
           text("⌊{} / ({} · {})⌋", b.kv_pool, b.page, static_cast<double>(b.group_size)));
  const Tokens pool_tokens = static_cast<double>(b.kv_pool_tokens) * token;
  if (in.version >= VllmVersion{0, 21, 0})
    out.item("kv_pool_tokens", "KV pool tokens", value(pool_tokens), "⌊max_concurrency · context⌋",
             text("⌊{} · {}⌋", b.max_concurrency, in.context.in(one)));
  else if (b.groups > 1)
    out.item("kv_pool_tokens", "KV pool tokens", value(pool_tokens), "⌊blocks / groups⌋ · block_size",
             text("⌊{} / {}⌋ · {}", static_cast<double>(b.kv_blocks), static_cast<double>(b.groups), in.block_size.in(one)));
  else
    out.item("kv_pool_tokens", "KV pool tokens", value(pool_tokens), "blocks · block_size",
             text("{} · {}", static_cast<double>(b.kv_blocks), in.block_size.in(one)));
  out.item("max_concurrency", "requests at --context", value(b.max_concurrency),
           "blocks / blocks per request", text("{} / {}", static_cast<double>(b.kv_blocks), static_cast<double>(b.blocks_per_request)));
  if (ledger && b.users > 1.0)
    out.item("fits", "fits", boolean(vllm_fit(b) == VllmFit::fits), "--users requests of --context fit the pool at once",
             text(b.max_concurrency >= b.users ? "{} requests ≥ {}" : "{} requests < {}", b.max_concurrency, b.users));
  else if (ledger)
    out.item("fits", "fits", boolean(vllm_fit(b) == VllmFit::fits), "a request of --context fits the pool",
             text("{} requests", b.max_concurrency));

  const VllmVersion v = in.version;
  const std::string_view version_text = out.keep(v.text());
  const char* era = v < VllmVersion{0, 9, 1}
                        ? "the original V1 profile (torch's allocated peak and all non-torch memory, CUDA context "
                          "included, after the run)"
                    : v < VllmVersion{0, 11, 0} ? "memory_profiling (#19312; non-torch counted from before NCCL's set-up)"
                                                : "memory_profiling with NCCL set up before the first snapshot (#25359)";
  // The CUDA-graph estimate and the pipeline split are stated inside existing assumption keys
  // (src/cli/assumption_flags.cpp maps each key to the flag that changes it).
  if (graphs)
    out.assume("vllm_version",
               text("vLLM {} ({}): pool = u · total − (weights + activation peak + non-torch + CUDA graphs); the "
                    "CUDA-graph pool is deducted (default since v0.21), here napkin's rough estimate {} (vLLM profiles "
                    "its own at start-up)",
                    version_text, era, b.cuda_graph));
  else
    out.assume("vllm_version",
               text("vLLM {} ({}): pool = u · total − (weights + activation peak + non-torch); CUDA graphs are "
                    "captured after the pool is sized and are not deducted",
                    version_text, era));
  out.assume("gpu_memory_utilization", text("vLLM takes {} of the GPU's memory", in.gpu_memory_utilization));
  if (in.total_source.empty())
    out.assume("vllm_total_memory", text("total_gpu_memory {} as torch reports it (torch sees ~0.4 GiB less than "
                                         "nvidia-smi's total: 79.18–79.22 GiB on an H100 80GB)", in.gpu_memory));
  const char* sampler = b.sampler_bytes_per_logit == kSortSamplerBytes
                            ? "PyTorch's sort-based top-k/top-p (38 B per logit)"
                            : v >= VllmVersion{0, 21, 0} || (v < VllmVersion{0, 11, 1})
                                  ? "FlashInfer's top-k/top-p (14 B per logit)"
                                  : "the Triton top-k/top-p kernel (14 B per logit)";
  out.assume("vllm_activation",
             text("activation peak is a model: the larger of the profiling forward pass ({} tokens at {} per token) "
                  "and the sampler warm-up over {} rows of {} logits with {}, the forward pass's hidden states held; "
                  "checked against vLLM start-up logs",
                  in.max_num_batched_tokens.in(one), b.per_token_activation * byte, b.sampler_rows,
                  static_cast<double>(m.vocab), sampler));
  const double tokens = in.max_num_batched_tokens.in(one), seqs = in.max_num_seqs.in(one);
  if (tokens < kCalibratedTokensLow || tokens > kCalibratedTokensHigh || seqs < kCalibratedSeqsLow ||
      seqs > kCalibratedSeqsHigh)
    out.warn(text("vLLM's activation peak at --max-num-batched-tokens {} and --max-num-seqs {} is extrapolated: the "
                  "model was checked against start-up logs at 2048 to 8192 tokens and 256 to 1024 sequences",
                  tokens, seqs));
  out.assume("vllm_non_torch", text("non-torch memory {} ({}, vLLM {})", b.non_torch,
                                    tp > 1.0 ? "TP ≥ 2: NCCL and custom all-reduce buffers" : "one GPU, no communicators",
                                    version_text));
  if (pp > 1.0)
    out.assume("block_size", text("{} tokens per KV block; {} per block of one layer; pipeline parallel over {} stages: "
                                  "each GPU caches its stage's {} attention layers (⌈L / pp⌉ at most) and the last "
                                  "stage's sampler warm-up is counted",
                                  in.block_size.in(one), b.page, pp, static_cast<double>(b.attention_layers)));
  else
    out.assume("block_size", text("{} tokens per KV block; {} per block of one layer", in.block_size.in(one), b.page));
  if (b.groups > 1)
    out.assume("vllm_kv_groups",
               text("hybrid KV cache: {} groups of {} layers (sliding-window layers in groups of their own) share "
                    "one block pool; a sliding group holds window − 1 + max_num_batched_tokens tokens per request; "
                    "tokens as vLLM logs them",
                    static_cast<double>(b.groups), static_cast<double>(b.group_size)));
  out.assume("max_num_seqs", text("sampler warm-up over max_num_seqs {} rows", in.max_num_seqs.in(one)));
}

}  // namespace napkin
