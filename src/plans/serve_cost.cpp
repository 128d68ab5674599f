// What a serving deployment costs: see napkin/plans/serve_cost.h.
#include "napkin/plans/serve_cost.h"

#include "napkin/ground/error.h"

namespace napkin {

using namespace units;

namespace {
constexpr double kMillion = 1e6;
}  // namespace

ServeCost serve_cost(const ServeInput& in, const Serve& r, const ServeCostInput& cost) {
  ServeCost c;
  c.gpus = in.tp.in(one);
  c.expected = r.expected_prefill && r.expected_decode;
  c.batch_time = c.expected ? r.expected_prefill->time + r.decode_steps * r.expected_decode->time : r.latency();
  c.output_tokens = in.batch.in(one) * in.generate.in(one) * token;
  c.output_rate = c.output_tokens / c.batch_time;
  const Seconds per_million = kMillion * token / c.output_rate;  // wall time to emit 10⁶ output tokens
  if (cost.price_per_gpu) {
    c.per_hour = c.gpus * *cost.price_per_gpu * hour;
    c.per_million = c.gpus * *cost.price_per_gpu * per_million;
  }
  if ((cost.price_per_energy || cost.carbon_intensity || cost.energy_asked) && !cost.gpu_power)
    throw InputError("--power", "(none)", "a GPU's draw (or --hw with a TDP) for the energy per output token");
  if (cost.gpu_power) {
    c.energy_per_million = c.gpus * *cost.gpu_power * cost.pue * per_million;
    if (cost.price_per_energy) c.energy_cost_per_million = *c.energy_per_million * *cost.price_per_energy;
    if (cost.carbon_intensity) c.co2_per_million = *c.energy_per_million * *cost.carbon_intensity;
  }
  return c;
}

void serve_cost_items(const ServeInput& in, const Serve& r, const ServeCostInput& cost, ResultSet& out) {
  if (!cost.priced()) return;
  const ServeCost c = serve_cost(in, r, cost);
  const double b = in.batch.in(one), g = in.generate.in(one);
  out.item("output_tokens_per_second", "output throughput, batch after batch", value(c.output_rate),
           c.expected ? "B · G / (t_prefill + (G − 1) · t_decode), expected" : "B · G / (t_prefill + (G − 1) · t_decode)",
           text("{} · {} / {}", b, g, c.batch_time));
  if (c.per_hour)
    out.item("cost_per_hour", "GPU rental per hour", value(*c.per_hour), "N_gpu · price per GPU-hour",
             text("{} · {} USD/h", c.gpus, cost.price_per_gpu->in(usd / hour)));
  if (c.per_million)
    out.item("cost_per_million_output_tokens", "GPU rental per 1M output tokens", value(*c.per_million),
             "N_gpu · price per GPU-hour · 10⁶ tokens / (R_out · 3600 s/h)",
             text("{} · {} USD/h · 10⁶ / ({} · 3600 s/h)", c.gpus, cost.price_per_gpu->in(usd / hour), c.output_rate));
  if (c.energy_per_million)
    out.item("energy_per_million_output_tokens", "facility energy per 1M output tokens", value(*c.energy_per_million),
             "N_gpu · P_gpu · PUE · 10⁶ tokens / R_out",
             text("{} · {} · {} · 10⁶ / {}", c.gpus, *cost.gpu_power, cost.pue, c.output_rate));
  if (c.energy_cost_per_million)
    out.item("electricity_per_million_output_tokens", "electricity per 1M output tokens", value(*c.energy_cost_per_million),
             "E per 1M · price per kWh",
             text("{} · {} USD/kWh", *c.energy_per_million, cost.price_per_energy->in(usd / kWh)));
  if (c.co2_per_million)
    out.item("co2_per_million_output_tokens", "emissions per 1M output tokens", value(*c.co2_per_million),
             "E per 1M · carbon intensity",
             text("{} · {} kgCO2e/kWh", *c.energy_per_million, cost.carbon_intensity->in(kg_co2e / kWh)));
  out.assume("serving_rate",
             text("cost per output token at the batch's own rate: {} sequences of {} + {} tokens served one batch after "
                  "the other ({} speed); continuous batching, which overlaps one request's prefill with others' "
                  "decodes, is not modelled",
                  b, in.prompt, g, c.expected ? std::string_view("expected") : std::string_view("bound")));
  if (cost.price_per_gpu)
    out.assume("price_per_gpu_hour", text("{} USD per GPU-hour, {} GPU(s) (--tp), busy all the time",
                                          cost.price_per_gpu->in(usd / hour), c.gpus));
  if (cost.gpu_power)
    out.assume("gpu_power", text("{} per GPU: {}; PUE {}", *cost.gpu_power, cost.power_source, cost.pue));
}

}  // namespace napkin
