// serve's cost flags: --price-per-gpu-hour, --power, --pue, --price-per-kwh, --carbon-intensity
// (napkin/plans/serve_cost.h: $/hour, $ and kWh and CO2 per 1M output tokens).
#pragma once

#include <cstddef>
#include <string>

#include "command_app.h"
#include "energy_price_flags.h"
#include "hardware_option.h"
#include "napkin/plans/serve_cost.h"
#include "numeric_flags.h"
#include "sweep.h"

namespace napkin::cli {

struct ServeCostFlags {
  std::size_t price_gpu_hour = 0, power = 0;
  EnergyPriceFlags priced;
  std::string power_source;  // the text of gpu_power's source (outlives the rows)
};

/// Adds the flags to `sub` (group "Cost").
void add_serve_cost_flags(CommandApp* sub, NumericFlags& nf, ServeCostFlags& f);

/// --hw's TDP as --power's default (before the sweep).
void fill_serve_power(const HardwareOption& hw, NumericFlags& nf, ServeCostFlags& f);

/// The cost input at one sweep point.
ServeCostInput serve_cost_input(const NumericFlags& nf, const ServeCostFlags& f, const Point& p);

}  // namespace napkin::cli
