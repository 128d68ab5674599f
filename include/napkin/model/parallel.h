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
//     each, every expert's matrices split over the expert tensor-parallel ranks (Megatron-Core's
//     --expert-tensor-parallel-size, ETP; by default equal to TP); shared experts and routers are
//     replicated over EP and split over TP as the dense layers are;
//   - PP stages take consecutive layers, L / pp each, the first L mod pp stages one more (or, with
//     ShardLayout's first/last stage layers, Megatron-LM's uneven split); the embedding sits on
//     the first stage, the final norm and LM head on the last.
#pragma once

#include <cstdint>
#include <optional>
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
  double expert_params = 0;  // of which routed experts (split over ETP and EP)
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

/// How a model is laid out over GPUs: shard_stages' options.
struct ShardLayout {
  Count tp = 1.0 * units::one, pp = 1.0 * units::one, ep = 1.0 * units::one;
  // Expert tensor parallelism: the ranks each routed expert's matrices split over (Megatron-Core
  // --expert-tensor-parallel-size). nullopt: tp, Megatron's default (megatron/training/
  // arguments.py, NVIDIA/Megatron-LM d98e8a6, lines 587-588). Routed experts per GPU: routed /
  // (etp · ep); everything else still splits over tp.
  std::optional<Count> etp{};
  // Uneven pipeline (Megatron-LM --decoder-first-pipeline-num-layers and
  // --decoder-last-pipeline-num-layers): the layers of the first and of the last stage, the rest
  // split evenly over the stages between (stage_layer_counts). nullopt: the balanced split.
  std::optional<Count> first_stage_layers{}, last_stage_layers{};
};

/// The layers of each pipeline stage, first to last. Without first/last: the balanced split, L /
/// pp each, the first L mod pp stages one more. With them, Megatron-LM's uneven split (NVIDIA/
/// Megatron-LM d98e8a6, megatron/core/transformer/transformer_block.py get_num_layers_to_build,
/// lines 103-146, checked by transformer_config.py lines 2294-2368): the first (last) stage takes
/// `first` (`last`) layers and the stages left split the layers left evenly. Preconditions
/// (InputError naming --first-stage-layers or --last-stage-layers): pp ≥ 2; each given count ≥ 1;
/// layers left exactly when stages are left (Megatron's "Mismatch"), dividing evenly over them.
/// Interleaving's rule, that M divides every stage's layers, is the training ledger's
/// (--virtual-stages).
std::vector<std::int64_t> stage_layer_counts(std::int64_t layers, std::int64_t pp,
                                             std::optional<std::int64_t> first = std::nullopt,
                                             std::optional<std::int64_t> last = std::nullopt);

/// The expert flags against the model (InputError naming --ep or --etp): ep > 1, or a given etp,
/// only on a mixture-of-experts model. shard_stages checks it first; the training ledger too,
/// before its rule that ep · etp divide tp · cp · dp.
void check_expert_layout(const specs::ModelSpec& m, const ShardLayout& layout);

/// One entry per stage. Preconditions (InputError naming --tp, --pp, --ep, --etp or the stage
/// flags): tp divides the query heads; the KV heads divide by tp or tp by the KV heads; 1 ≤ pp ≤
/// layers; ep > 1 or a given etp only on a mixture-of-experts model, ep dividing its routed
/// experts; the stage split as stage_layer_counts requires (and a model with layers: a bare
/// parameter count has none to place).
std::vector<StageShard> shard_stages(const specs::ModelSpec& m, const ParamCount& c, const ShardLayout& layout);

/// The layers of each of a stage's `v` model chunks under interleaved 1F1B (Megatron-LM's virtual
/// stages). Equal chunks when v divides the stage's layers; otherwise ⌈L/v⌉ and ⌊L/v⌋ layers, the
/// lighter chunks first on the stage holding the embedding and last elsewhere (the slots
/// Megatron-Bridge's account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split
/// give the embedding and the loss: Llama 3.1 405B's 126 layers over pp 16 × vp 8, the first and
/// last stages 7 layers, one chunk each without a layer). Throws InputError (--virtual-stages) when
/// a chunk would hold no layer other than the embedding's first chunk or the head's last one.
std::vector<std::int64_t> chunk_layers(const StageShard& st, std::int64_t v);
/// Whether chunk_layers(st, v) has a layout (it does not throw).
bool chunkable(const StageShard& st, std::int64_t v);
/// The same at the balanced split with ETP = TP.
std::vector<StageShard> shard_stages(const specs::ModelSpec& m, const ParamCount& c, Count tp, Count pp,
                                     Count ep = 1.0 * units::one);

}  // namespace napkin
