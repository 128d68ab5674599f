// DeepSpeed's estimator (--zero-accounting deepspeed) against the figures DeepSpeed's docs print,
// and napkin's host memory per node under offload.
//
// Figures: DeepSpeed docs/code-docs/source/memory.rst, "Let's try a 3B model with just 1 node with
// 8 gpus, using live model" (t5-3b: "2851M total params, 32M largest layer params"); DeepSpeed
// prints cpu_mem/2**30 and gpu_mem/2**30 with "GB" (they are GiB):
//   ZeRO-2:  127.48GB |   5.31GB | offload_optimizer=cpu
//            127.48GB |  15.93GB | offload_optimizer=none
//   ZeRO-3:   71.71GB |   0.12GB | offload_param=cpu , offload_optimizer=cpu , zero_init=1
//             63.74GB |   0.79GB | offload_param=none, offload_optimizer=cpu , zero_init=1
//              1.47GB |   6.10GB | offload_param=none, offload_optimizer=none, zero_init=1
// The ZeRO-2 offload_optimizer=none GPU figure (15.93) is 4Ψ + 16Ψ/N, the formula before
// DeepSpeed PR #5099 (commit f4cb866, 2024-06-04); today's stage_1_and_2.py gives 2Ψ + 18Ψ/N.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "napkin/memory/deepspeed.h"
#include "run_napkin.h"

using namespace napkin;
using namespace napkin::units;
using napkin_test::run_napkin;

namespace {

constexpr std::int64_t kT5Params = 2'851'598'336;   // tests/deepspeed/README.md
constexpr std::int64_t kT5Largest = 32'899'072;     // the shared embedding, 32128 · 1024

double gib2(Bytes b) { return std::round(b.in(GiB) * 100.0) / 100.0; }  // DeepSpeed's {:.2f}

DeepSpeedInput t5(int stage, bool opt, bool params) {
  DeepSpeedInput in;
  in.total_params = kT5Params;
  in.largest_layer_params = kT5Largest;
  in.zero_stage = stage;
  in.gpus_per_node = 8;
  in.offload_optimizer = opt || params;
  in.offload_params = params;
  return in;
}

// A result of `napkin ARGS --json` in GiB, to DeepSpeed's two decimals.
double result_gib(const std::string& args, const std::string& key) {
  const auto r = run_napkin(args + " --json");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  return std::round(j["results"][key]["value"].get<double>() / 1073741824.0 * 100.0) / 100.0;
}

std::string t5_cmd(const std::string& extra) {
  return std::string("memory ") + NAPKIN_SOURCE_DIR + "/tests/deepspeed/t5-3b --train --dp 8 --zero-accounting deepspeed " +
         extra;
}

}  // namespace

TEST_CASE("DeepSpeed's ZeRO-2 estimate of t5-3b on 8 GPUs", "[deepspeed]") {
  const DeepSpeedMemory off = deepspeed_memory(t5(2, true, false));
  CHECK(gib2(off.cpu_per_node) == 127.48);
  CHECK(gib2(off.per_gpu) == 5.31);
  const DeepSpeedMemory none = deepspeed_memory(t5(2, false, false));
  CHECK(gib2(none.cpu_per_node) == 127.48);
  // Today's formula 2Ψ + int(18Ψ/N); the docs' 15.93 is the pre-#5099 4Ψ + int(16Ψ/N).
  CHECK(none.per_gpu.in(byte) == 2.0 * kT5Params + std::floor(18.0 * kT5Params / 8.0));
  CHECK(gib2(none.per_gpu) == 11.29);
  CHECK(std::round((4.0 * kT5Params + std::floor(16.0 * kT5Params / 8.0)) / 1073741824.0 * 100.0) / 100.0 == 15.93);
}

TEST_CASE("DeepSpeed's ZeRO-3 estimate of t5-3b on 8 GPUs", "[deepspeed]") {
  const DeepSpeedMemory both = deepspeed_memory(t5(3, true, true));
  CHECK(gib2(both.cpu_per_node) == 71.71);
  CHECK(gib2(both.per_gpu) == 0.12);
  const DeepSpeedMemory opt = deepspeed_memory(t5(3, true, false));
  CHECK(gib2(opt.cpu_per_node) == 63.74);
  CHECK(gib2(opt.per_gpu) == 0.79);
  const DeepSpeedMemory none = deepspeed_memory(t5(3, false, false));
  CHECK(gib2(none.cpu_per_node) == 1.47);
  CHECK(gib2(none.per_gpu) == 6.10);
  CHECK(none.gathered_params.in(byte) == 4.0 * kT5Largest);
}

TEST_CASE("DeepSpeed's estimate over nodes and its refusals", "[deepspeed]") {
  DeepSpeedInput in = t5(3, true, true);
  in.gpus_per_node = 4;
  in.nodes = 2;  // gpus_factor = 1/2: each node holds half of the 18 B/param
  CHECK(deepspeed_memory(in).cpu_per_node.in(byte) == std::floor(kT5Params * 18.0 / 2.0 * 1.5));
  in.zero_stage = 1;
  CHECK_THROWS(deepspeed_memory(in));
  in.zero_stage = 2;  // parameter offload needs ZeRO-3
  CHECK_THROWS(deepspeed_memory(in));
}

TEST_CASE("memory --zero-accounting deepspeed reproduces DeepSpeed's t5-3b table", "[deepspeed]") {
  // The model from its config: 2,851,598,336 params, the embedding the largest layer.
  CHECK(result_gib(t5_cmd("--zero 3 --offload-params"), "per_gpu") == 0.12);
  CHECK(result_gib(t5_cmd("--zero 3 --offload-params"), "cpu_memory_per_node") == 71.71);
  CHECK(result_gib(t5_cmd("--zero 3 --offload-optimizer"), "per_gpu") == 0.79);
  CHECK(result_gib(t5_cmd("--zero 3 --offload-optimizer"), "cpu_memory_per_node") == 63.74);
  CHECK(result_gib(t5_cmd("--zero 3"), "per_gpu") == 6.10);
  CHECK(result_gib(t5_cmd("--zero 3"), "cpu_memory_per_node") == 1.47);
  CHECK(result_gib(t5_cmd("--zero 2 --offload-optimizer"), "per_gpu") == 5.31);
  CHECK(result_gib(t5_cmd("--zero 2 --offload-optimizer"), "cpu_memory_per_node") == 127.48);
  CHECK(result_gib(t5_cmd("--zero 2"), "per_gpu") == 11.29);  // today's 2Ψ + 18Ψ/N (docs: 15.93, pre-#5099)
  CHECK(result_gib(t5_cmd("--zero 2"), "cpu_memory_per_node") == 127.48);
  // Two nodes of 4: ZeRO-3 full offload halves the host memory per node.
  CHECK(result_gib(t5_cmd("--zero 3 --offload-params --gpus-per-node 4"), "cpu_memory_per_node") == 35.85);
}

TEST_CASE("memory --train with offload sizes the host memory per node", "[deepspeed]") {
  // napkin's own ledger: cpu_memory per rank × the ranks on a node.
  const std::string cmd = "memory --params 8B --train --zero 2 --dp 8 --offload-optimizer --gpus-per-node 8";
  CHECK(result_gib(cmd, "cpu_memory_per_node") == Approx(8.0 * result_gib(cmd, "cpu_memory")).epsilon(1e-3));
  // Without offload or the DeepSpeed convention the flag has nothing to size outside --min-gpus.
  CHECK(run_napkin("memory --params 8B --train --zero 2 --dp 8 --gpus-per-node 8").code == 2);
}
