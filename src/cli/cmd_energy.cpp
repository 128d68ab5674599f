// napkin energy: FLOP -> time -> kWh -> facility kWh -> USD and CO2 (course notes 7.9).
#include <memory>

#include "command.h"
#include "napkin/energy.h"

namespace napkin::cli {

namespace {

struct EnergyCmd {
  NumericFlags nf;
  std::size_t flops = 0, throughput = 0, power = 0, epf = 0;
  EnergyPriceFlags priced;
  HardwareOption hw;
  OutputOptions out;
};

}  // namespace

void add_energy_command(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("energy", "Time, energy, facility energy, cost and CO2 of a FLOP budget");
  auto c = std::make_shared<EnergyCmd>();
  c->flops = c->nf.add(sub, "--flops", "flops", dim_rt<Flops::dim>(), Constraint::non_negative,
                       "Total FLOP, e.g. 1e18 or 6.3e23", "FLOP");
  sub->get_option("--flops")->required();
  c->throughput = c->nf.add(sub, "--throughput", "throughput", dim_rt<FlopRate::dim>(), Constraint::positive,
                            "Effective rate (not the datasheet peak), e.g. 100TFLOP/s", "FLOP/s");
  c->power = c->nf.add(sub, "--power", "power", dim_rt<Watts::dim>(), Constraint::positive,
                       "Average draw of what --throughput describes, e.g. 700W or 1kW", "W");
  c->epf = c->nf.add(sub, "--energy-per-flop", "energy_per_flop", dim_rt<EnergyPerFlop::dim>(), Constraint::positive,
                     "Energy per FLOP instead of --power, e.g. 1pJ/FLOP", "J/FLOP");
  c->priced = add_energy_price_flags(sub, c->nf);
  add_hw_option(sub, c->hw);
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin energy --flops 1e18 --throughput 100TFLOP/s --power 1kW --pue 1.2\n"
              "         napkin energy --flops 3.15e23 --throughput 140TFLOP/s --hw a100-sxm-80gb --pue 1.1 (power: the TDP)");
  sub->callback([c, sub, &exit_code] {
    reject_extras(sub);
    c->hw.load();
    // --hw fills --power with the board's TDP (the most it draws), unless energy per FLOP is given.
    if (c->hw.spec && c->hw.spec->tdp && c->nf.flags()[c->epf].raw.empty())
      c->hw.fill(c->nf.flags()[c->power], c->hw.spec->tdp->in_base_units());
    exit_code = run_sweep(sub, c->nf, c->out, [&](const Point& p, ResultSet& rs) {
      EnergyInput in;
      in.flops = p.get<Flops>(c->flops);
      in.throughput = p.maybe<FlopRate>(c->throughput);
      in.power = p.maybe<Watts>(c->power);
      in.energy_per_flop = p.maybe<EnergyPerFlop>(c->epf);
      in.pue = p[c->priced.pue];
      in.price = p.maybe<UsdPerJoule>(c->priced.price_kwh);
      in.carbon_intensity = p.maybe<Co2PerJoule>(c->priced.carbon);
      energy(in, rs);
      c->hw.assume(rs);
    });
  });
}

}  // namespace napkin::cli
