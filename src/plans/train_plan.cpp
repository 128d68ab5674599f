// The training planner: see napkin/plans/train_plan.h.
#include "napkin/plans/train_plan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/model/parallel.h"
#include "napkin/model/params.h"

namespace napkin {

using namespace units;

namespace {

// Better: more tokens per second; on a tie (within 0.01%), more memory headroom, then the simpler layout.
bool better(const PlannedLayout& a, const PlannedLayout& b) {
  const double x = a.tokens_per_second.in_base_units(), y = b.tokens_per_second.in_base_units();
  if (std::fabs(x - y) > 1e-4 * std::max(x, y)) return x > y;  // 0.01%: far inside the model's error
  const double ha = a.headroom.in_base_units(), hb = b.headroom.in_base_units();
  if (std::fabs(ha - hb) > 1e6) return ha > hb;  // a megabyte: rounding apart, the same ledger
  // Still tied: the simpler layout, fewer GPUs per model replica, then fewer pipeline stages.
  const auto replica = [](const TrainLayout& l) { return l.tp * l.pp * l.cp; };
  if (replica(a.layout) != replica(b.layout)) return replica(a.layout) < replica(b.layout);
  return a.layout.pp < b.layout.pp;
}

// The virtual stages the search tries at a split: equal chunks on every stage, or Megatron-Bridge's
// embedding and loss accounting (account_for_embedding_in_pipeline_split and
// account_for_loss_in_pipeline_split: the embedding and the loss each take one layer's slot, so the
// first stage's first chunk and the last stage's last chunk hold one layer fewer than the rest).
// chunk_layers gives a stage of L layers L mod v chunks of ⌊L/v⌋ + 1 and the rest of ⌊L/v⌋, the
// lighter first on the embedding's stage and last elsewhere: the form holds when every chunk is the
// widest, but for one lighter chunk on the first or the last stage (its slot).
bool searched_vp(const std::vector<StageShard>& stages, std::int64_t v) {
  std::int64_t widest = 0;
  for (const StageShard& st : stages) widest = std::max(widest, st.layers / v + (st.layers % v > 0 ? 1 : 0));
  for (const StageShard& st : stages) {
    const std::int64_t base = st.layers / v, heavy = st.layers % v;
    const bool ok = heavy == 0 ? base == widest
                               : base + 1 == widest && v - heavy == 1 && (st.has_embedding || st.has_head);
    if (!ok) return false;
  }
  return true;
}

// The split the search gives pp stages when the layers do not divide and the run gives no stage
// flags: Megatron-Bridge's accounting, the first and last stages one layer short, where (L + 2)
// divides by pp; 0 otherwise (napkin's default split).
std::int64_t accounted_end_layers(std::int64_t layers, std::int64_t pp) {
  if (pp < 3 || layers % pp == 0 || (layers + 2) % pp != 0) return 0;
  return (layers + 2) / pp - 1;
}

bool same_parallel_layout(const TrainLayout& a, const TrainLayout& b) {
  return a.tp == b.tp && a.pp == b.pp && a.cp == b.cp && a.dp == b.dp && a.ep == b.ep && a.vp == b.vp;
}

// The best `keep` parallel layouts, one entry each: a layout's best ZeRO stage, recomputation and
// micro-batch stands for it.
void keep_best(std::vector<PlannedLayout>& ranked, const PlannedLayout& p, std::size_t keep) {
  const auto same = std::find_if(ranked.begin(), ranked.end(),
                                 [&](const PlannedLayout& r) { return same_parallel_layout(r.layout, p.layout); });
  if (same != ranked.end()) {
    if (!better(p, *same)) return;
    ranked.erase(same);
  }
  if (ranked.size() == keep && !better(p, ranked.back())) return;
  const auto at = std::upper_bound(ranked.begin(), ranked.end(), p,
                                   [](const PlannedLayout& a, const PlannedLayout& b) { return better(a, b); });
  ranked.insert(at, p);
  if (ranked.size() > keep) ranked.pop_back();
}

}  // namespace

TrainInput planned_input(const TrainPlanInput& in, const TrainLayout& l) {
  TrainInput r = in.run;
  r.gpus = static_cast<double>(l.gpus()) * one;
  r.dp = static_cast<double>(l.dp) * one;
  r.memory.tp = static_cast<double>(l.tp) * one;
  r.memory.pp = static_cast<double>(l.pp) * one;
  r.memory.cp = static_cast<double>(l.cp) * one;
  r.memory.ep = static_cast<double>(l.ep) * one;
  r.memory.virtual_stages = static_cast<double>(l.vp) * one;
  if (l.first_stage_layers > 0) r.memory.first_stage_layers = static_cast<double>(l.first_stage_layers) * one;
  if (l.last_stage_layers > 0) r.memory.last_stage_layers = static_cast<double>(l.last_stage_layers) * one;
  r.memory.recompute = l.recompute;
  r.memory.recompute_layers = Count{};
  r.memory.micro_batch = static_cast<double>(l.micro_batch) * one;
  r.memory.sequence_parallel = l.sp;
  r.memory.states.zero_stage = l.zero;
  r.global_batch = static_cast<double>(l.global_batch) * one;
  return r;
}

TrainPlan plan_train(const specs::ModelSpec& m, const TrainPlanInput& in) {
  if (!in.run.speed || !in.run.peak || !in.run.memory.capacity)
    throw InputError("plan train: the step model needs --hw (a GPU with a peak, memory and a system)");
  require_positive_integer(static_cast<double>(in.gpus) * one, "gpus");
  const ParamCount c = count_params(m);
  const TrainSpeedModel& sm = *in.run.speed;
  const std::int64_t seq = static_cast<std::int64_t>(in.run.memory.seq.in(one));
  const double gpus = static_cast<double>(in.gpus);
  const bool batch_given = in.run.global_batch.has_value();
  const double b0 = batch_given ? in.run.global_batch->in(one)
                                : std::ceil(std::max(kDefaultStepTokens, kDefaultStepTokensPerGpu * gpus) /
                                            static_cast<double>(seq));
  const auto domain = static_cast<std::int64_t>(sm.links.domain);
  const std::vector<std::int64_t> tps = in.tp ? std::vector<std::int64_t>{*in.tp}
                                              : tp_degrees(m, in.max_tp > 0 ? in.max_tp : std::max<std::int64_t>(1, domain));
  std::vector<std::int64_t> cps{1};
  if (!m.moe.is_moe() && in.run.memory.flash_attention)  // ring attention runs in fused kernels
    for (std::int64_t cp = 2; cp <= in.max_cp && seq % (2 * cp) == 0; cp *= 2) cps.push_back(cp);
  if (in.cp) cps = {*in.cp};
  std::vector<Recompute> rcs{Recompute::none, Recompute::selective, Recompute::full};
  if (in.recompute) rcs = {*in.recompute};
  std::vector<std::int64_t> mbs;
  for (std::int64_t mb = 1; mb <= in.max_micro_batch; mb *= 2) mbs.push_back(mb);
  if (in.micro_batch) mbs = {*in.micro_batch};
  const std::int64_t max_pp = std::min<std::int64_t>(m.layers, in.max_pp > 0 ? in.max_pp : m.layers);

  TrainStepInput x;  // the step model's input, the layout filled in per layout
  x.peak = *in.run.peak;
  x.bandwidth = sm.memory_bandwidth;
  x.links = sm.links;
  x.efficiency = sm.efficiency;
  x.layer_overhead = sm.layer_overhead;
  x.attention_peak = sm.attention_peak;
  x.flash_attention = in.run.memory.flash_attention;
  x.tp_comm_overlap = sm.tp_comm_overlap;
  x.dp_comm_overlap = sm.dp_comm_overlap;
  x.states = in.run.memory.states;
  x.lora_rank = static_cast<std::int64_t>(in.run.memory.lora_rank.in(one));
  x.lora_all_linear = in.run.memory.lora_all_linear;
  x.qlora = in.run.memory.qlora;
  TrainingMemoryInput mi = in.run.memory;
  mi.counts = &c;
  mi.recompute_layers = Count{};
  std::map<std::pair<std::int64_t, std::int64_t>, ForwardCost> forward;  // by (tp, micro-batch)

  TrainPlan plan;
  std::optional<InputError> first_refusal;  // why the constraints admit no layout, when none is timed
  for (const std::int64_t tp : tps) {
    for (const std::int64_t cp : cps) {
      if (in.gpus % (tp * cp) != 0) continue;
      for (std::int64_t pp = 1; pp <= max_pp; ++pp) {
        if (in.pp && pp != *in.pp) continue;
        if (in.gpus % (tp * cp * pp) != 0) continue;
        const std::int64_t dp = in.gpus / (tp * cp * pp);
        // EP: ranks taken from the data-parallel ones (etp = tp, Megatron-Core's default), or with
        // --etp the ep · etp expert ranks laid over the stage's tp · cp · dp ranks.
        const std::int64_t etp = in.run.memory.etp ? static_cast<std::int64_t>(in.run.memory.etp->in(one)) : 0;
        const std::int64_t expert_ranks = etp > 0 ? tp * cp * dp / etp : dp;
        std::vector<std::int64_t> eps{1};
        if (m.moe.is_moe())
          for (std::int64_t e = 2; e <= std::min<std::int64_t>(expert_ranks, m.moe.n_experts); ++e)
            if (m.moe.n_experts % e == 0 && (etp > 0 ? (tp * cp * dp) % (e * etp) == 0 : dp % e == 0))
              eps.push_back(e);
        if (in.ep) eps = {*in.ep};
        for (const std::int64_t ep : eps) {
          ShardLayout split = training_shard_layout(in.run.memory);  // the run's --etp and stage flags
          split.tp = static_cast<double>(tp) * one;
          split.pp = static_cast<double>(pp) * one;
          split.ep = static_cast<double>(ep) * one;
          const bool stage_flags = split.first_stage_layers || split.last_stage_layers;
          const std::int64_t ends = stage_flags ? 0 : accounted_end_layers(m.layers, pp);
          if (ends > 0) split.first_stage_layers = split.last_stage_layers = static_cast<double>(ends) * one;
          std::vector<StageShard> stages;
          try {
            stages = shard_stages(m, c, split);
          } catch (const InputError& e) {
            if (!first_refusal) first_refusal = e;
            continue;  // a split the stage flags do not admit at this pp
          }
          const std::vector<std::size_t> kinds = distinct_stages(m, stages);
          std::vector<std::int64_t> vps{1};
          if (pp > 1)
            for (std::int64_t v = 2; v <= (in.max_vp > 0 ? in.max_vp : m.layers); ++v)
              if (searched_vp(stages, v)) vps.push_back(v);
          if (in.vp) vps = {*in.vp};
          std::vector<int> zeros{0};
          if (dp * cp > 1) zeros = {0, 1, 2, 3};
          if (in.zero) zeros = {*in.zero};
          for (const std::int64_t mb : mbs) {
            double b = b0;
            const double per_step = static_cast<double>(dp * mb);
            if (per_step > b0) continue;  // not one micro-batch per rank in the run's global batch
            if (std::fmod(b, per_step) != 0.0) {
              if (batch_given) continue;
              b = std::ceil(b / per_step) * per_step;
            }
            auto f = forward.find({tp, mb});
            if (f == forward.end()) {
              x.layout.tp = tp;
              x.layout.micro_batch = mb;
              x.layout.seq = seq;
              f = forward.emplace(std::make_pair(tp, mb), forward_cost(m, x)).first;
            }
            for (const std::int64_t vp : vps)
              for (const int zero : zeros)
                for (const Recompute rc : rcs) {
                  PlannedLayout p;
                  TrainLayout& l = p.layout;
                  l = TrainLayout{tp, pp, dp, cp, ep, vp, zero, tp > 1, rc, 0, mb, static_cast<std::int64_t>(b), seq,
                                  ends, ends, etp};
                  x.layout = l;
                  x.stages = &stages;
                  x.stage_kinds = &kinds;
                  try {
                    p.step = train_step(m, c, x, f->second);
                  } catch (const InputError& e) {
                    if (!first_refusal) first_refusal = e;
                    continue;  // a layout the step model refuses is not a candidate
                  }
                  p.tokens_per_second = p.step.tokens_per_step / p.step.step;
                  ++plan.evaluated;
                  // The ledger only where the answer can depend on it: a layout that could enter
                  // the ranking or be the fastest that does not fit (exact: the ranking is the
                  // exhaustive one's).
                  const double tps = p.tokens_per_second.in_base_units();
                  const auto near = [tps](const PlannedLayout& q) {
                    return tps >= q.tokens_per_second.in_base_units() * (1.0 - 1e-4);
                  };
                  const bool could_rank = plan.ranked.size() < in.keep || near(plan.ranked.back());
                  const bool could_lead_unfit = !plan.fastest_unfit || near(*plan.fastest_unfit);
                  if (!could_rank && !could_lead_unfit) continue;
                  mi.tp = static_cast<double>(tp) * one;
                  mi.pp = static_cast<double>(pp) * one;
                  mi.cp = static_cast<double>(cp) * one;
                  mi.ep = static_cast<double>(ep) * one;
                  mi.virtual_stages = static_cast<double>(vp) * one;
                  mi.recompute = rc;
                  mi.micro_batch = static_cast<double>(mb) * one;
                  mi.sequence_parallel = l.sp;
                  mi.states.zero_stage = zero;
                  mi.states.dp = static_cast<double>(dp) * one;
                  mi.stages = &stages;
                  try {
                    p.per_gpu = training_memory(m, mi).per_gpu();
                  } catch (const InputError& e) {
                    if (!first_refusal) first_refusal = e;
                    continue;  // nor one the ledger refuses (a constraint the model does not admit)
                  }
                  p.headroom = *in.run.memory.capacity - p.per_gpu;
                  p.fits = p.per_gpu <= *in.run.memory.capacity;
                  ++plan.ledgers;
                  if (p.fits) {
                    keep_best(plan.ranked, p, in.keep);
                  } else if (!plan.fastest_unfit || better(p, *plan.fastest_unfit)) {
                    plan.fastest_unfit = p;
                  }
                }
          }
        }
      }
    }
  }
  // Nothing timed: the constraints admit no layout; the first refusal names the flag.
  if (plan.evaluated == 0 && first_refusal) throw *first_refusal;
  for (PlannedLayout* p : [&] {
         std::vector<PlannedLayout*> all;
         for (PlannedLayout& r : plan.ranked) all.push_back(&r);
         if (plan.fastest_unfit) all.push_back(&*plan.fastest_unfit);
         return all;
       }())
    p->mfu = train(m, planned_input(in, p->layout)).expected_mfu;
  return plan;
}

}  // namespace napkin
