#include <catch2/catch.hpp>

#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "run_napkin.h"
#include "napkin/report/human_units.h"
#include "napkin/specs/presets.h"

using namespace napkin;
using namespace napkin::units;

namespace {
specs::ModelSpec gqa(std::int64_t layers, std::int64_t kv_heads, std::int64_t head_dim) {
  specs::ModelSpec m;
  m.layers = layers;
  m.kv_heads = kv_heads;
  m.head_dim = head_dim;
  m.attention = specs::AttentionKind::gqa;
  return m;
}
}  // namespace

TEST_CASE("weights of 8e9 params in bf16 are 16e9 B (14.90 GiB)", "[memory][seed]") {
  const Weights w = inference_weights({.params = 8e9 * param, .dtype = Dtype::bf16});
  CHECK(w.total().in(byte) == 16e9);
  CHECK(report::human_value(value(w.total())) == "16.00 GB (14.90 GiB)");
}

TEST_CASE("weights of 27e9 params in bf16 are 54e9 B (50.29 GiB)", "[memory][seed]") {
  const Weights w = inference_weights({.params = 27e9 * param, .dtype = Dtype::bf16});
  CHECK(w.total().in(byte) == 54e9);
  CHECK_THAT(w.total().in(GiB), Catch::Matchers::WithinAbs(50.29, 0.005));
}

TEST_CASE("8e9 params at 4 bits ideally pack to 4e9 B, more with group scales", "[memory][seed]") {
  CHECK(inference_weights({.params = 8e9 * param, .dtype = Dtype::int4}).total().in(byte) == 4e9);
  // One fp16 scale per 128 weights adds 2/128 B per weight: 8e9 / 128 · 2 = 125e6 B.
  const Weights g = inference_weights({.params = 8e9 * param, .dtype = Dtype::int4, .group_size = 128 * one});
  CHECK(g.scales.in(byte) == 125e6);
  CHECK(g.total().in(byte) == 4.125e9);
}

TEST_CASE("mixed-precision Adam is 2 + 2 + 4 + 8 = 16 B per parameter", "[memory][seed]") {
  const StateBytes s = state_bytes({.params = 1.0 * param});
  CHECK(s.weights.in(byte / param) == 2.0);
  CHECK(s.gradients.in(byte / param) == 2.0);
  CHECK(s.master_weights.in(byte / param) == 4.0);
  CHECK(s.optimizer_states.in(byte / param) == 8.0);
  CHECK(s.total().in(byte / param) == 16.0);
}

TEST_CASE("ZeRO paper: 7.5B params on 64 GPUs is 120, 31.4, 16.6 and 1.9 GB per GPU", "[memory]") {
  // Rajbhandari et al. 2020, figure 1 (K = 12, N_d = 64).
  auto per_gpu = [](int stage) {
    return model_states({.params = 7.5e9 * param, .zero_stage = stage, .dp = 64 * one}).total().in(GB);
  };
  CHECK(per_gpu(0) == 120.0);
  CHECK_THAT(per_gpu(1), Catch::Matchers::WithinAbs(31.4, 0.05));
  CHECK_THAT(per_gpu(2), Catch::Matchers::WithinAbs(16.6, 0.05));
  CHECK_THAT(per_gpu(3), Catch::Matchers::WithinAbs(1.9, 0.05));
}

TEST_CASE("optimizer recipes: SGD keeps nothing, momentum one buffer, 8-bit Adam ~2 B", "[memory]") {
  CHECK(state_bytes({.params = 1.0 * param, .optimizer = Optimizer::sgd}).optimizer_states.in(byte / param) == 0.0);
  CHECK(state_bytes({.params = 1.0 * param, .optimizer = Optimizer::sgd_momentum}).optimizer_states.in(byte / param) ==
        4.0);
  CHECK(state_bytes({.params = 1.0 * param, .optimizer = Optimizer::adam_8bit}).optimizer_states.in(byte / param) ==
        2.0 + 8.0 / 2048.0);
  const StateBytes pure = state_bytes({.params = 1.0 * param, .precision = Precision::bf16});
  CHECK(pure.total().in(byte / param) == 8.0);
  const StateBytes fp32_grads = state_bytes({.params = 1.0 * param, .grad_dtype = Dtype::fp32});
  CHECK(fp32_grads.total().in(byte / param) == 18.0);
}

TEST_CASE("KV cache per token: Llama-3.1-8B in bf16 is 131,072 B (128 KiB)", "[memory]") {
  CHECK(kv_bytes_per_token(gqa(32, 8, 128), Dtype::bf16).in(byte) == 131072.0);
}

TEST_CASE("KV cache per token: DeepSeek-V3 MLA (61 layers, 512 + 64) in bf16 is 70,272 B", "[memory]") {
  specs::ModelSpec m;
  m.layers = 61;
  m.attention = specs::AttentionKind::mla;
  m.mla.kv_lora_rank = 512;
  m.mla.qk_rope_head_dim = 64;
  CHECK(kv_bytes_per_token(m, Dtype::bf16).in(byte) == 70272.0);
}

TEST_CASE("an 8192-token context of Llama-3.1-8B caches 1 GiB per sequence", "[memory]") {
  CHECK(kv_cache(gqa(32, 8, 128), {.batch = 1 * one, .context = 8192 * one}).in(GiB) == 1.0);
  CHECK(kv_cache(gqa(32, 8, 128), {.batch = 32 * one, .context = 8192 * one, .kv_dtype = Dtype::fp8}).in(GiB) == 16.0);
}

TEST_CASE("sliding-window layers keep at most the window", "[memory]") {
  specs::ModelSpec m = gqa(42, 8, 256);  // Gemma 2 9B shape: every other layer has a 4096 window
  m.sliding_window = 4096;
  m.sliding_every = 2;
  const double per_layer = 2.0 * 8 * 256 * 2;
  CHECK(kv_cache(m, {.batch = 1 * one, .context = 8192 * one}).in(byte) == (21 * 8192.0 + 21 * 4096.0) * per_layer);
  CHECK(kv_cache(m, {.batch = 1 * one, .context = 1000 * one}).in(byte) == 42 * 1000.0 * per_layer);
}

TEST_CASE("Korthikanti: a GPT-3 175B layer keeps s·b·h·(34 + 5as/h) = 2,868,903,936 B", "[memory]") {
  // s = 2048, b = 1, h = 12288, a = 96: sbh = 25,165,824 and 5as/h = 80.
  const ActivationInput base{.seq = 2048 * one, .micro_batch = 1 * one, .hidden = 12288 * one, .heads = 96 * one};
  CHECK(activations_per_layer(base).in(byte) == 25165824.0 * 114);
  ActivationInput selective = base;
  selective.recompute = Recompute::selective;
  CHECK(activations_per_layer(selective).in(byte) == 25165824.0 * 34);
  ActivationInput flash = base;
  flash.flash_attention = true;
  CHECK(activations_per_layer(flash).in(byte) == 25165824.0 * 34);
  ActivationInput tp8 = base;
  tp8.tp = 8 * one;
  CHECK(activations_per_layer(tp8).in(byte) == 25165824.0 * (10 + 3 + 10));
  tp8.sequence_parallel = true;
  CHECK(activations_per_layer(tp8).in(byte) == 25165824.0 * 114 / 8);
  tp8.recompute = Recompute::selective;
  CHECK(activations_per_layer(tp8).in(byte) == 25165824.0 * 34 / 8);
  ActivationInput full = base;
  full.recompute = Recompute::full;
  CHECK(activations_per_layer(full).in(byte) == 2.0 * 25165824.0);
}

TEST_CASE("model-state rows carry formulas and list each byte in the assumptions", "[memory]") {
  ResultSet rs;
  model_states({.params = 7.5e9 * param, .zero_stage = 1, .dp = 64 * one}, rs);
  REQUIRE(rs.find("optimizer_states") != nullptr);
  CHECK(report::expand(rs, rs.find("optimizer_states")->substituted) == "7.50B params · 8 B/param / 64");
  CHECK(report::expand(rs, rs.assumptions[0].text) ==
        "mixed precision: weights 2 B/param, gradients 2 B/param, master weights 4 B/param");
}

TEST_CASE("the inference ledger of Llama-3.1-8B at 8192 tokens: 16,060,522,496 B weights, 1 GiB KV", "[memory]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  const InferenceMemory r = inference_memory(m, {.context = 8192 * one});
  CHECK(r.weights.in(byte) == 16060522496.0);
  CHECK(r.kv_cache.in(GiB) == 1.0);
  CHECK(r.per_gpu() == r.weights + r.kv_cache + r.activations + r.runtime_reserve);
  CHECK(r.total == r.per_gpu());
}

TEST_CASE("the ledger rows add up to per_gpu and the total covers every GPU", "[memory]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-70b");
  ResultSet rs;
  inference_memory(m, {.weights_dtype = Dtype::int4, .group_size = 128 * one, .batch = 8 * one,
                       .context = 4096 * one, .tp = 4 * one, .pp = 2 * one},
                   rs);
  double sum = 0;
  for (const char* k : {"weights", "kv_cache", "activations", "runtime_reserve"}) sum += rs.find(k)->value.num;
  CHECK(rs.find("per_gpu")->value.num == sum);
  CHECK(rs.find("total")->value.num > 7.0 * sum);
  CHECK(rs.find("total")->value.num <= 8.0 * sum);
}

TEST_CASE("fp8 KV cache halves the bf16 one", "[memory]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  const Bytes bf16 = inference_memory(m, {.context = 8192 * one}).kv_cache;
  const Bytes fp8 = inference_memory(m, {.kv_dtype = Dtype::fp8, .context = 8192 * one}).kv_cache;
  CHECK(fp8 / bf16 == 0.5);
}

TEST_CASE("the fit verdict compares per-GPU memory with the capacity", "[memory]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  CHECK(*inference_memory(m, {.context = 8192 * one, .capacity = 24.0 * GiB}).fits);
  CHECK_FALSE(*inference_memory(m, {.context = 8192 * one, .capacity = 16.0 * GiB}).fits);
}

TEST_CASE("the training ledger of a model adds activations to the ZeRO-sharded model states", "[memory]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in;
  in.states.zero_stage = 3;
  in.states.dp = 8 * one;
  in.seq = 8192 * one;
  in.recompute = Recompute::selective;
  in.accounting = ActivationAccounting::korthikanti;
  const TrainingMemory r = training_memory(m, in);
  CHECK(r.weights.in(byte) == std::ceil(8030261248.0 * 2 / 8));
  CHECK(r.optimizer_states.in(byte) == std::ceil(8030261248.0 * 8 / 8));
  // 32 layers of 34·s·b·h (Korthikanti's inventory for a GQA, SwiGLU layer: 8 outside TP, as
  // Llama's config has no dropout, 26 inside).
  const double per_layer = 34.0 * 8192 * 4096;
  CHECK(r.activations.in(byte) == 32 * per_layer);
  // The loss (full): 12 B per logit, plus the final norm's and the head's 16-bit inputs.
  CHECK(r.logits.in(byte) == 8192.0 * (12.0 * 128256 + 4.0 * 4096));
  // Fused attention: selective recomputes nothing, so no layer is rebuilt in backward.
  CHECK(r.recompute_transient.in(byte) == 0.0);
  // ZeRO-3 as FSDP2 runs it, one unit per layer: a layer's 218,112,000 parameters (q, o 2·4096²,
  // k, v 2·4096·1024, gate, up, down 3·4096·14336, two norms 2·4096) in flight and prefetched at
  // 2 B, its gradients at 2 B and their fp32 reduce-scatter input.
  const double layer = (8030261248.0 - 2.0 * 128256 * 4096 - 4096) / 32;
  CHECK(layer == 218112000.0);
  CHECK(r.gathered_params.in(byte) == 0.0);
  CHECK(r.unsharded_params.in(byte) == 2.0 * layer * 2);
  CHECK(r.unsharded_grads.in(byte) == layer * 2);
  CHECK(r.reduce_scatter.in(byte) == layer * 4);
  CHECK(r.per_gpu() == r.weights + r.gradients + r.master_weights + r.optimizer_states + r.fsdp_buffers() +
                           r.activations + r.logits + r.runtime_reserve);
  CHECK(r.total == 8.0 * r.per_gpu());
}

TEST_CASE("under 1F1B the first pipeline stage holds p micro-batches of activations", "[memory]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in;
  in.seq = 2048 * one;
  in.pp = 4 * one;
  in.accounting = ActivationAccounting::korthikanti;
  const TrainingMemory r = training_memory(m, in);
  CHECK(r.stage == 0);
  CHECK(r.activations.in(byte) == 8.0 * 4 * 34.0 * 2048 * 4096);
}

TEST_CASE("training defaults to fused attention and to the dropout of the model's config", "[memory]") {
  // Llama configs say attention_dropout 0.0 and have no hidden dropout: 8 + 26 per s·b·h, no
  // scores. GPT-2's class defaults attn_pdrop = resid_pdrop = 0.1: masks (10 outside) and, with
  // eager attention, 5 bytes per score (Korthikanti's GPT layer).
  const specs::ModelSpec llama = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in;
  in.seq = 2048 * one;
  in.accounting = ActivationAccounting::korthikanti;
  const double sbh = 2048.0 * 4096;
  CHECK(training_memory(llama, in).activations.in(byte) == 32 * 34.0 * sbh);
  in.flash_attention = false;  // eager: the softmax output, 2 bytes per score, a·s/h = 32·2048/4096
  CHECK(training_memory(llama, in).activations.in(byte) == 32 * (34.0 + 2.0 * 16) * sbh);
  in.dropout = 0.1;  // given: masks after attention and MLP, and the probabilities' mask and output
  CHECK(training_memory(llama, in).activations.in(byte) == 32 * (36.0 + 5.0 * 16) * sbh);
  in.dropout = 1.5;
  CHECK_THROWS_AS(training_memory(llama, in), InputError);

  const specs::ModelSpec gpt2 = specs::load_model_preset("gpt2");
  CHECK(gpt2.attention_dropout == 0.1);
  CHECK(gpt2.hidden_dropout == 0.1);
  TrainingMemoryInput g;
  g.seq = 1024 * one;
  g.flash_attention = false;
  const ActivationTerms t = activation_terms({.seq = 1024 * one, .micro_batch = 1 * one, .hidden = 768 * one,
                                              .heads = 12 * one});
  CHECK(t.outside + t.inside == 34.0);
  CHECK(t.scores == 5.0);
  const double per_layer = 1024.0 * 768 * (34.0 + 5.0 * 12 * 1024 / 768);
  CHECK(training_memory(gpt2, g).activations.in(byte) == 12 * per_layer);
}

TEST_CASE("the solver's largest batch fits and one more does not", "[memory][solver]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  InferenceMemoryInput in{.context = 8192 * one, .capacity = 80.0 * GiB};
  const std::int64_t b = solve_inference(m, in, SolveFor::max_batch);
  REQUIRE(b > 1);
  in.batch = static_cast<double>(b) * one;
  CHECK(*inference_memory(m, in).fits);
  in.batch = static_cast<double>(b + 1) * one;
  CHECK_FALSE(*inference_memory(m, in).fits);
}

TEST_CASE("a model whose layers all keep a sliding window fits its maximum context", "[memory][solver]") {
  const specs::ModelSpec m = specs::load_model_preset("mistral-7b");  // window 4096 on every layer
  const InferenceMemoryInput in{.batch = 4 * one, .context = 1 * one, .capacity = 24.0 * GiB};
  CHECK(solve_inference(m, in, SolveFor::max_context) == m.max_context);
}

TEST_CASE("the solver's longest context fits and one token more does not", "[memory][solver]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  InferenceMemoryInput in{.batch = 4 * one, .context = 1 * one, .capacity = 24.0 * GiB};
  const std::int64_t c = solve_inference(m, in, SolveFor::max_context);
  REQUIRE(c > 1);
  in.context = static_cast<double>(c) * one;
  CHECK(*inference_memory(m, in).fits);
  in.context = static_cast<double>(c + 1) * one;
  CHECK_FALSE(*inference_memory(m, in).fits);
}

TEST_CASE("the fewest GPUs: the answer fits and no TP x PP layout of fewer GPUs does", "[memory][solver]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-70b");
  InferenceMemoryInput in{.batch = 8 * one, .context = 32768 * one, .capacity = 80.0 * GiB};
  const LayoutAnswer a = min_gpus_inference(m, in, {});
  REQUIRE(a.fewest);
  // Three pipeline stages of TP 1: 141 GB of weights and 86 GB of KV cache over 3 GPUs.
  CHECK(a.fewest->gpus() == 3);
  CHECK(a.fewest->tp == 1);
  CHECK(a.fewest->pp == 3);
  in.pp = 3 * one;
  CHECK(*inference_memory(m, in).fits);
  // Every layout of fewer GPUs does not fit.
  for (const auto& [tp, pp] : {std::pair{1, 1}, {2, 1}, {1, 2}}) {
    in.tp = tp * one;
    in.pp = pp * one;
    CHECK_FALSE(*inference_memory(m, in).fits);
  }
  // Fixing PP at 2 searches TP alone: TP 2 × PP 2.
  LayoutSearch pp2;
  pp2.pp = 2;
  const LayoutAnswer b = min_gpus_inference(m, {.batch = 8 * one, .context = 32768 * one, .capacity = 80.0 * GiB}, pp2);
  REQUIRE(b.fewest);
  CHECK(b.fewest->tp == 2);
  CHECK(b.fewest->pp == 2);
}

TEST_CASE("the fewest GPUs search pipeline stages when TP alone cannot fit, and has no answer past its limits",
          "[memory][solver]") {
  // Llama-3.1-70B at 32Ki x 64 on 24 GB L4s: KV alone is 687 GB, past what TP 8 can split.
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-70b");
  InferenceMemoryInput in{.batch = 64 * one, .context = 32768 * one, .capacity = 24e9 * byte};
  const LayoutAnswer a = min_gpus_inference(m, in, {});
  REQUIRE(a.fewest);
  CHECK(a.fewest->tp == 8);
  CHECK(a.fewest->pp > 1);
  in.tp = static_cast<double>(a.fewest->tp) * one;
  in.pp = static_cast<double>(a.fewest->pp) * one;
  CHECK(*inference_memory(m, in).fits);
  in.pp = static_cast<double>(a.fewest->pp - 1) * one;
  CHECK_FALSE(*inference_memory(m, in).fits);
  // 405B on 1 GiB GPUs: nothing within TP 8 x PP 126 fits; the closest layout is reported.
  const specs::ModelSpec big = specs::load_model_preset("llama-3.1-405b");
  const LayoutAnswer none = min_gpus_inference(big, {.context = 4096 * one, .capacity = 1.0 * GiB}, {});
  CHECK_FALSE(none.fewest);
  CHECK(none.tried == 4 * 126);  // TP 1, 2, 4, 8 (the KV heads) × PP 1..126
  CHECK(none.closest.tp == 8);
}

TEST_CASE("nothing fits: the solver answers 0", "[memory][solver]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  CHECK(solve_inference(m, {.context = 8192 * one, .capacity = 8.0 * GiB}, SolveFor::max_batch) == 0);
}

TEST_CASE("LoRA rank 16 on Llama-3.1-8B trains 13,631,488 params on q,k,v,o and 41,943,040 on all linear layers",
          "[memory][lora]") {
  // The counts PEFT prints for this model and rank: r·(d_in + d_out) per target matrix.
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  CHECK(lora_params(m, 16, false) == 13631488);
  CHECK(lora_params(m, 16, true) == 41943040);
}

TEST_CASE("LoRA freezes the base: gradients and optimizer states cover only the adapters", "[memory][lora]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in;
  in.seq = 2048 * one;
  in.lora_rank = 16 * one;
  const TrainingMemory r = training_memory(m, in);
  CHECK(r.gradients.in(byte) == 13631488.0 * 2);
  CHECK(r.optimizer_states.in(byte) == 13631488.0 * 8);
  CHECK(r.weights.in(byte) == 8030261248.0 * 2 + 13631488.0 * 2);
}

TEST_CASE("QLoRA stores the frozen base at 4.127 bits per parameter, embeddings and head in bf16", "[memory][lora]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in;
  in.seq = 2048 * one;
  in.lora_rank = 16 * one;
  in.qlora = true;
  const TrainingMemory r = training_memory(m, in);
  const ParamCount c = count_params(m);
  const double kept = static_cast<double>(c.group(ParamGroup::embedding) + c.group(ParamGroup::head) +
                                          c.group(ParamGroup::norm));
  CHECK(r.weights.in(byte) == std::ceil((8030261248.0 - kept) * 4.127 / 8 + kept * 2) + 13631488.0 * 2);
}

TEST_CASE("optimizer offload moves gradients, master weights and optimizer states to CPU memory", "[memory]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in;
  in.seq = 4096 * one;
  in.offload_optimizer = true;
  const TrainingMemory r = training_memory(m, in);
  CHECK(r.gradients.in(byte) == 0.0);
  CHECK(r.master_weights.in(byte) == 0.0);
  CHECK(r.optimizer_states.in(byte) == 0.0);
  CHECK(r.weights.in(byte) == 8030261248.0 * 2);
  CHECK(r.cpu_memory.in(byte) == 8030261248.0 * 14);  // ZeRO-Offload §4.1: 2 + 4 + 8 B/param on the host
}

TEST_CASE("the runtime reserve's fragmentation covers every row, frozen LoRA weights included", "[memory][lora]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in;
  in.seq = 2048 * one;
  in.lora_rank = 16 * one;
  const TrainingMemory r = training_memory(m, in);
  // The rows, and the larger of the loss's buffers and a recomputed layer's transient.
  const Bytes rows = r.weights + r.gradients + r.master_weights + r.optimizer_states + r.activations + r.peak_transient();
  CHECK(r.runtime_reserve.in(byte) == std::ceil((512.0 * MiB + 0.05 * rows).in(byte)));
}

TEST_CASE("Korthikanti's inventory for a GQA, SwiGLU layer: 10 bytes per s·b·h outside TP and 26 inside", "[memory]") {
  // Llama-3.1-8B: h = 4096, H_kv·d = 1024, f = 14336. Inside: Q 2 + K,V 4·1024/4096 + out 2 +
  // 6·14336/4096 = 26; outside: norms 4 + block inputs 4 + dropout masks 2 = 10.
  ActivationInput in{.seq = 2048 * one, .micro_batch = 1 * one, .hidden = 4096 * one, .heads = 32 * one,
                     .kv_width = 1024 * one, .ffn_width = 14336 * one, .gated = true};
  const ActivationTerms t = activation_terms(in);
  CHECK(t.outside == 10.0);
  CHECK(t.inside == 26.0);
  CHECK(t.scores == 5.0);
  in.recompute = Recompute::selective;
  CHECK(activations_per_layer(in).in(byte) == 36.0 * 2048 * 4096);
  in.tp = 8 * one;
  CHECK(activations_per_layer(in).in(byte) == (10.0 + 26.0 / 8) * 2048 * 4096);
  // Without dropout: no masks, and only the softmax output (2 bytes per score) is kept.
  in.dropout = false;
  in.attention_dropout = false;
  in.tp = 1 * one;
  in.recompute = Recompute::none;
  CHECK(activation_terms(in).outside == 8.0);
  CHECK(activations_per_layer(in).in(byte) == (34.0 + 2.0 * 32 * 2048 / 4096) * 2048 * 4096);
}

TEST_CASE("expert parallelism splits the routed experts and shards their states over dp / ep", "[memory][ep]") {
  const specs::ModelSpec m = specs::load_model_preset("mixtral-8x7b");
  const ParamCount c = count_params(m);
  const double routed = static_cast<double>(c.group(ParamGroup::experts));  // Mixtral: no shared experts
  const double dense = 46702792704.0 - routed;
  TrainingMemoryInput in;
  in.seq = 4096 * one;
  in.states.zero_stage = 1;
  in.states.dp = 16 * one;
  in.ep = 8 * one;
  const TrainingMemory r = training_memory(m, in);
  // Each GPU holds one of the 8 experts per layer; bf16 weights are not sharded under ZeRO-1.
  CHECK(r.weights.in(byte) == 2.0 * dense + 2.0 * routed / 8);
  // Master weights: the dense part over 16 ranks, the experts over the 16 / 8 = 2 ranks sharing them.
  CHECK(r.master_weights.in(byte) == std::ceil(4.0 * dense / 16) + std::ceil(4.0 * routed / 8 / 2));
  in.ep = 3 * one;
  in.states.dp = 24 * one;
  CHECK_THROWS_WITH(training_memory(m, in), "--ep: '3': expected a divisor of the model's 8 routed experts");
  in.ep = 8 * one;
  in.states.dp = 4 * one;
  CHECK_THROWS_WITH(training_memory(m, in),
                    "--ep: '8': expected a divisor of --dp 4 (expert-parallel ranks are data-parallel ranks)");
  const specs::ModelSpec dense_model = specs::load_model_preset("llama-3.1-8b");
  in.states.dp = 8 * one;
  CHECK_THROWS_WITH(training_memory(dense_model, in),
                    "--ep: '8': expected 1 (expert parallelism needs a mixture-of-experts model)");
}

TEST_CASE("parameter offload leaves only the ZeRO-3 gathered working set of weights on the GPU", "[memory]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in;
  in.seq = 4096 * one;
  in.states.zero_stage = 3;
  in.states.dp = 8 * one;
  in.offload_params = true;
  const TrainingMemory r = training_memory(m, in);
  CHECK(r.weights.in(byte) == 0.0);
  CHECK(r.gradients.in(byte) == 0.0);
  CHECK(r.gathered_params.in(byte) == 4.0 * 128256 * 4096);
  CHECK(r.cpu_memory.in(byte) == std::ceil(8030261248.0 * 2 / 8) * 2 + std::ceil(8030261248.0 * 4 / 8) +
                                     std::ceil(8030261248.0 * 8 / 8));
  in.states.zero_stage = 2;
  CHECK_THROWS_WITH(training_memory(m, in),
                    "--offload-params (with --zero 2): expected --zero 3 (parameter offload partitions the weights)");
}

TEST_CASE("the training solver's answers fit and one step more does not", "[memory][solver]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainingMemoryInput in;
  in.seq = 4096 * one;
  in.states.zero_stage = 3;
  in.states.dp = 8 * one;
  in.recompute = Recompute::selective;
  in.capacity = 80.0 * GiB;
  const std::int64_t b = solve_training(m, in, TrainSolveFor::max_micro_batch);
  REQUIRE(b > 1);
  TrainingMemoryInput at = in;
  at.micro_batch = static_cast<double>(b) * one;
  CHECK(*training_memory(m, at).fits);
  at.micro_batch = static_cast<double>(b + 1) * one;
  CHECK_FALSE(*training_memory(m, at).fits);

  const std::int64_t s = solve_training(m, in, TrainSolveFor::max_seq);
  REQUIRE(s > 4096);
  REQUIRE(s < 131072);
  at = in;
  at.seq = static_cast<double>(s) * one;
  CHECK(*training_memory(m, at).fits);
  at.seq = static_cast<double>(s + 1) * one;
  CHECK_FALSE(*training_memory(m, at).fits);

  // 70B on 80 GiB GPUs with ZeRO-3 and full recomputation: the fewest data-parallel ranks.
  const specs::ModelSpec big = specs::load_model_preset("llama-3.1-70b");
  in.recompute = Recompute::full;
  in.states.dp = 1 * one;
  LayoutSearch tp1pp1;
  tp1pp1.tp = 1;
  tp1pp1.pp = 1;
  const LayoutAnswer l = min_gpus_training(big, in, tp1pp1);
  REQUIRE(l.fewest);
  const std::int64_t dp = l.fewest->dp;
  REQUIRE(dp > 1);
  at = in;
  at.states.dp = static_cast<double>(dp) * one;
  CHECK(*training_memory(big, at).fits);
  at.states.dp = static_cast<double>(dp - 1) * one;
  CHECK_FALSE(*training_memory(big, at).fits);
}

TEST_CASE("the inference ledger quotes the KV cache per token and per sequence for the whole model", "[memory][cli]") {
  using napkin_test::run_napkin;
  // Llama-3.1-8B: 2 · 32 layers · 8 KV heads · 128 · 2 B = 131,072 B = 128 KiB per token.
  auto r = run_napkin("memory llama-3.1-8b --context 4096 --tp 2 --json");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\"kv_per_token\":{\"value\":131072,") != std::string::npos);
  CHECK(r.out.find("\"kv_per_sequence\":{\"value\":536870912,") != std::string::npos);
  // DeepSeek-V3 (MLA): 61 layers · (512 + 64) · 2 B = 70,272 B.
  r = run_napkin("memory deepseek-v3 --json");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\"kv_per_token\":{\"value\":70272,") != std::string::npos);
}

TEST_CASE("ZeRO-3 with optimizer offload matches DeepSpeed's estimator on the GPU side", "[memory][zero]") {
  // DeepSpeed's estimate_zero3_model_states_mem_needs (deepspeed/runtime/zero/stage3.py), with
  // offload_optimizer and without parameter offload: per GPU = 4 B × largest layer + 2 B × P / N.
  // Its published example (Hugging Face's DeepSpeed guide, T0_3B on one GPU: 2783M params, 65M
  // largest layer) prints 5.43 GiB per GPU; (4 · 65e6 + 2 · 2783e6) B = 5.43 GiB.
  CHECK_THAT((4.0 * 65e6 + 2.0 * 2783e6) / 1073741824.0, Catch::Matchers::WithinAbs(5.43, 0.005));
  // napkin's ledger of a model: the 16-bit weights shard (2 B × P / dp) and the gathered working
  // set (4 B × the largest module) are exactly DeepSpeed's two terms; the offloaded states live in
  // cpu_memory. Its no-offload ZeRO-3 figure differs by convention (18 B/param / N against the ZeRO
  // paper's 16), which the zero_stage assumption names.
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  const ParamCount c = count_params(m);
  TrainingMemoryInput in;
  in.seq = 4096 * one;
  in.states.zero_stage = 3;
  in.states.dp = 8 * one;
  in.offload_optimizer = true;
  const TrainingMemory r = training_memory(m, in);
  const double largest = 128256.0 * 4096;  // the embedding, DeepSpeed's largest_layer_params
  CHECK(r.weights.in(byte) + r.gathered_params.in(byte) ==
        std::ceil(static_cast<double>(c.total) / 8) * 2 + 4.0 * largest);
  CHECK(r.gradients.in(byte) == 0.0);
  CHECK(r.optimizer_states.in(byte) == 0.0);
  CHECK(r.cpu_memory.in(byte) > 0.0);
}
