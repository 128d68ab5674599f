// napkin serve MODEL: prefill time (time to first token), decode time per token, throughput and
// the bound of each phase from a per-kernel roofline, beside the per-GPU memory ledger and fit.
// Course notes 7.2, 7.4, 7.5; the model is described in include/napkin/plans/serve.h.
#include <map>
#include <memory>

#include "check_failure.h"
#include "choice_axes.h"
#include "command.h"
#include "engine_flags.h"
#include "engine_vllm_flags.h"
#include "flag_checks.h"
#include "hardware_option.h"
#include "model_arg.h"
#include "model_flags.h"
#include "napkin/engines/vllm.h"
#include "napkin/ground/check.h"
#include "napkin/ground/dtype.h"
#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "napkin/plans/serve.h"
#include "napkin/report/human_units.h"
#include "napkin/specs/efficiency.h"
#include "numeric_flags.h"
#include "output_flags.h"
#include "sweep_runner.h"
#include "weight_storage.h"

namespace napkin::cli {

namespace {

constexpr DimRt kCount = dim_rt<Count::dim>();
constexpr DimRt kSeconds = dim_rt<Seconds::dim>();

struct ServeCmd {
  std::string model;
  std::string as;  // --as FAMILY
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
  MadeUpModelFlags made_up;  // --layers --hidden ...: a made-up decoder instead of MODEL
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

}  // namespace

void add_serve_command(CLI::App& app, int& exit_code) {
  auto* sub = add_command(app, "serve", "Serving: time to first token, time per output token, tokens/s and the "
                                          "bound of each phase (per-kernel roofline), with the memory fit");
  auto c = std::make_shared<ServeCmd>();
  sub->add_option("MODEL", c->model, "A preset (napkin presets models), a config.json, a model directory or "
                                     "napkin model JSON")
      ->type_name("MODEL")
      ->group("Model");
  add_as_option(sub, c->as);
  c->made_up.add(sub, c->nf);
  sub->add_option("--weights-dtype", c->weights_dtype,
                  "Weight storage: bf16 (default), fp16, fp8, int8, int4, nf4, or a llama.cpp GGUF type (q4_k_m, q8_0, "
                  "iq4_xs, ...: llama-quantize's per-tensor types)")
      ->type_name("DTYPE")->group("Model");
  c->group = c->nf.add(sub, "--group-size", "group_size", kCount, Constraint::non_negative_integer,
                       "Quantization group size (one fp16 scale per group; 0 = none, the default)", "COUNT", 0.0);
  sub->get_option("--group-size")->group("Model");
  sub->add_flag("--quantize-all", c->quantize_all, "Quantize embeddings, LM head and norms too (kept in bf16 by default)")
      ->group("Model");
  sub->add_option("--kv-dtype", c->kv_dtype, "KV cache storage: bf16 (default), fp16, fp8, int8")
      ->type_name("DTYPE")->group("Model");
  c->batch = c->nf.add(sub, "--batch", "batch", kCount, Constraint::positive_integer,
                       "Concurrent sequences (default 1)", "COUNT", 1.0);
  c->prompt = c->nf.add(sub, "--prompt", "prompt", kCount, Constraint::positive_integer,
                        "Prompt tokens per sequence (default 1024)", "COUNT", 1024.0);
  c->generate = c->nf.add(sub, "--generate", "generate", kCount, Constraint::positive_integer,
                          "Generated tokens per sequence (default 256)", "COUNT", 256.0);
  for (const char* f : {"--batch", "--prompt", "--generate"}) sub->get_option(f)->group("Workload");
  c->tp = c->nf.add(sub, "--tp", "tp", kCount, Constraint::positive_integer, "Tensor-parallel GPUs (default 1)",
                    "COUNT", 1.0);
  sub->get_option("--tp")->group("Parallelism");
  add_hw_option(sub, c->hw);
  c->peak = c->nf.add(sub, "--peak", "peak", dim_rt<FlopRate::dim>(), Constraint::positive,
                      "Dense peak for the compute dtype, e.g. 989TFLOP/s (default: from --hw)", "FLOP/s");
  c->bandwidth = c->nf.add(sub, "--bandwidth", "bandwidth", dim_rt<Bandwidth::dim>(), Constraint::positive,
                           "Memory bandwidth, e.g. 3.35TB/s (default: from --hw)", "B/s");
  c->capacity = c->nf.add(sub, "--gpu-memory,--memory", "gpu_memory", dim_rt<Bytes::dim>(), Constraint::positive,
                          "Memory of one GPU for the fit verdict, e.g. 80GiB (default: from --hw)", "BYTES");
  c->link = c->nf.add(sub, "--link-bandwidth", "link_bandwidth", dim_rt<Bandwidth::dim>(), Constraint::positive,
                      "GPU-to-GPU bandwidth per direction for the TP all-reduce, e.g. 450GB/s (default: from --hw, "
                      "half the NVLink or PCIe bidirectional figure)", "B/s");
  sub->add_option("--compute-dtype", c->compute_dtype, "The dtype of the peak: bf16 (default; fp8 for fp8 weights when "
                                                       "the hardware has an fp8 peak; fp16 on hardware with no "
                                                       "published bf16 peak)")
      ->type_name("DTYPE")->group("Hardware");
  for (const char* f : {"--peak", "--bandwidth", "--gpu-memory", "--link-bandwidth"}) sub->get_option(f)->group("Hardware");
  c->overhead = c->nf.add(sub, "--launch-overhead", "launch_overhead", kSeconds, Constraint::non_negative,
                          "Per-kernel launch overhead from the CPU, the floor of each kernel's time (default 5us)",
                          "TIME", 5e-6);
  sub->add_flag("--cuda-graphs", c->cuda_graphs, "Decode replayed from a CUDA graph: one launch per step, "
                                                 "--graph-overhead per kernel");
  c->graph_overhead = c->nf.add(sub, "--graph-overhead", "graph_overhead", kSeconds, Constraint::non_negative,
                                "Per-kernel overhead inside a CUDA graph (default 1us)", "TIME", 1e-6);
  for (const char* f : {"--launch-overhead", "--cuda-graphs", "--graph-overhead"}) sub->get_option(f)->group("Launch");
  c->eff_bw = c->nf.add(sub, "--efficiency-bandwidth", "efficiency_bandwidth", kCount, Constraint::positive,
                        "Expected figures: the fraction of the bandwidth the engine reaches, 0 to 1 (default: the "
                        "efficiency profile of --engine on this hardware)", "RATIO");
  c->eff_compute = c->nf.add(sub, "--efficiency-compute", "efficiency_compute", kCount, Constraint::positive,
                             "Expected figures: the fraction of the dense peak reached on long prompts and large "
                             "batches, 0 to 1 (default: the profile's)", "RATIO");
  c->prefill_half = c->nf.add(sub, "--prefill-half-tokens", "prefill_half_tokens", kCount, Constraint::non_negative,
                              "Expected figures: tokens per pass at which half of --efficiency-compute is reached "
                              "(default: the profile's; 0 without a profile)", "COUNT");
  c->token_overhead = c->nf.add(sub, "--token-overhead", "token_overhead", kSeconds, Constraint::non_negative,
                                "Expected figures: the fixed cost of a forward pass (a decode step or the prefill), "
                                "instead of the launch floor (default: the profile's, per layer times the layers)",
                                "TIME");
  for (const char* f : {"--efficiency-bandwidth", "--efficiency-compute", "--prefill-half-tokens", "--token-overhead"})
    sub->get_option(f)->group("Expected speed");
  sub->add_flag("--per-op", c->per_op, "The per-op table (op, FLOP, bytes, intensity, bound, time) for prefill and "
                                       "decode")->group("Output");
  sub->add_flag("--require-fit", c->require_fit, "Exit 1 when the ledger does not fit the GPU memory")->group("Hardware");
  add_engine_option(sub, c->engine);
  add_llamacpp_flags(sub, c->nf, c->llama, true);
  c->vllm = add_vllm_flags(sub, c->nf);
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin serve llama-3.1-8b --hw h100-sxm --batch 1\n"
              "         napkin serve model.gguf --engine llama.cpp --hw rtx-4090 --prompt 4096 --kv-dtype q8_0\n"
              "         napkin serve llama-3-8b --hw rtx-4090 --weights-dtype q4_k_m\n"
              "         napkin serve llama-3.1-8b --hw h100-sxm --batch 1..512:x2 --prompt 128 --generate 128\n"
              "         napkin serve llama-3.1-70b --hw h100-sxm --tp 4 --batch 16 --per-op\n"
              "         napkin serve gpt2 --hw h100-sxm --cuda-graphs\n"
              "         napkin serve llama-3.1-8b --hw h100-sxm --engine vllm --prompt 7Ki --generate 1Ki\n"
              "         napkin serve --layers 32 --hidden 4096 --heads 32 --kv-heads 8 --ffn 14336 --vocab 128256 --hw h100-sxm");
  sub->callback([c, sub, &exit_code] {
    // A comma list of models, GPUs, dtypes or engines compares them: one configuration at a time
    // from the state the command line gave (run_choices).
    const ServeCmd saved = *c;
    const std::vector<ChoiceAxis> axes = {{"model", "MODEL", &c->model},
                                          {"hw", "--hw", &c->hw.arg},
                                          {"weights_dtype", "--weights-dtype", &c->weights_dtype},
                                          {"kv_dtype", "--kv-dtype", &c->kv_dtype},
                                          {"engine", "--engine", &c->engine}};
    exit_code = run_choices(axes, c->out, [&] { *c = saved; }, [&]() -> int {
      int exit_code = 0;
      reject_extras(sub);
      const std::string made_up = c->made_up.select(c->nf, c->model, c->as);
      if (made_up.empty() && c->model.empty())
        throw InputError("serve: give MODEL (a preset, config.json or model directory) or " + std::string(kMadeUpHint));
      const Engine engine = parse_engine(c->engine);
      const bool llamacpp = engine == Engine::llamacpp;
      check_engine_flags(sub, engine, {"--tp", "--quantize-all", "--link-bandwidth"});
      if (!llamacpp && c->llama.flash_attention)
        throw InputError("--flash-attention", "(given)", "--engine llama.cpp with it (a llama.cpp setting)");
      LlamaCppInput llama;
      Dtype kd = Dtype::bf16;
      if (llamacpp) {
        fill_llamacpp_input(sub, c->kv_dtype, c->llama, llama);
        kd = kv_read_dtype(llama.type_k, llama.type_v);
      } else {
        kd = parse_dtype(c->kv_dtype, "--kv-dtype");
      }
      const bool vllm = engine == Engine::vllm;
      check_vllm_flags(sub, vllm);
      WeightStorage storage;
      if (made_up.empty()) {
        c->spec = load_model(c->model, c->as);
        specs::refuse_encoder_decoder(c->spec, "serve");  // before the hardware flags it would ask for
        // The checkpoint's declared quantization, unless --weights-dtype says otherwise: the weights
        // read per step are those it stores.
        storage = weight_storage(sub, c->weights_dtype, c->model, c->spec, c->nf.flags()[c->group]);
      } else {
        refuse_gguf_weights(c->weights_dtype, "the made-up decoder");
        storage.dtype = parse_weights_dtype(c->weights_dtype);  // no checkpoint to declare another
      }
      const Dtype wd = storage.dtype;
      if (c->quantize_all && dtype_bits(wd) >= 16)
        throw InputError("--quantize-all", "(given)", "a quantized --weights-dtype with it: at " +
                                                          std::string(dtype_name(wd)) + " nothing is quantized");
      c->hw.load();
      // The compute dtype: bf16, or fp8 when the weights are fp8 and the hardware has an fp8 peak
      // (W8A8); int8/int4 weights are taken as weight-only quantization (bf16 matmuls).
      Dtype cd = Dtype::bf16;
      if (!c->compute_dtype.empty())
        cd = parse_dtype(c->compute_dtype, "--compute-dtype");
      else if ((wd == Dtype::fp8 || storage.stored_fp8) && (!c->hw.spec || c->hw.spec->peak(Dtype::fp8)))
        cd = Dtype::fp8;
      else if (c->hw.spec && !c->hw.spec->peak(Dtype::bf16) && c->hw.spec->peak(Dtype::fp16))
        cd = Dtype::fp16;  // no published bf16 rate (Apple GPUs): the fp16 one, stated as the compute dtype
      c->hw.require_given(c->nf.flags()[c->bandwidth], "--bandwidth", "memory bandwidth");
      c->hw.require_given(c->nf.flags()[c->peak], "--peak", "peak FLOP rate");
      if (c->hw.spec) {
        const auto peak = c->hw.spec->peak(cd);
        if (!peak && c->nf.flags()[c->peak].raw.empty())
          throw InputError("--hw", c->hw.arg, std::string("hardware with a published dense ") +
                                                  std::string(dtype_name(cd)) + " peak, or --peak, or --compute-dtype");
        if (peak) c->hw.fill(c->nf.flags()[c->peak], peak->in_base_units());
        c->hw.fill(c->nf.flags()[c->bandwidth], c->hw.spec->bandwidth.in_base_units());
        c->hw.fill(c->nf.flags()[c->capacity], c->hw.spec->memory.in_base_units());
        // vLLM sizes its pool from the total torch reports, a little below the driver's.
        if (vllm && c->hw.spec->memory_torch_total)
          c->hw.fill(c->nf.flags()[c->capacity], c->hw.spec->memory_torch_total->in_base_units());
        if (const auto link = c->hw.spec->link_bandwidth_per_direction())
          c->hw.fill(c->nf.flags()[c->link], link->in_base_units());
      }
      require_value(c->nf.flags()[c->peak], "a peak rate such as 989TFLOP/s");
      require_value(c->nf.flags()[c->bandwidth], "a bandwidth such as 3.35TB/s");
      // The link carries the TP all-reduce only: at --tp 1 (every value of a sweep) it changes nothing.
      if (const NumericFlag& link = c->nf.flags()[c->link]; !link.raw.empty()) {
        const NumericFlag& tp = c->nf.flags()[c->tp];
        bool any_tp = false;
        if (!tp.raw.empty()) {
          const Axis axis = parse_axis(tp);
          for (std::size_t i = 0; i < axis.size(); ++i) any_tp = any_tp || axis.at(i) > 1.0;
        }
        if (!any_tp)
          throw InputError("--link-bandwidth", link.raw, "--tp 2 or more with it (the link carries the TP all-reduce)");
      }
      if (c->require_fit && c->nf.flags()[c->capacity].raw.empty() && !c->nf.flags()[c->capacity].fallback)
        throw InputError("--require-fit", "(given)", "--gpu-memory or --hw (the capacity to check against)");
      if (vllm && c->nf.flags()[c->capacity].raw.empty() && !c->nf.flags()[c->capacity].fallback)
        throw InputError("--engine", "vllm", "--hw or --gpu-memory with it (the GPU memory vLLM sizes its pool from)");
      const std::string device = c->hw.spec ? c->hw.spec->name + " " + c->hw.spec->full_name : std::string();
      const ExpectedFlags expected(*c, c->engine, c->hw.spec ? c->hw.spec->device_class : std::string());
      std::string vllm_miss;  // the first row vLLM would refuse to start with
      bool all_fit = true;
      exit_code = run_sweep(sub, c->nf, c->out, [&](const Point& p, ResultSet& rs) {
        ServeInput in;
        in.weights_dtype = wd;
        in.group_size = p.get<Count>(c->group);
        in.scale_dtype = storage.scale_dtype;
        in.zero_points = storage.zero_points;
        in.quantize_all = c->quantize_all;
        in.experts_only = storage.experts_only;
        in.stored_weights = storage.stored;
        in.stored_source = storage.stored_source;
        in.stored_detail = storage.stored_detail;
        in.kv_dtype = kd;
        in.compute_dtype = cd;
        in.batch = p.get<Count>(c->batch);
        in.prompt = p.get<Count>(c->prompt);
        in.generate = p.get<Count>(c->generate);
        in.tp = p.get<Count>(c->tp);
        in.peak = p.get<FlopRate>(c->peak);
        in.bandwidth = p.get<Bandwidth>(c->bandwidth);
        in.link_bandwidth = p.maybe<Bandwidth>(c->link);
        in.capacity = p.maybe<Bytes>(c->capacity);
        in.launch_overhead = p.get<Seconds>(c->overhead);
        in.cuda_graphs = c->cuda_graphs;
        in.graph_overhead = p.get<Seconds>(c->graph_overhead);
        if (!made_up.empty()) c->made_up.build(p, c->spec);
        expected.fill(p, static_cast<double>(c->spec.layers), in);
        serve(c->spec, in, c->per_op, rs);
        if (llamacpp) {
          // One slot per sequence unless --parallel says more; each slot holds prompt + generated.
          LlamaCppInput li = llama;
          li.n_parallel = c->nf.flags()[c->llama.parallel].raw.empty() ? in.batch : p.get<Count>(c->llama.parallel);
          if (li.n_parallel < in.batch)
            throw InputError("--parallel", format_plain_number(li.n_parallel.in(units::one)),
                             "at least --batch slots (" + format_plain_number(in.batch.in(units::one)) + " sequences)");
          li.n_ctx = li.n_parallel.in(units::one) * (in.prompt + in.generate);
          li.n_ubatch = p.get<Count>(c->llama.ubatch);
          li.capacity = in.capacity;
          li.metal = c->hw.spec && c->hw.spec->device_class == "apple-silicon";
          llamacpp_ledger(li, c->spec, serve_memory_input(in), rs, true);
          if (const Item* f = rs.find("fits"); f != nullptr && !f->value.flag) all_fit = false;
          rs.assume("llamacpp_kv_reads", text("decode reads the KV cache at {} bits per element (the nearest napkin dtype "
                                              "to {}/{}); the ledger uses llama.cpp's block sizes",
                                              dtype_bits(kd), cache_type_name(llama.type_k),
                                              cache_type_name(llama.type_v)));
        } else if (vllm) {
          // vLLM's pool beside the serving estimate: the weights as the inference ledger holds them.
          const InferenceMemoryInput mi = serve_memory_input(in);
          VllmInput v = vllm_input(c->vllm, p, *in.capacity, device);
          v.context = mi.context;
          v.tp = in.tp;
          v.kv_dtype = kd;
          v.weights = inference_memory(c->spec, mi).weights;
          vllm_budget(c->spec, v, rs, /*ledger=*/false);
          if (!p.probing() && vllm_miss.empty()) vllm_miss = vllm_failure(vllm_budget(c->spec, v));
        }
        if (storage.declared) assume_declared_quantization(c->spec, rs);
        c->hw.assume(rs);
        if (!made_up.empty()) c->made_up.describe(c->nf, p, rs);
        if (!llamacpp)
          if (const Item* f = rs.find("fits"); f != nullptr && !f->value.flag) all_fit = false;
      });
      if (!vllm_miss.empty() && exit_code == 0) {
        report_check_failure("--engine vllm", vllm_miss);
        exit_code = 1;
      }
      if (c->require_fit && !all_fit && exit_code == 0) exit_code = 1;
      return exit_code;
    });
  });
}

}  // namespace napkin::cli
