// --engine vllm: napkin's budget next to published vLLM V1 start-up logs (data/engines/vllm.csv).
// Each log below is a case: the run as the log states it (model, GPU total as torch saw it,
// gpu_memory_utilization, TP, max_model_len, the batch sizes vLLM picked, the release), napkin's
// weights (vllm_weights) and budget (vllm_budget), and the logged figures. Acceptance: the KV pool
// within 5% and the weights within 3% of the log; the other figures are reported (the hidden test
// "[.vllm_table]" prints every CSV row, napkin beside the log) and checked where the model claims
// them.
#include <catch2/catch.hpp>

#include <algorithm>
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

const Case& case_of(const std::string& id_prefix) {
  static const std::vector<Case> all = cases();
  for (const Case& c : all)
    if (!c.rows.empty() && c.rows.front().id.rfind(id_prefix, 0) == 0) return c;
  FAIL("no case " << id_prefix);
  return all.front();
}

// napkin's figure against the log for one CSV row of a case.
double rel_of(const std::string& id) {
  const Case& c = case_of(id.substr(0, 8));
  const Result r = run(c.run);
  for (const Logged& l : c.rows)
    if (l.id == id) return rel(figure(r, l.key), l.value);
  FAIL("no row " << id);
  return 0;
}

// The two KV-pool rows napkin misses by more than 5%, each explained in its own test below.
bool known_miss(const std::string& id) { return id == "vllm-009e" || id == "vllm-015b"; }

// A budget for the generic tests: the old V0-calibrated cases' shape, at the default release.
VllmBudget budget_of(const specs::ModelSpec& m, double gpu_gib, double utilization, double tokens, double seqs,
                     double context, double tp) {
  InferenceMemoryInput mi;
  mi.context = context * one;
  mi.tp = tp * one;
  VllmInput in;
  in.gpu_memory = gpu_gib * GiB;
  in.gpu_memory_utilization = utilization;
  in.max_num_batched_tokens = tokens * one;
  in.max_num_seqs = seqs * one;
  in.context = context * one;
  in.tp = tp * one;
  in.weights = inference_memory(m, mi).weights;
  return vllm_budget(m, in);
}

// data/engines/vllm.csv, as id → logged value (RFC 4180: quoted fields may hold commas and "").
std::map<std::string, double> csv_logged() {
  std::ifstream f(std::string(NAPKIN_SOURCE_DIR) + "/data/engines/vllm.csv");
  REQUIRE(f.good());
  std::map<std::string, double> out;
  std::string line;
  bool header = true;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::string cur;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char ch = line[i];
      if (quoted) {
        if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') { cur += '"'; ++i; }
        else if (ch == '"') quoted = false;
        else cur += ch;
      } else if (ch == '"') quoted = true;
      else if (ch == ',') { fields.push_back(cur); cur.clear(); }
      else cur += ch;
    }
    fields.push_back(cur);
    if (header) {
      REQUIRE(line == "id,engine_version,date,url,args,key,logged,unit,quote");
      header = false;
      continue;
    }
    REQUIRE(fields.size() == 9);
    out[fields[0]] = std::stod(fields[6]);
  }
  return out;
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

// The CSV may hold more rows than this table: scripts/validate-engines (ctest engine_validation)
// evaluates every one of them through the CLI.
TEST_CASE("every case here is a row of data/engines/vllm.csv, with the same logged figure", "[engine_vllm]") {
  const std::map<std::string, double> csv = csv_logged();
  std::size_t rows = 0;
  for (const Case& c : cases())
    for (const Logged& l : c.rows) {
      ++rows;
      INFO(l.id);
      REQUIRE(csv.count(l.id) == 1);
      CHECK(csv.at(l.id) == l.value);
    }
  CHECK(rows <= csv.size());
  CHECK(rows >= 45);
}

TEST_CASE("vLLM logs: the KV pool within 5% and the weights within 3% on every row but two explained misses",
          "[engine_vllm]") {
  std::size_t pools = 0, pools_within = 0;
  for (const Case& c : cases()) {
    const Result r = run(c.run);
    for (const Logged& l : c.rows) {
      INFO(l.id << " " << l.key << ": logged " << l.value << ", napkin " << figure(r, l.key));
      if (l.key == "weights") CHECK(rel(figure(r, l.key), l.value) <= 0.03);
      if (l.key == "kv_pool") {
        ++pools;
        const bool within = rel(figure(r, l.key), l.value) <= 0.05;
        pools_within += within ? 1 : 0;
        CHECK(within != known_miss(l.id));
      }
    }
  }
  CHECK(pools == 16);
  CHECK(pools_within == 14);  // 87.5%: short of the 90% aimed at, by the two rows below
}

// The same logs' tokens and concurrency follow from the pool through vLLM's block arithmetic:
// within 1% wherever the pool is.
TEST_CASE("vLLM logs: GPU KV cache size and maximum concurrency within 1% where the pool is within 1%",
          "[engine_vllm]") {
  for (const char* id : {"vllm-010f", "vllm-010g", "vllm-011c", "vllm-011d", "vllm-012c", "vllm-012d", "vllm-013c",
                         "vllm-013d", "vllm-014c", "vllm-014d", "vllm-016c", "vllm-016d"}) {
    INFO(id);
    CHECK(rel_of(id) < 0.011);
  }
}

// llm-d's H100 table (PR #622, "latest" = v0.14.1, PyTorch's sort in the sampler): the activation
// peak is the sampler warm-up over 1024 rows of the vocabulary, 4.76 GiB for Llama-3.1-8B's 128256,
// 5.56 and 5.64 GiB for Qwen3's 151936 (0.6B and 32B: the hidden states held differ), 7.38 GiB for
// gpt-oss's 201088, the same at TP 2 (the logits are gathered whole on every GPU).
TEST_CASE("llm-d's H100 logs: the activation peak is the sampler's sort over 1024 rows, within 1%", "[engine_vllm]") {
  for (const char* id : {"vllm-001b", "vllm-002b", "vllm-004b", "vllm-005b", "vllm-006b", "vllm-008b"}) {
    INFO(id);
    CHECK(rel_of(id) < 0.01);
  }
  const Result r = run(case_of("vllm-001").run);
  CHECK(r.b.sampler_bytes_per_logit == 38);
  CHECK(r.b.sampler_peak > r.b.forward_peak);
  CHECK(r.b.non_torch.in(GiB) == Approx(0.13));
  CHECK(run(case_of("vllm-005").run).b.non_torch.in(GiB) == Approx(0.55));
}

// gpt-oss's MXFP4 experts as vLLM lays them out. The checkpoint is 13,761,264,768 B (12.82 GiB,
// model.safetensors.index.json; napkin's ledger to the byte). On an H100 triton_kernels pads the
// swizzled tiles and keeps the biases in fp32: 13.40 GiB against the logged 13.47 (llm-d); on A100s
// Marlin pads the expert width to 128 and the hidden size to 256: gpt-oss-120b at TP 4 17.18 GiB
// against 17.2217 (dennislee22 vLLM-benchmarking, v0.10.1.1).
TEST_CASE("gpt-oss MXFP4 weights as vLLM stores them: Hopper swizzle and Marlin padding within 1% of the logs",
          "[engine_vllm]") {
  const auto m = specs::load_model_preset("gpt-oss-20b");
  InferenceMemoryInput mi;
  mi.weights_dtype = Dtype::fp4;
  mi.group_size = 32.0 * one;
  mi.scale_dtype = Dtype::fp8;
  mi.experts_only = true;
  mi.context = 1.0 * one;
  const VllmWeights h100 = vllm_weights(m, mi, VllmGpuArch::hopper);
  CHECK(h100.ledger.in(byte) == Approx(13761264768.0).epsilon(1e-9));
  CHECK(h100.mxfp4_padding.in(GiB) == Approx(0.568).margin(0.005));
  CHECK(rel(h100.total().in(GiB), 13.47) < 0.01);
  CHECK(rel(vllm_weights_per_gpu(m, Dtype::fp4, 1, VllmGpuArch::hopper).in(GiB), h100.total().in(GiB)) < 1e-12);
  // Marlin (A100, L40S, RTX 30/40): 2880 → 2944 wide experts, 2880 → 3072 hidden.
  const VllmWeights a100 = vllm_weights(m, mi, VllmGpuArch::pre_hopper);
  CHECK(a100.total().in(GiB) > h100.total().in(GiB));
  CHECK(rel_of("vllm-008a") < 0.01);
  CHECK(rel_of("vllm-009a") < 0.01);
  CHECK(rel_of("vllm-016a") < 0.01);
}

// vllm-009: the llm-d table's gpt-oss-120b row adds up to more than vLLM's share: 64.38 + 7.38 +
// 0.13 = 71.89 GiB against 0.9 × 79.18 = 71.26 GiB, yet it reports 3.33 GiB of KV cache (its
// activation and non-torch figures are gpt-oss-20b's, likely copied). napkin follows the figures
// that add up: with 64.19 GiB of weights and gpt-oss-20b's measured sampler peak no pool is left.
TEST_CASE("gpt-oss-120b on one H100 (vllm-009): the log's own figures exceed the budget; napkin finds no pool",
          "[engine_vllm]") {
  CHECK(64.38 + 7.38 + 0.13 > 0.9 * 79.18);
  const Result r = run(case_of("vllm-009").run);
  CHECK(vllm_fit(r.b) == VllmFit::no_cache_memory);
  CHECK(rel_of("vllm-009b") < 0.01);
}

// vllm-015: TP 2 over two nodes joined by Ray: non-torch memory is NCCL's inter-node buffers as
// well, ~1.1 GiB more than on one node (the same model at TP 2 on one node, vllm-013/014, is within
// 0.5%). napkin has no input for the topology and is 7.9% above the logged 11.03 GiB.
TEST_CASE("Qwen2-7B at TP 2 across two nodes (vllm-015): napkin's pool 7.9% above the log, inter-node NCCL",
          "[engine_vllm]") {
  const Result r = run(case_of("vllm-015").run);
  CHECK(r.b.kv_pool.in(GiB) > 11.03);
  CHECK(rel(r.b.kv_pool.in(GiB), 11.03) < 0.09);
  CHECK(rel_of("vllm-013b") < 0.005);
  CHECK(rel_of("vllm-014b") < 0.005);
}

// vllm-007: Llama-3.3-70B FP8 on one H100: "Available KV cache memory: -1.44 GiB", "No available
// memory for the cache blocks". napkin: short by 1.37 GiB, the same refusal.
TEST_CASE("Llama-3.3-70B FP8 on one H100 (vllm-007): vLLM refuses, napkin's shortfall 1.37 GiB vs -1.44",
          "[engine_vllm]") {
  const Result r = run(case_of("vllm-007").run);
  CHECK(vllm_fit(r.b) == VllmFit::no_cache_memory);
  CHECK(r.b.shortfall.in(GiB) == Approx(1.44).epsilon(0.05));
}

// vllm-004 at max-model-len 32000 (llm-d: "Qwen3-32B FAILED ... 61.03 GiB weights at
// max-model-len=32000"): the 4.45 GiB pool holds 18,000 tokens, fewer than one request.
TEST_CASE("Qwen3-32B on one H100 at 32000 tokens: one request does not fit, as llm-d's log failed", "[engine_vllm]") {
  Run r = case_of("vllm-004").run;
  r.context = 32000;
  CHECK(vllm_fit(run(r).b) == VllmFit::request_too_long);
}

// gpt-oss-120b at TP 4 (vllm-016): 18 full and 18 sliding-window layers (128 tokens) in two KV
// cache groups; a 16,384-token request takes 1024 + ⌈(127 + 2048) / 16⌉ + 1 = 1161 blocks, and the
// log's 284.25x is blocks / 1161 (kv_cache_utils.py, max_memory_usage_bytes).
TEST_CASE("gpt-oss-120b's hybrid KV groups (vllm-016): 1161 blocks per request, 284.25x as logged", "[engine_vllm]") {
  const Result r = run(case_of("vllm-016").run);
  CHECK(r.b.groups == 2);
  CHECK(r.b.group_size == 18);
  CHECK(r.b.blocks_per_request == 1161);
  CHECK(r.b.max_concurrency == Approx(284.25).epsilon(0.002));
}

// ---- releases -----------------------------------------------------------------------------------

TEST_CASE("parse_vllm_version reads major.minor[.patch[.post]] and refuses releases napkin does not model (--vllm-version)",
          "[engine_vllm]") {
  CHECK(parse_vllm_version("0.10.1") == VllmVersion{0, 10, 1});
  CHECK(parse_vllm_version("v0.10.1.1") == VllmVersion{0, 10, 1});
  CHECK(parse_vllm_version("0.11") == VllmVersion{0, 11, 0});
  CHECK(parse_vllm_version("0.21.3") == VllmVersion{0, 21, 3});
  CHECK(parse_vllm_version("0.8.0") == kVllmOldest);
  for (const char* bad : {"", "0", "0.7.3", "0.22.0", "1.0.0", "0.10.x", "0.10.1rc1", "abc", "0..1", "0.10.1.1.1", "-0.9"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_vllm_version(bad), Catch::StartsWith("--vllm-version: '" + std::string(bad) + "': expected a vLLM release 0.8.0 to 0.21.x"));
  }
  CHECK(kVllmDefaultVersion.text() == "0.19.0");
  CHECK(VllmVersion{0, 9, 1} < VllmVersion{0, 10, 0});
}

TEST_CASE("vLLM's batch defaults by release: the A100 exception from v0.9, max_num_seqs 256 from v0.8.4",
          "[engine_vllm]") {
  CHECK(vllm_batch_defaults(79.19 * GiB, "h100-sxm NVIDIA H100 SXM5 80GB").max_num_seqs == 1024);
  CHECK(vllm_batch_defaults(79.19 * GiB, "h100-sxm NVIDIA H100 SXM5 80GB").max_num_batched_tokens == 8192);
  CHECK(vllm_batch_defaults(79.15 * GiB, "a100-sxm-80gb NVIDIA A100-SXM4-80GB").max_num_seqs == 256);
  CHECK(vllm_batch_defaults(23.58 * GiB, "").max_num_batched_tokens == 2048);
  // Offline LLM(...): 16384 tokens on an H100 (the llava log of v0.10.2: "max_num_batched_tokens=16384").
  CHECK(vllm_batch_defaults(79.19 * GiB, "h100-sxm", {0, 10, 2}, true).max_num_batched_tokens == 16384);
  CHECK(vllm_batch_defaults(44.42 * GiB, "l40s", {0, 10, 2}, true).max_num_batched_tokens == 8192);
  // v0.8.0–v0.8.3: 1024 sequences on every GPU; before v0.9 the name decides (an H20 of 96 GB is small).
  CHECK(vllm_batch_defaults(23.58 * GiB, "rtx-3090", {0, 8, 3}).max_num_seqs == 1024);
  CHECK(vllm_batch_defaults(23.58 * GiB, "rtx-3090", {0, 8, 4}).max_num_seqs == 256);
  CHECK_FALSE(vllm_batch_defaults(95.0 * GiB, "h20", {0, 8, 5}).large);
  CHECK(vllm_batch_defaults(95.0 * GiB, "h20", {0, 9, 0}).large);
  CHECK(vllm_default_gpu_memory_utilization({0, 20, 1}) == 0.9);
  CHECK(vllm_default_gpu_memory_utilization({0, 21, 0}) == 0.92);
}

TEST_CASE("the sampler warm-up by release: FlashInfer to v0.11.0, PyTorch's sort to v0.16, Triton, FlashInfer",
          "[engine_vllm]") {
  const auto m = specs::load_model_preset("llama-3.1-8b");
  VllmInput in;
  in.gpu_memory = 79.18 * GiB;
  in.context = 8192.0 * one;
  in.weights = 16.0 * GB;
  auto per_logit = [&](VllmVersion v, std::optional<bool> flashinfer = {}) {
    in.version = v;
    in.flashinfer_sampler = flashinfer;
    return vllm_budget(m, in).sampler_bytes_per_logit;
  };
  CHECK(per_logit({0, 10, 1}) == 14);
  CHECK(per_logit({0, 10, 2}, false) == 38);  // a pip install without FlashInfer ("FlashInfer is not available")
  CHECK(per_logit({0, 11, 0}) == 14);
  CHECK(per_logit({0, 11, 1}) == 38);
  CHECK(per_logit({0, 11, 1}, true) == 38);  // #26859: FlashInfer's sampler off by default
  CHECK(per_logit({0, 15, 1}) == 38);
  // llm-d-planner PR #205: v0.16.0 still logs the sort's peak (5.64 GiB for Qwen3-14B), v0.17.0 the lean one.
  CHECK(per_logit({0, 16, 0}) == 38);
  CHECK(per_logit({0, 17, 0}) == 14);
  CHECK(per_logit({0, 21, 0}) == 14);
  CHECK(vllm_flashinfer_sampler({0, 11, 0}));
  CHECK_FALSE(vllm_flashinfer_sampler({0, 14, 1}));
  CHECK(vllm_flashinfer_sampler({0, 21, 0}));
}

TEST_CASE("non-torch memory by release: counted after NCCL's set-up from v0.11, the CUDA context before v0.9.1",
          "[engine_vllm]") {
  const auto m = specs::load_model_preset("llama-3.1-8b");
  VllmInput in;
  in.gpu_memory = 79.18 * GiB;
  in.context = 8192.0 * one;
  in.weights = 16.0 * GB;
  auto nt = [&](VllmVersion v, double tp) {
    in.version = v;
    in.tp = tp * one;
    return vllm_budget(m, in).non_torch.in(GiB);
  };
  CHECK(nt({0, 8, 5}, 1) == Approx(0.45));
  CHECK(nt({0, 10, 2}, 1) == Approx(0.07));
  CHECK(nt({0, 10, 2}, 8) == Approx(0.20));
  CHECK(nt({0, 14, 1}, 1) == Approx(0.13));
  CHECK(nt({0, 14, 1}, 2) == Approx(0.55));
}

// v0.21 (#30515 on by default in #38284): the CUDA-graph pool is estimated and deducted before the
// KV cache is sized, and "GPU KV cache size" is max_concurrency × max_model_len (#41069).
TEST_CASE("from v0.21 the CUDA-graph estimate is a ledger row and is deducted; before, it is not", "[engine_vllm]") {
  const auto m = specs::load_model_preset("qwen3-8b");
  VllmInput in;
  in.gpu_memory = 79.18 * GiB;
  in.context = 16384.0 * one;
  in.weights = 16.4 * GB;
  in.version = {0, 20, 0};
  const VllmBudget before = vllm_budget(m, in);
  in.version = {0, 21, 0};
  const VllmBudget after = vllm_budget(m, in);
  CHECK(before.cuda_graph == Bytes{});
  CHECK(before.cuda_graph_estimate > Bytes{});
  CHECK(after.cuda_graph == after.cuda_graph_estimate);
  CHECK(after.kv_pool.in(byte) == Approx((before.kv_pool - after.cuda_graph).in(byte)));
  CHECK(after.kv_pool_tokens == static_cast<std::int64_t>(std::floor(after.max_concurrency * 16384.0)));
  // Qwen3-8B (36 layers) at max_num_seqs 256: 51 piecewise and 35 full graphs, about 0.52 GiB as
  // the one v0.21 log has it (LMCache issue 3430, "Estimated CUDA graph memory: 0.52 GiB total").
  in.max_num_seqs = 256.0 * one;
  in.max_num_batched_tokens = 2048.0 * one;
  CHECK(vllm_budget(m, in).cuda_graph.in(GiB) == Approx(0.52).epsilon(0.05));
  in.enforce_eager = true;
  CHECK(vllm_budget(m, in).cuda_graph == Bytes{});

  ResultSet out;
  in.enforce_eager = false;
  vllm_budget(m, in, out);
  REQUIRE(out.find("cuda_graph") != nullptr);
  CHECK(out.find("per_gpu")->value.num == Approx(out.find("gpu_budget")->value.num).epsilon(1e-12));
  ResultSet old;
  in.version = {0, 14, 1};
  vllm_budget(m, in, old);
  CHECK(old.find("cuda_graph") == nullptr);
}

// Pipeline parallelism: a stage of ⌈L / pp⌉ layers caches only those, so the same pool holds
// pp times the blocks; the last stage's sampler warm-up is still deducted.
TEST_CASE("pipeline parallel: each GPU caches its stage's layers, and the sampler stays on the last stage",
          "[engine_vllm]") {
  const auto m = specs::load_model_preset("llama-3.1-8b");
  VllmInput in;
  in.gpu_memory = 79.18 * GiB;
  in.context = 8192.0 * one;
  in.weights = 8.0 * GB;
  const VllmBudget one_stage = vllm_budget(m, in);
  in.pp = 2.0 * one;
  const VllmBudget two = vllm_budget(m, in);
  CHECK(two.attention_layers == 16);
  CHECK(two.activation_peak == one_stage.activation_peak);
  // ⌊2x⌋ is 2⌊x⌋ or one more.
  CHECK(two.kv_blocks >= 2 * one_stage.kv_blocks);
  CHECK(two.kv_blocks <= 2 * one_stage.kv_blocks + 1);
  in.pp = 3.0 * one;
  CHECK(vllm_budget(m, in).attention_layers == 11);  // ⌈32 / 3⌉
}

TEST_CASE("vLLM's GPU generation from the device name picks the MXFP4 kernel's layout", "[engine_vllm]") {
  CHECK(vllm_gpu_arch("h100-sxm NVIDIA H100 SXM5 80GB") == VllmGpuArch::hopper);
  CHECK(vllm_gpu_arch("h200 NVIDIA H200") == VllmGpuArch::hopper);
  CHECK(vllm_gpu_arch("b200 NVIDIA B200") == VllmGpuArch::blackwell);
  CHECK(vllm_gpu_arch("rtx-5090 NVIDIA GeForce RTX 5090") == VllmGpuArch::consumer_blackwell);
  CHECK(vllm_gpu_arch("a100-sxm-80gb NVIDIA A100-SXM4-80GB") == VllmGpuArch::pre_hopper);
  CHECK(vllm_gpu_arch("l40s NVIDIA L40S") == VllmGpuArch::pre_hopper);
  CHECK(vllm_gpu_arch("") == VllmGpuArch::pre_hopper);
}

// The rotary cos/sin cache: Llama-3.1-8B's 131072 positions × 128 × 2 B = 32 MiB, the difference
// between its 14.96 GiB of bf16 parameters and vLLM's 14.99 GiB (vllm-001a).
TEST_CASE("vLLM's weights add the rotary cos/sin cache to the ledger's parameters", "[engine_vllm]") {
  const auto m = specs::load_model_preset("llama-3.1-8b");
  CHECK(vllm_weights_per_gpu(m, Dtype::bf16, 1).in(GiB) == Approx(14.99).epsilon(0.001));
  InferenceMemoryInput mi;
  mi.context = 1.0 * one;
  CHECK(vllm_weights(m, mi, VllmGpuArch::hopper).rope_cache.in(MiB) == Approx(32.0));
  CHECK(vllm_weights(m, mi, VllmGpuArch::hopper).mxfp4_padding == Bytes{});
}

TEST_CASE("a pool below zero is vLLM's 'no available memory for the cache blocks': 0 blocks, does not fit",
          "[engine_vllm]") {
  const auto m = specs::load_model_preset("llama-3-8b");
  const VllmBudget b = budget_of(m, 8.0, 0.9, 2048, 256, 4096, 1);
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
  const VllmBudget b = budget_of(m, 79.19, 0.90, 8192, 1024, 8192, 1);
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

// The CLI maps each assumption key to the flag that changes it (src/cli/assumption_flags.cpp) and
// refuses a key it does not know: the ledger keeps to the keys it had, whatever the release or
// layout.
TEST_CASE("the vLLM ledger's assumptions keep to the keys the CLI maps to flags, at v0.21 and with pp", "[engine_vllm]") {
  const std::vector<std::string> known = {"vllm_version", "gpu_memory_utilization", "vllm_total_memory",
                                          "vllm_activation", "vllm_non_torch", "block_size", "vllm_kv_groups",
                                          "max_num_seqs"};
  const auto m = specs::load_model_preset("gpt-oss-20b");
  VllmInput in;
  in.gpu_memory = 79.18 * GiB;
  in.context = 8192.0 * one;
  in.weights = 14.0 * GB;
  in.version = {0, 21, 0};
  in.pp = 2.0 * one;
  ResultSet out;
  vllm_budget(m, in, out);
  REQUIRE(out.find("cuda_graph") != nullptr);
  for (const auto& a : out.assumptions) {
    INFO(a.key);
    CHECK(std::find(known.begin(), known.end(), std::string(a.key)) != known.end());
  }
}
