// llama.cpp's start-up allocation (include/napkin/engines/llamacpp.h states the model and cites
// the sources). Every byte count is an exact integer: the KV buffer is compared with llama.cpp's
// own log lines ("llama_kv_cache: size = 4096.00 MiB ..., K (f16): 2048.00 MiB, V (f16): 2048.00
// MiB") to the byte in tests/engine_llamacpp_test.cpp.
#include "napkin/engines/llamacpp.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/context_limit.h"
#include "napkin/model/ggml_types.h"

namespace napkin {

namespace {

using units::byte;
using units::one;
using i64 = std::int64_t;

struct CacheTypeInfo {
  CacheType type;
  std::string_view name;
  std::uint32_t ggml;  // its ggml type (napkin/model/ggml_types.h: elements and bytes per block)
  i64 block() const { return static_cast<i64>(find_ggml_type(ggml)->block); }
  i64 bytes() const { return static_cast<i64>(find_ggml_type(ggml)->bytes); }
};

// The cache types llama.cpp accepts for -ctk/-ctv are common/arg.cpp kv_cache_types; their
// blocks are ggml's (napkin/model/ggml_types.h).
constexpr std::array<CacheTypeInfo, 9> kCacheTypes = {{
    {CacheType::f32, "f32", 0},
    {CacheType::f16, "f16", 1},
    {CacheType::bf16, "bf16", 30},
    {CacheType::q8_0, "q8_0", 8},
    {CacheType::q4_0, "q4_0", 2},
    {CacheType::q4_1, "q4_1", 3},
    {CacheType::q5_0, "q5_0", 6},
    {CacheType::q5_1, "q5_1", 7},
    {CacheType::iq4_nl, "iq4_nl", 20},
}};

const CacheTypeInfo& info(CacheType t) {
  for (const auto& i : kCacheTypes)
    if (i.type == t) return i;
  return kCacheTypes[1];
}

// GGML_PAD(x, n): x rounded up to a multiple of n.
constexpr i64 pad(i64 x, i64 n) { return (x + n - 1) / n * n; }
// llama-context.cpp pads n_ctx (and n_ctx_seq) to 256; llama-kv-cache-iswa.cpp pads the
// sliding-window cache to 256 too ("always padded to 256 for performance", llama.cpp issue 17037).
constexpr i64 kCtxPad = 256;
constexpr double kF32 = 4.0;  // every intermediate of the graph is f32
constexpr i64 kMaxSeq = 256;  // LLAMA_MAX_SEQ (src/llama-cparams.h)
// common/common.h: common_params.n_ctx is an int32_t, which common/arg.cpp fills from -c with
// std::stoi: llama.cpp refuses a -c past 2^31 − 1. Below it every cell count times the layers
// (at most 2^16) stays far inside a 64-bit integer.
constexpr double kMaxCtx = 2147483647.0;
// The ubatch range of the start-up logs the compute-buffer model was checked against
// (tests/engine_llamacpp_test.cpp: n_ubatch 256 and 512); outside it the figure is an extrapolation.
constexpr i64 kCalibratedUbatchLow = 256, kCalibratedUbatchHigh = 512;

i64 as_int(Count c) { return static_cast<i64>(c.in(one)); }

}  // namespace

CacheType parse_cache_type(std::string_view text, std::string_view field) {
  std::string t(text);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (t == "fp16" || t == "float16") t = "f16";
  if (t == "fp32" || t == "float32") t = "f32";
  if (t == "bfloat16") t = "bf16";
  for (const auto& i : kCacheTypes)
    if (i.name == t) return i.type;
  throw InputError(std::string(field), std::string(text),
                   "a llama.cpp cache type: f16, bf16, f32, q8_0, q4_0, q4_1, q5_0, q5_1 or iq4_nl");
}

std::string_view cache_type_name(CacheType t) { return info(t).name; }
std::int64_t cache_type_block(CacheType t) { return info(t).block(); }
std::int64_t cache_type_block_bytes(CacheType t) { return info(t).bytes(); }

std::int64_t cache_row_bytes(CacheType t, std::int64_t n) {
  const CacheTypeInfo& i = info(t);
  if (n % i.block() != 0)
    throw InputError(std::string(i.name) + " cache: a K or V row of " + std::to_string(n) +
                     " elements is not a whole number of " + std::to_string(i.block()) +
                     "-element blocks; llama.cpp refuses this cache type for this model");
  return n / i.block() * i.bytes();
}

namespace {

// Whether llama.cpp applies the sliding window (or attention chunk) the config gives this model
// type: only the architectures whose load_hparams sets swa_type (llama.cpp src/models/<arch>.cpp at
// 6c8dcaa, b10256; src/llama-model.cpp load_hparams at a95a11e): gemma2, gemma3, gemma3n,
// gemma4, cohere2, llama4 (chunked), openai-moe (gpt-oss), exaone4 with 64 layers, olmo2 (OLMo 2
// and 3), afmoe, lfm2. Every other architecture caches every layer in full: llama (which
// convert_hf_to_gguf.py makes of MistralForCausalLM, writing no window), phi3 (its window is read,
// then disabled: "Phi SWA is currently disabled", PR #13676), qwen2, starcoder2, mistral3 read
// none. Empty: llama.cpp applies it (or the spec names no model type); else why not.
std::string_view window_ignored(const specs::ModelSpec& m) {
  static constexpr std::string_view kApplies[] = {"gemma2", "gemma3_text", "gemma3n_text", "gemma4_text", "cohere2",
                                                   "llama4_text", "gpt_oss", "olmo2", "olmo3", "afmoe", "lfm2"};
  const std::string& t = m.model_type.empty() ? m.family : m.model_type;
  if (t.empty() || std::find(std::begin(kApplies), std::end(kApplies), t) != std::end(kApplies)) return {};
  if (t == "exaone4")
    return m.layers == 64 ? std::string_view{}
                          : "llama.cpp slides exaone4's window only with 64 layers (src/models/exaone4.cpp)";
  if (t == "phi3")
    return "llama.cpp reads Phi-3's sliding_window and disables it (\"Phi SWA is currently disabled\", "
           "src/models/phi3.cpp, PR #13676)";
  if (t == "llama" || t == "mistral")
    return "llama.cpp runs this as its llama architecture, which reads no sliding window (src/models/llama.cpp; "
           "convert_hf_to_gguf.py writes none for LlamaForCausalLM or MistralForCausalLM)";
  return "llama.cpp's architecture for this model type sets no sliding window (src/models/<arch>.cpp load_arch_hparams)";
}

}  // namespace

LlamaCppLayerCache llamacpp_layer_cache(const specs::ModelSpec& m, std::int64_t layer) {
  const specs::LayerAttention a = m.layer_attention(layer);
  if (a == specs::LayerAttention::none) return LlamaCppLayerCache::none;
  if (a == specs::LayerAttention::full || !window_ignored(m).empty()) return LlamaCppLayerCache::base;
  return LlamaCppLayerCache::swa;  // sliding or chunked, where llama.cpp applies the window
}

LlamaCppKv llamacpp_kv(const specs::ModelSpec& m, const LlamaCppInput& in) {
  if (m.count_only())
    throw InputError("--engine", "llama.cpp", "a model architecture (MODEL), not a bare --params count");
  specs::refuse_encoder_decoder(m, "--engine llama.cpp");
  specs::refuse_mamba_layers(m, "llama.cpp's recurrent-state cache is not modelled");
  specs::refuse_unmodelled_layers(m, "llama.cpp's recurrent-state and indexer caches are not modelled");
  if (m.attention == specs::AttentionKind::mla)
    throw InputError((m.name.empty() ? std::string("MODEL") : m.name) +
                     ": multi-head latent attention (MLA); llama.cpp's MLA cache is not modelled, expected a model "
                     "with full K and V heads");
  require_positive_integer(in.n_ctx, "--context");
  require_positive_integer(in.n_parallel, "--parallel");
  require_positive_integer(in.n_ubatch, "--ubatch");
  if (in.n_ctx.in(one) > kMaxCtx)
    throw InputError("--context", format_plain_number(in.n_ctx.in(one)),
                     "at most 2147483647 cells over all slots (llama.cpp reads -c as a 32-bit int, common/common.h "
                     "n_ctx; serve's -c is the slots times --prompt + --generate)");

  LlamaCppKv kv;
  const i64 n_seq = as_int(in.n_parallel);
  // src/llama-context.cpp: `if (cparams.n_seq_max > LLAMA_MAX_SEQ) throw std::runtime_error("n_seq_max
  // must be <= " ...)`, LLAMA_MAX_SEQ 256 (src/llama-cparams.h).
  if (n_seq > kMaxSeq)
    throw InputError("--parallel", std::to_string(n_seq),
                     "at most 256 slots (llama.cpp: n_seq_max must be <= LLAMA_MAX_SEQ, 256)");
  // src/llama-context.cpp, before n_ctx is padded: `cparams.n_batch = causal_attn ? min(n_ctx,
  // n_batch) : n_batch; cparams.n_ubatch = min(n_batch, n_ubatch)`; n_batch is llama-server's
  // default -b 2048 (common/common.h).
  kv.n_batch = std::min(as_int(in.n_ctx), as_int(in.n_batch));
  kv.n_ubatch = std::min(kv.n_batch, as_int(in.n_ubatch));
  kv.n_ctx = pad(as_int(in.n_ctx), kCtxPad);
  kv.n_ctx_seq = kv.n_ctx;
  if (in.kv_unified && n_seq <= 1)
    throw InputError("--kv-unified", "(with --parallel 1)",
                     "--parallel 2 or more (one slot's cache is the whole cache already)");
  if (n_seq > 1 && !in.kv_unified) {
    // A split cache (llama-server with an explicit -np): one stream per slot.
    kv.n_ctx_seq = pad(kv.n_ctx / n_seq, kCtxPad);  // ≥ 256: n_ctx ≥ 256 ≥ n_seq (llama.cpp throws on 0)
    kv.n_ctx = kv.n_ctx_seq * n_seq;
    kv.streams = n_seq;
  }
  kv.base_cells = kv.n_ctx_seq;
  bool sliding = false, chunked = false;
  const std::string_view ignored = window_ignored(m);
  for (i64 l = 0; l < m.layers; ++l) {
    const specs::LayerAttention a = m.layer_attention(l);
    const LlamaCppLayerCache cache = llamacpp_layer_cache(m, l);
    if (cache == LlamaCppLayerCache::base && a != specs::LayerAttention::full) kv.window_ignored = ignored;
    if (cache == LlamaCppLayerCache::base) ++kv.base_layers;
    if (cache == LlamaCppLayerCache::swa) {
      ++kv.swa_layers;
      (a == specs::LayerAttention::sliding ? sliding : chunked) = true;
    }
  }
  if (sliding && chunked)
    throw InputError(m.name + ": both sliding-window and chunked layers; llama.cpp's cache has one window size");
  if (kv.swa_layers > 0) {
    kv.window = sliding ? m.sliding_window : m.attention_chunk;
    // llama-kv-cache-iswa.cpp: PAD(min(size_base, n_swa·(unified ? n_seq_max : 1) + n_ubatch), 256).
    kv.swa_cells = in.swa_full ? kv.n_ctx_seq
                               : pad(std::min(kv.n_ctx_seq, kv.window * (in.kv_unified ? n_seq : 1) + kv.n_ubatch),
                                     kCtxPad);
  }
  kv.k_width = m.kv_heads * m.head_dim;
  kv.v_width = m.kv_heads * m.head_dim;
  const double row_k = static_cast<double>(cache_row_bytes(in.type_k, kv.k_width));
  const double row_v = static_cast<double>(cache_row_bytes(in.type_v, kv.v_width));
  const double base = static_cast<double>(kv.base_layers * kv.base_cells * kv.streams);
  const double swa = static_cast<double>(kv.swa_layers * kv.swa_cells * kv.streams);
  kv.k_swa = swa * row_k * byte;
  kv.v_swa = swa * row_v * byte;
  kv.k = base * row_k * byte + kv.k_swa;
  kv.v = base * row_v * byte + kv.v_swa;
  return kv;
}

Bytes LlamaCppCompute::total() const { return std::max({attention, feed_forward, output}); }

std::string_view LlamaCppCompute::peak() const {
  const Bytes t = total();
  return t == attention ? "attention" : t == output ? "output" : "feed-forward";
}

LlamaCppCompute llamacpp_compute_buffer(const specs::ModelSpec& m, const LlamaCppInput& in, const LlamaCppKv& kv) {
  const double ub = static_cast<double>(kv.n_ubatch);
  const double d = static_cast<double>(m.hidden), h = static_cast<double>(m.heads);
  const double dh = static_cast<double>(m.head_dim);
  LlamaCppCompute c;
  c.current = in.build <= 0 || in.build >= kLlamaCppBuildOutputsPerSlot;
  // The masks: llama-graph.cpp build_attn_inp_kq_mask, one [n_kv, n_tokens/n_stream, 1, n_stream] input per
  // cache (n_kv = one stream's cells, so n_kv · n_ubatch elements). Current builds create it as `cparams.flash_attn
  // ? GGML_TYPE_F16 : GGML_TYPE_F32`; before, it was always f32 and flash attention added
  // `ggml_cast(ctx0, self_kq_mask, GGML_TYPE_F16)`, a GPU node alive until the last layer.
  const double gpu_mask_bytes = in.flash_attention ? (c.current ? 2.0 : kF32 + 2.0) : kF32;
  const double host_mask_bytes = in.flash_attention && c.current ? 2.0 : kF32;
  double mask_cells = 0.0;
  if (kv.base_layers > 0) mask_cells += static_cast<double>(kv.base_cells);
  if (kv.swa_layers > 0) mask_cells += static_cast<double>(kv.swa_cells);
  c.mask = mask_cells * ub * gpu_mask_bytes * byte;
  // The longest cache one stream attends over: the full-attention layers', else the window's.
  const double n_kv = static_cast<double>(kv.base_layers > 0 ? kv.base_cells : kv.swa_cells);
  c.scores = in.flash_attention ? Bytes{} : h * n_kv * ub * kF32 * byte;
  // ggml-cuda/fattn.cu (b9489 on): the MMA and tile kernels a ubatch runs need f16 K and V; a K or V of any
  // other type is converted into space ggml_cuda_flash_attn_ext_get_alloc_size adds to the attention output's
  // allocation: ggml_nelements(K) · 2 B, the view of one layer's cache over all streams.
  if (in.flash_attention && c.current && !in.metal) {
    const auto copies = [&](i64 cells) {
      const double all = static_cast<double>(cells * kv.streams);
      return all * ((in.type_k != CacheType::f16 ? static_cast<double>(kv.k_width) : 0.0) +
                    (in.type_v != CacheType::f16 ? static_cast<double>(kv.v_width) : 0.0)) * 2.0;
    };
    double worst = 0.0;
    if (kv.base_layers > 0) worst = std::max(worst, copies(kv.base_cells));
    if (kv.swa_layers > 0) worst = std::max(worst, copies(kv.swa_cells));
    c.fa_f16 = worst * byte;
  }
  const Bytes layer = (2.0 * d + 2.0 * h * dh) * ub * kF32 * byte;
  c.attention = layer + c.scores + c.fa_f16 + c.mask;
  // The widest feed-forward block: dense F, or k routed experts (plus shared ones) and the router.
  double f = 0.0;
  for (i64 l = 0; l < m.layers; ++l) {
    double w = 0.0;
    if (m.layer_ffn(l) == specs::LayerFfn::dense) {
      w = 3.0 * static_cast<double>(m.ffn);
    } else if (m.layer_ffn(l) == specs::LayerFfn::moe) {
      const double k = static_cast<double>(m.moe.experts_per_token);
      const double fe = static_cast<double>(m.moe.expert_ffn);
      w = 3.0 * (k * fe + static_cast<double>(m.moe.n_shared_experts) * fe + static_cast<double>(m.moe.shared_ffn)) +
          static_cast<double>(m.moe.n_experts);  // the router's logits
      // build_moe_ffn: the experts' down projections, [D, k, n_tokens], are allocated while gate and up
      // [F_e, k, n_tokens] are the only holes freed: they land past them when k·D > 2·k·F_e.
      if (d > 2.0 * fe) w += k * d;
    }
    f = std::max(f, w);
  }
  c.feed_forward = (2.0 * d + f) * ub * kF32 * byte + c.mask;
  // llama-context.cpp sched_reserve: `n_outputs_pp = std::min(n_tokens, cparams.n_outputs_max)`, which
  // llama-server sets to its slots (server-context.cpp server_output_limits, PR #23861); older builds reserved
  // `graph_reserve(n_tokens, n_seqs, n_tokens, ...)`: every token of the ubatch an output.
  c.outputs = c.current ? std::min(ub, std::floor(in.n_parallel.in(one))) : ub;
  c.logits = static_cast<double>(m.vocab) * c.outputs * kF32 * byte;
  c.output = c.logits + d * c.outputs * kF32 * byte;
  // The CUDA_Host buffer: the input tokens' embedding rows (get_rows on the CPU-held token embedding, D · n_ubatch
  // f32; current builds hold a second D · n_ubatch input) and every mask before its copy to the GPU.
  c.host = ((c.current ? 2.0 : 1.0) * d * ub * kF32 + mask_cells * ub * host_mask_bytes) * byte;
  return c;
}

namespace {

// `reserve_key`: the runtime reserve's assumption key: "cuda_context" where --cuda-context sets it
// (memory), "llamacpp_runtime_reserve" where no flag does (serve).
void ledger_rows(const specs::ModelSpec& m, const LlamaCppInput& in, ResultSet& out, std::string_view reserve_key) {
  const LlamaCppKv kv = llamacpp_kv(m, in);
  // llama.cpp warns "n_ctx_seq (...) > n_ctx_train (...) -- possible training context overflow"
  // (src/llama-context.cpp) and runs: a warning here too, on the context one slot asked for.
  check_trained_context(m, std::floor(in.n_ctx.in(one) / in.n_parallel.in(one)), "--context per slot", out);
  const LlamaCppCompute c = llamacpp_compute_buffer(m, in, kv);
  const std::string_view tk = cache_type_name(in.type_k), tv = cache_type_name(in.type_v);
  const Bytes row_k = static_cast<double>(cache_row_bytes(in.type_k, kv.k_width)) * byte;
  const Bytes row_v = static_cast<double>(cache_row_bytes(in.type_v, kv.v_width)) * byte;
  const double base_cells = static_cast<double>(kv.base_cells * kv.streams);
  const double swa_cells = static_cast<double>(kv.swa_cells * kv.streams);

  if (in.host_weights > Bytes{})
    out.item("weights", "weights on the GPU (model buffer)", value(in.weights),
             "the tensors but token_embd, which stays in host memory (a tied output is loaded again)",
             text("{} ({})", in.weights, in.weights_detail));
  else
    out.item("weights", "weights (model buffer)", value(in.weights), in.weights_symbolic, text("{}", in.weights_detail));
  if (kv.swa_layers > 0)
    out.item("kv_cache", "KV cache buffer", value(kv.total()),
             "Σ_layers cells · (row_K + row_V), sliding layers in a cache of their own",
             text("{} full layers · {} cells + {} sliding layers · {} cells, row_K {} ({}), row_V {} ({}): K {} + V {}",
                  static_cast<double>(kv.base_layers), base_cells, static_cast<double>(kv.swa_layers), swa_cells,
                  row_k, tk, row_v, tv, kv.k, kv.v));
  else
    out.item("kv_cache", "KV cache buffer", value(kv.total()), "L · cells · (row_K + row_V)",
             text("{} layers · {} cells · ({} ({}) + {} ({})) = K {} + V {}", static_cast<double>(kv.base_layers),
                  base_cells, row_k, tk, row_v, tv, kv.k, kv.v));
  if (in.flash_attention)
    out.item("compute_buffer", "compute buffer", value(c.total()),
             "max(attention, feed-forward, output) · 4 B, masks included",
             text("max({} attention (masks {}, f16 K/V copies {}), {} feed-forward, {} output (logits {} for {} rows)) "
                  "at ubatch {}",
                  c.attention, c.mask, c.fa_f16, c.feed_forward, c.output, c.logits, c.outputs,
                  static_cast<double>(kv.n_ubatch)));
  else
    out.item("compute_buffer", "compute buffer", value(c.total()),
             "max(attention, feed-forward, output) · 4 B, masks included",
             text("max({} attention (scores H·n_kv·ubatch {}, masks {}), {} feed-forward, {} output (logits {} for {} "
                  "rows)) at ubatch {}",
                  c.attention, c.scores, c.mask, c.feed_forward, c.output, c.logits, c.outputs,
                  static_cast<double>(kv.n_ubatch)));
  out.item("runtime_reserve", "runtime reserve", value(in.cuda_context),
           in.metal ? "GPU runtime reserve (Metal; not a llama.cpp buffer)" : "CUDA context (not a llama.cpp buffer)",
           text("{}", in.cuda_context));
  const Bytes per_gpu = in.weights + kv.total() + c.total() + in.cuda_context;
  out.item("per_gpu", "per GPU", value(per_gpu), "sum of the rows above",
           text("{} + {} + {} + {}", in.weights, kv.total(), c.total(), in.cuda_context))
      .is_total = true;
  out.item("total", "all GPUs", value(per_gpu), "one GPU", text("every layer offloaded to one GPU (-ngl 99)"));
  if (in.capacity) fit_items(per_gpu, *in.capacity, out);
  out.item("kv_cells", "KV cells (n_ctx after padding)", value(static_cast<double>(kv.n_ctx)),
           "PAD(n_ctx, 256), per slot PAD(n_ctx / np, 256)",
           text("{} slot(s) of {} cells", static_cast<double>(kv.streams), static_cast<double>(kv.n_ctx_seq)));

  out.item("host_compute_buffer", "host compute buffer (CUDA_Host, not on the GPU)", value(c.host),
           "embedding rows D·ubatch·4 B + masks (not in per_gpu)",
           text("{} at ubatch {}", c.host, static_cast<double>(kv.n_ubatch)));
  if (in.host_weights > Bytes{})
    out.item("host_weights", "weights in host memory (token_embd)", value(in.host_weights),
             "token_embd: the input layer stays on the CPU (not in per_gpu)", text("{}", in.host_weights));

  out.assume("llamacpp_engine",
             text("llama.cpp's buffers (mainline, 2025-11 on): the model buffer, the KV cache buffer and the compute "
                  "buffer its graph allocator reserves, all on one GPU"));
  if (in.kv_unified)
    out.assume("llamacpp_context",
               text("-c {} shared by {} slots (--kv-unified: one stream of {} cells, each slot may fill all of it; "
                    "the sliding-window cache holds window · {} + ubatch)",
                    in.n_ctx, in.n_parallel.in(one), static_cast<double>(kv.n_ctx_seq), in.n_parallel.in(one)));
  else
    out.assume("llamacpp_context",
             text(kv.streams > 1 ? "-c {} is the total over {} slots (llama-server -np {}: one stream of {} cells per "
                                   "slot, n_ctx padded to 256 per slot)"
                                 : "-c {} over {} slot(s) (np {}): {} cells, n_ctx padded to a multiple of 256",
                  in.n_ctx, static_cast<double>(kv.streams), static_cast<double>(kv.streams),
                  static_cast<double>(kv.n_ctx_seq)));
  out.assume("kv_dtype", text("K cache in {} ({} B per {} elements, ggml.c type_traits)", tk,
                              static_cast<double>(cache_type_block_bytes(in.type_k)),
                              static_cast<double>(cache_type_block(in.type_k))));
  out.assume("llamacpp_v_dtype", text("V cache in {} ({} B per {} elements)", tv,
                                      static_cast<double>(cache_type_block_bytes(in.type_v)),
                                      static_cast<double>(cache_type_block(in.type_v))));
  if (!kv.window_ignored.empty())
    out.assume("llamacpp_swa", text("every layer caches all {} cells: the config's sliding window is not applied; {}",
                                    static_cast<double>(kv.n_ctx_seq), kv.window_ignored));
  if (kv.swa_layers > 0)
    out.assume("llamacpp_swa",
               text(in.swa_full ? "sliding layers cache all {} cells (--swa-full: llama.cpp before PR 13194)"
                                : "sliding layers keep PAD(min(n_ctx_seq, window {} + ubatch), 256) cells per slot "
                                  "(llama-kv-cache-iswa.cpp)",
                    in.swa_full ? static_cast<double>(kv.n_ctx_seq) : static_cast<double>(kv.window)));
  if (static_cast<double>(kv.n_ubatch) < in.n_ubatch.in(one))
    out.assume("llamacpp_ubatch",
               text("the graph is reserved for a ubatch of {} tokens: --ubatch {} clamped as "
                    "llama.cpp clamps it, n_ubatch = min(n_batch, -ub) with n_batch = min(-c {}, -b 2048)",
                    static_cast<double>(kv.n_ubatch), in.n_ubatch, in.n_ctx));
  else
    out.assume("llamacpp_ubatch",
               text("the graph is reserved for a ubatch of {} tokens", in.n_ubatch));
  if (kv.n_ubatch < kCalibratedUbatchLow || kv.n_ubatch > kCalibratedUbatchHigh)
    out.warn(text("llama.cpp's compute buffer at ubatch {} is extrapolated: the model was checked against start-up "
                  "logs at ubatch 256 to 512 only", static_cast<double>(kv.n_ubatch)));
  out.assume("llamacpp_flash_attention",
             text(in.flash_attention ? "flash attention on (-fa; mainline's default \"auto\" turns it on where the "
                                       "GPU backend has kernels): no H·n_kv·ubatch score matrix"
                                     : "flash attention off: the f32 scores H·n_kv·ubatch are materialised (softmax "
                                       "in place)"));
  // One key, llamacpp_compute_model, states the moments and the build's reserve.
  if (c.current)
    out.assume("llamacpp_compute_model",
               text("compute buffer modelled as the largest of: attention (residual, normed input, Q, output; scores "
                    "without flash attention), feed-forward (residual, normed input, gate, up, product), output "
                    "(logits, final norm), all f32, plus the masks alive through every layer; llama-server's reserve "
                    "from build b{} (June 2026) on: logits for {} row(s), one per slot (n_outputs_max, PR #23861), the "
                    "mask in {}{}; checked against llama.cpp's allocator and start-up logs, fragmentation may add tens "
                    "of percent",
                    static_cast<double>(kLlamaCppBuildOutputsPerSlot), c.outputs, in.flash_attention ? "f16" : "f32",
                    in.flash_attention && !in.metal ? ", on CUDA flash attention's f16 copies of a K or V cache not "
                                                      "in f16"
                                                    : ""));
  else
    out.assume("llamacpp_compute_model",
               text("compute buffer modelled as the largest of: attention (residual, normed input, Q, output; scores "
                    "without flash attention), feed-forward (residual, normed input, gate, up, product), output "
                    "(logits, final norm), all f32, plus the masks alive through every layer; the reserve of build "
                    "b{}: logits for the whole ubatch ({} rows), the mask in f32{}; checked against start-up logs, "
                    "fragmentation may add tens of percent",
                    static_cast<double>(in.build), c.outputs, in.flash_attention ? " plus its f16 copy" : ""));
  out.assume("llamacpp_not_counted",
             text("not counted on the GPU: the host buffers (CUDA_Host output and compute buffers: the latter is the "
                  "host_compute_buffer row), multiple GPUs; --n-gpu-layers and --n-cpu-moe place layers in host memory"));
  out.assume("weights_dtype", text("{}", in.weights_source));
  if (in.metal)
    out.assume(reserve_key, text("{} for the GPU runtime: napkin's CUDA-context figure, kept on Metal (no CUDA "
                                    "context there; not measured)", in.cuda_context));
  else
    out.assume(reserve_key, text("{} per GPU for the CUDA context, libraries and kernels", in.cuda_context));
}

}  // namespace

void llamacpp_inputs(const LlamaCppInput& in, ResultSet& out) {
  out.input("engine", verdict("llama.cpp"));
  out.input("context", value(in.n_ctx));
  out.input("parallel", value(in.n_parallel));
  out.input("ubatch", value(in.n_ubatch));
  out.input("kv_dtype", verdict(cache_type_name(in.type_k)));
  out.input("v_dtype", verdict(cache_type_name(in.type_v)));
  out.input("flash_attention", boolean(in.flash_attention));
  out.input("swa_full", boolean(in.swa_full));
  out.input("kv_unified", boolean(in.kv_unified));
}

void llamacpp_memory(const specs::ModelSpec& m, const LlamaCppInput& in, ResultSet& out) {
  llamacpp_inputs(in, out);
  ledger_rows(m, in, out, "cuda_context");
}

void llamacpp_serve_ledger(const specs::ModelSpec& m, const LlamaCppInput& in, ResultSet& out) {
  constexpr std::array<std::string_view, 8> kNeutral = {"weights",  "kv_cache", "activations", "runtime_reserve",
                                                        "per_gpu",  "fits",     "headroom",    "max_batch"};
  std::erase_if(out.items, [&](const Item& i) {
    return std::find(kNeutral.begin(), kNeutral.end(), i.key) != kNeutral.end();
  });
  std::erase_if(out.assumptions, [](const Assumption& a) {
    return a.key == "memory_ledger" || a.key == "kv_dtype" || a.key == "weights_dtype";
  });
  out.input("engine", verdict("llama.cpp"));
  ledger_rows(m, in, out, "llamacpp_runtime_reserve");
}

}  // namespace napkin
