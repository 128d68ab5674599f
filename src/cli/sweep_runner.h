// The loop every command runs: parse the numeric flags, check every value before printing
// anything, run a calculator once per combination and hand each ResultSet to the renderer.
#pragma once

#include <functional>
#include <string>
#include <vector>

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

/// Several rows per combination (plan train's ranked layouts): `compute` fills row `row` of the
/// point and returns true, or returns false when the point has no such row (the next point
/// follows). Rendered as a sweep (one JSON object, CSV line or table row each) when the flags sweep
/// or `many_rows` says a point may have more than one row.
using ComputeRow = std::function<bool(const Point&, std::size_t row, ResultSet&)>;
/// `columns`: the table's columns of a ranked list (RenderOptions::swept, only_items and
/// every_rows_notes; nullptr: a sweep's own).
struct RowColumns {
  std::vector<std::string> inputs, items;
};
int run_sweep_rows(CommandApp* sub, NumericFlags& nf, const OutputOptions& out, const ComputeRow& compute,
                   bool many_rows, const RowColumns* columns = nullptr);

}  // namespace napkin::cli
