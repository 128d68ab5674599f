// napkin serve MODEL: prefill time (time to first token), decode time per token, throughput and
// the bound of each phase from a per-kernel roofline, beside the per-GPU memory ledger and fit.
// Course notes 7.2, 7.4, 7.5; the model is described in include/napkin/plans/serve.h.
#include <map>
#include <memory>

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
#include "napkin/ground/check.h"
#include "napkin/ground/dtype.h"
#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "napkin/plans/serve.h"
#include "napkin/plans/serve_cost.h"
#include "napkin/report/human_units.h"
#include "napkin/specs/efficiency.h"
#include "numeric_flags.h"
#include "output_flags.h"
#include "serve_cost_flags.h"
#include "sweep_runner.h"
#include "weight_storage.h"

namespace napkin::cli {

namespace {

constexpr DimRt kCount = dim_rt<Count::dim>();
constexpr DimRt kSeconds = dim_rt<Seconds::dim>();

struct ServeCmd {
  std::string model;
  std::string as;  // --as FAMILY
  bool text_only = false;  // --text-only
  specs::ModelSpec spec;  // outlives the ResultSet, which points into it
  NumericFlags nf;
  std::size_t batch = 0, prompt = 0, generate = 0, tp = 0, group = 0, peak = 0, bandwidth = 0, capacity = 0,
              link = 0, overhead = 0, graph_overhead = 0, eff_bw = 0, eff_compute = 0, prefill_half = 0,
              token_overhead = 0;
  std::string weights_dtype = "bf16", kv_dtype = "bf16", compute_dtype;
  HardwareOption hw;
  std::string engine;   // --engine
  LlamaCppFlags llama;  // --v-dtype, --ubatch, --parallel, --swa-full, --(no-)flash-attention
  VllmFlags vllm;       // --gpu-memory-utilization, --max-num-batched-tokens, --max-num-seqs, --block-size
  SglangFlags sglang;   // --mem-fraction-static, --chunked-prefill-size, ... --sglang-version
  MadeUpModelFlags made_up;  // --layers --hidden ...: a made-up decoder instead of MODEL
  ServeCostFlags cost;       // --price-per-gpu-hour, --power, --pue, --price-per-kwh, --carbon-intensity
  bool quantize_all = false, cuda_graphs = false, per_op = false, require_fit = false;
  OutputOptions out;
};

// The expected figures' coefficients (napkin/plans/serve_expected.h): the efficiency profile of the
// engine on this class of hardware, each coefficient overridable by its flag; without a profile
// every coefficient needs its flag (refused at construction otherwise). The texts the rows point
// into are built once: the profile's, and the pass overhead's per layer count (a made-up
// decoder's --layers may sweep; map nodes stay put). Not copyable: rows point into it.
class ExpectedFlags {
 public:
  ExpectedFlags(const ServeCmd& c, const std::string& engine, const std::string& device_class)
      : c_(c), profile_(specs::efficiency_profile(engine.empty() ? "none" : engine, device_class)) {
    const std::string engine_name = engine.empty() ? std::string("none") : engine;
    const std::string hw_class =
        device_class.empty() ? std::string("hardware without a device class") : device_class + " hardware";
    any_flag_ = false;
    for (std::size_t i : {c.eff_bw, c.eff_compute, c.prefill_half, c.token_overhead})
      any_flag_ = any_flag_ || !flag(i).raw.empty();
    if (!profile_ && any_flag_)
      for (std::size_t i : {c.eff_bw, c.eff_compute, c.token_overhead})
        if (flag(i).raw.empty())
          throw InputError(flag(i).flag, "(not given)",
                           "a value: with no efficiency profile for --engine " + engine_name + " on " + hw_class +
                               ", the expected figures need all of --efficiency-bandwidth, --efficiency-compute "
                               "and --token-overhead");
    if (profile_)
      profile_text_ = "data/presets/efficiency/" + profile_->name + ".json, " + profile_->fitted_on;
    else
      profile_text_ = "no efficiency profile for --engine " + engine_name + " on " + hw_class +
                      " (data/presets/efficiency); give --efficiency-bandwidth, --efficiency-compute and "
                      "--token-overhead";
  }
  ExpectedFlags(const ExpectedFlags&) = delete;
  ExpectedFlags& operator=(const ExpectedFlags&) = delete;

  /// in.efficiency and in.efficiency_source for one row of a model of `layers` layers.
  void fill(const Point& p, double layers, ServeInput& in) const {
    ServeInput::EfficiencySource& src = in.efficiency_source;
    src.profile = profile_text_;
    if (!profile_ && !any_flag_) return;  // the bound only, and the row says why
    Efficiency e = profile_ ? profile_->for_layers(layers) : Efficiency{};
    if (!profile_) src.profile = "the flags' coefficients (no efficiency profile for this engine and hardware)";
    if (!flag(c_.eff_bw).raw.empty()) {
      e.bandwidth = p.get<Count>(c_.eff_bw).in(units::one);
      src.bandwidth = "η_bw from --efficiency-bandwidth";
    }
    if (!flag(c_.eff_compute).raw.empty()) {
      e.compute = p.get<Count>(c_.eff_compute).in(units::one);
      src.compute = "η_c from --efficiency-compute";
    }
    if (!flag(c_.prefill_half).raw.empty()) {
      e.prefill_half = p.get<Count>(c_.prefill_half).in(units::one);
      src.prefill_half = "n½ from --prefill-half-tokens";
    }
    if (!flag(c_.token_overhead).raw.empty()) {
      e.pass_overhead = p.get<Seconds>(c_.token_overhead);
      src.pass_overhead = "t_pass from --token-overhead";
    } else if (profile_) {
      std::string& t = overhead_texts_[layers];
      if (t.empty())
        t = "t_pass = " +
            (profile_->pass_overhead.in(units::second) > 0.0
                 ? report::human_value(value(profile_->pass_overhead)) + " + "
                 : std::string()) +
            format_plain_number(layers) + " layers · " + report::human_value(value(profile_->layer_overhead)) +
            " per layer, the " + profile_->name + " profile's";
      src.pass_overhead = t;
    }
    in.efficiency = e;
  }

 private:
  const NumericFlag& flag(std::size_t i) const { return c_.nf.flags()[i]; }
  const ServeCmd& c_;
  std::optional<specs::EfficiencyProfile> profile_;
  bool any_flag_ = false;
  std::string profile_text_;
  mutable std::map<double, std::string> overhead_texts_;
};


// Model: MODEL, --as, a made-up decoder, and how the weights and the KV cache are stored.
void add_model_options(CommandApp* sub, ServeCmd& c) {
  sub->add_option("MODEL", c.model, "A preset (napkin presets models), a config.json, a model directory or "
                                    "napkin model JSON")
      ->type_name("MODEL")
      ->group("Model");
  add_as_option(sub, c.as, c.text_only);
  c.made_up.add(sub, c.nf);
  sub->add_option("--weights-dtype", c.weights_dtype,
                  "Weight storage: bf16 (default), fp16, fp8, int8, int4, nf4, or a llama.cpp GGUF type (q4_k_m, q8_0, "
                  "iq4_xs, ...: llama-quantize's per-tensor types)")
      ->type_name("DTYPE")->group("Model");
  c.group = c.nf.add(sub, "--group-size", "group_size", kCount, Constraint::non_negative_integer,
                     "Quantization group size (one fp16 scale per group; 0 = none, the default)", "COUNT", 0.0);
  sub->get_option("--group-size")->group("Model");
  sub->add_flag("--quantize-all", c.quantize_all, "Quantize embeddings, LM head and norms too (kept in bf16 by default)")
      ->group("Model");
  sub->add_option("--kv-dtype", c.kv_dtype, "KV cache storage: bf16 (default), fp16, fp8, int8")
      ->type_name("DTYPE")->group("Model");
}

// Workload: the sequences, their prompts and the tokens generated.
void add_workload_options(CommandApp* sub, ServeCmd& c) {
  c.batch = c.nf.add(sub, "--batch", "batch", kCount, Constraint::positive_integer,
                     "Concurrent sequences (default 1)", "COUNT", 1.0);
  c.prompt = c.nf.add(sub, "--prompt", "prompt", kCount, Constraint::positive_integer,
                      "Prompt tokens per sequence (default 1024)", "COUNT", 1024.0);
  c.generate = c.nf.add(sub, "--generate", "generate", kCount, Constraint::positive_integer,
                        "Generated tokens per sequence (default 256)", "COUNT", 256.0);
  for (const char* f : {"--batch", "--prompt", "--generate"}) sub->get_option(f)->group("Workload");
}

// Parallelism (--tp), then Hardware: --hw, its figures one by one, and the compute dtype.
void add_parallelism_and_hardware_options(CommandApp* sub, ServeCmd& c) {
  c.tp = c.nf.add(sub, "--tp", "tp", kCount, Constraint::positive_integer, "Tensor-parallel GPUs (default 1)",
                  "COUNT", 1.0);
  sub->get_option("--tp")->group("Parallelism");
  add_hw_option(sub, c.hw);
  c.peak = c.nf.add(sub, "--peak", "peak", dim_rt<FlopRate::dim>(), Constraint::positive,
                    "Dense peak for the compute dtype, e.g. 989TFLOP/s (default: from --hw)", "FLOP/s");
  c.bandwidth = c.nf.add(sub, "--bandwidth", "bandwidth", dim_rt<Bandwidth::dim>(), Constraint::positive,
                         "Memory bandwidth, e.g. 3.35TB/s (default: from --hw)", "B/s");
  c.capacity = c.nf.add(sub, "--gpu-memory,--memory", "gpu_memory", dim_rt<Bytes::dim>(), Constraint::positive,
                        "Memory of one GPU for the fit verdict, e.g. 80GiB (default: from --hw)", "BYTES");
  c.link = c.nf.add(sub, "--link-bandwidth", "link_bandwidth", dim_rt<Bandwidth::dim>(), Constraint::positive,
                    "GPU-to-GPU bandwidth per direction for the TP all-reduce, e.g. 450GB/s (default: from --hw, "
                    "half the NVLink or PCIe bidirectional figure)", "B/s");
  sub->add_option("--compute-dtype", c.compute_dtype, "The dtype of the peak: bf16 (default; fp8 for fp8 weights when "
                                                      "the hardware has an fp8 peak; fp16 on hardware with no "
                                                      "published bf16 peak)")
      ->type_name("DTYPE")->group("Hardware");
  for (const char* f : {"--peak", "--bandwidth", "--gpu-memory", "--link-bandwidth"})
    sub->get_option(f)->group("Hardware");
}

// Launch: the per-kernel floor, and CUDA graphs with their own.
void add_launch_options(CommandApp* sub, ServeCmd& c) {
  c.overhead = c.nf.add(sub, "--launch-overhead", "launch_overhead", kSeconds, Constraint::non_negative,
                        "Per-kernel launch overhead from the CPU, the floor of each kernel's time (default 5us)",
                        "TIME", 5e-6);
  sub->add_flag("--cuda-graphs", c.cuda_graphs, "Decode replayed from a CUDA graph: one launch per step, "
                                                "--graph-overhead per kernel");
  c.graph_overhead = c.nf.add(sub, "--graph-overhead", "graph_overhead", kSeconds, Constraint::non_negative,
                              "Per-kernel overhead inside a CUDA graph (default 1us)", "TIME", 1e-6);
  for (const char* f : {"--launch-overhead", "--cuda-graphs", "--graph-overhead"})
    sub->get_option(f)->group("Launch");
}

// Expected speed: the coefficients of the expected figures, each overriding the profile's.
void add_expected_speed_options(CommandApp* sub, ServeCmd& c) {
  c.eff_bw = c.nf.add(sub, "--efficiency-bandwidth", "efficiency_bandwidth", kCount, Constraint::positive,
                      "Expected figures: the fraction of the bandwidth the engine reaches, 0 to 1 (default: the "
                      "efficiency profile of --engine on this hardware)", "RATIO");
  c.eff_compute = c.nf.add(sub, "--efficiency-compute", "efficiency_compute", kCount, Constraint::positive,
                           "Expected figures: the fraction of the dense peak reached on long prompts and large "
                           "batches, 0 to 1 (default: the profile's)", "RATIO");
  c.prefill_half = c.nf.add(sub, "--prefill-half-tokens", "prefill_half_tokens", kCount, Constraint::non_negative,
                            "Expected figures: tokens per pass at which half of --efficiency-compute is reached "
                            "(default: the profile's; 0 without a profile)", "COUNT");
  c.token_overhead = c.nf.add(sub, "--token-overhead", "token_overhead", kSeconds, Constraint::non_negative,
                              "Expected figures: the fixed cost of a forward pass (a decode step or the prefill), "
                              "instead of the launch floor (default: the profile's, per layer times the layers)",
                              "TIME");
  for (const char* f : {"--efficiency-bandwidth", "--efficiency-compute", "--prefill-half-tokens", "--token-overhead"})
    sub->get_option(f)->group("Expected speed");
}

// --per-op (Output) and --require-fit (Hardware), then the engine and its flags, then Output.
void add_engine_and_output_options(CommandApp* sub, ServeCmd& c) {
  sub->add_flag("--per-op", c.per_op, "The per-op table (op, FLOP, bytes, intensity, bound, time) for prefill and "
                                      "decode")->group("Output");
  sub->add_flag("--require-fit", c.require_fit, "Exit 1 when the ledger does not fit the GPU memory")
      ->group("Hardware");
  add_engine_option(sub, c.engine);
  add_llamacpp_flags(sub, c.nf, c.llama, true);
  // serve has no --context: its llama.cpp ledger sizes -c from the slots (llamacpp_row).
  if (CLI::Option* parallel = sub->get_option("--parallel"); sub->added(parallel))
    parallel->description("With --engine llama.cpp: llama-server's slots (-np) in the llama.cpp memory ledger, "
                          "each holding --prompt + --generate cells (-c = slots × (prompt + generate)); at least "
                          "--batch (default --batch, one slot per sequence). The speed figures decode --batch "
                          "sequences whatever it is");
  add_vllm_flags(sub, c.nf, c.vllm);
  add_sglang_flags(sub, c.nf, c.sglang);
  add_serve_cost_flags(sub, c.nf, c.cost);
  add_output_flags(sub, c.out);
}

// What one configuration (one run_choices turn) resolves before its sweep; the rows read it.
struct ServePlan {
  std::string made_up;  // the made-up decoder's flags as typed; empty with MODEL
  Engine engine = Engine::none;
  bool llamacpp = false, vllm = false;
  bool sglang = false;  // --engine sglang
  LlamaCppInput llama;
  Dtype kd = Dtype::bf16, wd = Dtype::bf16, cd = Dtype::bf16;
  WeightStorage storage;  // outlives the sweep: the rows refer to its strings
  std::string device;     // --hw's name and full name, for vLLM's row
  EngineTotal gpu_total;  // where an engine's GPU total came from
};

// What the sweep's rows leave for the exit code.
struct ServeTally {
  bool all_fit = true;
  std::string engine_miss;  // the first row the engine would refuse to start with (vLLM, llama.cpp)
  std::string_view engine_flag;  // "--engine vllm" or "--engine llama.cpp"
};

// MODEL or the made-up decoder; --engine and the flags it has no term for; the KV cache's dtype.
void choose_model_and_engine(CommandApp* sub, ServeCmd& c, ServePlan& plan) {
  plan.made_up = c.made_up.select(c.nf, c.model, c.as);
  if (plan.made_up.empty() && c.model.empty())
    throw InputError("serve: give MODEL (a preset, config.json or model directory) or " + std::string(kMadeUpHint));
  plan.engine = parse_engine(c.engine);
  plan.llamacpp = plan.engine == Engine::llamacpp;
  check_engine_flags(sub, plan.engine, {"--tp", "--quantize-all", "--link-bandwidth"});
  if (!plan.llamacpp && c.llama.flash_attention)
    throw InputError("--flash-attention", "(given)", "--engine llama.cpp with it (a llama.cpp setting)");
  if (plan.llamacpp) {
    fill_llamacpp_input(sub, c.kv_dtype, c.llama, plan.llama);
    plan.kd = kv_read_dtype(plan.llama.type_k, plan.llama.type_v);
  } else {
    plan.kd = parse_dtype(c.kv_dtype, "--kv-dtype");
  }
  plan.vllm = plan.engine == Engine::vllm;
  check_vllm_flags(sub, plan.vllm);
  plan.sglang = plan.engine == Engine::sglang;
  check_sglang_flags(sub, plan.sglang);
}

// MODEL's spec and how its weights are stored (the checkpoint's own, or --weights-dtype).
void load_model_and_storage(CommandApp* sub, ServeCmd& c, ServePlan& plan) {
  if (plan.made_up.empty()) {
    c.spec = load_model(c.model, c.as, c.text_only);
    specs::refuse_encoder_decoder(c.spec, "serve");  // before the hardware flags it would ask for
    // The checkpoint's declared quantization, unless --weights-dtype says otherwise: the weights
    // read per step are those it stores.
    plan.storage = weight_storage(sub, c.weights_dtype, c.model, c.spec, c.nf.flags()[c.group]);
  } else {
    refuse_gguf_weights(c.weights_dtype, "the made-up decoder");
    plan.storage.dtype = parse_weights_dtype(c.weights_dtype);  // no checkpoint to declare another
  }
  plan.wd = plan.storage.dtype;
  if (c.quantize_all && dtype_bits(plan.wd) >= 16)
    throw InputError("--quantize-all", "(given)", "a quantized --weights-dtype with it: at " +
                                                      std::string(dtype_name(plan.wd)) + " nothing is quantized");
}

// --hw loads; the compute dtype follows the weights and the hardware; the hardware's figures fill
// the flags not given, and the peak and the bandwidth have a value.
void resolve_hardware(ServeCmd& c, ServePlan& plan) {
  auto& flags = c.nf.flags();
  c.hw.load();
  // The compute dtype: bf16, or fp8 when the weights are fp8 and the hardware has an fp8 peak
  // (W8A8); int8/int4 weights are taken as weight-only quantization (bf16 matmuls).
  if (!c.compute_dtype.empty())
    plan.cd = parse_dtype(c.compute_dtype, "--compute-dtype");
  else if ((plan.wd == Dtype::fp8 || plan.storage.stored_fp8) && (!c.hw.spec || c.hw.spec->peak(Dtype::fp8)))
    plan.cd = Dtype::fp8;
  else if (c.hw.spec && !c.hw.spec->peak(Dtype::bf16) && c.hw.spec->peak(Dtype::fp16))
    plan.cd = Dtype::fp16;  // no published bf16 rate (Apple GPUs): the fp16 one, stated as the compute dtype
  c.hw.require_given(flags[c.bandwidth], "--bandwidth", "memory bandwidth");
  c.hw.require_given(flags[c.peak], "--peak", "peak FLOP rate");
  if (c.hw.spec) {
    const auto peak = c.hw.spec->peak(plan.cd);
    if (!peak && flags[c.peak].raw.empty())
      throw InputError("--hw", c.hw.arg, std::string("hardware with a published dense ") +
                                             std::string(dtype_name(plan.cd)) + " peak, or --peak, or --compute-dtype");
    if (peak) c.hw.fill(flags[c.peak], peak->in_base_units());
    c.hw.fill(flags[c.bandwidth], c.hw.spec->bandwidth.in_base_units());
    c.hw.fill(flags[c.capacity], c.hw.spec->memory.in_base_units());
    // The engines size their budgets from the total the CUDA runtime reports, a little below the
    // driver's.
    if (plan.vllm || plan.llamacpp || plan.sglang) plan.gpu_total = fill_engine_total(c.hw, flags[c.capacity]);
    if (const auto link = c.hw.spec->link_bandwidth_per_direction())
      c.hw.fill(flags[c.link], link->in_base_units());
  }
  require_value(flags[c.peak], "a peak rate such as 989TFLOP/s");
  require_value(flags[c.bandwidth], "a bandwidth such as 3.35TB/s");
  fill_serve_power(c.hw, c.nf, c.cost);
}

// --link-bandwidth needs a --tp above 1; --require-fit and vLLM need a capacity.
void check_link_and_capacity(const ServeCmd& c, ServePlan& plan) {
  const auto& flags = c.nf.flags();
  // The link carries the TP all-reduce only: at --tp 1 (every value of a sweep) it changes nothing.
  if (const NumericFlag& link = flags[c.link]; !link.raw.empty()) {
    const NumericFlag& tp = flags[c.tp];
    bool any_tp = false;
    if (!tp.raw.empty()) {
      const Axis axis = parse_axis(tp);
      for (std::size_t i = 0; i < axis.size(); ++i) any_tp = any_tp || axis.at(i) > 1.0;
    }
    if (!any_tp)
      throw InputError("--link-bandwidth", link.raw, "--tp 2 or more with it (the link carries the TP all-reduce)");
  }
  if (c.require_fit && flags[c.capacity].raw.empty() && !flags[c.capacity].fallback)
    throw InputError("--require-fit", "(given)", "--gpu-memory or --hw (the capacity to check against)");
  if (plan.vllm && flags[c.capacity].raw.empty() && !flags[c.capacity].fallback)
    throw InputError("--engine", "vllm", "--hw or --gpu-memory with it (the GPU memory vLLM sizes its pool from)");
  if (plan.sglang && flags[c.capacity].raw.empty() && !flags[c.capacity].fallback)
    throw InputError("--engine", "sglang", "--hw or --gpu-memory with it (the GPU memory SGLang sizes its pool from)");
  plan.device = c.hw.spec ? c.hw.spec->name + " " + c.hw.spec->full_name : std::string();
}

// The serving estimate's input at one sweep point.
ServeInput serve_input(const ServeCmd& c, const ServePlan& plan, const Point& p) {
  ServeInput in;
  in.weights_dtype = plan.wd;
  in.group_size = p.get<Count>(c.group);
  in.scale_dtype = plan.storage.scale_dtype;
  in.zero_points = plan.storage.zero_points;
  in.quantize_all = c.quantize_all;
  in.experts_only = plan.storage.experts_only;
  in.stored_weights = plan.storage.stored;
  in.stored_source = plan.storage.stored_source;
  in.stored_detail = plan.storage.stored_detail;
  in.kv_dtype = plan.kd;
  in.compute_dtype = plan.cd;
  in.batch = p.get<Count>(c.batch);
  in.prompt = p.get<Count>(c.prompt);
  in.generate = p.get<Count>(c.generate);
  in.tp = p.get<Count>(c.tp);
  in.peak = p.get<FlopRate>(c.peak);
  in.bandwidth = p.get<Bandwidth>(c.bandwidth);
  in.link_bandwidth = p.maybe<Bandwidth>(c.link);
  in.capacity = p.maybe<Bytes>(c.capacity);
  in.launch_overhead = p.get<Seconds>(c.overhead);
  in.cuda_graphs = c.cuda_graphs;
  in.graph_overhead = p.get<Seconds>(c.graph_overhead);
  return in;
}

// llama.cpp's ledger beside the serving estimate, and what its KV reads assume.
void llamacpp_row(const ServeCmd& c, const ServePlan& plan, const ServeInput& in, const Point& p, ResultSet& rs,
                  ServeTally& tally) {
  // One slot per sequence unless --parallel says more; each slot holds prompt + generated.
  LlamaCppInput li = plan.llama;
  li.n_parallel = c.nf.flags()[c.llama.parallel].raw.empty() ? in.batch : p.get<Count>(c.llama.parallel);
  if (li.n_parallel < in.batch)
    throw InputError("--parallel", format_plain_number(li.n_parallel.in(units::one)),
                     "at least --batch slots (" + format_plain_number(in.batch.in(units::one)) + " sequences)");
  li.n_ctx = li.n_parallel.in(units::one) * (in.prompt + in.generate);
  li.n_ubatch = p.get<Count>(c.llama.ubatch);
  li.build = llamacpp_build(c.llama, p);
  li.capacity = in.capacity;
  li.metal = c.hw.spec && c.hw.spec->device_class == "apple-silicon";
  llamacpp_ledger(li, c.spec, serve_memory_input(in), rs, true);
  if (li.capacity) assume_engine_total(plan.gpu_total, "llama.cpp", rs);
  if (const Item* f = rs.find("fits"); f != nullptr && !f->value.flag) tally.all_fit = false;
  if (!p.probing() && tally.engine_miss.empty()) {
    tally.engine_miss = llamacpp_failure(rs);
    tally.engine_flag = "--engine llama.cpp";
  }
  rs.assume("llamacpp_kv_reads", text("decode reads the KV cache at {} bits per element (the nearest napkin dtype "
                                      "to {}/{}); the ledger uses llama.cpp's block sizes",
                                      dtype_bits(plan.kd), cache_type_name(plan.llama.type_k),
                                      cache_type_name(plan.llama.type_v)));
}

// vLLM's pool beside the serving estimate: the weights as the inference ledger holds them. Notes
// the first row vLLM would refuse to start with.
void vllm_row(const ServeCmd& c, const ServePlan& plan, const ServeInput& in, const Point& p, ResultSet& rs,
              ServeTally& tally) {
  const InferenceMemoryInput mi = serve_memory_input(in);
  VllmInput v = vllm_input(c.vllm, p, *in.capacity, plan.device);
  v.context = mi.context;
  v.context_flag = "--prompt + --generate";
  v.tp = in.tp;
  v.pp = mi.pp;
  v.kv_dtype = plan.kd;
  v.weights = vllm_weights(c.spec, mi, v.arch).total();
  v.total_source = plan.gpu_total.source;
  v.users = in.batch;  // the batch decodes together: its requests share the pool at once
  v.users_flag = "--batch";
  vllm_budget(c.spec, v, rs, /*ledger=*/false);
  assume_engine_total(plan.gpu_total, "vLLM", rs);
  if (!p.probing() && tally.engine_miss.empty()) {
    tally.engine_miss = vllm_failure(vllm_budget(c.spec, v));
    tally.engine_flag = "--engine vllm";
  }
}

// SGLang's pool beside the serving estimate: the weights as the inference ledger holds them.
// Notes the first row SGLang would not serve a request of --prompt + --generate with.
void sglang_row(const ServeCmd& c, const ServePlan& plan, const ServeInput& in, const Point& p, ResultSet& rs,
                ServeTally& tally) {
  const InferenceMemoryInput mi = serve_memory_input(in);
  SglangInput s = sglang_input(c.sglang, p, *in.capacity, c.hw.has_figures() ? &*c.hw.spec : nullptr);
  s.context = mi.context;
  s.context_flag = "--prompt + --generate";
  s.tp = in.tp;
  s.kv_dtype = plan.kd;
  s.weights = inference_memory(c.spec, mi).weights;
  sglang_budget(c.spec, s, rs, /*ledger=*/false);
  assume_engine_total(plan.gpu_total, "SGLang", rs);
  if (!p.probing() && tally.engine_miss.empty()) {
    tally.engine_miss = sglang_failure(sglang_budget(c.spec, s));
    tally.engine_flag = "--engine sglang";
  }
}

// One sweep row: this point's model, the serving estimate, the engine's memory, the tally.
void serve_row(ServeCmd& c, const ServePlan& plan, const ExpectedFlags& expected, const Point& p, ResultSet& rs,
               ServeTally& tally) {
  ServeInput in = serve_input(c, plan, p);
  if (!plan.made_up.empty()) c.made_up.build(p, c.spec);
  expected.fill(p, static_cast<double>(c.spec.layers), in);
  serve(c.spec, in, c.per_op, rs);
  if (const ServeCostInput cost = serve_cost_input(c.nf, c.cost, p); cost.priced())
    serve_cost_items(in, napkin::serve(c.spec, in), cost, rs);
  if (plan.llamacpp)
    llamacpp_row(c, plan, in, p, rs, tally);
  else if (plan.vllm)
    vllm_row(c, plan, in, p, rs, tally);
  else if (plan.sglang)
    sglang_row(c, plan, in, p, rs, tally);
  if (plan.storage.declared) assume_declared_quantization(c.spec, rs);
  c.hw.assume(rs);
  if (!plan.made_up.empty()) c.made_up.describe(c.nf, p, rs);
  if (!plan.llamacpp)
    if (const Item* f = rs.find("fits"); f != nullptr && !f->value.flag) tally.all_fit = false;
}

// One configuration: its checks, in this order (a command line with two errors reports the first
// one's), then its sweep; the exit code.
int run_serve(CommandApp* sub, ServeCmd& c) {
  ServePlan plan;
  reject_extras(sub);
  refuse_text_only_without_model(c.text_only, c.model);
  choose_model_and_engine(sub, c, plan);
  load_model_and_storage(sub, c, plan);
  resolve_hardware(c, plan);
  check_link_and_capacity(c, plan);
  const ExpectedFlags expected(c, c.engine, c.hw.spec ? c.hw.spec->device_class : std::string());
  ServeTally tally;
  int exit_code = run_sweep(sub, c.nf, c.out,
                            [&](const Point& p, ResultSet& rs) { serve_row(c, plan, expected, p, rs, tally); });
  if (!tally.engine_miss.empty() && exit_code == 0) {
    report_check_failure(tally.engine_flag, tally.engine_miss);
    exit_code = 1;
  }
  if (c.require_fit && !tally.all_fit && exit_code == 0) exit_code = 1;
  return exit_code;
}

// The callback: a comma list of models, GPUs, dtypes or engines compares them, one configuration
// at a time from the state the command line gave (run_choices).
int run_serve_choices(CommandApp* sub, ServeCmd& c) {
  const ServeCmd saved = c;
  const std::vector<ChoiceAxis> axes = {{"model", "MODEL", &c.model},
                                        {"hw", "--hw", &c.hw.arg},
                                        {"weights_dtype", "--weights-dtype", &c.weights_dtype},
                                        {"kv_dtype", "--kv-dtype", &c.kv_dtype},
                                        {"engine", "--engine", &c.engine}};
  return run_choices(axes, c.out, [&] { c = saved; }, [&] { return run_serve(sub, c); });
}

}  // namespace

void add_serve_command(CLI::App& app, int& exit_code) {
  auto* sub = add_command(app, "serve", "Serving: time to first token, time per output token, tokens/s and the "
                                          "bound of each phase (per-kernel roofline), with the memory fit");
  auto c = std::make_shared<ServeCmd>();
  add_model_options(sub, *c);
  add_workload_options(sub, *c);
  add_parallelism_and_hardware_options(sub, *c);
  add_launch_options(sub, *c);
  add_expected_speed_options(sub, *c);
  add_engine_and_output_options(sub, *c);
  sub->footer("Example: napkin serve llama-3.1-8b --hw h100-sxm --batch 1\n"
              "         napkin serve model.gguf --engine llama.cpp --hw rtx-4090 --prompt 4096 --kv-dtype q8_0\n"
              "         napkin serve llama-3-8b --hw rtx-4090 --weights-dtype q4_k_m\n"
              "         napkin serve llama-3.1-8b --hw h100-sxm --batch 1..512:x2 --prompt 128 --generate 128\n"
              "         napkin serve llama-3.1-70b --hw h100-sxm --tp 4 --batch 16 --per-op\n"
              "         napkin serve gpt2 --hw h100-sxm --cuda-graphs\n"
              "         napkin serve llama-3.1-8b --hw h100-sxm --engine vllm --prompt 7Ki --generate 1Ki\n"
              "         napkin serve --layers 32 --hidden 4096 --heads 32 --kv-heads 8 --ffn 14336 --vocab 128256 --hw h100-sxm");
  sub->callback([c, sub, &exit_code] { exit_code = run_serve_choices(sub, *c); });
}

}  // namespace napkin::cli
