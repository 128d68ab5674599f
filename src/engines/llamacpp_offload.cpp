// llama.cpp with part of the model in host memory. See napkin/engines/llamacpp_offload.h.
#include "napkin/engines/llamacpp_offload.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/tensor_table.h"

namespace napkin {

using namespace units;

namespace {

using i64 = std::int64_t;

// The share of a decoded token's memory traffic the two memories deliver, as a fraction of their
// peak bandwidth. GPU: llama.cpp's batch-1 decode on NVIDIA reads its weights at 70–80% of peak
// (docs/serving-validation.md, the llama.cpp-on-NVIDIA rows); 0.75 is taken. Host: the CPU's
// share (its quantized matmuls and the hand-over between the devices at every layer boundary)
// runs far below the memory's rate: 0.35 of it reproduces the one published run found with its
// settings and the host's measured bandwidth (https://github.com/AlexsJones/llmfit/pull/755:
// Qwen3-30B-A3B-Instruct-2507 Q4_K_M, -ngl 99 --n-cpu-moe 36, RTX 2080 with quad-channel DDR4
// measured at ~102 GB/s: 36.7 tokens/s generated; napkin 36.6). One run: a calibration, not a
// validation.
constexpr double kGpuEfficiency = 0.75;
constexpr double kHostEfficiency = 0.35;

// A layer's KV bytes on its device: one stream's cells of the cache the layer belongs to.
Bytes layer_kv(const specs::ModelSpec& m, const LlamaCppInput& in, const LlamaCppKv& kv, i64 l) {
  const LlamaCppLayerCache cache = llamacpp_layer_cache(m, l);
  if (cache == LlamaCppLayerCache::none) return Bytes{};
  const bool swa = cache == LlamaCppLayerCache::swa;
  const double cells = static_cast<double>((swa ? kv.swa_cells : kv.base_cells) * kv.streams);
  const double row = static_cast<double>(cache_row_bytes(in.type_k, kv.k_width) + cache_row_bytes(in.type_v, kv.v_width));
  return cells * row * byte;
}

bool on_gpu(i64 layer, i64 i_gpu_start, i64 act_gpu_layers) {
  if (layer < 0) return false;  // the input layer stays on the CPU
  return layer >= i_gpu_start && layer - i_gpu_start < act_gpu_layers;
}

// "blk.12.ffn_up_exps.weight" → 12; -1 without a block number.
i64 block_of(std::string_view name) {
  if (!name.starts_with("blk.")) return -1;
  const std::string_view rest = name.substr(4);
  i64 n = -1;
  const auto r = std::from_chars(rest.data(), rest.data() + rest.size(), n);
  return r.ec == std::errc{} ? n : -1;
}

}  // namespace

std::vector<LlamaCppTensor> llamacpp_tensors(const specs::ModelSpec& m, Bytes total, double matrix_bits,
                                             bool all_quantized, bool experts_only, std::string_view flag) {
  if (!m.tensors)
    throw InputError(std::string(flag), "(given)",
                     "a MODEL with an architecture table (a preset, config.json or checkpoint): placing its layers "
                     "needs its tensors, which a bare count or a made-up decoder does not name");
  const double active_share =
      m.moe.n_experts > 0 ? static_cast<double>(m.moe.experts_per_token) / static_cast<double>(m.moe.n_experts) : 1.0;
  std::vector<LlamaCppTensor> out;
  double sum = 0;
  bool head = false;
  for (const specs::TableTensor& t : m.tensors->tensors) {
    if (t.mtp || t.group == specs::TensorGroup::vision) continue;
    const bool kept16 = t.group == specs::TensorGroup::embedding || t.group == specs::TensorGroup::head ||
                        t.group == specs::TensorGroup::norm;
    double bits = matrix_bits;
    if (kept16 && !all_quantized) bits = 16.0;
    if (experts_only && !t.routed && !all_quantized) bits = 16.0;
    if (t.shape.size() <= 1 && !all_quantized) bits = 16.0;  // norms and biases
    LlamaCppTensor p;
    p.layer = t.layer;
    if (t.group == specs::TensorGroup::head) {
      p.layer = m.layers;
      head = true;
    } else if (t.layer < 0 && t.group == specs::TensorGroup::norm) {
      p.layer = m.layers;  // output_norm
    }
    p.expert = t.routed;
    p.active = t.routed ? active_share : p.layer < 0 ? 0.0 : 1.0;  // a token reads one row of an embedding
    const double b = static_cast<double>(t.elements()) * static_cast<double>(t.copies) * bits / 8.0;
    p.bytes = b * byte;
    sum += b;
    out.push_back(p);
  }
  if (sum > 0)
    for (LlamaCppTensor& t : out) t.bytes = t.bytes * (total.in(byte) / sum);
  // A tied output: llama.cpp loads token_embd a second time as the output layer's matrix
  // (TENSOR_DUPLICATED), so the GPU holds a copy while the CPU keeps the input's.
  if (!head) {
    const LlamaCppTensor* embd = nullptr;  // the largest input tensor: the token embedding
    for (const LlamaCppTensor& t : out)
      if (t.layer < 0 && (embd == nullptr || t.bytes > embd->bytes)) embd = &t;
    if (embd != nullptr) {
      LlamaCppTensor dup = *embd;
      dup.layer = m.layers;
      dup.active = 1.0;  // the output matmul reads every row
      out.push_back(dup);
    }
  }
  return out;
}

std::vector<LlamaCppTensor> llamacpp_tensors(const specs::ModelSpec& m, const std::vector<NamedBytes>& gguf) {
  const double active_share =
      m.moe.n_experts > 0 ? static_cast<double>(m.moe.experts_per_token) / static_cast<double>(m.moe.n_experts) : 1.0;
  std::vector<LlamaCppTensor> out;
  bool output = false;
  for (const NamedBytes& t : gguf) {
    LlamaCppTensor p;
    p.bytes = t.bytes * byte;
    const i64 blk = block_of(t.name);
    if (blk >= 0) {
      p.layer = blk;
      p.expert = t.name.find("_exps.") != std::string_view::npos;
      p.active = p.expert ? active_share : 1.0;
    } else if (t.name.starts_with("output")) {
      p.layer = m.layers;
      output = output || t.name == "output.weight";
    } else {
      p.layer = -1;  // token_embd and anything else outside the blocks (rope factors: the input's)
      p.active = 0.0;  // a token reads one row of the embedding
    }
    out.push_back(p);
  }
  if (!output)  // tied: the output layer duplicates token_embd
    for (const NamedBytes& t : gguf)
      if (t.name == "token_embd.weight") out.push_back({m.layers, false, 1.0, t.bytes * byte});
  return out;
}

LlamaCppPlacement llamacpp_place(const specs::ModelSpec& m, const LlamaCppInput& in, const LlamaCppOffload& o) {
  LlamaCppPlacement p;
  p.n_layer = m.layers;
  const i64 ngl = o.n_gpu_layers.value_or(m.layers + 1);
  if (ngl < 0) throw InputError("--n-gpu-layers", std::to_string(ngl), "0 or more layers");
  if (o.n_cpu_moe < 0) throw InputError("--n-cpu-moe", std::to_string(o.n_cpu_moe), "0 or more layers");
  if (o.n_cpu_moe > 0 && m.moe.n_experts == 0)
    throw InputError("--n-cpu-moe", std::to_string(o.n_cpu_moe),
                     "a model with routed experts ('" + m.name + "' has none to keep in host memory)");
  // src/llama-model.cpp load_tensors: i_gpu_start = max(n_layer + 1 − n_gpu_layers, 0),
  // act_gpu_layers = min(n_gpu_layers, n_layer + 1); the output layer is number n_layer. Before
  // PR #18148: i_gpu_start = max(n_layer − n_gpu_layers, 0), so -ngl N offloads N blocks and the
  // output only when N > n_layer.
  const bool old_rule = in.build > 0 && in.build < kLlamaCppBuildNglCountsOutput;
  p.i_gpu_start = std::max<i64>(m.layers + (old_rule ? 0 : 1) - ngl, 0);
  const i64 act = std::min<i64>(ngl, m.layers + 1);
  p.gpu_layers = act;
  p.output_on_gpu = on_gpu(m.layers, p.i_gpu_start, act);

  // The cumulative split points: layer_gpu = upper_bound(splits, (il − i_gpu_start) / act).
  const std::size_t n_dev = std::max<std::size_t>(o.devices.size(), 1);
  std::vector<double> cum(n_dev, 1.0);
  if (o.devices.size() > 1) {
    double sum = 0;
    for (const LlamaCppDevice& d : o.devices) sum += d.split;
    double run = 0;
    for (std::size_t k = 0; k < n_dev; ++k) cum[k] = (run += o.devices[k].split) / sum;
  }
  const auto device_of = [&](i64 layer) -> std::size_t {
    const double f = static_cast<double>(layer - p.i_gpu_start) / static_cast<double>(act);
    const auto k = static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), f) - cum.begin());
    return std::min(k, n_dev - 1);
  };
  p.devices.assign(n_dev, LlamaCppDeviceShare{});
  const auto note_layer = [&](std::size_t k, i64 layer) {
    LlamaCppDeviceShare& d = p.devices[k];
    d.first_layer = d.first_layer < 0 ? layer : std::min(d.first_layer, layer);
    d.last_layer = std::max(d.last_layer, layer);
  };
  for (i64 l = p.i_gpu_start; l < p.i_gpu_start + act; ++l) note_layer(device_of(l), l);

  Bytes largest_host_matrix{};
  for (const LlamaCppTensor& t : o.tensors) {
    bool gpu = on_gpu(t.layer, p.i_gpu_start, act);
    if (t.expert && t.layer >= 0 && t.layer < o.n_cpu_moe) gpu = false;
    if (gpu) {
      LlamaCppDeviceShare& d = p.devices[device_of(t.layer)];
      d.weights += t.bytes;
      d.read_per_token += t.active * t.bytes;
    } else {
      p.host_weights += t.bytes;
      p.host_read_per_token += t.active * t.bytes;
    }
    // Op offload copies a host matrix of a repeating layer or the output to the GPU for a large
    // batch; the input layer's get_rows runs on the CPU.
    if (!gpu && t.layer >= 0) largest_host_matrix = std::max(largest_host_matrix, t.bytes);
  }
  const LlamaCppKv kv = llamacpp_kv(m, in);
  for (i64 l = 0; l < m.layers; ++l) {
    const Bytes b = layer_kv(m, in, kv, l);
    if (on_gpu(l, p.i_gpu_start, act)) {
      p.devices[device_of(l)].kv += b;
      p.devices[device_of(l)].read_per_token += b;  // decode reads every cell (a full context)
    } else {
      p.host_kv += b;
    }
  }

  // Each GPU's graph: its blocks' attention and feed-forward moments and the output's where it
  // holds the output layer; the first GPU also copies the largest host matrix (op offload, batch
  // ≥ 32).
  const LlamaCppCompute c = llamacpp_compute_buffer(m, in, kv);
  // Op offload runs even at -ngl 0: the first GPU still takes the large-batch matmuls of the host's
  // layers (llamacpp-031 of data/engines/llamacpp.csv: Qwen3-235B at -ngl 0 reserves 742 MiB on CUDA0).
  p.op_offload_copy = p.host_weights > Bytes{} && kv.n_ubatch >= 32 ? largest_host_matrix : Bytes{};
  for (std::size_t k = 0; k < n_dev; ++k) {
    LlamaCppDeviceShare& d = p.devices[k];
    Bytes g{};
    if (d.first_layer >= 0 && d.first_layer < m.layers) g = std::max(c.attention, c.feed_forward);
    if (d.first_layer >= 0 && d.last_layer == m.layers) g = std::max(g, c.output);
    if (k == 0 && p.op_offload_copy > Bytes{}) {
      // The copied weight's matmul runs here with its inputs and outputs: a block's moment at least.
      d.compute = std::max(g, std::max(c.attention, c.feed_forward)) + p.op_offload_copy;
    } else {
      d.compute = g;
    }
  }
  for (const LlamaCppDeviceShare& d : p.devices) {
    p.gpu_weights += d.weights;
    p.gpu_kv += d.kv;
    p.gpu_compute += d.compute;
    p.gpu_read_per_token += d.read_per_token;
  }
  // The host's buffers: the CUDA_Host staging buffer of the inputs and masks (as with every layer
  // offloaded, llamacpp_compute_buffer's host) and, where the CPU computes blocks or the output, its
  // own compute buffer of their moments (llama.cpp's "CPU compute buffer").
  Bytes host_graph{};
  if (p.i_gpu_start > 0) host_graph = std::max(c.attention, c.feed_forward);
  if (o.n_cpu_moe > 0) host_graph = std::max(host_graph, c.feed_forward);  // the experts it keeps run there
  if (!p.output_on_gpu) host_graph = std::max(host_graph, c.output);
  p.host_cpu_compute = host_graph;
  p.host_compute = c.host;
  p.host_read_per_token += p.host_kv;  // every host cell read too
  return p;
}

namespace {

// Whether every GPU's buffers fit its memory (one GPU: in.capacity).
bool all_fit(const LlamaCppPlacement& p, const LlamaCppInput& in, const LlamaCppOffload& o) {
  for (std::size_t k = 0; k < p.devices.size(); ++k) {
    const std::optional<Bytes> cap = o.devices.empty() ? in.capacity : std::optional<Bytes>(o.devices[k].capacity);
    if (cap && p.devices[k].total(in.cuda_context) > *cap) return false;
  }
  return true;
}

}  // namespace

std::int64_t llamacpp_max_gpu_layers(const specs::ModelSpec& m, const LlamaCppInput& in, LlamaCppOffload o) {
  if (!in.capacity && o.devices.empty())
    throw InputError("--gpu-memory", "(missing)", "a GPU memory to fit the offloaded layers in");
  const auto fits = [&](i64 ngl) {
    o.n_gpu_layers = ngl;
    return all_fit(llamacpp_place(m, in, o), in, o);
  };
  // The GPU ledger grows with every layer offloaded but one: the first (the output layer alone)
  // also removes the host logits, never a GPU buffer. Walk down from every layer.
  for (i64 ngl = m.layers + 1; ngl >= 0; --ngl)
    if (fits(ngl)) return ngl;
  return -1;
}

namespace {

// Several GPUs (--tensor-split): each one's ledger and fit, the largest as per_gpu, fits when all do.
void device_rows(const LlamaCppPlacement& p, const LlamaCppInput& in, const LlamaCppOffload& o, ResultSet& out) {
  Bytes largest{};
  bool fits = true;
  for (std::size_t k = 0; k < p.devices.size(); ++k) {
    const LlamaCppDeviceShare& d = p.devices[k];
    const Bytes total = d.total(in.cuda_context);
    largest = std::max(largest, total);
    fits = fits && total <= o.devices[k].capacity;
    const std::string key = "gpu" + std::to_string(k);
    const std::string_view label = out.keep(key + " (" + std::string(o.devices[k].name) + ")");
    const char* sym = "its layers' weights + KV + compute buffer + runtime reserve";
    if (d.first_layer < 0)
      out.item(out.keep(key + "_total"), label, value(total), sym, text("no layers: {}", in.cuda_context));
    else
      out.item(out.keep(key + "_total"), label, value(total), sym,
               text("layers {}–{}: {} + {} + {} + {} of {}", static_cast<double>(d.first_layer),
                    static_cast<double>(d.last_layer), d.weights, d.kv, d.compute, in.cuda_context,
                    o.devices[k].capacity));
  }
  out.item("per_gpu", "the fullest GPU", value(largest), "max over the GPUs", text("{}", largest)).is_total = true;
  out.item("fits", "fits", boolean(fits), "every GPU's total ≤ its memory",
           text(fits ? "every GPU holds its share" : "a GPU's share exceeds its memory"));
}

}  // namespace

void llamacpp_offload_memory(const specs::ModelSpec& m, const LlamaCppInput& in, const LlamaCppOffload& o,
                             ResultSet& out) {
  const LlamaCppPlacement p = llamacpp_place(m, in, o);
  const LlamaCppKv kv = llamacpp_kv(m, in);
  llamacpp_inputs(in, out);
  out.input("n_gpu_layers", value(static_cast<double>(p.gpu_layers)));
  out.input("n_cpu_moe", value(static_cast<double>(o.n_cpu_moe)));

  const double layers = static_cast<double>(m.layers);
  out.item("gpu_layers", "layers on the GPU", value(static_cast<double>(p.gpu_layers)),
           "the last -ngl of the n_layer + 1 layers (the output counts as one from b7450; before, -ngl blocks)",
           text("offloaded {}/{} layers to GPU: blocks {}–{}{}", static_cast<double>(p.gpu_layers), layers + 1.0,
                static_cast<double>(p.i_gpu_start), layers - 1.0,
                p.output_on_gpu ? ", output on the GPU" : ", output on the CPU"));
  out.item("weights", "weights on the GPU (model buffer)", value(p.gpu_weights),
           "Σ tensors of the offloaded layers (routed experts of the first --n-cpu-moe blocks excepted)",
           text("{} of {} ({})", p.gpu_weights, p.gpu_weights + p.host_weights, in.weights_detail));
  out.item("kv_cache", "KV cache on the GPU", value(p.gpu_kv), "Σ offloaded layers' cells · (row_K + row_V)",
           text("{} of {}", p.gpu_kv, p.gpu_kv + p.host_kv));
  out.item("compute_buffer", "compute buffer on the GPU", value(p.gpu_compute),
           "max(moments of the GPU's layers) + largest host matrix copied (op offload)",
           text("{} + {} copied", p.gpu_compute - p.op_offload_copy, p.op_offload_copy));
  out.item("runtime_reserve", "runtime reserve", value(in.cuda_context), "CUDA context (not a llama.cpp buffer)",
           text("{}", in.cuda_context));
  if (o.devices.size() <= 1) {
    const Bytes per_gpu = p.gpu_weights + p.gpu_kv + p.gpu_compute + in.cuda_context;
    out.item("per_gpu", "GPU total", value(per_gpu), "sum of the GPU rows",
             text("{} + {} + {} + {}", p.gpu_weights, p.gpu_kv, p.gpu_compute, in.cuda_context))
        .is_total = true;
    if (in.capacity) fit_items(per_gpu, *in.capacity, out);
  } else {
    device_rows(p, in, o, out);
  }
  out.item("host_weights", "weights in host memory", value(p.host_weights),
           "token_embd + the blocks not offloaded + routed experts kept by --n-cpu-moe", text("{}", p.host_weights));
  out.item("host_kv_cache", "KV cache in host memory", value(p.host_kv), "Σ host layers' cells · (row_K + row_V)",
           text("{}", p.host_kv));
  out.item("host_compute_buffer", "host compute buffer (CUDA_Host)", value(p.host_compute),
           "the inputs' embedding rows and masks staged for the GPU", text("{}", p.host_compute));
  out.item("host_cpu_compute_buffer", "CPU compute buffer", value(p.host_cpu_compute),
           "max(moments of the layers the CPU computes)", text("{}", p.host_cpu_compute));
  const Bytes host = p.host_weights + p.host_kv + p.host_compute + p.host_cpu_compute;
  out.item("host_total", "host memory", value(host), "sum of the host rows",
           text("{} + {} + {} + {}", p.host_weights, p.host_kv, p.host_compute, p.host_cpu_compute));
  if (o.host_capacity)
    out.item("host_fits", "fits in host memory", boolean(host <= *o.host_capacity), "host total ≤ host memory",
             text("{} ≤ {}", host, *o.host_capacity));

  // One decoded token reads the GPU's share at the GPU's bandwidth and the host's at the host's,
  // one after the other (llama.cpp runs the layers in order).
  if ((o.devices.size() > 1 || o.gpu_bandwidth > Bandwidth{}) && o.host_bandwidth > Bandwidth{}) {
    Seconds t_gpu{};
    if (o.devices.size() <= 1)
      t_gpu = p.gpu_read_per_token / o.gpu_bandwidth;
    else  // the GPUs run their layers one after the other
      for (std::size_t k = 0; k < o.devices.size(); ++k) t_gpu += p.devices[k].read_per_token / o.devices[k].bandwidth;
    const Seconds t_host = p.host_read_per_token / o.host_bandwidth;
    const Seconds bound = t_gpu + t_host;
    const Seconds expected = t_gpu / kGpuEfficiency + t_host / kHostEfficiency;
    out.item("gpu_read_per_token", "read from GPU memory per token", value(p.gpu_read_per_token),
             "GPU weights (routed experts: top-k of E) + GPU KV",
             text("{}", p.gpu_read_per_token));
    out.item("host_read_per_token", "read from host memory per token", value(p.host_read_per_token),
             "host weights (routed experts: top-k of E; token_embd: one row, not counted) + host KV",
             text("{}", p.host_read_per_token));
    out.item("decode_tokens_per_second", "decode bound", value(token / bound),
             "1 / (Σ GPU bytes / its bandwidth + host bytes / host bandwidth)",
             text("1 / ({} + {} / {})", t_gpu, p.host_read_per_token, o.host_bandwidth));
    out.item("expected_decode_tokens_per_second", "expected decode", value(token / expected),
             "1 / (GPU time / e_gpu + host time / e_host)",
             text("1 / ({} / {} + {} / {})", t_gpu, kGpuEfficiency, t_host, kHostEfficiency));
    out.assume("llamacpp_offload_speed",
               text("decode reads each memory at its share of the bandwidth one after the other: the GPU at {} of "
                    "its peak, the host at {} of {} (the host's share calibrated on one published --n-cpu-moe run, "
                    "llmfit PR #755); every KV cell is read (a full context), routed experts at top-k of E per token",
                    kGpuEfficiency, kHostEfficiency, o.host_bandwidth));
  }

  out.assume("llamacpp_engine",
             text("llama.cpp's buffers (mainline, 2025-12 on) with part of the model in host memory: -ngl {} puts "
                  "blocks {}–{} and {} on the GPU; token_embd always stays on the CPU (load_tensors' input layer)",
                  static_cast<double>(p.gpu_layers), static_cast<double>(p.i_gpu_start), layers - 1.0,
                  p.output_on_gpu ? "the output layer" : "not the output layer"));
  if (o.n_cpu_moe > 0)
    out.assume("llamacpp_n_cpu_moe",
               text("--n-cpu-moe {}: ffn_gate/up/down_exps of blocks 0–{} stay in host memory (common/arg.cpp, as "
                    "-ot \"blk\\.(0|…)\\.ffn_(up|down|gate)_exps=CPU\"); their matmuls run on the CPU",
                    static_cast<double>(o.n_cpu_moe), static_cast<double>(o.n_cpu_moe - 1)));
  out.assume("llamacpp_op_offload",
             text("op offload (default on): for a ubatch of 32 tokens or more llama.cpp copies a host weight to the "
                  "GPU for its matmul; the GPU's compute buffer holds the largest, {}", p.op_offload_copy));
  out.assume("llamacpp_compute_model",
             text("compute buffers modelled per device as the largest moment of the layers it computes "
                  "(attention, feed-forward, output at ubatch {}, f32); the host's adds the input embeddings and "
                  "the mask; llama.cpp's allocator may differ by tens of percent",
                  static_cast<double>(kv.n_ubatch)));
  out.assume("kv_dtype", text("K cache in {}, V cache in {}", cache_type_name(in.type_k), cache_type_name(in.type_v)));
  out.assume("weights_dtype", text("weights stored as {}, placed tensor by tensor", in.weights_detail));
  out.assume("cuda_context", text("{} per GPU for the CUDA context, libraries and kernels", in.cuda_context));
}

}  // namespace napkin
