// From FLOP to hours, kWh, dollars and CO2. Course notes 7.9.
//   t = C / R_effective,  E = P · t  (or E = C · e_FLOP),  E_facility = PUE · E,
//   cost = E_facility · price,  CO2 = E_facility · carbon intensity.
// R must be the effective throughput, not the datasheet peak; P must say whose power it is.
#pragma once

#include <optional>

#include "napkin/result.h"
#include "napkin/units.h"

namespace napkin {

struct EnergyInput {
  Flops flops{};
  std::optional<FlopRate> throughput{};          // effective rate; needed for time and for power
  std::optional<Watts> power{};                  // average draw of what `throughput` describes
  std::optional<EnergyPerFlop> energy_per_flop{};  // alternative to power
  double pue = 1.0;                            // facility energy / IT energy, ≥ 1
  std::optional<UsdPerJoule> price{};            // applied to facility energy
  std::optional<Co2PerJoule> carbon_intensity{};  // applied to facility energy
};

struct EnergyEstimate {
  std::optional<Seconds> time{};
  Joules energy{};
  Joules facility_energy{};
  std::optional<Usd> cost{};
  std::optional<Co2> co2;
};

/// Preconditions: flops ≥ 0; throughput and power positive; exactly one of power (with
/// throughput) or energy_per_flop; 1 ≤ pue ≤ 10; price and carbon intensity ≥ 0.
EnergyEstimate energy(const EnergyInput& in);
void energy(const EnergyInput& in, ResultSet& out);

}  // namespace napkin
