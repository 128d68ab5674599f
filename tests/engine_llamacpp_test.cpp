// llama.cpp's allocation (src/engines/llamacpp.cpp) against llama.cpp start-up logs, and GGUF
// files read alone by memory and serve (src/specs/gguf_model.cpp, src/cli/model_arg.cpp).
// Each log's model shape comes from the log's own printed hparams (n_layer, n_head, n_head_kv,
// n_embd_head_k, n_embd, n_vocab, n_ff); the KV buffer must equal the logged MiB exactly and
// the compute buffer must be within 25% of it.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "checkpoint_files.h"
#include "napkin/engines/llamacpp.h"
#include "napkin/ground/error.h"
#include "napkin/specs/gguf_model.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"
#include "run_napkin.h"

using namespace napkin;
using napkin::units::MiB;
using napkin::units::GiB;
using napkin::units::one;
using namespace napkin::test::gguf_types;

namespace {

specs::ModelSpec shape(std::int64_t layers, std::int64_t d, std::int64_t heads, std::int64_t kv_heads,
                       std::int64_t head_dim, std::int64_t ffn, std::int64_t vocab) {
  specs::ModelSpec m;
  m.name = "log";
  m.layers = layers;
  m.hidden = d;
  m.heads = heads;
  m.kv_heads = kv_heads;
  m.head_dim = head_dim;
  m.ffn = ffn;
  m.vocab = vocab;
  m.attention = specs::AttentionKind::gqa;
  return m;
}

LlamaCppInput run(double ctx, CacheType k, CacheType v, bool fa, int build = 0) {
  LlamaCppInput in;
  in.n_ctx = ctx * one;
  in.type_k = k;
  in.type_v = v;
  in.flash_attention = fa;
  in.build = build;
  return in;
}

// A build that predates b9489's reserve, for the logs that print none (ik_llama.cpp, a fork whose graph reserves
// every output row as mainline did before b9489; llama-cpp-python 0.2.85; mainline of March 2024).
constexpr int kOlder = 1;

double mib(Bytes b) { return b.in(MiB); }

}  // namespace

TEST_CASE("llama.cpp cache types take ggml's block sizes: q8_0 34 B per 32, q4_0 18, q5_1 24, f16 2 per 1",
          "[engine][llamacpp]") {
  CHECK(cache_row_bytes(CacheType::q8_0, 1024) == 1088);
  CHECK(cache_row_bytes(CacheType::q4_0, 1024) == 576);
  CHECK(cache_row_bytes(CacheType::q4_1, 1024) == 640);
  CHECK(cache_row_bytes(CacheType::q5_0, 1024) == 704);
  CHECK(cache_row_bytes(CacheType::q5_1, 1024) == 768);
  CHECK(cache_row_bytes(CacheType::iq4_nl, 1024) == 576);
  CHECK(cache_row_bytes(CacheType::f16, 1024) == 2048);
  CHECK(cache_row_bytes(CacheType::f32, 1024) == 4096);
  CHECK_THROWS_AS(cache_row_bytes(CacheType::q8_0, 80), InputError);
  CHECK(parse_cache_type("Q8_0", "--kv-dtype") == CacheType::q8_0);
  CHECK(parse_cache_type("fp16", "--kv-dtype") == CacheType::f16);
  CHECK_THROWS_WITH(parse_cache_type("q3_k", "--v-dtype"),
                    Catch::Contains("--v-dtype: 'q3_k': expected a llama.cpp cache type"));
}

// https://github.com/ikawrakow/ik_llama.cpp/issues/503 (llama.cpp fork, same KV arithmetic):
// Qwen3-32B, --ctx-size 16768 -ctk q8_0 -ctv q8_0 -fa, n_ubatch 512, 65/65 layers offloaded.
// Printed: n_layer 64, n_head 64, n_head_kv 8, n_embd_head_k 128, n_embd 5120, n_ff 25600,
// n_vocab 151936; "n_ctx = 16896"; "KV self size = 2244.00 MiB, K (q8_0): 1122.00 MiB,
// V (q8_0): 1122.00 MiB"; "compute buffer size = 306.75 MiB".
TEST_CASE("Qwen3-32B at -c 16768 q8_0/q8_0: 16896 cells, KV 2244.00 MiB as logged, compute 306.75 MiB",
          "[engine][llamacpp]") {
  const auto m = shape(64, 5120, 64, 8, 128, 25600, 151936);
  const auto in = run(16768, CacheType::q8_0, CacheType::q8_0, true, kOlder);
  const LlamaCppKv kv = llamacpp_kv(m, in);
  CHECK(kv.n_ctx == 16896);  // GGML_PAD(16768, 256)
  CHECK(mib(kv.k) == 1122.0);
  CHECK(mib(kv.v) == 1122.0);
  CHECK(mib(kv.total()) == 2244.0);
  const double compute = mib(llamacpp_compute_buffer(m, in, kv).total());
  CHECK_THAT(compute, Catch::Matchers::WithinRel(306.75, 0.25));
  CHECK(compute == 306.75);  // the logits and the final norm: (151936 + 5120) · 512 · 4 B
}

// https://github.com/ikawrakow/ik_llama.cpp/pull/645 (comment by ChicoPinto70, 2025-07-26): the
// draft model DeepSeek-R1-DRAFT-0.6B (qwen2) at -c 16384 -ctk q8_0 (V stays f16), its context
// without flash attention, n_ubatch 512, 25/25 layers offloaded over three GPUs (each holds the
// whole compute buffer: layer split). Printed: n_layer 24, n_head 14, n_head_kv 2,
// n_embd_head_k 64, n_embd 896, n_ff 4864, n_vocab 129280; "n_ctx = 16384"; "KV self size =
// 147.00 MiB, K (q8_0): 51.00 MiB, V (f16): 96.00 MiB"; "CUDA0 compute buffer size = 487.00 MiB".
TEST_CASE("DeepSeek-R1-DRAFT-0.6B at -c 16384, K q8_0 and V f16: K 51.00 + V 96.00 MiB; no-FA compute 487 MiB",
          "[engine][llamacpp]") {
  const auto m = shape(24, 896, 14, 2, 64, 4864, 129280);
  const auto in = run(16384, CacheType::q8_0, CacheType::f16, false, kOlder);
  const LlamaCppKv kv = llamacpp_kv(m, in);
  CHECK(mib(kv.k) == 51.0);
  CHECK(mib(kv.v) == 96.0);
  CHECK(mib(kv.total()) == 147.0);
  const LlamaCppCompute c = llamacpp_compute_buffer(m, in, kv);
  CHECK(c.peak() == "attention");
  CHECK(mib(c.scores) == 448.0);  // 14 heads · 16384 · 512 · 4 B
  CHECK_THAT(mib(c.total()), Catch::Matchers::WithinRel(487.0, 0.25));
  // scores 448 + the f32 mask 16384 · 512 · 4 B = 32 + (2·896 + 2·14·64) · 512 · 4 B = 7: 487.00 as logged
  CHECK(mib(c.total()) == 487.0);
}

// ik_llama.cpp issue archive (stored copy; ubergarm's llama-sweep-bench log, Qwen3-235B-A22B
// IQ3_K): -c 32768 -ctk q8_0 -ctv q8_0 -fa, n_ubatch 512, routed experts kept on the CPU.
// Printed: n_layer 94, n_head 64, n_head_kv 4, n_embd_head_k 128, n_embd 4096, n_vocab 151936,
// n_expert 128, n_expert_used 8, n_ff_exp 1536; "n_ctx = 32768"; "KV self size = 3196.00 MiB,
// K (q8_0): 1598.00 MiB, V (q8_0): 1598.00 MiB"; "CUDA0 compute buffer size = 312.75 MiB".
TEST_CASE("Qwen3-235B-A22B at -c 32768 q8_0/q8_0: KV 3196.00 MiB as logged, compute within 25% of 312.75 MiB",
          "[engine][llamacpp]") {
  auto m = shape(94, 4096, 64, 4, 128, 0, 151936);
  m.moe.n_experts = 128;
  m.moe.experts_per_token = 8;
  m.moe.expert_ffn = 1536;
  const auto in = run(32768, CacheType::q8_0, CacheType::q8_0, true, kOlder);
  const LlamaCppKv kv = llamacpp_kv(m, in);
  CHECK(mib(kv.k) == 1598.0);
  CHECK(mib(kv.total()) == 3196.0);
  const double compute = mib(llamacpp_compute_buffer(m, in, kv).total());
  CHECK_THAT(compute, Catch::Matchers::WithinRel(312.75, 0.25));  // 304.75: the output moment
}

// https://github.com/SciSharp/LLamaSharp/issues/1099 (comment by phil-scott-78; llama.cpp build
// 4701, one RTX 4080 SUPER, f16 cache): 36 layers of n_embd_k_gqa = n_embd_v_gqa = 256 (printed
// per layer), "KV self size = 144.00 MiB, K (f16): 72.00 MiB, V (f16): 72.00 MiB", "CUDA0 compute
// buffer size = 300.75 MiB", graph splits 2. The excerpt does not print n_ctx or the hparams: 36
// layers × 256 are Qwen2.5-3B's (n_embd 2048, 16 heads, 2 KV heads of 128, n_vocab 151936), and
// 144 MiB is 4096 cells of it; this case checks that reading and the compute buffer.
TEST_CASE("Qwen2.5-3B f16 at 4096 cells: KV 144.00 MiB, compute 300.75 MiB (logits and final norm)",
          "[engine][llamacpp]") {
  const auto m = shape(36, 2048, 16, 2, 128, 11008, 151936);
  const auto in = run(4096, CacheType::f16, CacheType::f16, true, 4701);
  const LlamaCppKv kv = llamacpp_kv(m, in);
  CHECK(mib(kv.k) == 72.0);
  CHECK(mib(kv.total()) == 144.0);
  const LlamaCppCompute c = llamacpp_compute_buffer(m, in, kv);
  CHECK(mib(c.total()) == 300.75);
  // "CUDA_Host compute buffer size = 12.01 MiB": the embedding rows 2048 · 512 · 4 B = 4 MiB and the f32 mask
  // 4096 · 512 · 4 B = 8 MiB (the 0.01 MiB of positions and indices is not counted).
  CHECK(mib(c.host) == 12.0);
}

// https://github.com/ggml-org/llama.cpp/issues/11200 (bitbottrap, mainline build 4462 (c05e8c99),
// two RTX 3090 Ti): llama-server -m qwen2.5-coder:32b-instruct-q8_0.gguf -ngl 99 -c 32768 -b 512
// -ub 256 --flash-attn --cache-type-k q8_0 --cache-type-v q8_0 -ts 10,6. Printed: qwen2
// head_count 40, head_count_kv 8, n_vocab 152064; "kv_size = 32768, offload = 1, type_k = 'q8_0',
// type_v = 'q8_0', n_layer = 64"; "CUDA0 KV buffer size = 2788.00 MiB", "CUDA1 KV buffer size =
// 1564.00 MiB", "KV self size = 4352.00 MiB, K (q8_0): 2176.00 MiB, V (q8_0): 2176.00 MiB".
// Qwen2.5-Coder-32B's other hparams (n_embd 5120, head_dim 128, n_ff 27648) are its config.json's.
// The compute buffers (233.00 and 237.51 MiB) are per GPU under pipeline parallelism (n_copies=4)
// over two GPUs, a layout napkin does not model, so only the KV cache (the sum over the GPUs) is compared.
TEST_CASE("Qwen2.5-Coder-32B at -c 32768 q8_0/q8_0 over two GPUs: KV 4352.00 MiB in all, as logged",
          "[engine][llamacpp]") {
  const auto m = shape(64, 5120, 40, 8, 128, 27648, 152064);
  auto in = run(32768, CacheType::q8_0, CacheType::q8_0, true, 4462);
  in.n_ubatch = 256.0 * one;
  const LlamaCppKv kv = llamacpp_kv(m, in);
  CHECK(kv.n_ctx == 32768);
  CHECK(mib(kv.k) == 2176.0);  // 64 layers · 32768 cells · 1024 / 32 · 34 B
  CHECK(mib(kv.v) == 2176.0);
  CHECK(mib(kv.total()) == 4352.0);
  CHECK(mib(kv.total()) == 2788.0 + 1564.0);  // the two CUDA KV buffers
}

// https://github.com/fedora-copr/logdetective/pull/106 (TomasTomecek, 2025-01-13): the
// llama-cpp-python 0.2.85 server (its vendored mainline llama.cpp) with --n_gpu_layers -1, before
// and after "--n_ctx 32768"; the model is the repository's MODEL_FILEPATH at that commit (.env:
// mistral-7b-instruct-v0.2.Q4_K_S.gguf; Mistral-7B-Instruct-v0.2: 32 layers, n_embd 4096, 32 heads,
// 8 KV heads of 128, n_ff 14336, n_vocab 32000, rope_theta 1e6 = the logged freq_base 1000000.0).
// Printed: n_batch 512, n_ubatch 512, flash_attn 0;
//   n_ctx 2048:  "CUDA0 KV buffer size = 256.00 MiB", "KV self size = 256.00 MiB, K (f16): 128.00
//                MiB, V (f16): 128.00 MiB", "CUDA0 compute buffer size = 164.00 MiB";
//   n_ctx 32768: "CUDA0 KV buffer size = 4096.00 MiB", "KV self size = 4096.00 MiB, K (f16): 2048.00
//                MiB, V (f16): 2048.00 MiB", "CUDA0 compute buffer size = 2144.00 MiB".
// One GPU holds every layer (the CUDA_Host compute buffers, 12.01 and 72.01 MiB, are not counted).
TEST_CASE("Mistral-7B-Instruct-v0.2 f16 without flash attention: KV 256 / 4096 MiB at 2048 / 32768 cells, "
          "compute 164 / 2144 MiB",
          "[engine][llamacpp]") {
  const auto m = shape(32, 4096, 32, 8, 128, 14336, 32000);
  auto in = run(2048, CacheType::f16, CacheType::f16, false, kOlder);
  LlamaCppKv kv = llamacpp_kv(m, in);
  CHECK(mib(kv.k) == 128.0);
  CHECK(mib(kv.total()) == 256.0);
  LlamaCppCompute c = llamacpp_compute_buffer(m, in, kv);
  CHECK(c.peak() == "attention");
  CHECK(mib(c.scores) == 128.0);  // 32 heads · 2048 · 512 · 4 B
  CHECK_THAT(mib(c.total()), Catch::Matchers::WithinRel(164.0, 0.25));
  // scores 128 + the f32 mask 2048 · 512 · 4 B = 4 + (2·4096 + 2·32·128) · 512 · 4 B = 32: 164.00 as logged
  CHECK(mib(c.total()) == 164.0);
  CHECK(mib(c.host) == 12.0);  // 4096 · 512 · 4 B + 4 MiB mask: "CUDA_Host compute buffer size = 12.01 MiB"

  in = run(32768, CacheType::f16, CacheType::f16, false, kOlder);
  kv = llamacpp_kv(m, in);
  CHECK(mib(kv.k) == 2048.0);
  CHECK(mib(kv.v) == 2048.0);
  CHECK(mib(kv.total()) == 4096.0);
  c = llamacpp_compute_buffer(m, in, kv);
  CHECK(mib(c.scores) == 2048.0);  // 32 heads · 32768 · 512 · 4 B
  CHECK_THAT(mib(c.total()), Catch::Matchers::WithinRel(2144.0, 0.25));
  CHECK(mib(c.total()) == 2144.0);  // 2048 + 64 (mask) + 32, as logged
  CHECK(mib(c.host) == 72.0);       // 8 + 64: "CUDA_Host compute buffer size = 72.01 MiB"
}

// https://github.com/ggml-org/llama.cpp/pull/6122 (comment by Wuzzooy; mainline of 2024-03, an
// RTX 4070 Ti and an RTX 3090 Ti): Command-R (freq_base 8000000.0, 41/41 layers offloaded), n_ctx 4096,
// n_ubatch 512, f16 cache. Printed: "CUDA0 KV buffer size = 1536.00 MiB", "CUDA1 KV buffer size =
// 3584.00 MiB", "KV self size = 5120.00 MiB, K (f16): 2560.00 MiB, V (f16): 2560.00 MiB"; the
// token embeddings kept on the CPU, "CPU buffer size = 1640.62 MiB", are 256000 × 8192 Q6_K
// (6.5625 bits) = 1640.62 MiB. Command-R v01 (c4ai-command-r-v01 config.json): 40 layers, n_embd
// 8192, 64 heads and 64 KV heads of 128 (no GQA), n_ff 22528. 40 × 4096 × 8192 × 2 B = 2560 MiB
// for K. The compute buffers are per GPU under pipeline parallelism: not compared.
TEST_CASE("Command-R (35B, no GQA) f16 at 4096 cells over two GPUs: KV 5120.00 MiB in all, as logged",
          "[engine][llamacpp]") {
  const auto m = shape(40, 8192, 64, 64, 128, 22528, 256000);
  const auto in = run(4096, CacheType::f16, CacheType::f16, false, kOlder);
  const LlamaCppKv kv = llamacpp_kv(m, in);
  CHECK(mib(kv.k) == 2560.0);
  CHECK(mib(kv.v) == 2560.0);
  CHECK(mib(kv.total()) == 1536.0 + 3584.0);
}

// https://github.com/mozilla-ai/llamafile/pull/552 (ikawrakow, 2024-08-23; the FP16 perplexity run,
// mainline llama.cpp "build = 3403 (bd99ed7d)", one RTX 4080, 31/31 layers offloaded):
// TriLM_3.9B_Unpacked F16, block_count 30, embedding_length 3072, feed_forward_length 9216;
// n_ctx 512, n_batch 512, n_ubatch 512, flash_attn 0. Printed: "CUDA0 KV buffer size = 180.00 MiB",
// "KV self size = 180.00 MiB, K (f16): 90.00 MiB, V (f16): 90.00 MiB", "CUDA0 compute buffer size =
// 105.00 MiB"; "CPU buffer size = 297.00 MiB" is the F16 token embedding, 297 MiB / (3072 · 2 B) =
// 50688 tokens. 90 MiB / (30 · 512 · 2 B) = 3072 = n_embd_k_gqa = n_embd: no GQA. The excerpt does
// not print the head count; 24 heads of 128 is assumed, and any count below 74 leaves the scores
// (H · 512 · 512 · 4 B = H MiB) under the output moment, so the compute buffer does not depend on it.
TEST_CASE("TriLM-3.9B f16 at 512 cells without flash attention: KV 180.00 MiB, compute 105.00 MiB as logged",
          "[engine][llamacpp]") {
  const auto m = shape(30, 3072, 24, 24, 128, 9216, 50688);
  const auto in = run(512, CacheType::f16, CacheType::f16, false, 3403);
  const LlamaCppKv kv = llamacpp_kv(m, in);
  CHECK(mib(kv.k) == 90.0);
  CHECK(mib(kv.total()) == 180.0);
  const LlamaCppCompute c = llamacpp_compute_buffer(m, in, kv);
  CHECK(c.peak() == "output");
  CHECK_THAT(mib(c.total()), Catch::Matchers::WithinRel(105.0, 0.25));
  CHECK(mib(c.total()) == 105.0);  // logits 50688 · 512 · 4 B + final norm 3072 · 512 · 4 B
}

TEST_CASE("sliding layers keep PAD(min(n_ctx, window + ubatch), 256) cells; --swa-full keeps n_ctx",
          "[engine][llamacpp]") {
  // Gemma-2-like: 4 layers, every other one slides a 4096 window; 2 KV heads of 256.
  auto m = shape(4, 2304, 8, 2, 256, 9216, 256000);
  m.sliding_window = 4096;
  m.sliding_every = 2;
  auto in = run(32768, CacheType::f16, CacheType::f16, true);
  LlamaCppKv kv = llamacpp_kv(m, in);
  CHECK(kv.base_layers == 2);
  CHECK(kv.swa_layers == 2);
  CHECK(kv.swa_cells == 4608);  // PAD(4096 + 512, 256)
  CHECK(kv.total().in(units::byte) == 2.0 * 32768 * 1024 * 2 + 2.0 * 4608 * 1024 * 2);
  in.swa_full = true;
  kv = llamacpp_kv(m, in);
  CHECK(kv.swa_cells == 32768);
  // --parallel 4: n_ctx_seq = 8192 per slot, four streams; the window cache is per stream.
  in.swa_full = false;
  in.n_parallel = 4.0 * one;
  kv = llamacpp_kv(m, in);
  CHECK(kv.n_ctx_seq == 8192);
  CHECK(kv.streams == 4);
  CHECK(kv.swa_cells == 4608);
  CHECK(kv.total().in(units::byte) == 2.0 * 8192 * 4 * 2048 + 2.0 * 4608 * 4 * 2048);
}

// llama.cpp applies a sliding window only where its architecture sets swa_type (src/models/<arch>.cpp
// at 6c8dcaa, b10256): Mistral-7B-v0.1 converts to the llama architecture, which reads no window
// (convert_hf_to_gguf.py writes none), and Phi-3's window is read and disabled ("Phi SWA is
// currently disabled", PR #13676). Both cache every layer in full, as Mistral-7B-v0.2 (no window)
// logs 4096.00 MiB at 32768 cells (above); Gemma 2 keeps its window.
TEST_CASE("llama.cpp caches Mistral-7B-v0.1's and Phi-3's sliding layers in full; Gemma 2 slides its window",
          "[engine][llamacpp]") {
  const auto in = run(32768, CacheType::f16, CacheType::f16, true);
  const auto mistral = specs::load_model_preset("mistral-7b");
  REQUIRE(mistral.layer_attention(0) == specs::LayerAttention::sliding);  // the config's window 4096
  LlamaCppKv kv = llamacpp_kv(mistral, in);
  CHECK(kv.swa_layers == 0);
  CHECK(kv.base_layers == 32);
  CHECK(mib(kv.total()) == 4096.0);
  CHECK(kv.window_ignored.find("llama architecture") != std::string_view::npos);
  const auto phi3 = specs::load_model_preset("phi-3-mini");
  REQUIRE(phi3.layer_attention(0) == specs::LayerAttention::sliding);
  kv = llamacpp_kv(phi3, in);
  CHECK(kv.swa_layers == 0);
  CHECK(kv.window_ignored.find("Phi SWA is currently disabled") != std::string_view::npos);
  const auto gemma2 = specs::load_model_preset("gemma-2-2b");
  kv = llamacpp_kv(gemma2, in);
  CHECK(kv.swa_layers == 13);  // every other of 26 layers, from layer 0
  CHECK(kv.window_ignored.empty());
}

// llama.cpp --kv-unified (llama-kv-cache.cpp: n_stream = kv_unified ? 1 : n_seq_max;
// llama-kv-cache-iswa.cpp: size_swa = PAD(min(size_base, n_swa · (kv_unified ? n_seq_max : 1) +
// n_ubatch), 256)): the slots share one stream of all -c cells, and the window cache holds every
// slot's window in that one stream.
TEST_CASE("llama.cpp --kv-unified shares one cache of -c cells among the slots; the window cache holds every "
          "slot's window",
          "[engine][llamacpp]") {
  auto m = shape(4, 2304, 8, 2, 256, 9216, 256000);  // Gemma-2-like: every other layer slides 4096
  m.sliding_window = 4096;
  m.sliding_every = 2;
  auto in = run(32768, CacheType::f16, CacheType::f16, true);
  in.n_parallel = 4.0 * one;
  in.kv_unified = true;
  const LlamaCppKv kv = llamacpp_kv(m, in);
  CHECK(kv.streams == 1);
  CHECK(kv.n_ctx_seq == 32768);
  CHECK(kv.swa_cells == 16896);  // PAD(4096 · 4 + 512, 256)
  CHECK(kv.total().in(units::byte) == 2.0 * 32768 * 1024 * 2 + 2.0 * 16896 * 1024 * 2);
  in.n_parallel = 1.0 * one;
  CHECK_THROWS_WITH(llamacpp_kv(m, in), Catch::StartsWith("--kv-unified"));
}

TEST_CASE("llama.cpp engine refuses MLA (multi-head latent attention)", "[engine][llamacpp]") {
  auto m = shape(4, 512, 8, 8, 64, 1024, 1000);
  m.attention = specs::AttentionKind::mla;
  CHECK_THROWS_WITH(llamacpp_kv(m, run(4096, CacheType::f16, CacheType::f16, true)),
                    Catch::Contains("MLA"));
}

// ---- GGUF files read alone -------------------------------------------------------------------

namespace {

// A llama GGUF of 2 layers, D 64, 4 heads and 2 KV heads of 16, F 128, 32 tokens, untied head:
// F16 embeddings and head, Q8_0 projections, F32 norms.
std::string tiny_llama(bool extra_tensor = false) {
  napkin::test::GgufBuilder g;
  g.kv("general.architecture", STRING).str("llama");
  g.kv("llama.block_count", U32).u32(2);
  g.kv("llama.embedding_length", U32).u32(64);
  g.kv("llama.feed_forward_length", U32).u32(128);
  g.kv("llama.context_length", U32).u32(8192);
  g.kv("llama.attention.head_count", U32).u32(4);
  g.kv("llama.attention.head_count_kv", U32).u32(2);
  auto& tokens = g.kv("tokenizer.ggml.tokens", ARRAY).u32(STRING).u64(32);
  for (int i = 0; i < 32; ++i) tokens.str("t" + std::to_string(i));
  g.tensor("token_embd.weight", {64, 32}, F16, 4096);
  for (int l = 0; l < 2; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    g.tensor(b + "attn_norm.weight", {64}, F32, 256);
    g.tensor(b + "attn_q.weight", {64, 64}, Q8_0, 4352);   // 128 blocks × 34 B
    g.tensor(b + "attn_k.weight", {64, 32}, Q8_0, 2176);
    g.tensor(b + "attn_v.weight", {64, 32}, Q8_0, 2176);
    g.tensor(b + "attn_output.weight", {64, 64}, Q8_0, 4352);
    g.tensor(b + "ffn_norm.weight", {64}, F32, 256);
    g.tensor(b + "ffn_gate.weight", {64, 128}, Q8_0, 8704);
    g.tensor(b + "ffn_up.weight", {64, 128}, Q8_0, 8704);
    g.tensor(b + "ffn_down.weight", {128, 64}, Q8_0, 8704);
  }
  g.tensor("output_norm.weight", {64}, F32, 256);
  g.tensor("output.weight", {64, 32}, F16, 4096);
  if (extra_tensor) g.tensor("blk.0.attn_q.bias", {64}, F32, 256);
  return g.build();
}
// Tensor bytes: 4096 + 2 · (256 + 4352 + 2176 + 2176 + 4352 + 256 + 3 · 8704) + 256 + 4096.
constexpr std::uint64_t kTinyBytes = 4096 + 2 * (256 + 4352 + 2176 + 2176 + 4352 + 256 + 3 * 8704) + 256 + 4096;

std::string json_value(const std::string& out, const std::string& key) {
  const auto at = out.find("\"" + key + "\"");
  if (at == std::string::npos) return "";
  const auto v = out.find("\"value\":", at);
  return out.substr(v + 8, out.find_first_of(",}", v) - v - 8);
}

}  // namespace

TEST_CASE("a llama GGUF maps to a spec whose exact count equals its tensors (2 layers, 53,440 params)",
          "[engine][specs]") {
  napkin::test::TempDir dir;
  const auto path = dir / "tiny.gguf";
  napkin::test::write_file(path, tiny_llama());
  const specs::ModelSpec m = specs::model_from_gguf(specs::read_gguf(path), path);
  CHECK(m.layers == 2);
  CHECK(m.kv_heads == 2);
  CHECK(m.head_dim == 16);
  CHECK(m.vocab == 32);
  CHECK_FALSE(m.tied_embeddings);
  CHECK(m.max_context == 8192);
  // A tensor the family does not have: the counts differ and the file is refused.
  napkin::test::write_file(path, tiny_llama(true));
  CHECK_THROWS_WITH(specs::model_from_gguf(specs::read_gguf(path), path),
                    Catch::Contains("tiny.gguf: general.architecture llama read as model_type llama counts") &&
                        Catch::Contains("napkin refuses a GGUF it cannot map exactly"));
}

// Issue 35: a GGUF in the Hugging Face cache is a snapshot link to a blob; before, --plot naming
// the blob replaced the weights with the chart, exit 0 (main at 2d06da6).
TEST_CASE("a --plot naming the cached GGUF blob the run read through its snapshot link is refused", "[engine][cli]") {
  napkin::test::TempDir dir;
  const std::string hash = "89abcdef0123456789abcdef0123456789abcdef";
  const auto repo = dir / "hub" / "models--acme--tiny-gguf";
  std::filesystem::create_directories(repo / "refs");
  std::filesystem::create_directories(repo / "blobs");
  std::filesystem::create_directories(repo / "snapshots" / hash);
  napkin::test::write_file(repo / "refs" / "main", hash);
  const auto blob = repo / "blobs" / "5d1e0c7a";
  const std::string gguf = tiny_llama();
  napkin::test::write_file(blob, gguf);
  std::filesystem::create_symlink("../../blobs/5d1e0c7a", repo / "snapshots" / hash / "tiny.gguf");
  const std::string env = "HF_HUB_CACHE=" + (dir / "hub").string() + " ";
  auto r = napkin_test::run_shell(env + NAPKIN_BINARY + " memory acme/tiny-gguf --batch 1,2 >/dev/null 2>&1");
  REQUIRE(r.code == 0);
  r = napkin_test::run_shell(env + NAPKIN_BINARY + " memory acme/tiny-gguf --batch 1,2 --plot " + blob.string() + " 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: '" + blob.string() + "': is the input file '" +
                     (repo / "snapshots" / hash / "tiny.gguf").string() + "'; expected another file name\n");
  std::ifstream in(blob, std::ios::binary);
  const std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(after == gguf);
}

TEST_CASE("memory and serve take a GGUF alone: weights = its tensor bytes, KV from its metadata", "[engine][cli]") {
  napkin::test::TempDir dir;
  const auto path = dir / "tiny.gguf";
  napkin::test::write_file(path, tiny_llama());
  const std::string file = path.string();

  auto r = napkin_test::run_napkin("memory " + file + " --context 8192 --json");
  REQUIRE(r.code == 0);
  CHECK(json_value(r.out, "weights") == std::to_string(kTinyBytes));
  // 2 · L · H_kv · d_head · ctx · 2 B (bf16) = 2 · 2 · 2 · 16 · 8192 · 2
  CHECK(json_value(r.out, "kv_cache") == std::to_string(2 * 2 * 2 * 16 * 8192 * 2));
  CHECK(r.out.find("weights as stored in") != std::string::npos);

  r = napkin_test::run_napkin("memory " + file + " --context 8192 --engine llama.cpp --kv-dtype q8_0 --json");
  REQUIRE(r.code == 0);
  // llama.cpp keeps token_embd in host memory: the GPU's and the host's model buffers are the file's tensors.
  CHECK(std::stod(json_value(r.out, "weights")) + std::stod(json_value(r.out, "host_weights")) ==
        Approx(static_cast<double>(kTinyBytes)).epsilon(1e-12));
  CHECK(std::stod(json_value(r.out, "host_weights")) > 0.0);
  // 2 layers · 8192 cells · 2 · (32 / 32 · 34 B)
  CHECK(json_value(r.out, "kv_cache") == std::to_string(2 * 8192 * 2 * 34));

  r = napkin_test::run_napkin("serve " + file + " --hw h100-sxm --json");
  REQUIRE(r.code == 0);
  CHECK(json_value(r.out, "weights") == std::to_string(kTinyBytes));

  r = napkin_test::run_napkin("serve " + file + " --hw h100-sxm --engine llama.cpp --prompt 1000 --generate 24 --json");
  REQUIRE(r.code == 0);
  CHECK(json_value(r.out, "kv_cache") == std::to_string(2 * 1024 * 2 * 32 * 2));  // 1024 cells, f16
  CHECK(json_value(r.out, "compute_buffer") != "");

  r = napkin_test::run_napkin("train " + file + " --tokens 1M --hw h100-sxm --gpus 1 --mfu 0.4 --json");
  CHECK(r.code == 0);
}

// src/llama-context.cpp (mainline 2025-11): n_seq_max > LLAMA_MAX_SEQ (256) throws; n_batch =
// min(n_ctx, n_batch) before n_ctx is padded, n_ubatch = min(n_batch, n_ubatch); n_ctx_seq =
// PAD(n_ctx / n_seq_max, 256) after n_ctx is padded to 256, so never 0 within 256 slots.
TEST_CASE("llama.cpp refuses more than 256 slots and never gives a slot 0 cells", "[engine][llamacpp]") {
  const auto m = shape(4, 2048, 16, 4, 128, 8192, 32000);
  auto in = run(100, CacheType::f16, CacheType::f16, true);
  in.n_parallel = 257.0 * one;
  CHECK_THROWS_WITH(llamacpp_kv(m, in), Catch::Contains("at most 256 slots"));
  in.n_parallel = 256.0 * one;
  const LlamaCppKv kv = llamacpp_kv(m, in);
  CHECK(kv.n_ctx_seq == 256);  // PAD(256 / 256, 256)
  CHECK(kv.n_ctx == 65536);
  CHECK(kv.total() > Bytes{});
}

TEST_CASE("llama.cpp clamps the ubatch to n_batch = min(-c, 2048), and the compute buffer follows it",
          "[engine][llamacpp]") {
  const auto m = shape(4, 2048, 16, 4, 128, 8192, 32000);
  auto in = run(8192, CacheType::f16, CacheType::f16, true);
  in.n_ubatch = 4096.0 * one;
  LlamaCppKv kv = llamacpp_kv(m, in);
  CHECK(kv.n_batch == 2048);
  CHECK(kv.n_ubatch == 2048);
  const Bytes at_4096 = llamacpp_compute_buffer(m, in, kv).total();
  in.n_ubatch = 2048.0 * one;
  CHECK(llamacpp_compute_buffer(m, in, llamacpp_kv(m, in)).total() == at_4096);
  in.n_ctx = 100.0 * one;
  in.n_ubatch = 512.0 * one;
  kv = llamacpp_kv(m, in);
  CHECK(kv.n_batch == 100);
  CHECK(kv.n_ubatch == 100);
}

// common/common.h: common_params.n_ctx is an int32_t, filled from -c by std::stoi (common/arg.cpp),
// so llama.cpp refuses a -c past 2^31 − 1. napkin took any -c: --context 2^53 − 1 on a 65536-layer
// model, or serve's slots × (--prompt + --generate) of 256 × 2^53, overflowed the 64-bit
// cells × layers product (a negative KV cache).
TEST_CASE("llama.cpp refuses a -c past 2^31 - 1 (a 32-bit int), where cells times layers stay exact",
          "[engine][llamacpp]") {
  const auto m = shape(65536, 64, 4, 1, 16, 64, 100);
  auto in = run(9007199254740991.0, CacheType::f16, CacheType::f16, true);
  CHECK_THROWS_WITH(llamacpp_kv(m, in), "--context: '9007199254740991': expected at most 2147483647 cells over all "
                                        "slots (llama.cpp reads -c as a 32-bit int, common/common.h n_ctx; serve's -c "
                                        "is the slots times --prompt + --generate)");
  in.n_ctx = 2147483648.0 * one;
  CHECK_THROWS_WITH(llamacpp_kv(m, in), Catch::Contains("at most 2147483647 cells"));
  in.n_ctx = 2147483647.0 * one;
  in.n_parallel = 256.0 * one;
  const LlamaCppKv kv = llamacpp_kv(m, in);
  CHECK(kv.n_ctx_seq == 8388608);  // PAD(PAD(2^31 − 1, 256) / 256, 256) = 2^23
  CHECK(kv.n_ctx == 2147483648);
  // 65536 layers · 2^31 cells · 16 elements · 2 B, for K and for V
  CHECK(kv.k.in(units::byte) == 65536.0 * 2147483648.0 * 16 * 2);
  CHECK(kv.v == kv.k);
}

// ---- ggml-org CI (Tesla V100, Pythia-2.8B, gptneox: n_layer 32, n_embd 2560, 32 heads of 80, n_ff 10240,
// n_vocab 50304), data/engines/llamacpp.csv llamacpp-010 to -017 ------------------------------------------

// https://github.com/ggml-org/ci/blob/48aeaa5e61643792d6c9863545bafa3bd1584976/llama.cpp/4b/f3119d61c1de5660025fd5a611effe503e3d2b/ggml-4-x86-cuda-v100/pythia_2_8b-save-load-state.log
// (build 4572, 4bf3119d6, 2025-01-28): llama-save-load-state -ngl 99 -c 0 (n_ctx 2048, n_ubatch 512), f16
// cache, without and with -fa: "CUDA0 compute buffer size = 162.00 MiB" and "= 103.25 MiB", both with
// "CUDA_Host compute buffer size = 9.01 MiB" and "KV self size = 640.00 MiB".
TEST_CASE("Pythia-2.8B at 2048 cells (b4572): compute 162.00 MiB without flash attention, 103.25 MiB with it "
          "(the logits of 512 rows), host 9.01 MiB",
          "[engine][llamacpp]") {
  const auto m = shape(32, 2560, 32, 32, 80, 10240, 50304);
  auto in = run(2048, CacheType::f16, CacheType::f16, false, 4572);
  const LlamaCppKv kv = llamacpp_kv(m, in);
  CHECK(mib(kv.total()) == 640.0);
  LlamaCppCompute c = llamacpp_compute_buffer(m, in, kv);
  CHECK(c.peak() == "attention");
  CHECK(mib(c.scores) == 128.0);  // 32 heads · 2048 · 512 · 4 B
  // 128 + mask 4 + (2·2560 + 2·32·80) · 512 · 4 B = 20: 152 (gptneox's parallel residual keeps one more row)
  CHECK_THAT(mib(c.total()), Catch::Matchers::WithinRel(162.0, 0.25));
  CHECK(mib(c.host) == 9.0);  // 2560 · 512 · 4 B + 2048 · 512 · 4 B
  in.flash_attention = true;
  c = llamacpp_compute_buffer(m, in, kv);
  CHECK(c.peak() == "output");
  CHECK(mib(c.total()) == 103.25);  // (50304 + 2560) · 512 · 4 B, as logged
  CHECK(mib(c.host) == 9.0);        // the f32 mask before its cast: as logged
}

// ---- current builds (b9489 on) ------------------------------------------------------------------------------

// llama.cpp mainline from early June 2026 (src/llama-context.cpp sched_reserve: `n_outputs_pp =
// std::min(n_tokens, cparams.n_outputs_max)`, tools/server: n_outputs_max = the slots, PR #23861;
// src/llama-graph.cpp build_attn_inp_kq_mask: an f16 mask with flash attention; ggml-cuda/fattn.cu
// ggml_cuda_flash_attn_ext_get_alloc_size: the f16 copies of a quantized K and V in the attention output's
// allocation, b9489). Qwen3-8B (36 layers, n_embd 4096, 32 heads, 8 KV heads of 128, n_ff 12288) at -c 32768
// with q8_0/q8_0 and -fa on one CUDA GPU: attention (2·4096 + 2·4096) · 512 · 4 B = 32 MiB, mask
// 32768 · 512 · 2 B = 32 MiB, copies 32768 · 1024 · 2 B · 2 = 128 MiB: 192 MiB, the 192.09 MiB issue 29 quotes
// from a 2026 llama-server log (napkin had 304.75 MiB, the logits of 512 rows). llama.cpp's own allocator, run on
// this graph with the CPU backend (mainline 2026-08-18, whisper.cpp talk-llama sync 4834a2327), reserves
// 88.09 + 1 KiB per cell (feed-forward plus mask, no CUDA copies): 120.09 MiB at 32768 cells.
TEST_CASE("current llama-server builds: Qwen3-8B at -c 32768 q8_0 on CUDA reserves attention, f16 mask and "
          "flash attention's f16 K/V copies, 192 MiB; logits for one slot only",
          "[engine][llamacpp]") {
  const auto m = shape(36, 4096, 32, 8, 128, 12288, 151936);
  auto in = run(32768, CacheType::q8_0, CacheType::q8_0, true);
  const LlamaCppKv kv = llamacpp_kv(m, in);
  LlamaCppCompute c = llamacpp_compute_buffer(m, in, kv);
  CHECK(c.current);
  CHECK(c.outputs == 1.0);
  CHECK(mib(c.mask) == 32.0);
  CHECK(mib(c.fa_f16) == 128.0);
  CHECK(c.peak() == "attention");
  CHECK(mib(c.total()) == 192.0);
  CHECK_THAT(mib(c.total()), Catch::Matchers::WithinRel(192.09, 0.01));
  CHECK(mib(c.feed_forward) == 120.0);  // (2·4096 + 3·12288) · 512 · 4 B + 32: the allocator's 120.09
  CHECK(mib(c.host) == 48.0);           // 2 · 4096 · 512 · 4 B + the f16 mask: the allocator's CPU 48.09
  // An f16 cache needs no copies; Metal makes none in its compute buffer.
  in.type_k = in.type_v = CacheType::f16;
  CHECK(mib(llamacpp_compute_buffer(m, in, kv).total()) == 120.0);
  in.type_k = in.type_v = CacheType::q8_0;
  in.metal = true;
  CHECK(mib(llamacpp_compute_buffer(m, in, kv).total()) == 120.0);
  // A build before b9489 reserved the logits of every ubatch row and the f32 mask with its f16 copy.
  in.metal = false;
  in.build = 9000;
  c = llamacpp_compute_buffer(m, in, kv);
  CHECK_FALSE(c.current);
  CHECK(c.outputs == 512.0);
  CHECK(c.peak() == "output");
  CHECK(mib(c.total()) == 304.75);  // (151936 + 4096) · 512 · 4 B
  CHECK(mib(c.mask) == 96.0);       // 32768 · 512 · (4 + 2) B
  CHECK(mib(c.host) == 72.0);       // 4096 · 512 · 4 B + the f32 mask 64 MiB
}

// https://github.com/unslothai/unsloth/pull/6718 (danielhanchen, 2026-07-01), measured on the llama-server Unsloth
// Studio bundled then: "Measured Qwen3.5-4B at 256k: 1.30 GiB compute at q8_0 vs 0.31 GiB at f16". napkin
// refuses Qwen3.5 (its gated-delta-net layers are not modelled); its 8 full-attention layers (n_embd 2560, 16
// heads, 4 KV heads of 256, n_ff 9216, n_vocab 248320; tests/real-configs/qwen3.5-4b) carry the context-linear
// terms: the f16 mask 262144 · 512 · 2 B = 256 MiB and, with q8_0, the f16 K and V copies 262144 · 1024 · 2 B each.
TEST_CASE("current builds: Qwen3.5-4B's attention layers at 256k reserve 0.31 GiB with an f16 cache and 1.30 GiB "
          "with q8_0, as Unsloth measured",
          "[engine][llamacpp]") {
  const auto m = shape(8, 2560, 16, 4, 256, 9216, 248320);
  auto in = run(262144, CacheType::f16, CacheType::f16, true);
  const LlamaCppKv kv = llamacpp_kv(m, in);
  LlamaCppCompute c = llamacpp_compute_buffer(m, in, kv);
  CHECK(c.peak() == "feed-forward");
  CHECK(c.total().in(GiB) == 0.3125);  // 256 MiB mask + (2·2560 + 3·9216) · 512 · 4 B = 64 MiB
  CHECK_THAT(c.total().in(GiB), Catch::Matchers::WithinRel(0.31, 0.25));
  in.type_k = in.type_v = CacheType::q8_0;
  c = llamacpp_compute_buffer(m, in, kv);
  CHECK(c.peak() == "attention");
  CHECK(mib(c.fa_f16) == 1024.0);
  CHECK_THAT(c.total().in(GiB), Catch::Matchers::WithinRel(1.30, 0.05));  // 1.275
}

// llama.cpp's allocator on an MoE layer (build_moe_ffn): gate and up [F_e, k, n_tokens] are freed while the
// experts' down projections [D, k, n_tokens] are allocated, so those land past the hole when k·D > 2·k·F_e:
// Qwen3-30B-A3B (D 2048, k 8 of 768) reserves (2·2048 + 3·8·768 + 8·2048) · 512 · 4 B = 76 MiB (the allocator,
// mainline 2026-08-18 on the CPU backend, 84 MiB), gpt-oss-20b (D 2880, k 4 of 2880) 2·D + 3·k·F_e only.
TEST_CASE("an MoE layer's feed-forward counts k experts' D-wide outputs where they exceed the freed gate and up",
          "[engine][llamacpp]") {
  auto m = shape(4, 2048, 32, 4, 128, 0, 151936);
  m.moe.n_experts = 128;
  m.moe.experts_per_token = 8;
  m.moe.expert_ffn = 768;
  auto in = run(32768, CacheType::f16, CacheType::f16, true);
  LlamaCppKv kv = llamacpp_kv(m, in);
  LlamaCppCompute c = llamacpp_compute_buffer(m, in, kv);
  CHECK(mib(c.feed_forward - c.mask) == (2.0 * 2048 + 3 * 8 * 768 + 128 + 8 * 2048) * 512 * 4 / 1048576.0);
  m.hidden = 2880;
  m.moe.experts_per_token = 4;
  m.moe.expert_ffn = 2880;
  kv = llamacpp_kv(m, in);
  c = llamacpp_compute_buffer(m, in, kv);
  CHECK(mib(c.feed_forward - c.mask) == (2.0 * 2880 + 3 * 4 * 2880 + 128) * 512 * 4 / 1048576.0);
}

TEST_CASE("current llama-server builds reserve one logits row per slot; older builds the whole ubatch",
          "[engine][llamacpp]") {
  const auto m = shape(4, 2048, 16, 4, 128, 8192, 151936);
  auto in = run(8192, CacheType::f16, CacheType::f16, true);
  in.n_parallel = 4.0 * one;
  CHECK(llamacpp_compute_buffer(m, in, llamacpp_kv(m, in)).outputs == 4.0);
  in.build = kLlamaCppBuildOutputsPerSlot - 1;
  CHECK(llamacpp_compute_buffer(m, in, llamacpp_kv(m, in)).outputs == 512.0);
  in.build = kLlamaCppBuildOutputsPerSlot;
  CHECK(llamacpp_compute_buffer(m, in, llamacpp_kv(m, in)).outputs == 4.0);
}

// ---- data/engines/llamacpp.csv: every row evaluated ----------------------------------------------------------

namespace {

// One CSV row (docs: engine-csv.md) and what napkin makes of its args.
struct LogRow {
  std::string id, version, url, args, key, unit, quote;
  double logged = 0.0;
  // napkin's side: the model and run the args describe, or why they could not be evaluated.
  std::string refused;
  bool partial = false;    // --n-gpu-layers / --n-cpu-moe: a layout this model does not cover
  bool multi_gpu = false;  // the quote's compute buffer is one of several GPUs' under pipeline parallelism
  double napkin = 0.0;     // in the row's unit; NaN where napkin has no figure (weights: the CLI's)
};

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        out.back() += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      out.emplace_back();
    } else {
      out.back() += ch;
    }
  }
  return out;
}

// The args as `napkin memory` reads them, for the flags these rows use: a preset, a config path or the made-up
// decoder flags, and the llama.cpp run. --llama-cpp-build is the flag this table proposes (LlamaCppInput::build).
void evaluate(LogRow& r) {
  std::istringstream words(r.args);
  std::vector<std::string> a{std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
  specs::ModelSpec m;
  bool made_up = false;
  LlamaCppInput in;
  in.type_k = in.type_v = CacheType::f16;
  bool v_given = false;
  try {
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string& f = a[i];
      const auto next = [&]() -> const std::string& { return a.at(++i); };
      const auto count = [&]() { return std::stoll(next()); };
      if (f.rfind("--", 0) != 0) {
        m = f.find('/') != std::string::npos ? specs::read_hf_config(std::string(NAPKIN_SOURCE_DIR) + "/" + f)
                                             : specs::load_model_preset(f);
      } else if (f == "--layers") { made_up = true; m.layers = count();
      } else if (f == "--hidden") { m.hidden = count();
      } else if (f == "--heads") { m.heads = count();
      } else if (f == "--kv-heads") { m.kv_heads = count();
      } else if (f == "--head-dim") { m.head_dim = count();
      } else if (f == "--ffn") { m.ffn = count();
      } else if (f == "--vocab") { m.vocab = count();
      } else if (f == "--tied" || f == "--no-gated") {
      } else if (f == "--context") { in.n_ctx = static_cast<double>(count()) * one;
      } else if (f == "--ubatch") { in.n_ubatch = static_cast<double>(count()) * one;
      } else if (f == "--parallel") { in.n_parallel = static_cast<double>(count()) * one;
      } else if (f == "--kv-dtype") {
        in.type_k = parse_cache_type(next(), "--kv-dtype");
        if (!v_given) in.type_v = in.type_k;
      } else if (f == "--v-dtype") { in.type_v = parse_cache_type(next(), "--v-dtype"); v_given = true;
      } else if (f == "--no-flash-attention") { in.flash_attention = false;
      } else if (f == "--kv-unified") { in.kv_unified = true;
      } else if (f == "--swa-full") { in.swa_full = true;
      } else if (f == "--llama-cpp-build") { in.build = static_cast<int>(count());
      } else if (f == "--n-gpu-layers" || f == "--n-cpu-moe") { next(); r.partial = true;
      } else if (f == "--engine" || f == "--weights-dtype" || f == "--hw" || f == "--gpu-memory") { next();
      } else {
        r.refused = "unknown flag " + f;
        return;
      }
    }
    if (made_up) {
      m.name = "made-up";
      if (m.kv_heads == 0) m.kv_heads = m.heads;
      if (m.head_dim == 0) m.head_dim = m.hidden / m.heads;
      m.attention = specs::AttentionKind::gqa;
    }
    const LlamaCppKv kv = llamacpp_kv(m, in);
    const LlamaCppCompute c = llamacpp_compute_buffer(m, in, kv);
    const double unit = r.unit == "GiB" ? 1024.0 : 1.0;
    if (r.key == "kv_cache") r.napkin = mib(kv.total()) / unit;
    else if (r.key == "compute_buffer") r.napkin = mib(c.total()) / unit;
    else if (r.key == "host_compute_buffer") r.napkin = mib(c.host) / unit;
    else r.napkin = std::nan("");
  } catch (const std::exception& e) {
    r.refused = e.what();
  }
}

std::vector<LogRow> log_rows() {
  std::ifstream f(std::string(NAPKIN_SOURCE_DIR) + "/data/engines/llamacpp.csv");
  std::vector<LogRow> rows;
  std::string line;
  std::getline(f, line);  // header
  REQUIRE(line == "id,engine_version,date,url,args,key,logged,unit,quote");
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto v = csv_fields(line);
    REQUIRE(v.size() == 9);
    LogRow r;
    r.id = v[0];
    r.version = v[1];
    r.url = v[3];
    r.args = v[4];
    r.key = v[5];
    r.unit = v[7];
    r.quote = v[8];
    r.logged = std::stod(v[6]);
    r.multi_gpu = r.quote.find("pipeline parallel") != std::string::npos;
    evaluate(r);
    rows.push_back(r);
  }
  return rows;
}

bool compared(const LogRow& r) { return r.refused.empty() && !r.partial && !r.multi_gpu && !std::isnan(r.napkin); }

}  // namespace

// Acceptance for data/engines/llamacpp.csv: every KV figure napkin evaluates equals the log to the printed 0.01 MiB;
// the compute buffer is within 25% of the log on at least 90% of the full-offload, single-buffer rows. Rows with
// --n-gpu-layers (partial offload), pipeline-parallel GPUs, or a model napkin refuses are listed by the hidden
// "[.llamacpp_table]" test, not checked.
TEST_CASE("data/engines/llamacpp.csv: KV exact on every row, compute within 25% on 90% of full-offload rows",
          "[engine][llamacpp]") {
  const auto rows = log_rows();
  REQUIRE(rows.size() >= 45);
  int compute = 0, close = 0;
  for (const auto& r : rows) {
    if (!compared(r)) continue;
    INFO(r.id << " " << r.args << ": napkin " << r.napkin << " " << r.unit << ", logged " << r.logged);
    if (r.key == "kv_cache") CHECK(std::abs(r.napkin - r.logged) < 0.005);
    if (r.key == "compute_buffer") {
      ++compute;
      if (std::abs(r.napkin / r.logged - 1.0) <= 0.25) ++close;
    }
  }
  CHECK(compute >= 10);
  CHECK(close >= 0.9 * compute);
}

TEST_CASE("llama.cpp log table: napkin beside every row of data/engines/llamacpp.csv", "[.llamacpp_table]") {
  std::printf("| id | key | logged | napkin | napkin/logged | note |\n|---|---|---:|---:|---:|---|\n");
  for (const auto& r : log_rows()) {
    std::string note = !r.refused.empty() ? "refused: " + r.refused.substr(0, 90)
                       : r.partial        ? "partial offload (not modelled here)"
                       : r.multi_gpu      ? "pipeline-parallel GPU (not modelled)"
                       : std::isnan(r.napkin) ? "weights: see the CLI"
                                              : "";
    if (!r.refused.empty() || std::isnan(r.napkin))
      std::printf("| %s | %s | %.2f %s | - | - | %s |\n", r.id.c_str(), r.key.c_str(), r.logged, r.unit.c_str(),
                  note.c_str());
    else
      std::printf("| %s | %s | %.2f %s | %.2f | %.3f | %s |\n", r.id.c_str(), r.key.c_str(), r.logged, r.unit.c_str(),
                  r.napkin, r.napkin / r.logged, note.c_str());
  }
}
