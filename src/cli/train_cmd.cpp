// The train command's flags and the steps from its command line to a TrainInput: see train_cmd.h.
#include "train_cmd.h"

#include <algorithm>

#include "check_failure.h"
#include "flag_checks.h"
#include "model_arg.h"
#include "napkin/ground/error.h"

namespace napkin::cli {

namespace {

constexpr DimRt kCount = dim_rt<Count::dim>();
constexpr DimRt kBytes = dim_rt<Bytes::dim>();

// Model: MODEL and --as.
void add_model_options(CommandApp* sub, TrainCmd& c) {
  sub->add_option("MODEL", c.model, "A preset (napkin presets models), a config.json, a model directory or "
                                    "napkin model JSON (or --params P)")
      ->type_name("MODEL")
      ->group("Model");
  add_as_option(sub, c.as, c.text_only);
}

// Compute: the tokens, how FLOP are counted (P, V, a made-up decoder) and how fast the run goes
// (--mfu, an achieved rate, or what a run took); with --peak and --dtype (Hardware) beside them.
void add_compute_options(CommandApp* sub, TrainCmd& c) {
  c.tokens = c.nf.add(sub, "--tokens", "tokens", dim_rt<Tokens::dim>(), Constraint::positive,
                      "Training tokens D, e.g. 300B or 15.6T", "TOKENS");
  sub->get_option("--tokens")->required()->group("Compute");
  sub->add_option("--flops-formula", c.formula, "How FLOP are counted: 6pd (default), palm (adds attention's "
                                                "12·L·H·Q·T) or megatron (Narayanan et al. 2021, eq. 3)")
      ->type_name("6pd|palm|megatron")->group("Compute");
  c.params = c.nf.add(sub, "--params", "params", dim_rt<Params::dim>(), Constraint::positive,
                      "P for 6pd/palm instead of the model's count, or instead of MODEL, e.g. 175B", "PARAMS");
  sub->get_option("--params")->group("Compute");
  sub->add_option("--params-count", c.params_count,
                  "Which of MODEL's counts is P (the active path for MoE): non-embedding (6pd's default, the course "
                  "notes' 7.3) or total (palm's default, PaLM's N)")
      ->type_name("total|non-embedding")->group("Compute");
  c.vocab = c.nf.add(sub, "--vocab", "vocab", kCount, Constraint::positive_integer,
                     "V for megatron (default: the model's, padded to a multiple of 128·tp); with a made-up "
                     "decoder (--layers, --hidden, ...) its vocabulary V instead", "COUNT");
  sub->get_option("--vocab")->group("Compute");
  c.made_up.add(sub, c.nf, std::nullopt, c.vocab);
  c.mfu = c.nf.add(sub, "--mfu", "mfu", kCount, Constraint::positive,
                   "Model FLOP utilisation, a fraction of --peak (default 0.4)", "RATIO");
  c.achieved = c.nf.add(sub, "--achieved", "achieved", dim_rt<FlopRate::dim>(), Constraint::positive,
                        "Achieved rate per GPU, every FLOP executed, instead of --mfu, e.g. 140TFLOP/s", "FLOP/s");
  // The inverse: what a run took (papers report these); the MFU and the achieved rate follow.
  // Tokens per second and GPU-hours are plain counts (238.3k, 30.84M), so a unit there is refused.
  c.tokens_per_second = c.nf.add(sub, "--tokens-per-second", "tokens_per_second", dim_rt<Tokens::dim>(),
                                 Constraint::positive,
                                 "Measured training throughput of the whole cluster instead of --mfu; the implied "
                                 "MFU is reported, e.g. 238.3k", "TOKENS/S");
  c.gpu_hours = c.nf.add(sub, "--gpu-hours", "gpu_hours", kCount, Constraint::positive,
                         "GPU-hours the whole run took instead of --mfu (a plain number), e.g. 30.84M", "GPU-H");
  c.time = c.nf.add(sub, "--time", "time", dim_rt<Seconds::dim>(), Constraint::positive,
                    "Wall-clock time the run took instead of --mfu, e.g. 50d or 1200h", "TIME");
  c.peak = c.nf.add(sub, "--peak", "peak", dim_rt<FlopRate::dim>(), Constraint::positive,
                    "Dense peak of one GPU (default: --hw at --dtype), e.g. 989TFLOP/s", "FLOP/s");
  sub->add_option("--dtype", c.dtype, "Training math type whose --hw peak is used (default bf16; fp8, fp16, tf32)")
      ->type_name("DTYPE")->group("Hardware");
  for (const char* f : {"--mfu", "--achieved", "--tokens-per-second", "--gpu-hours", "--time"})
    sub->get_option(f)->group("Compute");
  sub->get_option("--peak")->group("Hardware");
}

// Hardware: --hw and the GPU's memory (a layout that does not fit has no time and exits 1: train needs
// no --require-fit).
void add_hardware_options(CommandApp* sub, TrainCmd& c) {
  add_hw_option(sub, c.hw);
  c.capacity = c.nf.add(sub, "--gpu-memory,--memory", "gpu_memory", kBytes, Constraint::positive,
                        "Memory of one GPU for the fit verdict (default: --hw), e.g. 80GiB", "BYTES");
  sub->get_option("--gpu-memory")->group("Hardware");
}

// Parallelism: the GPUs and their layout; then --zero (Training), which shards over dp.
void add_parallelism_options(CommandApp* sub, TrainCmd& c) {
  c.gpus = c.nf.add(sub, "--gpus", "gpus", kCount, Constraint::positive_integer,
                    "GPUs in the run (= tp·pp·cp·dp; default tp·pp·cp·dp)", "COUNT");
  c.tp = c.nf.add(sub, "--tp", "tp", kCount, Constraint::positive_integer, "Tensor-parallel degree (default 1)",
                  "COUNT", 1.0);
  c.pp = c.nf.add(sub, "--pp", "pp", kCount, Constraint::positive_integer, "Pipeline stages (default 1)", "COUNT",
                  1.0);
  c.dp = c.nf.add(sub, "--dp", "dp", kCount, Constraint::positive_integer,
                  "Data-parallel degree (default gpus / (tp·pp·cp), or 1)", "COUNT");
  c.ep = c.nf.add(sub, "--ep", "ep", kCount, Constraint::positive_integer,
                  "Expert-parallel degree, taken from dp (MoE; default 1)", "COUNT", 1.0);
  c.cp = c.nf.add(sub, "--cp", "cp", kCount, Constraint::positive_integer,
                  "Context-parallel degree: each sequence split over cp GPUs (Megatron --context-parallel-size; "
                  "default 1)", "COUNT", 1.0);
  for (const char* f : {"--gpus", "--tp", "--pp", "--dp", "--ep", "--cp"}) sub->get_option(f)->group("Parallelism");
  sub->add_flag("--sequence-parallel", c.sequence_parallel, "Megatron sequence parallelism over --tp")
      ->group("Parallelism");
  sub->add_option("--zero", c.zero_text, "ZeRO stage 0-3 over dp (3 = FSDP full sharding)")->type_name("0-3")
      ->group("Training");
}

// Training: the micro-batch and sequence, recomputation and the pipeline schedule, the model
// states' recipe, activations, and the runtime reserve.
void add_training_options(CommandApp* sub, TrainCmd& c) {
  c.micro_batch = c.nf.add(sub, "--micro-batch", "micro_batch", kCount, Constraint::positive_integer,
                           "Sequences per micro-batch (default 1)", "COUNT", 1.0);
  c.seq = c.nf.add(sub, "--seq", "seq", kCount, Constraint::positive_integer,
                   "Training sequence length (default 4096, or the model's context if shorter)", "COUNT", 4096.0);
  sub->add_option("--recompute", c.recompute, "Activation recomputation: none (default), selective (Megatron's "
                                              "core attention), full or op-sac (torchtitan's per-op policy)")
      ->type_name("none|selective|full|op-sac")->group("Training");
  c.virtual_stages = c.nf.add(sub, "--virtual-stages", "virtual_stages", kCount, Constraint::positive_integer,
                              "Interleaved 1F1B: model chunks per pipeline stage (default 1, plain 1F1B)", "COUNT",
                              1.0);
  c.recompute_layers = c.nf.add(sub, "--recompute-layers", "recompute_layers", kCount,
                                Constraint::non_negative_integer,
                                "Layers per stage fully recomputed, the rest as --recompute says (default 0)", "COUNT",
                                0.0);
  sub->get_option("--virtual-stages")->group("Parallelism");
  sub->get_option("--recompute-layers")->group("Training");
  sub->add_option("--precision", c.precision, "mixed (default: 2+2+4+8 B/param), fp32 or bf16")
      ->type_name("mixed|fp32|bf16")->group("Training");
  sub->add_option("--optimizer", c.optimizer, "adamw (default), adam-8bit, sgd, sgd-momentum, adafactor")
      ->type_name("NAME")->group("Training");
  c.dropout = add_activation_flags(sub, c.nf, c.act);
  add_training_memory_flags(sub, c.tm);
  // Fine-tuning: LoRA adapters on a frozen base (QLoRA: the base in NF4), as memory --train.
  c.lora_rank = c.nf.add(sub, "--lora-rank", "lora_rank", kCount, Constraint::positive_integer,
                         "LoRA fine-tuning: adapter rank r (the base is frozen: its backward computes input gradients "
                         "only)", "COUNT");
  sub->get_option("--lora-rank")->group("Fine-tuning");
  sub->add_option("--lora-targets", c.lora_targets, "LoRA target matrices: attention (q, k, v, o; default) or all-linear")
      ->type_name("attention|all-linear")->group("Fine-tuning");
  sub->add_flag("--qlora", c.qlora, "QLoRA: frozen base in NF4 (4.127 bits/param), dequantized before each GEMM")
      ->group("Fine-tuning");
  c.cuda = c.nf.add(sub, "--cuda-context", "cuda_context", kBytes, Constraint::non_negative,
                    "Per-GPU CUDA context, libraries and kernels (default 512MiB)", "BYTES", 512.0 * 1048576.0);
  c.frag = c.nf.add(sub, "--fragmentation", "fragmentation", kCount, Constraint::non_negative,
                    "Allocator slack as a fraction of the ledger (default 0.05)", "RATIO", 0.05);
  for (const char* f : {"--micro-batch", "--seq", "--cuda-context", "--fragmentation"})
    sub->get_option(f)->group("Training");
}

// Energy and cost: the power drawn, the GPU-hour price, PUE, the energy price and carbon intensity.
void add_energy_and_cost_options(CommandApp* sub, TrainCmd& c) {
  c.power = c.nf.add(sub, "--power", "power", dim_rt<Watts::dim>(), Constraint::positive,
                     "Average draw of one GPU (default: the --hw TDP), e.g. 700W", "W");
  c.node_power = c.nf.add(sub, "--node-power", "node_power", dim_rt<Watts::dim>(), Constraint::positive,
                          "Average draw of a whole node instead of --power, e.g. 10.2kW", "W");
  c.gpus_per_node = c.nf.add(sub, "--gpus-per-node", "gpus_per_node", kCount, Constraint::positive_integer,
                             "GPUs per node for --node-power (default 8)", "COUNT", 8.0);
  c.price_gpu_hour =
      add_price_per_gpu_hour_flag(sub, c.nf, "Rental price of one GPU for one hour, in USD, e.g. 2.5");
  c.priced = add_energy_price_flags(sub, c.nf);
  for (const char* f : {"--power", "--node-power", "--gpus-per-node", "--pue", "--price-per-gpu-hour",
                        "--price-per-kwh", "--carbon-intensity"})
    sub->get_option(f)->group("Energy and cost");
}


}  // namespace

// The names of --zero, --flops-formula, --params-count, --recompute, the training-memory flags,
// attention and dropout, --dtype, --precision and --optimizer, checked once before the sweep.
void parse_names(const TrainCmd& c, TrainChoices& plan) {
  if (c.lora_targets != "attention" && c.lora_targets != "all-linear")
    throw InputError("--lora-targets", c.lora_targets, "attention or all-linear");
  plan.formula = parse_flops_formula(c.formula, "--flops-formula");
  if (!c.params_count.empty()) plan.params_count = parse_params_count(c.params_count, "--params-count");
  plan.rc = parse_recompute(c.recompute, "--recompute");
  TrainingMemoryInput tm_parsed;  // the names checked once, before the sweep
  apply_training_memory_flags(c.tm, tm_parsed);
  plan.flash = parse_attention_flags(c.act.attention, c.act.flash_attention);
  check_dropout_flags(c.nf.flags()[c.dropout], c.act.no_dropout);
  plan.dtype = parse_dtype(c.dtype, "--dtype");
  plan.precision = parse_precision(c.precision, "--precision");
  plan.optimizer = parse_optimizer(c.optimizer, "--optimizer");
}

// The made-up decoder or not; --params and --vocab need a formula that reads them.
void resolve_model_choice(TrainCmd& c, TrainChoices& plan) {
  auto& flags = c.nf.flags();
  // --vocab alone keeps its megatron meaning: another flag of the decoder selects it.
  plan.made_up = c.made_up.select(c.nf, c.model, c.as, {"--vocab"});
  if (!flags[c.params].raw.empty() && plan.formula == FlopsFormula::megatron)
    throw InputError("--params", flags[c.params].raw,
                     "--flops-formula 6pd or palm (megatron's formula reads l, h, s and V from the model)");
  if (plan.made_up.empty() && !flags[c.vocab].raw.empty() && plan.formula != FlopsFormula::megatron)
    throw InputError("--vocab", flags[c.vocab].raw, "--flops-formula megatron (the only formula with a V term)");
}

// --hw's peak at --dtype, memory and power fill the flags not given.
void resolve_hardware(TrainCmd& c, TrainChoices& plan) {
  auto& flags = c.nf.flags();
  c.hw.load();
  plan.peak_given = !flags[c.peak].raw.empty();
  plan.power_given = !flags[c.power].raw.empty();
  if (c.hw.spec) {
    const auto peak = c.hw.spec->peak(plan.dtype);
    const bool rate_given = !flags[c.achieved].raw.empty() || !flags[c.tokens_per_second].raw.empty() ||
                            !flags[c.gpu_hours].raw.empty() || !flags[c.time].raw.empty();
    if (!peak && !plan.peak_given && !rate_given)
      throw InputError("--dtype", c.dtype, "a type " + c.hw.spec->name + " publishes a peak for (or give --peak)");
    c.hw.fill(flags[c.peak], peak ? std::optional<double>(peak->in_base_units()) : std::nullopt);
    c.hw.fill(flags[c.capacity], c.hw.spec->memory.in_base_units());
    if (flags[c.node_power].raw.empty())
      c.hw.fill(flags[c.power], c.hw.spec->tdp ? std::optional<double>(c.hw.spec->tdp->in_base_units())
                                               : std::nullopt);
  }
}

// A model of some kind is named; flags that need layers, --node-power or --hw have them.
void check_model_and_flag_needs(CommandApp* sub, const TrainCmd& c, TrainChoices& plan) {
  const auto& flags = c.nf.flags();
  plan.bare = c.model.empty() && plan.made_up.empty();
  if (plan.bare && flags[c.params].raw.empty())
    throw InputError("train: give MODEL (a preset, config.json or model directory), " + std::string(kMadeUpHint) +
                     " or --params P");
  // A bare --params count has no layers: flags that shape activations mean nothing there.
  constexpr unsigned A = kNeedsArchitecture;
  check_flag_needs(sub,
                   {{"--as", A}, {"--seq", A}, {"--micro-batch", A}, {"--attention", A}, {"--flash-attention", A},
                    {"--dropout", A}, {"--no-dropout", A}, {"--sequence-parallel", A}, {"--ep", A},
                    {"--virtual-stages", A}, {"--recompute-layers", A}, {"--activation-accounting", A}, {"--cp", A},
                    {"--loss", A}, {"--distribute-saved-activations", A}, {"--lora-rank", A}, {"--lora-targets", A},
                    {"--qlora", A}},
                   !plan.bare, true);
  if (sub->get_option("--lora-targets")->count() > 0 && flags[c.lora_rank].raw.empty())
    throw InputError("--lora-targets", c.lora_targets, "--lora-rank with it (the targets of the adapters)");
  if (!flags[c.lora_rank].raw.empty() && plan.formula != FlopsFormula::six_pd)
    throw InputError("--lora-rank", flags[c.lora_rank].raw,
                     "--flops-formula 6pd (LoRA's count: 4·P·D for the frozen base, 6·P_lora·D for the adapters)");
  if (sub->get_option("--gpus-per-node")->count() > 0 && flags[c.node_power].raw.empty())
    throw InputError("--gpus-per-node", flags[c.gpus_per_node].raw,
                     "--node-power with it (it counts the nodes whose power --node-power gives)");
  if (sub->get_option("--dtype")->count() > 0 && (plan.peak_given || !c.hw.spec))
    throw InputError("--dtype", c.dtype,
                     plan.peak_given ? "no --peak with it (--dtype picks the --hw peak; --peak gives the peak itself)"
                                     : "--hw with it (--dtype picks which of the hardware's peaks is used)");
}

// MODEL's spec, and the default sequence its context allows.
void load_train_model(TrainCmd& c, const TrainChoices& plan) {
  auto& flags = c.nf.flags();
  if (!plan.bare && plan.made_up.empty()) c.spec = load_model(c.model, c.as, c.text_only);
  // A sequence longer than the model's context is not a training run anyone does by default.
  // (A made-up decoder has no context limit.)
  if (!plan.bare && plan.made_up.empty() && flags[c.seq].raw.empty() && c.spec.max_context > 0)
    flags[c.seq].fallback = std::min(4096.0, static_cast<double>(c.spec.max_context));
}

// The per-GPU training ledger's input at one sweep point.
void fill_memory_input(const TrainCmd& c, const TrainChoices& plan, const Point& p, TrainInput& in) {
  in.memory.states.precision = plan.precision;
  in.memory.states.optimizer = plan.optimizer;
  in.memory.states.zero_stage = c.zero;
  in.memory.micro_batch = p.get<Count>(c.micro_batch);
  in.memory.seq = p.get<Count>(c.seq);
  in.memory.tp = p.get<Count>(c.tp);
  in.memory.pp = p.get<Count>(c.pp);
  in.memory.ep = p.get<Count>(c.ep);
  in.memory.cp = p.get<Count>(c.cp);
  in.memory.virtual_stages = p.get<Count>(c.virtual_stages);
  in.memory.recompute_layers = p.get<Count>(c.recompute_layers);
  apply_training_memory_flags(c.tm, in.memory);
  if (c.act.no_dropout) in.memory.dropout = 0.0;
  else if (p.has(c.dropout)) in.memory.dropout = p[c.dropout];
  in.memory.sequence_parallel = c.sequence_parallel;
  in.memory.recompute = plan.rc;
  in.memory.flash_attention = plan.flash;
  in.memory.cuda_context = p.get<Bytes>(c.cuda);
  in.memory.fragmentation = p[c.frag];
  in.memory.capacity = p.maybe<Bytes>(c.capacity);
  in.memory.lora_rank = p.maybe<Count>(c.lora_rank).value_or(Count{});
  in.memory.lora_all_linear = c.lora_targets == "all-linear";
  in.memory.qlora = c.qlora;
}

// The run's input at one sweep point: FLOP, layout, memory, speed, energy and cost.
TrainInput train_input(const TrainCmd& c, const TrainChoices& plan, const Point& p) {
  TrainInput in;
  in.tokens = p.get<Tokens>(c.tokens);
  in.formula = plan.formula;
  in.params = p.maybe<Params>(c.params);
  in.params_count = plan.params_count;
  if (plan.made_up.empty()) in.vocab = p.maybe<Count>(c.vocab);  // else the decoder's V
  in.gpus = p.maybe<Count>(c.gpus);
  in.dp = p.maybe<Count>(c.dp);
  fill_memory_input(c, plan, p, in);
  if (p.has(c.mfu)) in.mfu = p[c.mfu];
  in.achieved = p.maybe<FlopRate>(c.achieved);
  if (const auto r = p.maybe<Tokens>(c.tokens_per_second)) in.tokens_per_second = *r / units::second;
  if (p.has(c.gpu_hours)) in.gpu_hours = p[c.gpu_hours];
  in.time = p.maybe<Seconds>(c.time);
  in.peak = p.maybe<FlopRate>(c.peak);
  in.peak_dtype = dtype_name(plan.dtype);
  in.gpu_power = p.maybe<Watts>(c.power);
  in.node_power = p.maybe<Watts>(c.node_power);
  in.gpus_per_node = p.get<Count>(c.gpus_per_node);
  in.pue = p[c.priced.pue];
  in.price_per_gpu_hour = p.maybe<UsdPerSecond>(c.price_gpu_hour);
  in.price_per_kwh = p.maybe<UsdPerJoule>(c.priced.price_kwh);
  in.carbon_intensity = p.maybe<Co2PerJoule>(c.priced.carbon);
  if (c.hw.spec) in.hardware = c.hw.spec->name;
  fill_train_speed(c.speed, c.hw, p, in);
  in.peak_from_hw = c.hw.spec && !plan.peak_given;
  in.power_from_hw = c.hw.spec && !plan.power_given;
  return in;
}

// One sweep row: this point's model, the run (a bare count's or the model's), the tally.
void train_row(TrainCmd& c, const TrainChoices& plan, const Point& p, const TrainInput& in, ResultSet& rs,
               FitTally& tally) {
  if (!plan.made_up.empty()) c.made_up.build(p, c.spec);
  if (plan.bare)
    train_params(in, rs);
  else
    train(c.spec, in, rs);
  c.hw.assume(rs);
  assume_no_step_model(c.speed, in, rs);
  if (!plan.made_up.empty()) c.made_up.describe(c.nf, p, rs);
  if (p.probing()) return;  // run_sweep checking values before the first row: no row bookkeeping
  if (const Item* f = rs.find("fits"); f != nullptr && !f->value.flag) {
    if (tally.all_fit) tally.first_miss = fit_failure(rs);
    tally.all_fit = false;
  }
}


void precheck_run(const specs::ModelSpec& m, TrainInput in) {
  // Stage flags without --pp: the search gives them a pipeline (pp 1 has no first and last stage).
  if ((in.memory.first_stage_layers || in.memory.last_stage_layers) && in.memory.pp.in(units::one) < 2.0) return;
  in.speed = std::nullopt;
  in.global_batch = std::nullopt;
  (void)train(m, in);
}

TrainPlanInput plan_constraints(CommandApp* sub, const TrainCmd& c, const TrainInput& in, const Point& p) {
  const auto& flags = c.nf.flags();
  const auto fixed = [&](std::size_t i) -> std::optional<std::int64_t> {
    if (!flags[i].given) return std::nullopt;
    return static_cast<std::int64_t>(p[i]);
  };
  TrainPlanInput pi;
  pi.run = in;
  pi.gpus = static_cast<std::int64_t>(in.gpus ? in.gpus->in(units::one) : 1.0);
  pi.tp = fixed(c.tp);
  pi.pp = fixed(c.pp);
  pi.cp = fixed(c.cp);
  pi.ep = fixed(c.ep);
  pi.vp = fixed(c.virtual_stages);
  pi.micro_batch = fixed(c.micro_batch);
  if (sub->get_option("--zero")->count() > 0) pi.zero = c.zero;
  if (sub->get_option("--recompute")->count() > 0) pi.recompute = in.memory.recompute;
  return pi;
}

void add_train_options(CommandApp* sub, TrainCmd& c) {
  add_model_options(sub, c);
  add_compute_options(sub, c);
  add_hardware_options(sub, c);
  add_parallelism_options(sub, c);
  add_training_options(sub, c);
  add_energy_and_cost_options(sub, c);
  add_train_speed_flags(sub, c.nf, c.speed);
}

void prepare_train(CommandApp* sub, TrainCmd& c, TrainChoices& plan) {
  refuse_text_only_without_model(c.text_only, c.model);
  c.zero = parse_zero_stage(c.zero_text);
  parse_names(c, plan);
  resolve_model_choice(c, plan);
  resolve_hardware(c, plan);
  check_model_and_flag_needs(sub, c, plan);
  load_train_model(c, plan);
  resolve_train_speed(sub, c.nf, c.speed, c.hw, !plan.bare);
}

}  // namespace napkin::cli
