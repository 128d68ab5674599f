// --engine and llama.cpp's flags, shared by memory and serve. --engine is defined here for every
// engine napkin knows: none (napkin's engine-neutral ledger), llama.cpp, vllm, sglang.
#pragma once

#include <string>

#include "hardware_option.h"
#include "numeric_flags.h"
#include "weight_storage.h"
#include "napkin/engines/llamacpp.h"
#include "napkin/engines/llamacpp_offload.h"
#include "napkin/memory/ledgers.h"

namespace napkin::cli {

enum class Engine { none, llamacpp, vllm, sglang };

/// --engine none|llama.cpp|vllm|sglang (default none), in group "Engine".
void add_engine_option(CommandApp* sub, std::string& engine);
/// "none", "llama.cpp" (also "llamacpp", "llama-cpp"), "vllm", "sglang". InputError naming --engine
/// for anything else.
Engine parse_engine(const std::string& text);

/// The GPU total an engine sizes its budget from, as the CUDA runtime reports it
/// (torch.cuda.mem_get_info, cudaMemGetInfo: the driver's total less its reservations, e.g. 79.20
/// GiB on an H100 SXM where nvidia-smi shows 79.65). With --hw naming a part whose preset records
/// that total, it fills `capacity` (a --gpu-memory given wins); `source` says where the figure
/// came from (the driver's total, which the runtime sees 0.3–0.6 GiB of less, where no runtime
/// total is recorded).
struct EngineTotal {
  std::string source;
};
EngineTotal fill_engine_total(const HardwareOption& hw, NumericFlag& capacity);
/// States `t` (key gpu_total).
void assume_engine_total(const EngineTotal& t, std::string_view engine, ResultSet& rs);

/// llama.cpp's flags beside --kv-dtype: --v-dtype, --ubatch, --parallel, --swa-full,
/// --no-flash-attention, and --flash-attention where the command has none yet.
struct LlamaCppFlags {
  std::string v_dtype;
  std::size_t ubatch = 0, parallel = 0;  // indices in NumericFlags
  std::size_t n_gpu_layers = 0, n_cpu_moe = 0, host_bandwidth = 0, host_memory = 0;
  std::size_t build = 0;  // --llama-cpp-build
  std::string tensor_split;  // --tensor-split PRESET[:WEIGHT],...
  // The GPUs of --tensor-split once parsed (parse_tensor_split); the names outlive the ResultSets.
  std::vector<std::string> device_names;
  std::vector<LlamaCppDevice> devices;
  bool swa_full = false, kv_unified = false, no_flash_attention = false, flash_attention = false;
};
/// With offload_flags (memory): also --n-gpu-layers, --n-cpu-moe, --host-bandwidth, --host-memory.
void add_llamacpp_flags(CommandApp* sub, NumericFlags& nf, LlamaCppFlags& f, bool add_flash_attention,
                        bool offload_flags = false);

/// Refuses (InputError naming the flag) llama.cpp's flags without --engine llama.cpp, and the
/// flags in `not_with_llamacpp` with it.
void check_engine_flags(CommandApp* sub, Engine engine, std::initializer_list<const char*> not_with_llamacpp);

/// The cache types and flash attention of a llama.cpp run: --kv-dtype (default f16) for K,
/// --v-dtype (default: K's) for V. llama.cpp refuses a quantized V cache without flash attention
/// ("V cache quantization requires flash_attn", src/llama-context.cpp): so does napkin.
/// Also parses --tensor-split (parse_tensor_split).
void fill_llamacpp_input(CommandApp* sub, const std::string& kv_dtype, LlamaCppFlags& f, LlamaCppInput& in);
/// The llama.cpp build at one sweep point (--llama-cpp-build; 0, the current reserve, when not given).
int llamacpp_build(const LlamaCppFlags& f, const Point& p);

/// The napkin dtype serve's roofline reads a llama.cpp cache at: the wider of K and V, f32 → fp32,
/// f16 → fp16, bf16 → bf16, q8_0 → int8, the 4- and 5-bit types → int4.
Dtype kv_read_dtype(CacheType k, CacheType v);

/// Why llama.cpp would not start with the ledger in `rs` ("does not fit: ..."), or "" when it fits
/// or no capacity was given: with every layer on the GPU (-ngl 99) a buffer that does not fit is
/// a failed allocation and the model does not load.
std::string llamacpp_failure(const ResultSet& rs);

/// llama.cpp's ledger into `rs` (llamacpp_memory; for serve, llamacpp_serve_ledger over the
/// engine-neutral rows): the model buffer is napkin's weights row for `weights` (a checkpoint's
/// stored bytes, e.g. a GGUF's tensors, or the dtype arithmetic) on one GPU.
/// Part of the model in host memory (memory --engine llama.cpp): -ngl, --n-cpu-moe, the host's
/// bandwidth and memory, the GPU's bandwidth, and how the weights are stored (their tensors).
struct OffloadRequest {
  std::vector<LlamaCppDevice> devices;  // --tensor-split's GPUs; empty: one GPU
  std::optional<double> n_gpu_layers;  // nullopt: all, or the most that fit when all do not
  double n_cpu_moe = 0;
  Bandwidth gpu_bandwidth{}, host_bandwidth{};
  std::optional<Bytes> host_memory;
  // --host-bandwidth or --host-memory given: the host's rows and the decode speed are asked for, so
  // the ledger is the offload one even with every layer on the GPU (else the flags change nothing).
  bool host_given = false;
  const WeightStorage* storage = nullptr;
};
/// --tensor-split "rtx-4090,rtx-3090" or "rtx-4090:3,rtx-3090:1": the GPUs (hardware presets or
/// files) llama.cpp splits the layers over, with -ts proportions (default: each GPU's memory, as
/// llama.cpp splits by free memory). Fills f.devices; InputError naming --tensor-split for an
/// unknown GPU, a bad weight or fewer than two GPUs, and naming --hw or --gpu-memory given with it.
void parse_tensor_split(CommandApp* sub, LlamaCppFlags& f);
/// The offload request of one sweep point: -ngl when given, --n-cpu-moe, the host's figures, the
/// GPU's bandwidth from --hw.
OffloadRequest offload_request(const NumericFlags& nf, const LlamaCppFlags& f, const Point& p,
                               const HardwareOption& hw, const WeightStorage& storage);
/// A serving engine (vllm, sglang) whose budget replaces the engine-neutral ledger: refuses
/// --params (bare), --train and the flags in `refused` (InputError naming the flag and what the
/// engine takes instead, `takes`).
void check_serving_engine(CommandApp* sub, std::string_view engine, bool bare, bool train,
                          std::initializer_list<const char*> refused, std::string_view takes);
void llamacpp_ledger(LlamaCppInput li, const specs::ModelSpec& m, InferenceMemoryInput weights, ResultSet& rs,
                     bool serve, const OffloadRequest* offload = nullptr);

}  // namespace napkin::cli
