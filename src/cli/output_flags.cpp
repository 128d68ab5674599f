// See output_flags.h.
#include "output_flags.h"

#include <algorithm>
#include <string>

#include "napkin/ground/error.h"
#include "napkin/report/human_units.h"
#include "plot.h"

namespace napkin::cli {

void add_output_flags(CommandApp* sub, OutputOptions& o) {
  sub->add_flag("--json", o.json, "One JSON object (a JSON array for a sweep), values in base units")
      ->group("Output");
  sub->add_flag("--jsonl", o.jsonl, "One JSON object per line (sweeps stream)")->group("Output");
  sub->add_flag("--compact", o.compact, "With --jsonl: a header line (formulas, assumptions, keys) once, then "
                                        "each row's values only")
      ->group("Output");
  sub->add_flag("--csv", o.csv, "A header, then one row per result set, values in base units")
      ->group("Output");
  sub->add_flag("--explain", o.explain, "The derivation step by step, units first")->group("Output");
  o.plot_option = sub->add_option("--plot", o.plot, "Also write a chart as SVG: the roofline, the memory ledger per GPU, or a "
                                   "sweep's first swept flag against --plot-y. FILE ends in .svg (any case), in an "
                                   "existing directory; replaced only when the run succeeds, never stdout ('-')")
      ->type_name("FILE.svg")
      ->group("Output");
  sub->add_option("--plot-y", o.plot_y, "The result key a sweep's chart shows (default per command: per_gpu, "
                                       "flops, wave_efficiency, ...)")
      ->type_name("KEY")
      ->group("Output");
  sub->add_option("--expect", o.expect, "Check a result: exit 1 when KEY differs from VALUE by more than TOL "
                                        "(default: the precision VALUE is written with), e.g. flops=137.4GFLOP, "
                                        "per_gpu=40GiB±5%, bound=compute; repeatable")
      ->type_name("KEY=VALUE[±TOL]")
      ->allow_extra_args(false)  // one value per --expect: a MODEL after it stays MODEL
      ->group("Checks");
  sub->add_option("--value", o.value, "Print only KEY's value, bare and in base units, one line per row (for "
                                      "shell scripts: $(napkin memory MODEL --value per_gpu))")
      ->type_name("KEY")
      ->group("Output");
  sub->add_option("--digits", o.digits, "Significant digits of the figures in the table and --explain, formulas "
                                        "included (default: 2 decimals or 3-4 digits; integers are always exact)")
      ->type_name("N")
      ->group("Output");
}

report::Format output_format(const OutputOptions& o) {
  const int n = int(o.json) + int(o.jsonl) + int(o.csv) + int(o.explain) + int(!o.value.empty());
  if (n > 1) throw InputError("--json/--jsonl/--csv/--explain/--value", "(several)", "at most one output format");
  if (o.compact && !o.jsonl)
    throw InputError("--compact", "(given)", "--jsonl with it (the compact form is JSON lines: a header, then values)");
  if (o.plot_option != nullptr && o.plot_option->count() > 0) check_plot_name(o.plot);
  if (!o.plot_y.empty() && o.plot.empty())
    throw InputError("--plot-y", o.plot_y, "--plot FILE.svg with it (the key a chart shows)");
  int digits = 0;
  if (!o.digits.empty()) {
    const auto& d = o.digits;
    if (d.size() > 2 || !std::all_of(d.begin(), d.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) ||
        std::stoi(d) < 1 || std::stoi(d) > 17)
      throw InputError("--digits", d, "a whole number of significant digits from 1 to 17");
    digits = std::stoi(d);
    if (o.json || o.jsonl || o.csv)
      throw InputError("--digits", d, "the table or --explain with it (JSON and CSV carry every value exactly)");
  }
  report::set_display_digits(digits);
  if (!o.value.empty()) {
    if (!o.digits.empty()) throw InputError("--digits", o.digits, "the table or --explain with it (--value prints base units)");
    return report::Format::value;
  }
  if (o.json) return report::Format::json;
  if (o.jsonl) return o.compact ? report::Format::jsonl_compact : report::Format::jsonl;
  if (o.csv) return report::Format::csv;
  if (o.explain) return report::Format::explain;
  return report::Format::table;
}

}  // namespace napkin::cli
