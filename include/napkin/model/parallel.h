// Sharding a model over GPUs: tensor parallelism (TP) splits each layer's matrices, pipeline
// parallelism (PP) splits the layers into stages. The memory of several GPUs is not one pool
// (notes 7.4): what matters is what the most loaded GPU holds.
//
// Conventions (Megatron-LM, Shoeybi et al. 2019 §3; vLLM's vocab-parallel embedding):
//   - attention heads, MLP columns/rows, experts and the embedding/LM-head vocabulary are split
//     over TP; norms and routers are replicated;
//   - K/V projections split by KV head; with fewer KV heads than TP ranks each rank keeps one
//     whole KV head (replicated), which needs TP to be a multiple of the KV heads;
//   - expert parallelism (EP) places the routed experts of each MoE layer on ep ranks, E / ep
//     each, every expert's matrices still split over TP (Megatron-Core's expert tensor
//     parallelism equal to TP); shared experts and routers are replicated over EP;
//   - PP stages take consecutive layers, L / pp each, the first L mod pp stages one more; the
//     embedding sits on the first stage, the final norm and LM head on the last.
#pragma once

#include <cstdint>
#include <vector>

#include "napkin/ground/units.h"
#include "napkin/model/model_spec.h"
#include "napkin/model/params.h"

namespace napkin {

/// What one GPU of a pipeline stage holds.
struct StageShard {
  std::int64_t first_layer = 0, layers = 0;  // layers [first_layer, first_layer + layers)
  double params = 0;       // parameters per GPU of this stage
  double kept_params = 0;  // of which embeddings, head and norms (kept unquantized by default)
  double expert_params = 0;  // of which routed experts (split over TP and EP)
  double kv_heads = 0;     // KV heads per GPU (MLA: 1, the shared latent)
  std::int64_t windowed_layers = 0;  // of `layers`, those with a sliding window
  std::int64_t chunked_layers = 0;   // those with chunked attention (Llama 4's local layers)
  std::int64_t attention_free = 0;   // those without attention (no KV cache)
  // A model with per-layer KV shapes (ModelSpec::has_layer_kv): K and V elements per token one
  // GPU caches, summed over the stage's full, windowed and chunked layers.
  double kv_width_full = 0, kv_width_window = 0, kv_width_chunk = 0;
  /// Layers of the stage that attend over every earlier token.
  std::int64_t full_layers() const { return layers - windowed_layers - chunked_layers - attention_free; }
  bool has_embedding = false, has_head = false;
  double largest_layer = 0;  // parameters per GPU of the stage's largest layer (an FSDP unit)
};

/// One entry per stage. Preconditions (InputError naming --tp, --pp or --ep): tp divides the
/// query heads; the KV heads divide by tp or tp by the KV heads; 1 ≤ pp ≤ layers; ep > 1 only on
/// a mixture-of-experts model, dividing its routed experts.
std::vector<StageShard> shard_stages(const specs::ModelSpec& m, const ParamCount& c, Count tp, Count pp,
                                     Count ep = 1.0 * units::one);

}  // namespace napkin
