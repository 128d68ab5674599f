// The training planner: every layout of a model on N GPUs, TP × PP × CP × DP × EP × virtual stages ×
// ZeRO stage × recomputation × micro-batch, each ranked by the step model's expected tokens per
// second (train_step.h) among those whose per-GPU training ledger fits (training_memory,
// memory/ledgers.h). Exhaustive within the limits below: no layout inside them that fits is
// faster than the first one returned.
//
//   tp   the degrees the model accepts (tp_degrees: divisors of the heads compatible with the KV
//        heads) up to the scale-up domain (TP's collectives need its link), or max_tp
//   cp   1, 2, 4, ... while 2·cp divides the sequence (Megatron-LM's load-balanced chunks), up to
//        max_cp; dense models only (CP with EP is not modelled)
//   pp   every degree up to the layers (max_pp) with tp·cp·pp dividing the GPUs; dp the rest
//   ep   MoE: divisors of the routed experts that divide dp (EP ranks are DP ranks); with the run's
//        --etp, those whose ep · etp divides tp · cp · dp (Megatron-Core's expert grid)
//   split the layers over pp stages evenly; where pp does not divide them and the run gives no stage
//        flags, Megatron-Bridge's accounting when (L + 2) divides by pp (the embedding and the loss
//        take a layer's slot each: first and last stages one layer short, Llama 3.1 405B's
//        7 + 14 × 8 + 7 at pp 16), else the remainder on the first stages
//   vp   interleaved stages per rank (pp ≥ 2, up to max_vp when given): equal chunks on every stage,
//        or the accounting's (the first stage's first chunk and the last stage's last one layer short)
//   zero 0-3 when dp·cp > 1 (0 alone without data parallelism)
//   recompute none, selective, full
//   micro-batch 1, 2, 4, ... up to max_micro_batch, with dp · mb dividing the global batch
//   sequence parallelism on whenever tp > 1 (it shards the activations TP leaves whole at no
//   extra traffic: Korthikanti et al. 2022 §4.2.2)
// A constraint fixes a dimension. Ties in tokens per second go to more memory headroom, then to
// fewer GPUs per model replica (tp·pp·cp) and fewer stages. The ranking
// lists parallel layouts (tp, pp, cp, dp, ep, vp), each once, at its best ZeRO stage, recomputation
// and micro-batch.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "napkin/plans/train.h"

namespace napkin {

struct TrainPlanInput {
  TrainInput run{};  // tokens, recipe, capacity, peak, speed model (required); its layout is ignored
  std::int64_t gpus = 1;
  std::optional<std::int64_t> tp{}, pp{}, cp{}, ep{}, vp{}, micro_batch{};
  std::optional<int> zero{};
  std::optional<Recompute> recompute{};
  std::int64_t max_tp = 0;   // 0: the scale-up domain
  std::int64_t max_pp = 0;   // 0: the layers
  std::int64_t max_cp = 16;
  std::int64_t max_vp = 0;   // 0: any divisor of the stages' layers
  std::int64_t max_micro_batch = 16;
  std::size_t keep = 5;      // layouts returned
};

struct PlannedLayout {
  TrainLayout layout{};
  TrainStep step{};
  TokenRate tokens_per_second{};
  double mfu = 0;       // expected, in the run's model-FLOP convention
  Bytes per_gpu{};      // the most loaded GPU's ledger
  Bytes headroom{};     // capacity − per_gpu (negative: does not fit)
  bool fits = false;
};

struct TrainPlan {
  std::vector<PlannedLayout> ranked;            // fitting parallel layouts, best first, at most keep
  std::optional<PlannedLayout> fastest_unfit;   // the fastest layout that does not fit
  // Layouts whose step was costed; of them, those whose ledger was needed (a layout slower than the
  // k-th ranked and than the fastest one that does not fit cannot change the answer: its ledger is
  // skipped, the search stays exact).
  std::int64_t evaluated = 0, ledgers = 0;
};

/// Precondition: run.speed and run.peak and run.memory.capacity set, a model architecture.
/// InputError on a constraint the model refuses (a TP degree its heads do not divide, ...).
TrainPlan plan_train(const specs::ModelSpec& m, const TrainPlanInput& in);

/// The TrainInput that times `l` as the train command does (layout, ZeRO, recompute, micro-batch,
/// global batch, sequence parallelism), from the plan's run.
TrainInput planned_input(const TrainPlanInput& in, const TrainLayout& l);

}  // namespace napkin
