// --expect KEY=VALUE[±TOL]: a check on a result, for CI budgets and homework answers alike.
//
// Every command takes it (repeatable). Each row a command prints is checked against every
// expectation; a miss prints one stderr line naming the key, what was expected, what napkin
// computed and the relative difference, and the run exits 1 (after printing its output as
// usual). A key the command does not compute, or a VALUE of the wrong dimension, is bad input
// (exit 2) before anything is printed.
//
// VALUE is read in the result's own dimension, with units ("137.4GFLOP", "16GiB", "2.7778h") or
// as a plain number in the base unit; a verdict compares as text ("bound=compute",
// "fits=yes"). TOL is absolute in the same dimension ("±0.1GFLOP") or relative ("±1%"); "+-"
// is accepted for "±". Without TOL the tolerance is the precision VALUE was written with: half a
// unit in its last written digit ("137.4G" means ±0.05G, "8030261248" means ±0.5).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "napkin/ground/result.h"

namespace napkin::cli {

class Expectations {
 public:
  /// Splits each text at '=' and the optional "±"; InputError naming --expect when malformed.
  explicit Expectations(const std::vector<std::string>& texts);
  bool empty() const { return list_.empty(); }
  /// Checks that every key is a result of `rs` and that its VALUE and TOL read in that result's
  /// dimension (InputError otherwise). Done once, on the first row; later rows reuse it.
  void validate(const ResultSet& rs);
  /// Checks one row: records one line per miss (`where` names the row in a sweep or comparison,
  /// "" otherwise) for report_expectation_misses(). Returns the number of misses.
  std::size_t check(const ResultSet& rs, std::string_view where);

 private:
  struct One {
    std::string text, key, value, tol;  // as typed
    bool validated = false;
    bool number = true;     // a numeric result (else a verdict or yes/no)
    double expected = 0.0;  // base units
    double tolerance = 0.0;  // base units, or a fraction of |expected| when `relative`
    bool relative = false;
  };
  std::vector<One> list_;
};

/// --value KEY: InputError naming --value when `rs` has no result KEY (nothing when `key` is
/// empty). Checked on the first row, before anything is printed.
void check_value_key(const ResultSet& rs, const std::string& key);

/// Prints the misses recorded since the last call, one "napkin: --expect failed: ..." line each,
/// after whatever stdout holds (so they follow the table, not split it); true when there were
/// any (main exits 1).
bool report_expectation_misses();

/// The tolerance a number was written with, in base units: half a unit in the last digit of its
/// numeric part, times its unit's scale ("137.4GFLOP" -> 0.05e9). `base` is the text's value in
/// base units (parse_quantity), `dim` its dimension.
double written_precision(std::string_view text, double base, DimRt dim);

}  // namespace napkin::cli
