// train's step-model flags: see train_speed_flags.h.
#include "train_speed_flags.h"

#include <algorithm>
#include <cmath>

#include "napkin/ground/check.h"
#include "napkin/ground/dtype.h"
#include "napkin/ground/error.h"
#include "napkin/specs/efficiency.h"

namespace napkin::cli {

using namespace units;

namespace {


constexpr DimRt kBandwidth = dim_rt<Bandwidth::dim>();

}  // namespace

void add_train_speed_flags(CommandApp* sub, NumericFlags& nf, TrainSpeedFlags& f) {
  f.global_batch = nf.add(sub, "--global-batch", "global_batch", dim_rt<Count::dim>(), Constraint::positive_integer,
                          "Sequences per optimizer step for the step model (default max(4Mi tokens, 1Ki tokens per "
                          "GPU) / seq, rounded to dp × micro-batch)", "COUNT");
  sub->add_option("--system", f.system,
                  "System preset whose links join the GPUs (napkin presets systems; default: the --hw GPU's own "
                  "node, e.g. dgx-h100 for h100-sxm)")
      ->type_name("NAME");
  f.intra = nf.add(sub, "--intra-node-bandwidth", "intra_node_bandwidth", kBandwidth, Constraint::positive,
                   "Bus bandwidth of a ring collective per GPU inside the scale-up domain, each way (default: the "
                   "system's nccl-tests figure), e.g. 370GB/s", "B/s");
  f.inter = nf.add(sub, "--inter-node-bandwidth", "inter_node_bandwidth", kBandwidth, Constraint::positive,
                   "Network bandwidth of one node, each way, achieved (default: the system's NICs as measured), "
                   "e.g. 400GB/s", "B/s");
  f.tp_overlap = nf.add(sub, "--tp-comm-overlap", "tp_comm_overlap", dim_rt<Count::dim>(), Constraint::non_negative,
                        "The fraction of each pass's TP traffic pipelined behind its GEMMs, up to their time (default 0: "
                        "Megatron-LM's default; 1: Transformer Engine's userbuffers or torchtitan's async TP)", "RATIO", 0.0);
  f.dp_overlap = nf.add(sub, "--dp-comm-overlap", "dp_comm_overlap", dim_rt<Count::dim>(), Constraint::non_negative,
                        "The fraction of the backward that can hide DP gradient traffic (default 1: overlapped, as "
                        "Megatron-LM's --overlap-grad-reduce and FSDP do; 0: none)", "RATIO", 1.0);
  for (const char* flag : {"--global-batch", "--system", "--intra-node-bandwidth", "--inter-node-bandwidth",
                           "--tp-comm-overlap", "--dp-comm-overlap"})
    sub->get_option(flag)->group("Step model");
}

void resolve_train_speed(CommandApp* sub, const NumericFlags& nf, TrainSpeedFlags& f, const HardwareOption& hw,
                         bool architecture) {
  f.sys.reset();
  f.efficiency.reset();
  f.unavailable.clear();
  if (!architecture)
    f.unavailable = "a bare --params count has no layers to time";
  else if (!hw.has_figures())
    f.unavailable = "no --hw: the step model reads the GPU's memory bandwidth and efficiency";
  if (f.unavailable.empty()) {
    const auto profile = specs::efficiency_profile("none", hw.spec->device_class);
    if (!profile)
      f.unavailable = "no efficiency profile for " + hw.spec->name + " (" + hw.spec->device_class + ")";
    else {
      f.efficiency = profile->for_layers(0.0);
      f.layer_overhead = profile->layer_overhead;
      f.efficiency_source = "serve's profile data/presets/efficiency/" + profile->name + ".json";
    }
  }
  // A step-model flag where there is no step model changes nothing: refused.
  if (!f.unavailable.empty()) {
    for (const char* flag : {"--global-batch", "--system", "--intra-node-bandwidth", "--inter-node-bandwidth",
                             "--tp-comm-overlap", "--dp-comm-overlap"})
      if (sub->get_option(flag)->count() > 0)
        throw InputError(flag, "(given)", "the step model, which needs a MODEL and --hw (" + f.unavailable + ")");
    return;
  }
  const std::string name = !f.system.empty() ? f.system : specs::default_system_for(hw.spec->name).value_or("");
  if (!name.empty()) {
    f.sys = specs::load_system(name);
    if (!f.system.empty() && f.sys->gpu != hw.spec->name)
      throw InputError("--system", f.system,
                       "a system of " + hw.spec->name + " GPUs (" + f.sys->name + " holds " + f.sys->gpu +
                           "; give --intra-node-bandwidth and --inter-node-bandwidth for another machine)");
  }
  const bool intra = !nf.flags()[f.intra].raw.empty(), inter = !nf.flags()[f.inter].raw.empty();
  if (f.sys) {
    const specs::SystemSpec& y = *f.sys;
    f.links_source = "system " + y.name + (f.system.empty() ? " (the default for " + hw.spec->name + ")" : "") + ", " +
                     std::to_string(static_cast<int>(y.gpus_per_node)) + " GPUs per node";
    f.links_source += intra ? "; scale-up as given"
                            : y.measured_scale_up_ring ? "; scale-up: nccl-tests ring busbw"
                                                       : "; scale-up: 82% of the line rate (NCCL's protocol overhead)";
    f.links_source += inter ? "; network as given"
                            : y.measured_scale_out_per_nic ? "; network: NICs at their measured NCCL rate"
                                                           : "; network: 94% of the NICs' line rate";
  } else {
    f.links_source = "no system preset for " + hw.spec->name + std::string(intra ? "; scale-up as given" : "; scale-up: "
                     "82% of the GPU's link rate") + (inter ? "; network as given" : "; no network figure");
  }
}

void fill_train_speed(const TrainSpeedFlags& f, const HardwareOption& hw, const Point& p, TrainInput& in) {
  if (p.has(f.global_batch)) in.global_batch = p.get<Count>(f.global_batch);
  if (!f.efficiency) return;
  TrainSpeedModel s;
  s.memory_bandwidth = hw.spec->bandwidth;
  s.efficiency = *f.efficiency;
  s.layer_overhead = f.layer_overhead;
  if (in.peak_dtype != "bf16" && in.peak_dtype != "fp16") {
    // Low-precision GEMMs (FP8, FP4): attention still computes in bf16 (Transformer Engine's fused attention).
    if (const auto bf16 = hw.spec->peak(Dtype::bf16)) s.attention_peak = *bf16;
  }
  s.tp_comm_overlap = p[f.tp_overlap];
  s.dp_comm_overlap = p[f.dp_overlap];
  for (const auto& [v, flag] : {std::pair{s.tp_comm_overlap, "--tp-comm-overlap"}, {s.dp_comm_overlap, "--dp-comm-overlap"}})
    if (!(v >= 0.0 && v <= 1.0)) throw InputError(flag, format_plain_number(v), "a fraction in [0, 1]");
  s.efficiency_source = f.efficiency_source;
  s.links_source = f.links_source;
  const auto intra = p.maybe<Bandwidth>(f.intra), inter = p.maybe<Bandwidth>(f.inter);
  if (f.sys) {
    const specs::SystemSpec& y = *f.sys;
    s.links.domain = y.scale_up_domain;
    s.links.scale_up = y.ring_bus();
    s.links.scale_out = y.network_per_gpu();
  } else if (const auto link = hw.spec->link_bandwidth_per_direction()) {
    s.links.scale_up = specs::kRingEfficiency * *link;
  }
  if (intra) s.links.scale_up = *intra;
  if (inter) s.links.scale_out = *inter / (f.sys ? f.sys->gpus_per_node : s.links.domain);
  const double gpus = in.gpus ? in.gpus->in(one)
                              : in.memory.tp.in(one) * in.memory.pp.in(one) * in.memory.cp.in(one) *
                                    (in.dp ? in.dp->in(one) : 1.0);
  const bool links = s.links.scale_up.in(byte_per_s) > 0.0 && s.links.scale_out.in(byte_per_s) > 0.0;
  if (gpus > 1.0 && !links) return;  // assume_no_step_model says why
  in.speed = s;
}

void assume_no_step_model(const TrainSpeedFlags& f, const TrainInput& in, ResultSet& rs) {
  if (in.speed) return;
  rs.assume("step_model", text("no step model: {}; the default MFU times the run",
                               f.unavailable.empty() ? std::string_view("no links for a multi-GPU layout (no system "
                                                                        "preset for this GPU: give --system, or "
                                                                        "--intra-node-bandwidth and --inter-node-bandwidth)")
                                                     : std::string_view(f.unavailable)));
}

}  // namespace napkin::cli
