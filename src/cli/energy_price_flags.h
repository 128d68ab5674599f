// --pue, --price-per-kwh and --carbon-intensity: what facility energy costs, in money and carbon
// (energy, train and serve); --price-per-gpu-hour, what a GPU costs to rent (train and serve).
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

/// --price-per-gpu-hour (USD per GPU-hour, held per second) with `help`; returns its index in `nf`
/// (train and serve).
std::size_t add_price_per_gpu_hour_flag(CommandApp* sub, NumericFlags& nf, const char* help);

}  // namespace napkin::cli
