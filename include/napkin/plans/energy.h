// From FLOP to hours, kWh, dollars and CO2. Course notes 7.9.
//   t = C / R_effective,  E = P · t  (or E = C · e_FLOP),  E_facility = PUE · E,
//   cost = E_facility · price,  CO2 = E_facility · carbon intensity.
// R must be the effective throughput, not the datasheet peak; P must say whose power it is.
// Without a FLOP count, from what papers report (issue 15): GPU-hours H, or a wall-clock time t
// on N GPUs (H = N · t), at a power P per GPU: E = P · H. LaMDA §10 (Thoppilan et al. 2022):
// 1024 TPU v3 chips · 57.7 days · 289 W · PUE 1.10 = 451 MWh.
#pragma once

#include <optional>

#include "napkin/ground/result.h"
#include "napkin/ground/units.h"

namespace napkin {

struct EnergyInput {
  // Exactly one of: flops (with throughput or energy_per_flop), gpu_time, or time with gpus.
  std::optional<Flops> flops{};
  std::optional<FlopRate> throughput{};          // effective rate; needed for time and for power
  std::optional<Watts> power{};                  // average draw of what `throughput` describes
  std::optional<EnergyPerFlop> energy_per_flop{};  // alternative to power
  std::optional<Seconds> gpu_time{};             // GPU-hours: device time summed over devices
  std::optional<Seconds> time{};                 // wall-clock time of a run on `gpus` devices
  std::optional<double> gpus{};                  // devices in the run (with time; with gpu_time: gives time)
  double pue = 1.0;                            // facility energy / IT energy, ≥ 1
  std::optional<UsdPerJoule> price{};            // applied to facility energy
  std::optional<Co2PerJoule> carbon_intensity{};  // applied to facility energy
};

struct EnergyEstimate {
  std::optional<Seconds> time{};
  std::optional<Seconds> gpu_time{};  // from --gpu-hours, or gpus · time
  Joules energy{};
  Joules facility_energy{};
  std::optional<Usd> cost{};
  std::optional<Co2> co2;
};

/// Preconditions: exactly one of flops (≥ 0), gpu_time (≥ 0) or time (≥ 0, with gpus a positive
/// integer); with flops, exactly one of power (with throughput, positive) or energy_per_flop;
/// with gpu_time or time, power (per GPU) and neither throughput nor energy_per_flop; gpus only
/// with gpu_time or time; 1 ≤ pue ≤ 10; price and carbon intensity ≥ 0.
EnergyEstimate energy(const EnergyInput& in);
void energy(const EnergyInput& in, ResultSet& out);

}  // namespace napkin
