// The train command's result: the run's numbers (train.cpp) as items, assumptions and warnings,
// after the memory ledger's.
#include "napkin/plans/train.h"

#include <cmath>
#include <optional>
#include <string_view>

#include "napkin/model/params.h"
#include "train_detail.h"

namespace napkin {

using namespace units;

namespace train_detail {

namespace {

constexpr std::string_view kPalmDefault =
    "the default for --flops-formula palm, PaLM's N (Chowdhery et al. 2022: its 46.2% MFU and 2527 ZFLOP for 540B "
    "count the total)";

// Eq. 3's GPT layer against the model (megatron): 12·l·h² parameters per layer (MHA, plain 4h
// MLP) and the model's own active non-embedding count.
struct MegatronShape {
  bool gpt_layer = false;
  double gpt_params = 0.0, model_params = 0.0;
};

MegatronShape megatron_shape(const specs::ModelSpec& m, double l, double h) {
  MegatronShape g;
  g.gpt_params = 12.0 * l * h * h;
  const ParamCount pc = count_params(m);
  g.model_params = static_cast<double>(pc.active - pc.embedding);
  g.gpt_layer = m.ffn_kind == specs::FfnKind::plain && m.ffn == 4 * m.hidden && !m.moe.is_moe() &&
                (m.kv_heads == 0 || m.kv_heads == m.heads);
  return g;
}

// The numbers the train result itemizes, all computed before its first row; each step below adds
// one part of the result from them, in the order the renderers print it.
struct TrainReport {
  const specs::ModelSpec* mp;
  const TrainInput& in;
  TrainEstimate r;
  Counted c;
  Recompute rc = Recompute::none;
  double l = 0.0, h = 0.0, s = 0.0;  // the shape the formulas name: layers, hidden, sequence
  bool extra = false;                // recomputation adds FLOP to the model's
  std::optional<Flops> other_flops{};    // 6pd and palm from a MODEL: the run under the other P
  std::optional<MegatronShape> shape{};  // megatron

  TrainReport(const specs::ModelSpec* m, const TrainInput& i);

  void memory_ledger(ResultSet& out) const;
  void inputs(ResultSet& out) const;
  void recompute_items(ResultSet& out) const;
  void training_flops_item(ResultSet& out) const;
  void time_items(ResultSet& out) const;
  void energy_items(ResultSet& out) const;
  void cost_items(ResultSet& out) const;
  void formula_assumptions(ResultSet& out) const;
  void params_assumptions(ResultSet& out) const;
  void megatron_assumptions(ResultSet& out) const;
  void recompute_assumption(ResultSet& out) const;
  void layout_assumptions(ResultSet& out) const;
  void rate_assumptions(ResultSet& out) const;
  void power_assumptions(ResultSet& out) const;
  void price_assumptions(ResultSet& out) const;
};

TrainReport::TrainReport(const specs::ModelSpec* m, const TrainInput& i)
    : mp(m), in(i), r(estimate(m, i)), c(count_flops(m, i)), rc(i.memory.recompute) {
  l = mp ? static_cast<double>(mp->layers) : 0.0;
  h = mp ? static_cast<double>(mp->hidden) : 0.0;
  s = num(in.memory.seq);
  extra = r.flops.recompute.in(flop) > 0.0;
  if (in.formula == FlopsFormula::megatron) {
    shape = megatron_shape(*mp, l, h);  // megatron needs a MODEL (count_flops checked)
  } else if (c.model_p && !in.params) {
    TrainInput alt = in;
    alt.params_count = other(c.which);
    other_flops = count_flops(mp, alt).flops.total();
  }
}

void report(const specs::ModelSpec* mp, const TrainInput& in, ResultSet& out) {
  const TrainReport t(mp, in);
  check_run(mp, in, Layout{t.r.gpus, t.r.dp}, &out);
  t.memory_ledger(out);
  t.inputs(out);
  t.recompute_items(out);
  t.training_flops_item(out);
  // A layout that does not fit has no time: the ledger says why.
  const bool refused = t.r.memory.fits && !*t.r.memory.fits;
  if (!refused) {
    step_items(mp, in, t.r, out);
    t.time_items(out);
    t.energy_items(out);
    t.cost_items(out);
  }
  t.formula_assumptions(out);
  if (in.formula != FlopsFormula::megatron)
    t.params_assumptions(out);
  else
    t.megatron_assumptions(out);
  t.recompute_assumption(out);
  t.layout_assumptions(out);
  if (refused) return;  // no time: what the rate, the step, energy and cost would rest on is moot
  t.rate_assumptions(out);
  step_assumptions(mp, in, t.r, out);
  t.power_assumptions(out);
  t.price_assumptions(out);
}

// The per-GPU memory ledger first (the layout has to fit before its time means anything), the
// command's name, and the warning when the ledger does not fit.
void TrainReport::memory_ledger(ResultSet& out) const {
  if (mp != nullptr) {
    training_memory(*mp, memory_input(in, r.dp), out);
  } else {
    // The bare ledger refers to no text of its spec (only numbers), so a local spec is safe here.
    training_memory(bare_spec(in), memory_input(in, r.dp), out);
  }
  out.command = "train";
  for (auto it = out.inputs.begin(); it != out.inputs.end(); ++it)
    if (it->name == "train") {
      out.inputs.erase(it);
      break;
    }
  if (r.memory.fits && !*r.memory.fits)
    out.warn(text("the ledger needs {} per GPU and the GPU holds {}: a layout that does not fit has no time; raise "
                  "--zero, --tp or --pp, use --recompute, or leave the layout out for the fastest that fits",
                  r.memory.per_gpu(), *in.memory.capacity));
}

// The inputs of the run after the ledger's: tokens, formula, layout, speed, power and prices.
void TrainReport::inputs(ResultSet& out) const {
  out.input("tokens", value(in.tokens));
  out.input("flops_formula", verdict(to_string(in.formula)));
  out.input("recompute", verdict(rc == Recompute::full        ? "full"
                                 : rc == Recompute::selective ? "selective"
                                 : rc == Recompute::op_sac    ? "op-sac"
                                                              : "none"));
  out.input("gpus", value(r.gpus));
  if (in.formula != FlopsFormula::megatron) out.input("params", value(c.p));
  if (c.model_p) out.input("params_count", verdict(to_string(c.which)));
  if (in.formula == FlopsFormula::megatron) out.input("vocab", value(c.v));
  if (in.achieved) out.input("achieved", value(*in.achieved));
  else if (in.tokens_per_second) out.input("tokens_per_second", value(*in.tokens_per_second));
  else if (in.gpu_hours) out.input("gpu_hours", value(*in.gpu_hours));
  else if (in.time) out.input("time", value(*in.time));
  else if (in.mfu || !r.time_from_step) out.input("mfu", value(in.mfu.value_or(kDefaultMfu)));
  if (r.step) out.input("global_batch", value(static_cast<double>(r.global_batch) * one));
  if (in.peak) out.input("peak", value(*in.peak));
  if (in.gpu_power) out.input("power", value(*in.gpu_power));
  if (in.node_power) out.input("node_power", value(*in.node_power));
  out.input("pue", value(in.pue));
  if (in.price_per_gpu_hour)
    out.inputs.push_back(Input{"price_per_gpu_hour", value(*in.price_per_gpu_hour), hour.in(second), "USD/h"});
  if (in.price_per_kwh)
    out.inputs.push_back(Input{"price_per_kwh", value(*in.price_per_kwh), kWh.in(joule), "USD/kWh"});
  if (in.carbon_intensity)
    out.inputs.push_back(Input{"carbon_intensity", value(*in.carbon_intensity), kWh.in(joule), "kgCO2e/kWh"});
}

// With recomputation: the model's FLOP and the rerun's, the two parts of the total.
void TrainReport::recompute_items(ResultSet& out) const {
  if (!extra) return;
  out.item("model_flops", "model FLOP (forward + backward)", value(r.model_flops), "forward + backward",
           text("{} + {}", r.flops.forward, r.flops.backward));
  out.item("recompute_flops", "recomputation", value(r.flops.recompute),
           rc == Recompute::full     ? "forward rerun in backward"
           : rc == Recompute::op_sac ? "the k, o and up (fc2) matmuls rerun in backward"
                                     : "attention scores rerun in backward",
           text("{}", r.flops.recompute));
}

// training_flops, by the formula chosen and the recomputation.
void TrainReport::training_flops_item(ResultSet& out) const {
  const Value tf = value(r.flops.total());
  switch (in.formula) {
    case FlopsFormula::six_pd:
      if (c.lora_p && rc == Recompute::full)
        out.item("training_flops", "training FLOP", tf, "C = 6·P·D_tok + 8·P_lora·D_tok (LoRA, full recompute)",
                 text("6 · {} · {} + 8 · {} · {}", c.p, in.tokens, *c.lora_p, in.tokens));
      else if (c.lora_p)
        out.item("training_flops", "training FLOP", tf, "C = 4·P·D_tok + 6·P_lora·D_tok (LoRA: frozen base)",
                 text("4 · {} · {} + 6 · {} · {}", c.p, in.tokens, *c.lora_p, in.tokens));
      else if (rc == Recompute::full)
        out.item("training_flops", "training FLOP", tf, "C = 8·P·D_tok", text("8 · {} · {}", c.p, in.tokens));
      else if (rc == Recompute::op_sac)
        out.item("training_flops", "training FLOP", tf, "C = 6·P·D_tok + op-sac rerun",
                 text("6 · {} · {} + {}", c.p, in.tokens, r.flops.recompute));
      else
        out.item("training_flops", "training FLOP", tf, "C = 6·P·D_tok", text("6 · {} · {}", c.p, in.tokens));
      break;
    case FlopsFormula::palm:
      if (rc == Recompute::full)
        out.item("training_flops", "training FLOP", tf, "C = (8·N + 16·L·H·Q·T) · D_tok",
                 text("(8 · {} + 16 · {} · {} · {}) · {}", c.p, l, c.hq, s, in.tokens));
      else if (rc == Recompute::selective)
        out.item("training_flops", "training FLOP", tf, "C = (6·N + 16·L·H·Q·T) · D_tok",
                 text("(6 · {} + 16 · {} · {} · {}) · {}", c.p, l, c.hq, s, in.tokens));
      else if (rc == Recompute::op_sac)
        out.item("training_flops", "training FLOP", tf, "C = (6·N + 12·L·H·Q·T) · D_tok + op-sac rerun",
                 text("(6 · {} + 12 · {} · {} · {}) · {} + {}", c.p, l, c.hq, s, in.tokens, r.flops.recompute));
      else
        out.item("training_flops", "training FLOP", tf, "C = (6·N + 12·L·H·Q·T) · D_tok",
                 text("(6 · {} + 12 · {} · {} · {}) · {}", c.p, l, c.hq, s, in.tokens));
      break;
    case FlopsFormula::megatron:
      if (rc == Recompute::full)
        out.item("training_flops", "training FLOP", tf, "C = 96·D_tok·l·h²·(1 + s/6h + V/16lh)",
                 text("96 · {} · {} · {}² · (1 + {}/(6·{}) + {}/(16·{}·{}))", in.tokens, l, h, s, h, c.v, l, h));
      else if (rc == Recompute::selective)
        out.item("training_flops", "training FLOP", tf, "C = 72·D_tok·l·h²·(1 + s/6h + V/12lh) + 4·D_tok·s·l·h",
                 text("{} + 4 · {} · {} · {} · {}", r.model_flops, in.tokens, s, l, h));
      else if (rc == Recompute::op_sac)
        out.item("training_flops", "training FLOP", tf, "C = 72·D_tok·l·h²·(1 + s/6h + V/12lh) + op-sac rerun",
                 text("{} + {}", r.model_flops, r.flops.recompute));
      else
        out.item("training_flops", "training FLOP", tf, "C = 72·D_tok·l·h²·(1 + s/6h + V/12lh)",
                 text("72 · {} · {} · {}² · (1 + {}/(6·{}) + {}/(12·{}·{}))", in.tokens, l, h, s, h, c.v, l, h));
      break;
  }
}

// The time and the rates: from the rate given, or what the run took and the rates it implies;
// then tokens per second, GPU-hours, MFU and HFU.
void TrainReport::time_items(ResultSet& out) const {
  if (inverse(in)) {
    // What the run took: the time first, then the rates it implies.
    if (in.tokens_per_second)
      out.item("time", "wall-clock time", value(r.time), "t = D_tok / R_tok",
               text("{} / {}", in.tokens, *in.tokens_per_second));
    else if (in.gpu_hours)
      out.item("time", "wall-clock time", value(r.time), "t = GPU-hours / N_gpu",
               text("{} GPU-h / {}", *in.gpu_hours, r.gpus));
    else
      out.item("time", "wall-clock time", value(r.time), "t (given)", text("{}", r.time));
    out.item("throughput", "cluster rate", value(r.rate), "R = C / t", text("{} / {}", r.flops.total(), r.time));
    out.item("achieved", "achieved per GPU", value(r.achieved), "X = C / (t · N_gpu)",
             text("{} / ({} · {})", r.flops.total(), r.time, r.gpus));
  } else {
    if (in.achieved)
      out.item("throughput", "cluster rate", value(r.rate), "R = N_gpu · X", text("{} · {}", r.gpus, *in.achieved));
    else if (r.time_from_step)
      out.item("throughput", "cluster rate", value(r.rate), "R = N_gpu · peak · expected MFU",
               text("{} · {} · {}", r.gpus, *in.peak, r.mfu_used));
    else
      out.item("throughput", "cluster rate", value(r.rate), "R = N_gpu · peak · MFU",
               text("{} · {} · {}", r.gpus, *in.peak, r.mfu_used));
    if (in.achieved || !extra)
      out.item("time", "wall-clock time", value(r.time), "t = C / R", text("{} / {}", r.flops.total(), r.rate));
    else
      out.item("time", "wall-clock time", value(r.time), "t = C_model / R", text("{} / {}", r.model_flops, r.rate));
  }
  out.item("tokens_per_second", "tokens per second", value(in.tokens / r.time), "D_tok / t",
           text("{} / {}", in.tokens, r.time));
  out.item("gpu_hours", "GPU-hours", value(r.gpu_hours), "N_gpu · t", text("{} · {}", r.gpus, r.time));
  if (in.peak && (in.achieved || inverse(in)))
    out.item("mfu", "model FLOP utilisation", value(r.mfu), "C_model / (t · N_gpu · peak)",
             text("{} / ({} · {} · {})", r.model_flops, r.time, r.gpus, *in.peak));
  if (in.peak && extra)
    out.item("hfu", "hardware FLOP utilisation", value(r.hfu),
             "C / (t · N_gpu · peak)", text("{} / ({} · {} · {})", r.flops.total(), r.time, r.gpus, *in.peak));
}

// With a power figure: IT power, energy and facility energy.
void TrainReport::energy_items(ResultSet& out) const {
  if (!r.it_power) return;
  if (in.gpu_power)
    out.item("it_power", "IT power", value(*r.it_power), "P = N_gpu · P_gpu", text("{} · {}", r.gpus, *in.gpu_power));
  else
    out.item("it_power", "IT power", value(*r.it_power), "P = ⌈N_gpu / GPUs per node⌉ · P_node",
             text("⌈{} / {}⌉ · {}", r.gpus, in.gpus_per_node, *in.node_power));
  out.item("energy", "energy", value(*r.energy), "E = P · t", text("{} · {}", *r.it_power, r.time));
  out.item("facility_energy", "facility energy", value(*r.facility_energy), "E_fac = PUE · E",
           text("{} · {}", in.pue, *r.energy));
}

// What was priced: GPU rental, electricity, their sum, and the emissions.
void TrainReport::cost_items(ResultSet& out) const {
  if (r.rental_cost)
    out.item("rental_cost", "GPU rental", value(*r.rental_cost), "GPU-hours · price per GPU-hour",
             text("{} · {} USD/h", r.gpu_hours, in.price_per_gpu_hour->in(usd / hour)));
  if (r.electricity_cost)
    out.item("electricity_cost", "electricity", value(*r.electricity_cost), "E_fac · price per kWh",
             text("{} · {} USD/kWh", *r.facility_energy, in.price_per_kwh->in(usd / kWh)));
  if (r.cost) {
    if (r.rental_cost && r.electricity_cost)
      out.item("cost", "cost", value(*r.cost), "rental + electricity", text("{} + {}", *r.rental_cost, *r.electricity_cost));
    else
      out.item("cost", "cost", value(*r.cost), r.rental_cost ? "rental" : "electricity", text("{}", *r.cost));
  }
  if (r.co2)
    out.item("co2", "emissions", value(*r.co2), "CO2 = E_fac · carbon intensity",
             text("{} · {} kgCO2e/kWh", *r.facility_energy, in.carbon_intensity->in(kg_co2e / kWh)));
}

// The FLOP formula's convention and its source.
void TrainReport::formula_assumptions(ResultSet& out) const {
  switch (in.formula) {
    case FlopsFormula::six_pd:
      out.assume("flops_formula", text("6PD (course notes 7.3): 2 FLOP forward and 4 backward per parameter per token; "
                                       "attention's T² term and the optimizer step not counted (palm adds the T² term)"));
      break;
    case FlopsFormula::palm:
      out.assume("flops_formula", text("PaLM's count (Chowdhery et al. 2022, appendix B): 6·N + 12·L·H·Q·T per token, "
                                       "attention scores without causal skipping; L = {}, H·Q = {}, T = {}",
                                       l, c.hq, s));
      break;
    case FlopsFormula::megatron:
      out.assume("flops_formula", text("Megatron-LM's count (Narayanan et al. 2021, §5.1, eq. 3): a GPT layer, l = {}, "
                                       "h = {}, s = {}, logit layer once, not recomputed", l, h, s));
      break;
  }
}

// 6pd and palm: which P, as given or counted from the model (with the other count for the note).
void TrainReport::params_assumptions(ResultSet& out) const {
  if (mp == nullptr) {
    out.assume("params", text("P = {} as given: the course notes' P (7.3) counts dense non-embedding parameters, "
                              "the active ones for MoE (give MODEL to count them)", c.p));
  } else if (in.params) {
    out.assume("params", text("P = {} as given (the model's counts are not used)", c.p));
  } else {
    const std::string_view why = in.params_count                       ? std::string_view{}
                                 : in.formula == FlopsFormula::palm ? kPalmDefault
                                                                    : kParamsCountNotesDefault;
    describe_params_count(*c.model_p, c.which, why, *other_flops, out);
  }
}

// megatron: the vocabulary padding, and how far the model is from eq. 3's GPT layer (a warning
// past 10%).
void TrainReport::megatron_assumptions(ResultSet& out) const {
  const specs::ModelSpec& m = *mp;  // megatron needs a MODEL (count_flops checked)
  if (in.vocab)
    out.assume("vocab_padding", text("V = {} as given", c.v));
  else
    out.assume("vocab_padding", text("V = {}: the vocabulary {} padded to a multiple of 128·tp as Megatron-LM "
                                     "pads it (--make-vocab-size-divisible-by 128)",
                                     c.v, static_cast<double>(m.vocab)));
  const MegatronShape& g = *shape;
  if (g.gpt_layer)
    out.assume("megatron_shape", text("the model has the GPT layer eq. 3 assumes (MHA, plain 4h MLP)"));
  else
    out.assume("megatron_shape", text("eq. 3 assumes a GPT layer (MHA, plain 4h MLP): 12·l·h² = {} parameters, "
                                      "this model has {} active non-embedding ones; 6pd or palm follow the "
                                      "model's own count", g.gpt_params * param, g.model_params * param));
  if (!g.gpt_layer && std::fabs(g.gpt_params - g.model_params) > 0.1 * g.model_params)
    out.warn(text("--flops-formula megatron: the formula's GPT layer (12·l·h² = {} params) is more than 10% off "
                  "this model's {} active non-embedding params; use --flops-formula 6pd or palm",
                  g.gpt_params * param, g.model_params * param));
}

// What the recomputation reruns.
void TrainReport::recompute_assumption(ResultSet& out) const {
  switch (rc) {
    case Recompute::none:
      out.assume("recompute_flops", text("no recomputation: each layer's forward runs once"));
      break;
    case Recompute::full:
      out.assume("recompute_flops", text("full recomputation reruns the forward pass in backward: 8 instead of 6 FLOP "
                                         "per parameter per token (Narayanan et al. 2021, §5.1)"));
      break;
    case Recompute::op_sac:
      out.assume("recompute_flops", text("op-sac reruns each layer's unsaved matmuls in backward, k and o and the up "
                                         "projection (plain MLP: fc2), 2·(h·h_kv + h_q·h + h·f) FLOP per token per "
                                         "layer; fused attention's output is saved, not rerun"));
      break;
    case Recompute::selective:
      out.assume("recompute_flops", text("selective recomputation reruns the attention scores only (Korthikanti et "
                                         "al. 2022){}", in.formula == FlopsFormula::six_pd
                                                            ? std::string_view(": 6PD has no attention term, so no FLOP "
                                                                               "are added")
                                                            : std::string_view("")));
      break;
  }
}

// The GPUs as tp × pp × dp, and the training sequence.
void TrainReport::layout_assumptions(ResultSet& out) const {
  if (in.searched_layouts > 0) {
    out.assume("layout", text("{} GPUs = tp {} × pp {} × cp {} × dp {}: the fastest layout that fits, of {} evaluated "
                              "(napkin plan train ranks them)",
                              r.gpus, in.memory.tp, in.memory.pp, in.memory.cp, r.dp,
                              static_cast<double>(in.searched_layouts)));
  } else if (in.memory.cp.in(one) > 1.0) {
    out.assume("layout", text(in.gpus && !in.dp ? "{} GPUs = tp {} × pp {} × cp {} × dp {} (dp = gpus / (tp·pp·cp))"
                                                : "{} GPUs = tp {} × pp {} × cp {} × dp {}",
                              r.gpus, in.memory.tp, in.memory.pp, in.memory.cp, r.dp));
  } else if (in.gpus && in.dp)
    out.assume("layout", text("{} GPUs = tp {} × pp {} × dp {}", r.gpus, in.memory.tp, in.memory.pp, r.dp));
  else if (in.gpus)
    out.assume("layout", text("{} GPUs = tp {} × pp {} × dp {} (dp = gpus / (tp·pp))", r.gpus, in.memory.tp,
                              in.memory.pp, r.dp));
  else
    out.assume("layout", text("{} GPU(s) = tp {} × pp {} × dp {} (give --gpus to scale out)", r.gpus, in.memory.tp,
                              in.memory.pp, r.dp));
  if (mp != nullptr)
    out.assume("seq", text("training sequence length s = {}, micro-batch {}", s, in.memory.micro_batch));
}

// Where the rate comes from (given, or implied by what the run took) and the peak it is measured
// against.
void TrainReport::rate_assumptions(ResultSet& out) const {
  if (inverse(in)) {
    out.assume("implied_rate", text("{}: the rates follow from it; MFU counts model FLOP (PaLM, appendix B), HFU "
                                    "recomputation too",
                                    in.tokens_per_second ? std::string_view("tokens/s as measured over the run")
                                    : in.gpu_hours       ? std::string_view("GPU-hours of the whole run, all GPUs busy")
                                                         : std::string_view("wall-clock time of the whole run")));
    if (!in.peak)
      out.assume("peak", text("no peak given: MFU and HFU not computed (give --peak or --hw)"));
  } else if (in.achieved) {
    out.assume("utilization", text("{} per GPU achieved, counting every FLOP executed (recomputation included), as "
                                   "Narayanan et al. report 140 TFLOP/s", *in.achieved));
  } else if (r.time_from_step) {
    out.assume("utilization", text("MFU {} of the peak: the step model's expected MFU (no --mfu given), model FLOP "
                                   "over time · peak", r.mfu_used));
  } else if (in.mfu) {
    out.assume("utilization", text("MFU {} of the peak: model FLOP (no recomputation) over time · peak, PaLM's "
                                   "definition (appendix B); recomputation costs are inside that figure", *in.mfu));
  } else {
    out.assume("utilization", text("MFU {} of the peak (default; Llama 3 405B reports 38-43%, PaLM 540B 46.2%): "
                                   "model FLOP over time · peak, recomputation inside that figure", kDefaultMfu));
  }
  if (in.peak) {
    if (in.peak_from_hw)
      out.assume("peak", text("{} per GPU: dense {} peak of {} (datasheet; a kernel sees less)", *in.peak,
                              in.peak_dtype, in.hardware));
    else
      out.assume("peak", text("{} per GPU as given: a dense peak, not a sparse datasheet figure", *in.peak));
  }
}

// The power figure (GPU, node or none) and the facility overhead.
void TrainReport::power_assumptions(ResultSet& out) const {
  if (in.gpu_power) {
    if (in.power_from_hw)
      out.assume("power", text("{} per GPU: the TDP of {}, GPU board only (CPUs, network, storage and cooling "
                               "inside the node not counted; --node-power for the whole node)",
                               *in.gpu_power, in.hardware));
    else
      out.assume("power", text("{} per GPU, average draw of the GPU only (--node-power for the whole node)",
                               *in.gpu_power));
  } else if (in.node_power) {
    out.assume("power", text("{} per node of {} GPUs: whole-node average draw (GPUs, CPUs, memory, NICs)",
                             *in.node_power, in.gpus_per_node));
  } else {
    out.assume("power", text("no power figure: energy, electricity cost and CO2 not computed (give --power, "
                             "--node-power or --hw)"));
  }
  if (r.it_power) out.assume("pue", text("facility overhead PUE {} (1.00 = none)", in.pue));
}

// The prices and carbon intensity given, then what the time leaves out.
void TrainReport::price_assumptions(ResultSet& out) const {
  if (in.price_per_gpu_hour)
    out.assume("price_per_gpu_hour", text("{} USD per GPU-hour for every GPU for the whole run{}",
                                          in.price_per_gpu_hour->in(usd / hour),
                                          in.price_per_kwh ? std::string_view("; cloud prices usually include power: "
                                                                              "the electricity row may double-count")
                                                           : std::string_view("")));
  if (in.price_per_kwh)
    out.assume("price_per_kwh", text("electricity at {} USD/kWh, applied to facility energy",
                                     in.price_per_kwh->in(usd / kWh)));
  if (in.carbon_intensity)
    out.assume("carbon_intensity", text("grid carbon intensity {} kgCO2e/kWh, applied to facility energy",
                                        in.carbon_intensity->in(kg_co2e / kWh)));
  if (inverse(in))
    out.assume("train_overheads", text("bubbles, communication and whatever else the run spent (failures, restarts, "
                                       "checkpoints) lower the implied MFU: a per-step MFU is higher (Llama 3 405B: "
                                       "38-43%)"));
  else if (r.time_from_step)
    out.assume("train_overheads", text("the step model counts the bubble and the exposed communication; failures, "
                                       "restarts and checkpoints are not counted (Llama 3 405B: > 90% effective time)"));
  else
    out.assume("train_overheads", text("bubbles and communication sit inside the MFU or achieved rate; failures, restarts and "
                                       "checkpoints are not counted (Llama 3 405B: > 90% effective time)"));
}

}  // namespace

}  // namespace train_detail

void train(const specs::ModelSpec& m, const TrainInput& in, ResultSet& out) { train_detail::report(&m, in, out); }
void train_params(const TrainInput& in, ResultSet& out) { train_detail::report(nullptr, in, out); }

}  // namespace napkin
