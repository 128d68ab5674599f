// --engine vllm: napkin's budget next to published vLLM V1 start-up logs (data/engines/vllm.csv).
// Each log below is a case: the run as the log states it (model, GPU total as torch saw it,
// gpu_memory_utilization, TP, max_model_len, the batch sizes vLLM picked, the release), napkin's
// weights (vllm_weights) and budget (vllm_budget), and the logged figures. Acceptance: the KV pool
// within 5% and the weights within 3% of the log; the other figures are reported (the hidden test
// "[.vllm_table]" prints every CSV row, napkin beside the log) and checked where the model claims
// them.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "napkin/engines/vllm.h"
#include "napkin/memory/ledgers.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"
#include "preset_config.h"

using namespace napkin;
using namespace napkin::units;

namespace {

// One start-up as a log describes it.
struct Run {
  std::string model;  // a preset name, or a tests/real-configs/<dir> name after "real:"
  double gpu_gib = 0, utilization = 0.9, batched_tokens = 0, seqs = 0, context = 0, tp = 1;
  VllmVersion version = kVllmDefaultVersion;
  VllmGpuArch arch = VllmGpuArch::hopper;
  double block = 16;
  Dtype weights_dtype = Dtype::bf16;
  std::optional<bool> flashinfer{};
};

specs::ModelSpec model_of(const std::string& name) {
  if (name.rfind("real:", 0) == 0)
    return specs::read_hf_config(std::string(NAPKIN_SOURCE_DIR) + "/tests/real-configs/" + name.substr(5) +
                                 "/config.json");
  return specs::load_model_preset(name);
}

struct Result {
  VllmWeights w;
  VllmBudget b;
};

Result run(const Run& r) {
  const specs::ModelSpec m = model_of(r.model);
  InferenceMemoryInput mi;
  mi.weights_dtype = r.weights_dtype;
  mi.tp = r.tp * one;
  mi.context = r.context * one;
  if (!m.quant_method.empty() && !m.quant_dtype.empty() && dtype_name(r.weights_dtype) == m.quant_dtype) {
    mi.group_size = static_cast<double>(m.quant_group) * one;
    mi.scale_dtype = parse_dtype(m.quant_scale_dtype, "quantization_config");
    mi.zero_points = m.quant_zero_points;
    mi.experts_only = m.quant_experts_only;
  }
  Result out;
  out.w = vllm_weights(m, mi, r.arch);
  VllmInput in;
  in.gpu_memory = r.gpu_gib * GiB;
  in.gpu_memory_utilization = r.utilization;
  in.max_num_batched_tokens = r.batched_tokens * one;
  in.max_num_seqs = r.seqs * one;
  in.context = r.context * one;
  in.tp = r.tp * one;
  in.block_size = r.block * one;
  in.version = r.version;
  in.flashinfer_sampler = r.flashinfer;
  in.weights = out.w.total();
  out.b = vllm_budget(m, in);
  return out;
}

double rel(double napkin, double logged) { return std::abs(napkin - logged) / std::abs(logged); }

// napkin's figure for a CSV key, in the CSV's unit.
double figure(const Result& r, const std::string& key) {
  if (key == "weights") return r.w.total().in(GiB);
  if (key == "activation_peak") return r.b.activation_peak.in(GiB);
  if (key == "non_torch") return r.b.non_torch.in(GiB);
  if (key == "cuda_graph") return r.b.cuda_graph_estimate.in(GiB);
  // vLLM logs a negative "Available KV cache memory" when the share falls short: napkin's pool
  // less its shortfall is the same signed figure.
  if (key == "kv_pool") return (r.b.kv_pool - r.b.shortfall).in(GiB);
  if (key == "kv_pool_tokens") return static_cast<double>(r.b.kv_pool_tokens);
  if (key == "max_concurrency") return r.b.max_concurrency;
  FAIL("unknown key " << key);
  return 0;
}

constexpr VllmVersion v0_10_1{0, 10, 1}, v0_11_0{0, 11, 0}, v0_14_1{0, 14, 1};

// ---- the logs (data/engines/vllm.csv cites each; the ids are the CSV's) -----------------------

// https://github.com/llm-d/llm-d-benchmark/pull/622 (2026-01-27),
// config_explorer/empirical-vllm-memory-results.md@0282dcf693ff: `vllm serve` in the image
// vllm/vllm-openai:latest (v0.14.1 on that date; a later revision, PR #732, names v0.11.0) on
// H100s ("H100 GPUs (79.18 GiB total memory)"), --gpu-memory-utilization=0.90 --max-model-len=16000
// --block-size=128 --enable-prefix-caching, VLLM_LOGGING_LEVEL=DEBUG; serve defaults on an H100:
// 8192 batched tokens, 1024 sequences.
Run llmd(const char* model, double tp, double context = 16000) {
  Run r;
  r.model = model;
  r.gpu_gib = 79.18;
  r.batched_tokens = 8192;
  r.seqs = 1024;
  r.context = context;
  r.tp = tp;
  r.version = v0_14_1;
  r.block = 128;
  return r;
}

// https://github.com/dennislee22/vLLM-benchmarking (log/*.log, committed 2025-09-09 and -12):
// `vllm serve` v0.10.1.1 ("vLLM API server version 0.10.1.1") on A100s, max_model_len 16384, "Chunked
// prefill is enabled with max_num_batched_tokens=2048" (the A100 defaults, 256 sequences),
// installed with `pip install vllm ... flashinfer-python` (README.md): FlashInfer samples. The GPU
// total is not printed; the two utilizations of one run give it: (24.83 − 5.01) / (0.5 − 0.25) =
// 79.28 GiB, the A100 80GB's 79.26 GiB within the logs' rounding.
Run dennis(const char* model, double gpu_gib, double utilization, double tp) {
  Run r;
  r.model = model;
  r.gpu_gib = gpu_gib;
  r.utilization = utilization;
  r.batched_tokens = 2048;
  r.seqs = 256;
  r.context = 16384;
  r.tp = tp;
  r.version = v0_10_1;
  r.arch = VllmGpuArch::pre_hopper;
  return r;
}

struct Logged {
  std::string id, key;
  double value;
};

struct Case {
  Run run;
  std::vector<Logged> rows;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  // vllm-001: Llama-3.1-8B-Instruct, TP 1. "Model loading took: 14.99 GiB"; "Peak activation
  // memory: 4.76 GiB"; "Non-torch memory: 0.13 GiB"; "CUDAGraph memory: -0.45 GiB"; "Available KV
  // cache memory: 51.38 GiB".
  c.push_back({llmd("llama-3.1-8b", 1),
               {{"vllm-001a", "weights", 14.99},
                {"vllm-001b", "activation_peak", 4.76},
                {"vllm-001c", "non_torch", 0.13},
                {"vllm-001d", "cuda_graph", -0.45},
                {"vllm-001e", "kv_pool", 51.38}}});
  // vllm-002: Qwen3-0.6B: 1.12 GiB weights, 5.56 GiB activation, 0.13 non-torch, 0.10 CUDA graph,
  // 64.45 GiB KV at max-model-len 16000 and again at 32000 (the profile does not depend on it).
  c.push_back({llmd("qwen3-0.6b", 1),
               {{"vllm-002a", "weights", 1.12},
                {"vllm-002b", "activation_peak", 5.56},
                {"vllm-002c", "non_torch", 0.13},
                {"vllm-002d", "cuda_graph", 0.10},
                {"vllm-002e", "kv_pool", 64.45}}});
  c.push_back({llmd("qwen3-0.6b", 1, 32000), {{"vllm-003a", "kv_pool", 64.45}}});
  // vllm-004: Qwen3-32B, TP 1: 61.03 GiB weights, 5.64 activation, 0.14 non-torch, -0.88 CUDA
  // graph, 4.45 GiB KV.
  c.push_back({llmd("qwen3-32b", 1),
               {{"vllm-004a", "weights", 61.03},
                {"vllm-004b", "activation_peak", 5.64},
                {"vllm-004c", "non_torch", 0.14},
                {"vllm-004d", "cuda_graph", -0.88},
                {"vllm-004e", "kv_pool", 4.45}}});
  // vllm-005: Qwen3-32B, TP 2: 30.59 GiB weights, 5.64 activation, 0.54 non-torch, -0.33 CUDA
  // graph, 34.49 GiB KV (each GPU).
  c.push_back({llmd("qwen3-32b", 2),
               {{"vllm-005a", "weights", 30.59},
                {"vllm-005b", "activation_peak", 5.64},
                {"vllm-005c", "non_torch", 0.54},
                {"vllm-005d", "cuda_graph", -0.33},
                {"vllm-005e", "kv_pool", 34.49}}});
  // vllm-006: RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic, TP 2: 33.88 GiB weights, 4.84 activation,
  // 0.55 non-torch, -0.42 CUDA graph, 32.0 GiB KV.
  {
    Run r = llmd("llama-3.3-70b", 2);
    r.weights_dtype = Dtype::fp8;
    c.push_back({r,
                 {{"vllm-006a", "weights", 33.88},
                  {"vllm-006b", "activation_peak", 4.84},
                  {"vllm-006c", "non_torch", 0.55},
                  {"vllm-006d", "cuda_graph", -0.42},
                  {"vllm-006e", "kv_pool", 32.0}}});
  }
  // vllm-007: the same at TP 1: "Model loading took: 67.72 GiB", "Available KV cache memory:
  // -1.44 GiB (NEGATIVE - INSUFFICIENT)", "No available memory for the cache blocks".
  {
    Run r = llmd("llama-3.3-70b", 1);
    r.weights_dtype = Dtype::fp8;
    c.push_back({r, {{"vllm-007a", "weights", 67.72}, {"vllm-007b", "kv_pool", -1.44}}});
  }
  // vllm-008: openai/gpt-oss-20b (MXFP4 experts, triton_kernels on Hopper): 13.47 GiB weights,
  // 7.38 activation, 0.13 non-torch, 0.39 CUDA graph, 50.28 GiB KV.
  {
    Run r = llmd("gpt-oss-20b", 1);
    r.weights_dtype = Dtype::fp4;
    c.push_back({r,
                 {{"vllm-008a", "weights", 13.47},
                  {"vllm-008b", "activation_peak", 7.38},
                  {"vllm-008c", "non_torch", 0.13},
                  {"vllm-008d", "cuda_graph", 0.39},
                  {"vllm-008e", "kv_pool", 50.28}}});
  }
  // vllm-009: openai/gpt-oss-120b: 64.38 GiB weights, 7.38 activation, 0.13 non-torch, 1.03 CUDA
  // graph, 3.33 GiB KV.
  {
    Run r = llmd("gpt-oss-120b", 1);
    r.weights_dtype = Dtype::fp4;
    c.push_back({r,
                 {{"vllm-009a", "weights", 64.38},
                  {"vllm-009b", "activation_peak", 7.38},
                  {"vllm-009c", "non_torch", 0.13},
                  {"vllm-009d", "cuda_graph", 1.03},
                  {"vllm-009e", "kv_pool", 3.33}}});
  }
  // vllm-010: https://github.com/llm-d/llm-d-benchmark/pull/723 (2026-02-24; the section also in
  // PR #732): mistralai/Mistral-Small-3.2-24B-Instruct-2506 (Mistral3ForConditionalGeneration),
  // "vLLM version: 0.11.0 (V1 engine)", --gpu-memory-utilization 0.95, max-model-len 16000,
  // block-size 128, max_num_batched_tokens=8192: "Model loading took: 44.76 GiB", "Available KV
  // cache memory: 28.20 GiB", "Free memory on device: 78.59/79.19 GiB on startup", "GPU KV cache
  // size: 184,832 tokens", "Maximum concurrency for 16,000 tokens per request: 11.55x", activation
  // 2.12 GiB, non-torch 0.14 GiB, CUDA graph -0.76 GiB. The vision tower's profile is not modelled
  // (its 0.44B parameters are in the weights).
  {
    Run r = llmd("real:mistral-small-3.2-24b-instruct-2506", 1);
    r.gpu_gib = 79.19;
    r.utilization = 0.95;
    r.version = v0_11_0;
    c.push_back({r,
                 {{"vllm-010a", "weights", 44.76},
                  {"vllm-010b", "activation_peak", 2.12},
                  {"vllm-010c", "non_torch", 0.14},
                  {"vllm-010d", "cuda_graph", -0.76},
                  {"vllm-010e", "kv_pool", 28.20},
                  {"vllm-010f", "kv_pool_tokens", 184832},
                  {"vllm-010g", "max_concurrency", 11.55}}});
  }
  // vllm-011: log/vllm-7B-1gpuA10080GB-0.25GRAM.log: Qwen2-7B-Instruct, TP 1, utilization 0.25:
  // "Model loading took 14.2488 GiB", "Available KV cache memory: 5.01 GiB", "GPU KV cache size:
  // 93,872 tokens", "Maximum concurrency for 16,384 tokens per request: 5.73x", "Graph capturing
  // finished in 3 secs, took 0.50 GiB".
  c.push_back({dennis("qwen2.5-7b", 79.26, 0.25, 1),
               {{"vllm-011a", "weights", 14.2488},
                {"vllm-011b", "kv_pool", 5.01},
                {"vllm-011c", "kv_pool_tokens", 93872},
                {"vllm-011d", "max_concurrency", 5.73},
                {"vllm-011e", "cuda_graph", 0.50}}});
  // vllm-012: log/vllm-7B-1gpuA10080GB-0.5GRAM.log: the same at 0.5: 14.2488 GiB, 24.83 GiB,
  // 464,848 tokens, 28.37x, 0.50 GiB.
  c.push_back({dennis("qwen2.5-7b", 79.26, 0.5, 1),
               {{"vllm-012a", "weights", 14.2488},
                {"vllm-012b", "kv_pool", 24.83},
                {"vllm-012c", "kv_pool_tokens", 464848},
                {"vllm-012d", "max_concurrency", 28.37}}});
  // vllm-013: log/vllm-7B-2gpuA10080GB-0.25GRAM-same-node.log: TP 2 on one node, 0.25: "Model
  // loading took 7.1217 GiB", "Available KV cache memory: 12.02 GiB", "GPU KV cache size: 450,192
  // tokens", "27.48x", "Graph capturing finished in 4 secs, took 0.65 GiB".
  c.push_back({dennis("qwen2.5-7b", 79.26, 0.25, 2),
               {{"vllm-013a", "weights", 7.1217},
                {"vllm-013b", "kv_pool", 12.02},
                {"vllm-013c", "kv_pool_tokens", 450192},
                {"vllm-013d", "max_concurrency", 27.48},
                {"vllm-013e", "cuda_graph", 0.65}}});
  // vllm-014: log/vllm-7B-2gpuA10080GB-0.5GRAM-same-node.log: TP 2, 0.5: 7.1217 GiB, 31.83 GiB,
  // 1,192,160 tokens, 72.76x.
  c.push_back({dennis("qwen2.5-7b", 79.26, 0.5, 2),
               {{"vllm-014a", "weights", 7.1217},
                {"vllm-014b", "kv_pool", 31.83},
                {"vllm-014c", "kv_pool_tokens", 1192160},
                {"vllm-014d", "max_concurrency", 72.76}}});
  // vllm-015: log/vllm-7B-2gpuA10040GB-0.5GRAM-diff-nodes.log: TP 2 over two nodes (Ray), A100
  // 40GB, 0.5: 7.1217 GiB, "Available KV cache memory: 11.03 GiB", 412,944 tokens, 25.20x. The
  // A100 40GB's torch total is not printed here: 39.49 GiB, as another v0.10 log prints it ("Free
  // memory on device (39.0/39.49 GiB) on startup", https://github.com/vllm-project/vllm/issues/25970).
  c.push_back({dennis("qwen2.5-7b", 39.49, 0.5, 2),
               {{"vllm-015a", "weights", 7.1217},
                {"vllm-015b", "kv_pool", 11.03},
                {"vllm-015c", "kv_pool_tokens", 412944},
                {"vllm-015d", "max_concurrency", 25.20}}});
  // vllm-016: log/vllm-120B-4gpuA10080GB-0.8GRAM-diff-nodes.log: gpt-oss-120b, TP 4 over nodes
  // (Ray), 0.8, MXFP4 experts on Marlin ("Your GPU does not have native support for FP4"): "Model
  // loading took 17.2217 GiB", "Available KV cache memory: 45.32 GiB", "GPU KV cache size:
  // 2,640,144 tokens", "Maximum concurrency for 16,384 tokens per request: 284.25x", "Graph
  // capturing finished in 101 secs, took 1.88 GiB".
  {
    Run r = dennis("gpt-oss-120b", 79.26, 0.8, 4);
    r.weights_dtype = Dtype::fp4;
    c.push_back({r,
                 {{"vllm-016a", "weights", 17.2217},
                  {"vllm-016b", "kv_pool", 45.32},
                  {"vllm-016c", "kv_pool_tokens", 2640144},
                  {"vllm-016d", "max_concurrency", 284.25},
                  {"vllm-016e", "cuda_graph", 1.88}}});
  }
  return c;
}

}  // namespace

TEST_CASE("vLLM start-up logs, every CSV row: napkin beside the log", "[.vllm_table]") {
  std::ostringstream out;
  out << "id,key,logged,napkin,diff\n";
  for (const Case& c : cases()) {
    const Result r = run(c.run);
    for (const Logged& l : c.rows) {
      const double n = figure(r, l.key);
      out << l.id << "," << l.key << "," << l.value << "," << n << "," << (n - l.value) / std::abs(l.value) * 100.0
          << "%\n";
    }
  }
  WARN(out.str());
}
