#include <catch2/catch.hpp>

#include "napkin/ground/error.h"
#include "napkin/ground/parse_quantity.h"

using namespace napkin;

namespace {
template <class Q>
double parse(const char* s) {
  return parse_quantity(s, dim_rt<typename Q::dim>(), "--x");
}
std::string error_of(const char* s, DimRt d) {
  try {
    parse_quantity(s, d, "--x");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("byte amounts take SI and IEC prefixes", "[units][parse]") {
  CHECK(parse<Bytes>("80GiB") == 80.0 * 1073741824.0);
  CHECK(parse<Bytes>("80GB") == 80e9);
  CHECK(parse<Bytes>("16 kB") == 16e3);
  CHECK(parse<Bytes>("16KiB") == 16384.0);
  CHECK(parse<Bytes>("8B") == 8.0);
  CHECK(parse<Bytes>("1024") == 1024.0);
}

TEST_CASE("rates, bandwidths, power, time and energy parse to base units", "[units][parse]") {
  CHECK(parse<FlopRate>("989TFLOP/s") == 989e12);
  CHECK(parse<FlopRate>("1.2PFLOP/s") == 1.2e15);
  CHECK(parse<FlopRate>("100 Tflop/s") == 100e12);
  CHECK(parse<Bandwidth>("3.35TB/s") == 3.35e12);
  CHECK(parse<Bandwidth>("900GB/s") == 900e9);
  CHECK(parse<Watts>("700W") == 700.0);
  CHECK(parse<Watts>("1kW") == 1000.0);
  CHECK(parse<Seconds>("10s") == 10.0);
  CHECK(parse<Seconds>("2.5h") == 9000.0);
  CHECK(parse<Seconds>("5us") == Approx(5e-6).epsilon(1e-15));
  CHECK(parse<Seconds>("5µs") == Approx(5e-6).epsilon(1e-15));
  CHECK(parse<Seconds>("3min") == 180.0);
  CHECK(parse<Joules>("1kWh") == 3.6e6);
  CHECK(parse<Joules>("2MJ") == 2e6);
  CHECK(parse<Flops>("1e18") == 1e18);
  CHECK(parse<Flops>("2.5PFLOP") == 2.5e15);
  CHECK(parse<EnergyPerFlop>("1pJ/FLOP") == Approx(1e-12).epsilon(1e-15));
}

TEST_CASE("counts take k, M, B/G, T and binary Ki suffixes", "[units][parse]") {
  CHECK(parse<Count>("8Ki") == 8192.0);
  CHECK(parse<Count>("8k") == 8000.0);
  CHECK(parse<Count>("8K") == 8000.0);
  CHECK(parse<Params>("8B") == 8e9);
  CHECK(parse<Params>("70G") == 70e9);
  CHECK(parse<Tokens>("15T") == 15e12);
  CHECK(parse<Tokens>("15T tokens") == 15e12);
  CHECK(parse<Count>("2M") == 2e6);
}

TEST_CASE("a plain number takes the flag's plain scale", "[units][parse]") {
  // A price given per kWh lands in USD per joule.
  CHECK(parse_quantity("0.12", dim_rt<UsdPerJoule::dim>(), "--price-per-kwh", 1.0 / 3.6e6) ==
        Approx(0.12 / 3.6e6).epsilon(1e-15));
  CHECK(parse_quantity("400gCO2e/kWh", dim_rt<Co2PerJoule::dim>(), "--carbon-intensity") ==
        Approx(0.4 / 3.6e6).epsilon(1e-15));
}

TEST_CASE("a bandwidth where a FLOP/s rate is expected is refused, saying what it is", "[units][parse]") {
  CHECK(error_of("1TB/s", dim_rt<FlopRate::dim>()) ==
        "--x: '1TB/s' is a bandwidth (B/s); expected a FLOP/s rate such as 989TFLOP/s");
}

TEST_CASE("a count flag rejects a byte amount", "[units][parse]") {
  CHECK(error_of("8GB", dim_rt<Params::dim>()) ==
        "--x: '8GB' is a byte amount (B); expected a parameter count such as 8B or 70e9");
}

TEST_CASE("FLOPS is refused as ambiguous", "[units][parse]") {
  CHECK(error_of("100TFLOPS", dim_rt<FlopRate::dim>()) ==
        "--x: '100TFLOPS' is ambiguous (FLOPS is read both as a count and as a rate): write FLOP "
        "for a count or FLOP/s for a rate; expected a FLOP/s rate such as 989TFLOP/s");
}

TEST_CASE("non-numbers, NaN, infinity and overflow are errors naming the flag", "[units][parse]") {
  const DimRt count = dim_rt<Count::dim>();
  CHECK(error_of("abc", count) == "--x: 'abc' is not a number; expected a count such as 4096, 8k or 8Ki");
  CHECK(error_of("nan", count) == "--x: 'nan' is not a finite number; expected a count such as 4096, 8k or 8Ki");
  CHECK(error_of("inf", count) == "--x: 'inf' is not a finite number; expected a count such as 4096, 8k or 8Ki");
  CHECK(error_of("1e400", count) == "--x: '1e400' is out of range; expected a count such as 4096, 8k or 8Ki");
  CHECK(error_of("", count) == "--x: '' is empty; expected a count such as 4096, 8k or 8Ki");
  CHECK(error_of("12 parsecs", count) ==
        "--x: '12 parsecs' has an unknown unit 'parsecs'; expected a count such as 4096, 8k or 8Ki");
  CHECK(error_of("1e300YB", dim_rt<Bytes::dim>()) ==
        "--x: '1e300YB' is out of range; expected a byte amount (B) such as 80GiB or 16GB");
}

TEST_CASE("micro takes the micro sign and the Greek mu alike", "[units][parse]") {
  CHECK(parse<Seconds>("5µs") == Approx(5e-6));  // U+00B5 MICRO SIGN
  CHECK(parse<Seconds>("5μs") == Approx(5e-6));  // U+03BC GREEK SMALL LETTER MU
  CHECK(parse<Watts>("3μW") == Approx(3e-6));
}

TEST_CASE("a price per GPU-hour takes the USD/h its help shows", "[units][parse]") {
  const DimRt per_s = dim_rt<Dim<0, 0, -1, 0, 0, 0, 1, 0>>();
  CHECK(parse_quantity("2.5USD/h", per_s, "--price-per-gpu-hour") == Approx(2.5 / 3600.0));
  CHECK(parse_quantity("2.5 $/h", per_s, "--price-per-gpu-hour") == Approx(2.5 / 3600.0));
  CHECK(parse_quantity("2.5", per_s, "--price-per-gpu-hour", 1.0 / 3600.0) == Approx(2.5 / 3600.0));
  CHECK(error_of("2.5USD/kWh", per_s) ==
        "--x: '2.5USD/kWh' is a price per kWh; expected a price per hour such as 2.5 or 2.5USD/h");
}

TEST_CASE("a value that a unit scales below the smallest double is out of range, not 0", "[units][parse]") {
  const DimRt per_j = dim_rt<UsdPerJoule::dim>();
  CHECK(parse_quantity("1e-310", per_j, "--x", 1.0 / 3.6e6) > 0.0);  // subnormal, kept
  CHECK(error_of("1e-320USD/kWh", per_j) ==
        "--x: '1e-320USD/kWh' is out of range; expected a price per kWh such as 0.12 or 0.12USD/kWh");
  CHECK(parse_quantity("0USD/kWh", per_j, "--x") == 0.0);
}

TEST_CASE("an SI sub-unit prefix gives the correctly rounded base value", "[parse]") {
  using napkin::parse_quantity;
  const napkin::DimRt s = napkin::dim_rt<napkin::Seconds::dim>();
  CHECK(parse_quantity("5us", s, "--t") == 5e-6);
  CHECK(parse_quantity("5µs", s, "--t") == 5e-6);
  CHECK(parse_quantity("7ns", s, "--t") == 7e-9);
  CHECK(parse_quantity("3ms", s, "--t") == 3e-3);
}
