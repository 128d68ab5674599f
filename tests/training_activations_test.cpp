// Issue 19: activations as today's stacks keep them. Sequence-parallel and distributed checkpoint
// inputs, the layer counted tensor by tensor, the loss at the last stage, torchtitan's per-op
// selective checkpointing (op-sac), and the transient of a recomputed layer.
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

// Llama 3.1 widths (their config.json): 8B h 4096, 32 heads, 8 KV heads of 128, F 14336;
// 70B h 8192, 64 heads, 8 KV heads of 128, F 28672; V 128256.
TrainingMemoryInput run(double seq, double micro_batch) {
  TrainingMemoryInput in;
  in.seq = seq * one;
  in.micro_batch = micro_batch * one;
  return in;
}

}  // namespace

// ---- 1. saved layer inputs under sequence parallelism, distributed inputs without it ----------

TEST_CASE("full recomputation under sequence parallelism keeps 2·s·b·h/t per layer", "[memory][activations]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-70b");
  TrainingMemoryInput in = run(8192, 16);
  in.tp = 8.0 * one;
  in.sequence_parallel = true;
  in.recompute = Recompute::full;
  const TrainingMemory r = training_memory(m, in);
  CHECK(r.activations.in(byte) == 80.0 * 2.0 * 8192 * 16 * 8192 / 8);
  in.sequence_parallel = false;  // TP alone: every rank keeps the whole input
  CHECK(training_memory(m, in).activations.in(byte) == 80.0 * 2.0 * 8192 * 16 * 8192);
  in.distribute_saved_activations = true;  // Megatron-LM splits it over the TP ranks
  CHECK(training_memory(m, in).activations.in(byte) == 80.0 * 2.0 * 8192 * 16 * 8192 / 8);
}

TEST_CASE("distributed checkpoint inputs need TP without sequence parallelism and layers recomputed in full",
          "[memory][activations]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in = run(4096, 1);
  in.distribute_saved_activations = true;
  in.recompute = Recompute::full;
  CHECK_THROWS_WITH(training_memory(m, in), Catch::Contains("--tp 2 or more"));
  in.tp = 4.0 * one;
  in.sequence_parallel = true;
  CHECK_THROWS_WITH(training_memory(m, in), Catch::Contains("no --sequence-parallel with it"));
  in.sequence_parallel = false;
  in.recompute = Recompute::none;
  CHECK_THROWS_WITH(training_memory(m, in), Catch::Contains("--recompute full or --recompute-layers"));
  // K layers recomputed in full: their inputs are split, the rest as --recompute says.
  in.recompute_layers = 8.0 * one;
  const double sbh = 4096.0 * 4096;
  const TrainingMemory r = training_memory(m, in);
  TrainingMemoryInput whole = in;
  whole.distribute_saved_activations = false;
  CHECK(training_memory(m, whole).activations.in(byte) - r.activations.in(byte) == 8.0 * 2.0 * sbh * (1.0 - 1.0 / 4));
}

TEST_CASE("partial recomputation under sequence parallelism splits the recomputed layers' inputs too",
          "[memory][activations]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in = run(4096, 1);
  in.tp = 8.0 * one;
  in.sequence_parallel = true;
  in.recompute = Recompute::op_sac;
  in.recompute_layers = 32.0 * one;  // every layer in full: as --recompute full
  TrainingMemoryInput full = run(4096, 1);
  full.tp = 8.0 * one;
  full.sequence_parallel = true;
  full.recompute = Recompute::full;
  CHECK(training_memory(m, in).activations == training_memory(m, full).activations);
}

// ---- 2. the layer tensor by tensor ------------------------------------------------------------

TEST_CASE("the ledger counts Korthikanti's GPT layer his way and a Llama layer tensor by tensor",
          "[memory][activations]") {
  const specs::ModelSpec llama = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in = run(2048, 1);
  const double sbh = 2048.0 * 4096;
  // Tensors: the paper's 8 + 26 plus RMSNorm's two fp32 statistics (8 B per token) and fused
  // attention's fp32 log-sum-exp per head (32 · 4 B per token).
  CHECK(training_memory(llama, in).activations.in(byte) == 32.0 * (34.0 * sbh + 2048.0 * (8.0 + 128.0)));
  in.accounting = ActivationAccounting::korthikanti;
  CHECK(training_memory(llama, in).activations.in(byte) == 32.0 * 34.0 * sbh);
  // GPT-3 (LayerNorm, 4h GeLU MLP, MHA): Korthikanti's by default, 34 + 5·a·s/h.
  const specs::ModelSpec gpt3 = specs::load_model_preset("gpt3-175b");
  TrainingMemoryInput g = run(2048, 1);
  g.flash_attention = false;
  const double sbh3 = 2048.0 * 12288;
  CHECK(training_memory(gpt3, g).activations.in(byte) == 96.0 * sbh3 * (34.0 + 5.0 * 96 * 2048 / 12288));
  g.accounting = ActivationAccounting::tensors;  // + LayerNorm's mean and 1/σ, 2 · 8 B per token
  CHECK(training_memory(gpt3, g).activations.in(byte) ==
        96.0 * (sbh3 * (34.0 + 5.0 * 96 * 2048 / 12288) + 2048.0 * 16.0));
}

TEST_CASE("the saved tensors of a Llama-3.1-8B layer, one by one", "[memory][activations]") {
  ActivationInput in{.seq = 8192 * one, .micro_batch = 1 * one, .hidden = 4096 * one, .heads = 32 * one,
                     .flash_attention = true, .kv_width = 1024 * one, .ffn_width = 14336 * one, .gated = true,
                     .dropout = false, .attention_dropout = false, .accounting = ActivationAccounting::tensors,
                     .q_width = 4096 * one, .rmsnorm = true};
  const std::vector<SavedTensor> all = saved_tensors(in);
  double sum = 0;
  for (const SavedTensor& t : all) sum += t.bytes_per_token;
  // 2h norm in, 4 stats, 2h norm out, q 2h, k 2·1024, v 2·1024, out 2h, lse 4·32, 2h, 4, 2h,
  // gate, up and product 3 · 2·14336.
  CHECK(sum == 8192 + 4 + 8192 + 8192 + 2048 + 2048 + 8192 + 128 + 8192 + 4 + 8192 + 3 * 28672);
  CHECK(all.size() == 14);
  CHECK(activations_per_layer(in).in(byte) == 8192.0 * sum);
  // op-sac keeps the input and matmuls 1, 3, 5, 7 (q, v, gate, down) and fused attention's outputs.
  in.recompute = Recompute::op_sac;
  double kept = 0;
  for (const SavedTensor& t : saved_tensors(in)) kept += t.bytes_per_token;
  CHECK(kept == 8192 + 8192 + 2048 + 8192 + 128 + 28672 + 8192);
  // Under TP 8 with sequence parallelism: the input and the two reduce-scatter outputs split by
  // sequence, the down projection's partial sums whole on every rank, the rest split by heads.
  in.tp = 8 * one;
  in.sequence_parallel = true;
  CHECK(activations_per_layer(in).in(byte) ==
        8192.0 * ((8192 + 8192 + 8192) / 8.0 + (8192 + 2048 + 8192 + 128 + 28672) / 8.0 + 8192));
}

TEST_CASE("op-sac is refused where torchtitan's matmul order is not modelled", "[memory][activations]") {
  TrainingMemoryInput in = run(4096, 1);
  in.recompute = Recompute::op_sac;
  CHECK_THROWS_AS(training_memory(specs::load_model_preset("mixtral-8x7b"), in), InputError);
  CHECK_THROWS_AS(training_memory(specs::load_model_preset("deepseek-v2-lite"), in), InputError);
  in.flash_attention = false;
  CHECK_THROWS_AS(training_memory(specs::load_model_preset("llama-3.1-8b"), in), InputError);
}

TEST_CASE("MoE layers keep the router's probabilities and the k dispatched and combined copies", "[memory][activations]") {
  // Mixtral 8x7B: h 4096, 8 experts, top-2, no dropout.
  const specs::ModelSpec m = specs::load_model_preset("mixtral-8x7b");
  TrainingMemoryInput in = run(4096, 1);
  const double tensors = training_memory(m, in).activations.in(byte);
  in.accounting = ActivationAccounting::korthikanti;
  const double paper = training_memory(m, in).activations.in(byte);
  // Per layer and token: stats 2·4, lse 4·32, router 4·8, dispatch and combine 2 · 2·4096·2.
  CHECK(tensors - paper == 32.0 * 4096 * (8.0 + 128.0 + 32.0 + 2.0 * 2.0 * 4096 * 2));
}

// ---- 3. the loss at the last stage -------------------------------------------------------------

TEST_CASE("the loss: 12 B per logit in full, 6 fused, one of 8 chunks chunked, vocab-parallel under TP",
          "[memory][activations]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in = run(8192, 2);
  const double tokens = 8192.0 * 2;
  CHECK(training_memory(m, in).logits.in(byte) == tokens * (12.0 * 128256 + 4.0 * 4096));
  in.loss = LossKind::fused;
  CHECK(training_memory(m, in).logits.in(byte) == tokens * (6.0 * 128256 + 4.0 * 4096));
  in.loss = LossKind::chunked;
  CHECK(training_memory(m, in).logits.in(byte) == tokens * (12.0 * 128256 / 8 + 8.0 * 4096));
  in.loss = LossKind::full;
  in.tp = 8.0 * one;
  in.sequence_parallel = true;
  CHECK(training_memory(m, in).logits.in(byte) == tokens * (12.0 * 16032 + 4.0 * 4096 / 8));
  // Pipelining: the loss lives on the last stage; stage 0 holds more activations.
  in.pp = 4.0 * one;
  const TrainingMemory r = training_memory(m, in);
  CHECK(r.stage == 0);
  CHECK(r.logits.in(byte) == 0.0);
}

TEST_CASE("per GPU counts the larger of the loss's buffers and one recomputed layer's transient",
          "[memory][activations]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in = run(8192, 1);
  in.recompute = Recompute::full;
  const TrainingMemory r = training_memory(m, in);
  ActivationInput layer{.seq = 8192 * one, .micro_batch = 1 * one, .hidden = 4096 * one, .heads = 32 * one,
                        .flash_attention = true, .kv_width = 1024 * one, .ffn_width = 14336 * one, .gated = true,
                        .dropout = false, .attention_dropout = false, .accounting = ActivationAccounting::tensors,
                        .q_width = 4096 * one, .rmsnorm = true};
  CHECK(r.recompute_transient.in(byte) == activations_per_layer(layer).in(byte) - 2.0 * 8192 * 4096);
  CHECK(r.logits > r.recompute_transient);
  CHECK(r.per_gpu() == r.weights + r.gradients + r.master_weights + r.optimizer_states + r.activations + r.logits +
                           r.runtime_reserve);
  in.loss = LossKind::chunked;  // a small loss: the transient is the larger
  const TrainingMemory c = training_memory(m, in);
  CHECK(c.peak_transient() == std::max(c.logits, c.recompute_transient));
}

// ---- 4. op-sac's rerun in train ----------------------------------------------------------------

TEST_CASE("op-sac reruns the k, o and up matmuls: 2·(h·h_kv + h_q·h + h·f) per token per layer", "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainInput t;
  t.tokens = 1e12 * token;
  t.gpus = 8.0 * one;
  t.peak = 989.5 * TFLOP_per_s;
  t.memory.seq = 8192.0 * one;
  t.memory.recompute = Recompute::op_sac;
  const TrainEstimate r = napkin::train(m, t);
  CHECK(r.flops.recompute.in(flop) == 1e12 * 32 * 2.0 * (4096.0 * 1024 + 4096.0 * 4096 + 4096.0 * 14336));
  t.memory.recompute = Recompute::none;
  CHECK(napkin::train(m, t).flops.forward == r.flops.forward);
  CHECK_THROWS_AS(training_flops({.params = 8e9 * param, .tokens = 1e12 * token, .recompute = Recompute::op_sac}),
                  InputError);
}
