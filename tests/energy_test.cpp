#include <catch2/catch.hpp>

#include <cmath>

#include "napkin/ground/error.h"
#include "napkin/plans/energy.h"
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

// ---- energy from GPU-hours or a time on N GPUs (issue 15 item 2) -------------------------------

TEST_CASE("1000 GPU-hours at 700 W and PUE 1.1: 700 kWh IT, 770 kWh facility", "[energy]") {
  const EnergyEstimate e = energy({.power = 700.0 * watt, .gpu_time = 1000.0 * hour, .pue = 1.1});
  CHECK_THAT(e.energy.in(kWh), Catch::Matchers::WithinRel(700.0, 1e-12));
  CHECK_THAT(e.facility_energy.in(kWh), Catch::Matchers::WithinRel(770.0, 1e-12));
  CHECK_FALSE(e.time.has_value());
}

// LaMDA (Thoppilan et al. 2022, arXiv:2201.08239) §10: "57.7 days * 1024 chips * 289W * 1.1 *
// 24 hours/day = 451 MWh". 289 W is not LaMDA's own measurement: the paper borrows Meena's
// "Measured System Average Power per Accelerator" on TPU v3 (memory, NIC, fans and host CPU
// included) from Patterson et al. 2021, Table 4. PUE 1.10 is its datacenter's; energy mix
// 0.056 kgCO2e/kWh gives "approximately 25.2 tCO2e".
TEST_CASE("LaMDA: 1024 TPU v3 chips for 57.7 days at 289 W and PUE 1.10 is 451 MWh (25.2 tCO2e)", "[energy]") {
  const EnergyEstimate e = energy({.power = 289.0 * watt, .time = 57.7 * day, .gpus = 1024.0, .pue = 1.10,
                                   .carbon_intensity = 0.056 * kg_co2e / kWh});
  CHECK_THAT(e.gpu_time->in(hour), Catch::Matchers::WithinRel(1418035.2, 1e-12));  // chip-hours
  CHECK_THAT(e.facility_energy.in(kWh) / 1000.0, Catch::Matchers::WithinRel(450.793, 1e-5));
  CHECK(std::round(e.facility_energy.in(kWh) / 1000.0) == 451.0);                              // as printed
  CHECK(std::round(e.co2->in(kg_co2e) / 100.0) / 10.0 == 25.2);                       // 25.24 t
}

TEST_CASE("GPU-hours with --gpus give the wall-clock time: 1000 GPU-h on 8 GPUs is 125 h", "[energy]") {
  const EnergyEstimate e = energy({.power = 700.0 * watt, .gpu_time = 1000.0 * hour, .gpus = 8.0});
  CHECK(e.time->in(hour) == Approx(125.0).epsilon(1e-12));
  CHECK_THAT(e.energy.in(kWh), Catch::Matchers::WithinRel(700.0, 1e-12));
}

TEST_CASE("the ways of giving the work are refused in contradictory combinations, by name", "[energy]") {
  CHECK_THROWS_WITH(energy({.flops = 1.0 * flop, .throughput = 1.0 * TFLOP_per_s, .power = 1.0 * kW,
                            .gpu_time = 1.0 * hour}),
                    "gpu_hours (given with --flops): expected either --flops (with --throughput) or "
                    "--gpu-hours, not both");
  CHECK_THROWS_WITH(energy({.power = 1.0 * kW, .gpu_time = 1.0 * hour, .time = 1.0 * hour, .gpus = 2.0}),
                    Catch::Matchers::Contains("either --gpu-hours or --time with --gpus, not both"));
  CHECK_THROWS_WITH(energy({.throughput = 1.0 * TFLOP_per_s, .power = 1.0 * kW, .gpu_time = 1.0 * hour}),
                    Catch::Matchers::StartsWith("throughput (given with --gpu-hours)"));
  CHECK_THROWS_WITH(energy({.power = 1.0 * kW, .time = 1.0 * hour}),
                    "gpus: '(missing)': expected the number of GPUs that ran for --time");
  CHECK_THROWS_WITH(energy({.energy_per_flop = EnergyPerFlop::from_base(1e-12), .gpu_time = 1.0 * hour}),
                    Catch::Matchers::StartsWith("energy_per_flop (given with --gpu-hours)"));
  CHECK_THROWS_WITH(energy({.gpu_time = 1.0 * hour}), Catch::Matchers::StartsWith("power: '(missing)'"));
  CHECK_THROWS_WITH(energy({.power = 1.0 * kW}), Catch::Matchers::StartsWith("flops: '(missing)'"));
  CHECK_THROWS_WITH(energy({.flops = 1.0 * flop, .throughput = 1.0 * TFLOP_per_s, .power = 1.0 * kW, .gpus = 8.0}),
                    Catch::Matchers::StartsWith("gpus (given with --flops)"));
}

TEST_CASE("energy from GPU-hours reports gpu_hours in hours and says the power is per GPU", "[energy]") {
  ResultSet rs;
  energy({.power = 289.0 * watt, .time = 57.7 * day, .gpus = 1024.0, .pue = 1.1}, rs);
  REQUIRE(rs.find("gpu_hours") != nullptr);
  CHECK_THAT(rs.find("gpu_hours")->value.num, Catch::Matchers::WithinRel(1418035.2, 1e-12));
  std::string all;
  for (const auto& a : rs.assumptions) all += report::expand(rs, a.text) + "\n";
  CHECK(all.find("average draw of one GPU over the whole run") != std::string::npos);
}
