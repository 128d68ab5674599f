#include <catch2/catch.hpp>

#include "napkin/report/human_units.h"

using namespace napkin;
using namespace napkin::units;
using napkin::report::human_value;

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

TEST_CASE("FLOP counts show a prefix and 4 significant digits", "[report]") {
  CHECK(human_value(value(137438953472.0 * flop)) == "137.44 GFLOP (1.374e11 FLOP)");
  CHECK(human_value(value(3.15e23 * flop)) == "315.00 ZFLOP (3.150e23 FLOP)");
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
