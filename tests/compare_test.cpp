// Comparisons (issue 14 item 3): MODEL, --hw, --weights-dtype, --kv-dtype, --engine (and
// memory's --recompute) take comma lists; each combination is a row, validated before any is
// printed, and a table of at most six rows shows them side by side.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "run_napkin.h"

using napkin_test::run_napkin;
using napkin_test::run_shell;

TEST_CASE("two models on two GPUs are four rows, each naming its model and GPU", "[cli][compare]") {
  const auto r = run_shell(std::string(NAPKIN_BINARY) +
                           " memory llama-3.1-8b,qwen2.5-7b --hw h100-sxm,l40s --context 8192 --json");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 4);
  CHECK(j[0]["inputs"]["model"] == "llama-3.1-8b");
  CHECK(j[0]["inputs"]["hw"] == "h100-sxm");
  CHECK(j[1]["inputs"]["hw"] == "l40s");
  CHECK(j[3]["inputs"]["model"] == "qwen2.5-7b");
  CHECK(j[3]["inputs"]["hw"] == "l40s");
  // The same model's ledger on both GPUs, the capacity checked against each GPU's own memory.
  CHECK(j[0]["results"]["per_gpu"]["value"] == j[1]["results"]["per_gpu"]["value"]);
  CHECK(j[0]["results"]["headroom"]["value"] != j[1]["results"]["headroom"]["value"]);
}

TEST_CASE("a comparison of up to six configurations is a side-by-side table", "[cli][compare]") {
  const auto r = run_napkin("memory llama-3.1-8b,qwen2.5-7b --hw h100-sxm,l40s --context 8192");
  REQUIRE(r.code == 0);
  // One line per swept input, the configurations as columns; then one line per result.
  CHECK(r.out.find("  model            llama-3.1-8b  llama-3.1-8b  qwen2.5-7b  qwen2.5-7b\n") != std::string::npos);
  CHECK(r.out.find("  hw                   h100-sxm          l40s    h100-sxm        l40s\n") != std::string::npos);
  CHECK(r.out.find("  weights              16.06 GB      16.06 GB    15.23 GB    15.23 GB\n") != std::string::npos);
  CHECK(r.out.find("Assumptions (first configuration)") != std::string::npos);
  for (std::size_t b = 0, e; (e = r.out.find('\n', b)) != std::string::npos; b = e + 1)
    if (r.out.compare(b, 11, "Assumptions") == 0) break;
    else CHECK(e - b <= 100);
}

TEST_CASE("a comparison of more than six rows is one row per configuration", "[cli][compare]") {
  const auto r = run_napkin("memory llama-3.1-8b,qwen2.5-7b --context 1k,2k,4k,8k");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("model  context") != std::string::npos);
  CHECK(r.out.find("Assumptions (first row)") != std::string::npos);
}

TEST_CASE("a comparison is validated whole before a row is printed", "[cli][compare]") {
  const auto r = run_shell(std::string(NAPKIN_BINARY) + " memory llama-3.1-8b,not-a-model --context 8192 2>/dev/null");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  const auto e = run_napkin("memory llama-3.1-8b,,qwen2.5-7b");
  CHECK(e.code == 2);
  CHECK(e.out.find("napkin: error: MODEL: 'llama-3.1-8b,,qwen2.5-7b': expected a comma list without empty entries") !=
        std::string::npos);
  const auto h = run_napkin("memory llama-3.1-8b --hw h100,");
  CHECK(h.code == 2);
  CHECK(h.out.find("napkin: error: --hw: 'h100,': expected a comma list without empty entries") != std::string::npos);
}

TEST_CASE("a comparison's CSV has every column any configuration has", "[cli][compare]") {
  // Jamba's Mamba layers add an ssm_state row the Llama ledger does not have.
  const auto r = run_shell(std::string(NAPKIN_BINARY) + " memory llama-3.1-8b," + NAPKIN_SOURCE_DIR +
                           "/tests/real-configs/jamba-v0.1/config.json --context 8192 --csv 2>/dev/null");
  REQUIRE(r.code == 0);
  const std::string header = r.out.substr(0, r.out.find('\n'));
  CHECK(header.find(",ssm_state") != std::string::npos);
}

TEST_CASE("dtypes compare as configurations; a comparison is not charted", "[cli][compare]") {
  const auto r = run_shell(std::string(NAPKIN_BINARY) +
                           " serve llama-3.1-8b --hw h100-sxm --weights-dtype bf16,fp8 --prompt 1024 --generate 128 --json");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.size() == 2);
  CHECK(j[1]["inputs"]["weights_dtype"] == "fp8");
  CHECK(j[0]["results"]["weights"]["value"].get<double>() > j[1]["results"]["weights"]["value"].get<double>());
  const auto p = run_napkin("memory llama-3.1-8b,qwen2.5-7b --plot c.svg");
  CHECK(p.code == 2);
  CHECK(p.out.find("--plot: 'c.svg': expected a numeric sweep") != std::string::npos);
}

TEST_CASE("ZeRO stages compare as configurations; a stage outside 0-3 is refused", "[cli][compare]") {
  const auto r = run_shell(std::string(NAPKIN_BINARY) +
                           " memory llama-3.1-8b --train --zero 0,3 --dp 8 --seq 4096 --json");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.size() == 2);
  CHECK(j[0]["inputs"]["zero"] == 0);
  CHECK(j[1]["results"]["per_gpu"]["value"].get<double>() < j[0]["results"]["per_gpu"]["value"].get<double>());
  const auto bad = run_napkin("memory llama-3.1-8b --train --zero 1,5 --dp 8");
  CHECK(bad.code == 2);
  CHECK(bad.out.find("--zero: '5': expected a ZeRO stage 0, 1, 2 or 3") != std::string::npos);
}
