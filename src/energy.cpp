#include "napkin/energy.h"

#include "napkin/check.h"
#include "napkin/error.h"

namespace napkin {

using namespace units;

namespace {
void check(const EnergyInput& in) {
  require_non_negative(in.flops, "flops");
  if (in.throughput) require_positive(*in.throughput, "throughput");
  if (in.power && in.energy_per_flop)
    throw InputError("power", "(given with --energy-per-flop)",
                     "either --power (with --throughput) or --energy-per-flop, not both");
  if (!in.power && !in.energy_per_flop)
    throw InputError("power", "(missing)", "--power (with --throughput) or --energy-per-flop");
  if (in.power) {
    require_positive(*in.power, "power");
    if (!in.throughput)
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
  if (in.throughput) r.time = in.flops / *in.throughput;
  r.energy = in.power ? *in.power * *r.time : in.flops * *in.energy_per_flop;
  r.facility_energy = in.pue * r.energy;
  if (in.price) r.cost = r.facility_energy * *in.price;
  if (in.carbon_intensity) r.co2 = r.facility_energy * *in.carbon_intensity;
  return r;
}

void energy(const EnergyInput& in, ResultSet& out) {
  const EnergyEstimate r = energy(in);
  out.command = "energy";
  out.input("flops", value(in.flops));
  if (in.throughput) out.input("throughput", value(*in.throughput));
  if (in.power) out.input("power", value(*in.power));
  if (in.energy_per_flop) out.input("energy_per_flop", value(*in.energy_per_flop));
  out.input("pue", value(in.pue));
  // Prices and carbon intensities are echoed per kWh, the unit they are quoted in.
  if (in.price)
    out.inputs.push_back(Input{"price_per_kwh", value(*in.price), kWh.in(joule), "USD/kWh"});
  if (in.carbon_intensity)
    out.inputs.push_back(Input{"carbon_intensity", value(*in.carbon_intensity), kWh.in(joule), "kgCO2e/kWh"});

  if (r.time)
    out.item("time", "time", value(*r.time), "t = C / R", text("{} / {}", in.flops, *in.throughput));
  if (in.power) {
    out.item("energy", "energy", value(r.energy), "E = P · t", text("{} · {}", *in.power, *r.time));
    if (in.flops.in(flop) > 0.0)
      out.item("energy_per_flop", "energy per FLOP", value(r.energy / in.flops), "E / C",
               text("{} / {}", r.energy, in.flops));
  } else {
    out.item("energy", "energy", value(r.energy), "E = C · e_FLOP",
             text("{} · {}", in.flops, *in.energy_per_flop));
    if (r.time && r.time->in(second) > 0.0)
      out.item("average_power", "average power", value(r.energy / *r.time), "P = E / t",
               text("{} / {}", r.energy, *r.time));
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
  if (in.power)
    out.assume("power", text("{} is the average draw of whatever --throughput describes (one GPU, "
                             "a node or the cluster; GPU only or whole machine)", *in.power));
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
  out.note(text("there is no fixed FLOP-to-kWh conversion: the result scales with the effective "
                "rate and the power it is drawn at"));
}

}  // namespace napkin
