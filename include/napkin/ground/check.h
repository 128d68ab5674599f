// Precondition checks shared by the calculators. A violation throws InputError naming the
// input, so a bad value can never turn into a silent NaN or infinity.
#pragma once

#include <cmath>
#include <string>
#include <string_view>

#include "napkin/ground/error.h"
#include "napkin/ground/units.h"

namespace napkin {

std::string format_plain_number(double v);  // shortest round-trip text, for messages

/// The InputError of a failed check (out of line: the checks below stay small enough to inline
/// in a sweep's row).
[[noreturn]] void throw_check_failed(std::string_view name, double v, const char* expected);

template <class D>
void require_positive(Quantity<D> q, std::string_view name) {
  const double v = q.in_base_units();
  if (!std::isfinite(v) || !(v > 0.0))
    throw_check_failed(name, v, "a positive finite number");
}

template <class D>
void require_non_negative(Quantity<D> q, std::string_view name) {
  const double v = q.in_base_units();
  if (!std::isfinite(v) || v < 0.0)
    throw_check_failed(name, v, "a non-negative finite number");
}

template <class D>
void require_positive_integer(Quantity<D> q, std::string_view name) {
  const double v = q.in_base_units();
  if (!std::isfinite(v) || !(v >= 1.0) || std::floor(v) != v) throw_check_failed(name, v, "a positive integer");
}

}  // namespace napkin
