#include "engine_flags.h"

#include <cmath>
#include <cstdlib>

#include "check_failure.h"
#include "flag_checks.h"
#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/model/params.h"

namespace napkin::cli {

void add_engine_option(CommandApp* sub, std::string& engine) {
  sub->add_option("--engine", engine, "Whose allocation the ledger follows: none (default, engine-neutral), "
                                      "llama.cpp, vllm, sglang")
      ->type_name("none|llama.cpp|vllm|sglang")
      ->group("Engine");
}

Engine parse_engine(const std::string& text) {
  if (text.empty() || text == "none") return Engine::none;
  if (text == "llama.cpp" || text == "llamacpp" || text == "llama-cpp") return Engine::llamacpp;
  if (text == "vllm") return Engine::vllm;
  if (text == "sglang") return Engine::sglang;
  throw InputError("--engine", text, "none, llama.cpp, vllm or sglang");
}

EngineTotal fill_engine_total(const HardwareOption& hw, NumericFlag& capacity) {
  EngineTotal t;
  if (!capacity.raw.empty()) {
    t.source = "--gpu-memory as given (the total the CUDA runtime reports: torch.cuda.mem_get_info, cudaMemGetInfo)";
    return t;
  }
  if (!hw.has_figures()) return t;
  if (hw.spec->device_class == "apple-silicon") {
    t.source = hw.spec->name + "'s memory the GPU may use (Metal's recommendedMaxWorkingSetSize)";
    return t;
  }
  if (hw.spec->gpu_memory_share) {  // another unified-memory part (GB10, Strix Halo): the preset's share
    if (hw.spec->memory_torch_total) hw.fill(capacity, hw.spec->memory_torch_total->in_base_units());
    t.source = hw.spec->name + "'s share of the unified memory the GPU may use by default (" +
               hw.spec->gpu_memory_share_basis + "), not the RAM installed: the OS, the CPU side and the page cache " +
               "draw on the same pool" +
               (hw.spec->memory_torch_total ? "; measured (the preset's memory_torch_total_source)" : "");
    return t;
  }
  if (hw.spec->memory_torch_total) {
    hw.fill(capacity, hw.spec->memory_torch_total->in_base_units());
    t.source = hw.spec->name + "'s total as the CUDA runtime reports it (torch.cuda.mem_get_info), below the driver's " +
               "(nvidia-smi); measured (the preset's memory_torch_total_source)";
    return t;
  }
  t.source = hw.spec->name + "'s memory as the driver reports it (nvidia-smi or the datasheet): no CUDA-runtime total " +
             "is recorded for this part; the runtime typically sees 0.3–0.6 GiB less (79.20 of 79.65 GiB on an H100 SXM)";
  return t;
}

void assume_engine_total(const EngineTotal& t, std::string_view engine, ResultSet& rs) {
  if (t.source.empty()) return;
  rs.assume("gpu_total", text("{} sizes its buffers from the GPU's total: {}", engine, rs.keep(t.source)));
}

namespace {

// -ngl, --n-cpu-moe and the host's figures: memory's only (serve has no offload model yet).
void add_offload_flags(CommandApp* sub, NumericFlags& nf, LlamaCppFlags& f) {
  const DimRt count = dim_rt<Count::dim>();
  // The host default: dual-channel DDR5-5600, 2 × 64-bit channels × 5600 MT/s = 89.6 GB/s peak
  // (JEDEC JESD79-5 data rates), a common desktop of 2025.
  f.n_gpu_layers = nf.add(sub, "--n-gpu-layers,--ngl", "n_gpu_layers", count, Constraint::non_negative_integer,
                          "llama.cpp -ngl: layers on the GPU, counting the output layer as one (default: all, or the "
                          "most that fit when all do not); the rest stay in host memory",
                          "COUNT");
  f.n_cpu_moe = nf.add(sub, "--n-cpu-moe", "n_cpu_moe", count, Constraint::non_negative_integer,
                       "llama.cpp --n-cpu-moe: keep the routed experts of the first N layers in host memory (default 0)",
                       "COUNT", 0.0);
  f.host_bandwidth = nf.add(sub, "--host-bandwidth", "host_bandwidth", dim_rt<Bandwidth::dim>(), Constraint::positive,
                            "With layers in host memory: the host RAM's bandwidth (default 89.6GB/s, dual-channel "
                            "DDR5-5600)",
                            "RATE", 89.6e9);
  f.host_memory = nf.add(sub, "--host-memory", "host_memory", dim_rt<Bytes::dim>(), Constraint::positive,
                         "With layers in host memory: the host RAM, for its fit verdict", "BYTES");
  sub->add_option("--tensor-split", f.tensor_split,
                  "llama.cpp over several GPUs: their presets, with -ts proportions if not by memory "
                  "(rtx-4090,rtx-3090 or rtx-4090:3,rtx-3090:1); instead of --hw")
      ->type_name("GPU[:W],...");
  for (const char* name : {"--n-gpu-layers", "--n-cpu-moe", "--host-bandwidth", "--host-memory", "--tensor-split"})
    sub->get_option(name)->group("Engine");
}

}  // namespace

void add_llamacpp_flags(CommandApp* sub, NumericFlags& nf, LlamaCppFlags& f, bool add_flash_attention,
                        bool offload_flags) {
  const DimRt count = dim_rt<Count::dim>();
  sub->add_option("--v-dtype", f.v_dtype, "llama.cpp V cache type (-ctv; default: --kv-dtype's): f16, bf16, f32, "
                                          "q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl")
      ->type_name("TYPE")
      ->group("Engine");
  f.ubatch = nf.add(sub, "--ubatch", "ubatch", count, Constraint::positive_integer,
                    "llama.cpp physical batch (-ub) the compute buffer is reserved for (default 512)", "COUNT", 512.0);
  f.parallel = nf.add(sub, "--parallel", "parallel", count, Constraint::positive_integer,
                      "llama.cpp slots (-np): --context is their total, one cache stream per slot (default 1)",
                      "COUNT", 1.0);
  f.build = nf.add(sub, "--llama-cpp-build", "llama_cpp_build", count, Constraint::positive_integer,
                   "llama.cpp build number (the log's \"build: N\") whose compute-buffer reserve to follow: before "
                   "b" + std::to_string(kLlamaCppBuildOutputsPerSlot) + " the logits of the whole ubatch and an f32 "
                   "mask (default: current mainline)",
                   "N");
  sub->get_option("--llama-cpp-build")->group("Engine");
  if (offload_flags) add_offload_flags(sub, nf, f);
  sub->get_option("--ubatch")->group("Engine");
  sub->get_option("--parallel")->group("Engine");
  sub->add_flag("--swa-full", f.swa_full, "llama.cpp --swa-full: sliding-window layers cache the whole context")
      ->group("Engine");
  sub->add_flag("--kv-unified", f.kv_unified,
                "llama.cpp --kv-unified: the --parallel slots share one cache of --context cells (each may use all)")
      ->group("Engine");
  if (add_flash_attention)
    sub->add_flag("--flash-attention", f.flash_attention, "llama.cpp -fa on (the default)")->group("Engine");
  sub->add_flag("--no-flash-attention", f.no_flash_attention,
                "llama.cpp -fa off: the attention scores are materialised in the compute buffer")
      ->group("Engine");
}

void check_engine_flags(CommandApp* sub, Engine engine, std::initializer_list<const char*> not_with_llamacpp) {
  const auto given = [&](const char* flag) {
    const CLI::Option* o = sub->get_option_no_throw(flag);
    return o != nullptr && o->count() > 0;
  };
  if (engine != Engine::llamacpp) {
    for (const char* flag :
         {"--v-dtype", "--ubatch", "--parallel", "--swa-full", "--kv-unified", "--no-flash-attention", "--n-gpu-layers",
          "--n-cpu-moe", "--host-bandwidth", "--host-memory", "--llama-cpp-build", "--tensor-split"})
      if (given(flag)) throw InputError(flag, "(given)", "--engine llama.cpp with it (a llama.cpp setting)");
    return;
  }
  for (const char* flag : not_with_llamacpp)
    if (given(flag))
      throw InputError(flag, "(with --engine llama.cpp)",
                       "the llama.cpp flags instead (--context is -c, --parallel -np, --ubatch -ub; one GPU)");
  if (given("--flash-attention") && given("--no-flash-attention"))
    throw InputError("--no-flash-attention", "(with --flash-attention)", "one of them");
}

void fill_llamacpp_input(CommandApp* sub, const std::string& kv_dtype, LlamaCppFlags& f, LlamaCppInput& in) {
  parse_tensor_split(sub, f);
  in.type_k = sub->get_option("--kv-dtype")->count() > 0 ? parse_cache_type(kv_dtype, "--kv-dtype") : CacheType::f16;
  in.type_v = f.v_dtype.empty() ? in.type_k : parse_cache_type(f.v_dtype, "--v-dtype");
  in.flash_attention = !f.no_flash_attention;
  in.swa_full = f.swa_full;
  in.kv_unified = f.kv_unified;
  if (!in.flash_attention && cache_type_block(in.type_v) > 1)
    throw InputError(f.v_dtype.empty() ? "--kv-dtype" : "--v-dtype", std::string(cache_type_name(in.type_v)),
                     "f16, bf16 or f32 with --no-flash-attention (llama.cpp: V cache quantization requires flash_attn)");
}

int llamacpp_build(const LlamaCppFlags& f, const Point& p) {
  const std::optional<Count> b = p.maybe<Count>(f.build);
  if (!b) return 0;
  if (b->in(units::one) > 1e9) throw InputError("--llama-cpp-build", format_plain_number(b->in(units::one)), "a llama.cpp build number");
  return static_cast<int>(b->in(units::one));
}

std::string llamacpp_failure(const ResultSet& rs) {
  const Item* f = rs.find("fits");
  if (f == nullptr || f->value.flag) return "";
  if (const Item* g = rs.find("gpu_layers"); g != nullptr && g->value.kind == Value::Kind::number)
    return "does not fit: llama.cpp fails to allocate its GPU buffers with " + format_plain_number(g->value.num) +
           " layers on the GPU (-ngl " + format_plain_number(g->value.num) + "): " + fit_failure(rs) +
           "; lower --n-gpu-layers, raise --n-cpu-moe, or lower --context";
  return "does not fit: llama.cpp fails to allocate its buffers with every layer on the GPU (-ngl 99; the model "
         "does not load): " + fit_failure(rs) + "; lower --context or --parallel, or quantize the weights or the KV cache";
}

Dtype kv_read_dtype(CacheType k, CacheType v) {
  const auto of = [](CacheType t) {
    switch (t) {
      case CacheType::f32: return Dtype::fp32;
      case CacheType::f16: return Dtype::fp16;
      case CacheType::bf16: return Dtype::bf16;
      case CacheType::q8_0: return Dtype::int8;
      default: return Dtype::int4;
    }
  };
  return dtype_bits(of(k)) >= dtype_bits(of(v)) ? of(k) : of(v);
}

namespace {

// The tensors of the model as the weights row stores them: a GGUF type's own, else the dtype's.
std::vector<LlamaCppTensor> offload_tensors(const specs::ModelSpec& m, const InferenceMemoryInput& weights, Bytes total,
                                            const WeightStorage* storage) {
  if (storage != nullptr && !storage->gguf_tensors.empty()) {
    std::vector<NamedBytes> named;
    named.reserve(storage->gguf_tensors.size());
    for (const auto& [name, bytes] : storage->gguf_tensors) named.push_back({name, bytes});
    return llamacpp_tensors(m, named);
  }
  const double bits = weights.stored_weights ? 16.0 : static_cast<double>(dtype_bits(weights.weights_dtype));
  return llamacpp_tensors(m, total, bits, weights.quantize_all || weights.stored_weights.has_value(),
                          weights.experts_only, "--n-gpu-layers");
}

// token_embd's bytes as the weights row stores them, and whether the output is tied to it.
struct EmbeddingBytes {
  Bytes bytes{};
  bool tied = false;
};
EmbeddingBytes embedding_bytes(const specs::ModelSpec& m, const InferenceMemoryInput& weights, Bytes total,
                               const WeightStorage* storage) {
  EmbeddingBytes e;
  if (storage != nullptr && !storage->gguf_tensors.empty()) {
    bool output = false;
    for (const auto& [name, bytes] : storage->gguf_tensors) {
      if (name == "token_embd.weight") e.bytes = bytes * units::byte;
      output = output || name == "output.weight";
    }
    e.tied = !output;
    return e;
  }
  if (m.count_only() || m.vocab <= 0 || m.hidden <= 0) return e;
  e.tied = m.tied_embeddings;
  const double params = static_cast<double>(m.vocab) * static_cast<double>(m.hidden);
  if (weights.stored_weights) {
    // A checkpoint's bytes: the embedding's share of them by parameters.
    const double all = static_cast<double>(count_params(m).total);
    if (all > 0) e.bytes = total * (params / all);
    return e;
  }
  // napkin's weights row keeps embeddings in 16 bits unless every tensor is quantized.
  const double bits = weights.quantize_all ? static_cast<double>(dtype_bits(weights.weights_dtype)) : 16.0;
  e.bytes = params * bits / 8.0 * units::byte;
  return e;
}

// Whether every layer fits one GPU (li.capacity set): the full-offload ledger's per-GPU total.
bool full_fits(const specs::ModelSpec& m, const LlamaCppInput& full_offload) {
  const LlamaCppKv kv = llamacpp_kv(m, full_offload);
  const Bytes full = full_offload.weights + kv.total() + llamacpp_compute_buffer(m, full_offload, kv).total() +
                     full_offload.cuda_context;
  return full <= *full_offload.capacity;
}

// Whether every layer fits the GPUs of a tensor split.
bool all_layers_fit(const specs::ModelSpec& m, const LlamaCppInput& li, LlamaCppOffload o) {
  o.n_gpu_layers.reset();
  const LlamaCppPlacement p = llamacpp_place(m, li, o);
  for (std::size_t k = 0; k < p.devices.size(); ++k)
    if (p.devices[k].total(li.cuda_context) > o.devices[k].capacity) return false;
  return true;
}

// llama.cpp with layers in host memory; nullopt when every layer goes to the GPU (no -ngl, no
// --n-cpu-moe, and the whole model fits or no capacity was given).
std::optional<LlamaCppOffload> offload_of(const LlamaCppInput& li, const LlamaCppInput& full_offload,
                                          const specs::ModelSpec& m, const InferenceMemoryInput& weights,
                                          const OffloadRequest* req) {
  if (req == nullptr) return std::nullopt;
  const bool asked = req->n_gpu_layers.has_value() || req->n_cpu_moe > 0 || !req->devices.empty() || req->host_given;
  // Without the model's tensors an offload that was asked for is refused below (offload_tensors);
  // one that was not is the full-offload ledger.
  const bool has_tensors = m.tensors || (req->storage != nullptr && !req->storage->gguf_tensors.empty());
  if (!asked && (!has_tensors || !li.capacity || full_fits(m, full_offload))) return std::nullopt;
  LlamaCppOffload o;
  o.devices = req->devices;
  if (req->n_gpu_layers) o.n_gpu_layers = static_cast<std::int64_t>(*req->n_gpu_layers);
  o.n_cpu_moe = static_cast<std::int64_t>(req->n_cpu_moe);
  o.gpu_bandwidth = req->gpu_bandwidth;
  o.host_bandwidth = req->host_bandwidth;
  o.host_capacity = req->host_memory;
  o.tensors = offload_tensors(m, weights, li.weights, req->storage);
  const bool whole_fits = req->devices.empty() ? !li.capacity || full_fits(m, full_offload) : all_layers_fit(m, li, o);
  if (!req->n_gpu_layers && req->n_cpu_moe == 0 && !whole_fits) {
    // The most layers that fit: llama.cpp's -ngl for these GPUs (its --fit does the same search).
    const std::int64_t most = llamacpp_max_gpu_layers(m, li, o);
    o.n_gpu_layers = std::max<std::int64_t>(most, 0);
  }
  return o;
}

}  // namespace

void parse_tensor_split(CommandApp* sub, LlamaCppFlags& f) {
  f.devices.clear();
  f.device_names.clear();
  if (f.tensor_split.empty()) return;
  for (const char* flag : {"--hw", "--gpu-memory"})
    if (const CLI::Option* o = sub->get_option_no_throw(flag); o != nullptr && o->count() > 0)
      throw InputError(flag, given_value(o), "no " + std::string(flag) + " with --tensor-split (its GPUs are the split's)");
  std::vector<std::pair<specs::HardwareSpec, double>> parts;
  std::size_t start = 0;
  while (start <= f.tensor_split.size()) {
    const std::size_t comma = std::min(f.tensor_split.find(',', start), f.tensor_split.size());
    const std::string entry = f.tensor_split.substr(start, comma - start);
    const std::size_t colon = entry.find(':');
    const std::string name = entry.substr(0, colon);
    if (name.empty())
      throw InputError("--tensor-split", f.tensor_split, "GPU presets separated by commas, each with an optional :WEIGHT");
    specs::HardwareSpec hw = specs::load_hardware(name);
    if (hw.is_class)
      throw InputError("--tensor-split", name, "a GPU with a memory of its own, not a class of devices");
    double weight = 0;  // 0: by the GPU's memory
    if (colon != std::string::npos) {
      const std::string w = entry.substr(colon + 1);
      char* end = nullptr;
      weight = std::strtod(w.c_str(), &end);
      if (w.empty() || end != w.c_str() + w.size() || !(weight > 0) || !std::isfinite(weight))
        throw InputError("--tensor-split", entry, "a positive proportion after ':' (llama.cpp's -ts)");
    }
    parts.emplace_back(std::move(hw), weight);
    start = comma + 1;
  }
  if (parts.size() < 2) throw InputError("--tensor-split", f.tensor_split, "two GPUs or more (one GPU is --hw)");
  const bool weighted = parts.front().second > 0;
  for (const auto& [hw, w] : parts)
    if ((w > 0) != weighted)
      throw InputError("--tensor-split", f.tensor_split, "a :WEIGHT on every GPU or on none");
  for (auto& [hw, w] : parts) f.device_names.push_back(hw.name);
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const specs::HardwareSpec& hw = parts[k].first;
    LlamaCppDevice d;
    d.name = f.device_names[k];
    // The runtime's total where the preset records it (what cudaMemGetInfo reports), else the driver's.
    d.capacity = hw.memory_torch_total ? *hw.memory_torch_total : hw.memory;
    d.bandwidth = hw.bandwidth;
    d.split = weighted ? parts[k].second : d.capacity.in(units::byte);
    f.devices.push_back(d);
  }
}

OffloadRequest offload_request(const NumericFlags& nf, const LlamaCppFlags& f, const Point& p,
                               const HardwareOption& hw, const WeightStorage& storage) {
  OffloadRequest off;
  off.devices = f.devices;
  if (!nf.flags()[f.n_gpu_layers].raw.empty()) off.n_gpu_layers = p[f.n_gpu_layers];
  off.n_cpu_moe = p[f.n_cpu_moe];
  if (hw.has_figures()) off.gpu_bandwidth = hw.spec->bandwidth;
  off.host_bandwidth = p.get<Bandwidth>(f.host_bandwidth);
  off.host_memory = p.maybe<Bytes>(f.host_memory);
  off.host_given = !nf.flags()[f.host_bandwidth].raw.empty() || !nf.flags()[f.host_memory].raw.empty();
  off.storage = &storage;
  return off;
}

void check_serving_engine(CommandApp* sub, std::string_view engine, bool bare, bool train,
                          std::initializer_list<const char*> refused, std::string_view takes) {
  const std::string e(engine);
  if (bare) throw InputError("--engine", e, "MODEL (the engine's KV pool needs the architecture), not --params");
  if (train) throw InputError("--engine", e, "the inference ledger (the engine serves; drop --train)");
  for (const char* f : refused)
    if (const CLI::Option* o = sub->get_option_no_throw(f); o != nullptr && o->count() > 0)
      throw InputError(f, given_value(o),
                       std::string("no ") + f + " with --engine " + e + " (its budget takes " + std::string(takes) + ")");
}

void llamacpp_ledger(LlamaCppInput li, const specs::ModelSpec& m, InferenceMemoryInput weights, ResultSet& rs,
                     bool serve, const OffloadRequest* offload) {
  weights.batch = 1.0 * units::one;
  weights.context = 1.0 * units::one;
  weights.tp = weights.pp = 1.0 * units::one;
  weights.capacity.reset();
  li.weights = inference_memory(m, weights).weights;
  if (weights.stored_weights) {
    li.weights_symbolic = "the tensors' stored bytes";
    li.weights_detail = weights.stored_detail;
    li.weights_source = rs.keep("weights as stored in " + std::string(weights.stored_source) + ": " +
                                std::string(weights.stored_detail) + ", every tensor on the GPU (-ngl 99)");
  } else {
    li.weights_symbolic = "P · bits/8 (napkin memory's weights row)";
    li.weights_detail = rs.keep(std::string(dtype_name(weights.weights_dtype)) + " weights");
    li.weights_source = rs.keep("weights stored in " + std::string(dtype_name(weights.weights_dtype)) +
                                " (napkin's weights row), every tensor on the GPU (-ngl 99)");
  }
  // With every layer on the GPU llama.cpp still keeps token_embd in host memory.
  const EmbeddingBytes e = embedding_bytes(m, weights, li.weights, offload != nullptr ? offload->storage : nullptr);
  const Bytes total = li.weights;
  if (e.bytes > Bytes{}) {
    li.host_weights = e.bytes;
    li.weights = total - (e.tied ? Bytes{} : e.bytes);
    li.weights_source = rs.keep(std::string(li.weights_source.substr(0, li.weights_source.find(", every tensor"))) +
                                "; token_embd in host memory, the rest on the GPU" +
                                (e.tied ? " (the tied output loaded again there)" : ""));
  }
  LlamaCppInput whole = li;
  whole.weights = total;  // the offload placement splits the whole model itself
  if (const auto o = serve ? std::nullopt : offload_of(whole, li, m, weights, offload)) {
    li = whole;
    llamacpp_offload_memory(m, li, *o, rs);
    if (!offload->n_gpu_layers && o->n_gpu_layers)
      rs.remark(text("every layer does not fit the GPU: the ledger is at -ngl {}, the most layers that do (the rest "
                   "in host memory); --n-gpu-layers sets another",
                   static_cast<double>(*o->n_gpu_layers)));
    return;
  }
  if (serve)
    llamacpp_serve_ledger(m, li, rs);
  else
    llamacpp_memory(m, li, rs);
}

}  // namespace napkin::cli
