// napkin energy: FLOP -> time -> kWh -> facility kWh -> USD and CO2 (course notes 7.9); or, as
// papers report runs, GPU-hours (or a time on N GPUs) -> kWh at a per-GPU power (issue 15).
#include <memory>

#include "command.h"
#include "energy_price_flags.h"
#include "flag_checks.h"
#include "hardware_option.h"
#include "napkin/plans/energy.h"
#include "numeric_flags.h"
#include "output_flags.h"
#include "sweep_runner.h"

namespace napkin::cli {

namespace {

struct EnergyCmd {
  NumericFlags nf;
  std::size_t flops = 0, throughput = 0, power = 0, epf = 0, gpu_hours = 0, time = 0, gpus = 0;
  EnergyPriceFlags priced;
  HardwareOption hw;
  OutputOptions out;
};

constexpr double kHour = 3600.0;  // a plain --gpu-hours number is in hours, as papers quote them

}  // namespace

void add_energy_command(CLI::App& app, int& exit_code) {
  auto* sub = add_command(app, "energy", "Time, energy, facility energy, cost and CO2 of a FLOP budget or of GPU-hours");
  auto c = std::make_shared<EnergyCmd>();
  c->flops = c->nf.add(sub, "--flops", "flops", dim_rt<Flops::dim>(), Constraint::non_negative,
                       "Total FLOP, e.g. 1e18 or 6.3e23 (or --gpu-hours, or --time with --gpus)", "FLOP");
  c->throughput = c->nf.add(sub, "--throughput", "throughput", dim_rt<FlopRate::dim>(), Constraint::positive,
                            "Effective rate (not the datasheet peak), e.g. 100TFLOP/s", "FLOP/s");
  c->power = c->nf.add(sub, "--power", "power", dim_rt<Watts::dim>(), Constraint::positive,
                       "Average draw of what --throughput describes, or of one GPU with --gpu-hours/--time, "
                       "e.g. 700W or 1kW", "W");
  c->epf = c->nf.add(sub, "--energy-per-flop", "energy_per_flop", dim_rt<EnergyPerFlop::dim>(), Constraint::positive,
                     "Energy per FLOP instead of --power, e.g. 1pJ/FLOP", "J/FLOP");
  c->gpu_hours = c->nf.add(sub, "--gpu-hours", "gpu_hours", dim_rt<Seconds::dim>(), Constraint::non_negative,
                           "GPU-hours of the run instead of --flops (a plain number is hours), e.g. 1000 "
                           "or 30.84e6", "GPU-h", std::nullopt, kHour);
  c->time = c->nf.add(sub, "--time", "time", dim_rt<Seconds::dim>(), Constraint::non_negative,
                      "Wall-clock time of the run on --gpus GPUs instead of --flops, e.g. 57.7d or 36h", "TIME");
  c->gpus = c->nf.add(sub, "--gpus", "gpus", dim_rt<Count::dim>(), Constraint::positive_integer,
                      "GPUs (or chips) that ran for --time; with --gpu-hours, gives the wall-clock time",
                      "COUNT");
  c->priced = add_energy_price_flags(sub, c->nf);
  add_hw_option(sub, c->hw);
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin energy --flops 1e18 --throughput 100TFLOP/s --power 1kW --pue 1.2\n"
              "         napkin energy --flops 3.15e23 --throughput 140TFLOP/s --hw a100-sxm-80gb --pue 1.1 (power: the TDP)\n"
              "         napkin energy --gpu-hours 1000 --power 700W --pue 1.1\n"
              "         napkin energy --time 57.7d --gpus 1024 --power 289W --pue 1.1 (LaMDA, 451 MWh)");
  sub->callback([c, sub, &exit_code] {
    reject_extras(sub);
    c->hw.load();
    // --hw fills --power with the board's TDP (the most it draws), unless energy per FLOP is given.
    if (c->hw.spec && c->hw.spec->tdp && c->nf.flags()[c->epf].raw.empty())
      c->hw.fill(c->nf.flags()[c->power], c->hw.spec->tdp->in_base_units());
    exit_code = run_sweep(sub, c->nf, c->out, [&](const Point& p, ResultSet& rs) {
      EnergyInput in;
      in.flops = p.maybe<Flops>(c->flops);
      in.gpu_time = p.maybe<Seconds>(c->gpu_hours);
      in.time = p.maybe<Seconds>(c->time);
      if (p.has(c->gpus)) in.gpus = p[c->gpus];
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
