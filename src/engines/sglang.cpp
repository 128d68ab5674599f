// SGLang's KV-cache budget. See napkin/engines/sglang.h for the formula and the releases it follows.
#include "napkin/engines/sglang.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"

namespace napkin {

using namespace units;

namespace {

// P, the free memory before the weights load, is torch's total less what start-up allocated:
// the CUDA context and torch's allocator, 0.38–0.75 GiB at TP 1 in the H100 logs of
// tests/engine_sglang_test.cpp ("Load weight begin. avail mem=78.81 GB" with SGLang v0.4.3 in
// January 2025, 78.58 GB from v0.4.5 on, 78.47 GB from v0.5.19, against torch's 79.19–79.22 GiB):
// 0.6 GiB is taken.
constexpr double kStartupGiB = 0.6;
// At TP 2 or more the distributed init adds the communicators ("Init torch distributed ends. mem
// usage="): NCCL alone over PCIe, 0.13 GB at TP 4 on L4s where SGLang turns its custom
// all-reduce off ("Custom allreduce is disabled because it's not supported on more than two
// PCIe-only GPUs", https://github.com/didier-durand/llms-in-clouds/blob/3e1df42ab328cb05c90df01ef331a1214ed6e336/docs/sglang.md);
// with NVLink the custom all-reduce and its IPC buffers, 1.77–2.01 GB at TP 8 on H200s
// (https://github.com/sgl-project/sglang/pull/11716).
constexpr double kCommPcieGiB = 0.15;
constexpr double kCommNvlinkGiB = 1.9;
// "Load weight end ... mem usage=" exceeds the weights by about 0.15 GiB at TP 1: 15.11 GB for
// Llama-3.1-8B's 14.96 GiB, 2.44 GB for Llama-3.2-1B's 2.30 GiB (SGLang docs build, 2025-02-14),
// 1.25 GB for Qwen3-0.6B's 1.11 GiB (2025-08-08). That much more is taken beside the weights.
constexpr double kLoadExtrasGiB = 0.15;

// Exact integers below 2^53: a pool of more tokens is a GPU memory no device has.
constexpr double kExactIntegers = 9007199254740992.0;

constexpr double kMiB = 1048576.0;

double mib(Bytes b) { return b.in(byte) / kMiB; }

// Python's round(x, 3) for the fractions SGLang computes (halves are rare enough to ignore).
double round3(double x) { return std::round(x * 1000.0) / 1000.0; }

struct Version {
  int major = 0, minor = 0, patch = 0;
};

bool less(const Version& a, const Version& b) {
  if (a.major != b.major) return a.major < b.major;
  if (a.minor != b.minor) return a.minor < b.minor;
  return a.patch < b.patch;
}

// The piecewise prefill CUDA graph sizes up to `max_tokens` (server_args.py
// _generate_piecewise_cuda_graph_tokens: 4..32 step 4, 48..256 step 16, 288..512 step 32,
// 640..4096 step 128, then 4352..max step 256).
double prefill_graph_count(double max_tokens) {
  struct Range {
    double first, last, step;
  };
  constexpr std::array<Range, 5> ranges = {{{4, 32, 4}, {48, 256, 16}, {288, 512, 32}, {640, 4096, 128}, {4352, 1e18, 256}}};
  double n = 0;
  for (const auto& r : ranges) {
    const double last = std::min(r.last, max_tokens);
    if (last >= r.first) n += std::floor((last - r.first) / r.step) + 1.0;
  }
  return n;
}

// The architectures SGLang gives a pool of full-attention and a pool of sliding-window tokens
// (python/sglang/srt/configs/model_config.py is_hybrid_swa_model: Llama4ForConditionalGeneration,
// GptOssForCausalLM, MiMoV2Flash, Step3p5, and from 2026 Gemma4). GPT-OSS is not among them here:
// server_args.py sets disable_hybrid_swa_memory for GptOssForCausalLM (v0.5.3–v0.5.4), so its
// sliding layers cache the whole context as the others do.
bool hybrid_swa_architecture(const specs::ModelSpec& m) {
  const std::string& t = m.model_type;
  return t.rfind("llama4", 0) == 0 || t.rfind("gemma4", 0) == 0 || t.rfind("mimo_v2", 0) == 0 ||
         t.rfind("step3p5", 0) == 0;
}

}  // namespace

SglangHeuristic sglang_heuristic(std::string_view version) {
  std::string_view s = version;
  if (!s.empty() && (s.front() == 'v' || s.front() == 'V')) s.remove_prefix(1);
  std::array<int, 3> parts{};
  std::size_t i = 0;
  for (int k = 0; k < 3; ++k) {
    const std::size_t start = i;
    long value = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - start < 4) value = value * 10 + (s[i++] - '0');
    const bool digits = i > start && (i == s.size() || !std::isdigit(static_cast<unsigned char>(s[i])));
    const bool separator = k == 2 || (i < s.size() && s[i] == '.');
    if (!digits || !separator)
      throw InputError("--sglang-version", std::string(version), "an SGLang release as MAJOR.MINOR.PATCH, e.g. 0.5.2");
    parts[static_cast<std::size_t>(k)] = static_cast<int>(value);
    if (k < 2) ++i;
  }
  // What may follow the patch number: a release suffix (.post1, rc0), nothing else.
  if (i < s.size() && s[i] != '.' && s[i] != 'r' && s[i] != 'p' && s[i] != '-' && s[i] != '+')
    throw InputError("--sglang-version", std::string(version), "an SGLang release as MAJOR.MINOR.PATCH, e.g. 0.5.2");
  const Version v{parts[0], parts[1], parts[2]};
  if (less(v, {0, 4, 7})) return SglangHeuristic::tp_table;
  if (less(v, {0, 5, 3})) return SglangHeuristic::memory_table;
  if (less(v, {0, 5, 8})) return SglangHeuristic::reserve_formula;
  return SglangHeuristic::prefill_graphs;
}

std::string_view sglang_heuristic_name(SglangHeuristic h) {
  switch (h) {
    case SglangHeuristic::tp_table: return "up to v0.4.6: a fraction by TP size";
    case SglangHeuristic::memory_table: return "v0.4.7–v0.5.2: a reserve by GPU memory and TP (PR #7054)";
    case SglangHeuristic::reserve_formula:
      return "v0.5.3–v0.5.7: a reserve from the prefill chunk, the CUDA-graph batch size and TP (PR #10975)";
    case SglangHeuristic::prefill_graphs:
      return "v0.5.8 on: the v0.5.3 reserve plus the piecewise prefill CUDA graphs";
  }
  return "";
}

SglangDefaults sglang_defaults(const specs::ModelSpec& m, const SglangInput& in) {
  SglangDefaults d;
  const double gpu_mem = mib(in.device_memory);  // SGLang's gpu_mem: nvidia-smi's total in MiB
  const double tp = in.tp.in(one);
  const bool mla = m.attention == specs::AttentionKind::mla;
  double chunk = 0, graph_bs = 0;
  if (in.heuristic == SglangHeuristic::tp_table || in.heuristic == SglangHeuristic::memory_table) {
    // server_args.py __post_init__ (v0.4.x–v0.5.2): 2048 below 35 GiB (A10, L40, RTX 4090), 8192
    // up to 160 GiB, 16384 above; CUDA graphs up to batch 8 (80 at TP 4 or more) below 35 GiB,
    // else cuda_graph_runner.py's 160.
    chunk = gpu_mem < 35 * 1024 ? 2048 : gpu_mem < 160 * 1024 ? 8192 : 16384;
    graph_bs = gpu_mem < 35 * 1024 ? (tp < 4 ? 8 : 80) : 160;
  } else {
    // server_args.py _handle_gpu_memory_settings (v0.5.3 on, PR #10975): one chain by gpu_mem.
    if (gpu_mem < 20 * 1024) chunk = 2048, graph_bs = 8;                           // T4, RTX 4080
    else if (gpu_mem < 35 * 1024) chunk = 2048, graph_bs = tp < 4 ? 24 : 80;      // A10, RTX 4090, 5090
    else if (gpu_mem < 60 * 1024) chunk = 4096, graph_bs = tp < 4 ? 32 : 160;     // A100 40GB, L40
    else if (gpu_mem < 160 * 1024) chunk = 8192, graph_bs = tp < 4 ? 256 : 512;  // H100, A100, H20, H200
    else chunk = 16384, graph_bs = 512;                                           // B200, MI300
  }
  d.chunked_prefill_size = in.chunked_prefill_size ? in.chunked_prefill_size->in(one) : chunk;
  d.cuda_graph_max_bs = in.cuda_graph_max_bs ? in.cuda_graph_max_bs->in(one) : graph_bs;

  // The reserve of the v0.5.3 formula, stated for every release (SGLang's own allowance for the
  // activations of one prefill chunk and for the CUDA graphs); it sets the default fraction from
  // v0.5.3 on.
  d.metadata_mb = 512;
  d.activation_mb = std::max(d.chunked_prefill_size, 2048.0) * 1.5;
  d.decode_graph_mb = d.cuda_graph_max_bs * 2;
  d.parallel_mb = tp / 8 * 1024;
  if (in.heuristic == SglangHeuristic::prefill_graphs) {
    // serve_args reserve_for_graph_mb: 8 MB of non-torch memory per prefill graph size (the
    // prefill graphs go up to the chunk), 1.5 GiB for an MLA backend (captured up to 2048 tokens).
    d.prefill_graphs = prefill_graph_count(mla ? 2048.0 : d.chunked_prefill_size);
    d.prefill_graph_mb = mla ? 1.5 * 1024 : d.prefill_graphs * 8;
  }
  double reserved = 0;
  switch (in.heuristic) {
    case SglangHeuristic::tp_table:
      // server_args.py (v0.4.x): tp >= 16 → 0.79, >= 8 → 0.81, >= 4 → 0.85, >= 2 → 0.87, else 0.88.
      d.mem_fraction_static = tp >= 16 ? 0.79 : tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88;
      d.reserved_mb = gpu_mem * (1.0 - d.mem_fraction_static);
      return d;
    case SglangHeuristic::memory_table: {
      // PR #7054: parallel_size = tp · pp; (2.8 + p/10) GiB below 35 GiB, (9.5 + p/2) GiB below
      // 90 GiB (H100, A100), (12 + p/2) GiB below 160 GiB (H20, H200), 32 GiB above (B200, MI300).
      const double p = tp;
      reserved = gpu_mem < 35 * 1024   ? (2.8 + p / 10) * 1024
                 : gpu_mem < 90 * 1024 ? (9.5 + p / 2) * 1024
                 : gpu_mem < 160 * 1024 ? (12 + p / 2) * 1024
                                        : 32 * 1024;
      break;
    }
    case SglangHeuristic::reserve_formula:
    case SglangHeuristic::prefill_graphs:
      reserved = d.metadata_mb + d.activation_mb + d.decode_graph_mb + d.prefill_graph_mb + d.parallel_mb;
      if (gpu_mem > 60 * 1024 && reserved < 10 * 1024) {
        reserved = 10 * 1024;
        d.floor_applied = true;
      }
      break;
  }
  d.reserved_mb = reserved;
  d.mem_fraction_static = round3((gpu_mem - reserved) / gpu_mem);
  return d;
}

SglangBudget sglang_budget(const specs::ModelSpec& m, const SglangInput& in) {
  require_positive(in.gpu_memory, "gpu_memory");
  require_positive(in.device_memory, "device_memory");
  require_positive_integer(in.context, "context");
  require_positive_integer(in.tp, "tp");
  require_positive_integer(in.page_size, "page_size");
  specs::refuse_encoder_decoder(m, "--engine sglang");
  specs::refuse_mamba_layers(m, "--engine sglang (SGLang's Mamba state pool is not modelled)");
  specs::refuse_unmodelled_layers(m, "--engine sglang (SGLang's state and indexer pools are not modelled)");
  if (hybrid_swa_architecture(m))
    throw InputError("--engine", "sglang",
                     "a model SGLang caches in one pool ('" + m.name + "' (" + m.model_type +
                         ") gets SGLang's hybrid full/sliding-window pool, whose split is not modelled)");

  SglangBudget b;
  b.defaults = sglang_defaults(m, in);
  b.fraction_given = in.mem_fraction_static.has_value();
  b.mem_fraction_static = b.fraction_given ? *in.mem_fraction_static : b.defaults.mem_fraction_static;
  if (!(b.mem_fraction_static > 0.0 && b.mem_fraction_static <= 1.0))
    throw InputError("--mem-fraction-static", format_plain_number(b.mem_fraction_static),
                     b.fraction_given ? "a fraction of the GPU's memory in (0, 1]"
                                      : "a GPU large enough for SGLang's default reserve (pass --mem-fraction-static)");
  const double tp = in.tp.in(one);
  b.startup = (kStartupGiB + (tp > 1.0 ? (in.links == SglangLinks::pcie ? kCommPcieGiB : kCommNvlinkGiB) : 0.0)) * GiB;
  const Bytes available = in.gpu_memory - b.startup;
  b.available = available > Bytes{} ? available : Bytes{};
  b.static_budget = b.mem_fraction_static * b.available;
  b.load_extras = kLoadExtrasGiB * GiB;
  b.weights = in.weights + b.load_extras;
  const Bytes rest = b.static_budget - b.weights;
  b.rest = rest > Bytes{} ? rest : Bytes{};
  b.shortfall = rest < Bytes{} ? Bytes{} - rest : Bytes{};
  b.headroom = b.available - b.static_budget;

  // model_runner profile_max_num_token: get_num_kv_heads(tp) = max(1, kv_heads // tp) heads of
  // head_dim, K and V, on every layer; MLA: one latent of kv_lora_rank + qk_rope_head_dim.
  const double kv_heads = m.attention == specs::AttentionKind::mla
                              ? static_cast<double>(m.kv_heads)
                              : std::max(1.0, std::floor(static_cast<double>(m.kv_heads) / tp));
  for (std::int64_t l = 0; l < m.layers; ++l)
    if (m.layer_attention(l) != specs::LayerAttention::none) ++b.attention_layers;
  if (b.attention_layers == 0)
    throw InputError("--engine", "sglang", "a model with attention layers ('" + m.name + "' caches no keys)");
  b.cell = static_cast<double>(b.attention_layers) * kv_bytes_per_token_per_layer(m, in.kv_dtype, kv_heads);

  const double profiled = std::floor(b.rest.in(byte) / b.cell.in(byte));
  if (profiled >= kExactIntegers)
    throw InputError("--gpu-memory", format_plain_number(in.gpu_memory.in(byte)) + " B",
                     "a GPU memory whose KV pool holds fewer than 2^53 tokens");
  b.profiled_tokens = static_cast<std::int64_t>(profiled);
  double tokens = profiled;
  if (in.max_total_tokens && in.max_total_tokens->in(one) < tokens) {
    tokens = in.max_total_tokens->in(one);
    b.capped = true;
  }
  const double page = in.page_size.in(one);
  tokens = std::floor(tokens / page) * page;  // init_memory_pool: // page_size * page_size
  b.kv_pool_tokens = static_cast<std::int64_t>(tokens);
  b.kv_pool = tokens * b.cell;

  // ReqToTokenPool rows: min(max(⌊tokens / context · 512⌋, 2048), 4096), one more up to v0.4.6
  // (logged max_running_requests=2049); the scheduler runs at most min(tokens / 2, rows).
  const double context = in.context.in(one);
  const double rows = std::min(std::max(std::floor(tokens / context * 512.0), 2048.0), 4096.0) +
                      (in.heuristic == SglangHeuristic::tp_table ? 1.0 : 0.0);
  b.req_pool = static_cast<std::int64_t>(rows);
  b.max_running_requests = static_cast<std::int64_t>(std::min(std::floor(tokens / 2.0), rows));
  b.requests_at_context = tokens / context;
  return b;
}

SglangFit sglang_fit(const SglangBudget& b) {
  if (b.shortfall > Bytes{} || b.kv_pool_tokens <= 0) return SglangFit::no_cache_memory;
  if (b.requests_at_context < 1.0) return SglangFit::request_too_long;
  return SglangFit::fits;
}

void sglang_budget(const specs::ModelSpec& m, const SglangInput& in, ResultSet& out, bool ledger) {
  const SglangBudget b = sglang_budget(m, in);
  const SglangDefaults& d = b.defaults;
  const double tp = in.tp.in(one);
  if (ledger) out.command = "memory";
  out.input("engine", verdict("sglang"));
  out.input("sglang_version", verdict(in.version));
  out.input("gpu_memory", value(in.gpu_memory));
  out.input("device_memory", value(in.device_memory));
  out.input("mem_fraction_static", value(b.mem_fraction_static));
  out.input("chunked_prefill_size", value(d.chunked_prefill_size));
  out.input("cuda_graph_max_bs", value(d.cuda_graph_max_bs));
  out.input("page_size", value(in.page_size));
  if (ledger) {
    out.input("context", value(in.context));
    out.input("tp", value(in.tp));
    out.input("kv_dtype", verdict(dtype_name(in.kv_dtype)));
  }

  out.item("startup", "start-up (context, communicators)", value(b.startup),
           tp > 1.0 ? "CUDA context + communicators (TP ≥ 2)" : "CUDA context and allocator", text("{}", b.startup));
  out.item("available", "free before the weights", value(b.available), "torch's total − start-up",
           text("{} − {}", in.gpu_memory, b.startup));
  if (b.fraction_given)
    out.item("mem_fraction_static", "mem_fraction_static", value(b.mem_fraction_static), "--mem-fraction-static",
             text("{}", b.mem_fraction_static));
  else if (in.heuristic == SglangHeuristic::tp_table)
    out.item("mem_fraction_static", "mem_fraction_static (default)", value(b.mem_fraction_static),
             "0.88 at TP 1, 0.87 at 2, 0.85 at 4, 0.81 at 8, 0.79 at 16", text("TP {}", tp));
  else
    out.item("mem_fraction_static", "mem_fraction_static (default)", value(b.mem_fraction_static),
             "round((gpu_mem − reserved) / gpu_mem, 3)",
             text("({} − {}) / {} MiB", mib(in.device_memory), d.reserved_mb, mib(in.device_memory)));
  out.item("static_budget", "SGLang's static share", value(b.static_budget), "free before the weights · mem_fraction_static",
           text("{} · {}", b.available, b.mem_fraction_static));
  if (ledger)
    out.item("weights", "weights", value(b.weights), "the inference ledger's weights per GPU + load extras",
             text("{} + {}", in.weights, b.load_extras));
  if (b.shortfall > Bytes{}) {
    out.item("kv_pool", "KV pool", value(b.kv_pool), "max(0, static share − weights)",
             text("max(0, {} − {})", b.static_budget, b.weights));
    out.item("shortfall", "SGLang's static share short by", value(b.shortfall), "weights − static share",
             text("{} − {}", b.weights, b.static_budget));
  } else if (b.capped || in.page_size.in(one) > 1.0) {
    out.item("kv_pool", "KV pool", value(b.kv_pool), "pool tokens · K,V bytes per token (all layers, one GPU)",
             text("{} · {}", static_cast<double>(b.kv_pool_tokens), b.cell));
  } else {
    out.item("kv_pool", "KV pool", value(b.kv_pool), "⌊(static share − weights) / token⌋ · K,V bytes per token",
             text("⌊({} − {}) / {}⌋ · {}", b.static_budget, b.weights, b.cell, b.cell));
  }
  out.item("activation_headroom", "left for activations and CUDA graphs", value(b.headroom),
           "free before the weights · (1 − mem_fraction_static)", text("{} · {}", b.available, 1.0 - b.mem_fraction_static));
  if (ledger) {
    const Bytes per_gpu = b.startup + b.available;
    out.item("per_gpu", "per GPU", value(per_gpu), "start-up + static share + headroom (torch's total)",
             text("{} + {} + {}", b.startup, b.static_budget, b.headroom))
        .is_total = true;
    out.item("total", "all GPUs", value(tp * per_gpu), "per GPU · tp", text("{} GPU(s)", tp));
  }
  out.item("prefill_reserve", "SGLang's allowance for a prefill chunk", value(d.activation_mb * MiB),
           "1.5 MiB · max(chunked_prefill_size, 2048)", text("1.5 MiB · {}", std::max(d.chunked_prefill_size, 2048.0)));
  if (d.prefill_graph_mb > 0.0)
    out.item("cuda_graph", "SGLang's allowance for CUDA graphs", value((d.decode_graph_mb + d.prefill_graph_mb) * MiB),
             m.attention == specs::AttentionKind::mla ? "2 MiB · cuda_graph_max_bs + 1.5 GiB (MLA prefill graphs)"
                                                      : "2 MiB · cuda_graph_max_bs + 8 MiB · prefill graph sizes",
             text("2 MiB · {} + {}", d.cuda_graph_max_bs, d.prefill_graph_mb * MiB));
  else
    out.item("cuda_graph", "SGLang's allowance for CUDA graphs", value(d.decode_graph_mb * MiB),
             "2 MiB · cuda_graph_max_bs", text("2 MiB · {}", d.cuda_graph_max_bs));
  const Tokens pool_tokens = static_cast<double>(b.kv_pool_tokens) * token;
  if (b.capped)
    out.item("kv_pool_tokens", "KV pool tokens", value(pool_tokens), "--max-total-tokens, rounded down to --page-size",
             text("{} → {}", in.max_total_tokens->in(one), static_cast<double>(b.kv_pool_tokens)));
  else
    out.item("kv_pool_tokens", "KV pool tokens", value(pool_tokens), "⌊pool / K,V bytes per token⌋, rounded down to --page-size",
             text("⌊{} / {}⌋ → {}", b.rest, b.cell, static_cast<double>(b.kv_pool_tokens)));
  out.item("max_running_requests", "max running requests", value(static_cast<double>(b.max_running_requests)),
           "min(tokens / 2, min(max(tokens / context · 512, 2048), 4096))",
           text("min({}, {})", std::floor(static_cast<double>(b.kv_pool_tokens) / 2.0), static_cast<double>(b.req_pool)));
  out.item("max_concurrency", "requests at --context", value(b.requests_at_context), "pool tokens / context",
           text("{} / {}", static_cast<double>(b.kv_pool_tokens), in.context.in(one)));
  if (ledger)
    out.item("fits", "fits", boolean(sglang_fit(b) == SglangFit::fits), "a request of --context fits the pool",
             text("{} requests", b.requests_at_context));

  out.assume("sglang_version",
             text("SGLang {} ({}): pool = free before the weights · mem_fraction_static − weights; tokens = pool / "
                  "K,V bytes per token (model_runner.profile_max_num_token)",
                  in.version, sglang_heuristic_name(in.heuristic)));
  if (b.fraction_given)
    out.assume("mem_fraction_static", text("SGLang keeps {} of the memory free before the weights", b.mem_fraction_static));
  else if (in.heuristic == SglangHeuristic::tp_table)
    out.assume("mem_fraction_static", text("the release's default {} at TP {}", b.mem_fraction_static, tp));
  else
    out.assume("mem_fraction_static",
               text("the release's default {}: {} MiB reserved of {} MiB (nvidia-smi's total){}", b.mem_fraction_static,
                    d.reserved_mb, mib(in.device_memory), d.floor_applied ? ", raised to the 10 GiB floor" : ""));
  if (!b.fraction_given && m.tower)
    out.warn(text("SGLang lowers its default mem_fraction_static for multimodal models by the vision tower's size "
                  "(adjust_mem_fraction_for_vlm), which napkin does not model: pass --mem-fraction-static, or "
                  "--text-only for a language-only launch"));
  out.assume("sglang_total_memory", text("torch's total {}; the default fraction is computed from the driver's "
                                         "total {} (nvidia-smi, as SGLang reads it)",
                                         in.gpu_memory, in.device_memory));
  out.assume("sglang_startup",
             text("{} allocated before the weights load: the CUDA context ({}){}", b.startup, kStartupGiB * GiB,
                  tp > 1.0 ? (in.links == SglangLinks::pcie ? " and NCCL over PCIe (custom all-reduce off)"
                                                            : " and the NCCL and custom all-reduce buffers over NVLink")
                           : ""));
  out.assume("sglang_load_extras", text("{} beside the weights after loading (SGLang's 'mem usage' exceeds the "
                                        "weights by that much in its logs)",
                                        b.load_extras));
  if (m.attention == specs::AttentionKind::mla)
    out.assume("sglang_kv_cell", text("{} per token: one latent of kv_lora_rank + qk_rope_head_dim on each of {} "
                                      "layers, whole on every GPU, {}",
                                      b.cell, static_cast<double>(b.attention_layers), dtype_name(in.kv_dtype)));
  else
    out.assume("sglang_kv_cell",
               text("{} per token: K and V of {} layers at max(1, ⌊{} / {}⌋) KV heads per GPU, {}{}",
                    b.cell, static_cast<double>(b.attention_layers), static_cast<double>(m.kv_heads), tp,
                    dtype_name(in.kv_dtype),
                    m.layers_of(specs::LayerAttention::sliding) + m.layers_of(specs::LayerAttention::chunked) > 0
                        ? "; the sliding-window layers cache the whole context too (SGLang's single pool)"
                        : ""));
  if (in.heuristic == SglangHeuristic::prefill_graphs)
    out.assume("sglang_defaults", text("chunked_prefill_size {} and cuda_graph_max_bs {}; {} piecewise prefill graph "
                                       "sizes (SGLang's defaults for this GPU unless given)",
                                       d.chunked_prefill_size, d.cuda_graph_max_bs, d.prefill_graphs));
  else
    out.assume("sglang_defaults", text("chunked_prefill_size {} and cuda_graph_max_bs {} (SGLang's defaults for this "
                                       "GPU unless given)",
                                       d.chunked_prefill_size, d.cuda_graph_max_bs));
}

}  // namespace napkin
