// The solvers on the memory ledgers: the largest batch, context, micro-batch or sequence that
// fits, and the fewest GPUs. See napkin/memory.h.
#include "napkin/memory.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "napkin/check.h"
#include "napkin/error.h"
#include "napkin/parallel.h"
#include "napkin/params.h"

// ---- the solver -------------------------------------------------------------------------------

namespace napkin {

using namespace units;

namespace {

bool fits_with(const specs::ModelSpec& m, InferenceMemoryInput in, SolveFor what, double x) {
  if (what == SolveFor::max_batch) in.batch = x * one;
  if (what == SolveFor::max_context) in.context = x * one;
  if (what == SolveFor::min_gpus) in.tp = x * one;
  return inference_memory(m, in).per_gpu() <= *in.capacity;
}

// TP degrees shard_stages accepts for this model, ascending.
std::vector<std::int64_t> valid_tp(const specs::ModelSpec& m) {
  std::vector<std::int64_t> out;
  for (std::int64_t t = 1; t <= m.heads; ++t) {
    if (m.heads % t != 0) continue;
    if (m.attention != specs::AttentionKind::mla && m.kv_heads > 0 &&
        !(m.kv_heads >= t ? m.kv_heads % t == 0 : t % m.kv_heads == 0))
      continue;
    out.push_back(t);
  }
  return out;
}

// Per-GPU memory never falls as batch or context grows (KV cache, activations and the reserve
// are non-decreasing in both), so the largest fitting value is found by doubling, then bisection.
// The context is bounded by the model's maximum (a model whose layers all keep a sliding window
// would otherwise fit any context).
constexpr std::int64_t kSearchCap = std::int64_t{1} << 40;  // far past any real batch

std::int64_t search_limit(const specs::ModelSpec& m, SolveFor what) {
  return what == SolveFor::max_context && m.max_context > 0 ? m.max_context : kSearchCap;
}

// The largest x in [1, limit] with fits(x), for fits monotone (true, then false); 0 when even
// 1 does not fit. Doubling, then bisection.
template <class Fits>
std::int64_t largest_fitting(std::int64_t limit, Fits fits) {
  if (!fits(1.0)) return 0;
  if (fits(static_cast<double>(limit))) return limit;
  std::int64_t lo = 1, hi = 2;
  while (hi < limit && fits(static_cast<double>(hi))) {
    lo = hi;
    hi *= 2;
  }
  hi = std::min(hi, limit);
  while (hi - lo > 1) {  // invariant: lo fits, hi does not
    const std::int64_t mid = lo + (hi - lo) / 2;
    (fits(static_cast<double>(mid)) ? lo : hi) = mid;
  }
  return lo;
}

std::int64_t largest_fitting(const specs::ModelSpec& m, const InferenceMemoryInput& in, SolveFor what) {
  return largest_fitting(search_limit(m, what), [&](double x) { return fits_with(m, in, what, x); });
}

// The row of a "largest value that fits" answer: `what` a fits and a + 1 does not, the model's
// maximum context fits, or not even 1 fits.
void largest_answer(ResultSet& out, std::string_view key, std::string_view label, std::string_view symbolic,
                    std::string_view what, double a, bool at_max) {
  if (at_max)
    out.item(key, label, value(a), symbolic, text("the model's maximum context {} fits", a));
  else if (a >= static_cast<double>(kSearchCap))
    out.item(key, label, value(a), symbolic, text("{} {} fits: the search stops at 2^40", what, a));
  else if (a > 0.0)
    out.item(key, label, value(a), symbolic, text("{} {} fits, {} does not", what, a, a + 1.0));
  else
    out.item(key, label, value(a), symbolic, text("even {} 1 does not fit", what));
}

}  // namespace

std::int64_t solve_inference(const specs::ModelSpec& m, const InferenceMemoryInput& in, SolveFor what) {
  if (!in.capacity) throw InputError("--gpu-memory", "(missing)", "a GPU memory capacity for the solver");
  require_positive(*in.capacity, "gpu_memory");
  if (what == SolveFor::min_gpus) {
    for (std::int64_t t : valid_tp(m))
      if (fits_with(m, in, what, static_cast<double>(t))) return t;
    return 0;
  }
  return largest_fitting(m, in, what);
}

void solve_inference(const specs::ModelSpec& m, const InferenceMemoryInput& in, SolveFor what, ResultSet& out) {
  const std::int64_t answer = solve_inference(m, in, what);
  InferenceMemoryInput at = in;
  const double shown = static_cast<double>(std::max<std::int64_t>(answer, 1));
  if (what == SolveFor::max_batch) at.batch = shown * one;
  if (what == SolveFor::max_context) at.context = shown * one;
  if (what == SolveFor::min_gpus) at.tp = (answer > 0 ? static_cast<double>(answer) : in.tp.in(one)) * one;
  inference_memory(m, at, out);
  const double a = static_cast<double>(answer);
  switch (what) {
    case SolveFor::max_batch:
      largest_answer(out, "max_batch", "largest batch that fits", "max b: per GPU(b) ≤ capacity", "batch", a, false);
      break;
    case SolveFor::max_context:
      largest_answer(out, "max_context", "longest context that fits", "max ctx: per GPU(ctx) ≤ capacity", "context", a,
                     answer > 0 && answer == search_limit(m, what));
      break;
    case SolveFor::min_gpus: {
      const std::vector<std::int64_t> tps = valid_tp(m);
      if (answer > 0) {
        const auto it = std::find(tps.begin(), tps.end(), answer);
        if (it != tps.begin())
          out.item("min_gpus", "fewest GPUs (TP degree) that fit", value(a * in.pp.in(one)), "min tp: per GPU(tp) ≤ capacity",
                   text("TP {} fits, TP {} does not (PP {})", a, static_cast<double>(*(it - 1)), in.pp));
        else
          out.item("min_gpus", "fewest GPUs (TP degree) that fit", value(a * in.pp.in(one)), "min tp: per GPU(tp) ≤ capacity",
                   text("TP 1 fits (PP {})", in.pp));
      } else {
        out.item("min_gpus", "fewest GPUs (TP degree) that fit", value(0.0), "min tp: per GPU(tp) ≤ capacity",
                 text("no TP degree up to {} fits (PP {})", static_cast<double>(tps.back()), in.pp));
      }
      break;
    }
  }
  out.assume("solver", text("solved on the per-GPU ledger above; TP degrees tried are divisors of the heads "
                            "compatible with the KV heads"));
}

}  // namespace napkin

// ---- the training solver ----------------------------------------------------------------------

namespace napkin {

namespace {

constexpr std::int64_t kMaxDp = std::int64_t{1} << 20;  // data-parallel ranks searched

TrainingMemoryInput with_value(TrainingMemoryInput in, TrainSolveFor what, double x, bool by_dp) {
  if (what == TrainSolveFor::max_micro_batch) in.micro_batch = x * one;
  if (what == TrainSolveFor::max_seq) in.seq = x * one;
  if (what == TrainSolveFor::min_gpus) {
    if (by_dp)
      in.states.dp = x * in.ep.in(one) * one;  // dp as a multiple of ep
    else
      in.tp = x * one;
  }
  return in;
}

bool train_fits(const specs::ModelSpec& m, const TrainingMemoryInput& in, TrainSolveFor what, double x, bool by_dp) {
  return training_memory(m, with_value(in, what, x, by_dp)).per_gpu() <= *in.capacity;
}

// ZeRO shards the states over dp, so more data-parallel ranks shrink the per-GPU ledger; without
// ZeRO only a higher TP degree does.
bool solve_by_dp(const TrainingMemoryInput& in) { return in.states.zero_stage >= 1; }

}  // namespace

std::int64_t solve_training(const specs::ModelSpec& m, const TrainingMemoryInput& in, TrainSolveFor what) {
  if (!in.capacity) throw InputError("--gpu-memory", "(missing)", "a GPU memory capacity for the solver");
  require_positive(*in.capacity, "gpu_memory");
  const bool by_dp = solve_by_dp(in);
  if (what == TrainSolveFor::min_gpus) {
    if (!by_dp) {
      for (std::int64_t t : valid_tp(m))
        if (train_fits(m, in, what, static_cast<double>(t), false)) return t;
      return 0;
    }
    // Per-GPU memory does not rise with dp: find the smallest multiple of ep that fits.
    const std::int64_t limit = kMaxDp;
    if (!train_fits(m, in, what, static_cast<double>(limit), true)) return 0;
    std::int64_t lo = 0, hi = limit;  // invariant: hi fits, lo does not (0: none tried)
    if (train_fits(m, in, what, 1.0, true)) return 1;
    lo = 1;
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      (train_fits(m, in, what, static_cast<double>(mid), true) ? hi : lo) = mid;
    }
    return hi;
  }
  const std::int64_t limit = what == TrainSolveFor::max_seq && m.max_context > 0 ? m.max_context : kSearchCap;
  return largest_fitting(limit, [&](double x) { return train_fits(m, in, what, x, false); });
}

void solve_training(const specs::ModelSpec& m, const TrainingMemoryInput& in, TrainSolveFor what, ResultSet& out) {
  const std::int64_t answer = solve_training(m, in, what);
  const bool by_dp = solve_by_dp(in);
  const double a = static_cast<double>(answer);
  const double shown = answer > 0 ? a : (what == TrainSolveFor::min_gpus ? (by_dp ? 1.0 : in.tp.in(one)) : 1.0);
  const TrainingMemoryInput at = with_value(in, what, what == TrainSolveFor::min_gpus && !by_dp && answer == 0
                                                          ? in.tp.in(one) : shown, by_dp);
  training_memory(m, at, out);
  switch (what) {
    case TrainSolveFor::max_micro_batch:
      largest_answer(out, "max_micro_batch", "largest micro-batch that fits", "max b: per GPU(b) ≤ capacity",
                     "micro-batch", a, false);
      break;
    case TrainSolveFor::max_seq:
      largest_answer(out, "max_seq", "longest sequence that fits", "max s: per GPU(s) ≤ capacity", "sequence", a,
                     answer > 0 && m.max_context > 0 && answer == m.max_context);
      break;
    case TrainSolveFor::min_gpus: {
      const double tp = in.tp.in(one), pp = in.pp.in(one), ep = in.ep.in(one);
      if (by_dp) {
        const double dp = a * ep;
        if (answer == 0)
          out.item("min_gpus", "fewest GPUs that fit", value(0.0), "min tp·pp·dp: per GPU(dp) ≤ capacity",
                   text("no data-parallel degree up to {} fits at TP {} and PP {} (activations and the unsharded "
                        "rows do not shrink with dp)", static_cast<double>(kMaxDp) * ep, in.tp, in.pp));
        else if (answer == 1)
          out.item("min_gpus", "fewest GPUs that fit", value(tp * pp * dp), "min tp·pp·dp: per GPU(dp) ≤ capacity",
                   text("dp {} fits (TP {}, PP {})", dp, in.tp, in.pp));
        else
          out.item("min_gpus", "fewest GPUs that fit", value(tp * pp * dp), "min tp·pp·dp: per GPU(dp) ≤ capacity",
                   text("dp {} fits, dp {} does not (TP {}, PP {})", dp, dp - ep, in.tp, in.pp));
      } else {
        const std::vector<std::int64_t> tps = valid_tp(m);
        const auto it = std::find(tps.begin(), tps.end(), answer);
        if (answer == 0)
          out.item("min_gpus", "fewest GPUs that fit", value(0.0), "min tp: per GPU(tp) ≤ capacity",
                   text("no TP degree up to {} fits (PP {}, no ZeRO: dp does not shrink the ledger)",
                        static_cast<double>(tps.back()), in.pp));
        else if (it == tps.begin())
          out.item("min_gpus", "fewest GPUs that fit", value(a * pp * in.states.dp.in(one)),
                   "min tp: per GPU(tp) ≤ capacity", text("TP 1 fits (PP {}, dp {})", in.pp, in.states.dp));
        else
          out.item("min_gpus", "fewest GPUs that fit", value(a * pp * in.states.dp.in(one)),
                   "min tp: per GPU(tp) ≤ capacity",
                   text("TP {} fits, TP {} does not (PP {}, dp {})", a, static_cast<double>(*(it - 1)), in.pp,
                        in.states.dp));
      }
      break;
    }
  }
  if (by_dp && what == TrainSolveFor::min_gpus)
    out.assume("solver", text("solved on the per-GPU ledger above: ZeRO-{} shards over dp, searched in multiples of "
                              "EP {} at the given TP and PP",
                              static_cast<double>(in.states.zero_stage), in.ep));
  else
    out.assume("solver", text("solved on the per-GPU ledger above; TP degrees tried are divisors of the heads "
                              "compatible with the KV heads"));
}

}  // namespace napkin
