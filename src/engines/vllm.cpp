// vLLM's KV-cache budget. See napkin/engines/vllm.h for the formula and the version it follows.
#include "napkin/engines/vllm.h"

#include <algorithm>
#include <array>
#include <cctype>
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
// and their channel buffers, the custom all-reduce IPC buffers, cuBLAS workspaces). vLLM logs it
// as "non_torch_memory takes X GiB". One GPU: 0.15–0.16 GiB on an H100 (vLLM V0 start-up logs,
// e.g. https://github.com/generative-computing/mellea/pull/416 "non_torch_memory takes 0.16GiB").
// Tensor parallel adds the communicators: 0.25 GiB at TP 2 on RTX 4090s
// (https://github.com/vllm-project/vllm/issues/13061), 0.34–0.43 GiB at TP 4 on A100 40GB
// (https://github.com/vllm-project/vllm/issues/16570); 0.40 GiB is taken for any TP ≥ 2.
constexpr double kNonTorchSingleGiB = 0.15;
constexpr double kNonTorchParallelGiB = 0.40;

// Bytes of one activation element in the profiling run (the model's 16-bit dtype) and of one
// logit in the sampler (vLLM's Sampler casts logits to float32).
constexpr double kActivationBytes = 2.0;
constexpr double kLogitBytes = 4.0;

constexpr std::array<double, 6> kVllmBlockSizes = {1, 8, 16, 32, 64, 128};

// Block counts are exact integers below 2^53, refused above it rather than cast past the range of
// an integer: a pool of more blocks is a GPU memory no device has (the smallest page, one token
// of one layer at 4 bits per K and V element, is 1 B: 2^53 blocks are 9 PB), a request of more
// blocks a context no model takes.
constexpr double kExactIntegers = 9007199254740992.0;

// The profiling batches of the start-up logs the activation model was checked against
// (tests/engine_vllm_test.cpp): 2048 to 29000 batched tokens, 256 to 1024 sequences. Outside them
// the activation peak is an extrapolation, and the ledger says so.
constexpr double kCalibratedTokensLow = 2048, kCalibratedTokensHigh = 29000;
constexpr double kCalibratedSeqsLow = 256, kCalibratedSeqsHigh = 1024;

double ceil_div(double a, double b) { return std::ceil(a / b); }

// One attention type of the model: its layers and the keys one request keeps in each.
struct AttentionType {
  specs::LayerAttention kind;
  std::int64_t window = 0;  // sliding window or chunk; 0 for full attention
  std::int64_t layers = 0;
};

std::vector<AttentionType> attention_types(const specs::ModelSpec& m) {
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
  return types;
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

VllmBatchDefaults vllm_batch_defaults(Bytes gpu_memory, std::string_view device_name) {
  std::string lower(device_name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  // vllm/engine/arg_utils.py get_batch_defaults: `device_memory >= 70 * GiB_bytes and "a100" not
  // in device_name` → {OPENAI_API_SERVER: 8192} tokens and {OPENAI_API_SERVER: 1024} sequences;
  // else 2048 and 256.
  const bool large = gpu_memory >= 70.0 * GiB && lower.find("a100") == std::string::npos;
  return large ? VllmBatchDefaults{8192.0, 1024.0, true} : VllmBatchDefaults{2048.0, 256.0, false};
}

double vllm_activation_bytes_per_token(const specs::ModelSpec& m, double tp) {
  double f = 0;  // the widest MLP intermediate one GPU holds, over the model's layer kinds
  bool gated = m.ffn_kind == specs::FfnKind::gated;
  for (std::int64_t l = 0; l < m.layers; ++l) {
    const specs::LayerFfn k = m.layer_ffn(l);
    if (k == specs::LayerFfn::dense) f = std::max(f, static_cast<double>(m.ffn));
    else if (k == specs::LayerFfn::moe)
      f = std::max(f, static_cast<double>(m.moe.experts_per_token) * static_cast<double>(m.moe.expert_ffn));
  }
  f /= tp;
  const double d = static_cast<double>(m.hidden);
  return kActivationBytes * (3.0 * d + (gated ? 3.0 : 2.0) * f);
}

VllmBudget vllm_budget(const specs::ModelSpec& m, const VllmInput& in) {
  require_positive(in.gpu_memory, "gpu_memory");
  require_positive_integer(in.context, "context");
  require_positive_integer(in.block_size, "block_size");
  require_positive_integer(in.max_num_batched_tokens, "max_num_batched_tokens");
  require_positive_integer(in.max_num_seqs, "max_num_seqs");
  require_positive_integer(in.tp, "tp");
  require_positive_integer(in.users, "users");
  if (!(in.gpu_memory_utilization > 0.0 && in.gpu_memory_utilization <= 1.0))
    throw InputError("--gpu-memory-utilization", format_plain_number(in.gpu_memory_utilization),
                     "a fraction of the GPU's memory in (0, 1]");
  specs::refuse_encoder_decoder(m, "--engine vllm");
  specs::refuse_mamba_layers(m, "--engine vllm (vLLM's Mamba state blocks are not modelled)");
  specs::refuse_unmodelled_layers(m, "--engine vllm (vLLM's state and indexer cache blocks are not modelled)");
  validate_vllm_settings(m, in);

  VllmBudget b;
  const double tp = in.tp.in(one);
  const double tokens = in.max_num_batched_tokens.in(one);
  const double block = in.block_size.in(one);
  const double context = in.context.in(one);
  b.budget = in.gpu_memory_utilization * in.gpu_memory;
  b.weights = in.weights;
  b.users = in.users.in(one);
  b.per_token_activation = vllm_activation_bytes_per_token(m, tp);
  b.forward_peak = tokens * b.per_token_activation * byte;
  // The sampler warm-up samples min(max_num_seqs, max_num_batched_tokens) rows of the full
  // vocabulary (the LM head's shards are gathered before sampling).
  const double rows = std::min(in.max_num_seqs.in(one), tokens);
  b.sampler_peak = rows * static_cast<double>(m.vocab) * kLogitBytes * byte;
  b.activation_peak = b.forward_peak + b.sampler_peak;
  b.non_torch = (tp > 1.0 ? kNonTorchParallelGiB : kNonTorchSingleGiB) * GiB;
  const Bytes left = b.budget - b.weights - b.activation_peak - b.non_torch;
  b.kv_pool = left > Bytes{} ? left : Bytes{};
  b.shortfall = left < Bytes{} ? Bytes{} - left : Bytes{};

  // vLLM shards KV heads over TP and keeps at least one per GPU (num_kv_heads // tp_size, min 1);
  // an MLA latent is whole on every GPU.
  const double kv_heads = m.attention == specs::AttentionKind::mla
                              ? static_cast<double>(m.kv_heads)
                              : std::max(1.0, std::floor(static_cast<double>(m.kv_heads) / tp));
  b.page = block * kv_bytes_per_token_per_layer(m, in.kv_dtype, kv_heads);

  const std::vector<AttentionType> types = attention_types(m);
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
    b.kv_pool_tokens = (b.kv_blocks / b.groups) * static_cast<std::int64_t>(block);
    b.max_concurrency = static_cast<double>(b.kv_blocks) / blocks_per_request;
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
  const double tp = in.tp.in(one);
  if (ledger) out.command = "memory";
  out.input("engine", verdict("vllm"));
  out.input("gpu_memory", value(in.gpu_memory));
  out.input("gpu_memory_utilization", value(in.gpu_memory_utilization));
  out.input("max_num_batched_tokens", value(in.max_num_batched_tokens));
  out.input("max_num_seqs", value(in.max_num_seqs));
  out.input("block_size", value(in.block_size));
  if (ledger) {
    out.input("context", value(in.context));
    out.input("tp", value(in.tp));
    out.input("kv_dtype", verdict(dtype_name(in.kv_dtype)));
  }

  out.item("gpu_budget", "vLLM's share", value(b.budget), "u · total_gpu_memory",
           text("{} · {}", in.gpu_memory_utilization, in.gpu_memory));
  if (ledger)
    out.item("weights", "weights", value(b.weights), "the inference ledger's weights per GPU", text("{}", b.weights));
  out.item("activation_peak", "activation peak", value(b.activation_peak),
           "T · 2 B · (3D + k·F/tp) + min(S, T) · V · 4 B",
           text("{} · {} + {} · {} · 4 B", in.max_num_batched_tokens.in(one), b.per_token_activation * byte,
                std::min(in.max_num_seqs.in(one), in.max_num_batched_tokens.in(one)), static_cast<double>(m.vocab)));
  out.item("non_torch", "non-torch memory", value(b.non_torch), tp > 1.0 ? "NCCL + all-reduce buffers (TP ≥ 2)" : "one GPU",
           text("{}", b.non_torch));
  if (b.shortfall > Bytes{}) {
    // Nothing is left for the cache: the pool is empty and the row below says by how much the
    // share falls short, so that no row is a negative byte count.
    out.item("kv_pool", "KV pool", value(b.kv_pool), "max(0, budget − weights − activation peak − non-torch)",
             text("max(0, {} − {} − {} − {})", b.budget, b.weights, b.activation_peak, b.non_torch));
    out.item("shortfall", "vLLM's share short by", value(b.shortfall), "weights + activation peak + non-torch − budget",
             text("{} + {} + {} − {}", b.weights, b.activation_peak, b.non_torch, b.budget));
  } else {
    out.item("kv_pool", "KV pool", value(b.kv_pool), "budget − weights − activation peak − non-torch",
             text("{} − {} − {} − {}", b.budget, b.weights, b.activation_peak, b.non_torch));
  }
  if (ledger) {
    out.item("per_gpu", "per GPU", value(b.weights + b.activation_peak + b.non_torch + b.kv_pool),
             "weights + activation peak + non-torch + KV pool",
             text("{} + {} + {} + {}", b.weights, b.activation_peak, b.non_torch, b.kv_pool))
        .is_total = true;
    out.item("total", "all GPUs", value(tp * (b.weights + b.activation_peak + b.non_torch + b.kv_pool)), "per GPU · tp",
             text("{} GPU(s)", tp));
  }
  out.item("kv_blocks", "KV blocks", value(static_cast<double>(b.kv_blocks)), "⌊pool / (page · layers per group)⌋",
           text("⌊{} / ({} · {})⌋", b.kv_pool, b.page, static_cast<double>(b.group_size)));
  const Tokens pool_tokens = static_cast<double>(b.kv_pool_tokens) * token;
  if (b.groups > 1)
    out.item("kv_pool_tokens", "KV pool tokens", value(pool_tokens), "⌊blocks / groups⌋ · block_size",
             text("⌊{} / {}⌋ · {}", static_cast<double>(b.kv_blocks), static_cast<double>(b.groups), in.block_size.in(one)));
  else
    out.item("kv_pool_tokens", "KV pool tokens", value(pool_tokens), "blocks · block_size",
             text("{} · {}", static_cast<double>(b.kv_blocks), in.block_size.in(one)));
  out.item("max_concurrency", "requests at --context", value(b.max_concurrency),
           "blocks / blocks per request", text("{} / {}", static_cast<double>(b.kv_blocks), static_cast<double>(b.blocks_per_request)));
  if (ledger && b.users > 1.0)
    out.item("fits", "fits", boolean(vllm_fit(b) == VllmFit::fits), "--users requests of --context fit the pool at once",
             text("{} requests ≥ {}", b.max_concurrency, b.users));
  else if (ledger)
    out.item("fits", "fits", boolean(vllm_fit(b) == VllmFit::fits), "a request of --context fits the pool",
             text("{} requests", b.max_concurrency));

  out.assume("vllm_version", text("vLLM V1 as of v0.10: pool = u · total − (weights + activation peak + non-torch); "
                                  "CUDA graphs are captured after the pool is sized and are not deducted"));
  out.assume("gpu_memory_utilization", text("vLLM takes {} of the GPU's memory", in.gpu_memory_utilization));
  if (in.total_source.empty())
    out.assume("vllm_total_memory", text("total_gpu_memory {} as torch reports it (torch sees ~0.4 GiB less than "
                                       "nvidia-smi's total: 79.19–79.22 GiB on an H100 80GB)", in.gpu_memory));
  out.assume("vllm_activation",
             text("activation peak is a model: the profiling batch of {} tokens at {} per token (MLP peak: 3 "
                  "copies of D plus the MLP intermediates, 2 B each) plus the sampler's fp32 logits of {} rows; "
                  "calibrated against vLLM start-up logs within ±0.3 GiB",
                  in.max_num_batched_tokens.in(one), b.per_token_activation * byte,
                  std::min(in.max_num_seqs.in(one), in.max_num_batched_tokens.in(one))));
  const double tokens = in.max_num_batched_tokens.in(one), seqs = in.max_num_seqs.in(one);
  if (tokens < kCalibratedTokensLow || tokens > kCalibratedTokensHigh || seqs < kCalibratedSeqsLow ||
      seqs > kCalibratedSeqsHigh)
    out.warn(text("vLLM's activation peak at --max-num-batched-tokens {} and --max-num-seqs {} is extrapolated: the "
                  "model was checked against start-up logs at 2048 to 29000 tokens and 256 to 1024 sequences",
                  tokens, seqs));
  out.assume("vllm_non_torch", text("non-torch memory {} ({}: NCCL and custom all-reduce buffers at TP ≥ 2)",
                                    b.non_torch, tp > 1.0 ? "TP ≥ 2" : "one GPU, no communicators"));
  out.assume("block_size", text("{} tokens per KV block; {} per block of one layer", in.block_size.in(one), b.page));
  if (b.groups > 1)
    out.assume("vllm_kv_groups",
               text("hybrid KV cache: {} groups of {} layers (sliding-window layers in groups of their own) share "
                    "one block pool; a sliding group holds window − 1 + max_num_batched_tokens tokens per request; "
                    "tokens = ⌊blocks / groups⌋ · block_size as vLLM logs them",
                    static_cast<double>(b.groups), static_cast<double>(b.group_size)));
  out.assume("max_num_seqs", text("sampler warm-up over max_num_seqs {} rows", in.max_num_seqs.in(one)));
}

}  // namespace napkin
