// FLOP counts from matrix shapes: matmul, FFN, attention, and dense training compute (6PD).
// Course notes 7.3. Every function comes in two forms: a numeric one that returns the typed
// count (what other calculators call), and one that appends the itemized result (items,
// formulas, assumptions, resolved inputs) to a ResultSet.
//
// Preconditions (violations throw InputError naming the input): sizes are positive and finite.
#pragma once

#include <optional>
#include <string_view>

#include "napkin/ground/result.h"
#include "napkin/ground/units.h"
#include "napkin/model/model_spec.h"

namespace napkin {

using FlopsPerToken = Quantity<Dim<1, 0, 0, 0, -1, 0>>;  // FLOP/token

// ---- matmul ---------------------------------------------------------------------------------

struct MatmulInput {
  Count m{}, k{}, n{};            // [m,k] @ [k,n] -> [m,n]
  bool fma_as_one = false;  // count a fused multiply-add as one operation
};

/// 2·m·k·n FLOP (k multiplies and k−1 adds per output, rounded to 2k); m·k·n when a fused
/// multiply-add counts as one operation.
Flops matmul_flops(const MatmulInput& in);
void matmul_flops(const MatmulInput& in, ResultSet& out);

// ---- FFN ------------------------------------------------------------------------------------

struct FfnInput {
  Count d{}, f{};                      // D -> F -> D
  bool gated = false;              // SwiGLU/GeGLU: three projections
  Tokens tokens = 1.0 * units::token;
  std::optional<Count> layers{};   // L blocks of this shape; absent: one (and not shown)
  // B sequences of T tokens: the tokens are B·T. Both or neither; with them `tokens` must stay
  // at its default (1 token), since B·T replaces it.
  std::optional<Count> batch{}, seq{};
};

/// The tokens through one block: B·T when batch and seq are given, else `tokens`.
/// InputError: batch without seq or seq without batch, tokens other than 1 beside them.
Tokens ffn_tokens(const FfnInput& in);
/// 4·D·F FLOP per token for a bias-free D→F→D FFN, 6·D·F when gated; activation ignored. One
/// block: layers do not enter.
FlopsPerToken ffn_flops_per_token(const FfnInput& in);
/// FLOP/token · tokens (ffn_tokens) · L.
Flops ffn_flops(const FfnInput& in);
void ffn_flops(const FfnInput& in, ResultSet& out);
/// The ffn_gated and ffn_activation assumptions of ffn_flops, for callers that report the same
/// count (roofline --op ffn).
void assume_ffn_counting(bool gated, ResultSet& out);

// ---- attention ------------------------------------------------------------------------------

struct AttentionInput {
  Count batch{};   // B sequences
  Count seq{};     // T tokens per sequence
  Count d{};     // model width D (= heads × head_dim)
  Count d_kv{};  // width of the K and V projections; zero means D (multi-head attention)
  Count layers = 1.0 * units::one;
  bool causal_skip = false;  // the kernel skips the masked upper triangle
};

struct AttentionFlops {
  Flops projection{};  // Q, K, V, O projections
  Flops attention{};   // QKᵀ and A·V
  Flops total() const { return projection + attention; }
};

/// Projections 2·B·T·D·(2·D + 2·D_kv) (= 8·B·T·D² for MHA), scores and weighted sum 4·B·T²·D
/// (halved with causal_skip), times layers. Softmax, scaling and masking are not counted.
AttentionFlops attention_flops(const AttentionInput& in);
void attention_flops(const AttentionInput& in, ResultSet& out);
/// The causal_skip assumption of attention_flops (whether the T² term is halved), for callers
/// that report the same count (roofline --op attention).
void assume_causal_skip(bool causal_skip, ResultSet& out);

// ---- training -------------------------------------------------------------------------------

// op_sac: torchtitan's per-op selective checkpointing (save the outputs of every other matmul, of
// fused attention and of reduce-scatters; recompute the rest): see napkin/memory/ledgers.h.
enum class Recompute { none, selective, full, op_sac };

/// "none", "selective", "full" or "op-sac"; anything else is InputError naming `field`.
Recompute parse_recompute(std::string_view text, std::string_view field);

struct TrainingFlopsInput {
  Params params{};           // dense, non-embedding parameters on the active path (notes 7.3)
  Tokens tokens{};             // training tokens, at least 1
  double backward_factor = 2.0;  // backward FLOP = factor × forward FLOP
  Recompute recompute = Recompute::none;
  // Optional terms that 6PD leaves out. Zero means "not given": the term is not counted.
  Count layers{};   // L, with seq and d_model: attention score FLOPs
  Count seq{};      // T, training sequence length
  Count d_model{};  // D
  Count vocab{};    // V, with d_model: LM-head matmul FLOPs
};

struct TrainingFlops {
  Flops forward{};  // 2·P·D_tok (+ attention scores + head)
  Flops backward{};   // backward_factor × forward
  Flops recompute{};  // forward recomputed in backward (activation checkpointing)
  Flops total() const { return forward + backward + recompute; }
};

/// Dense training compute C ≈ 6·P·D_tok: forward 2 FLOP and backward 4 FLOP per parameter per
/// token (course notes 7.3). With layers, seq and d_model given, adds attention's T² term,
/// 4·L·T·D forward FLOP per token (PaLM, Chowdhery et al. 2022, appendix B: 6N + 12·L·H·Q·T in
/// total); with vocab and d_model, the LM head's 2·V·D per token. Full recomputation reruns the
/// forward pass once (8PD); selective recomputation reruns the attention score term only.
/// InputError: tokens below 1 (a run sees whole tokens); with the attention term, fewer tokens
/// than one sequence of T; an optional term given in part (layers or seq without the other two
/// and d_model, vocab without d_model, d_model alone): it would change nothing.
TrainingFlops training_flops(const TrainingFlopsInput& in);
void training_flops(const TrainingFlopsInput& in, ResultSet& out);

// ---- which P: total or non-embedding ------------------------------------------------------------

/// Which of a model's counts is 6PD's P. The course notes (7.3) define it as the non-embedding
/// count ("P = main non-embedding dense parameters"), as Kaplan et al. 2020 count N; papers that
/// quote a run's compute from the headline size use the total (the Llama 3 paper's 3.8e25 FLOP
/// for 405B on 15.6T tokens is 6 × 405B × 15.6T; PaLM's N, see train.h). On the active path for
/// MoE: total = the active count, non-embedding = active − embedding.
enum class ParamsCount { total, non_embedding };

/// "total" or "non-embedding" (also "non_embedding"); anything else is InputError naming `field`.
ParamsCount parse_params_count(std::string_view text, std::string_view field);
std::string_view to_string(ParamsCount c);
inline ParamsCount other(ParamsCount c) {
  return c == ParamsCount::total ? ParamsCount::non_embedding : ParamsCount::total;
}

/// Why non-embedding is 6PD's default, as the assumptions quote it.
inline constexpr std::string_view kParamsCountNotesDefault =
    "the default, the course notes' P (7.3: \"P = main non-embedding dense parameters\")";

/// A model's P under both conventions (params.h's exact counts, on the active path).
struct ModelP {
  Params total{};          // active (= total for a dense model), embeddings and head included
  Params embedding{};      // token embeddings, learned positions and an untied head
  Params non_embedding{};  // total − embedding
  bool moe = false;
  Params pick(ParamsCount c) const { return c == ParamsCount::total ? total : non_embedding; }
};
ModelP model_p(const specs::ModelSpec& m);

/// The `params_count` assumption (which P, its value, whose convention; `why_default` is the
/// reason when the caller picked the count by default, empty when the user chose it) and a note
/// with the training FLOP under the other convention (`other_flops`). Used by flops train MODEL
/// and train MODEL.
void describe_params_count(const ModelP& p, ParamsCount used, std::string_view why_default, Flops other_flops,
                           ResultSet& out);

/// Partial recomputation: a fraction f of the layers fully recomputed, the others as `rest` was
/// counted. Forward and backward are rest's; recompute = f · full.recompute + (1 − f) · rest.recompute,
/// `full` being the same count under Recompute::full. f in [0, 1].
TrainingFlops partial_recompute(const TrainingFlops& rest, const TrainingFlops& full, double fraction);

/// flops train MODEL: P is the model's count under `which` (default non-embedding, the course
/// notes'; in.params is ignored); otherwise as training_flops(in, out), with the params_count
/// assumption and the other convention's FLOP as a note. The spec must outlive `out`.
void training_flops(const specs::ModelSpec& m, std::optional<ParamsCount> which, const TrainingFlopsInput& in,
                    ResultSet& out);

/// The GPT layer of Narayanan et al. 2021 ("Efficient Large-Scale Language Model Training on GPU
/// Clusters Using Megatron-LM", §5.1, eq. 3): MHA, a plain 4h MLP, the logit layer at the end.
struct MegatronFlopsInput {
  Count layers{};  // l
  Count hidden{};  // h
  Count seq{};     // s
  Count vocab{};   // V (as the run pads it)
  Tokens tokens{};  // B·s·iterations
  Recompute recompute = Recompute::none;
};

/// Per token: forward 24·l·h² + 4·s·l·h + 2·h·V, backward twice that, so
///   none       72·l·h²·(1 + s/(6h) + V/(12·l·h))
///   full       96·l·h²·(1 + s/(6h) + V/(16·l·h))   (eq. 3: the layers' forward reruns, the
///                                                   logit layer does not)
///   selective  the `none` count + 4·s·l·h (QKᵀ and A·V rerun, Korthikanti et al. 2022)
/// times the tokens.
TrainingFlops megatron_training_flops(const MegatronFlopsInput& in);

}  // namespace napkin
