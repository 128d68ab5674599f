// The training step model (issue 30, napkin/plans/train_step.h): each term by hand on a small
// case, and the structural laws (bubble, overlap, ZeRO-3's extra traffic) that must hold whatever
// the efficiency coefficients are.
#include <catch2/catch.hpp>

#include "napkin/model/params.h"
#include "napkin/plans/train_step.h"
#include "napkin/specs/presets.h"

using namespace napkin;
using namespace napkin::units;
using Catch::Matchers::WithinRel;

namespace {

// Llama 3.1 8B on DGX H100 figures: 989 TFLOP/s bf16, 3.35 TB/s, NVLink ring 370 GB/s, a NIC
// 47 GB/s per GPU (data/presets/systems/dgx-h100.json), serve's none-gpu profile coefficients.
TrainStepInput h100(std::int64_t tp, std::int64_t pp, std::int64_t dp) {
  TrainStepInput in;
  in.layout.tp = tp;
  in.layout.pp = pp;
  in.layout.dp = dp;
  in.layout.seq = 4096;
  in.layout.micro_batch = 1;
  in.layout.global_batch = 64;
  in.peak = 989.4 * TFLOP_per_s;
  in.bandwidth = 3.35e12 * byte_per_s;
  in.links = TrainLinks{8.0, 370.0 * GB_per_s, 47.0 * GB_per_s};
  in.efficiency = Efficiency{0.83, 0.76, 64.0, Seconds{}};
  return in;
}

struct Model {
  specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  ParamCount c = count_params(m);
};

}  // namespace

TEST_CASE("a step without pipelining is m micro-batches of forward and backward plus the DP tail and the update",
          "[train][step]") {
  const Model x;
  const TrainStepInput in = h100(1, 1, 8);
  const TrainStep s = train_step(x.m, x.c, in);
  CHECK(s.micro_batches == 8.0);  // 64 / (8 · 1)
  CHECK(s.bubble == Seconds{});
  CHECK(s.stage.tp_comm == Seconds{});
  CHECK_THAT(s.pipeline.in(second), WithinRel(8.0 * s.stage.total().in(second), 1e-12));
  CHECK_THAT(s.step.in(second), WithinRel((s.pipeline + s.dp_exposed + s.dp_contention + s.optimizer).in(second), 1e-12));
  // The DP traffic hidden behind the backward costs κ of its time in slower compute.
  CHECK_THAT(s.dp_contention.in(second), WithinRel((kOverlapSlowdown * (s.dp_comm - s.dp_exposed)).in(second), 1e-12));
  CHECK(s.tokens_per_step.in(token) == 64.0 * 4096.0);
  // The GEMMs dominate: forward ≈ 2·P·tokens at η_c·n/(n + n½) of the peak, within the memory-bound
  // ops' few percent (8.03e9 parameters of which 1.05e9 embedding, not a GEMM in the forward).
  const double gemm = 2.0 * (8.03e9 - 0.525e9) * 4096.0;  // the LM head is a GEMM, the embedding is not
  const double eta = 0.80 * 0.76 * 4096.0 / (4096.0 + 64.0);  // training's share of serve's η_c
  const double attention = 4.0 * 4096.0 * 4097.0 / 2.0 * 4096.0 * 32.0;  // causal QKᵀ and PV, 32 layers
  CHECK(s.stage.forward.in(second) > (gemm + attention) / (eta * 989.4e12));
  CHECK(s.stage.forward.in(second) < 1.15 * (gemm + attention) / (eta * 989.4e12));
  // Backward: twice the GEMMs, 2.5 × attention.
  CHECK(s.stage.backward.in(second) > 1.9 * s.stage.forward.in(second));
  CHECK(s.stage.backward.in(second) < 2.3 * s.stage.forward.in(second));
}

TEST_CASE("a TP collective costs 2(t-1)/t of tokens·h·2 B over the ring bus, four per layer per micro-batch",
          "[train][step]") {
  const Model x;
  TrainStepInput in = h100(8, 1, 1);
  in.layout.global_batch = 8;
  const TrainStep s = train_step(x.m, x.c, in);
  // 4096 tokens · 4096 · 2 B = 33.55 MB; 2 · 7/8 · 33.55 MB / 370 GB/s = 158.7 µs; 2 forward + 2
  // backward per layer, 32 layers.
  // Plus NCCL's ring latency: 8.4 µs + 2 · 7 steps · 3.4 µs over NVLink (an all-reduce).
  const double one = 2.0 * 7.0 / 8.0 * 4096.0 * 4096.0 * 2.0 / 370e9 + 8.4e-6 + 14.0 * 3.4e-6;
  CHECK_THAT(s.stage.tp_comm.in(second), WithinRel(4.0 * 32.0 * one, 1e-9));
  CHECK(s.tp_bus == 370.0 * GB_per_s);
  CHECK(s.stage.contention == Seconds{});  // nothing hidden
  // Overlapped (userbuffers): each pass's traffic hides behind its GEMMs up to their time; the
  // forward's GEMMs (2 · 8B / 8 FLOP per token) take less than its 32 · 2 collectives, so part of
  // it stays exposed, and what hides costs κ of its time in slower compute.
  in.tp_comm_overlap = 1.0;
  const TrainStep o = train_step(x.m, x.c, in);
  CHECK(o.stage.tp_comm > Seconds{});
  CHECK(o.stage.tp_comm < 0.5 * s.stage.tp_comm);
  CHECK_THAT(o.stage.contention.in(second),
             WithinRel((kOverlapSlowdown * (s.stage.tp_comm - o.stage.tp_comm)).in(second), 1e-9));
  // Full recomputation reruns the forward's two collectives per layer.
  in.tp_comm_overlap = 0.0;
  in.layout.recompute = Recompute::full;
  CHECK_THAT(train_step(x.m, x.c, in).stage.tp_comm.in(second), WithinRel(6.0 * 32.0 * one, 1e-9));
}

TEST_CASE("the pipeline bubble is (p-1)/v of the slowest stage's micro-batch time", "[train][step]") {
  const Model x;
  TrainStepInput in = h100(1, 4, 1);
  in.layout.global_batch = 16;
  const TrainStep s = train_step(x.m, x.c, in);
  CHECK_THAT(s.bubble.in(second), WithinRel(3.0 * s.stage.total().in(second), 1e-12));
  CHECK_THAT(s.pipeline.in(second), WithinRel(16.0 * s.stage.total().in(second), 1e-12));
  in.layout.vp = 2;
  const TrainStep v = train_step(x.m, x.c, in);
  CHECK_THAT(v.bubble.in(second), WithinRel(1.5 * v.stage.total().in(second), 1e-12));
  CHECK(v.stage.p2p == 2.0 * s.stage.p2p);  // each micro-batch crosses twice the boundaries
  CHECK(v.step < s.step);
  // Uneven chunks: 8 layers a stage in 3 chunks of 3, 3 and 2; the bubble is p − 1 of the largest.
  in.layout.vp = 3;
  const TrainStep u = train_step(x.m, x.c, in);
  CHECK_THAT(u.bubble.in(second), WithinRel(3.0 * 3.0 / 8.0 * u.stage.total().in(second), 1e-12));
  // The last stage holds the LM head: it is the slowest of four equal layer counts.
  CHECK(s.slowest_stage == 3);
}

TEST_CASE("DP gradient traffic hides behind the backward unless told not to, and ZeRO-3 moves more of it",
          "[train][step]") {
  const Model x;
  TrainStepInput in = h100(1, 1, 64);  // 8 nodes: the DP ring crosses the network
  in.layout.global_batch = 64;
  in.layout.zero = 1;
  const TrainStep hidden = train_step(x.m, x.c, in);
  // 8 ranks per node: bus min(370, 8 · 47) GB/s.
  CHECK(hidden.dp_bus == 370.0 * GB_per_s);
  CHECK(hidden.dp_bus_local == 8.0);
  in.dp_comm_overlap = 0.0;
  const TrainStep exposed = train_step(x.m, x.c, in);
  CHECK(exposed.dp_exposed == exposed.dp_comm);
  CHECK(hidden.dp_exposed < exposed.dp_exposed);
  // ZeRO-1: reduce-scatter fp32 gradients + all-gather bf16 weights, (n−1)/n · P · 6 B over the bus,
  // plus a ring's latency per bucket and collective: ⌈P / max(40M, 1M · 64)⌉ = 126 buckets, each
  // 8.4 µs + 56 NVLink steps · 3.4 µs + 7 network steps · 9.6 µs.
  const double p = 8030261248.0;
  const double latency = 126.0 * 2.0 * (8.4e-6 + 56.0 * 3.4e-6 + 7.0 * 9.6e-6);
  CHECK_THAT(exposed.dp_comm.in(second), WithinRel(63.0 / 64.0 * p * 6.0 / 370e9 + latency, 1e-6));
  in.layout.zero = 3;
  CHECK(train_step(x.m, x.c, in).dp_comm > exposed.dp_comm);
  // ZeRO-2 keeps only its gradient shard: each of m = 8 micro-batches reduce-scatters its fp32
  // gradients, where ZeRO-1 reduces once per step. One node: bus 370 GB/s, ⌈P / 40M⌉ = 201 buckets
  // of 8.4 µs + 7 · 3.4 µs.
  TrainStepInput z = h100(1, 1, 8);
  z.layout.global_batch = 64;
  z.layout.zero = 1;
  const Seconds z1 = train_step(x.m, x.c, z).dp_comm;
  z.layout.zero = 2;
  const Seconds z2 = train_step(x.m, x.c, z).dp_comm;
  const double reduce_scatter = 7.0 / 8.0 * p * 4.0 / 370e9 + 201.0 * (8.4e-6 + 7.0 * 3.4e-6);
  CHECK_THAT((z2 - z1).in(second), WithinRel(7.0 * reduce_scatter, 1e-9));
  // With TP 8 a node holds one rank of each DP group: the bus is one NIC.
  TrainStepInput t8 = h100(8, 1, 8);
  t8.layout.zero = 1;
  t8.layout.global_batch = 64;
  CHECK(train_step(x.m, x.c, t8).dp_bus == 47.0 * GB_per_s);
}

TEST_CASE("the step model refuses a global batch that is not whole micro-batches on every rank", "[train][step]") {
  const Model x;
  TrainStepInput in = h100(1, 1, 8);
  in.layout.global_batch = 60;
  CHECK_THROWS_WITH(train_step(x.m, x.c, in), Catch::StartsWith("--global-batch: '60': expected a multiple of dp"));
}
