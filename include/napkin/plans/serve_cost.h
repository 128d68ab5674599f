// What a serving deployment costs per hour and per million output tokens: GPU rental, the energy
// the GPUs draw (with the facility's PUE), its price and its carbon. The rate is the batch's own:
// B · G output tokens over the request's latency (prefill, then G − 1 decode steps), expected where
// serve has an efficiency profile, else the bound's; one batch after the other, as serve models it
// (continuous batching overlaps a batch's prefill with others' decodes: not modelled here).
//
//   output rate      R_out = B · G / (t_prefill + (G − 1) · t_decode)
//   per hour         N_gpu · price per GPU-hour
//   per 1M tokens    N_gpu · price / R_out · 10⁶ tokens
//   energy per 1M    N_gpu · P_gpu · PUE · 10⁶ tokens / R_out
//   its price, CO2   energy · price per kWh, energy · carbon intensity
#pragma once

#include <optional>
#include <string_view>

#include "napkin/ground/result.h"
#include "napkin/ground/units.h"
#include "napkin/plans/serve.h"

namespace napkin {

struct ServeCostInput {
  std::optional<UsdPerSecond> price_per_gpu{};    // rental of one GPU
  std::optional<Watts> gpu_power{};               // average draw of one GPU
  std::string_view power_source{};                // where gpu_power came from (outlives the ResultSet)
  double pue = 1.0;                               // facility / IT energy
  std::optional<UsdPerJoule> price_per_energy{};  // electricity, per joule of facility energy
  std::optional<Co2PerJoule> carbon_intensity{};
  bool energy_asked = false;                      // --power or --pue given: the energy rows without a price
  /// Anything asked: a rental price, an energy price, a carbon intensity, or the energy itself.
  bool priced() const { return price_per_gpu || price_per_energy || carbon_intensity || energy_asked; }
  bool operator==(const ServeCostInput&) const = default;
};

struct ServeCost {
  double gpus = 1;                 // the deployment's GPUs (tp)
  Seconds batch_time{};            // t_prefill + (G − 1) · t_decode
  bool expected = false;           // batch_time from the expected figures (else the bound)
  Tokens output_tokens{};          // B · G
  TokenRate output_rate{};
  std::optional<Usd> per_hour{}, per_million{};
  std::optional<Joules> energy_per_million{};  // facility energy
  std::optional<Usd> energy_cost_per_million{};
  std::optional<Co2> co2_per_million{};
};

/// The cost of serving `in` (its batch, prompt, generated tokens, tp) at `r`'s speed. InputError
/// (--power) when energy is asked for without cost.gpu_power.
ServeCost serve_cost(const ServeInput& in, const Serve& r, const ServeCostInput& cost);

/// The cost rows and their assumptions (nothing when cost.priced() is false).
void serve_cost_items(const ServeInput& in, const Serve& r, const ServeCostInput& cost, ResultSet& out);

}  // namespace napkin
