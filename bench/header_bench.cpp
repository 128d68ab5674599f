// Checkpoint header parsing time against the number of tensors: safetensors headers of 10k, 100k
// and 1M tensors (synthetic, built in memory, like a MoE checkpoint's expert tensors), through
// napkin::specs::parse_safetensors_header. Linear parsing keeps the time per tensor flat.
//
// BM_SafetensorsHeader_OldCallback is the parse napkin used before (nlohmann::json::parse with
// a depth-limiting callback, which rescans the parent object each time a child object ends), at
// sizes it finishes in: its time per tensor grows with the count.
//
// Run: build/bench/napkin_header_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <string>

#include <nlohmann/json.hpp>

#include "napkin/specs/checkpoint.h"

namespace {

std::string header_of(std::size_t n) {
  std::string h = "{\"__metadata__\": {\"format\": \"pt\"}";
  h.reserve(n * 110);
  for (std::size_t i = 0; i < n; ++i) {
    h += ",\"model.layers." + std::to_string(i / 256) + ".mlp.experts." + std::to_string(i % 256) +
         ".down_proj.weight\":{\"dtype\":\"BF16\",\"shape\":[1],\"data_offsets\":[" + std::to_string(2 * i) + "," +
         std::to_string(2 * i + 2) + "]}";
  }
  h += "}";
  return h;
}

void BM_SafetensorsHeader(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::string header = header_of(n);
  for (auto _ : state) {
    const auto c = napkin::specs::parse_safetensors_header(header, 2 * n, "model.safetensors");
    benchmark::DoNotOptimize(c.total_elements);
  }
  state.counters["tensors"] = static_cast<double>(n);
  state.counters["header_MB"] = static_cast<double>(header.size()) / 1e6;
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(BM_SafetensorsHeader)->Arg(10000)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);

void BM_SafetensorsHeader_OldCallback(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const std::string header = header_of(n);
  for (auto _ : state) {
    const auto j = nlohmann::json::parse(header, [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
      return depth <= 16;
    });
    benchmark::DoNotOptimize(j.size());
  }
  state.counters["tensors"] = static_cast<double>(n);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(BM_SafetensorsHeader_OldCallback)->Arg(5000)->Arg(10000)->Arg(20000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
