// Declared quantization: a checkpoint's quantization_config sets how memory and serve count its
// weights, unless --weights-dtype says otherwise (tests/quant-configs/README.md).
#include <catch2/catch.hpp>

#include <string>

#include "napkin/specs/presets.h"
#include "run_napkin.h"

using napkin_test::run_napkin;

namespace {

std::string fixture(const char* name) { return std::string(NAPKIN_SOURCE_DIR) + "/tests/quant-configs/" + name; }

std::string weights_value(const std::string& json) {
  const auto at = json.find("\"weights\":{\"value\":");
  REQUIRE(at != std::string::npos);
  const auto start = at + 19;
  return json.substr(start, json.find(',', start) - start);
}

}  // namespace

TEST_CASE("an AWQ config is counted at 4 bits with fp16 scales and packed zero points per 128 weights",
          "[quantization]") {
  // Llama-3.1-8B: 8,030,261,248 params, of which embeddings, head and norms (1,050,939,392) stay
  // bf16. The other 6,979,321,856 at 4 bits = 3,489,660,928 B; 54,525,952 groups of 128, each
  // an fp16 scale (2 B) and a 4-bit zero point (0.5 B) = 136,314,880 B; bf16 part 2,101,878,784 B.
  // Total 5,727,854,592 B, the 5.73 GB hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4 lists.
  const auto r = run_napkin("memory " + fixture("llama-3.1-8b-awq") + " --json");
  REQUIRE(r.code == 0);
  CHECK(weights_value(r.out) == "5727854592");
  CHECK(r.out.find("quantization_config declares: awq 4-bit weights, group 128, zero points") != std::string::npos);
  // --weights-dtype overrides the declaration.
  const auto bf16 = run_napkin("memory " + fixture("llama-3.1-8b-awq") + " --weights-dtype bf16 --json");
  REQUIRE(bf16.code == 0);
  CHECK(weights_value(bf16.out) == "16060522496");
}

TEST_CASE("a block-FP8 checkpoint directory is counted at 8 bits with an fp32 scale per 128x128 block",
          "[quantization]") {
  // 6,979,321,856 B of fp8 weights, 425,984 blocks × 4 B of scales, 2,101,878,784 B in bf16.
  const auto r = run_napkin("memory " + fixture("llama-3.1-8b-fp8") + " --json");
  REQUIRE(r.code == 0);
  CHECK(weights_value(r.out) == std::to_string(6979321856LL + 425984LL * 4 + 2101878784LL));
  // The DeepSeek-V3 preset declares the same block FP8: its weights are about one byte each.
  const auto ds = run_napkin("memory deepseek-v3 --json");
  REQUIRE(ds.code == 0);
  CHECK(std::stod(weights_value(ds.out)) < 0.51 * 2.0 * 671026419200.0);
}

TEST_CASE("serve reads the declared weights per decode step", "[quantization]") {
  const auto r = run_napkin("serve " + fixture("llama-3.1-8b-awq") + " --hw h100-sxm --json");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("quantization_config declares: awq 4-bit weights") != std::string::npos);
  CHECK(r.out.find("\"weights_dtype\"") != std::string::npos);
}
