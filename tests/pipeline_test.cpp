// The training ledger's pipeline schedule (interleaved 1F1B), partial recomputation and context
// parallelism, against Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
// Transformer Models" (arXiv:2205.05198).
#include <catch2/catch.hpp>

#include <cmath>

#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/flops.h"
#include "napkin/plans/train.h"
#include "napkin/specs/presets.h"

using namespace napkin;
using namespace napkin::units;
using Catch::Matchers::WithinRel;

namespace {

// Korthikanti et al. 2022, table 3 (and table 1 of the models): GPT-3 175B is a = 96, h = 12288,
// L = 96 at t = 8, p = 8; MT-NLG 530B is a = 128, h = 20480, L = 105 at t = 8, p = 35; s = 2048,
// micro-batch 1; the interleaved schedule there has m = 3 chunks per stage.
specs::ModelSpec mt_nlg_530b() {
  specs::ModelSpec m = specs::load_model_preset("gpt3-175b");
  m.name = "mt-nlg-530b";
  m.layers = 105;
  m.hidden = 20480;
  m.heads = 128;
  m.kv_heads = 128;
  m.head_dim = 160;
  m.ffn = 4 * 20480;
  return m;
}

// Sequence parallelism + selective recomputation: 34·s·b·h/t per layer (their eq. 5 setting).
TrainingMemoryInput korthikanti_run(double pp, double virtual_stages) {
  TrainingMemoryInput in;
  in.seq = 2048.0 * one;
  in.micro_batch = 1.0 * one;
  in.tp = 8.0 * one;
  in.pp = pp * one;
  in.virtual_stages = virtual_stages * one;
  in.sequence_parallel = true;
  in.recompute = Recompute::selective;
  in.flash_attention = false;
  return in;
}

double gib(Bytes b) { return b.in(byte) / (1024.0 * 1024.0 * 1024.0); }

}  // namespace

TEST_CASE("Korthikanti table 4: interleaved first-stage activations, GPT-3 175B 12.35 GiB and 530B 23.08 GiB",
          "[pipeline]") {
  // §4.2.3: the first stage holds p micro-batches of L/p layers, sbhL·34/t in all, times
  // (1 + (p − 1)/(p·m)) under the interleaved schedule. 175B: 96 · 2048·12288·34/8 B = 9.5625 GiB,
  // × (1 + 7/24) = 12.3516 GiB; 530B: 105 · 2048·20480·34/8 B = 17.4316 GiB, × (1 + 34/105) = 23.0762.
  const specs::ModelSpec gpt3 = specs::load_model_preset("gpt3-175b");
  const TrainingMemory plain = training_memory(gpt3, korthikanti_run(8, 1));
  REQUIRE(plain.stage == 0);
  CHECK(plain.activations.in(byte) == 96.0 * 2048 * 12288 * 34 / 8);
  const TrainingMemory a = training_memory(gpt3, korthikanti_run(8, 3));
  REQUIRE(a.stage == 0);
  CHECK_THAT(a.activations.in(byte), WithinRel(96.0 * 2048 * 12288 * 34 / 8 * (1.0 + 7.0 / 24.0), 1e-12));
  CHECK(std::round(gib(a.activations) * 100.0) / 100.0 == 12.35);

  const TrainingMemory b = training_memory(mt_nlg_530b(), korthikanti_run(35, 3));
  REQUIRE(b.stage == 0);
  CHECK_THAT(b.activations.in(byte), WithinRel(105.0 * 2048 * 20480 * 34 / 8 * (1.0 + 34.0 / 105.0), 1e-12));
  CHECK(std::round(gib(b.activations) * 100.0) / 100.0 == 23.08);
}

TEST_CASE("pipeline output tensors: 2·s·b·h/t per micro-batch in flight, shown and not in per GPU", "[pipeline]") {
  const specs::ModelSpec gpt3 = specs::load_model_preset("gpt3-175b");
  const TrainingMemory r = training_memory(gpt3, korthikanti_run(8, 1));
  CHECK(r.pipeline_buffers.in(byte) == 8.0 * 2.0 * 2048 * 12288 / 8);
  CHECK(r.per_gpu().in(byte) == (r.weights + r.gradients + r.master_weights + r.optimizer_states + r.activations +
                                 r.peak_transient() + r.runtime_reserve).in(byte));
  CHECK(training_memory(gpt3, korthikanti_run(1, 1)).pipeline_buffers.in(byte) == 0.0);
}

TEST_CASE("interleaving needs pp ≥ 2 and a layer in every chunk but the embedding's and the loss's", "[pipeline]") {
  const specs::ModelSpec gpt3 = specs::load_model_preset("gpt3-175b");
  CHECK_THROWS_AS(training_memory(gpt3, korthikanti_run(1, 2)), InputError);
  CHECK_THROWS_AS(training_memory(gpt3, korthikanti_run(8, 13)), InputError);  // 12 layers per stage
  CHECK_NOTHROW(training_memory(gpt3, korthikanti_run(8, 5)));  // chunks of 3, 3, 2, 2, 2
}

TEST_CASE("context parallelism: --cp 4 cuts activations per GPU four ways at 32Ki tokens; ZeRO shards over dp·cp", "[pipeline]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in;
  in.seq = 32768.0 * one;
  in.states.zero_stage = 1;
  in.states.dp = 2.0 * one;
  const TrainingMemory one_way = training_memory(m, in);
  in.cp = 4.0 * one;
  const TrainingMemory four = training_memory(m, in);
  CHECK_THAT(four.activations.in(byte), WithinRel(one_way.activations.in(byte) / 4.0, 1e-12));
  CHECK_THAT(four.optimizer_states.in(byte), WithinRel(one_way.optimizer_states.in(byte) / 4.0, 1e-6));
  in.cp = 3.0 * one;  // 32768 is not a multiple of 2·3
  CHECK_THROWS_AS(training_memory(m, in), InputError);
  in.cp = 4.0 * one;
  in.flash_attention = false;
  CHECK_THROWS_AS(training_memory(m, in), InputError);
}

TEST_CASE("partial recomputation: --recompute-layers K keeps only the input of K layers per stage and adds their forward to HFU",
          "[pipeline]") {
  const specs::ModelSpec gpt3 = specs::load_model_preset("gpt3-175b");
  TrainingMemoryInput in = korthikanti_run(8, 1);
  const double sbh = 2048.0 * 12288;
  in.recompute_layers = 4.0 * one;
  const TrainingMemory r = training_memory(gpt3, in);
  // Stage 0: 8 micro-batches of (4 layers at 2·sbh/8, their input split by sequence parallelism,
  // + 8 layers at 34·sbh/8).
  CHECK(r.activations.in(byte) == 8.0 * (4.0 * 2.0 * sbh / 8.0 + 8.0 * 34.0 * sbh / 8.0));
  CHECK(recompute_layers_fraction(gpt3, in) == 32.0 / 96.0);
  in.recompute_layers = 13.0 * one;  // a stage holds 12
  CHECK_THROWS_AS(training_memory(gpt3, in), InputError);
  in.recompute_layers = 2.0 * one;
  in.recompute = Recompute::full;
  CHECK_THROWS_AS(training_memory(gpt3, in), InputError);

  // train: 6pd, P = 175B; K = 4 of 12 layers per stage reruns a third of the forward pass.
  TrainInput t;
  t.tokens = 300e9 * token;
  t.params = 175e9 * param;
  t.memory = korthikanti_run(8, 1);
  t.memory.recompute = Recompute::none;
  t.memory.flash_attention = true;
  t.gpus = 1024.0 * one;
  t.peak = 312.0 * TFLOP_per_s;
  t.mfu = 0.4;
  const TrainEstimate base = train(gpt3, t);
  t.memory.recompute_layers = 4.0 * one;
  const TrainEstimate part = train(gpt3, t);
  CHECK(base.flops.recompute.in(flop) == 0.0);
  CHECK_THAT(part.flops.recompute.in(flop), WithinRel(2.0 * 175e9 * 300e9 / 3.0, 1e-12));
  // HFU = all FLOP / (time · GPUs · peak): 0.4 · (6 + 2/3) / 6.
  const double hfu = part.flops.total().in(flop) / (part.time.in(second) * 1024.0 * 312e12);
  CHECK_THAT(hfu, WithinRel(0.4 * (6.0 + 2.0 / 3.0) / 6.0, 1e-12));
}
