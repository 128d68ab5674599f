// napkin memory MODEL | --params P: the inference ledger per GPU (weights, KV cache, activations,
// runtime reserve), its total over all GPUs and the fit verdict; with --params, the weights (or,
// with --train, the model states) of a bare parameter count. Course notes 7.4.
#include <algorithm>
#include <memory>
#include <optional>

#include "check_failure.h"
#include "choice_axes.h"
#include "command.h"
#include "engine_flags.h"
#include "engine_sglang_flags.h"
#include "engine_vllm_flags.h"
#include "flag_checks.h"
#include "hardware_option.h"
#include "model_arg.h"
#include "model_flags.h"
#include "napkin/engines/sglang.h"
#include "napkin/engines/vllm.h"
#include "napkin/engines/vllm_layout.h"
#include "napkin/ground/check.h"
#include "napkin/ground/dtype.h"
#include "napkin/ground/error.h"
#include "napkin/memory/deepspeed.h"
#include "napkin/memory/ledgers.h"
#include "numeric_flags.h"
#include "output_flags.h"
#include "sweep_runner.h"
#include "training_flags.h"
#include "weight_storage.h"

namespace napkin::cli {

namespace {

constexpr DimRt kCount = dim_rt<Count::dim>();
constexpr DimRt kBytes = dim_rt<Bytes::dim>();

struct MemoryCmd {
  std::string model;
  std::string as;  // --as FAMILY
  bool text_only = false;  // --text-only
  specs::ModelSpec spec;  // outlives the ResultSet, which points into it
  ParamCount counts;      // count_params(spec), once for every sweep row
  InferenceMemoryInput::StageCache stages;  // its stage split, reset with `counts`
  NumericFlags nf;
  std::size_t params = 0, batch = 0, context = 0, tp = 0, pp = 0, group = 0, chunk = 0, cuda = 0, frag = 0,
              capacity = 0, dp = 0, micro_batch = 0, seq = 0, lora_rank = 0, ep = 0, dropout = 0,
              gpus_per_node = 0;
  std::size_t virtual_stages = 0, cp = 0, recompute_layers = 0;  // pipeline schedule, context parallelism
  std::string weights_dtype = "bf16", kv_dtype = "bf16", precision = "mixed", optimizer = "adamw",
              grad_dtype, recompute = "none", max, lora_targets = "attention";
  std::string zero_accounting = "paper";  // --zero-accounting paper (napkin) | deepspeed
  ActivationFlags act;  // --dropout, --no-dropout, --attention, --flash-attention
  TrainingMemoryFlags tm;  // --activation-accounting, --loss, --distribute-saved-activations
  int zero = 0;
  std::string zero_text = "0";  // --zero as typed (a comma list compares stages)
  HardwareOption hw;
  std::string engine;    // --engine
  LlamaCppFlags llama;   // --v-dtype, --ubatch, --parallel, --swa-full, --no-flash-attention
  VllmFlags vllm;        // --gpu-memory-utilization, --max-num-batched-tokens, --max-num-seqs, --block-size
  SglangFlags sglang;    // --mem-fraction-static, --chunked-prefill-size, ... --sglang-version
  MadeUpModelFlags made_up;  // --layers --hidden ...: a made-up decoder instead of MODEL
  bool bare = false;  // --params P: a bare parameter count
  bool zero_points = false, quantize_all = false, require_fit = false, train = false, no_master = false,
       sequence_parallel = false, min_gpus = false, qlora = false, offload_optimizer = false,
       offload_params = false;
  OutputOptions out;
};

ModelStatesInput states_of(const MemoryCmd& c, const Point& p) {
  ModelStatesInput in;
  in.precision = parse_precision(c.precision, "--precision");
  if (!c.grad_dtype.empty()) in.grad_dtype = parse_dtype(c.grad_dtype, "--grad-dtype");
  if (c.no_master) in.master_weights = false;
  in.optimizer = parse_optimizer(c.optimizer, "--optimizer");
  in.zero_stage = c.zero;
  in.dp = p.get<Count>(c.dp);
  return in;
}

// The dimensions --min-gpus searches: those not given on the command line.
LayoutSearch layout_search(const MemoryCmd& c, const Point& p) {
  LayoutSearch s;
  const auto& f = c.nf.flags();
  auto fixed = [&](std::size_t i) { return static_cast<std::int64_t>(p[i]); };
  if (!f[c.tp].raw.empty()) s.tp = fixed(c.tp);
  if (!f[c.pp].raw.empty()) s.pp = fixed(c.pp);
  if (!f[c.dp].raw.empty()) s.dp = fixed(c.dp);
  s.max_tp = static_cast<std::int64_t>(p[c.gpus_per_node]);
  return s;
}

// "layout shown: tp 8, pp 80, dp 1" from the ledger's inputs.
std::string key_line(const ResultSet& rs) {
  std::string s = "ledger shown is the smallest, at";
  for (const char* k : {"tp", "pp", "dp"})
    if (const Input* in = rs.find_input(k); in != nullptr && in->value.kind == Value::Kind::number)
      s += std::string(" ") + k + " " + format_plain_number(in->value.num);
  return s;
}

// --zero-accounting deepspeed counts what DeepSpeed's estimator counts: model states of a purely
// data-parallel run in mixed precision with Adam. Flags it has no term for are refused by name.
void check_deepspeed_flags(CommandApp* sub, const MemoryCmd& c) {
  for (const char* f : {"--tp", "--pp", "--ep", "--max", "--min-gpus", "--precision", "--optimizer", "--grad-dtype",
                        "--no-master-weights", "--lora-rank", "--qlora", "--seq", "--micro-batch", "--recompute", "--etp",
                        "--sequence-parallel", "--attention", "--flash-attention", "--dropout", "--no-dropout", "--first-stage-layers",
                        "--cuda-context", "--fragmentation", "--virtual-stages", "--cp", "--recompute-layers", "--last-stage-layers",
                        "--activation-accounting", "--loss", "--distribute-saved-activations"})
    if (const CLI::Option* o = sub->get_option_no_throw(f); o != nullptr && o->count() > 0)
      throw InputError(f, given_value(o), std::string("no ") + f + " with --zero-accounting deepspeed (DeepSpeed's "
                       "estimator counts the model states of pure data parallelism in mixed precision with Adam)");
  if (c.zero != 2 && c.zero != 3)
    throw InputError("--zero", c.zero_text, "2 or 3 with --zero-accounting deepspeed (its estimators cover ZeRO-2 and "
                                            "ZeRO-3)");
  if (c.bare && c.zero == 3)
    throw InputError("--params", "(with --zero 3 --zero-accounting deepspeed)",
                     "MODEL (ZeRO-3's estimate needs the largest layer, from the architecture)");
}

// DeepSpeed's estimate for one sweep point: N = --dp GPUs, --gpus-per-node of them per node
// (default: all on one node).
void deepspeed_ledger(const MemoryCmd& c, const Point& p, ResultSet& rs) {
  const auto& flags = c.nf.flags();
  const std::int64_t n = static_cast<std::int64_t>(p[c.dp]);
  const std::int64_t g = flags[c.gpus_per_node].raw.empty() ? n : static_cast<std::int64_t>(p[c.gpus_per_node]);
  if (g > n || n % g != 0)
    throw InputError("--gpus-per-node", format_plain_number(static_cast<double>(g)),
                     "a divisor of --dp " + format_plain_number(static_cast<double>(n)) +
                         " (DeepSpeed's estimator takes whole nodes)");
  DeepSpeedInput in;
  in.total_params = c.counts.total;
  in.largest_layer_params = c.bare ? 0 : zero3_largest_module_params(c.spec);
  in.zero_stage = c.zero;
  in.gpus_per_node = g;
  in.nodes = n / g;
  in.offload_optimizer = c.offload_optimizer || c.offload_params;
  in.offload_params = c.offload_params;
  rs.command = "memory";
  if (c.bare) rs.input("params", value(static_cast<double>(c.counts.total) * units::param));
  else rs.input("model", verdict(c.spec.name));
  rs.input("train", boolean(true));
  rs.input("dp", value(static_cast<double>(n)));
  rs.input("zero", value(static_cast<double>(c.zero)));
  deepspeed_memory(in, rs);
  if (const auto cap = p.maybe<Bytes>(c.capacity)) fit_items(deepspeed_memory(in).per_gpu, *cap, rs);
}

// What one configuration (one run_choices turn) resolves before its sweep; the rows read it.
struct MemoryPlan {
  std::string made_up;  // the made-up decoder's flags as typed; empty with MODEL or --params
  Engine engine = Engine::none;
  bool llamacpp = false, vllm = false;
  bool sglang = false;  // --engine sglang
  Dtype wd = Dtype::bf16, kd = Dtype::bf16, scale_dtype = Dtype::fp16;
  bool declared = false;  // the weights' quantization is the checkpoint's own
  WeightStorage w;        // outlives the sweep: the rows refer to its strings
  LlamaCppInput llama;
  std::string device;  // --hw's name and full name, for vLLM's row
  EngineTotal gpu_total;  // where an engine's GPU total came from
  std::optional<SolveFor> solve;
  std::optional<TrainSolveFor> train_solve;
  const char* solver_flag = "--max";
  bool deepspeed = false, offload = false, per_node = false;
  Recompute rc = Recompute::none;
  bool flash = false;
};

// What the sweep's rows leave for the exit code: the first row of each kind of failed check.
struct SweepTally {
  bool all_fit = true;
  std::string first_miss;  // the first row that does not fit, for --require-fit's message
  std::string unsolved;    // the first row whose solver found no answer
  std::string engine_miss;  // the first row the engine would refuse to start with (vLLM, llama.cpp)
  std::string_view engine_flag;  // "--engine vllm" or "--engine llama.cpp"
};

// MODEL, the made-up decoder or --params: exactly one names the model.
void resolve_model_choice(MemoryCmd& c, MemoryPlan& plan) {
  auto& flags = c.nf.flags();
  plan.made_up = c.made_up.select(c.nf, c.model, c.as, {},
                                  flags[c.params].raw.empty() ? "" : "--params " + flags[c.params].raw);
  c.bare = c.model.empty() && plan.made_up.empty();
  if (c.bare && flags[c.params].raw.empty())
    throw InputError("memory: give MODEL (a preset, config.json or model directory), " + std::string(kMadeUpHint) +
                     " or --params P");
  if (!c.model.empty() && !flags[c.params].raw.empty())
    throw InputError("--params", flags[c.params].raw, "either MODEL or --params, not both");
}

// --zero and --engine parse; llama.cpp needs an architecture; flags an engine has no term for are refused.
void check_engine(CommandApp* sub, MemoryCmd& c, MemoryPlan& plan) {
  c.zero = parse_zero_stage(c.zero_text);
  plan.engine = parse_engine(c.engine);
  plan.llamacpp = plan.engine == Engine::llamacpp;
  if (plan.llamacpp && c.bare)
    throw InputError("--engine", c.engine, "MODEL with it (llama.cpp's buffers need an architecture)");
  check_engine_flags(sub, plan.engine, {"--batch", "--tp", "--pp", "--prefill-chunk", "--fragmentation", "--max",
                                        "--min-gpus", "--train", "--quantize-all"});
}

// Every flag either changes the ledger it is given to or is refused here, by name (and what
// --min-gpus cannot search).
void check_flag_needs_table(CommandApp* sub, const MemoryCmd& c, const MemoryPlan& plan) {
  const auto& flags = c.nf.flags();
  constexpr unsigned A = kNeedsArchitecture, T = kNeedsTrain, I = kNeedsInference;
  check_flag_needs(sub,
                   {{"--as", A}, {"--batch", A | I}, {"--context", A | I}, {"--kv-dtype", A | I}, {"--prefill-chunk", A | I},
                    {"--quantize-all", A | I}, {"--weights-dtype", I}, {"--group-size", I}, {"--zero-points", I},
                    {"--max", A}, {"--min-gpus", A}, {"--gpus-per-node", c.min_gpus ? A : 0u}, {"--seq", A | T}, {"--micro-batch", A | T},
                    {"--recompute", A | T}, {"--attention", A | T}, {"--flash-attention", plan.llamacpp ? A : A | T},
                    {"--dropout", A | T}, {"--no-dropout", A | T}, {"--sequence-parallel", A | T}, {"--etp", A | T},
                    {"--lora-rank", A | T}, {"--lora-targets", A | T}, {"--qlora", A | T}, {"--ep", A | T}, {"--last-stage-layers", A | T},
                    {"--offload-optimizer", T}, {"--offload-params", T}, {"--precision", T}, {"--optimizer", T},
                    {"--grad-dtype", T}, {"--no-master-weights", T}, {"--zero", T}, {"--dp", T}, {"--zero-accounting", T},
                    {"--virtual-stages", A | T}, {"--cp", A | T}, {"--recompute-layers", A | T}, {"--first-stage-layers", A | T},
                    {"--activation-accounting", A | T}, {"--loss", A | T}, {"--distribute-saved-activations", A | T}},
                   !c.bare, c.train);
  if (c.min_gpus && !flags[c.cp].raw.empty())
    throw InputError("--cp", flags[c.cp].raw, "no --cp with --min-gpus (the search does not vary context parallelism)");
  if (c.min_gpus && !flags[c.virtual_stages].raw.empty() && flags[c.pp].raw.empty())
    throw InputError("--virtual-stages", flags[c.virtual_stages].raw,
                     "--pp with it under --min-gpus (the chunks must divide each stage the search would try)");
}

// vLLM's and SGLang's budgets replace the engine-neutral ledger: their own inputs only, with
// MODEL, for inference. --batch (--users) is the requests vLLM's pool must hold at once;
// --min-gpus searches vLLM's TP and PP.
void check_serving_engines(CommandApp* sub, const MemoryCmd& c, MemoryPlan& plan) {
  plan.vllm = plan.engine == Engine::vllm;
  plan.sglang = plan.engine == Engine::sglang;
  check_vllm_flags(sub, plan.vllm);
  check_sglang_flags(sub, plan.sglang);
  if (plan.vllm)
    check_serving_engine(sub, "vllm", c.bare, c.train,
                         {"--prefill-chunk", "--cuda-context", "--fragmentation", "--max", "--require-fit"},
                         "--gpu-memory-utilization, --max-num-batched-tokens, --max-num-seqs, --block-size; a pool "
                         "that holds fewer than --users requests is exit 1");
  if (plan.sglang)
    check_serving_engine(sub, "sglang", c.bare, c.train,
                         {"--batch", "--pp", "--prefill-chunk", "--cuda-context", "--fragmentation", "--max",
                          "--min-gpus", "--require-fit"},
                         "--mem-fraction-static, --chunked-prefill-size, --cuda-graph-max-bs, --page-size, "
                         "--max-total-tokens; a pool that holds no request is exit 1");
}

// --lora-targets names the adapters of --lora-rank: not without it.
void check_lora_targets_have_rank(CommandApp* sub, const MemoryCmd& c) {
  if (sub->get_option("--lora-targets")->count() > 0 && c.nf.flags()[c.lora_rank].raw.empty())
    throw InputError("--lora-targets", c.lora_targets, "--lora-rank with it (the targets of the adapters)");
}

// The weight and KV dtypes, llama.cpp's input, --hw, and the capacity vLLM and --require-fit need.
void resolve_storage_and_hardware(CommandApp* sub, MemoryCmd& c, MemoryPlan& plan) {
  auto& flags = c.nf.flags();
  plan.wd = parse_weights_dtype(c.weights_dtype);
  if (c.bare) refuse_gguf_weights(c.weights_dtype, "--params");
  if (!plan.made_up.empty()) refuse_gguf_weights(c.weights_dtype, "the made-up decoder");
  plan.kd = plan.llamacpp ? Dtype::bf16 : parse_dtype(c.kv_dtype, "--kv-dtype");
  if (plan.llamacpp) fill_llamacpp_input(sub, c.kv_dtype, c.llama, plan.llama);
  c.hw.load();
  if (c.hw.spec) c.hw.fill(flags[c.capacity], c.hw.spec->memory.in_base_units());
  // The engines size their budgets from the total the CUDA runtime reports, a little below the
  // driver's.
  // SGLang, too, measures free memory with torch.cuda.mem_get_info.
  if (plan.vllm || plan.llamacpp || plan.sglang) plan.gpu_total = fill_engine_total(c.hw, flags[c.capacity]);
  if (plan.vllm && flags[c.capacity].raw.empty() && !c.hw.has_figures())
    throw InputError("--engine", "vllm", "--hw or --gpu-memory with it (the GPU memory vLLM sizes its pool from)");
  if (plan.sglang && flags[c.capacity].raw.empty() && !c.hw.has_figures())
    throw InputError("--engine", "sglang", "--hw or --gpu-memory with it (the GPU memory SGLang sizes its pool from)");
  plan.device = c.hw.spec ? c.hw.spec->name + " " + c.hw.spec->full_name : std::string();
  if (c.require_fit && flags[c.capacity].raw.empty() && !c.hw.has_figures())
    throw InputError("--require-fit", "(given)", "--gpu-memory (the capacity to check against)");
}

// --max or --min-gpus: which solver, if any (one at a time; --train has its own --max names).
void choose_solver(const MemoryCmd& c, MemoryPlan& plan) {
  plan.solver_flag = c.min_gpus ? "--min-gpus" : "--max";
  if (!c.max.empty()) {
    if (c.train) {
      if (c.max == "micro-batch") plan.train_solve = TrainSolveFor::max_micro_batch;
      else if (c.max == "seq") plan.train_solve = TrainSolveFor::max_seq;
      else throw InputError("--max", c.max, "micro-batch or seq (with --train)");
    } else {
      if (c.max == "batch") plan.solve = SolveFor::max_batch;
      else if (c.max == "context") plan.solve = SolveFor::max_context;
      else throw InputError("--max", c.max, "batch or context (micro-batch or seq with --train)");
    }
  }
  if (c.min_gpus) {
    if (plan.solve || plan.train_solve) throw InputError("--min-gpus", "(given with --max)", "one solver at a time");
    if (c.train) plan.train_solve = TrainSolveFor::min_gpus;
    else plan.solve = SolveFor::min_gpus;
  }
}

// --zero-accounting, offload and --gpus-per-node; DeepSpeed's flags; --min-gpus has a degree to
// search; a solver has a capacity to solve against.
void check_zero_and_offload(CommandApp* sub, MemoryCmd& c, MemoryPlan& plan) {
  const auto& flags = c.nf.flags();
  if (c.zero_accounting == "napkin") c.zero_accounting = "paper";
  if (c.zero_accounting != "paper" && c.zero_accounting != "deepspeed")
    throw InputError("--zero-accounting", c.zero_accounting, "paper or deepspeed");
  plan.deepspeed = c.zero_accounting == "deepspeed";
  plan.offload = c.offload_optimizer || c.offload_params;
  plan.per_node = !flags[c.gpus_per_node].raw.empty() && !c.min_gpus;
  if (plan.per_node && !(c.train && (plan.offload || plan.deepspeed)))
    throw InputError("--gpus-per-node", flags[c.gpus_per_node].raw,
                     "--min-gpus (the TP limit of its search), or --train with --offload-optimizer, "
                     "--offload-params or --zero-accounting deepspeed (host memory per node)");
  if (plan.deepspeed)
    check_deepspeed_flags(sub, c);
  if (c.min_gpus && !flags[c.tp].raw.empty() && !flags[c.pp].raw.empty() &&
      (!c.train || c.zero == 0 || !flags[c.dp].raw.empty()))
    throw InputError("--min-gpus", "(with every parallel degree given)",
                     "a degree to search: drop --tp, --pp or (under ZeRO) --dp, or use --require-fit");
  if ((plan.solve || plan.train_solve) && flags[c.capacity].raw.empty() && !c.hw.has_figures())
    throw InputError(plan.solver_flag, c.min_gpus ? "(given)" : c.max, "--gpu-memory (the capacity to solve against)");
}

// MODEL's spec and counts; for inference, the checkpoint's declared quantization is how its
// weights are stored.
void load_model_and_storage(CommandApp* sub, MemoryCmd& c, MemoryPlan& plan) {
  if (c.bare || !plan.made_up.empty()) return;
  auto& flags = c.nf.flags();  // weight_storage sets --group-size's default from the checkpoint
  c.spec = load_model(c.model, c.as, c.text_only);
  c.counts = count_params(c.spec);
  c.stages.reset();
  if (c.train) return;
  plan.w = weight_storage(sub, c.weights_dtype, c.model, c.spec, flags[c.group]);
  plan.wd = plan.w.dtype;
  plan.scale_dtype = plan.w.scale_dtype;
  plan.declared = plan.w.declared;
  if (plan.declared && flags[c.group].raw.empty() && !c.zero_points) c.zero_points = plan.w.zero_points;
}

// --group-size, --zero-points and --quantize-all need quantized weights (a zero point, a group).
void check_quantization(const MemoryCmd& c, const MemoryPlan& plan) {
  const auto& flags = c.nf.flags();
  const std::string wd_name(dtype_name(plan.wd));
  if (!flags[c.group].raw.empty() && dtype_bits(plan.wd) >= 16)
    throw InputError("--group-size", flags[c.group].raw,
                     "a quantized --weights-dtype with it (int8, int4, nf4, fp8): " + wd_name +
                         " weights have no quantization groups");
  if (c.zero_points && flags[c.group].raw.empty() && !plan.declared)
    throw InputError("--zero-points", "(given)", "--group-size with it (one zero point per quantization group)");
  if (c.quantize_all && dtype_bits(plan.wd) >= 16)
    throw InputError("--quantize-all", "(given)",
                     "a quantized --weights-dtype with it: at " + wd_name + " nothing is quantized");
}

// --recompute, the training-memory names, attention and dropout, and LoRA's flags, checked once
// before the sweep.
void check_training_flags(const MemoryCmd& c, MemoryPlan& plan) {
  plan.rc = parse_recompute(c.recompute, "--recompute");
  TrainingMemoryInput tm_parsed;  // the names checked once, before the sweep
  apply_training_memory_flags(c.tm, tm_parsed);
  plan.flash = plan.llamacpp || parse_attention_flags(c.act.attention, c.act.flash_attention);
  check_dropout_flags(c.nf.flags()[c.dropout], c.act.no_dropout);
  if (c.lora_targets != "attention" && c.lora_targets != "all-linear")
    throw InputError("--lora-targets", c.lora_targets, "attention or all-linear");
  if ((c.qlora || !c.nf.flags()[c.lora_rank].raw.empty()) && !c.train)
    throw InputError(c.qlora ? "--qlora" : "--lora-rank", "(given without --train)", "--train (LoRA is fine-tuning)");
}

// The model of one sweep point: a bare parameter count, or the made-up decoder at this point.
void refresh_model(MemoryCmd& c, const MemoryPlan& plan, const Point& p) {
  if (c.bare) {
    // A model with only a parameter count, through the same ledger as a real model.
    c.spec = specs::bare_model(static_cast<std::int64_t>(p[c.params]));
    c.counts = count_params(c.spec);
    c.stages.reset();
  } else if (!plan.made_up.empty() && c.made_up.build(p, c.spec)) {
    c.counts = count_params(c.spec);
    c.stages.reset();
  }
}

// The training ledger's input at one sweep point.
TrainingMemoryInput training_input(const MemoryCmd& c, const MemoryPlan& plan, const Point& p) {
  TrainingMemoryInput in;
  in.states = states_of(c, p);
  in.micro_batch = p.get<Count>(c.micro_batch);
  in.seq = p.get<Count>(c.seq);
  in.tp = p.get<Count>(c.tp);
  in.pp = p.get<Count>(c.pp);
  in.sequence_parallel = c.sequence_parallel;
  in.recompute = plan.rc;
  in.flash_attention = plan.flash;
  in.cuda_context = p.get<Bytes>(c.cuda);
  in.fragmentation = p[c.frag];
  in.capacity = p.maybe<Bytes>(c.capacity);
  in.lora_rank = p.maybe<Count>(c.lora_rank).value_or(Count{});
  in.lora_all_linear = c.lora_targets == "all-linear";
  in.qlora = c.qlora;
  in.offload_optimizer = c.offload_optimizer;
  in.offload_params = c.offload_params;
  in.ep = p.get<Count>(c.ep);
  in.virtual_stages = p.get<Count>(c.virtual_stages);
  in.cp = p.get<Count>(c.cp);
  in.recompute_layers = p.get<Count>(c.recompute_layers);
  apply_training_memory_flags(c.tm, in);
  if (c.act.no_dropout) in.dropout = 0.0;
  else if (p.has(c.dropout)) in.dropout = p[c.dropout];
  in.counts = &c.counts;
  return in;
}

// The training-ledger row (or its solver), with the host memory per node under offload.
void training_row(const MemoryCmd& c, const MemoryPlan& plan, const Point& p, ResultSet& rs) {
  const TrainingMemoryInput in = training_input(c, plan, p);
  if (plan.train_solve)
    solve_training(c.spec, in, *plan.train_solve, rs, layout_search(c, p));
  else
    training_memory(c.spec, in, rs);
  if (plan.per_node && plan.offload)
    cpu_memory_per_node(training_memory(c.spec, in).cpu_memory, static_cast<std::int64_t>(p[c.gpus_per_node]),
                        static_cast<std::int64_t>(in.tp.in(units::one) * in.pp.in(units::one) *
                                                  in.states.dp.in(units::one)),
                        rs);
}

// The inference ledger's input at one sweep point.
InferenceMemoryInput inference_input(MemoryCmd& c, const MemoryPlan& plan, const Point& p) {
  InferenceMemoryInput in;
  in.weights_dtype = plan.wd;
  in.scale_dtype = plan.scale_dtype;
  in.group_size = p.get<Count>(c.group);
  in.zero_points = c.zero_points;
  in.quantize_all = c.quantize_all;
  in.experts_only = plan.w.experts_only;
  in.stored_weights = plan.w.stored;
  in.stored_source = plan.w.stored_source;
  in.stored_detail = plan.w.stored_detail;
  in.kv_dtype = plan.kd;
  in.batch = p.get<Count>(c.batch);
  in.context = p.get<Count>(c.context);
  in.tp = p.get<Count>(c.tp);
  in.pp = p.get<Count>(c.pp);
  in.prefill_chunk = p.get<Count>(c.chunk);
  in.cuda_context = p.get<Bytes>(c.cuda);
  in.fragmentation = p[c.frag];
  in.capacity = p.maybe<Bytes>(c.capacity);
  in.counts = &c.counts;
  in.stage_cache = &c.stages;
  return in;
}

// vLLM's budget for one row, over the weights the inference ledger holds; notes the first row
// vLLM would refuse to start with.
void vllm_row(const MemoryCmd& c, const MemoryPlan& plan, const InferenceMemoryInput& in, const Point& p,
              ResultSet& rs, SweepTally& tally) {
  VllmInput v = vllm_input(c.vllm, p, *in.capacity, plan.device);
  v.context = in.context;
  v.tp = in.tp;
  v.pp = in.pp;
  v.kv_dtype = plan.kd;
  v.weights = vllm_weights(c.spec, in, v.arch).total();
  v.total_source = plan.gpu_total.source;
  if (plan.solve == SolveFor::min_gpus) {
    vllm_min_gpus(c.spec, v, in, in.batch.in(units::one), layout_search(c, p), rs);
    assume_engine_total(plan.gpu_total, "vLLM", rs);
    return;
  }
  v.users = in.batch;
  vllm_budget(c.spec, v, rs);
  assume_engine_total(plan.gpu_total, "vLLM", rs);
  rs.assume("weights_dtype", text("weights as vLLM holds them: the inference ledger's per GPU plus vLLM's layout "
                                  "(rotary cache, MXFP4 padding), {} per GPU", v.weights));
  if (!p.probing() && tally.engine_miss.empty()) {
    tally.engine_miss = vllm_failure(vllm_budget(c.spec, v));
    tally.engine_flag = "--engine vllm";
  }
}

// SGLang's budget for one row, over the weights the inference ledger holds; notes the first row
// SGLang would not serve a request of --context with.
void sglang_row(const MemoryCmd& c, const MemoryPlan& plan, const InferenceMemoryInput& in, const Point& p, ResultSet& rs, SweepTally& tally) {
  SglangInput s = sglang_input(c.sglang, p, *in.capacity, c.hw.has_figures() ? &*c.hw.spec : nullptr);
  s.context = in.context;
  s.tp = in.tp;
  s.kv_dtype = in.kv_dtype;
  s.weights = inference_memory(c.spec, in).weights;
  sglang_budget(c.spec, s, rs);
  assume_engine_total(plan.gpu_total, "SGLang", rs);
  rs.assume("weights_dtype", text("weights as the inference ledger holds them: {} per GPU", s.weights));
  if (!p.probing() && tally.engine_miss.empty()) {
    tally.engine_miss = sglang_failure(sglang_budget(c.spec, s));
    tally.engine_flag = "--engine sglang";
  }
}

// The inference row: llama.cpp's buffers, vLLM's budget, a solver or the engine-neutral ledger.
void inference_row(MemoryCmd& c, const MemoryPlan& plan, const Point& p, ResultSet& rs, SweepTally& tally) {
  const InferenceMemoryInput in = inference_input(c, plan, p);
  if (plan.llamacpp) {
    LlamaCppInput li = plan.llama;
    li.n_ctx = in.context;
    li.n_parallel = p.get<Count>(c.llama.parallel);
    li.n_ubatch = p.get<Count>(c.llama.ubatch);
    li.build = llamacpp_build(c.llama, p);
    li.cuda_context = in.cuda_context;
    li.capacity = in.capacity;
    li.metal = c.hw.spec && c.hw.spec->device_class == "apple-silicon";
    const OffloadRequest off = offload_request(c.nf, c.llama, p, c.hw, plan.w);
    llamacpp_ledger(li, c.spec, in, rs, false, &off);
    if (li.capacity) assume_engine_total(plan.gpu_total, "llama.cpp", rs);
    if (!p.probing() && tally.engine_miss.empty()) {
      tally.engine_miss = llamacpp_failure(rs);
      tally.engine_flag = "--engine llama.cpp";
    }
  } else if (plan.vllm) {
    vllm_row(c, plan, in, p, rs, tally);
  } else if (plan.sglang) {
    sglang_row(c, plan, in, p, rs, tally);
  } else if (plan.solve)
    solve_inference(c.spec, in, *plan.solve, rs, layout_search(c, p));
  else
    inference_memory(c.spec, in, rs);
  if (plan.declared) assume_declared_quantization(c.spec, rs);
}

// A finished row's part of the exit code: the first row that does not fit, the first unsolved.
void tally_row(const ResultSet& rs, SweepTally& tally) {
  if (const Item* f = rs.find("fits"); f != nullptr && !f->value.flag) {
    if (tally.all_fit) tally.first_miss = fit_failure(rs);
    tally.all_fit = false;
  }
  // Only a row with a missing value can hold an unsolved answer (a sweep row rarely does).
  const bool has_none = std::any_of(rs.items.begin(), rs.items.end(),
                                    [](const Item& it) { return it.value.kind == Value::Kind::none; });
  if (has_none && tally.unsolved.empty()) {
    for (const char* key : {"min_gpus", "max_batch", "max_context", "max_micro_batch", "max_seq"})
      if (const Item* a = rs.find(key); a != nullptr && a->value.kind == Value::Kind::none && tally.unsolved.empty())
        tally.unsolved = std::string(key) + ": " + (std::string_view(key) == "min_gpus"
                                                        ? "no layout fits within the search limits (the " + key_line(rs) + ")"
                                                        : "even 1 does not fit") +
                         "; " + fit_failure(rs);
  }
}

// One sweep row: this point's model, its ledger (DeepSpeed's, training or inference), the tally.
void memory_row(MemoryCmd& c, const MemoryPlan& plan, const Point& p, ResultSet& rs, SweepTally& tally) {
  refresh_model(c, plan, p);
  if (c.train && plan.deepspeed)
    deepspeed_ledger(c, p, rs);
  else if (c.train)
    training_row(c, plan, p, rs);
  else
    inference_row(c, plan, p, rs, tally);
  c.hw.assume(rs);
  if (!plan.made_up.empty()) c.made_up.describe(c.nf, p, rs);
  if (p.probing()) return;  // run_sweep checking values before the first row: no row bookkeeping
  tally_row(rs, tally);
}

// The sweep's exit code: vLLM's refusal to start, a solver without an answer, then --require-fit
// (each exit 1, its reason on stderr), unless the sweep itself failed.
int sweep_exit_code(int exit_code, const MemoryCmd& c, const MemoryPlan& plan, const SweepTally& tally) {
  // vLLM refuses to start when its pool holds no request, llama.cpp when its buffers do not fit
  // the GPU: exit 1, as the engine fails.
  if (!tally.engine_miss.empty() && exit_code == 0) {
    report_check_failure(tally.engine_flag, tally.engine_miss);
    exit_code = 1;
  }
  // A solver without an answer is a failed check (exit 1), with its reason on stderr.
  if (!tally.unsolved.empty() && exit_code == 0) {
    report_check_failure(plan.solver_flag, tally.unsolved);
    exit_code = 1;
  }
  if (c.require_fit && !tally.all_fit && exit_code == 0) {
    report_check_failure("--require-fit", tally.first_miss);
    exit_code = 1;
  }
  return exit_code;
}

// Model: MODEL, --as, a bare --params count or a made-up decoder, and how the weights and the KV
// cache are stored.
void add_model_options(CommandApp* sub, MemoryCmd& c) {
  sub->add_option("MODEL", c.model, "A preset (napkin presets models), a config.json, a model directory or "
                                    "napkin model JSON")
      ->type_name("MODEL")
      ->group("Model");
  add_as_option(sub, c.as, c.text_only);
  c.params = c.nf.add(sub, "--params", "params", dim_rt<Params::dim>(), Constraint::positive_integer,
                      "A bare parameter count instead of MODEL (weights, model states and the runtime reserve; "
                      "flags that need an architecture are refused), e.g. 8B", "PARAMS");
  sub->get_option("--params")->group("Model");
  c.made_up.add(sub, c.nf);
  sub->add_option("--weights-dtype", c.weights_dtype,
                  "Weight storage: bf16 (default), fp16, fp32, fp8, int8, int4, nf4, or a llama.cpp GGUF type (q4_k_m, "
                  "q8_0, iq4_xs, ...: llama-quantize's per-tensor types)")
      ->type_name("DTYPE")->group("Model");
  c.group = c.nf.add(sub, "--group-size", "group_size", kCount, Constraint::non_negative_integer,
                     "Quantization group size (one fp16 scale per group; 0 = none, the default)", "COUNT", 0.0);
  sub->get_option("--group-size")->group("Model");
  sub->add_flag("--zero-points", c.zero_points,
                "Quantization keeps a zero point per group too, at the weights' width (AWQ/GPTQ qzeros)")
      ->group("Model");
  sub->add_flag("--quantize-all", c.quantize_all,
                "Quantize embeddings, LM head and norms too (kept in bf16 by default)")
      ->group("Model");
  sub->add_option("--kv-dtype", c.kv_dtype, "KV cache storage: bf16 (default), fp16, fp8, int8")
      ->type_name("DTYPE")->group("Model");
}

// The inference ledger's sizes: the sequences and their context, --tp and --pp (Parallelism), the
// prefill chunk, and the runtime reserve.
void add_inference_options(CommandApp* sub, MemoryCmd& c) {
  c.batch = c.nf.add(sub, "--batch,--users", "batch", kCount, Constraint::positive_integer,
                     "Concurrent sequences (default 1); with --engine vllm the requests of --context its KV pool must "
                     "hold at once (--users is the same flag)",
                     "COUNT", 1.0);
  c.context = c.nf.add(sub, "--context", "context", kCount, Constraint::positive_integer,
                       "Tokens per sequence, prompt + generated (default 4096), e.g. 8Ki", "COUNT", 4096.0);
  c.tp = c.nf.add(sub, "--tp", "tp", kCount, Constraint::positive_integer, "Tensor-parallel GPUs (default 1)", "COUNT",
                  1.0);
  c.pp = c.nf.add(sub, "--pp", "pp", kCount, Constraint::positive_integer, "Pipeline stages (default 1)", "COUNT", 1.0);
  sub->get_option("--tp")->group("Parallelism");
  sub->get_option("--pp")->group("Parallelism");
  c.chunk = c.nf.add(sub, "--prefill-chunk", "prefill_chunk", kCount, Constraint::positive_integer,
                     "Tokens one forward pass processes at once (default 2048)", "COUNT", 2048.0);
  c.cuda = c.nf.add(sub, "--cuda-context", "cuda_context", kBytes, Constraint::non_negative,
                    "Per-GPU CUDA context, libraries and kernels (default 512MiB)", "BYTES", 512.0 * 1048576.0);
  c.frag = c.nf.add(sub, "--fragmentation", "fragmentation", kCount, Constraint::non_negative,
                    "Allocator slack as a fraction of the ledger (default 0.05)", "RATIO", 0.05);
}

// Hardware (the GPU's memory, --hw), the Solver (--max, --min-gpus, --gpus-per-node), and
// --require-fit (Hardware).
void add_hardware_and_solver_options(CommandApp* sub, MemoryCmd& c) {
  c.capacity = c.nf.add(sub, "--gpu-memory,--memory", "gpu_memory", kBytes, Constraint::positive,
                        "Memory of one GPU for the fit verdict, e.g. 80GiB", "BYTES");
  sub->get_option("--gpu-memory")->group("Hardware");
  add_hw_option(sub, c.hw);
  sub->add_option("--max", c.max, "Solve for the largest batch (at --context) or context (at --batch) that fits "
                                  "--gpu-memory; with --train: micro-batch (at --seq) or seq (at --micro-batch)")
      ->type_name("batch|context|micro-batch|seq")->group("Solver");
  sub->add_flag("--min-gpus", c.min_gpus, "Solve for the fewest GPUs that fit --gpu-memory over TP x PP (and DP "
                                          "under --train --zero >= 1); --tp, --pp or --dp given are fixed; exit 1 "
                                          "when nothing fits")
      ->group("Solver");
  c.gpus_per_node = c.nf.add(sub, "--gpus-per-node", "gpus_per_node", kCount, Constraint::positive_integer,
                             "GPUs of one node: the largest TP degree --min-gpus tries; with --train and offload "
                             "or --zero-accounting deepspeed, the node host memory is sized for (default 8)",
                             "COUNT", 8.0);
  sub->get_option("--gpus-per-node")->group("Solver");
  sub->add_flag("--require-fit", c.require_fit, "Exit 1 when the ledger does not fit --gpu-memory")->group("Hardware");
}

// Training and Fine-tuning: --train, the micro-batch and sequence, recomputation, LoRA's targets,
// offload, the ZeRO accounting, activations, and the training-memory flags.
void add_training_options(CommandApp* sub, MemoryCmd& c) {
  sub->add_flag("--train", c.train, "The training ledger: weights, gradients, master weights, optimizer states "
                                    "and (with MODEL) activations")->group("Training");
  c.micro_batch = c.nf.add(sub, "--micro-batch", "micro_batch", kCount, Constraint::positive_integer,
                           "Sequences per micro-batch (default 1)", "COUNT", 1.0);
  c.seq = c.nf.add(sub, "--seq", "seq", kCount, Constraint::positive_integer,
                   "Training sequence length (default 4096)", "COUNT", 4096.0);
  sub->get_option("--micro-batch")->group("Training");
  sub->get_option("--seq")->group("Training");
  sub->add_option("--recompute", c.recompute, "Activation recomputation: none (default), selective (Megatron's "
                                              "core attention), full or op-sac (torchtitan's per-op policy)")
      ->type_name("none|selective|full|op-sac")->group("Training");
  c.lora_rank = c.nf.add(sub, "--lora-rank", "lora_rank", kCount, Constraint::positive_integer,
                         "LoRA fine-tuning: adapter rank r (the base is frozen)", "COUNT");
  sub->get_option("--lora-rank")->group("Fine-tuning");
  sub->add_option("--lora-targets", c.lora_targets,
                  "LoRA target matrices: attention (q, k, v, o; default) or all-linear")
      ->type_name("attention|all-linear")->group("Fine-tuning");
  sub->add_flag("--offload-optimizer", c.offload_optimizer,
                "ZeRO-Offload: master weights and optimizer states in CPU memory (shown as cpu_memory)")
      ->group("Training");
  sub->add_flag("--offload-params", c.offload_params,
                "ZeRO-Infinity: the 16-bit weights in CPU memory too (needs --zero 3; implies --offload-optimizer)")
      ->group("Training");
  sub->add_option("--zero-accounting", c.zero_accounting,
                  "paper (default; napkin's ledger) or deepspeed (DeepSpeed's estimate_zero2/3_model_states_mem_needs: "
                  "model states only, host memory per node x 1.5)")
      ->type_name("paper|deepspeed")->group("Training");
  c.dropout = add_activation_flags(sub, c.nf, c.act);
  add_training_memory_flags(sub, c.tm);
}

// The training layout: QLoRA, sequence parallelism, the model states' recipe, ZeRO over --dp, and
// the parallel degrees and pipeline schedule (Parallelism, Training).
void add_training_layout_options(CommandApp* sub, MemoryCmd& c) {
  sub->add_flag("--qlora", c.qlora, "QLoRA: frozen base in NF4 (4.127 bits/param), bf16 adapters")
      ->group("Fine-tuning");
  sub->add_flag("--sequence-parallel", c.sequence_parallel, "Megatron sequence parallelism (splits the rest of the "
                                                            "activations over --tp)")->group("Parallelism");
  sub->add_option("--precision", c.precision, "mixed (default: 2+2+4+8 B/param), fp32 or bf16")
      ->type_name("mixed|fp32|bf16")->group("Training");
  sub->add_option("--optimizer", c.optimizer, "adamw (default), adam-8bit, sgd, sgd-momentum, adafactor")
      ->type_name("NAME")->group("Training");
  sub->add_option("--grad-dtype", c.grad_dtype, "Gradient storage, overriding the precision recipe")
      ->type_name("DTYPE")->group("Training");
  sub->add_flag("--no-master-weights", c.no_master, "No separate FP32 master copy")->group("Training");
  sub->add_option("--zero", c.zero_text, "ZeRO stage 0-3 (3 = FSDP full sharding)")
      ->type_name("0-3")->group("Training");
  c.dp = c.nf.add(sub, "--dp", "dp", kCount, Constraint::positive_integer,
                  "Data-parallel GPUs the ZeRO stage shards over", "COUNT", 1.0);
  sub->get_option("--dp")->group("Parallelism");
  c.ep = c.nf.add(sub, "--ep", "ep", kCount, Constraint::positive_integer,
                  "Expert-parallel ranks for the routed experts of an MoE model, taken from --dp (default 1)",
                  "COUNT", 1.0);
  sub->get_option("--ep")->group("Parallelism");
  c.virtual_stages = c.nf.add(sub, "--virtual-stages", "virtual_stages", kCount, Constraint::positive_integer,
                              "Interleaved 1F1B: model chunks per pipeline stage (default 1, plain 1F1B)", "COUNT",
                              1.0);
  c.cp = c.nf.add(sub, "--cp", "cp", kCount, Constraint::positive_integer,
                  "Context-parallel GPUs each sequence is split over (default 1)", "COUNT", 1.0);
  c.recompute_layers = c.nf.add(sub, "--recompute-layers", "recompute_layers", kCount,
                                Constraint::non_negative_integer,
                                "Layers per stage fully recomputed, the rest as --recompute says (default 0)", "COUNT",
                                0.0);
  sub->get_option("--virtual-stages")->group("Parallelism");
  sub->get_option("--cp")->group("Parallelism");
  sub->get_option("--recompute-layers")->group("Training");
}

// The engine and its flags (llama.cpp's --flash-attention is add_activation_flags'), then Output.
void add_engine_and_output_options(CommandApp* sub, MemoryCmd& c) {
  add_engine_option(sub, c.engine);
  add_llamacpp_flags(sub, c.nf, c.llama, false, /*offload_flags=*/true);  // --flash-attention: add_activation_flags
  add_vllm_flags(sub, c.nf, c.vllm);
  add_sglang_flags(sub, c.nf, c.sglang);
  add_output_flags(sub, c.out);
}

// One configuration: its checks, in this order (a command line with two errors reports the first
// one's), then its sweep; the exit code.
int run_memory(CommandApp* sub, MemoryCmd& m) {
  MemoryPlan plan;
  reject_extras(sub);
  refuse_text_only_without_model(m.text_only, m.model);
  resolve_model_choice(m, plan);
  check_engine(sub, m, plan);
  check_flag_needs_table(sub, m, plan);
  check_serving_engines(sub, m, plan);
  check_lora_targets_have_rank(sub, m);
  resolve_storage_and_hardware(sub, m, plan);
  choose_solver(m, plan);
  check_zero_and_offload(sub, m, plan);
  load_model_and_storage(sub, m, plan);
  check_quantization(m, plan);
  check_training_flags(m, plan);
  SweepTally tally;
  const int code = run_sweep(sub, m.nf, m.out,
                             [&](const Point& p, ResultSet& rs) { memory_row(m, plan, p, rs, tally); });
  return sweep_exit_code(code, m, plan, tally);
}

// The callback: a comma list of models, GPUs, dtypes or engines compares them, one configuration
// at a time from the state the command line gave (run_choices).
int run_memory_choices(CommandApp* sub, MemoryCmd& c) {
  const MemoryCmd saved = c;
  const std::vector<ChoiceAxis> axes = {{"model", "MODEL", &c.model},
                                        {"hw", "--hw", &c.hw.arg},
                                        {"weights_dtype", "--weights-dtype", &c.weights_dtype},
                                        {"kv_dtype", "--kv-dtype", &c.kv_dtype},
                                        {"engine", "--engine", &c.engine},
                                        {"recompute", "--recompute", &c.recompute},
                                        {"loss", "--loss", &c.tm.loss},
                                        {"activation_accounting", "--activation-accounting", &c.tm.accounting},
                                        {"zero", "--zero", &c.zero_text}};
  return run_choices(axes, c.out, [&] { c = saved; }, [&] { return run_memory(sub, c); });
}

}  // namespace

void add_memory_command(CLI::App& app, int& exit_code) {
  auto* sub = add_command(app, "memory", "Does it fit? The memory ledger per GPU, its total and the fit verdict");
  auto c = std::make_shared<MemoryCmd>();
  add_model_options(sub, *c);
  add_inference_options(sub, *c);
  add_hardware_and_solver_options(sub, *c);
  add_training_options(sub, *c);
  add_training_layout_options(sub, *c);
  add_engine_and_output_options(sub, *c);
  sub->footer("Example: napkin memory llama-3.1-8b --batch 32 --context 8Ki --gpu-memory 80GiB\n"
              "         napkin memory model.gguf --engine llama.cpp --context 32Ki --kv-dtype q8_0 --hw rtx-4090\n"
              "         napkin memory qwen2.5-72b --weights-dtype int4 --group-size 128 --tp 2\n"
              "         napkin memory llama-3.1-70b --weights-dtype iq4_xs --context 32Ki\n"
              "         napkin memory llama-3.1-8b --train --seq 8Ki --zero 3 --dp 8 --recompute selective\n"
              "         napkin memory llama-3.1-70b --context 32Ki --gpu-memory 80GiB --min-gpus\n"
              "         napkin memory llama-3.1-70b --train --qlora --lora-rank 16 --seq 2048 --recompute full\n"
              "         napkin memory mixtral-8x7b --train --zero 1 --dp 8 --ep 8 --seq 4096 --recompute selective\n"
              "         napkin memory llama-3.1-70b --train --zero 3 --hw h100-sxm --recompute full --min-gpus\n"
              "         napkin memory --params 7.5B --train --zero 1 --dp 64\n"
              "         napkin memory --layers 32 --hidden 4096 --heads 32 --kv-heads 8 --ffn 14336 --vocab 128256\n"
              "         napkin memory llama-3.1-8b --engine vllm --hw h100-sxm --context 8Ki\n"
              "         napkin memory qwen3-32b --engine sglang --hw h100-sxm --tp 2 --context 32Ki");
  sub->callback([c, sub, &exit_code] { exit_code = run_memory_choices(sub, *c); });
}

}  // namespace napkin::cli
