// train's step-model flags (napkin/plans/train_step.h): --global-batch, --system,
// --intra-node-bandwidth, --inter-node-bandwidth, --tp-comm-overlap and --dp-comm-overlap, and
// how they, the --hw preset and its system preset fill TrainInput::speed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "command_app.h"
#include "hardware_option.h"
#include "napkin/plans/train.h"
#include "napkin/specs/systems.h"
#include "numeric_flags.h"
#include "sweep.h"

namespace napkin::cli {

struct TrainSpeedFlags {
  std::size_t global_batch = 0, intra = 0, inter = 0, tp_overlap = 0, dp_overlap = 0;
  std::string system;  // --system NAME
  // Resolved once per configuration (resolve_train_speed):
  std::optional<specs::SystemSpec> sys;
  std::string efficiency_source, links_source;  // outlive the ResultSets
  std::optional<Efficiency> efficiency;         // serve's profile for the GPU's class
  Seconds layer_overhead{};                     // its per-layer overhead
  std::string unavailable;                      // why there is no step model ("" when there is one)
};

void add_train_speed_flags(CommandApp* sub, NumericFlags& nf, TrainSpeedFlags& f);

/// The system (--system, else the --hw preset's default one) and serve's efficiency profile for the
/// GPU. `architecture` is false for a bare --params count. Throws InputError on a flag of the step
/// model given where there is none, an unknown --system or one of another GPU.
void resolve_train_speed(CommandApp* sub, const NumericFlags& nf, TrainSpeedFlags& f, const HardwareOption& hw,
                         bool architecture);

/// TrainInput::speed at one sweep point (nothing when there is no step model) and the global batch.
void fill_train_speed(const TrainSpeedFlags& f, const HardwareOption& hw, const Point& p, TrainInput& in);

/// Why there is no step model, as an assumption (nothing when `in` has one).
void assume_no_step_model(const TrainSpeedFlags& f, const TrainInput& in, ResultSet& rs);

}  // namespace napkin::cli
