// What llama.cpp allocates on a GPU for a model it runs whole on that GPU (-ngl 99): the model
// buffer, the KV cache buffer and the compute buffer its graph allocator reserves at start-up.
// The KV arithmetic is llama.cpp's own (mainline, 2025-11 onwards):
//   - n_ctx (-c) is padded to a multiple of 256 (src/llama-context.cpp:
//     `cparams.n_ctx = GGML_PAD(cparams.n_ctx, 256)`); with n_seq_max = -np slots and a split
//     (not unified) cache each slot gets n_ctx_seq = PAD(n_ctx / n_seq_max, 256) cells and n_ctx
//     becomes n_ctx_seq · n_seq_max;
//   - one K and one V tensor per attention layer, [n_embd_k_gqa, kv_size, n_stream]
//     (src/llama-kv-cache.cpp, n_stream = unified ? 1 : n_seq_max), so a layer takes
//     kv_size · n_stream · (row(type_k, n_embd_k_gqa) + row(type_v, n_embd_v_gqa)), with
//     row(t, n) = n / block(t) · bytes(t) (ggml.c type_traits: f32 4 B, f16 and bf16 2 B, q8_0
//     34 B per 32, q4_0 18/32, q4_1 20/32, q5_0 22/32, q5_1 24/32, iq4_nl 18/32);
//   - sliding-window (and chunked) layers get a cache of their own
//     (src/llama-kv-cache-iswa.cpp): size_swa = PAD(min(size_base, n_swa·(unified ? n_seq_max
//     : 1) + n_ubatch), 256) cells per stream, or size_base with --swa-full (the behaviour before
//     llama.cpp PR 13194).
// The compute buffer is a model, not llama.cpp's allocator: see llamacpp_compute_buffer.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "napkin/ground/result.h"
#include "napkin/ground/units.h"
#include "napkin/model/model_spec.h"

namespace napkin {

/// llama.cpp's KV cache types (common/arg.cpp kv_cache_types: -ctk/-ctv).
enum class CacheType { f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl };

/// "f16", "q8_0", ... as llama.cpp spells them (lower case; "fp16"/"bf16"/"fp32" accepted too).
/// Throws InputError naming `field` for anything else.
CacheType parse_cache_type(std::string_view text, std::string_view field);
std::string_view cache_type_name(CacheType t);
/// Elements per block and bytes per block (ggml.c type_traits .blck_size, .type_size).
std::int64_t cache_type_block(CacheType t);
std::int64_t cache_type_block_bytes(CacheType t);
/// ggml_row_size: bytes of `n` elements; InputError when n is not a whole number of blocks.
std::int64_t cache_row_bytes(CacheType t, std::int64_t n);

struct LlamaCppInput {
  Count n_ctx = 4096.0 * units::one;  // -c: cells over all slots, before padding
  Count n_parallel = 1.0 * units::one;  // -np: slots (n_seq_max); a split cache when > 1
  CacheType type_k = CacheType::f16;    // -ctk
  CacheType type_v = CacheType::f16;    // -ctv
  Count n_ubatch = 512.0 * units::one;  // -ub
  Count n_batch = 2048.0 * units::one;  // -b (llama-server's default; no napkin flag)
  bool flash_attention = true;          // -fa (mainline default "auto": on where the backend has kernels)
  bool swa_full = false;                // --swa-full
  bool kv_unified = false;              // --kv-unified: one cache stream the slots share (n_parallel > 1)
  // The model buffer, as the caller measured it (a GGUF's tensor bytes, or a dtype's arithmetic):
  // its formula, substituted text and the assumption naming it (all outlive the ResultSet).
  Bytes weights{};
  std::string_view weights_symbolic{}, weights_detail{}, weights_source{};
  // llama.cpp keeps the input layer (token_embd) in host memory with every layer offloaded
  // (src/llama-model.cpp load_tensors: "there is very little benefit to offloading the input
  // layer"); a tied output is loaded again on the GPU. When set, `weights` is the GPU's model
  // buffer and this the host's (the CPU_Mapped model buffer); 0: every tensor counted on the GPU.
  Bytes host_weights{};
  Bytes cuda_context = 512.0 * units::MiB;  // runtime_reserve: not a llama.cpp buffer
  // Apple silicon runs llama.cpp on Metal, which has no CUDA context: the reserve is then stated as
  // napkin's figure for the GPU runtime, not a measured Metal one.
  bool metal = false;
  // The llama.cpp build whose start-up graph reserve is modelled (the "build: N (commit)" line of its log):
  // 0, or any build from kLlamaCppBuildOutputsPerSlot on, is current mainline llama-server; an older build
  // reserves logits for the whole ubatch and keeps an f32 mask plus its f16 copy (llamacpp_compute_buffer).
  int build = 0;
  std::optional<Bytes> capacity{};
};

/// The KV cache llama.cpp allocates, split into K and V and into the full-attention (base) and
/// sliding-window caches.
struct LlamaCppKv {
  std::int64_t n_ctx = 0;       // after padding (and rounding to the slots)
  std::int64_t n_ctx_seq = 0;   // cells of one slot's stream
  std::int64_t n_batch = 0;     // min(-c, -b) as llama.cpp clamps it (causal models)
  std::int64_t n_ubatch = 0;    // min(n_batch, -ub): the ubatch the graph is reserved for
  std::int64_t streams = 1;     // n_stream
  std::int64_t base_layers = 0, swa_layers = 0;
  std::int64_t base_cells = 0;  // per stream
  std::int64_t swa_cells = 0;   // per stream (0 without sliding layers)
  std::int64_t window = 0;      // n_swa (the sliding window or the attention chunk)
  std::int64_t k_width = 0, v_width = 0;  // n_embd_k_gqa, n_embd_v_gqa
  Bytes k{}, v{};                          // over all layers and streams
  Bytes k_swa{}, v_swa{};                  // the part of k, v in the sliding-window cache
  // Non-empty where the config's sliding or chunked layers are cached in full because llama.cpp's
  // architecture for the model type applies no window (Mistral-7B-v0.1 as llama, Phi-3): why.
  std::string_view window_ignored;
  Bytes total() const { return k + v; }
};

/// Which of llama.cpp's caches a layer's K and V go to: none (no attention), the base cache of
/// every cell, or the sliding-window one (a sliding or chunked layer where llama.cpp's architecture
/// applies the window; elsewhere such a layer is cached in full).
enum class LlamaCppLayerCache { none, base, swa };
LlamaCppLayerCache llamacpp_layer_cache(const specs::ModelSpec& m, std::int64_t layer);

/// Throws InputError for what llama.cpp's KV arithmetic here does not cover: MLA (DeepSeek's
/// latent cache), Mamba layers, encoder-decoders, a bare parameter count; and for what llama.cpp
/// refuses: more than 256 slots (LLAMA_MAX_SEQ), an n_ctx past 2^31 − 1 (-c is a 32-bit int). The
/// ubatch is clamped as llama.cpp clamps it.
LlamaCppKv llamacpp_kv(const specs::ModelSpec& m, const LlamaCppInput& in);

/// The first llama.cpp build whose reserve follows the current model: b9489 (CUDA: "reserve space for
/// quantized KV cache at startup", flash attention's f16 copies of a quantized K/V counted in the compute
/// buffer, ggml-cuda/fattn.cu ggml_cuda_flash_attn_ext_get_alloc_size). The two other changes it is
/// grouped with landed in the same fortnight of late May / early June 2026 (both absent from whisper.cpp's
/// llama.cpp sync 865ec171a of 2026-05-25 and present in 84bd03a43 of 2026-06-08): PR #23861 (llama-server
/// reserves logits for its slots, not the ubatch: n_outputs_max) and the f16 flash-attention mask
/// (llama-graph.cpp build_attn_inp_kq_mask). Builds b9300-b9488 may mix the two models.
inline constexpr int kLlamaCppBuildOutputsPerSlot = 9489;

/// The compute buffers of llama.cpp's worst-case graph reserve (llama-context.cpp sched_reserve:
/// n_ubatch tokens, n_kv = one stream's full cache), every intermediate in f32 (4 B), with every layer
/// on the GPU. The GPU buffer is modelled as the largest of three moments plus the masks, which are
/// inputs copied to the GPU at the start of the split and freed only after the last layer's attention
/// (ggml-backend.cpp split inputs; ggml-alloc.c frees a tensor after its last child):
///   masks: one [n_kv, n_ubatch] mask per cache (full and sliding-window); current builds create it in
///     f16 with flash attention (2 B) and f32 without (4 B); older builds create it in f32 and, with
///     flash attention, cast it to f16 on the GPU as well (4 + 2 B);
///   attention: (2·D + 2·H·d_head) · n_ubatch (residual, normed input or Q, Q, the attention output);
///     without flash attention plus the scores H · n_kv · n_ubatch (the softmax runs in place on them);
///     with it on CUDA in current builds plus the f16 copies flash attention makes of a quantized K and
///     V (n_kv · n_embd_kv · 2 B each, the cache's cells over all streams);
///   feed-forward: (2·D + 3·F) · n_ubatch (residual, normed input, gate, up, product), F the dense
///     width or k experts' widths plus a shared expert; an MoE layer adds the k experts' D-wide down
///     outputs where they exceed the freed gate and up (k·D > 2·k·F_expert, allocator fragmentation);
///   output: the logits V and the final norm D per output row: n_ubatch rows in older builds,
///     llama-server's slots (n_outputs_max = -np, PR #23861) in current ones.
/// The host (CUDA_Host) compute buffer holds the token-embedding rows (D · n_ubatch, twice in current
/// builds) and the masks before their copy to the GPU. Checked against llama.cpp's own allocator run
/// on the model graphs of mainline 2026-08 (whisper.cpp talk-llama sync 4834a2327) and against start-up
/// logs (tests/engine_llamacpp_test.cpp, data/engines/llamacpp.csv). Not counted: graph-splitting
/// copies of partial offload, allocator alignment (< 0.1 MiB) and fragmentation beyond the MoE rule.
struct LlamaCppCompute {
  Bytes attention{}, feed_forward{}, output{};  // the three moments, masks included
  Bytes scores{}, mask{};  // parts of every moment but output: scores (attention only) and the masks
  Bytes fa_f16{};          // part of `attention`: CUDA flash attention's f16 copies of a quantized K/V
  Bytes logits{};          // part of `output`
  Bytes host{};            // the CUDA_Host compute buffer (not on the GPU)
  double outputs = 0.0;    // output rows the graph is reserved for
  bool current = true;     // the current reserve (build 0 or >= kLlamaCppBuildOutputsPerSlot)
  Bytes total() const;
  std::string_view peak() const;  // "attention", "feed-forward" or "output"
};
LlamaCppCompute llamacpp_compute_buffer(const specs::ModelSpec& m, const LlamaCppInput& in, const LlamaCppKv& kv);

/// The run's settings as the ResultSet's inputs (engine, context, parallel, ubatch, kv_dtype,
/// v_dtype, flash_attention, swa_full, kv_unified).
void llamacpp_inputs(const LlamaCppInput& in, ResultSet& out);

/// The ledger (keys weights, kv_cache, compute_buffer, runtime_reserve, per_gpu, total; fits and
/// headroom with a capacity), its inputs and assumptions.
void llamacpp_memory(const specs::ModelSpec& m, const LlamaCppInput& in, ResultSet& out);

/// Replaces the engine-neutral ledger rows a serve ResultSet holds (weights, kv_cache,
/// activations, runtime_reserve, per_gpu, fits, headroom, max_batch and the memory_ledger
/// assumption) by llama.cpp's ledger.
void llamacpp_serve_ledger(const specs::ModelSpec& m, const LlamaCppInput& in, ResultSet& out);

}  // namespace napkin
