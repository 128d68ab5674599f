// See serve_cost_flags.h.
#include "serve_cost_flags.h"

#include <optional>

#include "napkin/ground/units.h"

namespace napkin::cli {

void add_serve_cost_flags(CommandApp* sub, NumericFlags& nf, ServeCostFlags& f) {
  f.price_gpu_hour = add_price_per_gpu_hour_flag(
      sub, nf, "Rental price of one GPU for one hour, in USD, e.g. 2.5: the cost per hour and per 1M output tokens");
  f.power = nf.add(sub, "--power", "power", dim_rt<Watts::dim>(), Constraint::positive,
                   "Average draw of one GPU while serving (default: the --hw TDP), e.g. 500W: the energy per 1M "
                   "output tokens", "W");
  f.priced = add_energy_price_flags(sub, nf);
  for (const char* flag : {"--price-per-gpu-hour", "--power", "--pue", "--price-per-kwh", "--carbon-intensity"})
    sub->get_option(flag)->group("Cost");
}

void fill_serve_power(const HardwareOption& hw, NumericFlags& nf, ServeCostFlags& f) {
  auto& flags = nf.flags();
  if (!flags[f.power].raw.empty()) {
    f.power_source = "--power";
    return;
  }
  if (hw.has_figures() && hw.spec->tdp) {
    hw.fill(flags[f.power], hw.spec->tdp->in_base_units());
    f.power_source = "the TDP of " + hw.spec->name + " (its datasheet's board power: an upper bound, decode-heavy "
                     "serving draws less; --power to say)";
  }
}

ServeCostInput serve_cost_input(const NumericFlags& nf, const ServeCostFlags& f, const Point& p) {
  const auto& flags = nf.flags();
  ServeCostInput c;
  c.price_per_gpu = p.maybe<UsdPerSecond>(f.price_gpu_hour);
  c.gpu_power = p.maybe<Watts>(f.power);
  c.power_source = f.power_source;
  c.pue = p.get<Count>(f.priced.pue).in(units::one);
  c.price_per_energy = p.maybe<UsdPerJoule>(f.priced.price_kwh);
  c.carbon_intensity = p.maybe<Co2PerJoule>(f.priced.carbon);
  c.energy_asked = !flags[f.power].raw.empty() || !flags[f.priced.pue].raw.empty();
  return c;
}

}  // namespace napkin::cli
