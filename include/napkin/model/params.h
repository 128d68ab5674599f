// Exact parameter counts of a transformer from its ModelSpec: total, active per token, embedding,
// non-embedding, and a breakdown by tensor group and by layer kind. Integer arithmetic only; the
// counts are those of the checkpoint's weight tensors (buffers such as rotary inv_freq are not
// weights and are not counted).
//
// Conventions (each also stated as an assumption in the ResultSet):
//   embedding params = token embeddings + learned position / token-type embeddings + an untied
//                      LM head; non-embedding = total − embedding. Pythia's published
//                      "non-embedding params" follow the same rule (Biderman et al. 2023,
//                      "Pythia", Table 1: 1.4B has 1,414,647,808 total, 1,208,602,624
//                      non-embedding).
//   active params    = what one token passes through: everything except the routed experts it
//                      is not sent to (k of E per MoE layer). Shared experts, dense layers,
//                      embeddings and head count in full. Dense models: active = total.
//
// Tensor groups use the names of the checkpoint readers (specs/checkpoint.h tensor_group) so the
// two counts can be compared group by group: embedding, attention, mlp, experts (routed and
// shared), router, norm, head, other.
//
// Preconditions (InputError naming the field): positive sizes; heads divisible by kv_heads.
#pragma once

#include <array>
#include <cstdint>
#include <vector>
#include <string_view>

#include "napkin/ground/result.h"
#include "napkin/model/model_spec.h"

namespace napkin {

// ssm: the Mamba mixers of state-space layers (in_proj, conv1d, x_proj, dt_proj, A_log, D, dt_bias,
// out_proj; their inner norms count under norm). vision: a vision (or audio) tower and its
// projector into the language model, counted for checkpoints that ship one (--text-only drops it).
enum class ParamGroup { embedding, attention, mlp, experts, router, norm, head, other, ssm, vision };
inline constexpr std::array<ParamGroup, 10> kParamGroups{
    ParamGroup::embedding, ParamGroup::attention, ParamGroup::mlp,   ParamGroup::experts, ParamGroup::router,
    ParamGroup::norm,      ParamGroup::head,      ParamGroup::other, ParamGroup::ssm,     ParamGroup::vision};

/// "embedding", "attention", ... (the result keys of the breakdown and the checkpoint groups).
std::string_view param_group_name(ParamGroup g);

/// Parameters of one decoder (or encoder) layer, by group.
struct LayerParams {
  std::int64_t attention = 0;  // projections and their biases
  std::int64_t norm = 0;       // layer norms, q/k norms, MLA latent norms
  std::int64_t mlp = 0;        // dense MLP
  std::int64_t routed = 0;     // all routed experts of the layer
  std::int64_t routed_one = 0; // one routed expert
  std::int64_t shared = 0;     // shared experts
  std::int64_t router = 0;     // router weight (+ bias, + shared-expert gate)
  std::int64_t ssm = 0;        // Mamba mixer (state-space layers)
  std::int64_t other = 0;      // a table family's other tensors inside the layer (kept whole)
  std::int64_t total() const { return attention + norm + mlp + routed + shared + router + ssm + other; }
  bool operator==(const LayerParams&) const = default;
};

struct ParamCount {
  std::array<std::int64_t, 10> groups{};  // indexed by ParamGroup
  std::int64_t mtp = 0;  // multi-token-prediction layers the checkpoint stores (not in total)
  std::int64_t total = 0;
  std::int64_t active = 0;
  std::int64_t embedding = 0;      // embedding group + untied head
  std::int64_t non_embedding = 0;  // total − embedding
  std::int64_t dense_layers = 0, moe_layers = 0;
  LayerParams dense_layer, moe_layer;  // one layer of each kind
  // State-space models: layers with attention and with a Mamba mixer (the rest mix nothing), and
  // one Mamba mixer (its inner norms under norm). dense_layer and moe_layer hold attention; a
  // layer's own parameters are layer_params(m, c, l).
  std::int64_t attention_layers = 0, mamba_layers = 0;
  LayerParams mamba_mixer;
  // A table family's parameters layer by layer (empty for the closed formulas): summed in one pass
  // over its tensors, so that layer_params is not a walk over every tensor per layer.
  std::vector<LayerParams> table_layers;
  std::int64_t group(ParamGroup g) const { return groups[static_cast<std::size_t>(g)]; }
};

/// Counts every weight tensor the spec implies. Throws InputError on an inconsistent spec.
ParamCount count_params(const specs::ModelSpec& m);

/// Whether the spec's own fields give the count of `m`'s tensor table exactly, group by group and
/// layer kind by layer kind (true for a spec without a tensor table): `params` then shows the
/// formulas, and napkin model JSON can carry the spec without its tensors.
bool formulas_reproduce_tensors(const specs::ModelSpec& m);

/// The parameters of layer `l` of a counted model: its mixer (attention, a Mamba mixer or none),
/// its norms, and its feed-forward block (dense, MoE or none).
LayerParams layer_params(const specs::ModelSpec& m, const ParamCount& c, std::int64_t l);

/// The `params` command's result: total_params, active_params, embedding_params,
/// non_embedding_params, then one item per non-empty group and per layer kind. The spec must
/// outlive `out` (its name and notes are referenced, not copied).
void count_params(const specs::ModelSpec& m, ResultSet& out);

}  // namespace napkin
