// The expected step time of a training layout: see napkin/plans/train_step.h.
#include "napkin/plans/train_step.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/model/parallel.h"
#include "napkin/plans/serve.h"

namespace napkin {

using namespace units;

namespace {

constexpr double kActBytes = 2.0;  // bf16 activations and their gradients on the wire

// FlashAttention-2's backward runs five matmuls (S = QKᵀ, dP = dO·Vᵀ, dV = Pᵀ·dO, dQ = dS·K,
// dK = dSᵀ·Q) to the forward's two (Dao 2023, "FlashAttention-2", §3.1 algorithms 1 and 2).
constexpr double kAttentionBackward = 2.5;
// A GEMM's backward computes the input gradient and the weight gradient, each a GEMM of the
// forward's size (Narayanan et al. 2021, §5.1: "the backward pass requires double the number of
// FLOPs since we need to calculate the gradients with respect to both input and weight tensors").
constexpr double kGemmBackward = 2.0;
// QLoRA's NF4 base: 4 bits read, the bf16 copy written, per weight and GEMM call (Dettmers et al.
// 2023, §3: "we dequantize the storage data type to the computation data type to perform the
// forward and backward pass").
constexpr double kDequantBytes = 0.5 + 2.0;

bool is_outer(std::string_view name) { return name == "embedding" || name == "final_norm" || name == "lm_head"; }
bool is_expert(std::string_view name) { return name.substr(0, 8) == "experts_"; }

// The rows of an op's GEMM: the tokens, or one routed expert's share of them.
double op_rows(const specs::ModelSpec& m, const OpCost& o, double tokens, double ep) {
  if (!is_expert(o.name) || !m.moe.is_moe() || m.moe.n_experts <= 0) return tokens;
  return tokens * static_cast<double>(m.moe.experts_per_token) * ep / static_cast<double>(m.moe.n_experts);
}

struct Rates {
  FlopRate peak{};
  Bandwidth bw{};
  Efficiency e{};
  FlopRate attention_peak{};
  Seconds time(Flops c, Bytes q, double rows) const { return at(peak, c, q, rows); }
  Seconds attention(Flops c, Bytes q, double rows) const { return at(attention_peak, c, q, rows); }
  Seconds at(FlopRate r, Flops c, Bytes q, double rows) const {
    const double top = kTrainingComputeShare * e.compute;
    const double eta = rows > 0.0 ? top * rows / (rows + e.prefill_half) : top;
    return std::max(c / (eta * r), q / (e.bandwidth * bw));
  }
};

// Eager attention's score matrix through HBM, per element of b·a·s²: QKᵀ written (2 B), the
// softmax read and written (4 B), read again by A·V (2 B) forward; backward about twice that.
constexpr double kEagerScoreBytes = 8.0;

// A ring collective's latency as NCCL's own cost model counts it (src/graph/tuning.cc, baseLat and
// hwLat for the Ring algorithm with the Simple protocol, the one large messages use): 8.4 µs to
// launch, then 3.4 µs per step over NVLink and 9.6 µs per step that crosses the network. A
// reduce-scatter or all-gather over n ranks takes n − 1 steps, an all-reduce 2(n − 1); of a ring's
// steps, one per extra domain crosses the network.
constexpr double kRingBaseLatency = 8.4e-6, kNvlinkStepLatency = 3.4e-6, kNetStepLatency = 9.6e-6;

// Ranks of a group of `group` ranks placed `stride` apart that share one scale-up domain.
double local_ranks(const TrainLinks& l, double group, double stride) {
  return stride >= l.domain ? 1.0 : std::min(group, std::max(1.0, std::floor(l.domain / stride)));
}

Seconds ring_latency(const TrainLinks& l, double group, double stride, double passes) {
  if (group <= 1.0) return Seconds{};
  const double local = local_ranks(l, group, stride);
  const double domains = std::ceil(group / local);
  const double steps = group - 1.0, net = domains - 1.0;
  return (kRingBaseLatency + passes * ((steps - net) * kNvlinkStepLatency + net * kNetStepLatency)) * second;
}

// Megatron-LM's gradient buckets: max(40M, 1M · dp) parameters each
// (megatron/core/distributed/distributed_data_parallel.py: "bucket_size = max(40000000, 1000000 *
// self.intra_dp_cp_group.size())"); each bucket is one collective.
double buckets(double params, double dp) { return std::max(1.0, std::ceil(params / std::max(40e6, 1e6 * dp))); }

// Bus bandwidth of a ring over `group` ranks placed `stride` apart: inside one scale-up domain
// the link's, else each domain's n_local GPUs send over their own NICs: min(B_up, n_local · B_nic).
Bandwidth bus(const TrainLinks& l, double group, double stride) {
  const double local = local_ranks(l, group, stride);
  if (local >= group) return l.scale_up;
  return std::min(l.scale_up, local * l.scale_out);
}

LayerTimes layer_times(const specs::ModelSpec& m, const TrainStepInput& in, const ForwardCost& f, const Rates& r) {
  const TrainLayout& L = in.layout;
  const double cp = static_cast<double>(L.cp), ep = static_cast<double>(L.ep);
  const double tokens = static_cast<double>(L.micro_batch * L.seq) / cp;
  const bool lora = in.lora_rank > 0;
  LayerTimes t;
  for (const OpCost& o : f.layer_ops) {
    if (o.comm_bytes.in(byte) > 0.0) {
      t.tp_collectives += o.count;
      continue;
    }
    const Flops c = o.flops / cp;
    const Bytes q = o.bytes / cp;
    const double rows = op_rows(m, o, tokens, ep);
    Seconds fwd = r.time(c, q, rows);
    Seconds bwd{};
    if (o.name == "attention") {
      Flops ca = c;
      Bytes qa = q;
      if (!in.flash_attention) {
        // The whole s × s square computed (the causal half masked, not skipped), its scores in HBM.
        const double s = static_cast<double>(L.seq);
        ca = c * (s * s) / (s * (s + 1.0) / 2.0);
        qa = q + kEagerScoreBytes * static_cast<double>(L.micro_batch) * static_cast<double>(m.heads) /
                     static_cast<double>(L.tp) * s * s * static_cast<double>(m.layers) * byte;
      }
      // Under context parallelism the ring runs one attention kernel per step on a chunk of
      // s/(2·cp) queries of each sequence (Megatron-LM's load-balanced split): its rows set the
      // kernel's efficiency.
      const double kernel_rows = cp > 1.0 ? rows / 2.0 : rows;
      fwd = r.attention(ca, qa, kernel_rows);
      bwd = r.attention(kAttentionBackward * ca, 2.0 * qa, kernel_rows);
      t.attention_fwd += fwd;
      t.attention_bwd += bwd;
      t.selective += fwd;
    } else if (o.matmul) {
      // A frozen base (LoRA) computes the input gradient only.
      bwd = r.time((lora ? 1.0 : kGemmBackward) * c, 2.0 * q, rows);
      t.gemm_flops += c;
      if (!is_expert(o.name)) {
        t.gemm_fwd += fwd;
        t.gemm_bwd += bwd;
      }
    } else {
      bwd = r.time(2.0 * c, 2.0 * q, rows);
    }
    t.fwd += fwd;
    t.bwd += bwd;
  }
  return t;
}

// Two stages the model costs alike: the same layers (count and kind), ends and parameters. A
// balanced pipeline has at most four kinds of stage, however many stages.
bool alike(const specs::ModelSpec& m, const StageShard& a, const StageShard& b) {
  if (a.layers != b.layers || a.has_embedding != b.has_embedding || a.has_head != b.has_head ||
      a.params != b.params || a.expert_params != b.expert_params)
    return false;
  if (!m.moe.is_moe()) return true;
  for (std::int64_t k = 0; k < a.layers; ++k)
    if (m.is_moe_layer(a.first_layer + k) != m.is_moe_layer(b.first_layer + k)) return false;
  return true;
}

}  // namespace

std::vector<std::size_t> distinct_stages(const specs::ModelSpec& m, const std::vector<StageShard>& stages) {
  std::vector<std::size_t> kinds;
  for (std::size_t i = 0; i < stages.size(); ++i)
    if (i == 0 || !alike(m, stages[i], stages[i - 1])) kinds.push_back(i);
  return kinds;
}

ForwardCost forward_cost(const specs::ModelSpec& m, const TrainStepInput& in) {
  ServeInput s;
  s.batch = static_cast<double>(in.layout.micro_batch) * one;
  s.prompt = static_cast<double>(in.layout.seq) * one;
  s.generate = 1.0 * one;
  s.tp = static_cast<double>(in.layout.tp) * one;
  s.peak = in.peak;
  s.bandwidth = in.bandwidth;
  const PhaseCost pass = training_forward_pass(m, s);
  ForwardCost f;
  f.tp = in.layout.tp;
  f.micro_batch = in.layout.micro_batch;
  f.seq = in.layout.seq;
  for (std::int64_t l = 0; l < m.layers; ++l)
    if (m.layer_attention(l) != specs::LayerAttention::none) f.attending_layers += 1.0;
  for (const OpCost& o : pass.ops) {
    (is_outer(o.name) ? f.outer_ops : f.layer_ops).push_back(o);
    if (o.comm_bytes.in(byte) > 0.0 && o.count > 0.0) f.tp_bytes_per_layer = o.comm_bytes / o.count;
  }
  return f;
}

TrainStep train_step(const specs::ModelSpec& m, const ParamCount& c, const TrainStepInput& in) {
  return train_step(m, c, in, forward_cost(m, in));
}

TrainStep train_step(const specs::ModelSpec& m, const ParamCount& c, const TrainStepInput& in, const ForwardCost& f) {
  const TrainLayout& L = in.layout;
  require_positive(in.peak, "peak");
  require_positive(in.bandwidth, "bandwidth");
  if (L.global_batch % (L.dp * L.micro_batch) != 0)
    throw InputError("--global-batch", std::to_string(L.global_batch),
                     "a multiple of dp × micro-batch = " + std::to_string(L.dp) + " × " +
                         std::to_string(L.micro_batch) + " (every data-parallel rank runs whole micro-batches)");
  if (L.gpus() > 1 && !(in.links.scale_up.in(byte_per_s) > 0.0 && in.links.scale_out.in(byte_per_s) > 0.0))
    throw InputError("--system", "(none)", "a system preset or --intra-node-bandwidth and --inter-node-bandwidth "
                                           "(the links between the GPUs)");
  const Rates r{in.peak, in.bandwidth, in.efficiency, in.attention_peak.value_or(in.peak)};
  const double t = static_cast<double>(L.tp), pp = static_cast<double>(L.pp), cp = static_cast<double>(L.cp),
               dp = static_cast<double>(L.dp), ep = static_cast<double>(L.ep), vp = static_cast<double>(L.vp);
  const double layers = static_cast<double>(m.layers);
  const double tokens = static_cast<double>(L.micro_batch * L.seq) / cp;  // per GPU per micro-batch
  const double d = static_cast<double>(m.hidden);
  // The layers' times depend on the shape (f), cp, ep, the attention kernel and LoRA: kept in f.
  const std::array<std::int64_t, 4> key{L.cp, L.ep, in.flash_attention ? 1 : 0, in.lora_rank};
  auto hit = std::find_if(f.times.begin(), f.times.end(), [&](const auto& e) { return e.first == key; });
  if (hit == f.times.end()) {
    f.times.emplace_back(key, layer_times(m, in, f, r));
    hit = f.times.end() - 1;
  }
  const LayerTimes lt = hit->second;

  TrainStep st;
  st.micro_batches = static_cast<double>(L.global_batch / (L.dp * L.micro_batch));
  st.tokens_per_step = static_cast<double>(L.global_batch * L.seq) * token;
  st.tp_bus = bus(in.links, t, 1.0);
  st.cp_bus = bus(in.links, cp, t);
  const double ep_stride = L.etp > 0 ? static_cast<double>(L.etp) : t * cp;  // EP ranks' spacing
  st.ep_bus = bus(in.links, ep, ep_stride);
  st.pp_bus = bus(in.links, pp, t * cp * dp);
  st.dp_bus = bus(in.links, dp * cp, t);
  st.dp_bus_local = local_ranks(in.links, dp * cp, t);

  // Per-layer pieces every stage scales by its share of the layers.
  const Seconds tp_one = t > 1.0 ? 2.0 * (t - 1.0) / t * f.tp_bytes_per_layer / cp / st.tp_bus +
                                       ring_latency(in.links, t, 1.0, 2.0)
                                 : Seconds{};
  const double full = in.layout.recompute == Recompute::full ? 1.0 : in.full_recompute_fraction;
  Seconds policy_recompute{};  // the policy's rerun over every layer (the layers not fully recomputed)
  if (L.recompute == Recompute::selective) policy_recompute = lt.selective;
  if (L.recompute == Recompute::op_sac) policy_recompute = r.time(in.op_sac_flops_per_micro_batch / cp, Bytes{}, tokens);
  const Seconds recompute_all = full * lt.fwd + (1.0 - full) * policy_recompute;
  // TP collectives: exposed, or with --tp-comm-overlap (Transformer Engine's userbuffers, torchtitan's
  // async TP) that share of each pass's traffic pipelined behind the pass's dense GEMMs, up to their time.
  const Seconds tp_pass = tp_one * lt.tp_collectives;
  const Seconds tp_hidden_f = std::min(in.tp_comm_overlap * tp_pass, lt.gemm_fwd);
  const Seconds tp_hidden_b = std::min(in.tp_comm_overlap * tp_pass, lt.gemm_bwd);
  const Seconds tp_all = (1.0 + full) * (tp_pass - tp_hidden_f) + (tp_pass - tp_hidden_b);
  Seconds hidden_all = (1.0 + full) * tp_hidden_f + tp_hidden_b;  // traffic under compute, per micro-batch
  // EP all-to-all: dispatch and combine, forward and backward (and the recomputed forward).
  Seconds ep_layer{};
  if (ep > 1.0 && m.moe.is_moe()) {
    const double bytes = tokens * static_cast<double>(m.moe.experts_per_token) * d * kActBytes;
    const double local = local_ranks(in.links, ep, ep_stride);
    const Seconds inside = bytes * (local - 1.0) / ep * byte / in.links.scale_up;
    const Seconds outside = local < ep ? bytes * (ep - local) / ep * byte / in.links.scale_out : Seconds{};
    ep_layer = std::max(inside, outside) * (2.0 * (2.0 + full));
  }
  std::vector<StageShard> split;
  if (in.stages == nullptr)
    split = shard_stages(m, c, static_cast<double>(L.tp) * one, static_cast<double>(L.pp) * one,
                         static_cast<double>(L.ep) * one);
  const std::vector<StageShard>& stages = in.stages != nullptr ? *in.stages : split;
  // CP ring: K and V of the GPU's tokens passed cp − 1 times forward, twice that backward (the
  // gradients dK and dV return too). MLA's ring carries the decompressed per-head K and V.
  Seconds cp_exposed_all{};
  if (cp > 1.0) {
    const double kv_width = m.attention == specs::AttentionKind::mla
                                ? static_cast<double>(m.heads) / t *
                                      static_cast<double>(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim +
                                                          m.mla.v_head_dim)
                                : 2.0 * stages.front().kv_heads * static_cast<double>(m.head_dim);
    const double attending = f.attending_layers;
    const Seconds fwd = (cp - 1.0) * tokens * kv_width * kActBytes * byte / st.cp_bus +
                        ring_latency(in.links, cp, t, 1.0);
    const Seconds per_layer_fwd = attending > 0.0 ? lt.attention_fwd / attending : Seconds{};
    const Seconds per_layer_bwd = attending > 0.0 ? lt.attention_bwd / attending : Seconds{};
    cp_exposed_all = attending * (std::max(Seconds{}, fwd - per_layer_fwd) * (1.0 + full) +
                                  std::max(Seconds{}, 2.0 * fwd - per_layer_bwd));
    hidden_all += attending * (std::min(fwd, per_layer_fwd) * (1.0 + full) + std::min(2.0 * fwd, per_layer_bwd));
  }
  // QLoRA: the base dequantized before each GEMM of every pass.
  Seconds dequant_all{};
  if (in.qlora) {
    double base = 0;
    for (std::int64_t l = 0; l < m.layers; ++l) {
      const LayerParams lp = layer_params(m, c, l);
      base += static_cast<double>(lp.attention + lp.mlp + lp.shared + lp.routed);
    }
    dequant_all = base / t * kDequantBytes * (2.0 + full) * byte / (in.efficiency.bandwidth * in.bandwidth);
  }
  // Serve's per-pass overhead (kernel launches, per layer), for the forward, the backward and a rerun.
  const Seconds pass = in.efficiency.pass_overhead + layers * in.layer_overhead;
  const double reruns = full + (policy_recompute > Seconds{} ? 1.0 - full : 0.0);
  // Outer ops: the embedding on the first stage, the final norm, LM head and loss on the last.
  Seconds embed_fwd{}, embed_bwd{}, head_fwd{}, head_bwd{};
  for (const OpCost& o : f.outer_ops) {
    const Seconds fw = r.time(o.flops / cp, o.bytes / cp, tokens);
    const Seconds bw = r.time((o.matmul ? kGemmBackward : 2.0) * o.flops / cp, 2.0 * o.bytes / cp, tokens);
    (o.name == "embedding" ? embed_fwd : head_fwd) += fw;
    (o.name == "embedding" ? embed_bwd : head_bwd) += bw;
  }
  // P2P between stages: the activation forward and its gradient back, v times per micro-batch.
  const Seconds p2p =
      pp > 1.0 ? 2.0 * vp * (tokens * d * kActBytes / (L.sp ? t : 1.0) * byte / st.pp_bus + kRingBaseLatency * second)
               : Seconds{};

  // One stage of each run of stages alike: the others cost as it does.
  std::vector<std::size_t> own_kinds;
  if (in.stage_kinds == nullptr) own_kinds = distinct_stages(m, stages);
  const std::vector<std::size_t>& kinds = in.stage_kinds != nullptr ? *in.stage_kinds : own_kinds;
  Seconds tau{};
  thread_local std::vector<StageTime> times;  // per kind; kept between calls for its capacity
  times.assign(kinds.size(), StageTime{});
  std::size_t slowest = 0;
  for (std::size_t j = 0; j < kinds.size(); ++j) {
    const std::size_t i = kinds[j];
    const double share = static_cast<double>(stages[i].layers) / layers;
    StageTime& s = times[j];
    s.forward = share * (lt.fwd + pass) + (stages[i].has_embedding ? embed_fwd : Seconds{}) +
                (stages[i].has_head ? head_fwd : Seconds{});
    s.backward = share * (lt.bwd + pass) + (stages[i].has_embedding ? embed_bwd : Seconds{}) +
                 (stages[i].has_head ? head_bwd : Seconds{});
    s.recompute = share * (recompute_all + reruns * pass);
    s.tp_comm = share * tp_all;
    if (ep_layer > Seconds{}) {
      double moe_layers = 0;
      for (std::int64_t l = stages[i].first_layer; l < stages[i].first_layer + stages[i].layers; ++l)
        if (m.is_moe_layer(l)) moe_layers += 1.0;
      s.ep_comm = moe_layers * ep_layer;
    }
    s.cp_comm = share * cp_exposed_all;
    s.p2p = p2p;
    s.dequantize = share * dequant_all;
    s.contention = kOverlapSlowdown * share * hidden_all;
    if (s.total() > tau) {
      tau = s.total();
      slowest = j;
    }
  }
  st.slowest_stage = static_cast<std::int64_t>(kinds[slowest]);
  st.stage = times[slowest];
  st.pipeline = st.micro_batches * tau;
  // The bubble: p − 1 chunk times; uneven chunks (chunk_layers) at the slowest stage's largest chunk.
  const StageShard& slow = stages[static_cast<std::size_t>(st.slowest_stage)];
  const double chunk = vp > 1.0 && slow.layers > 0 && slow.layers % L.vp != 0
                           ? std::ceil(static_cast<double>(slow.layers) / vp) / static_cast<double>(slow.layers)
                           : 1.0 / vp;
  st.bubble = (pp - 1.0) * chunk * tau;

  // Data parallelism and the optimizer, per stage; the slowest sets the step's tail.
  const StateBytes sb = state_bytes(in.states);
  const double g = in.states.precision == Precision::mixed ? 4.0 : sb.gradients.in(byte / param);
  const double w = sb.weights.in(byte / param);
  const double n_d = dp * cp, n_e = std::max(1.0, dp * cp / ep);
  const Bandwidth bus_e = bus(in.links, n_e, t * cp * ep);
  Seconds tail{};
  for (std::size_t j = 0; j < kinds.size(); ++j) {
    const std::size_t i = kinds[j];
    const StageTime& s = times[j];
    double dense = stages[i].params - stages[i].expert_params, experts = stages[i].expert_params;
    if (in.lora_rank > 0) {
      dense = static_cast<double>(lora_params(m, in.lora_rank, in.lora_all_linear)) / t *
              static_cast<double>(stages[i].layers) / layers;
      experts = 0;
    }
    auto ring = [](double n, double params, double bytes, Bandwidth b) {
      return n > 1.0 ? (n - 1.0) / n * params * bytes * byte / b : Seconds{};
    };
    // Latency: one ring per bucket (ZeRO 0-2), per layer and collective (ZeRO-3's two gathers and
    // a reduce-scatter per micro-batch).
    const double calls_d = L.zero >= 3 ? 3.0 * static_cast<double>(stages[i].layers) : buckets(dense, n_d);
    const double calls_e = experts > 0.0 ? (L.zero >= 3 ? 3.0 * static_cast<double>(stages[i].layers) : buckets(experts, n_e))
                                         : 0.0;
    const Seconds lat = calls_d * ring_latency(in.links, n_d, t, 1.0) + calls_e * ring_latency(in.links, n_e, t * cp * ep, 1.0);
    Seconds comm{}, exposed{}, contention{};
    if (L.zero >= 3) {
      const Seconds per_mb =
          ring(n_d, dense, 2.0 * w + g, st.dp_bus) + ring(n_e, experts, 2.0 * w + g, bus_e) + lat;
      const Seconds hide = in.dp_comm_overlap * (s.forward + s.backward + s.recompute);
      comm = st.micro_batches * per_mb;
      exposed = st.micro_batches * std::max(Seconds{}, per_mb - hide) +
                (stages[i].layers > 0 ? per_mb / static_cast<double>(stages[i].layers) : Seconds{});
      contention = kOverlapSlowdown * st.micro_batches * std::min(per_mb, hide);
    } else {
      const double reduce = L.zero == 0 ? 2.0 : 1.0;  // all-reduce = reduce-scatter + all-gather
      // ZeRO-2 keeps only its shard of the gradients, so a step of m micro-batches reduces each
      // micro-batch's (Rajbhandari et al. 2020 §5.2: each layer's gradients are reduced to the rank
      // that owns them as the backward produces them; DeepSpeed's stage 2 does so in every backward of
      // a gradient-accumulation step); ZeRO 0-1 accumulate whole gradients and reduce once per step.
      const double reductions = L.zero == 2 ? st.micro_batches : 1.0;
      const Seconds grads_once = reduce * (ring(n_d, dense, g, st.dp_bus) + ring(n_e, experts, g, bus_e) + lat);
      const Seconds gather =
          L.zero == 0 ? Seconds{} : ring(n_d, dense, w, st.dp_bus) + ring(n_e, experts, w, bus_e) + lat;
      comm = reductions * grads_once + gather;
      const Seconds hide_b = in.dp_comm_overlap * (s.backward + s.recompute), hide_f = in.dp_comm_overlap * s.forward;
      exposed = reductions * std::max(Seconds{}, grads_once - hide_b) + std::max(Seconds{}, gather - hide_f);
      contention = kOverlapSlowdown * (reductions * std::min(grads_once, hide_b) + std::min(gather, hide_f));
    }
    // The update: each owned parameter's master weight and optimizer states read and written,
    // its gradient read and its working weight written.
    const double owned = L.zero >= 1 ? dense / n_d + experts / n_e : dense + experts;
    const double per_param = 2.0 * (sb.master_weights + sb.optimizer_states).in(byte / param) + g + w;
    const Seconds opt = owned * per_param * byte / (in.efficiency.bandwidth * in.bandwidth);
    if (j == 0 || exposed + contention + opt > tail) {
      tail = exposed + contention + opt;
      st.dp_comm = comm;
      st.dp_exposed = exposed;
      st.dp_contention = contention;
      st.optimizer = opt;
    }
  }
  st.step = st.pipeline + st.bubble + st.dp_exposed + st.dp_contention + st.optimizer;
  return st;
}

}  // namespace napkin
