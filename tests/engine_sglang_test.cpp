// --engine sglang: napkin's KV pool next to published SGLang start-up logs (data/engines/sglang.csv
// holds every figure with its quote). Each case takes the log's GPU (torch's total, and the
// driver's total the default fraction is computed from), TP, mem_fraction_static or the release
// whose default applies, and compares napkin's weights, pool and tokens with the logged ones: the
// tokens within 5%.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "napkin/engines/sglang.h"
#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"

using namespace napkin;
using namespace napkin::units;

namespace {

struct Log {
  double torch_gib, driver_mib, tp;
  double fraction;  // 0: the release's default
  const char* version;
  double context;
  SglangLinks links = SglangLinks::nvlink;
  Dtype weights_dtype = Dtype::bf16;
};

SglangInput input_of(const specs::ModelSpec& m, const Log& log) {
  InferenceMemoryInput mi;
  mi.context = log.context * one;
  mi.tp = log.tp * one;
  mi.weights_dtype = log.weights_dtype;
  SglangInput in;
  in.gpu_memory = log.torch_gib * GiB;
  in.device_memory = log.driver_mib * MiB;
  if (log.fraction > 0) in.mem_fraction_static = log.fraction;
  in.version = log.version;
  in.heuristic = sglang_heuristic(log.version);
  in.context = log.context * one;
  in.tp = log.tp * one;
  in.links = log.links;
  in.weights = inference_memory(m, mi).weights;
  return in;
}

SglangBudget budget_of(const specs::ModelSpec& m, const Log& log) { return sglang_budget(m, input_of(m, log)); }

double rel(double napkin, double logged) { return std::abs(napkin - logged) / logged; }

specs::ModelSpec real_config(const std::string& name) {
  return specs::read_hf_config(std::string(NAPKIN_SOURCE_DIR) + "/tests/real-configs/" + name + "/config.json");
}

constexpr double kH100Torch = 79.22, kH100Driver = 81559;  // h100-sxm preset
constexpr double kH200Torch = 139.80, kH200Driver = 143771;

}  // namespace

// SGLang's documentation build of 2025-02-14 (sgl-project/sgl-project.github.io a302ba48,
// start/send_request.ipynb), one H100: Meta-Llama-3.1-8B-Instruct, mem_fraction_static=0.88 (the
// v0.4.x default at TP 1), "Load weight begin. avail mem=78.81 GB", "avail mem=63.70 GB" after the
// weights, "K size: 27.12 GB, V size: 27.12 GB", max_total_num_tokens=444372,
// max_running_requests=2049, context_len=131072.
TEST_CASE("SGLang log, Llama-3.1-8B on an H100 at the v0.4 default 0.88: 443005 vs 444372 tokens", "[engine_sglang]") {
  const auto m = specs::load_model_preset("llama-3.1-8b");
  const SglangBudget b = budget_of(m, {kH100Torch, kH100Driver, 1, 0, "0.4.3", 131072});
  CHECK(b.mem_fraction_static == 0.88);
  CHECK(rel(b.available.in(GiB), 78.81) < 0.01);
  CHECK(rel(b.kv_pool.in(GiB), 54.24) < 0.05);
  CHECK(rel(static_cast<double>(b.kv_pool_tokens), 444372) < 0.05);
  CHECK(b.cell.in(byte) == 32.0 * 8 * 128 * 2 * 2);
  CHECK(b.max_running_requests == 2049);  // min(tokens / 2, max(⌊tokens / 131072 · 512⌋, 2048) + 1)
  CHECK(sglang_fit(b) == SglangFit::fits);
}

// The same build, backend/native_api.ipynb: Llama-3.2-1B-Instruct, "avail mem=76.37 GB" after the
// weights, "K size: 33.46 GB, V size: 33.46 GB", max_total_num_tokens=2192531,
// max_running_requests=4097 (the request pool's 4096 rows and one).
TEST_CASE("SGLang log, Llama-3.2-1B on an H100 at 0.88: 2186722 vs 2192531 tokens", "[engine_sglang]") {
  const auto m = specs::load_model_preset("llama-3.2-1b");
  const SglangBudget b = budget_of(m, {kH100Torch, kH100Driver, 1, 0, "0.4.3", 131072});
  CHECK(rel(b.kv_pool.in(GiB), 66.92) < 0.05);
  CHECK(rel(static_cast<double>(b.kv_pool_tokens), 2192531) < 0.05);
  CHECK(b.max_running_requests == 4097);
}

// https://github.com/sgl-project/sglang/pull/4760 (the FA3 tests, 2025-03-25), an H100:
// Meta-Llama-3.1-8B-Instruct, "Load weight end ... avail mem=63.48 GB, mem usage=15.11 GB", "KV Cache
// is allocated. #tokens: 442750, K size: 27.02 GB, V size: 27.02 GB".
TEST_CASE("SGLang log, Llama-3.1-8B on an H100 (PR 4760): weights 15.11 GiB, 443005 vs 442750 tokens",
          "[engine_sglang]") {
  const auto m = specs::load_model_preset("llama-3.1-8b");
  const SglangBudget b = budget_of(m, {kH100Torch, kH100Driver, 1, 0, "0.4.4", 131072});
  CHECK(rel(b.weights.in(GiB), 15.11) < 0.01);
  CHECK(rel(b.kv_pool.in(GiB), 54.04) < 0.05);
  CHECK(rel(static_cast<double>(b.kv_pool_tokens), 442750) < 0.05);
}

// https://github.com/didier-durand/llms-in-clouds/blob/3e1df42ab328cb05c90df01ef331a1214ed6e336/docs/sglang.md
// (2025-03-08): Qwen QwQ-32B on 4 x L4 (PCIe; custom all-reduce off), --tensor-parallel-size 4,
// mem_fraction_static=0.85, "Init torch distributed ends. mem usage=0.13 GB", "Load weight begin.
// avail mem=21.63 GB", "mem usage=15.54 GB", "#tokens: 46611, K size: 1.42 GB". The L4's torch
// total, 22.15 GiB, is its driver's 23034 MiB less the 357 MiB an RTX 4090 loses (same generation).
TEST_CASE("SGLang log, QwQ-32B on four L4s at 0.85: weights 15.41 vs 15.54 GiB, 45583 vs 46611 tokens",
          "[engine_sglang]") {
  const auto m = real_config("qwq-32b");
  const SglangBudget b = budget_of(m, {22.15, 23034, 4, 0.85, "0.4.3", 131072, SglangLinks::pcie});
  CHECK(rel(b.available.in(GiB), 21.63) < 0.02);
  CHECK(rel(b.weights.in(GiB), 15.54) < 0.02);
  CHECK(rel(static_cast<double>(b.kv_pool_tokens), 46611) < 0.05);
  CHECK(b.cell.in(byte) == 64.0 * 2 * 128 * 2 * 2);  // 2 of the 8 KV heads per GPU
  CHECK(sglang_fit(b) == SglangFit::request_too_long);  // 131072 tokens do not fit 45583
}

// https://github.com/vllm-project/vllm/issues/21348 (2025-07-22): Qwen3-235B-A22B-FP8 on 4 x H100,
// --tp 4 --mem-fraction-static 0.93: "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB,
// V size: 8.23 GB". The checkpoint's linear layers are fp8 (block-wise), the rest bf16.
TEST_CASE("SGLang log, Qwen3-235B-A22B-FP8 on four H100s at 0.93: 360014 vs 367404 tokens", "[engine_sglang]") {
  const auto m = specs::load_model_preset("qwen3-235b-a22b");
  Log log{kH100Torch, kH100Driver, 4, 0.93, "0.4.9", 40960};
  log.weights_dtype = Dtype::fp8;
  const SglangBudget b = budget_of(m, log);
  CHECK(rel(b.kv_pool.in(GiB), 16.46) < 0.05);
  CHECK(rel(static_cast<double>(b.kv_pool_tokens), 367404) < 0.05);
}

// https://github.com/sgl-project/sglang/pull/11716 (2025-10-16, SGLang main after PR #10975): 8 x
// H200, TP 8, the default fraction; "Load weight begin. avail mem=137.29 GB", "#tokens: 2795207,
// K size: 53.31 GB". The model (not named in the excerpt) is inferred from its 30 shards and 20480 B
// of K and V per token at TP 8: Llama-3.1-70B's 80 layers × 1 KV head × 128 × 2 × 2 B.
// Default: reserved 512 + 1.5 · 8192 + 2 · 512 + 8 / 8 · 1024 = 14848 MiB of 143771: 0.897.
TEST_CASE("SGLang log, Llama-3.1-70B on eight H200s at the v0.5.3 default 0.897: 2793901 vs 2795207 tokens",
          "[engine_sglang]") {
  const auto m = specs::load_model_preset("llama-3.1-70b");
  const SglangBudget b = budget_of(m, {kH200Torch, kH200Driver, 8, 0, "0.5.3", 131072});
  CHECK(b.defaults.reserved_mb == 14848);
  CHECK(b.mem_fraction_static == Approx(0.897));
  CHECK(rel(b.available.in(GiB), 137.29) < 0.01);
  CHECK(rel(b.kv_pool.in(GiB), 106.62) < 0.05);
  CHECK(rel(static_cast<double>(b.kv_pool_tokens), 2795207) < 0.05);
}

// https://github.com/xorbitsai/inference/issues/3481 (2025-05-19): Qwen3-14B on one GPU of some
// 48 GB: "avail mem=19.67 GB, mem usage=27.57 GB", "#tokens: 91749, K size: 7.00 GB". The GPU is not
// named: its total here is the logged free memory before the weights plus napkin's start-up.
TEST_CASE("SGLang log, Qwen3-14B on one 48 GB GPU at 0.88: weights 27.66 vs 27.57 GiB, 91180 vs 91749 tokens",
          "[engine_sglang]") {
  const auto m = specs::load_model_preset("qwen3-14b");
  const SglangBudget b = budget_of(m, {47.84, 47.84 * 1024, 1, 0, "0.4.6", 40960});
  CHECK(b.mem_fraction_static == 0.88);
  CHECK(rel(b.weights.in(GiB), 27.57) < 0.01);
  CHECK(rel(static_cast<double>(b.kv_pool_tokens), 91749) < 0.05);
}

TEST_CASE("SGLang's default fraction by release: the TP table, PR 7054's table, PR 10975's reserve",
          "[engine_sglang]") {
  const auto m = specs::load_model_preset("llama-3.1-8b");
  const auto fraction = [&](double tp, const char* version, double driver_mib) {
    return budget_of(m, {driver_mib / 1024 - 0.4, driver_mib, tp, 0, version, 4096}).mem_fraction_static;
  };
  // server_args.py v0.4.x: 0.88, 0.87, 0.85, 0.81, 0.79 at TP 1, 2, 4, 8, 16.
  CHECK(fraction(1, "0.4.6", kH100Driver) == 0.88);
  CHECK(fraction(2, "0.4.6", kH100Driver) == 0.87);
  CHECK(fraction(4, "0.4.6", kH100Driver) == 0.85);
  CHECK(fraction(8, "0.4.6", kH100Driver) == 0.81);
  CHECK(fraction(16, "0.4.6", kH100Driver) == 0.79);
  // PR #7054: an H100 reserves (9.5 + 1/2) GiB at TP 1: (81559 − 10240) / 81559 = 0.874; an H200
  // (12 + 8/2) GiB at TP 8: 0.886; a 16303 MiB card (RTX 5080) (2.8 + 0.1) GiB: 0.818.
  CHECK(fraction(1, "0.4.7", kH100Driver) == Approx(0.874));
  CHECK(fraction(8, "0.5.2", kH200Driver) == Approx(0.886));
  CHECK(fraction(1, "0.4.9", 16303) == Approx(0.818));
  // PR #10975/#11076 on an H100 at TP 1: 512 + 12288 + 512 + 128 = 13440 MiB: 0.835.
  CHECK(fraction(1, "0.5.3", kH100Driver) == Approx(0.835));
  // v0.5.8 on adds 8 MiB for each of the 74 piecewise prefill graph sizes up to 8192 tokens: 14032
  // MiB, 0.828, as https://github.com/sgl-project/sglang/issues/29092 reports for Qwen3-32B on an H100.
  CHECK(fraction(1, "0.5.8", kH100Driver) == Approx(0.828));
  // A GPU above 60 GiB reserves at least 10 GiB (an H100 with a 2048-token chunk and 8 graphs).
  SglangInput in = input_of(m, {kH100Torch, kH100Driver, 1, 0, "0.5.3", 4096});
  in.chunked_prefill_size = 2048.0 * one;
  in.cuda_graph_max_bs = 8.0 * one;
  const SglangDefaults d = sglang_defaults(m, in);
  CHECK(d.floor_applied);
  CHECK(d.reserved_mb == 10240);
}

TEST_CASE("SGLang releases are read as MAJOR.MINOR.PATCH with a suffix; other text is refused", "[engine_sglang]") {
  CHECK(sglang_heuristic("v0.4.3.post4") == SglangHeuristic::tp_table);
  CHECK(sglang_heuristic("0.4.6.post5") == SglangHeuristic::tp_table);
  CHECK(sglang_heuristic("0.4.7") == SglangHeuristic::memory_table);
  CHECK(sglang_heuristic("0.5.2") == SglangHeuristic::memory_table);
  CHECK(sglang_heuristic("0.5.3rc0") == SglangHeuristic::reserve_formula);
  CHECK(sglang_heuristic("0.5.10") == SglangHeuristic::prefill_graphs);
  CHECK_THROWS_WITH(sglang_heuristic("latest"), Catch::Contains("--sglang-version"));
  CHECK_THROWS_WITH(sglang_heuristic("0.5"), Catch::Contains("MAJOR.MINOR.PATCH"));
  CHECK_THROWS_AS(sglang_heuristic("0.5.2x"), InputError);
}

TEST_CASE("SGLang rounds the pool down to whole pages and caps it at --max-total-tokens", "[engine_sglang]") {
  const auto m = specs::load_model_preset("llama-3.1-8b");
  SglangInput in = input_of(m, {kH100Torch, kH100Driver, 1, 0.88, "0.5.3", 4096});
  const SglangBudget free = sglang_budget(m, in);
  in.page_size = 64.0 * one;
  const SglangBudget paged = sglang_budget(m, in);
  CHECK(paged.kv_pool_tokens % 64 == 0);
  CHECK(paged.kv_pool_tokens <= free.kv_pool_tokens);
  CHECK(free.kv_pool_tokens - paged.kv_pool_tokens < 64);
  in.page_size = 1.0 * one;
  in.max_total_tokens = 20480.0 * one;
  const SglangBudget capped = sglang_budget(m, in);
  CHECK(capped.kv_pool_tokens == 20480);
  CHECK(capped.capped);
  CHECK(capped.kv_pool.in(byte) == 20480.0 * 131072);
}

TEST_CASE("weights above SGLang's static share leave no pool: SGLang stops, never a negative byte count",
          "[engine_sglang]") {
  const auto m = specs::load_model_preset("llama-3.1-70b");
  const SglangBudget b = budget_of(m, {23.64, 24564, 1, 0, "0.5.3", 4096});
  CHECK(b.kv_pool == Bytes{});
  CHECK(b.rest == Bytes{});
  CHECK(b.shortfall > Bytes{});
  CHECK(b.kv_pool_tokens == 0);
  CHECK(sglang_fit(b) == SglangFit::no_cache_memory);
}

TEST_CASE("an MLA model caches one latent per layer, whole on every GPU", "[engine_sglang]") {
  const auto m = specs::load_model_preset("deepseek-v2-lite");
  const SglangBudget one_gpu = budget_of(m, {kH100Torch, kH100Driver, 1, 0.85, "0.5.3", 4096});
  const SglangBudget two = budget_of(m, {kH100Torch, kH100Driver, 2, 0.85, "0.5.3", 4096});
  CHECK(one_gpu.cell.in(byte) == 27.0 * (512 + 64) * 2);
  CHECK(two.cell == one_gpu.cell);
}

TEST_CASE("GPT-OSS's sliding layers cache the whole context; Llama 4's hybrid pool is refused", "[engine_sglang]") {
  const auto oss = specs::load_model_preset("gpt-oss-20b");
  const SglangBudget b = budget_of(oss, {kH100Torch, kH100Driver, 1, 0.85, "0.5.3", 4096});
  CHECK(b.attention_layers == oss.layers);
  const auto scout = specs::load_model_preset("llama-4-scout-17b-16e");
  CHECK_THROWS_WITH(budget_of(scout, {kH100Torch, kH100Driver, 8, 0.85, "0.5.3", 4096}),
                    Catch::Contains("hybrid full/sliding-window pool"));
}

TEST_CASE("a mem_fraction_static above 1 is refused, naming --mem-fraction-static", "[engine_sglang]") {
  const auto m = specs::load_model_preset("llama-3.1-8b");
  CHECK_THROWS_WITH(budget_of(m, {kH100Torch, kH100Driver, 1, 1.2, "0.5.3", 4096}),
                    Catch::Contains("--mem-fraction-static"));
}

TEST_CASE("the SGLang ledger adds up to torch's total and names its rows", "[engine_sglang]") {
  const auto m = specs::load_model_preset("llama-3.1-8b");
  ResultSet rs;
  sglang_budget(m, input_of(m, {kH100Torch, kH100Driver, 1, 0, "0.5.8", 8192}), rs);
  for (const char* key : {"startup", "available", "mem_fraction_static", "static_budget", "weights", "kv_pool", "activation_headroom",
                          "per_gpu", "total", "prefill_reserve", "cuda_graph", "kv_pool_tokens", "max_running_requests",
                          "max_concurrency", "fits"})
    CHECK(rs.find(key) != nullptr);
  CHECK(rs.find("per_gpu")->value.num == Approx(kH100Torch * 1073741824.0));
  ResultSet beside;
  sglang_budget(m, input_of(m, {kH100Torch, kH100Driver, 1, 0, "0.5.8", 8192}), beside, /*ledger=*/false);
  CHECK(beside.find("weights") == nullptr);
  CHECK(beside.find("fits") == nullptr);
}
