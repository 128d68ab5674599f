#include "napkin/plans/train.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/model/params.h"
#include "napkin/plans/energy.h"

namespace napkin {

using namespace units;

FlopsFormula parse_flops_formula(std::string_view text, std::string_view field) {
  if (text == "6pd" || text == "6PD") return FlopsFormula::six_pd;
  if (text == "palm" || text == "PaLM") return FlopsFormula::palm;
  if (text == "megatron") return FlopsFormula::megatron;
  throw InputError(std::string(field), std::string(text), "6pd, palm or megatron");
}

std::string_view to_string(FlopsFormula f) {
  switch (f) {
    case FlopsFormula::six_pd: return "6pd";
    case FlopsFormula::palm: return "palm";
    case FlopsFormula::megatron: return "megatron";
  }
  return "6pd";
}

namespace {

double num(Count c) { return c.in(one); }

// Megatron-LM pads the vocabulary to a multiple of make_vocab_size_divisible_by (default 128)
// times the tensor-parallel degree, so every TP rank holds an equal slice of the logit layer
// (Megatron-LM, megatron/training/tokenizer/tokenizer.py, _vocab_size_with_padding): GPT-2's
// 50257 becomes 51200 at tp 8, the V of Narayanan et al.'s GPT-3 runs.
constexpr double kVocabMultiple = 128.0;

double padded_vocab(double vocab, double tp) {
  const double multiple = kVocabMultiple * tp;
  return std::ceil(vocab / multiple) * multiple;
}

struct Layout {
  Count gpus{}, dp{};
};

Layout layout(const TrainInput& in) {
  const double tp = num(in.memory.tp), pp = num(in.memory.pp);
  require_positive_integer(in.memory.tp, "tp");
  require_positive_integer(in.memory.pp, "pp");
  if (in.dp) require_positive_integer(*in.dp, "dp");
  if (in.gpus) require_positive_integer(*in.gpus, "gpus");
  const double model_parallel = tp * pp;
  if (in.gpus && in.dp) {
    const double want = model_parallel * num(*in.dp);
    if (num(*in.gpus) != want)
      throw InputError("gpus", format_plain_number(num(*in.gpus)),
                       "tp·pp·dp = " + format_plain_number(tp) + "·" + format_plain_number(pp) + "·" +
                           format_plain_number(num(*in.dp)) + " = " + format_plain_number(want) +
                           " (or leave out --dp: dp = gpus / (tp·pp))");
    return {*in.gpus, *in.dp};
  }
  if (in.gpus) {
    const double g = num(*in.gpus);
    if (std::fmod(g, model_parallel) != 0.0)
      throw InputError("gpus", format_plain_number(g),
                       "a multiple of tp·pp = " + format_plain_number(tp) + "·" + format_plain_number(pp) + " = " +
                           format_plain_number(model_parallel) + " (dp = gpus / (tp·pp) must be whole)");
    return {*in.gpus, (g / model_parallel) * one};
  }
  const Count dp = in.dp.value_or(1.0 * one);
  return {model_parallel * num(dp) * one, dp};
}

// The run given by what it took (--tokens-per-second, --gpu-hours or --time): the rate follows.
bool inverse(const TrainInput& in) { return in.tokens_per_second || in.gpu_hours || in.time; }

std::string flag_name(std::string_view field) {
  std::string f = "--" + std::string(field);
  for (char& ch : f)
    if (ch == '_') ch = '-';
  return f;
}

void check(const TrainInput& in) {
  require_positive(in.tokens, "tokens");
  if (in.tokens.in(token) < 1.0)
    throw InputError("tokens", format_plain_number(in.tokens.in(token)),
                     "at least 1 token (a training run sees whole tokens; 15T = 1.5e13)");
  if (in.params) require_positive(*in.params, "params");
  if (in.params && in.params_count)
    throw InputError("params_count", std::string(to_string(*in.params_count)),
                     "either --params P or --params-count, not both (--params gives P: there is no count to choose)");
  if (in.params_count && in.formula == FlopsFormula::megatron)
    throw InputError("params_count", std::string(to_string(*in.params_count)),
                     "--flops-formula 6pd or palm (megatron's eq. 3 counts its own parameters from l, h and V)");
  if (in.vocab) require_positive_integer(*in.vocab, "vocab");
  // One way of saying how fast the run goes: a rate (mfu, achieved) or what it took (the inverse).
  const char* speed = nullptr;
  for (const auto& [given, name] : {std::pair{in.mfu.has_value(), "mfu"}, {in.achieved.has_value(), "achieved"},
                                    {in.tokens_per_second.has_value(), "tokens_per_second"},
                                    {in.gpu_hours.has_value(), "gpu_hours"}, {in.time.has_value(), "time"}}) {
    if (!given) continue;
    if (speed != nullptr)
      throw InputError(name, "(given with " + flag_name(speed) + ")",
                       "one of --mfu, --achieved, --tokens-per-second, --gpu-hours or --time (how fast the run "
                       "goes, or what it took), not two");
    speed = name;
  }
  if (in.tokens_per_second) require_positive(*in.tokens_per_second, "tokens_per_second");
  if (in.gpu_hours && !(*in.gpu_hours > 0.0 && std::isfinite(*in.gpu_hours)))
    throw InputError("gpu_hours", format_plain_number(*in.gpu_hours), "a positive number of GPU-hours, e.g. 30.84M");
  if (in.time) require_positive(*in.time, "time");
  if (in.mfu && !(*in.mfu > 0.0 && *in.mfu <= 1.0))
    throw InputError("mfu", format_plain_number(*in.mfu), "a fraction of the peak in (0, 1], e.g. 0.4");
  if (in.peak) require_positive(*in.peak, "peak");
  if (in.achieved) require_positive(*in.achieved, "achieved");
  if (!in.achieved && !inverse(in) && !in.peak)
    throw InputError("peak", "(missing)",
                     "a per-GPU peak FLOP/s (--peak, or --hw with a preset) to apply --mfu to, or --achieved "
                     "(an achieved per-GPU rate such as 140TFLOP/s)");
  if (in.achieved && in.peak && *in.achieved > *in.peak)
    throw InputError("achieved", format_plain_number(in.achieved->in(TFLOP_per_s)) + " TFLOP/s",
                     "at most the peak, " + format_plain_number(in.peak->in(TFLOP_per_s)) + " TFLOP/s");
  if (in.gpu_power && in.node_power)
    throw InputError("node_power", "(given with --power)", "either --power (one GPU) or --node-power (one node)");
  if (in.gpu_power) require_positive(*in.gpu_power, "power");
  if (in.node_power) {
    require_positive(*in.node_power, "node_power");
    require_positive_integer(in.gpus_per_node, "gpus_per_node");
  }
  const bool power = in.gpu_power || in.node_power;
  if (in.price_per_kwh && !power)
    throw InputError("price_per_kwh", "(given)", "a power figure to price: --power, --node-power or --hw with a TDP");
  if (in.carbon_intensity && !power)
    throw InputError("carbon_intensity", "(given)", "a power figure: --power, --node-power or --hw with a TDP");
  if (in.price_per_gpu_hour) require_non_negative(*in.price_per_gpu_hour, "price_per_gpu_hour");
}

struct Counted {
  TrainingFlops flops;
  Params p{};       // 6pd, palm
  double v = 0.0;   // megatron: V used
  double hq = 0.0;  // palm: heads · head_dim
  // 6pd and palm with a MODEL and no --params: the model's counts and the one P is.
  std::optional<ModelP> model_p{};
  ParamsCount which = ParamsCount::non_embedding;
};

constexpr std::string_view kPalmDefault =
    "the default for --flops-formula palm, PaLM's N (Chowdhery et al. 2022: its 46.2% MFU and 2527 ZFLOP for 540B "
    "count the total)";

// The formula's own convention for P when --params-count is not given (train.h): the course
// notes' non-embedding P for 6pd, PaLM's total N for palm.
ParamsCount default_params_count(FlopsFormula f) {
  return f == FlopsFormula::palm ? ParamsCount::total : ParamsCount::non_embedding;
}

// `mp` is null for a bare parameter count: 6pd only.
Counted count_flops_formula(const specs::ModelSpec* mp, const TrainInput& in) {
  Counted c;
  if (mp == nullptr) {
    if (!in.params) throw InputError("params", "(missing)", "a parameter count P, or a MODEL");
    if (in.formula != FlopsFormula::six_pd)
      throw InputError("flops_formula", std::string(to_string(in.formula)),
                       "6pd for a bare --params (palm and megatron read layers and widths from a MODEL)");
    c.p = *in.params;
    c.flops = training_flops({.params = c.p, .tokens = in.tokens, .recompute = in.memory.recompute});
    return c;
  }
  const specs::ModelSpec& m = *mp;
  if (in.params) {
    c.p = *in.params;
  } else if (in.formula != FlopsFormula::megatron) {
    c.model_p = model_p(m);
    c.which = in.params_count.value_or(default_params_count(in.formula));
    c.p = c.model_p->pick(c.which);
  }
  switch (in.formula) {
    case FlopsFormula::six_pd:
      c.flops = training_flops({.params = c.p, .tokens = in.tokens, .recompute = in.memory.recompute});
      break;
    case FlopsFormula::palm: {
      const double head_dim = m.head_dim > 0 ? static_cast<double>(m.head_dim)
                                             : static_cast<double>(m.hidden) / static_cast<double>(m.heads);
      c.hq = static_cast<double>(m.heads) * head_dim;
      // The attention term of training_flops is 4·L·T·D forward per token: D = H·Q gives PaLM's
      // 12·L·H·Q·T with backward. PaLM's N includes the embeddings (train.h: its 46.2% MFU and its
      // 2527 ZFLOP for 540B on 780B tokens, 6 · 540B · 780B, both use the total count), so palm
      // defaults to --params-count total.
      c.flops = training_flops({.params = c.p, .tokens = in.tokens, .recompute = in.memory.recompute,
                                .layers = static_cast<double>(m.layers) * one, .seq = in.memory.seq,
                                .d_model = c.hq * one});
      break;
    }
    case FlopsFormula::megatron:
      c.v = in.vocab ? num(*in.vocab) : padded_vocab(static_cast<double>(m.vocab), num(in.memory.tp));
      c.flops = megatron_training_flops({.layers = static_cast<double>(m.layers) * one,
                                         .hidden = static_cast<double>(m.hidden) * one, .seq = in.memory.seq,
                                         .vocab = c.v * one, .tokens = in.tokens, .recompute = in.memory.recompute});
      break;
  }
  return c;
}

// The formula's forward and backward; op-sac's rerun comes from the model's matmuls (napkin/memory/ledgers.h,
// op_sac_recompute_flops), whatever the formula.
Counted count_flops(const specs::ModelSpec* mp, const TrainInput& in) {
  if (mp == nullptr || in.memory.recompute != Recompute::op_sac) return count_flops_formula(mp, in);
  TrainInput f = in;
  f.memory.recompute = Recompute::none;
  Counted c = count_flops_formula(mp, f);
  c.flops.recompute = op_sac_recompute_flops(*mp, in.memory, in.tokens);
  return c;
}

TrainingMemoryInput memory_input(const TrainInput& in, Count dp) {
  TrainingMemoryInput mi = in.memory;
  mi.states.dp = dp;
  return mi;
}

// A bare parameter count is a model known only by its count (specs::bare_model), and its memory
// goes through the same ledger as a real model's: model states of P / (tp·pp) per GPU, ZeRO,
// offload, the runtime reserve; no activations.
specs::ModelSpec bare_spec(const TrainInput& in) {
  if (!in.params) throw InputError("params", "(missing)", "a parameter count P, or a MODEL");
  require_positive(*in.params, "params");
  return specs::bare_model(static_cast<std::int64_t>(std::ceil(in.params->in(param))));
}

// The training run's shape: every rule that refuses or warns about a run the arithmetic alone
// would accept, in one place (issue 11). Refusals throw (estimate calls it without `out`); the
// warnings go to `out` (report calls it again with it).
//
//   rule                                 action  why
//   tokens < seq                         refuse  not one sequence in the whole run (dp = 1): the
//                                                 layout and memory of a seq-token step mean nothing
//   dp · seq > tokens                    refuse  some data-parallel rank never gets a sequence: the
//                                                 time divides the FLOP by GPUs that sit idle
//   tokens < dp · micro-batch · seq      warn    shorter than one optimizer step (there is no
//                                                 gradient accumulation: one step is dp · mb · seq
//                                                 tokens); every rank still works, but the one
//                                                 step's micro-batches are not full
//   gpus > 10^6                          warn    more than any cluster built (the largest hold about
//                                                 10^5): valid arithmetic, unmeasured MFU
//   bare --params: dp > tokens           refuse  no sequence to divide by: each rank needs a token
// The memory ledger warns about --zero N with dp 1 and --sequence-parallel at tp 1 itself. A bare
// parameter count has no sequence (--seq needs an architecture): the rules on seq skip it.
// Tokens below 1 are refused by check() before, as training_flops refuses them.
constexpr double kLargestCluster = 1e6;

void check_run(const specs::ModelSpec* mp, const TrainInput& in, const Layout& lay, ResultSet* out) {
  if (mp != nullptr)
    specs::refuse_mamba_layers(*mp, "train's activation memory and its palm and megatron FLOP formulas model "
                                    "attention and MLP layers, not Mamba mixers");
  const double d = in.tokens.in(token), s = mp != nullptr ? num(in.memory.seq) : 0.0;
  const double mb = num(in.memory.micro_batch);
  const double dp = num(lay.dp), gpus = num(lay.gpus);
  if (s > 0.0 && out == nullptr) {
    if (d < s)
      throw InputError("tokens", format_plain_number(d),
                       "at least one sequence of seq = " + format_plain_number(s) + " tokens (--seq for shorter ones)");
    if (dp * s > d) {
      const double seqs = std::floor(d / s), mp_deg = num(in.memory.tp) * num(in.memory.pp);
      const std::string why = ": " + format_plain_number(d) + " tokens / seq " + format_plain_number(s) + " = " +
                              format_plain_number(seqs) + " sequences in the whole run, and each data-parallel rank "
                              "needs at least one";
      if (in.dp)
        throw InputError("dp", format_plain_number(dp), "at most " + format_plain_number(seqs) + " ranks" + why);
      throw InputError("gpus", format_plain_number(gpus),
                       "at most " + format_plain_number(mp_deg * seqs) + " GPUs = tp·pp · sequences = " +
                           format_plain_number(mp_deg) + " · " + format_plain_number(seqs) + why +
                           " (dp = gpus / (tp·pp))");
    }
  }
  // A bare count has no sequence: each data-parallel rank needs at least one token of the run.
  if (mp == nullptr && out == nullptr && dp > d)
    throw InputError(in.dp ? "dp" : "gpus", format_plain_number(in.dp ? dp : gpus),
                     "at most " + format_plain_number(std::floor(d) * num(in.memory.tp) * num(in.memory.pp)) +
                         (in.dp ? " ranks" : " GPUs") + " = tp·pp · " + format_plain_number(std::floor(d)) +
                         " tokens (each data-parallel rank needs at least one token of the run)");
  if (out == nullptr) return;
  if (s > 0.0 && d < dp * mb * s)
    out->warn(text("the run is shorter than one optimizer step: {} < dp · micro-batch · seq = {} · {} · {} = {} "
                   "per step (no gradient accumulation); that step's micro-batches are not full",
                   in.tokens, lay.dp, in.memory.micro_batch, in.memory.seq, (dp * mb * s) * token));
  if (gpus > kLargestCluster)
    out->warn(text("--gpus {}: more GPUs than any cluster built (the largest hold about 10^5); the MFU or achieved "
                   "rate at that scale is unmeasured",
                   lay.gpus));
}

TrainEstimate estimate(const specs::ModelSpec* mp, const TrainInput& in);
void report(const specs::ModelSpec* mp, const TrainInput& in, ResultSet& out);

}  // namespace

TrainEstimate train(const specs::ModelSpec& m, const TrainInput& in) { return estimate(&m, in); }
TrainEstimate train_params(const TrainInput& in) { return estimate(nullptr, in); }
void train(const specs::ModelSpec& m, const TrainInput& in, ResultSet& out) { report(&m, in, out); }
void train_params(const TrainInput& in, ResultSet& out) { report(nullptr, in, out); }

namespace {

TrainEstimate estimate(const specs::ModelSpec* mp, const TrainInput& in) {
  if (mp != nullptr) specs::refuse_encoder_decoder(*mp, "train");
  check(in);
  const Layout lay = layout(in);
  check_run(mp, in, lay, nullptr);
  TrainEstimate r;
  r.gpus = lay.gpus;
  r.dp = lay.dp;
  r.flops = count_flops(mp, in).flops;
  if (mp != nullptr && in.memory.recompute_layers.in(one) > 0.0)  // --recompute-layers: K per stage rerun in full
    r.flops = partial_recompute(r.flops, count_flops(mp, [&] { TrainInput f = in; f.memory.recompute = Recompute::full; return f; }()).flops,
                                recompute_layers_fraction(*mp, in.memory));
  r.memory = mp != nullptr ? training_memory(*mp, memory_input(in, lay.dp))
                           : training_memory(bare_spec(in), memory_input(in, lay.dp));
  r.model_flops = r.flops.forward + r.flops.backward;
  const double n = num(r.gpus);
  // MFU divides model FLOP by the peak; an achieved rate already counts every FLOP executed.
  Flops counted{};
  if (inverse(in)) {
    // What the run took gives the time; the rate is every FLOP executed over it.
    if (in.tokens_per_second) r.time = in.tokens / *in.tokens_per_second;
    else if (in.gpu_hours) r.time = (*in.gpu_hours / n) * hour;
    else r.time = *in.time;
    counted = r.flops.total();
    r.rate = counted / r.time;
  } else {
    if (in.achieved) {
      r.rate = n * *in.achieved;
      counted = r.flops.total();
    } else {
      r.rate = n * *in.peak * in.mfu.value_or(kDefaultMfu);
      counted = r.model_flops;
    }
    r.time = counted / r.rate;
  }
  r.achieved = r.flops.total() / (r.time * n);
  if (in.peak) {
    r.mfu = r.model_flops / (r.time * n * *in.peak);
    r.hfu = r.flops.total() / (r.time * n * *in.peak);
  }
  // A run faster than the hardware allows: the figures given (or the FLOP count) are off.
  if (inverse(in) && in.peak && r.achieved > *in.peak) {
    const char* field = in.tokens_per_second ? "tokens_per_second" : in.gpu_hours ? "gpu_hours" : "time";
    const std::string given = in.tokens_per_second ? format_plain_number(in.tokens_per_second->in(token / second))
                              : in.gpu_hours      ? format_plain_number(*in.gpu_hours)
                                                  : format_plain_number(in.time->in(second)) + " s";
    throw InputError(field, given,
                     "a run no faster than the peak: it implies " +
                         format_plain_number(r.achieved.in(TFLOP_per_s)) + " TFLOP/s per GPU (every FLOP executed), " +
                         "above the peak " + format_plain_number(in.peak->in(TFLOP_per_s)) + " TFLOP/s (check --gpus "
                         "and --tokens)");
  }
  r.gpu_hours = n * r.time.in(hour);
  if (in.gpu_power) r.it_power = n * *in.gpu_power;
  if (in.node_power) r.it_power = std::ceil(n / num(in.gpus_per_node)) * *in.node_power;
  if (r.it_power) {
    EnergyInput e;
    e.flops = counted;
    e.throughput = r.rate;
    e.power = *r.it_power;
    e.pue = in.pue;
    e.price = in.price_per_kwh;
    e.carbon_intensity = in.carbon_intensity;
    const EnergyEstimate est = energy(e);
    r.energy = est.energy;
    r.facility_energy = est.facility_energy;
    r.electricity_cost = est.cost;
    r.co2 = est.co2;
  } else if (!(in.pue >= 1.0 && in.pue <= 10.0)) {
    throw InputError("pue", format_plain_number(in.pue), "a ratio between 1 and 10 (1.0 = no facility overhead)");
  }
  if (in.price_per_gpu_hour) r.rental_cost = (n * r.time) * *in.price_per_gpu_hour;
  if (r.rental_cost || r.electricity_cost) r.cost = r.rental_cost.value_or(Usd{}) + r.electricity_cost.value_or(Usd{});
  return r;
}

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
  t.time_items(out);
  t.energy_items(out);
  t.cost_items(out);
  t.formula_assumptions(out);
  if (in.formula != FlopsFormula::megatron)
    t.params_assumptions(out);
  else
    t.megatron_assumptions(out);
  t.recompute_assumption(out);
  t.layout_assumptions(out);
  t.rate_assumptions(out);
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
    out.warn(text("the ledger needs {} per GPU and the GPU holds {}: the time shown assumes a layout that does not "
                  "fit; raise --zero, --tp or --pp, or use --recompute",
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
  else out.input("mfu", value(in.mfu.value_or(kDefaultMfu)));
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
      if (rc == Recompute::full)
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
    else
      out.item("throughput", "cluster rate", value(r.rate), "R = N_gpu · peak · MFU",
               text("{} · {} · {}", r.gpus, *in.peak, in.mfu.value_or(kDefaultMfu)));
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
  if (in.gpus && in.dp)
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
  else
    out.assume("train_overheads", text("bubbles and communication sit inside the MFU or achieved rate; failures, restarts and "
                                       "checkpoints are not counted (Llama 3 405B: > 90% effective time)"));
}

}  // namespace

}  // namespace napkin
