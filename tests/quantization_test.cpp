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

TEST_CASE("gpt-oss-20b's MXFP4 declaration gives the checkpoint's 13,761,264,768 B: 4-bit experts, the rest bf16",
          "[quantization]") {
  // tests/real-configs/gpt-oss-20b/SOURCE.md: the experts' weight matrices, 24 · 32 · (2880·5760
  // + 2880·2880) = 19,110,297,600 values, as 9,555,148,800 B of 4-bit blocks and 597,196,800 B of
  // E8M0 scales (one byte per 32); the other 1,804,459,584 params (attention, sinks, router,
  // expert biases, norms, embeddings, head) in bf16, 3,608,919,168 B. Sum = index total_size.
  const auto r = run_napkin("memory gpt-oss-20b --json");
  REQUIRE(r.code == 0);
  CHECK(weights_value(r.out) == "13761264768");
  CHECK(r.out.find("only the routed experts' weight matrices") != std::string::npos);
  CHECK(r.out.find("quantization_config declares: mxfp4") != std::string::npos);
  // --weights-dtype still overrides: all 20,914,757,184 params at bf16.
  const auto bf16 = run_napkin("memory gpt-oss-20b --weights-dtype bf16 --json");
  REQUIRE(bf16.code == 0);
  CHECK(weights_value(bf16.out) == "41829514368");
  // serve holds the same bytes, and reads attention in bf16 but the experts at 4.25 bits.
  const auto s = run_napkin("serve gpt-oss-20b --hw h100-sxm --json");
  REQUIRE(s.code == 0);
  CHECK(s.out.find("only the routed experts' weight matrices quantized") != std::string::npos);
}

TEST_CASE("a checkpoint directory's own tensor bytes are its weights: FP8 headers, or an index's total_size",
          "[quantization]") {
  // tests/quant-configs/tiny-llama-fp8 (make_checkpoint.py): 36,864 FP8 linear weights (1 B each),
  // 7 F32 block scales (28 B), 16,576 BF16 params of embeddings, head and norms (33,152 B).
  const auto r = run_napkin("memory " + fixture("tiny-llama-fp8") + " --json");
  REQUIRE(r.code == 0);
  CHECK(weights_value(r.out) == std::to_string(36864 + 28 + 33152));
  CHECK(r.out.find("F8_E4M3 36864 B, BF16 33152 B, F32 28 B") != std::string::npos);
  CHECK(r.out.find("\"weights_dtype\":\"as stored\"") != std::string::npos);
  // --weights-dtype overrides the checkpoint: 53,440 params at 2 B.
  const auto bf16 = run_napkin("memory " + fixture("tiny-llama-fp8") + " --weights-dtype bf16 --json");
  REQUIRE(bf16.code == 0);
  CHECK(weights_value(bf16.out) == "106880");
  // serve holds the same bytes and runs the FP8 weights at the fp8 peak.
  const auto s = run_napkin("serve " + fixture("tiny-llama-fp8") + " --hw h100-sxm --json");
  REQUIRE(s.code == 0);
  CHECK(s.out.find("\"compute_dtype\":\"fp8\"") != std::string::npos);
  CHECK(s.out.find("weights as stored in") != std::string::npos);
  // Under TP each GPU holds its share of the stored bytes.
  const auto tp = run_napkin("memory " + fixture("tiny-llama-fp8") + " --tp 2 --json");
  REQUIRE(tp.code == 0);
  CHECK(std::stod(weights_value(tp.out)) < 70044.0);
  CHECK(tp.out.find("each GPU holds them in proportion to its parameters") != std::string::npos);
  // A clone without its LFS shards: the index's metadata.total_size.
  const auto oss = run_napkin("memory " + std::string(NAPKIN_SOURCE_DIR) + "/tests/real-configs/gpt-oss-20b --json");
  REQUIRE(oss.code == 0);
  CHECK(weights_value(oss.out) == "13761264768");
  CHECK(oss.out.find("metadata.total_size; shards not present") != std::string::npos);
}
