// Text to quantities: "80GiB", "3.35TB/s", "989TFLOP/s", "1kW", "2.5h", "8Ki", "15T".
// Pure (no I/O): used by the CLI for flags and by spec readers for JSON strings.
//
// A number, optionally followed by a unit (spaces allowed between them). Units: FLOP with SI
// prefixes (k M G T P E Z Y), FLOP/s, B with SI (kB = 1000 B) and IEC (KiB = 1024 B) prefixes,
// B/s, FLOP/B, s (ms, us, µs or μs, ns), min, h, d, J (kJ, MJ, ...), Wh (kWh, MWh, ...), W (kW,
// MW), J/FLOP (pJ/FLOP), USD/kWh, USD/h (a price per GPU-hour), kgCO2e/kWh and gCO2e/kWh.
// Counts take k/K = 1e3, M = 1e6, B or G = 1e9, T = 1e12 and Ki/Mi/Gi/Ti = 2^10.. (in a byte
// flag, B is the byte).
// A plain number is in the base unit of the expected dimension (times `plain_scale`).
#pragma once

#include <string>
#include <string_view>

#include "napkin/ground/units.h"

namespace napkin {

/// What a dimension is called in messages ("a FLOP/s rate") and an example of it.
struct DimDescription {
  std::string_view what;
  std::string_view example;
};
DimDescription describe_dim(DimRt d);

/// Parses `text` as a quantity of dimension `expected` and returns it in base units.
/// `plain_scale` converts a bare number to base units (1 for base-unit flags; e.g. 1/3.6e6 for
/// a price given per kWh). Throws InputError naming `field` on a malformed number, NaN or
/// infinity, an unknown unit, or a unit of another dimension.
double parse_quantity(std::string_view text, DimRt expected, std::string_view field,
                      double plain_scale = 1.0);
/// The same, with `described` in place of the dimension's words in its messages: for a value
/// the dimension does not name, such as a plain-number fraction ("--mfu: '2x' has an unknown
/// unit 'x'; expected a fraction such as 0.4", not "a count such as 4096, 8k or 8Ki").
double parse_quantity(std::string_view text, DimRt expected, std::string_view field, double plain_scale,
                      const DimDescription& described);

/// True when `text` is a number without a unit (what parse_quantity multiplies by
/// `plain_scale`): "80", " 1e9 ", "+0.4"; false for "80GiB", "8k" or text that is no number.
bool is_plain_number(std::string_view text);

template <class Q>
Q parse_as(std::string_view text, std::string_view field) {
  return Q::from_base(parse_quantity(text, dim_rt<typename Q::dim>(), field));
}

}  // namespace napkin
