// What train.cpp (a training run's numbers) and train_report.cpp (the command's items) share;
// internal to the plans layer.
#pragma once

#include <optional>

#include "napkin/ground/result.h"
#include "napkin/ground/units.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/flops.h"
#include "napkin/model/model_spec.h"
#include "napkin/plans/train.h"

namespace napkin::train_detail {

inline double num(Count c) { return c.in(units::one); }

/// The run's GPUs and its data-parallel degree: gpus = tp · pp · dp.
struct Layout {
  Count gpus{}, dp{};
};

/// The run given by what it took (--tokens-per-second, --gpu-hours or --time): the rate follows.
inline bool inverse(const TrainInput& in) { return in.tokens_per_second || in.gpu_hours || in.time; }

/// The training FLOP by the formula chosen, and what the formula read to count them.
struct Counted {
  TrainingFlops flops;
  Params p{};       // 6pd, palm
  double v = 0.0;   // megatron: V used
  double hq = 0.0;  // palm: heads · head_dim
  // 6pd and palm with a MODEL and no --params: the model's counts and the one P is.
  std::optional<ModelP> model_p{};
  ParamsCount which = ParamsCount::non_embedding;
  std::optional<Params> lora_p{};  // 6pd with --lora-rank: the adapters' parameters
};

/// The formula's forward and backward, and the recomputation's rerun; `mp` is null for a bare
/// parameter count (6pd only). Throws InputError on a formula the input cannot feed.
Counted count_flops(const specs::ModelSpec* mp, const TrainInput& in);

/// The memory ledger's input for the run: in.memory at data-parallel degree `dp`.
TrainingMemoryInput memory_input(const TrainInput& in, Count dp);

/// The model a bare --params run stands for (specs::bare_model); throws InputError without --params.
specs::ModelSpec bare_spec(const TrainInput& in);

/// The rules on the run's shape (train.cpp lists them): with `out` null they throw InputError on a
/// run they refuse; with `out` they add their warnings to it.
void check_run(const specs::ModelSpec* mp, const TrainInput& in, const Layout& lay, ResultSet* out);

/// The run's numbers; `mp` is null for a bare parameter count. Throws InputError on bad input.
TrainEstimate estimate(const specs::ModelSpec* mp, const TrainInput& in);

/// The step model's items (expected_step_time, its terms, expected_tokens_per_second,
/// expected_mfu) and its assumptions (train_step_report.cpp); nothing without r.step.
void step_items(const specs::ModelSpec* mp, const TrainInput& in, const TrainEstimate& r, ResultSet& out);
void step_assumptions(const specs::ModelSpec* mp, const TrainInput& in, const TrainEstimate& r, ResultSet& out);

}  // namespace napkin::train_detail
