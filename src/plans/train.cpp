// The train command's numbers: a training run's FLOP by formula, its layout, time, energy and cost,
// and its memory ledger. train_report.cpp turns them into the command's items.
#include "napkin/plans/train.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/model/params.h"
#include "napkin/plans/energy.h"
#include "train_detail.h"

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

namespace train_detail {

namespace {

// Megatron-LM pads the vocabulary to a multiple of make_vocab_size_divisible_by (default 128)
// times the tensor-parallel degree, so every TP rank holds an equal slice of the logit layer
// (Megatron-LM, megatron/training/tokenizer/tokenizer.py, _vocab_size_with_padding): GPT-2's
// 50257 becomes 51200 at tp 8, the V of Narayanan et al.'s GPT-3 runs.
constexpr double kVocabMultiple = 128.0;

double padded_vocab(double vocab, double tp) {
  const double multiple = kVocabMultiple * tp;
  return std::ceil(vocab / multiple) * multiple;
}

Layout layout(const TrainInput& in) {
  const double tp = num(in.memory.tp), pp = num(in.memory.pp), cp = num(in.memory.cp);
  require_positive_integer(in.memory.tp, "tp");
  require_positive_integer(in.memory.pp, "pp");
  require_positive_integer(in.memory.cp, "cp");
  if (in.dp) require_positive_integer(*in.dp, "dp");
  if (in.gpus) require_positive_integer(*in.gpus, "gpus");
  // Context parallelism (--cp) splits each sequence over cp more GPUs of the model's replica.
  const double model_parallel = tp * pp * cp;
  const std::string degrees = cp > 1.0 ? "tp·pp·cp" : "tp·pp";
  const std::string factors = format_plain_number(tp) + "·" + format_plain_number(pp) +
                              (cp > 1.0 ? "·" + format_plain_number(cp) : std::string());
  if (in.gpus && in.dp) {
    const double want = model_parallel * num(*in.dp);
    if (num(*in.gpus) != want)
      throw InputError("gpus", format_plain_number(num(*in.gpus)),
                       degrees + "·dp = " + factors + "·" + format_plain_number(num(*in.dp)) + " = " +
                           format_plain_number(want) + " (or leave out --dp: dp = gpus / (" + degrees + "))");
    return {*in.gpus, *in.dp};
  }
  if (in.gpus) {
    const double g = num(*in.gpus);
    if (std::fmod(g, model_parallel) != 0.0)
      throw InputError("gpus", format_plain_number(g),
                       "a multiple of " + degrees + " = " + factors + " = " + format_plain_number(model_parallel) +
                           " (dp = gpus / (" + degrees + ") must be whole)");
    return {*in.gpus, (g / model_parallel) * one};
  }
  const Count dp = in.dp.value_or(1.0 * one);
  return {model_parallel * num(dp) * one, dp};
}

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
      if (in.memory.lora_rank.in(one) > 0.0) {
        // LoRA: the frozen base's backward computes input gradients only (2·P per token, no weight
        // gradients), the adapters train in full: 4·P·D + 6·P_lora·D (Hu et al. 2021, §4.2: "we do not
        // need to calculate the gradients or maintain the optimizer states for most parameters").
        c.lora_p = static_cast<double>(lora_params(m, static_cast<std::int64_t>(in.memory.lora_rank.in(one)),
                                                   in.memory.lora_all_linear)) * param;
        const TrainingFlops base = training_flops(
            {.params = c.p, .tokens = in.tokens, .backward_factor = 1.0, .recompute = in.memory.recompute});
        const TrainingFlops adapters =
            training_flops({.params = *c.lora_p, .tokens = in.tokens, .recompute = in.memory.recompute});
        c.flops = TrainingFlops{base.forward + adapters.forward, base.backward + adapters.backward,
                                base.recompute + adapters.recompute};
      } else {
        c.flops = training_flops({.params = c.p, .tokens = in.tokens, .recompute = in.memory.recompute});
      }
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

}  // namespace

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
  if (mp != nullptr) {
    specs::refuse_mamba_layers(*mp, "train's activation memory and its palm and megatron FLOP formulas model "
                                    "attention and MLP layers, not Mamba mixers");
    specs::refuse_unmodelled_layers(*mp, "train's activation memory and its palm and megatron FLOP formulas model "
                                         "dense attention and MLP layers only");
  }
  const double d = in.tokens.in(token), s = mp != nullptr ? num(in.memory.seq) : 0.0;
  const double mb = num(in.memory.micro_batch);
  const double dp = num(lay.dp), gpus = num(lay.gpus);
  if (s > 0.0 && out == nullptr) {
    if (d < s)
      throw InputError("tokens", format_plain_number(d),
                       "at least one sequence of seq = " + format_plain_number(s) + " tokens (--seq for shorter ones)");
    if (dp * s > d) {
      const double seqs = std::floor(d / s), mp_deg = num(in.memory.tp) * num(in.memory.pp) * num(in.memory.cp);
      const std::string why = ": " + format_plain_number(d) + " tokens / seq " + format_plain_number(s) + " = " +
                              format_plain_number(seqs) + " sequences in the whole run, and each data-parallel rank "
                              "needs at least one";
      if (in.dp)
        throw InputError("dp", format_plain_number(dp), "at most " + format_plain_number(seqs) + " ranks" + why);
      throw InputError("gpus", format_plain_number(gpus),
                       "at most " + format_plain_number(mp_deg * seqs) + " GPUs = " +
                           (num(in.memory.cp) > 1.0 ? "tp·pp·cp" : "tp·pp") + " · sequences = " +
                           format_plain_number(mp_deg) + " · " + format_plain_number(seqs) + why +
                           (num(in.memory.cp) > 1.0 ? " (dp = gpus / (tp·pp·cp))" : " (dp = gpus / (tp·pp))"));
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

// The global batch of the run: as given (a multiple of dp × micro-batch), or the default rounded up
// to one.
std::int64_t global_batch(const TrainInput& in, const Layout& lay, bool& defaulted) {
  const double per_step = num(lay.dp) * num(in.memory.micro_batch);
  defaulted = !in.global_batch;
  if (in.global_batch) {
    require_positive_integer(*in.global_batch, "global_batch");
    const double b = num(*in.global_batch);
    if (std::fmod(b, per_step) != 0.0)
      throw InputError("--global-batch", format_plain_number(b),
                       "a multiple of dp × micro-batch = " + format_plain_number(num(lay.dp)) + " × " +
                           format_plain_number(num(in.memory.micro_batch)) +
                           " (every data-parallel rank runs whole micro-batches)");
    return static_cast<std::int64_t>(b);
  }
  const double tokens = std::max(kDefaultStepTokens, kDefaultStepTokensPerGpu * num(lay.gpus));
  const double seqs = std::ceil(tokens / num(in.memory.seq));
  return static_cast<std::int64_t>(std::ceil(seqs / per_step) * per_step);
}

TrainStepInput step_input(const specs::ModelSpec& m, const TrainInput& in, const Layout& lay, std::int64_t batch) {
  const TrainSpeedModel& sm = *in.speed;
  TrainStepInput x;
  TrainLayout& L = x.layout;
  const auto whole = [](Count c) { return static_cast<std::int64_t>(num(c)); };
  L.tp = whole(in.memory.tp);
  L.pp = whole(in.memory.pp);
  L.dp = whole(lay.dp);
  L.cp = whole(in.memory.cp);
  L.ep = whole(in.memory.ep);
  if (in.memory.etp) L.etp = whole(*in.memory.etp);
  L.vp = whole(in.memory.virtual_stages);
  L.zero = in.memory.states.zero_stage;
  L.sp = in.memory.sequence_parallel;
  L.recompute = in.memory.recompute;
  L.recompute_layers = whole(in.memory.recompute_layers);
  L.micro_batch = whole(in.memory.micro_batch);
  L.global_batch = batch;
  L.seq = whole(in.memory.seq);
  x.peak = *in.peak;
  x.bandwidth = sm.memory_bandwidth;
  x.links = sm.links;
  x.efficiency = sm.efficiency;
  x.layer_overhead = sm.layer_overhead;
  x.attention_peak = sm.attention_peak;
  x.flash_attention = in.memory.flash_attention;
  x.tp_comm_overlap = sm.tp_comm_overlap;
  x.dp_comm_overlap = sm.dp_comm_overlap;
  x.states = in.memory.states;
  x.lora_rank = whole(in.memory.lora_rank);
  x.lora_all_linear = in.memory.lora_all_linear;
  x.qlora = in.memory.qlora;
  if (in.memory.recompute == Recompute::op_sac)
    x.op_sac_flops_per_micro_batch =
        op_sac_recompute_flops(m, in.memory, static_cast<double>(L.micro_batch * L.seq) * token) / num(in.memory.tp);
  if (L.recompute_layers > 0) x.full_recompute_fraction = recompute_layers_fraction(m, in.memory);
  return x;
}

// The step model's answer: the step, its tokens per second and the MFU they make.
void expected_step(const specs::ModelSpec& m, const TrainInput& in, const Layout& lay, TrainEstimate& r) {
  r.global_batch = global_batch(in, lay, r.global_batch_default);
  const ParamCount counted = in.memory.counts != nullptr ? ParamCount{} : count_params(m);
  const ParamCount& c = in.memory.counts != nullptr ? *in.memory.counts : counted;
  TrainStepInput x = step_input(m, in, lay, r.global_batch);
  // The ledger's own split (uneven stages, expert tensor parallelism), not a balanced one.
  const std::vector<StageShard> stages = shard_stages(m, c, training_shard_layout(in.memory));
  x.stages = &stages;
  r.step = train_step(m, c, x);
  r.expected_tokens_per_second = r.step->tokens_per_step / r.step->step;
  r.expected_mfu = (r.model_flops / in.tokens) * r.expected_tokens_per_second / (num(lay.gpus) * *in.peak);
}

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
  if (mp != nullptr && in.speed && in.peak) expected_step(*mp, in, lay, r);
  if (in.global_batch && !r.step)
    throw InputError("--global-batch", format_plain_number(num(*in.global_batch)),
                     "the step model, which needs a MODEL and --hw (it sets the micro-batches of a step)");
  r.time_from_step = r.step && !in.mfu && !in.achieved && !inverse(in);
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
      r.mfu_used = r.time_from_step ? r.expected_mfu : in.mfu.value_or(kDefaultMfu);
      r.rate = n * *in.peak * r.mfu_used;
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

}  // namespace train_detail

TrainEstimate train(const specs::ModelSpec& m, const TrainInput& in) { return train_detail::estimate(&m, in); }
TrainEstimate train_params(const TrainInput& in) { return train_detail::estimate(nullptr, in); }

}  // namespace napkin
