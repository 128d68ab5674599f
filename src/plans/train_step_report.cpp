// The train command's step-model items and assumptions: the expected step time term by term, the
// tokens per second and MFU it gives (napkin/plans/train_step.h).
#include <string>

#include "napkin/plans/train.h"
#include "train_detail.h"

namespace napkin::train_detail {

using namespace units;

void step_items(const specs::ModelSpec* mp, const TrainInput& in, const TrainEstimate& r, ResultSet& out) {
  if (!r.step || mp == nullptr) return;
  const TrainStep& s = *r.step;
  const StageTime& st = s.stage;
  const double m = s.micro_batches;
  const double p = num(in.memory.pp), v = num(in.memory.virtual_stages);
  out.item("step_compute", "step: forward + backward", value(m * (st.forward + st.backward)),
           "m · (t_fwd + t_bwd), slowest stage", text("{} · ({} + {})", m, st.forward, st.backward));
  if (st.recompute > Seconds{})
    out.item("step_recompute", "step: recomputation", value(m * st.recompute), "m · t_recompute",
             text("{} · {}", m, st.recompute));
  if (st.dequantize > Seconds{})
    out.item("step_dequantize", "step: 4-bit base dequantized", value(m * st.dequantize), "m · t_dequant",
             text("{} · {}", m, st.dequantize));
  if (in.memory.tp.in(one) > 1.0)
    out.item("step_tp_comm", "step: TP collectives (exposed)", value(m * st.tp_comm), "m · t_TP",
             text("{} · {} (bus {})", m, st.tp_comm, s.tp_bus));
  if (in.memory.ep.in(one) > 1.0)
    out.item("step_ep_comm", "step: EP all-to-all", value(m * st.ep_comm), "m · t_EP",
             text("{} · {} (bus {})", m, st.ep_comm, s.ep_bus));
  if (in.memory.cp.in(one) > 1.0)
    out.item("step_cp_comm", "step: CP ring (exposed)", value(m * st.cp_comm), "m · max(0, t_ring − t_attention)",
             text("{} · {} (bus {})", m, st.cp_comm, s.cp_bus));
  if (p > 1.0) {
    out.item("step_p2p", "step: pipeline sends", value(m * st.p2p), "m · t_p2p", text("{} · {} (link {})", m, st.p2p, s.pp_bus));
    out.item("step_bubble", "step: pipeline bubble", value(s.bubble), "(p − 1)/v · τ",
             text("({} − 1)/{} · {}", p, v, st.total()));
  }
  if (st.contention > Seconds{})
    out.item("step_contention", "step: compute slowed by hidden TP/CP traffic", value(m * st.contention),
             "m · κ · t_hidden", text("{} · {}", m, st.contention));
  if (s.dp_contention > Seconds{})
    out.item("step_dp_contention", "step: compute slowed by hidden DP traffic", value(s.dp_contention),
             "κ · t_DP hidden", text("{}", s.dp_contention));
  if (s.dp_comm > Seconds{})
    out.item("step_dp_comm", "step: DP traffic (exposed)", value(s.dp_exposed), "t_DP not hidden by compute",
             text("{} of {} (bus {})", s.dp_exposed, s.dp_comm, s.dp_bus));
  out.item("step_optimizer", "step: optimizer update", value(s.optimizer), "owned params · state bytes / (η_bw · BW)",
           text("{}", s.optimizer));
  out.item("expected_micro_batch_time", "expected time per micro-batch", value(st.total()),
           "τ: forward + backward + recompute + exposed traffic + contention, slowest stage",
           text("{} + {} + {} + {} + {}", st.forward, st.backward, st.recompute,
                st.tp_comm + st.ep_comm + st.cp_comm + st.p2p + st.dequantize, st.contention));
  out.item("expected_step_time", "expected step time", value(s.step),
           "m·τ + (p−1)/v·τ + DP exposed + DP contention + optimizer",
           text("{} · {} + {} + {} + {} + {}", m, st.total(), s.bubble, s.dp_exposed, s.dp_contention, s.optimizer));
  out.item("expected_tokens_per_second", "expected tokens per second", value(r.expected_tokens_per_second),
           "B · s / step", text("{} · {} / {}", static_cast<double>(r.global_batch), in.memory.seq, s.step));
  out.item("expected_mfu", "expected MFU", value(r.expected_mfu), "C_model/token · tokens/s / (N_gpu · peak)",
           text("{} · {} / ({} · {})", r.model_flops / in.tokens, r.expected_tokens_per_second, r.gpus, *in.peak));
}

void step_assumptions(const specs::ModelSpec* mp, const TrainInput& in, const TrainEstimate& r, ResultSet& out) {
  if (!r.step || mp == nullptr) return;
  const TrainSpeedModel& sm = *in.speed;
  const TrainStep& s = *r.step;
  out.assume("step_model",
             text("expected step: serve's per-op model for each micro-batch (b = {}, s = {}) on the slowest stage ({} "
                  "of {}); backward 2× the GEMMs, 2.5× attention; 1F1B pipeline",
                  in.memory.micro_batch, in.memory.seq, s.slowest_stage + 1, in.memory.pp));
  out.assume("step_efficiency",
             text("GEMMs and attention at {} · η_c·n/(n + n½) of the peak (η_c = {}, n½ = {} tokens from {}; {}: "
                  "training's share, fitted on data/training/runs.csv), memory-bound ops at η_bw = {} of {}",
                  kTrainingComputeShare, sm.efficiency.compute, sm.efficiency.prefill_half, sm.efficiency_source,
                  kTrainingComputeShare, sm.efficiency.bandwidth, sm.memory_bandwidth));
  out.assume("step_links", text("links: {}; scale-up bus {} per GPU within {} GPUs, {} per GPU across (DP group: {} "
                                "rank(s) per domain, bus {})",
                                sm.links_source, sm.links.scale_up, sm.links.domain, sm.links.scale_out,
                                s.dp_bus_local, s.dp_bus));
  out.assume("step_overlap", text("TP collectives: {} of each pass's traffic pipelined behind its dense GEMMs, up to "
                                  "their time (--tp-comm-overlap); DP traffic hidden behind the backward (ZeRO-2: each "
                                  "micro-batch's reduce-scatter; ZeRO-3: each micro-batch) up to {} of it "
                                  "(--dp-comm-overlap); traffic hidden behind compute slows it by κ = {} of its time "
                                  "(the mean slowdown of overlapped compute, arXiv:2507.03114)",
                                  sm.tp_comm_overlap, sm.dp_comm_overlap, kOverlapSlowdown));
  out.assume("global_batch",
             r.global_batch_default
                 ? text("B = {} sequences = {} per step, m = {} micro-batches per pipeline (default: max(4Mi tokens, "
                        "1Ki tokens per GPU), rounded up to dp × micro-batch)",
                        static_cast<double>(r.global_batch), s.tokens_per_step, s.micro_batches)
                 : text("B = {} sequences = {} per step, m = {} micro-batches per pipeline",
                        static_cast<double>(r.global_batch), s.tokens_per_step, s.micro_batches));
  out.assume("step_leaves_out", text("the step model leaves out data loading, logging, checkpoints, stragglers and "
                                     "failures (Llama 3 405B lost about 10% of its time to interruptions)"));
}

}  // namespace napkin::train_detail
