// See energy_price_flags.h.
#include "energy_price_flags.h"

#include <optional>

namespace napkin::cli {

EnergyPriceFlags add_energy_price_flags(CommandApp* sub, NumericFlags& nf) {
  constexpr double kPerKwh = 1.0 / 3.6e6;  // a plain number per kWh, in per-joule base units
  EnergyPriceFlags e;
  e.pue = nf.add(sub, "--pue", "pue", dim_rt<Count::dim>(), Constraint::pue,
                 "Power usage effectiveness: facility / IT energy (default 1)", "RATIO", 1.0);
  e.price_kwh = nf.add(sub, "--price-per-kwh", "price_per_kwh", dim_rt<UsdPerJoule::dim>(), Constraint::non_negative,
                       "Electricity price in USD/kWh, applied to facility energy", "USD/kWh", std::nullopt, kPerKwh);
  e.carbon = nf.add(sub, "--carbon-intensity", "carbon_intensity", dim_rt<Co2PerJoule::dim>(), Constraint::non_negative,
                    "Grid carbon intensity, with its unit: 400gCO2e/kWh or 0.4kgCO2e/kWh (a bare number "
                    "other than 0 is refused)", "gCO2e/kWh", std::nullopt, kPerKwh);
  return e;
}

std::size_t add_price_per_gpu_hour_flag(CommandApp* sub, NumericFlags& nf, const char* help) {
  constexpr double kPerHour = 1.0 / 3600.0;  // a plain number per hour, in per-second base units
  return nf.add(sub, "--price-per-gpu-hour", "price_per_gpu_hour", dim_rt<UsdPerSecond::dim>(), Constraint::non_negative,
                help, "USD/h", std::nullopt, kPerHour);
}

}  // namespace napkin::cli
