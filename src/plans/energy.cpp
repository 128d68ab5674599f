#include "napkin/plans/energy.h"

#include <cmath>
#include <string>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"

namespace napkin {

using namespace units;

namespace {
// The ways to say how much work was done: a FLOP count, GPU-hours, or a time on N GPUs. Two of
// them at once could disagree, so a second one is refused by name rather than silently ignored.
void check_device_time(const EnergyInput& in) {
  const char* way = in.gpu_time ? "gpu_hours" : "time";
  const std::string given = in.gpu_time ? "(given with --gpu-hours)" : "(given with --time)";
  if (in.gpu_time && in.time)
    throw InputError("time", "(given with --gpu-hours)",
                     "either --gpu-hours or --time with --gpus, not both (GPU-hours = GPUs · time)");
  if (in.throughput)
    throw InputError("throughput", given,
                     "--throughput only with --flops; GPU-hours or a time already say how long it ran");
  if (in.energy_per_flop)
    throw InputError("energy_per_flop", given, "--energy-per-flop only with --flops; use --power per GPU");
  if (!in.power)
    throw InputError("power", "(missing)", "the average draw of one GPU, e.g. 700W (or --hw for its TDP)");
  require_positive(*in.power, "power");
  if (in.gpu_time) require_non_negative(*in.gpu_time, way);
  if (in.time) {
    require_non_negative(*in.time, way);
    if (!in.gpus) throw InputError("gpus", "(missing)", "the number of GPUs that ran for --time");
  }
  if (in.gpus && !(std::isfinite(*in.gpus) && *in.gpus >= 1.0 && std::floor(*in.gpus) == *in.gpus))
    throw InputError("gpus", format_plain_number(*in.gpus), "a positive integer");
}

void check(const EnergyInput& in) {
  const int ways = (in.flops ? 1 : 0) + (in.gpu_time ? 1 : 0) + (in.time ? 1 : 0);
  if (ways == 0)
    throw InputError("flops", "(missing)", "--flops (with --throughput), --gpu-hours, or --time with --gpus");
  if (in.flops) {
    if (in.gpu_time)
      throw InputError("gpu_hours", "(given with --flops)",
                       "either --flops (with --throughput) or --gpu-hours, not both");
    if (in.time)
      throw InputError("time", "(given with --flops)",
                       "either --flops (with --throughput, which gives the time) or --time with --gpus, not both");
    if (in.gpus)
      throw InputError("gpus", "(given with --flops)",
                       "--gpus only with --time or --gpu-hours; --throughput and --power describe the whole run");
    require_non_negative(*in.flops, "flops");
  } else {
    check_device_time(in);
  }
  if (in.throughput) require_positive(*in.throughput, "throughput");
  if (in.power && in.energy_per_flop)
    throw InputError("power", "(given with --energy-per-flop)",
                     "either --power (with --throughput) or --energy-per-flop, not both");
  if (!in.power && !in.energy_per_flop)
    throw InputError("power", "(missing)", "--power (with --throughput) or --energy-per-flop");
  if (in.power) {
    require_positive(*in.power, "power");
    if (in.flops && !in.throughput)
      throw InputError("throughput", "(missing)", "an effective FLOP/s rate to turn --power into energy");
  }
  if (in.energy_per_flop) require_positive(*in.energy_per_flop, "energy_per_flop");
  // PUE is facility energy over IT energy: below 1 is impossible, above ~3 is a typo in practice;
  // 10 leaves room for anything real.
  if (!(in.pue >= 1.0 && in.pue <= 10.0))
    throw InputError("pue", format_plain_number(in.pue), "a ratio between 1 and 10 (1.0 = no facility overhead)");
  if (in.price) require_non_negative(*in.price, "price_per_kwh");
  if (in.carbon_intensity) require_non_negative(*in.carbon_intensity, "carbon_intensity");
}
}  // namespace

EnergyEstimate energy(const EnergyInput& in) {
  check(in);
  EnergyEstimate r;
  if (in.flops) {
    if (in.throughput) r.time = *in.flops / *in.throughput;
    r.energy = in.power ? *in.power * *r.time : *in.flops * *in.energy_per_flop;
  } else {
    // --power is one GPU's draw, so energy follows device time: E = P · H, H = N · t.
    r.gpu_time = in.gpu_time ? *in.gpu_time : *in.gpus * *in.time;
    r.time = in.time ? in.time : (in.gpus ? std::optional<Seconds>(*in.gpu_time / *in.gpus) : std::nullopt);
    r.energy = *in.power * *r.gpu_time;
  }
  r.facility_energy = in.pue * r.energy;
  if (in.price) r.cost = r.facility_energy * *in.price;
  if (in.carbon_intensity) r.co2 = r.facility_energy * *in.carbon_intensity;
  return r;
}

void energy(const EnergyInput& in, ResultSet& out) {
  const EnergyEstimate r = energy(in);
  out.command = "energy";
  if (in.flops) out.input("flops", value(*in.flops));
  // GPU-hours are echoed in hours, the unit they are quoted in (as train reports gpu_hours).
  if (in.gpu_time) out.input("gpu_hours", value(in.gpu_time->in(hour)));
  if (in.time) out.input("time", value(*in.time));
  if (in.gpus) out.input("gpus", value(*in.gpus));
  if (in.throughput) out.input("throughput", value(*in.throughput));
  if (in.power) out.input("power", value(*in.power));
  if (in.energy_per_flop) out.input("energy_per_flop", value(*in.energy_per_flop));
  out.input("pue", value(in.pue));
  // Prices and carbon intensities are echoed per kWh, the unit they are quoted in.
  if (in.price)
    out.inputs.push_back(Input{"price_per_kwh", value(*in.price), kWh.in(joule), "USD/kWh"});
  if (in.carbon_intensity)
    out.inputs.push_back(Input{"carbon_intensity", value(*in.carbon_intensity), kWh.in(joule), "kgCO2e/kWh"});

  if (in.flops) {
    if (r.time)
      out.item("time", "time", value(*r.time), "t = C / R", text("{} / {}", *in.flops, *in.throughput));
    if (in.power) {
      out.item("energy", "energy", value(r.energy), "E = P · t", text("{} · {}", *in.power, *r.time));
      if (in.flops->in(flop) > 0.0)
        out.item("energy_per_flop", "energy per FLOP", value(r.energy / *in.flops), "E / C",
                 text("{} / {}", r.energy, *in.flops));
    } else {
      out.item("energy", "energy", value(r.energy), "E = C · e_FLOP",
               text("{} · {}", *in.flops, *in.energy_per_flop));
      if (r.time && r.time->in(second) > 0.0)
        out.item("average_power", "average power", value(r.energy / *r.time), "P = E / t",
                 text("{} / {}", r.energy, *r.time));
    }
  } else {
    if (in.time)
      out.item("gpu_hours", "GPU-hours", value(r.gpu_time->in(hour)), "H = N_gpu · t",
               text("{} · {}", *in.gpus, *in.time));
    else if (r.time)
      out.item("time", "time", value(*r.time), "t = H / N_gpu",
               text("{} GPU-h / {}", in.gpu_time->in(hour), *in.gpus));
    out.item("energy", "energy", value(r.energy), "E = P · H",
             text("{} · {} GPU-h", *in.power, r.gpu_time->in(hour)));
  }
  out.item("facility_energy", "facility energy", value(r.facility_energy), "E_fac = PUE · E",
           text("{} · {}", in.pue, r.energy));
  if (r.cost)
    out.item("cost", "electricity cost", value(*r.cost), "cost = E_fac · price",
             text("{} · {}", r.facility_energy, *in.price));
  if (r.co2)
    out.item("co2", "emissions", value(*r.co2), "CO2 = E_fac · carbon intensity",
             text("{} · {}", r.facility_energy, *in.carbon_intensity));

  if (in.throughput)
    out.assume("throughput", text("{} is the effective rate, not the datasheet peak", *in.throughput));
  if (in.power && in.flops)
    out.assume("power", text("{} is the average draw of whatever --throughput describes (one GPU, "
                             "a node or the cluster; GPU only or whole machine)", *in.power));
  else if (in.power)
    out.assume("power", text("{} is the average draw of one GPU over the whole run (a TDP is the most "
                             "it draws; papers often use a measured system average per accelerator)",
                             *in.power));
  else
    out.assume("energy_per_flop",
               text("{} per FLOP: varies with hardware, precision, utilisation and memory traffic",
                    *in.energy_per_flop));
  out.assume("pue", text("facility overhead PUE {} (1.00 = none)", in.pue));
  if (in.price)
    out.assume("price_per_kwh", text("electricity at {} USD/kWh, applied to facility energy",
                                     in.price->in(usd / kWh)));
  if (in.carbon_intensity)
    out.assume("carbon_intensity", text("grid carbon intensity {} kgCO2e/kWh, applied to facility energy",
                                        in.carbon_intensity->in(kg_co2e / kWh)));
  if (in.flops)
    out.note(text("there is no fixed FLOP-to-kWh conversion: the result scales with the effective "
                  "rate and the power it is drawn at"));
}

}  // namespace napkin
