// The expected serving figures beside the bound (napkin/plans/serve_expected.h, issue 20): the bound's
// ops derated by an engine's efficiency, the profiles they come from, and the flags that override
// them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "napkin/ground/error.h"
#include "napkin/plans/serve.h"
#include "napkin/plans/serve_expected.h"
#include "napkin/specs/efficiency.h"
#include "napkin/specs/hardware.h"
#include "napkin/specs/presets.h"
#include "run_napkin.h"

using namespace napkin;
using namespace napkin::units;
using Catch::Matchers::WithinRel;
using napkin_test::run_napkin;

namespace {

ServeInput on_h100(double batch, double prompt) {
  const specs::HardwareSpec hw = specs::load_hardware("h100-sxm");
  ServeInput in;
  in.batch = batch * one;
  in.prompt = prompt * one;
  in.generate = 128.0 * one;
  in.peak = *hw.peak(Dtype::bf16);
  in.bandwidth = hw.bandwidth;
  return in;
}

}  // namespace

TEST_CASE("expected decode at batch 1 is the bound's memory time over η_bw plus the pass overhead", "[expected]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  ServeInput in = on_h100(1, 512);
  in.efficiency = Efficiency{0.8, 0.5, 300.0, 2.0 * ms};
  const Serve r = serve(m, in);
  REQUIRE(r.expected_decode);
  // Σ_ops max(C/(η_c R), Q/(η_bw BW)): every op of a batch-1 step is memory-bound even at η_c = 0.5.
  double by_hand = 0.0;
  for (const OpCost& o : r.decode.ops)
    by_hand += std::max((o.flops / (0.5 * in.peak)).in(second), (o.bytes / (0.8 * in.bandwidth)).in(second));
  CHECK_THAT(r.expected_decode->time.in(second), WithinRel(by_hand + 2e-3, 1e-12));
  CHECK_THAT(r.expected_decode->memory.in(second), WithinRel(r.decode.memory.in(second) / 0.8, 1e-12));
  CHECK(r.expected_decode->compute_efficiency == 0.5);  // decode: η_c, no prompt-length derating
  // The bound is never slower than the expected figure.
  CHECK(r.decode.time < r.expected_decode->time);
}

TEST_CASE("expected prefill runs at η_c · n/(n + n½) of the peak: a short prompt far below a long one", "[expected]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  ServeInput in = on_h100(1, 4096);
  in.efficiency = Efficiency{0.8, 0.6, 512.0, 0.0 * ms};
  const Serve long_prompt = serve(m, in);
  CHECK_THAT(long_prompt.expected_prefill->compute_efficiency, WithinRel(0.6 * 4096.0 / (4096.0 + 512.0), 1e-12));
  in.prompt = 64.0 * one;
  const Serve short_prompt = serve(m, in);
  CHECK_THAT(short_prompt.expected_prefill->compute_efficiency, WithinRel(0.6 * 64.0 / (64.0 + 512.0), 1e-12));
  // n = B·P: four sequences of 64 tokens run as a 256-token pass.
  in.batch = 4.0 * one;
  CHECK_THAT(serve(m, in).expected_prefill->compute_efficiency, WithinRel(0.6 * 256.0 / (256.0 + 512.0), 1e-12));
}

TEST_CASE("an efficiency outside 0 to 1 is refused naming its flag", "[expected]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  ServeInput in = on_h100(1, 512);
  in.efficiency = Efficiency{1.2, 0.5, 0.0, 0.0 * ms};
  CHECK_THROWS_WITH(serve(m, in), Catch::Contains("--efficiency-bandwidth") && Catch::Contains("1.2"));
  in.efficiency = Efficiency{0.8, 0.0, 0.0, 0.0 * ms};
  CHECK_THROWS_WITH(serve(m, in), Catch::Contains("--efficiency-compute"));
}

TEST_CASE("every bundled efficiency profile loads with coefficients in range and says what it was fitted on",
          "[expected]") {
  const auto& all = specs::efficiency_profiles();
  REQUIRE_FALSE(all.empty());
  for (const auto& p : all) {
    INFO(p.name);
    CHECK((p.engine == "none" || p.engine == "llama.cpp" || p.engine == "vllm"));
    CHECK(p.bandwidth > 0.0);
    CHECK(p.bandwidth <= 1.0);
    CHECK(p.compute > 0.0);
    CHECK(p.compute <= 1.0);
    CHECK(p.fitted_on.find("published") != std::string::npos);
  }
  // The GPU profiles cover every GPU class; nothing covers a TPU (no measurements there).
  for (const char* engine : {"none", "llama.cpp", "vllm"}) {
    INFO(engine);
    for (const char* cls : {"datacenter-gpu", "consumer-gpu", "workstation-gpu", "embedded-gpu"})
      CHECK(specs::efficiency_profile(engine, cls));
    CHECK_FALSE(specs::efficiency_profile(engine, "tpu"));
  }
  CHECK(specs::efficiency_profile("llama.cpp", "apple-silicon"));
}

TEST_CASE("serve prints expected figures beside the bound, and each efficiency flag changes them", "[expected][cli]") {
  const std::string base = "serve llama-3.1-8b --hw h100-sxm --batch 1 --prompt 512 --generate 128";
  auto value = [](const std::string& args) {
    const auto r = run_napkin(args);
    REQUIRE(r.code == 0);
    return std::stod(r.out);
  };
  const double bound = value(base + " --value tokens_per_second");
  const double expected = value(base + " --value expected_tokens_per_second");
  CHECK(expected < bound);
  CHECK(value(base + " --efficiency-bandwidth 1 --value expected_tokens_per_second") != expected);
  CHECK(value(base + " --token-overhead 0s --value expected_tokens_per_second") != expected);
  const double ttft = value(base + " --value expected_prefill_time");
  CHECK(value(base + " --efficiency-compute 0.3 --value expected_prefill_time") > ttft);
  CHECK(value(base + " --prefill-half-tokens 4096 --value expected_prefill_time") > ttft);
  const auto table = run_napkin(base);
  CHECK_THAT(table.out, Catch::Contains("expected_tokens_per_second") && Catch::Contains("data/presets/efficiency/"));
}

TEST_CASE("without a profile for the hardware the expected figures are null, and partial flags are refused",
          "[expected][cli]") {
  const auto none = run_napkin("serve llama-3.1-8b --hw tpu-v5e --json");
  REQUIRE(none.code == 0);
  CHECK_THAT(none.out, Catch::Contains("\"expected_tokens_per_second\":{\"value\":null") &&
                           Catch::Contains("no efficiency profile for --engine none on tpu hardware"));
  const auto partial = run_napkin("serve llama-3.1-8b --hw tpu-v5e --efficiency-bandwidth 0.8");
  CHECK(partial.code == 2);
  CHECK_THAT(partial.out, Catch::Contains("--efficiency-compute") && Catch::Contains("(not given)"));
  const auto all = run_napkin("serve llama-3.1-8b --hw tpu-v5e --efficiency-bandwidth 0.8 --efficiency-compute 0.5 "
                              "--token-overhead 1ms --value expected_tokens_per_second");
  CHECK(all.code == 0);
  CHECK(std::stod(all.out) > 0.0);
  const auto out_of_range = run_napkin("serve llama-3.1-8b --hw h100-sxm --efficiency-bandwidth 2");
  CHECK(out_of_range.code == 2);
  CHECK_THAT(out_of_range.out, Catch::Contains("--efficiency-bandwidth") && Catch::Contains("(0, 1]"));
}

TEST_CASE("llama.cpp on Apple silicon states its runtime reserve as Metal's, not a CUDA context", "[expected][cli]") {
  const auto apple = run_napkin("serve llama-3-8b --hw apple-m2-ultra --weights-dtype q4_0 --engine llama.cpp");
  REQUIRE(apple.code == 0);
  CHECK_THAT(apple.out, Catch::Contains("GPU runtime reserve (Metal; not a llama.cpp buffer)"));
  CHECK_THAT(apple.out, !Catch::Contains("CUDA context (not a llama.cpp buffer)"));
  const auto nvidia = run_napkin("serve llama-3-8b --hw rtx-4090 --weights-dtype q4_0 --engine llama.cpp");
  REQUIRE(nvidia.code == 0);
  CHECK_THAT(nvidia.out, Catch::Contains("CUDA context (not a llama.cpp buffer)"));
}
