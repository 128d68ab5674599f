// --engine vllm: napkin's KV pool next to published vLLM start-up logs. Each case takes the log's
// GPU total (total_gpu_memory as vLLM printed it), gpu_memory_utilization, TP and the batch sizes
// in effect for that version (V0 without chunked prefill profiles max_num_batched_tokens =
// max_model_len; V0 turns chunked prefill on above 32K context with 2048 tokens; max_num_seqs
// 256), and compares napkin's weights, pool and tokens with the logged ones: the pool within 5%.
// The logs are V0 start-ups (v0.6.4 to v0.8); their pool formula is the one napkin follows (V1 as
// of v0.10, napkin/engines/vllm.h).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "napkin/engines/vllm.h"
#include "napkin/memory/ledgers.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"
#include "preset_config.h"

using namespace napkin;
using namespace napkin::units;

namespace {

struct Log {
  double gpu_gib, utilization, batched_tokens, seqs, context, tp;
};

VllmBudget budget_of(const specs::ModelSpec& m, const Log& log) {
  InferenceMemoryInput mi;
  mi.context = log.context * one;
  mi.tp = log.tp * one;
  VllmInput in;
  in.gpu_memory = log.gpu_gib * GiB;
  in.gpu_memory_utilization = log.utilization;
  in.max_num_batched_tokens = log.batched_tokens * one;
  in.max_num_seqs = log.seqs * one;
  in.context = log.context * one;
  in.tp = log.tp * one;
  in.weights = inference_memory(m, mi).weights;
  return vllm_budget(m, in);
}

double rel(double napkin, double logged) { return std::abs(napkin - logged) / logged; }

specs::ModelSpec real_config(const std::string& name) {
  return specs::read_hf_config(std::string(NAPKIN_SOURCE_DIR) + "/tests/real-configs/" + name + "/config.json");
}

}  // namespace

// https://github.com/vllm-project/vllm/pull/10511 (youkaichao, 2024-12-14, vLLM main before
// v0.6.5, V0): `vllm serve meta-llama/Meta-Llama-3-8B` on an H100 80GB: total_gpu_memory 79.22GiB,
// gpu_memory_utilization 0.90, model weights 14.96GiB, non_torch_memory 1.79GiB, PyTorch
// activation peak 1.26GiB, available_kv_cache_memory 53.29GiB. max_model_len 8192 (no chunked
// prefill: 8192 tokens profiled), max_num_seqs 256. napkin: pool 55.22 GiB (+3.6%), 28274 blocks.
TEST_CASE("vLLM log, Llama-3-8B on an H100 at 0.90: pool 55.22 GiB vs logged 53.29 GiB (+3.6%)", "[engine_vllm]") {
  const auto m = specs::load_model_preset("llama-3-8b");
  const VllmBudget b = budget_of(m, {79.22, 0.90, 8192, 256, 8192, 1});
  CHECK(rel(b.weights.in(GiB), 14.96) < 0.01);
  CHECK(rel(b.kv_pool.in(GiB), 53.29) < 0.05);
  CHECK(b.kv_blocks == 28274);
  CHECK(b.kv_pool_tokens == 28274 * 16);
  CHECK(vllm_fit(b) == VllmFit::fits);
}

// https://github.com/vllm-project/vllm/issues/10517 (kaspersiminski, 2024-12-02, V0 v0.6.4
// format): meta-llama/Llama-3.1-8B-Instruct on an RTX 3090, gpu_memory_utilization 0.90,
// --max-model-len 20000 (profiled 20000 tokens): "Loading model weights took 14.9888 GB",
// total_gpu_memory=23.58GiB, peak_torch_memory=17.06GiB (weights + 2.07 GiB activations),
// non_torch_memory=0.35GiB, kv_cache_size=3.81GiB, "# GPU blocks: 1952", "Maximum concurrency for
// 20000 tokens per request: 1.56x".
TEST_CASE("vLLM log, Llama-3.1-8B on an RTX 3090 at 20000 tokens: pool 3.93 GiB vs 3.81 GiB, 2013 vs 1952 blocks",
          "[engine_vllm]") {
  const auto m = specs::load_model_preset("llama-3.1-8b");
  const VllmBudget b = budget_of(m, {23.58, 0.90, 20000, 256, 20000, 1});
  CHECK(rel(b.weights.in(GiB), 14.9888) < 0.01);
  CHECK(rel(b.kv_pool.in(GiB), 3.81) < 0.05);
  CHECK(rel(static_cast<double>(b.kv_blocks), 1952) < 0.05);
  CHECK(rel(static_cast<double>(b.kv_pool_tokens), 1952.0 * 16) < 0.05);
  CHECK(rel(b.max_concurrency, 1.56) < 0.05);
  CHECK(rel(b.activation_peak.in(GiB), 17.06 - 14.9888) < 0.06);
}

// The same thread, --max-model-len 29000: peak_torch_memory=17.98GiB, kv_cache_size=2.89GiB,
// "# GPU blocks: 1478", concurrency 0.82x, and vLLM refuses: "The model's max seq len (29000) is
// larger than the maximum number of tokens that can be stored in KV cache (23648)".
TEST_CASE("vLLM log, Llama-3.1-8B on an RTX 3090 at 29000 tokens: pool 3.00 vs 2.89 GiB, a request does not fit",
          "[engine_vllm]") {
  const auto m = specs::load_model_preset("llama-3.1-8b");
  const VllmBudget b = budget_of(m, {23.58, 0.90, 29000, 256, 29000, 1});
  CHECK(rel(b.kv_pool.in(GiB), 2.89) < 0.05);
  CHECK(rel(static_cast<double>(b.kv_blocks), 1478) < 0.05);
  CHECK(rel(static_cast<double>(b.kv_pool_tokens), 23648) < 0.05);
  CHECK(b.max_concurrency < 1.0);
  CHECK(vllm_fit(b) == VllmFit::request_too_long);
}

// https://github.com/generative-computing/mellea/pull/416 (planetf1; V0 worker.py): an H100,
// total_gpu_memory (79.19GiB) x gpu_memory_utilization (0.80) = 63.35GiB; model weights take
// 1.12GiB; non_torch_memory takes 0.16GiB; PyTorch activation peak memory takes 0.23GiB; the rest
// reserved for KV Cache is 61.84GiB; "# cuda blocks: 36184"; "Maximum concurrency for 8192 tokens
// per request: 70.67x". The model is not named in the excerpt: Qwen3-0.6B is inferred from the
// weights (1.12 GiB) and the block (61.84 GiB / 36184 = 1.75 MiB = 16 tokens × 112 KiB, 28 layers
// × 8 KV heads × 128 × 2 × 2 B). max_model_len 8192 profiled, max_num_seqs 256.
TEST_CASE("vLLM log, Qwen3-0.6B on an H100 at 0.80: pool 61.76 GiB vs 61.84 GiB, 36138 vs 36184 blocks",
          "[engine_vllm]") {
  const auto m = real_config("qwen3-0.6b");
  const VllmBudget b = budget_of(m, {79.19, 0.80, 8192, 256, 8192, 1});
  CHECK(rel(b.weights.in(GiB), 1.12) < 0.02);
  CHECK(rel(b.kv_pool.in(GiB), 61.84) < 0.05);
  CHECK(rel(static_cast<double>(b.kv_blocks), 36184) < 0.05);
  CHECK(rel(b.max_concurrency, 70.67) < 0.05);
}

// https://github.com/vllm-project/vllm/issues/13061 (stg609, 2025-02-11, V0 v0.7):
// `vllm serve deepseek-ai/DeepSeek-R1-Distill-Qwen-14B --tensor_parallel_size 2
// --gpu_memory_utilization=0.98` on two RTX 4090s: "Loading model weights took 13.9476 GB";
// non_torch_memory takes 0.25GiB; PyTorch activation peak memory takes 0.19GiB; the rest of the
// memory reserved for KV Cache is 8.69GiB. The user's "23.08" is total × 0.98, so total 23.55 GiB.
// max_model_len 131072 > 32K turns on chunked prefill: 2048 tokens profiled. vLLM reports 81,536
// tokens, the smallest pool over both workers; this worker's 8.69 GiB holds 5932 blocks of 1.5 MiB.
// Shapes: Qwen2.5-14B's, from the checkpoint's config.json (model_type qwen2).
TEST_CASE("vLLM log, DeepSeek-R1-Distill-Qwen-14B on two RTX 4090s: pool 8.64 GiB vs 8.69 GiB, and 131072 tokens do not fit", "[engine_vllm]") {
  const auto j = nlohmann::json::parse(R"({
    "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 5120,
    "intermediate_size": 13824, "num_hidden_layers": 48, "num_attention_heads": 40,
    "num_key_value_heads": 8, "vocab_size": 152064, "max_position_embeddings": 131072,
    "max_window_layers": 48, "sliding_window": 131072, "use_sliding_window": false,
    "tie_word_embeddings": false, "rms_norm_eps": 1e-05, "rope_theta": 1000000.0,
    "hidden_act": "silu", "torch_dtype": "bfloat16"})");
  const auto m = specs::from_hf_config(j, "DeepSeek-R1-Distill-Qwen-14B/config.json");
  const VllmBudget b = budget_of(m, {23.55, 0.98, 2048, 256, 131072, 2});
  CHECK(rel(b.weights.in(GiB), 13.9476) < 0.02);
  CHECK(rel(b.kv_pool.in(GiB), 8.69) < 0.05);
  CHECK(rel(static_cast<double>(b.kv_blocks), 5932) < 0.05);
  CHECK(b.page.in(byte) == 16.0 * 2 * 4 * 128 * 2);  // 4 of the 8 KV heads per GPU
  CHECK(vllm_fit(b) == VllmFit::request_too_long);   // vLLM: "max seq len (131072) is larger than ... (81536)"
}

// The same PR's `-tp 2` run: model weights 7.48GiB, non_torch_memory 3.58GiB, activation peak
// 1.26GiB; the pool line is cut off in the stored copy, so the log's own arithmetic gives it:
// 71.29 − 7.48 − 3.58 − 1.26 = 58.97 GiB. This one does not hold to 5%: that early build counted
// the CUDA context and cuBLAS workspaces as non-torch memory (1.79 GiB at TP 1, 3.58 at TP 2);
// later versions log 0.15–0.43 GiB, which napkin follows. napkin: 62.78 GiB (+6.5%).
TEST_CASE("vLLM log, Llama-3-8B at TP 2 on H100s: napkin's pool is 6.5% above the early build's 58.97 GiB",
          "[engine_vllm]") {
  const auto m = specs::load_model_preset("llama-3-8b");
  const VllmBudget b = budget_of(m, {79.22, 0.90, 8192, 256, 8192, 2});
  CHECK(rel(b.weights.in(GiB), 7.48) < 0.01);
  CHECK(rel(b.kv_pool.in(GiB), 58.97) < 0.07);
  CHECK(b.kv_pool.in(GiB) > 58.97);
}

TEST_CASE("vLLM's batch defaults: 8192 tokens and 1024 sequences on an H100, 2048 and 256 on an A100 80GB",
          "[engine_vllm]") {
  CHECK(vllm_batch_defaults(79.19 * GiB, "h100-sxm NVIDIA H100 SXM5 80GB").max_num_seqs == 1024);
  CHECK(vllm_batch_defaults(79.19 * GiB, "h100-sxm NVIDIA H100 SXM5 80GB").max_num_batched_tokens == 8192);
  CHECK(vllm_batch_defaults(79.15 * GiB, "a100-sxm-80gb NVIDIA A100-SXM4-80GB").max_num_seqs == 256);
  CHECK(vllm_batch_defaults(23.58 * GiB, "").max_num_batched_tokens == 2048);
}

TEST_CASE("a pool below zero is vLLM's 'no available memory for the cache blocks': 0 blocks, does not fit",
          "[engine_vllm]") {
  const auto m = specs::load_model_preset("llama-3-8b");
  const VllmBudget b = budget_of(m, {8.0, 0.9, 2048, 256, 4096, 1});
  CHECK(b.kv_pool == Bytes{});  // never a negative byte count
  CHECK(b.shortfall > Bytes{});
  CHECK(b.kv_blocks == 0);
  CHECK(vllm_fit(b) == VllmFit::no_cache_memory);
}

// Gemma 2 9B: 42 layers, every other one sliding over 4096 tokens (21 + 21): two KV groups of 21
// layers share one pool; at 8192 tokens a request takes 512 full blocks plus ⌈min(4095 + 8192,
// 8192) / 16⌉ + 1 = 513 sliding ones (vLLM's SlidingWindowSpec.max_memory_usage_bytes), and the
// pool's tokens are ⌊blocks / 2⌋ · 16 (kv_cache_utils' "GPU KV cache size").
TEST_CASE("Gemma 2 9B under vLLM: two KV groups of 21 layers, 1025 blocks per 8192-token request", "[engine_vllm]") {
  const auto m = specs::load_model_preset("gemma-2-9b");
  const VllmBudget b = budget_of(m, {79.19, 0.90, 8192, 1024, 8192, 1});
  CHECK(b.groups == 2);
  CHECK(b.group_size == 21);
  CHECK(b.blocks_per_request == 1025);
  CHECK(b.page.in(byte) == 16.0 * 2 * 8 * 256 * 2);
  CHECK(b.kv_blocks == static_cast<std::int64_t>(std::floor(b.kv_pool.in(byte) / (b.page.in(byte) * 21))));
  CHECK(b.kv_pool_tokens == (b.kv_blocks / 2) * 16);
  CHECK(b.max_concurrency == static_cast<double>(b.kv_blocks) / 1025.0);
}

TEST_CASE("a gpu_memory_utilization above 1 is refused, naming --gpu-memory-utilization", "[engine_vllm]") {
  const auto m = specs::load_model_preset("llama-3-8b");
  VllmInput in;
  in.gpu_memory = 80.0 * GiB;
  in.gpu_memory_utilization = 1.5;
  in.context = 8192.0 * one;
  CHECK_THROWS_WITH(vllm_budget(m, in), "--gpu-memory-utilization: '1.5': expected a fraction of the GPU's memory in (0, 1]");
}

// vllm/config/cache.py BlockSize = Literal[1, 8, 16, 32, 64, 128]; SchedulerConfig._verify_args:
// "max_num_batched_tokens (...) must be greater than or equal to max_num_seqs (...)".
TEST_CASE("vLLM's settings are checked as vLLM checks them: block sizes, tokens per step at least sequences",
          "[engine_vllm]") {
  const auto m = specs::load_model_preset("llama-3-8b");
  VllmInput in;
  in.gpu_memory = 79.22 * GiB;
  in.context = 8192.0 * one;
  for (double ok : {1.0, 8.0, 16.0, 32.0, 64.0, 128.0}) {
    in.block_size = ok * one;
    CHECK_NOTHROW(validate_vllm_settings(m, in));
  }
  for (double bad : {7.0, 2.0, 4.0, 256.0}) {
    in.block_size = bad * one;
    CHECK_THROWS_WITH(validate_vllm_settings(m, in), Catch::Contains("--block-size"));
  }
  in.block_size = 16.0 * one;
  in.max_num_batched_tokens = 100.0 * one;
  in.max_num_seqs = 256.0 * one;
  CHECK_THROWS_WITH(validate_vllm_settings(m, in), Catch::Contains("expected at least --max-num-seqs (256)"));
  in.max_num_batched_tokens = 256.0 * one;
  CHECK_NOTHROW(validate_vllm_settings(m, in));
}

TEST_CASE("a vLLM ledger that does not fit shows an empty pool and its shortfall, never a negative byte count",
          "[engine_vllm]") {
  const auto m = specs::load_model_preset("llama-3-8b");
  InferenceMemoryInput mi;
  mi.context = 4096.0 * one;
  VllmInput in;
  in.gpu_memory = 8.0 * GiB;
  in.max_num_batched_tokens = 2048.0 * one;
  in.max_num_seqs = 256.0 * one;
  in.context = 4096.0 * one;
  in.weights = inference_memory(m, mi).weights;
  ResultSet out;
  vllm_budget(m, in, out);
  for (const Item& i : out.items)
    if (i.value.dim == dim_rt<Bytes::dim>()) CHECK(i.value.num >= 0.0);
  const Item* per_gpu = out.find("per_gpu");
  const Item* weights = out.find("weights");
  REQUIRE(per_gpu != nullptr);
  REQUIRE(weights != nullptr);
  CHECK(per_gpu->value.num >= weights->value.num);
  REQUIRE(out.find("shortfall") != nullptr);
  // budget + shortfall = what vLLM needs before its cache: weights + activation peak + non-torch.
  CHECK(out.find("gpu_budget")->value.num + out.find("shortfall")->value.num ==
        Approx(per_gpu->value.num).epsilon(1e-12));
}

// Block counts stay exact integers: a GPU memory of 1e300 B made a pool of 1.4e293 blocks, cast
// to a 64-bit integer (undefined; -9.2e18 blocks in the table), and a context of 2^53 − 1 tokens
// over 65536 single-layer KV groups made 5.9e20 blocks per request. Both are refused by name.
TEST_CASE("a pool or a request of 2^53 KV blocks or more is refused, naming --gpu-memory or the context flag",
          "[engine_vllm]") {
  const auto m = specs::load_model_preset("llama-3-8b");
  VllmInput in;
  in.gpu_memory = 1e300 * byte;
  in.context = 8192.0 * one;
  CHECK_THROWS_WITH(vllm_budget(m, in), Catch::StartsWith("--gpu-memory: '1e+300 B': expected a GPU memory whose KV "
                                                          "pool holds fewer than 2^53 blocks"));
  in.gpu_memory = 1e22 * byte;  // 4.3e15 blocks of 2 MiB (32 layers of 16 tokens): counted exactly
  const VllmBudget b = vllm_budget(m, in);
  CHECK(b.kv_blocks == static_cast<std::int64_t>(std::floor(b.kv_pool.in(byte) / (b.page.in(byte) * 32))));
  CHECK(b.kv_blocks > 0);

  // One sliding layer and 65535 full ones: 65536 groups of one layer; no stated context length.
  specs::ModelSpec many = napkin_test::spec_fields_only(m);
  many.layers = 65536;
  many.sliding_window = 4;
  many.sliding_every = 65536;
  many.max_context = 0;
  in.gpu_memory = 80.0 * GiB;
  in.block_size = 1.0 * one;
  in.context = 9007199254740991.0 * one;
  CHECK_THROWS_WITH(vllm_budget(many, in), Catch::StartsWith("--context: '9007199254740991': expected a context whose "
                                                             "request takes fewer than 2^53 KV blocks"));
  in.context = 8192.0 * one;
  // 65535 full groups of ⌈8192 / 1⌉ blocks, the sliding one ⌈min(4 − 1 + 8192, 8192) / 1⌉ + 1.
  CHECK(vllm_budget(many, in).blocks_per_request == 65535LL * 8192 + 8193);
}
