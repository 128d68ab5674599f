#include <catch2/catch.hpp>

#include "napkin/report/human_units.h"

using namespace napkin;
using namespace napkin::units;
using napkin::report::compact;
using napkin::report::human_value;
using napkin::report::set_display_digits;

TEST_CASE("bytes show decimal first, then binary: 16.06 GB (14.96 GiB)", "[report]") {
  CHECK(human_value(value(16060522496.0 * byte)) == "16.06 GB (14.96 GiB)");
  CHECK(human_value(value(16e9 * byte)) == "16.00 GB (14.90 GiB)");
  CHECK(human_value(value(54e9 * byte)) == "54.00 GB (50.29 GiB)");
  CHECK(human_value(value(512.0 * byte)) == "512 B");
  CHECK(human_value(value(2.5 * byte)) == "2.50 B");
}

TEST_CASE("a value that rounds up to 1000 moves to the next prefix", "[report]") {
  CHECK(human_value(value(999.999e9 * byte)) == "1.00 TB (931.32 GiB)");
}

TEST_CASE("time shows h, min or s with seconds in parentheses", "[report]") {
  CHECK(human_value(value(10000.0 * second)) == "2.78 h (10000 s)");
  CHECK(human_value(value(90.0 * second)) == "1.50 min (90.00 s)");
  CHECK(human_value(value(0.0125 * second)) == "12.50 ms");
  CHECK(human_value(value(34.0 * day)) == "34.00 d (2937600 s)");
}

TEST_CASE("energy shows kWh with joules in parentheses", "[report]") {
  CHECK(human_value(value(1e7 * joule)) == "2.78 kWh (10.00 MJ)");
  CHECK(human_value(value(12.0 * joule)) == "12 J");
}

TEST_CASE("FLOP counts show a prefix and the exact integer, or 4 significant digits past 2^53", "[report]") {
  CHECK(human_value(value(137438953472.0 * flop)) == "137.44 GFLOP (137438953472 FLOP)");
  CHECK(human_value(value(3.15e23 * flop)) == "315.00 ZFLOP (3.150e23 FLOP)");
  CHECK(human_value(value(1.5e3 * flop)) == "1.50 kFLOP (1500 FLOP)");
}

TEST_CASE("plain integers are exact at any size below 2^53, not 2.07e6", "[report]") {
  CHECK(compact(2070000.0, DimRt{}) == "2070000");
  CHECK(compact(9007199254740991.0, DimRt{}) == "9007199254740991");
  CHECK(compact(2.5e6, DimRt{}) == "2500000");
  CHECK(compact(2.5e6 + 0.5, DimRt{}) == "2.50e6");  // not an integer: 3 significant digits
}

namespace {
// --digits N for one check, restored after.
struct Digits {
  explicit Digits(int n) { set_display_digits(n); }
  ~Digits() { set_display_digits(0); }
};
}  // namespace

TEST_CASE("digits N gives significant digits to every readable figure, trailing zeros dropped", "[report][digits]") {
  const Digits d(6);
  CHECK(human_value(value(10000.0 * second)) == "2.77778 h (10000 s)");  // notes 7.9: 2.7778 h
  CHECK(human_value(value(1.2e7 * joule)) == "3.33333 kWh (12 MJ)");
  CHECK(human_value(value(137438953472.0 * flop)) == "137.439 GFLOP (137438953472 FLOP)");
  CHECK(human_value(value(16060522496.0 * byte)) == "16.0605 GB (14.9575 GiB)");
  CHECK(compact(1024.0 / 3.0, dim_rt<Intensity::dim>()) == "341.333 FLOP/B");
  CHECK(compact(1.0 / 3.0, DimRt{}) == "0.333333");
  CHECK(compact(1.0 / 3.0 * 1e7, DimRt{}) == "3.33333e6");
  CHECK(compact(2070000.0, DimRt{}) == "2070000");  // integers stay exact
  CHECK(human_value(value(3.15e23 * flop)) == "315 ZFLOP (3.15e23 FLOP)");
}

TEST_CASE("digits 2 rounds, and 0 restores the house style", "[report][digits]") {
  {
    const Digits d(2);
    CHECK(human_value(value(10000.0 * second)) == "2.8 h (10000 s)");
    CHECK(compact(0.126, DimRt{}) == "0.13");
    CHECK(compact(999.7, DimRt{}) == "1000");
  }
  CHECK(human_value(value(10000.0 * second)) == "2.78 h (10000 s)");
}

TEST_CASE("parameter counts keep the exact integer beside the rounded one", "[report]") {
  CHECK(human_value(value(8030261248.0 * param)) == "8.03B params (8030261248)");
}

TEST_CASE("intensities below 1 keep 3 significant digits", "[report]") {
  CHECK(human_value(value(0.125 * flop_per_byte)) == "0.125 FLOP/B");
  CHECK(human_value(value(0.25 * flop_per_byte)) == "0.25 FLOP/B");
  CHECK(human_value(value(100.0 * flop_per_byte)) == "100 FLOP/B");
}

TEST_CASE("machine numbers are exact integers below 2^53, shortest round-trip otherwise", "[report]") {
  auto num = [](double v) {
    std::string s;
    report::append_number(s, v);
    return s;
  };
  CHECK(num(16060522496.0) == "16060522496");
  CHECK(num(1e30) == "1e+30");
  CHECK(num(0.125) == "0.125");
  CHECK(num(2.7777777777777777) == "2.7777777777777777");
  CHECK(num(9007199254740992.0) == "9007199254740992");
}

TEST_CASE("JSON unit symbols are the base units of interface.md", "[report]") {
  CHECK(report::unit_symbol(dim_rt<Bytes::dim>()) == "B");
  CHECK(report::unit_symbol(dim_rt<FlopRate::dim>()) == "FLOP/s");
  CHECK(report::unit_symbol(dim_rt<Intensity::dim>()) == "FLOP/B");
  CHECK(report::unit_symbol(dim_rt<Watts::dim>()) == "W");
  CHECK(report::unit_symbol(dim_rt<Count::dim>()) == "1");
  CHECK(report::unit_symbol(dim_rt<Usd::dim>()) == "USD");
  CHECK(report::unit_symbol(dim_rt<Co2::dim>()) == "kgCO2e");
}

TEST_CASE("a value past the largest prefix prints in scientific notation, not as a 20-digit mantissa", "[report]") {
  CHECK(human_value(value(4e60 * flop)) == "4.000e+60 FLOP (4.000e60 FLOP)");
  CHECK(human_value(value(5e40 * watt)) == "5.000e+40 W");
}

TEST_CASE("a time of more than a trillion days is in scientific notation", "[report]") {
  CHECK(human_value(value(1e300 * second)) == "1.157e+295 d (1.000e+300 s)");
  CHECK(human_value(value(1e12 * day)) == "1.000e+12 d (8.640e+16 s)");
  CHECK(human_value(value(1e11 * day)) == "100000000000.00 d (8.640e+15 s)");
  CHECK(napkin::report::compact(1e300, dim_rt<Usd::dim>()) == "1.000e+300 USD");
  CHECK(napkin::report::compact(2.5e15, dim_rt<Co2::dim>()) == "2.500e+12 tCO2e");
  CHECK(napkin::report::compact(1234.5, dim_rt<Usd::dim>()) == "1234.50 USD");
}

TEST_CASE("an input typed per kWh echoes as typed, subnormal or not", "[report]") {
  Input in{"price_per_kwh", value(0.12 / 3.6e6), 3.6e6};
  CHECK(napkin::report::echoed(in) == 0.12);
  in.value = value(1e-310 / 3.6e6);  // 2.8e-317: a subnormal good to 6 digits
  CHECK(napkin::report::echoed(in) == 1e-310);
  in.value = value(1e-310 / 3.6e9);  // 1e-310 gCO2e/kWh: 2.8e-320, good to 3 digits
  CHECK(napkin::report::echoed(in) == 1e-313);
  in.value = value(4.9406564584124654e-324);  // the smallest double: 1 digit
  CHECK(napkin::report::echoed(in) == 2e-317);
}

TEST_CASE("a count before a word for its unit is not given the unit twice", "[report]") {
  ResultSet rs;
  rs.assume("a", text("12·l·h² = {} parameters, {} params, {} in all", 37.61e9 * units::param, 8e9 * units::param,
                      7e9 * units::param));
  CHECK(napkin::report::expand(rs.view(rs.assumptions[0].text)) ==
        "12·l·h² = 37.61B parameters, 8.00B params, 7.00B params in all");
}
