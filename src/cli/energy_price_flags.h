// --pue, --price-per-kwh and --carbon-intensity: what facility energy costs, in money and carbon
// (energy and train).
#pragma once

#include <cstddef>

#include "command_app.h"
#include "numeric_flags.h"

namespace napkin::cli {

/// --pue, --price-per-kwh and --carbon-intensity, as energy and train take them (prices and
/// carbon per kWh of facility energy). Returns their indices in `nf`.
struct EnergyPriceFlags {
  std::size_t pue = 0, price_kwh = 0, carbon = 0;
};
EnergyPriceFlags add_energy_price_flags(CommandApp* sub, NumericFlags& nf);

}  // namespace napkin::cli
