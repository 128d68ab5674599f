// See sweep_runner.h.
#include "sweep_runner.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "napkin/ground/error.h"
#include "napkin/report/human_units.h"
#include "napkin/report/render.h"
#include "assumption_flags.h"
#include "choice_session.h"
#include "expect.h"
#include "flag_checks.h"
#include "plot.h"
#include "safe_output.h"

namespace napkin::cli {

namespace {

// Before a sweep prints anything: every value of every swept flag, the others at their first
// value, computed into a scratch result set and thrown away (Sweep::probe: the sum of the
// flags' value counts, not their product). A value that is wrong on its own (--tp 3 with 32
// heads, a result that overflows) stops the sweep here, with stdout empty. What only a
// combination of values gets wrong can still stop it midway: the error line follows what
// was printed, and exit 2 says the output is incomplete.
void probe_sweep(const Sweep& sweep, NumericFlags& nf, const ComputeRow& compute, bool details) {
  if (sweep.rows() <= 1) return;  // the one row is computed before anything is printed
  ResultSet scratch;
  scratch.details = details;
  sweep.probe([&](const Point& p) {
    scratch.clear();
    if (compute(p, 0, scratch)) require_finite(scratch, nf.flags(), p);
  });
}

void add_unique(std::vector<std::string>& names, std::string_view name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
}

// The combination's values as inputs of a row that does not already echo them.
void add_choice_inputs(ResultSet& rs, const ChoiceSession& s) {
  for (const auto& [name, value] : s.current)
    if (rs.find_input(name) == nullptr) rs.input(name, verdict(value));
}

// Formulas, assumptions and notes are recorded only for the formats that show them.
bool details_needed(report::Format f) { return f != report::Format::csv && f != report::Format::value; }

// Which row a failed --expect is about: the comparison's configuration and the swept inputs.
std::string row_label(const ResultSet& rs, const std::string& configuration, const std::vector<std::string>& swept) {
  // "(a, b) " -> "a, b"
  std::string where = configuration.size() > 3 ? configuration.substr(1, configuration.size() - 3) : "";
  for (const auto& name : swept)
    if (const Input* in = rs.find_input(name)) {
      if (!where.empty()) where += ", ";
      where += name + "=" + report::human_value(in->value);
    }
  return where;
}

}  // namespace

int run_sweep(CommandApp* sub, NumericFlags& nf, const OutputOptions& out, const Compute& compute) {
  return run_sweep_rows(
      sub, nf, out,
      [&compute](const Point& p, std::size_t row, ResultSet& rs) {
        if (row > 0) return false;
        compute(p, rs);
        return true;
      },
      false);
}

int run_sweep_rows(CommandApp* sub, NumericFlags& nf, const OutputOptions& out, const ComputeRow& compute,
                   bool many_rows, const RowColumns* columns) {
  reject_extras(sub);
  const report::Format format = output_format(out);
  const std::vector<std::size_t> order = nf.resolve(sub);
  const RowCap cap = nf.max_rows();
  Sweep sweep(nf.flags(), order, cap.rows, cap.why);
  if (g_choices != nullptr && g_choices->probing) {
    // Validating one combination of a comparison: every value of every swept flag (at least the
    // first row), and the names of what its rows hold.
    if (!out.plot.empty())
      throw InputError("--plot", out.plot, "a numeric sweep: a list of models, GPUs or dtypes is compared in the "
                                           "table, JSON or CSV, not charted");
    ResultSet scratch;
    scratch.details = details_needed(format);
    Expectations expect(out.expect);
    sweep.probe([&](const Point& p) {
      scratch.clear();
      if (!compute(p, 0, scratch)) return;
      require_finite(scratch, nf.flags(), p);
      expect.validate(scratch);
      check_value_key(scratch, out.value);
      add_choice_inputs(scratch, *g_choices);
      for (const auto& in : scratch.inputs) add_unique(g_choices->inputs, in.name);
      for (const auto& it : scratch.items) add_unique(g_choices->items, it.key);
    });
    g_choices->rows = sweep.rows();
    g_choices->numeric_swept = sweep.swept_names();
    return 0;
  }
  probe_sweep(sweep, nf, compute, details_needed(format));
  std::unique_ptr<Plot> plot;  // checked before anything is printed
  if (!out.plot.empty()) plot = std::make_unique<Plot>(sub, out.plot, out.plot_y, nf.flags(), sweep);
  report::RenderOptions ropt;
  ropt.format = format;
  ropt.value_key = out.value;
  ropt.colour = format == report::Format::table && use_colour(1);
  ropt.sweep = sweep.rows() > 1 || many_rows;
  ropt.swept = sweep.swept_names();
  if (columns != nullptr) {
    ropt.swept.insert(ropt.swept.end(), columns->inputs.begin(), columns->inputs.end());
    ropt.only_items = columns->items;
    ropt.every_rows_notes = true;
  }
  std::unique_ptr<report::Renderer> own;
  report::Renderer* renderer = g_choices != nullptr ? g_choices->renderer : nullptr;
  if (renderer == nullptr) {
    own = report::make_renderer(ropt, stdout);
    renderer = own.get();
  }
  const bool needs_flags = details_needed(format);
  // Warnings go to stderr, once per run: the flags' (plausibility.h) when the first row is
  // computed, so that an input error in it stays the only line; each result warning pattern
  // the first time a row has it. A failed stdout write (the renderer's, or the flush before a
  // warning) throws report::OutputError and stops the sweep at once; a failed stderr write is
  // ignored. In a comparison a line already printed for another configuration is not repeated
  // (set_warning_dedupe).
  // In a comparison each warning names the configuration it is about.
  std::string label;
  if (g_choices != nullptr)
    for (const auto& [name, value] : g_choices->current) label += (label.empty() ? "(" : ", ") + value;
  if (!label.empty()) label += ") ";
  const auto warn = [&label](const std::string& w) { print_warning(label + w); };
  bool first_row = true;
  std::set<const char*> warned;
  Expectations expect(out.expect);
  bool first_row_value = true;
  const std::vector<std::string> swept = sweep.swept_names();
  ResultSet rs;
  rs.details = details_needed(format);  // CSV and --value show neither formulas nor assumptions
  std::vector<std::pair<std::string, std::string_view>> flag_cache;  // (assumption key, its flag) by place
  sweep.run([&](const Point& p) {
   for (std::size_t row = 0;; ++row) {
    rs.clear();
    if (!compute(p, row, rs)) break;
    require_finite(rs, nf.flags(), p);  // NaN or infinite: an error naming the flags, never output
    if (g_choices != nullptr) add_choice_inputs(rs, *g_choices);
    if (needs_flags)
      for (std::size_t i = 0; i < rs.assumptions.size(); ++i) {
        // Rows state the same assumptions in the same order: the last row's key at this place
        // is checked first, then the table is scanned.
        Assumption& a = rs.assumptions[i];
        if (i < flag_cache.size() && flag_cache[i].first == a.key) {
          a.flag = flag_cache[i].second;
          continue;
        }
        a.flag = flag_for_assumption(a.key);
        if (i >= flag_cache.size()) flag_cache.resize(i + 1);
        flag_cache[i] = {std::string(a.key), a.flag};
      }
    if (first_row)
      for (const std::string& w : sweep.warnings()) warn(w);
    first_row = false;
    for (const auto& w : rs.warnings)
      if (warned.insert(w.pattern.data()).second) warn(report::expand(rs, w));
    if (plot) plot->add(p, rs);
    if (first_row_value) check_value_key(rs, out.value);  // before the first row is printed
    first_row_value = false;
    if (!expect.empty()) expect.validate(rs);  // a key or unit error stops the run before its first row
    release_warnings();  // the first row is good: the warnings held so far come first
    if (!expect.empty()) {
      renderer->row(rs);
      expect.check(rs, row_label(rs, label, swept));
    } else {
      renderer->row(rs);
    }
   }
  });
  if (own) own->finish();  // checked: the output is written before the plot replaces its file
  if (plot) plot->finish();
  return 0;
}

}  // namespace napkin::cli
