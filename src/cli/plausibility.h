// Plausibility rules for numeric flags: values that parse and pass the flag's constraint but are
// almost surely a slip. A bare 80 for --gpu-memory is 80 bytes; a bare 400 for
// --carbon-intensity is 400 kgCO2e/kWh; 1,5kW is a list of 1 W and 5 kW; 0.1...5 is a range to
// 0.5. One table (plausibility.cpp) says, per flag, which values are refused (InputError, exit 2)
// and which get a warning (one stderr line, exit 0). parse_axis applies it to every flag's text
// and to every value typed. The hard domain of a flag (positive, integer, PUE 1..10) stays in its
// Constraint (sweep.h); the table holds what is legal but implausible, and the few domain bounds
// only one flag has (--mfu at most 1, --tokens at least 1).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sweep.h"

namespace napkin::cli {

/// One number the user typed: a list item, or an end of a range.
struct TypedValue {
  std::string text;    // as typed: "80", "1GiB"
  double value = 0.0;  // base units
  bool plain = false;  // no unit: the flag's plain_scale applied
};

/// The rules on the flag's whole text, checked before it is parsed ("0.1...5"). Throws
/// InputError for a refusal; returns the warnings, as check_plausible does.
std::vector<std::string> check_plausible_text(const NumericFlag& f);

/// The rules on the values of `f` (`range`: the values are a range's two ends, else the items
/// of a list or the one value). Throws InputError for the first refusal, in table order;
/// returns the warnings, at most one per rule, each "--flag: '...' ..." without the
/// "napkin: warning: " prefix.
std::vector<std::string> check_plausible(const NumericFlag& f, const std::vector<TypedValue>& values, bool range);

}  // namespace napkin::cli
