// Issue 19: the training ledger against the memory figures torchtitan publishes for Llama 3.1
// runs. Each figure is the reserved peak (torch.cuda.memory_stats "reserved_bytes.all.peak",
// torchtitan's max_reserved_gib) of a run that fit, so napkin's per-GPU figure for the same
// configuration must not exceed it. docs/training-memory.md has the table and the reasons for the
// gaps.
//
// Source: torchtitan, benchmarks/llama3_h100_202412_torchtitan.md (read at commit b5bcd76; the
// runs used torchtitan 9dec370 of 2024-12-26 on 96 GB H100s, seq_len 8192 from its
// train_configs/llama3_*.toml, bf16 params with fp32 reduce, AdamW).
#include <catch2/catch.hpp>

#include <cmath>

#include "napkin/memory/ledgers.h"
#include "napkin/specs/presets.h"

using namespace napkin;
using namespace napkin::units;

namespace {

double gib(Bytes b) { return b.in(byte) / (1024.0 * 1024.0 * 1024.0); }
double round2(double v) { return std::round(v * 100.0) / 100.0; }

// FSDP over `dp` ranks (ZeRO-3), as torchtitan's data_parallel_shard_degree.
TrainingMemoryInput fsdp(double dp, double micro_batch, double seq, Recompute r) {
  TrainingMemoryInput in;
  in.states.zero_stage = 3;
  in.states.dp = dp * one;
  in.micro_batch = micro_batch * one;
  in.seq = seq * one;
  in.recompute = r;
  return in;
}

}  // namespace

TEST_CASE("torchtitan table 1: Llama 3.1 8B, FSDP 8, local batch 2, op-SAC: napkin 75.88 GiB, published 76.8-82.4",
          "[memory][published]") {
  const TrainingMemory r = training_memory(specs::load_model_preset("llama-3.1-8b"), fsdp(8, 2, 8192, Recompute::op_sac));
  CHECK(round2(gib(r.per_gpu())) == 75.88);
  CHECK(gib(r.per_gpu()) <= 76.8);  // FSDP + torch.compile + Float8; 77.0 with compile, 82.4 eager
}

TEST_CASE("torchtitan table 3: Llama 3.1 8B, FSDP 128, local batch 2, op-SAC: napkin 61.15 GiB, published 61.8-67.0",
          "[memory][published]") {
  const TrainingMemory r =
      training_memory(specs::load_model_preset("llama-3.1-8b"), fsdp(128, 2, 8192, Recompute::op_sac));
  CHECK(round2(gib(r.per_gpu())) == 61.15);
  CHECK(gib(r.per_gpu()) <= 61.8);  // FSDP + torch.compile + Float8; 62.0 with compile, 67.0 eager
}

TEST_CASE("torchtitan table 2: Llama 3.1 8B, FSDP x CP = 8, local batch 1, full AC: napkin 76.58 GiB at every split, "
          "published 83.9-84.5",
          "[memory][published]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  const double published[] = {83.9, 84.2, 84.0, 84.5};  // CP 1, 2, 4, 8 at 32Ki, 64Ki, 128Ki, 256Ki tokens
  for (int k = 0; k < 4; ++k) {
    const double cp = std::pow(2.0, k);
    TrainingMemoryInput in = fsdp(8.0 / cp, 1, 32768.0 * cp, Recompute::full);
    in.cp = cp * one;
    const TrainingMemory r = training_memory(m, in);
    INFO("cp " << cp);
    CHECK(round2(gib(r.per_gpu())) == 76.58);
    CHECK(gib(r.per_gpu()) <= published[k]);
  }
}

TEST_CASE("torchtitan table 4: Llama 3.1 70B, FSDP 32 x TP 8 with SP, local batch 16, full AC: napkin 52.04 GiB, "
          "published 67.6-71.9",
          "[memory][published]") {
  TrainingMemoryInput in = fsdp(32, 16, 8192, Recompute::full);
  in.tp = 8.0 * one;
  in.sequence_parallel = true;
  const TrainingMemory r = training_memory(specs::load_model_preset("llama-3.1-70b"), in);
  // Each layer keeps its input, split along the sequence: 2·s·b·h/t.
  CHECK(r.activations.in(byte) == 80.0 * 2.0 * 8192 * 16 * 8192 / 8);
  CHECK(round2(gib(r.per_gpu())) == 52.04);
  CHECK(gib(r.per_gpu()) <= 67.6);  // 2D + AsyncTP; 71.9 without
}

TEST_CASE("torchtitan tables 5 and 6: Llama 3.1 405B, FSDP 8 x TP 8 x PP 8 (1F1B), full AC: napkin 72.75 GiB, "
          "published 75.3-84.9",
          "[memory][published]") {
  // Table 5: local batch 32 in 8 micro-batches (torchtitan's default, one per stage) of 8192
  // tokens; table 6: local batch 8, 32Ki tokens per sequence, CP 1 to 8.
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-405b");
  TrainingMemoryInput in = fsdp(8, 4, 8192, Recompute::full);
  in.tp = 8.0 * one;
  in.pp = 8.0 * one;
  in.sequence_parallel = true;
  const TrainingMemory t5 = training_memory(m, in);
  CHECK(round2(gib(t5.per_gpu())) == 72.75);
  CHECK(gib(t5.per_gpu()) <= 82.5);  // 1F1B
  const double published[] = {75.3, 75.9, 77.1, 84.9};
  for (int k = 0; k < 4; ++k) {
    const double cp = std::pow(2.0, k);
    TrainingMemoryInput c = in;
    c.states.dp = 8.0 / cp * one;
    c.cp = cp * one;
    c.micro_batch = 1.0 * one;
    c.seq = 32768.0 * cp * one;
    INFO("cp " << cp);
    CHECK(gib(training_memory(m, c).per_gpu()) <= published[k]);
  }
}
