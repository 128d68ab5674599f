#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "assumption_flags.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/params.h"
#include "napkin/plans/serve.h"
#include "napkin/specs/hardware.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"
#include "run_napkin.h"

using namespace napkin;
using namespace napkin::units;
using Catch::Matchers::WithinRel;
using napkin_test::run_napkin;

namespace {

// H100 SXM from its preset: 989.5 TFLOP/s dense bf16, 3.35 TB/s, NVLink 4 at 450 GB/s per
// direction (data/presets/hardware/h100-sxm.json).
ServeInput h100(double batch, double prompt = 1024, double generate = 256) {
  const specs::HardwareSpec hw = specs::load_hardware("h100-sxm");
  ServeInput in;
  in.batch = batch * one;
  in.prompt = prompt * one;
  in.generate = generate * one;
  in.peak = *hw.peak(Dtype::bf16);
  in.bandwidth = hw.bandwidth;
  in.link_bandwidth = hw.link_bandwidth_per_direction();
  in.capacity = hw.memory;
  return in;
}

const OpCost* op(const PhaseCost& c, std::string_view name) {
  for (const auto& o : c.ops)
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace

TEST_CASE("llama-3.1-8b on an H100 at batch 1: decode is memory-bound, about weights / bandwidth = 4.79 ms",
          "[serve]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  const ServeInput in = h100(1);
  const Serve r = serve(m, in);
  CHECK(r.decode.bound() == Bound::memory);
  // The stored weights are 16,060,522,496 B (napkin memory); 16,060,522,496 / 3.35e12 = 4.794 ms.
  CHECK(r.memory.weights.in(byte) == 16060522496.0);
  const double stored = 16060522496.0 / 3.35e12;
  // A decode step reads every weight but the embedding table (128256 · 4096 · 2 B = 1.05 GB; only
  // the batch's row), so the memory roof alone is 6.5% below 4.79 ms ...
  const double embedding = 128256.0 * 4096.0 * 2.0;
  CHECK(r.decode.weight_bytes.in(byte) == 16060522496.0 - embedding + 4096.0 * 2.0);
  const double floor = r.decode.weight_bytes.in(byte) / 3.35e12;
  CHECK(r.decode.time.in(second) >= floor);
  // ... and the stated overheads add at most the KV cache and activation traffic over the
  // bandwidth plus one launch overhead (5 µs) per kernel.
  const double ceiling = r.decode.bytes.in(byte) / 3.35e12 + r.decode.kernels * 5e-6;
  CHECK(r.decode.time.in(second) <= ceiling);
  // Net: within 15% of the 4.79 ms figure (−6.5% embedding, +1% KV at the mean context 1152,
  // +~15% for the ~160 small kernels per step that take their 5 µs launch).
  CHECK_THAT(r.decode.time.in(second), WithinRel(stored, 0.15));
  // With CUDA graphs (1 µs per kernel) the launch floor shrinks and it comes within 5% (4.66 ms: −6.5% embedding, +1% KV, +3% kernel floors).
  ServeInput g = in;
  g.cuda_graphs = true;
  const Serve rg = serve(m, g);
  CHECK(rg.decode.time < r.decode.time);
  CHECK_THAT(rg.decode.time.in(second), WithinRel(stored, 0.05));
  // Prefill of a 1024-token prompt is compute-bound: 2 · 1024 · ~8e9 FLOP at 989.5 TFLOP/s.
  CHECK(r.prefill.bound() == Bound::compute);
}

TEST_CASE("llama-3.1-8b decode turns compute-bound at a large batch with short sequences", "[serve]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  const Serve r = serve(m, h100(2048, 64, 64));
  CHECK(r.decode.bound() == Bound::compute);
  REQUIRE(r.compute_bound_batch);
  // Weights alone would cross the ridge 989.5 / 3.35 = 295 FLOP/B at B ≈ 295 (2 FLOP per
  // 2-byte weight per sequence); KV reads (96 tokens · 128 KiB per sequence) and the activation
  // traffic between kernels push it later, below the 2048 checked above.
  CHECK(*r.compute_bound_batch > 295);
  CHECK(*r.compute_bound_batch < 2048);
  const auto at_batch = [&](std::int64_t b) { return serve(m, h100(static_cast<double>(b), 64, 64)); };
  const double ridge = 989.5e12 / 3.35e12;
  CHECK(at_batch(*r.compute_bound_batch - 1).decode.intensity().in(flop_per_byte) < ridge);
  CHECK(at_batch(*r.compute_bound_batch).decode.intensity().in(flop_per_byte) >= ridge);
}

TEST_CASE("the weight matmuls of llama-3.1-8b turn compute-bound near the ridge, at 295 to 350 sequences", "[serve]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  for (double prompt : {1.0, 1024.0, 8192.0}) {
    const Serve r = serve(m, h100(1, prompt, 1));
    REQUIRE(r.matmul_compute_bound_batch);
    // 2·B FLOP per 2-byte weight: B = 295 without activations; each GEMM's bf16 input and
    // output rows add ~10% (gate/up: 295 · 2W / (2W − 295 · 65536 B) = 322 sequences).
    CHECK(*r.matmul_compute_bound_batch >= 295);
    CHECK(*r.matmul_compute_bound_batch <= 350);
  }
}

TEST_CASE("with a 1-token prompt the crossing batch of llama-3.1-8b is near the ridge, 295 to 450", "[serve]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  const Serve r = serve(m, h100(1, 1, 1));
  REQUIRE(r.compute_bound_batch);
  // Never below the ridge (each weight byte gives at most B FLOP); above it by the bf16
  // activations each unfused kernel reads and writes (~13 MB per token over 32 layers).
  CHECK(*r.compute_bound_batch >= 295);
  CHECK(*r.compute_bound_batch <= 450);
}

TEST_CASE("at a 1024-token prompt llama-3.1-8b decode never turns compute-bound: bf16 KV reads cap the intensity",
          "[serve]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  const Serve r = serve(m, h100(1));
  CHECK_FALSE(r.compute_bound_batch);
  // ~2 · 7.5e9 FLOP per sequence against 1152 tokens · 128 KiB of KV per sequence: ~100 FLOP/B.
  CHECK(r.decode_limit_intensity.in(flop_per_byte) < 295.0);
  CHECK(r.decode_limit_intensity.in(flop_per_byte) > 50.0);
}

TEST_CASE("gpt2 decode at batch 1 is overhead-bound; CUDA graphs make it memory-bound", "[serve]") {
  const specs::ModelSpec m = specs::load_model_preset("gpt2");
  ServeInput in = h100(1);
  const Serve eager = serve(m, in);
  CHECK(eager.decode.bound() == Bound::overhead);
  in.cuda_graphs = true;
  const Serve graphed = serve(m, in);
  CHECK(graphed.decode.time < eager.decode.time);
  REQUIRE(eager.decode_alternative);
  CHECK(eager.decode_alternative->time.in(second) == graphed.decode.time.in(second));
}

TEST_CASE("the op times of a pass add up to the pass time", "[serve]") {
  for (const char* name : {"llama-3.1-8b", "mixtral-8x7b", "deepseek-v2-lite", "gemma-2-2b"}) {
    INFO(name);
    const specs::ModelSpec m = specs::load_model_preset(name);
    for (bool graphs : {false, true}) {
      ServeInput in = h100(8);
      in.cuda_graphs = graphs;
      const Serve r = serve(m, in);
      for (const PhaseCost* c : {&r.prefill, &r.decode}) {
        double t = 0, f = 0, q = 0, k = 0;
        for (const auto& o : c->ops) {
          t += o.time.in(second);
          f += o.flops.in(flop);
          q += o.bytes.in(byte);
          k += o.kernels;
          CHECK(o.time >= o.roof);
        }
        CHECK_THAT(t, WithinRel(c->time.in(second), 1e-12));
        CHECK_THAT(f, WithinRel(c->flops.in(flop), 1e-12));
        CHECK_THAT(q, WithinRel(c->bytes.in(byte), 1e-12));
        CHECK(k == c->kernels);
      }
    }
  }
}

TEST_CASE("per_gpu and fits of serve are those of napkin memory at context prompt + generate", "[serve]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-70b");
  ServeInput in = h100(16, 2000, 500);
  in.tp = 4 * one;
  const Serve r = serve(m, in);
  InferenceMemoryInput mi;
  mi.batch = 16 * one;
  mi.context = 2500 * one;
  mi.tp = 4 * one;
  mi.capacity = in.capacity;
  const InferenceMemory mem = inference_memory(m, mi);
  CHECK(r.memory.per_gpu().in(byte) == mem.per_gpu().in(byte));
  CHECK(r.memory.fits == mem.fits);
}

TEST_CASE("TP 4 on llama-3.1-70b: 2 ring all-reduces per layer, 2(t−1)/t · B·D·2 B / 450 GB/s each", "[serve]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-70b");
  ServeInput in = h100(256);
  in.tp = 4 * one;
  const Serve r = serve(m, in);
  const OpCost* ar = op(r.decode, "all_reduce");
  REQUIRE(ar != nullptr);
  CHECK(ar->count == 160.0);
  // 2 · 3/4 · 256 · 8192 · 2 B / 450e9 B/s = 13.98 µs per all-reduce, above the 5 µs launch.
  const double each = 2.0 * 3.0 / 4.0 * 256.0 * 8192.0 * 2.0 / 450e9;
  CHECK_THAT(ar->time.in(second), WithinRel(160.0 * each, 1e-12));
  CHECK(ar->bound() == Bound::communication);
  // At batch 1 the payload is 16 KiB: the launch overhead dominates.
  in.batch = 1 * one;
  const Serve at_one = serve(m, in);  // op() points into it: it must outlive `small`
  const OpCost* small = op(at_one.decode, "all_reduce");
  REQUIRE(small != nullptr);
  CHECK(small->bound() == Bound::overhead);
}

TEST_CASE("MoE decode at batch 1 reads the experts one token touches: mixtral reads its active weights", "[serve]") {
  const specs::ModelSpec m = specs::load_model_preset("mixtral-8x7b");
  const Serve r = serve(m, h100(1));
  CHECK(r.touched_experts_decode == 2.0);
  const ParamCount c = count_params(m);
  // Active params minus the embedding table (one row read), all in bf16.
  const double embedding = static_cast<double>(m.vocab * m.hidden);
  const double expected = 2.0 * (static_cast<double>(c.active) - embedding + static_cast<double>(m.hidden));
  CHECK_THAT(r.decode.weight_bytes.in(byte), WithinRel(expected, 1e-12));
  // A large batch touches all 8 experts of every layer.
  CHECK_THAT(serve(m, h100(256)).touched_experts_decode, WithinRel(8.0, 1e-9));
}

TEST_CASE("expected distinct experts E·(1 − (1 − k/E)^n): 2 of 8 for one token, 163.3 of 256 for 32 tokens at top-8",
          "[serve]") {
  CHECK(expected_experts_touched(8, 2, 1) == 2.0);
  CHECK_THAT(expected_experts_touched(256, 8, 32), WithinRel(256.0 * (1.0 - std::pow(1.0 - 8.0 / 256.0, 32.0)), 1e-15));
  CHECK_THAT(expected_experts_touched(256, 8, 32), WithinRel(163.3, 1e-3));
}

TEST_CASE("every assumption key serve emits has an entry in the flag table", "[serve][cli]") {
  for (const char* name : {"llama-3.1-8b", "mixtral-8x7b", "deepseek-v2-lite", "gemma-2-2b", "gpt2"}) {
    const specs::ModelSpec m = specs::load_model_preset(name);
    for (bool graphs : {false, true}) {
      ServeInput in = h100(4);
      in.cuda_graphs = graphs;
      in.weights_dtype = graphs ? Dtype::int4 : Dtype::bf16;
      in.group_size = (graphs ? 128 : 0) * one;
      if (std::string(name) == "llama-3.1-8b") in.tp = 2 * one;
      ResultSet rs;
      serve(m, in, true, rs);
      for (const auto& a : rs.assumptions) {
        INFO(name << ": " << a.key);
        CHECK_NOTHROW(cli::flag_for_assumption(a.key));
      }
    }
  }
}

TEST_CASE("serve --tp 3 on a 32-head model is exit 2 with memory's message", "[serve][cli]") {
  const auto r = run_napkin("serve llama-3.1-8b --hw h100-sxm --tp 3");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --tp: '3': expected a divisor of the model's 32 attention heads\n");
}

TEST_CASE("serve rejects a batch of 0, a fractional prompt and a bandwidth for --launch-overhead with exit 2",
          "[serve][cli]") {
  SECTION("batch 0") {
    const auto r = run_napkin("serve llama-3.1-8b --hw h100-sxm --batch 0");
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: --batch: '0': expected a positive integer\n");
  }
  SECTION("prompt 1.5") {
    const auto r = run_napkin("serve llama-3.1-8b --hw h100-sxm --prompt 1.5");
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: --prompt: '1.5': expected a positive integer\n");
  }
  SECTION("launch overhead as a bandwidth") {
    const auto r = run_napkin("serve llama-3.1-8b --hw h100-sxm --launch-overhead 1TB/s");
    CHECK(r.code == 2);
    CHECK(r.out.rfind("napkin: error: --launch-overhead: '1TB/s'", 0) == 0);
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  }
  SECTION("no hardware") {
    const auto r = run_napkin("serve llama-3.1-8b");
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: --peak: '(missing)': expected a peak rate such as 989TFLOP/s (or --hw with a "
                   "hardware preset)\n");
  }
  SECTION("an encoder-only model") {
    const auto r = run_napkin("serve bert-base-uncased --hw h100-sxm");
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: serve: MODEL 'bert-base-uncased': expected a decoder model (an encoder-only model "
                   "does not generate tokens)\n");
  }
  SECTION("TP without a link bandwidth") {
    const auto r = run_napkin("serve llama-3.1-8b --peak 989TFLOP/s --bandwidth 3.35TB/s --tp 2");
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: --link-bandwidth: '(missing)': expected the per-direction GPU-to-GPU bandwidth "
                   "for --tp > 1, e.g. 450GB/s (or --hw)\n");
  }
}

TEST_CASE("serve --per-op --json carries the prefill and decode op tables", "[serve][cli]") {
  const auto r = run_napkin("serve llama-3.1-8b --hw h100-sxm --per-op --json");
  CHECK(r.code == 0);
  CHECK(r.out.find("\"prefill_ops\":[") != std::string::npos);
  CHECK(r.out.find("\"decode_ops\":[") != std::string::npos);
  CHECK(r.out.find("{\"op\":\"qkv_proj\",\"count\":32,") != std::string::npos);
}

TEST_CASE("serve reads each layer's norms as the model has them: one per parallel block, weight-only LayerNorms",
          "[serve]") {
  // Falcon-7B: a parallel block with one LayerNorm (weight + bias) per layer, no mlp_norm.
  const Serve falcon = serve(specs::load_model_preset("falcon-7b"), h100(1));
  CHECK(op(falcon.decode, "attn_norm") != nullptr);
  CHECK(op(falcon.decode, "mlp_norm") == nullptr);
  // Cohere: one LayerNorm per layer with a weight and no bias (2 B each of D = 4096), and per-head
  // q/k norms when use_qk_norm: (H + H_kv)·d_head weights.
  nlohmann::json j = {{"model_type", "cohere"}, {"hidden_size", 4096},        {"num_hidden_layers", 2},
                      {"num_attention_heads", 32}, {"num_key_value_heads", 8}, {"intermediate_size", 14336},
                      {"vocab_size", 1000},        {"use_qk_norm", true}};
  const Serve cohere = serve(specs::from_hf_config(j, "config.json"), h100(1));
  const OpCost* n = op(cohere.decode, "attn_norm");
  REQUIRE(n != nullptr);
  CHECK(n->weight_bytes.in(byte) == 2.0 * 4096 * 2);  // two layers, 4096 weights of 2 B each
  const OpCost* qk = op(cohere.decode, "qk_norm");
  REQUIRE(qk != nullptr);
  CHECK(qk->weight_bytes.in(byte) == 2.0 * (32 + 8) * 128 * 2);
}
