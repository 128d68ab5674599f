// The loop every command runs: parse the numeric flags, check every value before printing
// anything, run a calculator once per combination and hand each ResultSet to the renderer.
#pragma once

#include <functional>

#include "napkin/ground/result.h"
#include "command_app.h"
#include "numeric_flags.h"
#include "output_flags.h"
#include "sweep.h"

namespace napkin::cli {

using Compute = std::function<void(const Point&, ResultSet&)>;

/// Parses the numeric flags, runs `compute` for each combination and renders. Returns the
/// exit code (0; checks the user asked for may return 1).
int run_sweep(CommandApp* sub, NumericFlags& nf, const OutputOptions& out, const Compute& compute);

}  // namespace napkin::cli
