// --plot FILE.svg: collects, from the result sets a command streams, only the numbers its chart
// needs, and writes the chart at the end (report/svg.h draws it). The chart follows the command:
//   roofline              the roofline, one point per result set (a roof per swept peak/bandwidth)
//   memory                stacked ledger bars per GPU against the capacity (up to 24 result sets)
//   a per-op series       one result set whose series has an `intensity` column (serve --per-op):
//                         its ops as points under the roof of the inputs/items `peak`, `bandwidth`
//   any other sweep       a line chart: the first swept flag against --plot-y KEY (a default key
//                         per command), one line per combination of the other swept flags
// Checks that can be made before the first result set (the file can be written, the sweep is
// not too large) are made in the constructor, so a refused plot prints nothing on stdout.
// The file is a ReplaceFile (safe_output.h): written beside the target and renamed over it when the
// run succeeded; a failed or interrupted run leaves an existing file as it was.
//
// The path is a file name ending in .svg, in any case (chart.svg, CHART.SVG), in an existing
// directory. Refused, each with one line: an empty path; leading or trailing white space (a
// stray space inside quotes); '-' (the chart never goes to stdout, which carries the table); a
// name that is only the extension (.svg); a path ending in '/' or naming a directory; a '~' the
// shell did not expand (inside quotes, or after --plot=) when no such directory exists; a parent
// directory that does not exist (napkin creates none); a name without .svg (chart, chart.png:
// napkin writes SVG only), checked after ReplaceFile's own refusals, so that a file the run reads
// is named as such whatever its name.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/ground/result.h"
#include "napkin/report/svg.h"
#include "safe_output.h"
#include "sweep.h"

namespace napkin::cli {

/// At most this many points in a line chart (a sweep), and lines in it.
inline constexpr std::size_t kMaxPlotPoints = 100000;
inline constexpr std::size_t kMaxPlotSeries = 12;
/// At most this many bars in a ledger chart; a longer memory sweep is drawn as a line chart.
inline constexpr std::size_t kMaxPlotBars = 24;

/// Throws InputError naming --plot for a path no one means as a chart's file, by its spelling
/// alone (an empty path, white space around it, '-', '.svg' alone, a trailing '/'). output_format
/// calls it first thing, before a sweep computes anything; the Plot constructor checks the rest.
void check_plot_name(const std::string& path);

/// The result key a line chart plots by default for a command ("memory" → "per_gpu"), or "".
std::string_view default_plot_key(std::string_view command);

class Plot {
 public:
  /// `command`: the command path ("roofline", "kernel waves"); `title`: the command line.
  /// `inputs`: the files the command reads (the plot may not replace one of them).
  /// Throws InputError naming --plot (or --plot-y) when the file cannot be written or the
  /// command and sweep have no chart.
  Plot(std::string path, std::string y_key, std::string command, std::string title,
       const std::vector<NumericFlag>& flags, const Sweep& sweep, const std::vector<std::string>& inputs = {});
  /// The same for the command `sub` (its path and command line; its inputs: the positional
  /// arguments, MODEL, and --hw).
  Plot(CLI::App* sub, std::string path, std::string y_key, const std::vector<NumericFlag>& flags,
       const Sweep& sweep);
  ~Plot();
  Plot(const Plot&) = delete;
  Plot& operator=(const Plot&) = delete;

  /// Takes what the chart needs from one result set (call before rendering it: a bad --plot-y
  /// is reported at the first one).
  void add(const Point& p, const ResultSet& rs);
  /// Draws the chart and writes the file.
  void finish();

 private:
  enum class Kind { undecided, roofline, ops, ledger, line };
  std::string label_of(const Point& p, bool skip_roof) const;
  void first(const ResultSet& rs);

  std::string path_, y_key_, command_, title_;
  const std::vector<NumericFlag>& flags_;
  std::vector<std::size_t> swept_;  // flag indices, slowest first
  std::size_t rows_ = 1, row_ = 0, per_series_ = 1;
  Kind kind_ = Kind::undecided;
  std::unique_ptr<ReplaceFile> file_;

  report::RooflineChart roofline_;
  report::LedgerChart ledger_;
  report::LineChart line_;
  bool ref_constant_ = true;
};

/// The command's path without "napkin": "roofline", "kernel waves".
std::string command_path(CLI::App* sub);
/// The command line as the chart's title: "napkin memory llama-3.1-8b --batch 1..64:x2".
std::string command_line(CLI::App* sub);

}  // namespace napkin::cli
