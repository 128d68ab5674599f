// Display units: how a base-unit number is shown to a person. The only place that chooses
// GB vs GiB, h vs s, kWh vs J. Machine output (JSON, CSV) never goes through here.
#pragma once

#include <string>
#include <string_view>

#include "napkin/ground/result.h"
#include "napkin/ground/units.h"

namespace napkin::report {

/// --digits N: every readable figure (values and the numbers in formulas) with N significant
/// digits, trailing zeros dropped ("2.77778 h" at 6); 0 restores the house style (2 decimals
/// or 3-4 significant digits). Integers are exact either way. Machine output is unaffected.
void set_display_digits(int n);
int display_digits();

/// The base-unit symbol of a dimension as JSON writes it: "B", "FLOP/s", "W", "1", ...
std::string unit_symbol(DimRt d);

/// One readable form: "16.06 GB", "2.78 h", "100.00 TFLOP/s", "4096", "0.125 FLOP/B".
void append_compact(std::string& out, double base, DimRt d);
std::string compact(double base, DimRt d);

/// The table form: a readable form and, for bytes, time, energy, FLOP and counts, a second
/// one in parentheses: "16.06 GB (14.96 GiB)", "2.78 h (10000 s)", "2.78 kWh (10.00 MJ)".
std::string human_value(const Value& v);
/// The same, and list values ("[1.00, 2.00]") from the ResultSet's number pool.
std::string human_value(const ResultSet& rs, const Value& v);

/// A pattern with its holes filled by compact forms of the operands.
void append_text(std::string& out, TextView t);
std::string expand(TextView t);
/// Shorthand for a pattern stored in `rs`.
inline std::string expand(const ResultSet& rs, const TextRef& r) { return expand(rs.view(r)); }

/// A base-unit number for JSON and CSV: integers below 2^53 exactly ("16060522496"), anything
/// else as the shortest text that reads back to the same double ("1e+30", "0.125").
void append_number(std::string& out, double v);
/// The same text written at `out`, which has room for kMaxNumberChars; returns its end.
inline constexpr std::size_t kMaxNumberChars = 40;
char* write_number(char* out, double v);

/// The value an input is echoed with in machine output (its echo unit, usually the base unit).
double echoed(const Input& in);

}  // namespace napkin::report
