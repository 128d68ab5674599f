// "N users at C tokens on how many GPUs, with vLLM?": the fewest GPUs (over tensor- and
// pipeline-parallel layouts) whose vLLM KV pool holds `users` requests of in.context tokens at
// once, beside the answer of napkin's engine-neutral ledger to the same question.
#pragma once

#include <cstdint>
#include <optional>

#include "napkin/engines/vllm.h"
#include "napkin/ground/result.h"
#include "napkin/memory/ledgers.h"

namespace napkin {

struct VllmLayoutAnswer {
  std::optional<Layout> fewest{};  // nullopt: no layout within the limits holds the users
  Layout closest{};                // the layout whose pool holds the most requests (shown when none fits)
  double closest_concurrency = 0;
  std::int64_t tried = 0;
};

/// Walks the layouts of `search` (TP over the degrees the model accepts up to search.max_tp, PP
/// from 1 to the layers unless fixed): at each, the weights per GPU are vLLM's (vllm_weights) for
/// `weights` at that layout (the most loaded stage), and the layout holds the users when vLLM starts and its pool
/// holds at least `users` requests of base.context tokens (max_concurrency ≥ users). Fewest GPUs
/// first, then fewer stages, then lower TP. InputError naming --users when users exceeds
/// base.max_num_seqs (vLLM runs at most max_num_seqs requests at once, on any number of GPUs).
VllmLayoutAnswer vllm_min_gpus(const specs::ModelSpec& m, const VllmInput& base, const InferenceMemoryInput& weights,
                               double users, const LayoutSearch& search);

/// The vLLM ledger at the answer (or at the closest layout when none holds the users), the rows
/// min_gpus, tp, pp, dp (none values when nothing fits), and neutral_min_gpus: the fewest GPUs of
/// napkin's engine-neutral ledger for `weights` at batch = users (min_gpus_inference), with a note
/// when the two answers differ.
void vllm_min_gpus(const specs::ModelSpec& m, const VllmInput& base, const InferenceMemoryInput& weights, double users,
                   const LayoutSearch& search, ResultSet& out);

}  // namespace napkin
