// serve's cost rows (issue 31): $/hour, $/1M output tokens, the energy, its price and its carbon per
// 1M output tokens, at the batch's own output rate.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "napkin/specs/hf_config.h"
#include "run_napkin.h"

using napkin_test::run_napkin;
using Catch::Matchers::WithinRel;

namespace {
double result(const nlohmann::json& j, const char* key) { return j.at("results").at(key).at("value").get<double>(); }
}  // namespace

TEST_CASE("serve prices a deployment: rental per hour and per 1M output tokens at the batch's output rate",
          "[serve][cost][cli]") {
  const auto r = run_napkin("serve llama-3.1-8b --hw h100-sxm --batch 64 --price-per-gpu-hour 2.5 --json");
  REQUIRE(r.code == 0);
  const auto j = napkin::specs::parse_json_text(r.out, "output");
  // The batch's 64 · 256 output tokens over its expected latency (prefill, then 255 decode steps).
  const double latency = result(j, "expected_latency");
  const double rate = result(j, "output_tokens_per_second");
  CHECK_THAT(rate, WithinRel(64.0 * 256.0 / latency, 1e-12));
  CHECK_THAT(result(j, "cost_per_hour"), WithinRel(2.5, 1e-12));
  // 1 GPU · 2.5 USD/h over the hours 10⁶ tokens take.
  CHECK_THAT(result(j, "cost_per_million_output_tokens"), WithinRel(2.5 * 1e6 / (rate * 3600.0), 1e-12));
  // Energy at the H100 SXM's 700 W TDP, PUE 1: J per 10⁶ tokens.
  CHECK_THAT(result(j, "energy_per_million_output_tokens"), WithinRel(700.0 * 1e6 / rate, 1e-12));
  CHECK_FALSE(j.at("results").contains("co2_per_million_output_tokens"));
}

TEST_CASE("serve's energy per 1M output tokens scales with GPUs, draw and PUE, and carries its price and carbon",
          "[serve][cost][cli]") {
  const auto r = run_napkin(
      "serve llama-3.1-70b --hw h100-sxm --tp 4 --batch 32 --power 500W --pue 1.2 --price-per-kwh 0.1 "
      "--carbon-intensity 400gCO2e/kWh --json");
  REQUIRE(r.code == 0);
  const auto j = napkin::specs::parse_json_text(r.out, "output");
  const double rate = result(j, "output_tokens_per_second");
  const double energy = 4.0 * 500.0 * 1.2 * 1e6 / rate;  // J
  CHECK_THAT(result(j, "energy_per_million_output_tokens"), WithinRel(energy, 1e-12));
  CHECK_THAT(result(j, "electricity_per_million_output_tokens"), WithinRel(energy / 3.6e6 * 0.1, 1e-12));
  CHECK_THAT(result(j, "co2_per_million_output_tokens"), WithinRel(energy / 3.6e6 * 0.4, 1e-12));
  CHECK_FALSE(j.at("results").contains("cost_per_million_output_tokens"));  // no rental price given
  // Without a cost flag, no cost rows.
  const auto plain = run_napkin("serve llama-3.1-70b --hw h100-sxm --tp 4 --batch 32 --json");
  REQUIRE(plain.code == 0);
  CHECK_FALSE(napkin::specs::parse_json_text(plain.out, "output").at("results").contains("output_tokens_per_second"));
}
