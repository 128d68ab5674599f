// Per-evaluation cost of the calculators, with and without the itemized ResultSet, and the cost
// of one CSV row (calculator + renderer), the unit of a sweep. Run through bench/run.sh, which
// also times whole CLI invocations.
#include <benchmark/benchmark.h>

#include "napkin/plans/train_plan.h"

#include <cstdio>

#include "napkin/memory/ledgers.h"
#include "napkin/model/flops.h"
#include "napkin/plans/energy.h"
#include "napkin/plans/roofline.h"
#include "napkin/report/render.h"
#include "napkin/specs/presets.h"

using namespace napkin;
using namespace napkin::units;

namespace {

void BM_MatmulFlops_Number(benchmark::State& state) {
  double m = 4096;
  for (auto _ : state) {
    benchmark::DoNotOptimize(m);
    const Flops c = matmul_flops({.m = m * one, .k = 4096 * one, .n = 4096 * one});
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_MatmulFlops_Number);

void BM_MatmulFlops_ResultSet(benchmark::State& state) {
  ResultSet rs;
  double m = 4096;
  for (auto _ : state) {
    benchmark::DoNotOptimize(m);
    rs.clear();
    matmul_flops({.m = m * one, .k = 4096 * one, .n = 4096 * one}, rs);
    benchmark::DoNotOptimize(rs.items.data());
  }
}
BENCHMARK(BM_MatmulFlops_ResultSet);

// What a CSV sweep row pays: items and values, no formula operands, assumptions or notes.
void BM_MatmulFlops_ResultSetBrief(benchmark::State& state) {
  ResultSet rs;
  rs.details = false;
  double m = 4096;
  for (auto _ : state) {
    benchmark::DoNotOptimize(m);
    rs.clear();
    matmul_flops({.m = m * one, .k = 4096 * one, .n = 4096 * one}, rs);
    benchmark::DoNotOptimize(rs.items.data());
  }
}
BENCHMARK(BM_MatmulFlops_ResultSetBrief);

void BM_TrainingFlops_ResultSet(benchmark::State& state) {
  ResultSet rs;
  double p = 8e9;
  for (auto _ : state) {
    benchmark::DoNotOptimize(p);
    rs.clear();
    training_flops({.params = p * param, .tokens = 15e12 * token}, rs);
    benchmark::DoNotOptimize(rs.items.data());
  }
}
BENCHMARK(BM_TrainingFlops_ResultSet);

void BM_Roofline_ResultSet(benchmark::State& state) {
  ResultSet rs;
  double i = 10;
  for (auto _ : state) {
    benchmark::DoNotOptimize(i);
    rs.clear();
    roofline({.peak = 100.0 * TFLOP_per_s, .bandwidth = 1.0 * TB_per_s, .intensity = i * flop_per_byte}, rs);
    benchmark::DoNotOptimize(rs.items.data());
  }
}
BENCHMARK(BM_Roofline_ResultSet);

void BM_Energy_ResultSet(benchmark::State& state) {
  ResultSet rs;
  double c = 1e18;
  for (auto _ : state) {
    benchmark::DoNotOptimize(c);
    rs.clear();
    energy({.flops = c * flop, .throughput = 100.0 * TFLOP_per_s, .power = 1.0 * kW, .pue = 1.2}, rs);
    benchmark::DoNotOptimize(rs.items.data());
  }
}
BENCHMARK(BM_Energy_ResultSet);

// One sweep row: calculator into a reused ResultSet, then the CSV renderer (buffered; flushed
// to /dev/null every 64 KiB).
void BM_CsvSweepRow_Matmul(benchmark::State& state) {
  std::FILE* null = std::fopen("/dev/null", "w");
  report::RenderOptions opt;
  opt.format = report::Format::csv;
  opt.sweep = true;
  auto r = report::make_renderer(opt, null);
  ResultSet rs;
  rs.details = false;  // as run_sweep sets it for CSV
  double m = 1;
  for (auto _ : state) {
    rs.clear();
    matmul_flops({.m = m * one, .k = 8 * one, .n = 8 * one}, rs);
    r->row(rs);
    m += 1;
  }
  r->finish();
  std::fclose(null);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CsvSweepRow_Matmul);

void BM_TableRender_Energy(benchmark::State& state) {
  ResultSet rs;
  energy({.flops = 1e18 * flop, .throughput = 100.0 * TFLOP_per_s, .power = 1.0 * kW, .pue = 1.2}, rs);
  std::FILE* null = std::fopen("/dev/null", "w");
  for (auto _ : state) {
    report::RenderOptions opt;
    auto r = report::make_renderer(opt, null);
    r->row(rs);
    r->finish();
  }
  std::fclose(null);
}
BENCHMARK(BM_TableRender_Energy);

// The memory ledgers of a real model (Llama-3.1-8B): parameter counting, sharding and every row.
void BM_InferenceMemory_Number(benchmark::State& state) {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  double batch = 32;
  for (auto _ : state) {
    benchmark::DoNotOptimize(batch);
    const InferenceMemory r = inference_memory(m, {.batch = batch * one, .context = 8192 * one});
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_InferenceMemory_Number);

void BM_InferenceMemory_ResultSet(benchmark::State& state) {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  ResultSet rs;
  double batch = 32;
  for (auto _ : state) {
    benchmark::DoNotOptimize(batch);
    rs.clear();
    inference_memory(m, {.batch = batch * one, .context = 8192 * one}, rs);
    benchmark::DoNotOptimize(rs.items.data());
  }
}
BENCHMARK(BM_InferenceMemory_ResultSet);

void BM_TrainingMemory_Number(benchmark::State& state) {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in;
  in.states.zero_stage = 3;
  in.states.dp = 8 * one;
  double seq = 8192;
  for (auto _ : state) {
    benchmark::DoNotOptimize(seq);
    in.seq = seq * one;
    const TrainingMemory r = training_memory(m, in);
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_TrainingMemory_Number);

// The training planner (issue 30): every layout of a model on N GPUs, its step and its ledger.
// items_per_second is layouts evaluated per second (one core); the 405B row is the acceptance
// plan (16,384 H100s, 15.6T tokens, seq 8192) in a warm process.
TrainPlanInput plan_input(double gpus, double seq) {
  TrainPlanInput in;
  in.gpus = static_cast<std::int64_t>(gpus);
  in.run.tokens = 1e12 * token;
  in.run.memory.seq = seq * one;
  in.run.memory.capacity = 85.52e9 * byte;
  in.run.peak = 989.5 * TFLOP_per_s;
  TrainSpeedModel sm;
  sm.memory_bandwidth = 3.35e12 * byte_per_s;
  sm.efficiency = Efficiency{0.83, 0.76, 64.0, Seconds{}};
  sm.layer_overhead = 64e-6 * second;
  sm.links = TrainLinks{8.0, 370.0 * GB_per_s, 47.0 * GB_per_s};
  in.run.speed = sm;
  return in;
}

void BM_PlanTrain(benchmark::State& state, const char* model, double gpus, double seq) {
  const specs::ModelSpec m = specs::load_model_preset(model);
  const TrainPlanInput in = plan_input(gpus, seq);
  std::int64_t evaluated = 0;
  for (auto _ : state) {
    const TrainPlan p = plan_train(m, in);
    evaluated += p.evaluated;
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(evaluated);
}
BENCHMARK_CAPTURE(BM_PlanTrain, llama_3_1_8b_8gpus, "llama-3.1-8b", 8.0, 4096.0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanTrain, llama_3_1_70b_1024gpus, "llama-3.1-70b", 1024.0, 8192.0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlanTrain, llama_3_1_405b_16384gpus, "llama-3.1-405b", 16384.0, 8192.0)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
