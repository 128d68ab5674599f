// The output flags every command takes (--json, --jsonl, --csv, --explain, --value, --digits,
// --plot, --plot-y, --compact, --expect), and the one format they select.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "napkin/report/render.h"
#include "command_app.h"

namespace napkin::cli {

struct OutputOptions {
  bool json = false, jsonl = false, csv = false, explain = false;
  bool compact = false;  // --compact, with --jsonl only
  std::string plot, plot_y;  // --plot FILE.svg, --plot-y KEY (plot.h)
  std::vector<std::string> expect;  // --expect KEY=VALUE[±TOL] (expect.h)
  std::string digits;               // --digits N, as typed
  std::string value;                // --value KEY
  const CLI::Option* plot_option = nullptr;  // tells `--plot ''` (refused) from no --plot
};
void add_output_flags(CommandApp* sub, OutputOptions& o);
/// Throws InputError when more than one format flag is given, or --plot a name check_plot_name
/// refuses (plot.h).
/// Applies --digits (report::set_display_digits) for the renderers.
report::Format output_format(const OutputOptions& o);

}  // namespace napkin::cli
