// llama.cpp with part of the model in host memory (src/engines/llamacpp_offload.cpp) and vLLM's
// fewest GPUs for N users (src/engines/vllm_layout.cpp).
#include <catch2/catch.hpp>

#include <cmath>

#include "napkin/engines/llamacpp_offload.h"
#include "napkin/engines/vllm_layout.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/gguf_quant.h"
#include "napkin/specs/presets.h"
#include "checkpoint_files.h"
#include "run_napkin.h"

#include <nlohmann/json.hpp>

using namespace napkin;
using namespace napkin::units;

namespace {

std::vector<LlamaCppTensor> q4km_tensors(const specs::ModelSpec& m) {
  const GgufQuantMix mix = gguf_quant_mix(m, GgufFileType::q4_k_m);
  std::vector<NamedBytes> named;
  for (const GgufTensor& t : mix.tensors) named.push_back({t.name, static_cast<double>(t.bytes)});
  return llamacpp_tensors(m, named);
}

// A model in Q4_K_M at -c 4096: its tensors placed by name, the weights their sum.
struct Run {
  specs::ModelSpec m;
  LlamaCppOffload o;
  LlamaCppInput in;
  explicit Run(const char* preset) : m(specs::load_model_preset(preset)) {
    o.tensors = q4km_tensors(m);
    in.n_ctx = 4096.0 * one;
    for (const LlamaCppTensor& t : o.tensors) in.weights += t.bytes;
  }
  LlamaCppPlacement place() const { return llamacpp_place(m, in, o); }
};

}  // namespace

// src/llama-model.cpp load_tensors: i_gpu_start = max(n_layer + 1 − ngl, 0); the output layer is
// number n_layer and counts as one of the -ngl layers; token_embd always stays on the CPU.
TEST_CASE("llama.cpp -ngl 20 of Qwen3-30B-A3B's 48 blocks offloads blocks 29–47 and the output, as llama.cpp's loader does",
          "[llamacpp_offload]") {
  Run r("qwen3-30b-a3b");
  const auto& m = r.m;
  auto& o = r.o;
  const auto& in = r.in;
  o.n_gpu_layers = 20;
  const LlamaCppPlacement p = llamacpp_place(m, in, o);
  CHECK(p.i_gpu_start == 29);
  CHECK(p.gpu_layers == 20);
  CHECK(p.output_on_gpu);
  // Every byte is on one side: the GPU's and the host's weights sum to the file's tensors.
  CHECK((p.gpu_weights + p.host_weights).in(byte) == Approx(in.weights.in(byte)).epsilon(1e-12));
  // 19 of 48 blocks' KV on the GPU.
  CHECK(p.gpu_kv.in(byte) == Approx((p.gpu_kv + p.host_kv).in(byte) * 19.0 / 48.0).epsilon(1e-12));

  o.n_gpu_layers = 1;  // the output layer alone
  const LlamaCppPlacement one_layer = llamacpp_place(m, in, o);
  CHECK(one_layer.i_gpu_start == 48);
  CHECK(one_layer.output_on_gpu);
  CHECK(one_layer.gpu_kv == Bytes{});

  o.n_gpu_layers = 0;
  const LlamaCppPlacement none = llamacpp_place(m, in, o);
  CHECK(none.gpu_weights == Bytes{});
  // Op offload still runs the large-batch matmuls of the host's layers on the GPU: the copied
  // weight and a block's moment (llamacpp-031: Qwen3-235B at -ngl 0 reserves 742 MiB on CUDA0).
  CHECK(none.op_offload_copy > Bytes{});
  CHECK(none.gpu_compute > none.op_offload_copy);
  CHECK(none.gpu_kv == Bytes{});
  CHECK(!none.output_on_gpu);
}

TEST_CASE("every layer on the GPU still leaves token_embd in host memory (load_tensors' input layer)",
          "[llamacpp_offload]") {
  Run r("qwen3-30b-a3b");
  const auto& m = r.m;
  auto& o = r.o;
  const auto& in = r.in;
  const LlamaCppPlacement p = llamacpp_place(m, in, o);  // no -ngl: every layer
  double embd = 0;
  for (const GgufTensor& t : gguf_quant_mix(m, GgufFileType::q4_k_m).tensors)
    if (t.name == "token_embd.weight") embd = static_cast<double>(t.bytes);
  REQUIRE(embd > 0);
  CHECK(p.host_weights.in(byte) == embd);
  CHECK(p.host_kv == Bytes{});
  CHECK(p.op_offload_copy == Bytes{});  // nothing of a block is on the host to copy
}

// common/arg.cpp --n-cpu-moe: the ffn_*_exps tensors of blocks 0..N−1 stay on the CPU.
TEST_CASE("llama.cpp --n-cpu-moe 40 keeps exactly the routed experts of blocks 0–39 in host memory", "[llamacpp_offload]") {
  Run r("qwen3-30b-a3b");
  const auto& m = r.m;
  auto& o = r.o;
  const auto& in = r.in;
  o.n_cpu_moe = 40;
  const LlamaCppPlacement p = llamacpp_place(m, in, o);
  double experts_0_39 = 0, embd = 0;
  for (const GgufTensor& t : gguf_quant_mix(m, GgufFileType::q4_k_m).tensors) {
    if (t.name == "token_embd.weight") embd = static_cast<double>(t.bytes);
    if (t.name.find("_exps.") == std::string::npos) continue;
    const int blk = std::stoi(t.name.substr(4));
    if (blk < 40) experts_0_39 += static_cast<double>(t.bytes);
  }
  CHECK(p.host_weights.in(byte) == Approx(experts_0_39 + embd).epsilon(1e-12));
  // A decoded token reads 8 of the 128 experts it keeps on the host.
  CHECK(p.host_read_per_token.in(byte) == Approx(experts_0_39 * 8.0 / 128.0).epsilon(1e-12));
  CHECK(p.op_offload_copy > Bytes{});  // the GPU copies a host expert matrix for a large batch
  o.n_cpu_moe = 0;
  CHECK(llamacpp_place(m, in, o).host_read_per_token == Bytes{});
}

TEST_CASE("llama.cpp --n-cpu-moe on a dense model and a negative -ngl are refused by name", "[llamacpp_offload]") {
  Run r("llama-3.1-8b");
  const auto& m = r.m;
  auto& o = r.o;
  const auto& in = r.in;
  o.n_cpu_moe = 4;
  CHECK_THROWS_WITH(llamacpp_place(m, in, o), Catch::StartsWith("--n-cpu-moe: '4': expected a model with routed experts"));
  o.n_cpu_moe = 0;
  o.n_gpu_layers = -1;
  CHECK_THROWS_WITH(llamacpp_place(m, in, o), Catch::StartsWith("--n-gpu-layers"));
}

TEST_CASE("the most -ngl that fits is exact to one layer: it fits, one more does not", "[llamacpp_offload]") {
  Run r("qwen3-30b-a3b");
  const auto& m = r.m;
  auto& o = r.o;
  auto& in = r.in;
  in.capacity = 8.0 * GiB;
  const std::int64_t most = llamacpp_max_gpu_layers(m, in, o);
  REQUIRE(most > 0);
  REQUIRE(most < m.layers + 1);
  const auto per_gpu = [&](std::int64_t ngl) {
    o.n_gpu_layers = ngl;
    const LlamaCppPlacement p = llamacpp_place(m, in, o);
    return p.gpu_weights + p.gpu_kv + p.gpu_compute + in.cuda_context;
  };
  CHECK(per_gpu(most) <= *in.capacity);
  CHECK(per_gpu(most + 1) > *in.capacity);
}

TEST_CASE("a tied output duplicates token_embd on the GPU while the input keeps its copy on the host",
          "[llamacpp_offload]") {
  const auto m = specs::load_model_preset("gemma-2-2b");  // tied embeddings
  const std::vector<LlamaCppTensor> t = llamacpp_tensors(m, 5.0 * GiB, 16.0, false, false, "--n-gpu-layers");
  Bytes input{}, output{}, all{};
  for (const LlamaCppTensor& x : t) {
    if (x.layer < 0) input += x.bytes;
    if (x.layer == m.layers) output += x.bytes;
    all += x.bytes;
  }
  CHECK(input > Bytes{});
  CHECK(output >= input);                                           // the duplicate (and output_norm)
  // The file counts it once: the tensors less the duplicate (one input tensor's bytes) are the weights.
  CHECK((all - input).in(byte) == Approx(5.0 * 1073741824.0).epsilon(1e-9));
}

// "32 users at 8k on how many H100s, with vLLM?": Llama-3.1-70B in FP8 (70.6 GB of weights). At
// TP 2 each GPU holds 35 GB of weights and 36 GiB of pool, 28.7 requests of 8192 tokens (163,840 B
// of KV per token per GPU); TP 4 holds 84.
TEST_CASE("vLLM's fewest GPUs for 32 users of Llama-3.1-70B FP8 at 8Ki on H100s is TP 4; TP 2 holds fewer than 32",
          "[vllm_layout]") {
  const auto m = specs::load_model_preset("llama-3.1-70b");
  VllmInput base;
  base.gpu_memory = 79.22 * GiB;
  base.context = 8192.0 * one;
  InferenceMemoryInput w;
  w.weights_dtype = Dtype::fp8;
  w.context = base.context;
  const VllmLayoutAnswer a = vllm_min_gpus(m, base, w, 32.0, LayoutSearch{});
  REQUIRE(a.fewest);
  CHECK(a.fewest->tp == 4);
  CHECK(a.fewest->pp == 1);
  // TP 2's pool holds fewer than 32: the answer is the fewest.
  InferenceMemoryInput w2 = w;
  w2.tp = 2.0 * one;
  VllmInput at2 = base;
  at2.tp = 2.0 * one;
  at2.weights = inference_memory(m, w2).weights;
  at2.users = 32.0 * one;
  const VllmBudget b2 = vllm_budget(m, at2);
  CHECK(b2.max_concurrency < 32.0);
  CHECK(vllm_fit(b2) == VllmFit::too_few_requests);

  ResultSet rs;
  vllm_min_gpus(m, base, w, 32.0, LayoutSearch{}, rs);
  REQUIRE(rs.find("min_gpus") != nullptr);
  CHECK(rs.find("min_gpus")->value.num == 4.0);
  REQUIRE(rs.find("neutral_min_gpus") != nullptr);
  CHECK(rs.find("neutral_min_gpus")->value.num == 2.0);  // the engine-neutral ledger uses all of each GPU
}

TEST_CASE("more vLLM users than --max-num-seqs fit on no number of GPUs: refused naming --users", "[vllm_layout]") {
  const auto m = specs::load_model_preset("llama-3.1-8b");
  VllmInput base;
  base.gpu_memory = 79.22 * GiB;
  base.context = 4096.0 * one;
  base.max_num_seqs = 256.0 * one;
  InferenceMemoryInput w;
  w.context = base.context;
  CHECK_THROWS_WITH(vllm_min_gpus(m, base, w, 300.0, LayoutSearch{}),
                    Catch::StartsWith("--users: '300': expected at most --max-num-seqs (256)"));
}

// src/llama-model.cpp load_tensors: with several GPUs, layer il goes to the first GPU whose
// cumulative split exceeds (il − i_gpu_start) / act_gpu_layers; -ts 3,1 gives the first GPU three
// quarters of the layers.
TEST_CASE("llama.cpp --tensor-split 3,1 puts the first three quarters of the layers on the first GPU",
          "[llamacpp_offload]") {
  Run r("llama-3.1-8b");
  r.o.devices = {{"a", 24.0 * GiB, 1.0e12 * units::byte_per_s, 3.0}, {"b", 24.0 * GiB, 0.5e12 * units::byte_per_s, 1.0}};
  const LlamaCppPlacement p = r.place();
  REQUIRE(p.devices.size() == 2);
  // 33 layers (32 blocks and the output): (il / 33) < 0.75 for il ≤ 24.
  CHECK(p.devices[0].first_layer == 0);
  CHECK(p.devices[0].last_layer == 24);
  CHECK(p.devices[1].first_layer == 25);
  CHECK(p.devices[1].last_layer == 32);
  // Every block's KV is on one GPU, 25 blocks on the first.
  CHECK(p.devices[0].kv.in(byte) == Approx((p.devices[0].kv + p.devices[1].kv).in(byte) * 25.0 / 32.0).epsilon(1e-12));
  // The sums are the one-GPU figures.
  LlamaCppOffload one = r.o;
  one.devices.clear();
  const LlamaCppPlacement q = llamacpp_place(r.m, r.in, one);
  CHECK(p.gpu_weights.in(byte) == Approx(q.gpu_weights.in(byte)).epsilon(1e-12));
  CHECK(p.gpu_kv == q.gpu_kv);
}

TEST_CASE("memory --tensor-split rtx-4090,rtx-3090 holds Llama-3.1-70B Q4_K_M on both, each under its total",
          "[llamacpp_offload][cli]") {
  const auto r = napkin_test::run_napkin(
      "memory llama-3.1-70b --engine llama.cpp --weights-dtype q4_k_m --tensor-split rtx-4090,rtx-3090 --context 8192 --json");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["results"]["fits"]["value"] == true);
  CHECK(j["results"]["gpu0_total"]["value"].get<double>() <= 25386352640.0);  // the RTX 4090's CUDA total
  CHECK(j["results"]["gpu1_total"]["value"].get<double>() <= 25318916096.0);  // the RTX 3090's
  CHECK(napkin_test::run_napkin("memory llama-3.1-8b --engine llama.cpp --tensor-split rtx-4090").code == 2);
  CHECK(napkin_test::run_napkin("memory llama-3.1-8b --engine llama.cpp --tensor-split rtx-4090:1,rtx-3090").code == 2);
  CHECK(napkin_test::run_napkin("memory llama-3.1-8b --engine llama.cpp --hw h100-sxm --tensor-split rtx-4090,rtx-3090")
            .code == 2);
}

// https://github.com/AlexsJones/llmfit/pull/755 (2026-07-16): Qwen3-30B-A3B-Instruct-2507 Q4_K_M
// under llama-server -ngl 99 --n-cpu-moe 36 on an RTX 2080 (8 GB, 448 GB/s) with an i9-10900X
// whose quad-channel DDR4 measured ~102 GB/s: "Pure generation speed measured by the server
// itself is 36.7 tok/s". The host's efficiency was calibrated on this run (one run; in-sample).
TEST_CASE("llama.cpp --n-cpu-moe 36: Qwen3-30B-A3B on an RTX 2080 and DDR4 decodes at the published 36.7 tokens/s",
          "[llamacpp_offload][cli]") {
  napkin::test::TempDir dir;
  const auto hw = dir / "rtx-2080.json";
  // The RTX 2080's datasheet figures: 8 GB GDDR6 at 448 GB/s.
  napkin::test::write_file(hw, R"({"kind": "accelerator", "name": "NVIDIA GeForce RTX 2080", "vendor": "NVIDIA",
    "memory_bytes": 8589934592, "memory_bandwidth_bytes_per_s": 448000000000,
    "peak_flops_per_s": {"fp16": 40300000000000, "fp32": 10070000000000}, "device_class": "consumer-gpu"})");
  const auto r = napkin_test::run_napkin("memory qwen3-30b-a3b --engine llama.cpp --hw " + hw.string() +
                                         " --weights-dtype q4_k_m --n-gpu-layers 99 --n-cpu-moe 36 "
                                         "--host-bandwidth 102GB/s --json");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["results"]["fits"]["value"] == true);
  CHECK(j["results"]["expected_decode_tokens_per_second"]["value"].get<double>() == Approx(36.7).epsilon(0.05));
  CHECK(j["results"]["decode_tokens_per_second"]["value"].get<double>() > 36.7);  // the bound is above the run
}
