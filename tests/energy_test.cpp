#include <catch2/catch.hpp>

#include "napkin/energy.h"
#include "napkin/error.h"
#include "napkin/report/human_units.h"

using namespace napkin;
using namespace napkin::units;

TEST_CASE("1e18 FLOP at 100 TFLOP/s and 1 kW: 10,000 s, 2.7778 kWh, 3.3333 kWh at PUE 1.2", "[energy][seed]") {
  const EnergyEstimate e = energy({.flops = 1e18 * flop, .throughput = 100.0 * TFLOP_per_s, .power = 1.0 * kW, .pue = 1.2});
  CHECK(e.time->in(second) == 10000.0);
  CHECK_THAT(e.time->in(hour), Catch::Matchers::WithinAbs(2.7778, 5e-5));
  CHECK_THAT(e.energy.in(kWh), Catch::Matchers::WithinAbs(2.7778, 5e-5));
  CHECK_THAT(e.facility_energy.in(kWh), Catch::Matchers::WithinAbs(3.3333, 5e-5));
  CHECK(e.facility_energy.in(joule) == Approx(1.2e7).epsilon(1e-15));
}

TEST_CASE("the seed example renders as 2.78 h (10000 s) and 3.33 kWh (12.00 MJ)", "[energy][seed]") {
  ResultSet rs;
  energy({.flops = 1e18 * flop, .throughput = 100.0 * TFLOP_per_s, .power = 1.0 * kW, .pue = 1.2}, rs);
  CHECK(report::human_value(rs.find("time")->value) == "2.78 h (10000 s)");
  CHECK(report::human_value(rs.find("energy")->value) == "2.78 kWh (10.00 MJ)");
  CHECK(report::human_value(rs.find("facility_energy")->value) == "3.33 kWh (12.00 MJ)");
}

TEST_CASE("price and carbon apply to facility energy", "[energy]") {
  const EnergyEstimate e = energy({.flops = 1e18 * flop, .throughput = 100.0 * TFLOP_per_s, .power = 1.0 * kW,
                                   .pue = 1.2, .price = 0.10 * usd / kWh, .carbon_intensity = 0.5 * kg_co2e / kWh});
  CHECK(e.cost->in(usd) == Approx(0.33333333333).epsilon(1e-9));
  CHECK(e.co2->in(kg_co2e) == Approx(1.66666666667).epsilon(1e-9));
}

TEST_CASE("energy per FLOP is the alternative path: 1e18 FLOP at 10 pJ/FLOP is 10 MJ", "[energy]") {
  const EnergyEstimate e = energy({.flops = 1e18 * flop, .energy_per_flop = EnergyPerFlop::from_base(10e-12)});
  CHECK(e.energy.in(MJ) == Approx(10.0).epsilon(1e-12));
  CHECK_FALSE(e.time.has_value());
}

TEST_CASE("the assumptions say R is effective and whose power W is", "[energy][seed]") {
  ResultSet rs;
  energy({.flops = 1e18 * flop, .throughput = 100.0 * TFLOP_per_s, .power = 1.0 * kW}, rs);
  std::string all;
  for (const auto& a : rs.assumptions) all += report::expand(rs, a.text) + "\n";
  CHECK(all.find("effective rate, not the datasheet peak") != std::string::npos);
  CHECK(all.find("one GPU, a node or the cluster") != std::string::npos);
}

TEST_CASE("a PUE below 1 or both power paths at once are input errors", "[energy]") {
  CHECK_THROWS_WITH(energy({.flops = 1.0 * flop, .throughput = 1.0 * TFLOP_per_s, .power = 1.0 * kW, .pue = 0.9}),
                    "pue: '0.9': expected a ratio between 1 and 10 (1.0 = no facility overhead)");
  CHECK_THROWS_AS(energy({.flops = 1.0 * flop, .throughput = 1.0 * TFLOP_per_s, .power = 1.0 * kW,
                          .energy_per_flop = EnergyPerFlop::from_base(1e-12)}),
                  InputError);
}
