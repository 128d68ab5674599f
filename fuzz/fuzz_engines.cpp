// Fuzzes the engine settings and ledgers: vLLM's checks and KV budget (napkin/engines/vllm.h),
// llama.cpp's KV cache, compute buffer and ledger (napkin/engines/llamacpp.h), and the context
// limit every command checks (napkin/model/context_limit.h). The input is text:
//   byte 0          the model: (byte − 'a') mod 13 picks a bundled preset of kPresets ('a' to
//                   'l'); 'm' (12) reads the JSON at the end of the input
//   rest of line 1  ignored
//   --flag=value    one engine setting per line, as memory and serve take it (below); a switch
//   --flag          alone; a flag given twice is refused, as the CLI refuses it; other lines
//                   are skipped
//   {...}           from the first line that starts with '{' to the end: a config.json or
//                   napkin model JSON, read by model_from_json_text (rope_scaling,
//                   model_max_length, sliding windows and layer kinds included)
// Numeric values are parsed as the CLI parses its flags (src/cli/sweep.h parse_axis: the flag's
// dimension, constraint and plausibility rules), one value each (a list or a range is refused):
//   --context (default 4096), --tp (1), --gpu-memory (default 80GiB; also llama.cpp's capacity,
//   none when absent), --gpu-memory-utilization (0.9), --max-num-batched-tokens and
//   --max-num-seqs (vLLM's defaults for the GPU, vllm_batch_defaults), --block-size (16),
//   --parallel (1), --ubatch (512), --cuda-context (512MiB), and for the serve form --batch (1),
//   --prompt (1024), --generate (256);
// and the text ones as the CLI reads them: --kv-dtype (vLLM: parse_dtype, default bf16;
// llama.cpp: parse_cache_type, default f16), --v-dtype (llama.cpp, default --kv-dtype's),
// --weights-dtype (parse_dtype, default bf16), --device (the GPU's name, for vLLM's A100
// exception). Switches: --no-flash-attention, --swa-full, --metal, --serve (the serve form:
// vLLM's context is --prompt + --generate, llama.cpp's -c is the slots (--parallel, else
// --batch) times that).
//
// Each input runs context_limit and check_trained_context, then vLLM (validate_vllm_settings,
// vllm_budget as a struct and as rows, ledger and beside another ledger, vllm_fit) and llama.cpp
// (llamacpp_kv, llamacpp_compute_buffer, llamacpp_memory, and llamacpp_serve_ledger in the serve
// form), each engine on its own: an InputError from one leaves the other to run. Anything else
// escapes. Invariants: every byte count in a ledger's rows is finite and non-negative (headroom
// may be negative), every number finite; vLLM's per GPU is at least its weights, the pool is
// empty whenever the share falls short, the blocks are never negative, and a page of KV is
// positive; llama.cpp's slot holds a positive multiple of 256 cells, n_ubatch ≤ n_batch ≤ -c
// as given, the cells at least -c, and a model with attention layers has a KV cache; the
// context limit is never negative.
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_common.h"
#include "napkin/engines/llamacpp.h"
#include "napkin/engines/vllm.h"
#include "napkin/ground/dtype.h"
#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/context_limit.h"
#include "napkin/model/params.h"
#include "napkin/specs/load.h"
#include "napkin/specs/presets.h"
#include "sweep.h"

namespace {

using namespace napkin;
using cli::Constraint;

// One of each kind the engines treat apart: full attention with llama3 RoPE scaling, sliding
// windows on every other layer, chunked attention, MoE, qk-norm, learned positions, MLA with
// yarn scaling, longrope, Gemma 3's layer kinds, gpt-oss's sinks, OPT's offset positions, and
// an encoder.
constexpr std::array<std::string_view, 12> kPresets = {
    "llama-3.1-8b", "gemma-2-2b",  "llama-4-scout-17b-16e", "mixtral-8x7b", "qwen3-0.6b", "gpt2",
    "deepseek-v2-lite", "phi-3-mini", "gemma-3-1b", "gpt-oss-20b", "opt-1.3b", "bert-base-uncased"};

constexpr DimRt kCount = dim_rt<Count::dim>();
constexpr DimRt kBytes = dim_rt<Bytes::dim>();

struct Preset {
  specs::ModelSpec spec;
  ParamCount counts;
};

// The presets, read once (the readers are deterministic, so every run sees the same specs).
const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = [] {
    std::vector<Preset> v;
    for (std::string_view name : kPresets) {
      Preset p;
      p.spec = specs::load_model_preset(name);
      p.counts = count_params(p.spec);
      v.push_back(std::move(p));
    }
    return v;
  }();
  return all;
}

// The settings lines: flag → text; a flag given twice is refused.
struct Settings {
  std::map<std::string, std::string, std::less<>> given;
  bool has(std::string_view flag) const { return given.find(flag) != given.end(); }
  const std::string* text(std::string_view flag) const {
    const auto it = given.find(flag);
    return it == given.end() ? nullptr : &it->second;
  }
};

// A numeric flag's one value as the CLI reads it, or `fallback` when it is absent.
double number(const Settings& s, std::string_view flag, DimRt dim, Constraint c, double fallback) {
  const std::string* t = s.text(flag);
  if (t == nullptr) return fallback;
  cli::NumericFlag f;
  f.flag = std::string(flag);
  f.name = f.flag.substr(2);
  f.dim = dim;
  f.constraint = c;
  f.raw = *t;
  f.given = true;
  const cli::Axis a = cli::parse_axis(f, nullptr, 1.0);  // one value: a list or a range is refused
  NAPKIN_FUZZ_CHECK(a.size() == 1);
  return a.at(0);
}

std::optional<double> maybe_number(const Settings& s, std::string_view flag, DimRt dim, Constraint c) {
  if (!s.has(flag)) return std::nullopt;
  return number(s, flag, dim, c, 0.0);
}

std::string_view text_or(const Settings& s, std::string_view flag, std::string_view fallback) {
  const std::string* t = s.text(flag);
  return t == nullptr ? fallback : std::string_view(*t);
}

bool is_bytes(const Value& v) { return v.kind == Value::Kind::number && v.dim == kBytes; }

// Every number of a ledger's rows finite, every byte count non-negative (headroom may be negative).
void check_rows(const ResultSet& rs) {
  for (const Item& i : rs.items) {
    if (i.value.kind != Value::Kind::number) continue;
    NAPKIN_FUZZ_CHECK(std::isfinite(i.value.num));
    if (is_bytes(i.value) && i.key != "headroom") NAPKIN_FUZZ_CHECK(i.value.num >= 0.0);
  }
  for (const Input& i : rs.inputs)
    if (i.value.kind == Value::Kind::number) NAPKIN_FUZZ_CHECK(std::isfinite(i.value.num));
}

double row(const ResultSet& rs, std::string_view key) {
  const Item* i = rs.find(key);
  NAPKIN_FUZZ_CHECK(i != nullptr && i->value.kind == Value::Kind::number);
  return i->value.num;
}

std::int64_t attention_layers(const specs::ModelSpec& m) {
  std::int64_t n = 0;
  for (std::int64_t l = 0; l < m.layers; ++l) n += m.layer_attention(l) != specs::LayerAttention::none ? 1 : 0;
  return n;
}

// What the workload asks of the engines: the memory form (--context) or the serve form.
struct Workload {
  bool serve = false;
  double context = 4096;  // tokens per sequence
  double batch = 1;       // serve: sequences
  double tp = 1;
};

Workload workload(const Settings& s) {
  Workload w;
  w.serve = s.has("--serve");
  if (w.serve) {
    const double prompt = number(s, "--prompt", kCount, Constraint::positive_integer, 1024);
    const double generate = number(s, "--generate", kCount, Constraint::positive_integer, 256);
    w.context = prompt + generate;
    w.batch = number(s, "--batch", kCount, Constraint::positive_integer, 1);
  } else {
    w.context = number(s, "--context", kCount, Constraint::positive_integer, 4096);
  }
  w.tp = number(s, "--tp", kCount, Constraint::positive_integer, 1);
  return w;
}

void check_context(const specs::ModelSpec& m, const Workload& w) {
  const ContextLimit limit = context_limit(m);
  NAPKIN_FUZZ_CHECK(limit.tokens >= 0);
  NAPKIN_FUZZ_CHECK(limit.tokens == 0 || !limit.source.empty());
  ResultSet rs;
  check_trained_context(m, w.context, w.serve ? "--prompt + --generate" : "--context", rs);
  NAPKIN_FUZZ_CHECK(rs.warnings.size() <= 1);
  NAPKIN_FUZZ_CHECK(rs.warnings.empty() || (limit.tokens > 0 && w.context > static_cast<double>(limit.tokens)));
}

// vLLM as memory --engine vllm (and serve --engine vllm) runs it: the inference ledger's weights
// per GPU, the settings vllm_input fills (src/cli/engine_vllm_flags.cpp), the budget.
void run_vllm(const specs::ModelSpec& m, const ParamCount& counts, const Settings& s, const Workload& w) {
  const Bytes gpu = number(s, "--gpu-memory", kBytes, Constraint::positive, 80.0 * 1073741824.0) * units::byte;
  const double utilization = number(s, "--gpu-memory-utilization", kCount, Constraint::positive, 0.9);
  const std::optional<double> tokens =
      maybe_number(s, "--max-num-batched-tokens", kCount, Constraint::positive_integer);
  const std::optional<double> seqs = maybe_number(s, "--max-num-seqs", kCount, Constraint::positive_integer);
  const double block = number(s, "--block-size", kCount, Constraint::positive_integer, 16);
  const Dtype kv = parse_dtype(text_or(s, "--kv-dtype", "bf16"), "--kv-dtype");
  const Dtype wd = parse_dtype(text_or(s, "--weights-dtype", "bf16"), "--weights-dtype");

  InferenceMemoryInput mi;
  mi.weights_dtype = wd;
  mi.kv_dtype = kv;
  mi.batch = w.batch * units::one;
  mi.context = w.context * units::one;
  mi.tp = w.tp * units::one;
  mi.counts = &counts;

  // vllm_input: vLLM's batch defaults for the GPU; an unset max_num_seqs is at most the tokens.
  const VllmBatchDefaults d = vllm_batch_defaults(gpu, text_or(s, "--device", ""));
  NAPKIN_FUZZ_CHECK(d.max_num_batched_tokens >= d.max_num_seqs && d.max_num_seqs > 0);
  VllmInput in;
  in.gpu_memory = gpu;
  in.gpu_memory_utilization = utilization;
  in.max_num_batched_tokens = tokens.value_or(d.max_num_batched_tokens) * units::one;
  in.max_num_seqs = seqs.value_or(std::min(d.max_num_seqs, in.max_num_batched_tokens.in(units::one))) * units::one;
  in.block_size = block * units::one;
  in.context = w.context * units::one;
  in.context_flag = w.serve ? "--prompt + --generate" : "--context";
  in.tp = w.tp * units::one;
  in.kv_dtype = kv;
  in.weights = inference_memory(m, mi).weights;
  NAPKIN_FUZZ_CHECK(std::isfinite(in.weights.in(units::byte)) && in.weights >= Bytes{});

  validate_vllm_settings(m, in);
  const VllmBudget b = vllm_budget(m, in);
  const auto finite = [](Bytes q) { return std::isfinite(q.in(units::byte)); };
  for (Bytes q : {b.budget, b.weights, b.forward_peak, b.sampler_peak, b.activation_peak, b.non_torch, b.kv_pool,
                  b.shortfall, b.page})
    NAPKIN_FUZZ_CHECK(finite(q) && q >= Bytes{});
  NAPKIN_FUZZ_CHECK(b.shortfall == Bytes{} || b.kv_pool == Bytes{});
  NAPKIN_FUZZ_CHECK(b.weights + b.activation_peak + b.non_torch + b.kv_pool >= b.weights);
  NAPKIN_FUZZ_CHECK(b.attention_layers > 0 && b.attention_layers == attention_layers(m));
  NAPKIN_FUZZ_CHECK(b.page > Bytes{});
  NAPKIN_FUZZ_CHECK(b.group_size >= 1 && b.groups >= 1 && b.group_size * b.groups >= b.attention_layers);
  NAPKIN_FUZZ_CHECK(b.kv_blocks >= 0 && b.kv_pool_tokens >= 0 && b.blocks_per_request >= 1);
  NAPKIN_FUZZ_CHECK(b.kv_pool > Bytes{} || b.kv_blocks == 0);
  NAPKIN_FUZZ_CHECK(std::isfinite(b.max_concurrency) && b.max_concurrency >= 0.0);
  const VllmFit fit = vllm_fit(b);
  NAPKIN_FUZZ_CHECK(fit != VllmFit::fits || (b.shortfall == Bytes{} && b.kv_blocks > 0 && b.max_concurrency >= 1.0));

  for (const bool ledger : {true, false}) {
    ResultSet rs;
    vllm_budget(m, in, rs, ledger);
    check_rows(rs);
    NAPKIN_FUZZ_CHECK(row(rs, "kv_blocks") >= 0.0);
    NAPKIN_FUZZ_CHECK(rs.find("shortfall") == nullptr || row(rs, "kv_pool") == 0.0);
    NAPKIN_FUZZ_CHECK((rs.find("shortfall") != nullptr) == (b.shortfall > Bytes{}));
    if (ledger) {
      NAPKIN_FUZZ_CHECK(row(rs, "per_gpu") >= row(rs, "weights"));
      const Item* f = rs.find("fits");
      NAPKIN_FUZZ_CHECK(f != nullptr && f->value.kind == Value::Kind::boolean && f->value.flag == (fit == VllmFit::fits));
    } else {
      NAPKIN_FUZZ_CHECK(rs.find("weights") == nullptr && rs.find("per_gpu") == nullptr);
    }
  }
}

// llama.cpp as memory --engine llama.cpp (and serve) runs it: the cache types and flash attention
// fill_llamacpp_input checks (src/cli/engine_flags.cpp), the model buffer llamacpp_ledger takes
// from the inference ledger, the ledger.
void run_llamacpp(const specs::ModelSpec& m, const ParamCount& counts, const Settings& s, const Workload& w) {
  LlamaCppInput in;
  in.type_k = s.has("--kv-dtype") ? parse_cache_type(*s.text("--kv-dtype"), "--kv-dtype") : CacheType::f16;
  in.type_v = s.has("--v-dtype") ? parse_cache_type(*s.text("--v-dtype"), "--v-dtype") : in.type_k;
  in.flash_attention = !s.has("--no-flash-attention");
  in.swa_full = s.has("--swa-full");
  // fill_llamacpp_input: llama.cpp refuses a quantized V cache without flash attention.
  if (!in.flash_attention && cache_type_block(in.type_v) > 1)
    throw InputError(s.has("--v-dtype") ? "--v-dtype" : "--kv-dtype", std::string(cache_type_name(in.type_v)),
                     "f16, bf16 or f32 with --no-flash-attention");
  const double parallel_given = number(s, "--parallel", kCount, Constraint::positive_integer, 0);
  double parallel = parallel_given > 0 ? parallel_given : 1;
  double n_ctx = w.context;
  if (w.serve) {
    // serve's llamacpp_row: one slot per sequence unless --parallel says more; -c is all slots.
    parallel = parallel_given > 0 ? parallel_given : w.batch;
    if (parallel < w.batch) throw InputError("--parallel", "(fewer than --batch)", "at least --batch slots");
    n_ctx = parallel * w.context;
  }
  in.n_ctx = n_ctx * units::one;
  in.n_parallel = parallel * units::one;
  in.n_ubatch = number(s, "--ubatch", kCount, Constraint::positive_integer, 512) * units::one;
  in.cuda_context = number(s, "--cuda-context", kBytes, Constraint::non_negative, 512.0 * 1048576.0) * units::byte;
  if (const auto cap = maybe_number(s, "--gpu-memory", kBytes, Constraint::positive)) in.capacity = *cap * units::byte;
  in.metal = s.has("--metal");
  // llamacpp_ledger: the weights row of one sequence of one token on one GPU.
  InferenceMemoryInput mi;
  mi.weights_dtype = parse_dtype(text_or(s, "--weights-dtype", "bf16"), "--weights-dtype");
  mi.context = 1.0 * units::one;
  mi.counts = &counts;
  in.weights = inference_memory(m, mi).weights;
  in.weights_symbolic = "P · bits/8 (napkin memory's weights row)";
  in.weights_detail = "weights";
  in.weights_source = "weights (fuzz)";

  const LlamaCppKv kv = llamacpp_kv(m, in);
  const std::int64_t asked = static_cast<std::int64_t>(n_ctx);
  NAPKIN_FUZZ_CHECK(kv.n_ctx_seq >= 256 && kv.n_ctx_seq % 256 == 0);
  NAPKIN_FUZZ_CHECK(kv.n_ctx == kv.n_ctx_seq * kv.streams && kv.n_ctx >= asked);
  NAPKIN_FUZZ_CHECK(kv.streams == (parallel > 1 ? static_cast<std::int64_t>(parallel) : 1));
  NAPKIN_FUZZ_CHECK(kv.n_ubatch >= 1 && kv.n_ubatch <= kv.n_batch && kv.n_batch <= asked);
  NAPKIN_FUZZ_CHECK(kv.base_cells == kv.n_ctx_seq);
  NAPKIN_FUZZ_CHECK(kv.swa_layers == 0 || (kv.swa_cells >= 256 && kv.swa_cells % 256 == 0 && kv.swa_cells <= kv.n_ctx_seq));
  NAPKIN_FUZZ_CHECK(kv.base_layers + kv.swa_layers == attention_layers(m));
  for (Bytes q : {kv.k, kv.v, kv.k_swa, kv.v_swa})
    NAPKIN_FUZZ_CHECK(std::isfinite(q.in(units::byte)) && q >= Bytes{});
  NAPKIN_FUZZ_CHECK(kv.k_swa <= kv.k && kv.v_swa <= kv.v);
  NAPKIN_FUZZ_CHECK(kv.base_layers + kv.swa_layers == 0 || kv.total() > Bytes{});

  const LlamaCppCompute c = llamacpp_compute_buffer(m, in, kv);
  for (Bytes q : {c.attention, c.feed_forward, c.output, c.scores, c.mask, c.logits, c.total()})
    NAPKIN_FUZZ_CHECK(std::isfinite(q.in(units::byte)) && q >= Bytes{});
  NAPKIN_FUZZ_CHECK(c.total() > Bytes{});

  ResultSet rs;
  llamacpp_memory(m, in, rs);
  check_rows(rs);
  NAPKIN_FUZZ_CHECK(row(rs, "per_gpu") >= row(rs, "weights"));
  NAPKIN_FUZZ_CHECK(row(rs, "kv_cache") == kv.total().in(units::byte));
  NAPKIN_FUZZ_CHECK((rs.find("fits") != nullptr) == in.capacity.has_value());
  if (w.serve) {
    ResultSet serve;
    llamacpp_serve_ledger(m, in, serve);
    check_rows(serve);
    NAPKIN_FUZZ_CHECK(row(serve, "per_gpu") == row(rs, "per_gpu"));
  }
}

Settings read_settings(std::string_view lines) {
  Settings s;
  std::size_t begin = 0;
  while (begin < lines.size()) {
    const std::size_t end = std::min(lines.find('\n', begin), lines.size());
    const std::string_view line = lines.substr(begin, end - begin);
    begin = end + 1;
    if (!line.starts_with("--")) continue;
    const std::size_t eq = line.find('=');
    const std::string flag(line.substr(0, eq));
    const std::string value = eq == std::string_view::npos ? std::string() : std::string(line.substr(eq + 1));
    if (!s.given.emplace(flag, value).second) throw InputError(flag, value, "the flag once");
  }
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text = fuzz::as_text(data, size);
  const std::size_t first_line = std::min(text.find('\n'), text.size());
  const std::size_t json = text.find("\n{");
  const std::string_view lines =
      first_line < text.size() ? text.substr(first_line + 1, json == std::string_view::npos ? text.npos : json - first_line)
                               : std::string_view();
  constexpr std::size_t kChoices = kPresets.size() + 1;
  const std::size_t pick = (data[0] + kChoices - 'a' % kChoices) % kChoices;  // 'a' → 0

  specs::ModelSpec spec;
  ParamCount counts;
  Settings s;
  Workload w;
  try {
    if (pick < kPresets.size()) {
      spec = presets()[pick].spec;
      counts = presets()[pick].counts;
    } else {
      if (json == std::string_view::npos) return 0;
      spec = specs::model_from_json_text(text.substr(json + 1), "config.json");
      counts = count_params(spec);  // what memory and serve do first: refuses a model too large to count
    }
    s = read_settings(lines);
    w = workload(s);
  } catch (const InputError&) {
    return 0;
  }
  check_context(spec, w);
  try {
    run_vllm(spec, counts, s, w);
  } catch (const InputError&) {
  }
  try {
    run_llamacpp(spec, counts, s, w);
  } catch (const InputError&) {
  }
  return 0;
}
