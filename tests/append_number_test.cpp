// append_number's fast path (std::to_chars for integers, compiled fmt for the rest) must print
// exactly what fmt's "{}" printed before it: every CSV and JSON number goes through it.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "napkin/report/human_units.h"

namespace {

std::string reference(double v) {
  // The formatting append_number had: integers below 2^53 as int64, other finite values "{}".
  if (std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 9007199254740992.0)
    return fmt::format("{}", static_cast<std::int64_t>(v));
  if (std::isfinite(v)) return fmt::format("{}", v);
  return "null";
}

std::string fast(double v) {
  std::string s = "x";  // appends, keeping what was there
  napkin::report::append_number(s, v);
  return s.substr(1);
}

}  // namespace

TEST_CASE("append_number prints every number as fmt's shortest form does, in fmt's notation", "[append_number]") {
  const double edge[] = {0.0, -0.0, 1.0, -1.0, 0.1, 0.0001, 0.00001, 1e-5, 1e15, 1e16, 1e17, 1e30, -1e30,
                         1.5e300, 5e-324, 2.2250738585072014e-308, 9007199254740991.0, 9007199254740992.0,
                         9007199254740993.0, 1e22, 123456789.125, 0.30000000000000004, 2.5, -2.5, 1e21,
                         std::numeric_limits<double>::max(), std::numeric_limits<double>::quiet_NaN(),
                         std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  for (double v : edge) {
    INFO(fmt::format("{:a}", v));
    CHECK(fast(v) == reference(v));
  }
  CHECK(fast(1e30) == "1e+30");
  CHECK(fast(0.0001) == "0.0001");
  CHECK(fast(-0.0) == "0");
}

TEST_CASE("append_number agrees with fmt on random doubles of every magnitude", "[append_number]") {
  std::mt19937_64 rng(18);
  std::uniform_int_distribution<std::uint64_t> bits;
  std::uniform_real_distribution<double> mag(-30.0, 30.0);
  for (int i = 0; i < 200000; ++i) {
    double v;
    if (i % 2 == 0) {
      const std::uint64_t b = bits(rng);
      std::memcpy(&v, &b, sizeof v);
    } else {
      v = std::pow(10.0, mag(rng));  // the range sweeps live in, integers among them
      if (i % 4 == 1) v = std::round(v);
    }
    if (fast(v) != reference(v)) FAIL(fmt::format("{:a}: {} vs {}", v, fast(v), reference(v)));
  }
  SUCCEED();
}
