// Numeric flags and sweeps. Every numeric flag is kept as the text the user typed, then
// parsed into an Axis: one value, a list `1,2,4,8`, a linear range `1024..8192:+1024` or a
// geometric range `1..64:x2` (endpoints and steps may carry units: `1GiB..8GiB:x2`; `a..b`
// steps by 1). Several axes give their cartesian product, the first swept flag on the command
// line varying slowest; combinations are generated one at a time, so a sweep of any length runs
// in constant memory.
//
// Refused, each in one line naming the flag, the text and the form expected: an empty list item
// ('1,,2', '1,', ',1'); a value listed twice ('1,2,2', '1k,1000'); white space around a value or
// a range's part (' 1, 2', '1 .. 4', '1..4:+ 1'; '80 GiB', a number and its unit, is read); a
// '+' sign ('+1', '1..8:x+2'); a range with its end below its start, a step that is not
// positive, a factor not above 1, or a step or factor that does not reach the end exactly
// ('1..10:+2' stops at 9: the end is one of the range's values, never dropped); a list or range
// of more values than the cap. A list keeps its order ('8,4,2').
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/ground/units.h"

namespace napkin {
class ResultSet;
}

namespace napkin::cli {

enum class Constraint { any, positive, non_negative, positive_integer, non_negative_integer, pue };

/// The values one flag takes, generated on demand.
struct Axis {
  enum class Kind { list, linear, geometric };
  Kind kind = Kind::list;
  std::vector<double> values;  // list
  double start = 0, step = 0;  // linear: start + i·step; geometric: start · step^i
  std::size_t count = 0;
  std::size_t size() const { return kind == Kind::list ? values.size() : count; }
  double at(std::size_t i) const;
};

struct NumericFlag {
  std::string flag;   // "--m"
  std::string name;   // input name in results: "m"
  DimRt dim;
  Constraint constraint = Constraint::positive;
  double plain_scale = 1.0;          // base units per plain number
  // What the value is in parse errors, when the dimension's words would mislead ("a fraction",
  // "0.9" for --gpu-memory-utilization, a plain number of dimension one); empty: the dimension's.
  std::string what, example;
  std::optional<double> fallback;    // default, in base units; none: the flag is optional
  std::string raw;                   // as typed
  bool given = false;
  Axis axis;
};

/// At most this many rows in one sweep when the caller names no cap: bounded work, a sweep past
/// it is a typo (1..1e9 for 1..1e3), not a question. Commands pass their own, lower caps
/// (default_row_cap, numeric_flags.h: about 2 s of rows each; --max-rows raises them). Charts
/// stop at kMaxPlotPoints (plot.h).
inline constexpr double kDefaultMaxRows = 4'000'000;

/// Parses a flag's text into an axis and checks every value it will take: the flag's
/// constraint, and the plausibility rules (plausibility.h), whose warnings are appended to
/// `warnings` when given. A range of more than `max_rows` values is refused ("gives N rows;
/// expected at most M{why} (raise with --max-rows)").
Axis parse_axis(const NumericFlag& f, std::vector<std::string>* warnings = nullptr,
                double max_rows = kDefaultMaxRows, std::string_view why = {});

/// Checks one value against the flag's constraint; throws InputError naming the flag and
/// showing the raw text when `single` (the flag has one value), else the offending value.
void check_value(const NumericFlag& f, double v, bool single);

/// One combination of the sweep: the value of each flag (in base units), and whether it is set.
class Point {
 public:
  explicit Point(const std::vector<NumericFlag>& flags) : flags_(flags), values_(flags.size()) {}
  bool has(std::size_t i) const { return flags_[i].given || flags_[i].fallback.has_value(); }
  /// True while Sweep::probe runs: a compute that keeps state across rows (the first row that
  /// does not fit, for --require-fit) leaves it alone, since probe points come in another order.
  bool probing() const { return probing_; }
  double operator[](std::size_t i) const { return values_[i]; }
  template <class Q>
  Q get(std::size_t i) const { return Q::from_base(values_[i]); }
  template <class Q>
  std::optional<Q> maybe(std::size_t i) const {
    if (!has(i)) return std::nullopt;
    return Q::from_base(values_[i]);
  }

 private:
  friend class Sweep;
  const std::vector<NumericFlag>& flags_;
  std::vector<double> values_;
  bool probing_ = false;
};

/// Throws InputError when a result of `rs` (a value, a list element, a trace cell or a number
/// in a formula) is NaN or infinite: such a result is an error naming the flags given and their
/// values at `p`, never output.
void require_finite(const ResultSet& rs, const std::vector<NumericFlag>& flags, const Point& p);

class Sweep {
 public:
  /// `order`: indices of the flags in the order the user gave them (sweep order). Throws
  /// InputError naming the flags when the sweep has more than `max_rows` rows (--max-rows);
  /// `why` follows the cap in the message (" with --min-gpus, a layout search per row").
  Sweep(std::vector<NumericFlag>& flags, const std::vector<std::size_t>& order,
        double max_rows = kDefaultMaxRows, std::string_view why = {});
  std::size_t rows() const { return rows_; }
  /// Names of the flags that take more than one value, slowest first.
  const std::vector<std::string>& swept_names() const { return swept_names_; }
  /// The plausibility warnings of the given flags, once each, in flag order (run_sweep prints
  /// them to stderr before the first row).
  const std::vector<std::string>& warnings() const { return warnings_; }
  /// Calls `fn` once per combination, in order.
  void run(const std::function<void(const Point&)>& fn) const;
  /// Calls `fn` for every value of every swept flag, the other flags at their first value: the
  /// first combination, then each further value of the fastest flag, ..., of the slowest.
  /// 1 + Σ (values − 1) calls, not their product: run_sweep checks with it, before printing
  /// anything, every value that fails on its own (TP 3 with 32 heads). Point::probing() is true.
  void probe(const std::function<void(const Point&)>& fn) const;
  /// How many calls probe makes.
  std::size_t probes() const;

 private:
  std::vector<NumericFlag>& flags_;
  std::vector<std::size_t> axes_;  // flags with more than one value, slowest first
  std::vector<std::string> swept_names_;
  std::vector<std::string> warnings_;
  std::size_t rows_ = 1;
};

}  // namespace napkin::cli
