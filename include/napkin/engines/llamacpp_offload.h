// llama.cpp with part of the model in host memory: -ngl N below every layer, --n-cpu-moe N (the
// routed experts of the first N layers kept in RAM, as `-ot "blk\.(0|…)\.ffn_.*_exps=CPU"`), the
// ledger of the GPU and of the host, and the decode speed both memories allow.
//
// Placement follows llama.cpp's loader (src/llama-model.cpp load_tensors, mainline 2025-12 on):
//   - the input layer (token_embd) is always on the CPU ("there is very little benefit to
//     offloading the input layer");
//   - the layers are the n_layer repeating blocks plus the output layer (output_norm, output) as
//     number n_layer: with -ngl N, i_gpu_start = max(n_layer + 1 − N, 0) and the layers il ≥
//     i_gpu_start go to the GPU, so -ngl 20 of a 48-layer model offloads blocks 29–47 and the
//     output ("offloaded 20/49 layers to GPU"); a tied output duplicates token_embd on the GPU;
//   - a layer's KV cache lives on its layer's device (offload_kqv, the default);
//   - --n-cpu-moe N keeps ffn_{gate,up,down}_exps of blocks 0..N−1 in host memory
//     (common/arg.cpp: "keep the Mixture of Experts (MoE) weights of the first N layers in the CPU").
// The compute buffers are napkin's model (llamacpp_compute_buffer) per device, plus, on the GPU,
// the largest host-resident matrix: with partial offload llama.cpp copies a host weight to the GPU
// for a batch of 32 or more tokens (op offload, on by default) through the GPU's compute buffer.
//
// Builds before llama.cpp PR #18148 (merged 2025-12-17) did not count the output layer among the
// -ngl layers: i_gpu_start = max(n_layer − ngl, 0), and the output went to the GPU only when ngl >
// n_layer. LlamaCppInput::build below kLlamaCppBuildNglCountsOutput follows that rule.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "napkin/engines/llamacpp.h"
#include "napkin/ground/result.h"
#include "napkin/ground/units.h"
#include "napkin/model/model_spec.h"

namespace napkin {

/// The first llama.cpp build whose -ngl counts the output layer (PR #18148, merged 2025-12-17).
/// Its number is bracketed, not pinned: b7045 was out on 2025-11-13
/// (https://github.com/docker/model-runner/pull/404) and b7571 by 2025-12-29
/// (https://github.com/AOSC-Dev/aosc-os-abbs/pull/14262); b7450 is taken, within about 60 builds.
inline constexpr int kLlamaCppBuildNglCountsOutput = 7450;

/// One weight tensor by where llama.cpp places it.
struct LlamaCppTensor {
  std::int64_t layer = -1;  // block index; -1 the input layer (token_embd); n_layer the output layer
  bool expert = false;      // a routed expert tensor (ffn_*_exps), moved by --n-cpu-moe
  double active = 1.0;      // the share of its bytes one decoded token reads (routed experts: top-k of E)
  Bytes bytes{};
};

/// One GPU of a --tensor-split: its name, the memory its runtime reports, its bandwidth and its
/// share of the offloaded layers (llama.cpp's -ts proportions; by default each GPU's free memory).
struct LlamaCppDevice {
  std::string_view name;
  Bytes capacity{};
  Bandwidth bandwidth{};
  double split = 1.0;
};

struct LlamaCppOffload {
  // Several GPUs (--tensor-split): the layers split over them in order by their proportions
  // (src/llama-model.cpp load_tensors: layer_gpu = upper_bound(cumulative splits, (il −
  // i_gpu_start) / act_gpu_layers)), each with its own buffers. Empty: one GPU, of in.capacity and
  // gpu_bandwidth.
  std::vector<LlamaCppDevice> devices;
  std::optional<std::int64_t> n_gpu_layers{};  // -ngl; nullopt: every layer and the output (-ngl 99)
  std::int64_t n_cpu_moe = 0;                  // --n-cpu-moe
  std::vector<LlamaCppTensor> tensors;         // every weight of the model, summing to in.weights
  Bandwidth gpu_bandwidth{}, host_bandwidth{};
  std::optional<Bytes> host_capacity{};        // host RAM, for the host's fit
};

/// The tensors of `m` by placement, from its architecture table (napkin/model/tensor_table.h):
/// each tensor's bytes are its elements at `matrix_bits` (16 bits for embeddings, the head and
/// norms unless `all_quantized`; routed experts only when `experts_only`), scaled so that the
/// tensors sum to `total` (the weights row, with its scales). InputError naming `flag` when the
/// model has no tensor table (a bare count or a made-up decoder).
std::vector<LlamaCppTensor> llamacpp_tensors(const specs::ModelSpec& m, Bytes total, double matrix_bits,
                                             bool all_quantized, bool experts_only, std::string_view flag);

/// The same from a GGUF's tensors by name ("token_embd.weight", "blk.3.ffn_up_exps.weight",
/// "output.weight") and bytes, as llama-quantize would write them (napkin/model/gguf_quant.h).
struct NamedBytes {
  std::string_view name;
  double bytes = 0;
};
std::vector<LlamaCppTensor> llamacpp_tensors(const specs::ModelSpec& m, const std::vector<NamedBytes>& gguf);

/// What one GPU holds.
struct LlamaCppDeviceShare {
  Bytes weights{}, kv{}, compute{}, read_per_token{};
  std::int64_t first_layer = -1, last_layer = -1;  // the layers (blocks, n_layer the output) it holds
  Bytes total(Bytes runtime_reserve) const { return weights + kv + compute + runtime_reserve; }
};

struct LlamaCppPlacement {
  std::vector<LlamaCppDeviceShare> devices;  // one per GPU; the gpu_* figures below are their sums
  std::int64_t n_layer = 0;
  std::int64_t gpu_layers = 0;   // of n_layer + 1 (the output counts as one)
  std::int64_t i_gpu_start = 0;  // first block on the GPU
  bool output_on_gpu = true;
  Bytes gpu_weights{}, host_weights{};
  Bytes gpu_kv{}, host_kv{};
  Bytes gpu_compute{}, host_compute{};  // host_compute: the CUDA_Host staging buffer
  Bytes host_cpu_compute{};              // the CPU backend's compute buffer (the layers it computes)
  Bytes op_offload_copy{};       // the largest host matrix the GPU copies (part of gpu_compute)
  Bytes gpu_read_per_token{}, host_read_per_token{};  // weights read per decoded token
};

/// Where every tensor and KV layer goes and the buffers of both devices. InputError naming
/// --n-gpu-layers or --n-cpu-moe for a negative value or an --n-cpu-moe on a model without routed
/// experts.
LlamaCppPlacement llamacpp_place(const specs::ModelSpec& m, const LlamaCppInput& in, const LlamaCppOffload& o);

/// The largest -ngl (0 to n_layer + 1) whose GPU ledger fits in.capacity with o's other settings;
/// -1 when not even -ngl 0 fits (the KV of no layer, the compute buffer and the reserve).
std::int64_t llamacpp_max_gpu_layers(const specs::ModelSpec& m, const LlamaCppInput& in, LlamaCppOffload o);

/// The ledger with part of the model in host memory: the GPU rows (weights, kv_cache,
/// compute_buffer, runtime_reserve, per_gpu, fits), the host rows (host_weights, host_kv_cache,
/// host_compute_buffer (CUDA_Host), host_cpu_compute_buffer, host_total, host_fits with a host
/// capacity), gpu_layers, and the decode
/// speed from both bandwidths (decode_tokens_per_second: the bound at peak bandwidths;
/// expected_decode_tokens_per_second: at the efficiencies stated in the assumptions).
void llamacpp_offload_memory(const specs::ModelSpec& m, const LlamaCppInput& in, const LlamaCppOffload& o,
                             ResultSet& out);

}  // namespace napkin
