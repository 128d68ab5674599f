// The solvers on the memory ledgers: the largest batch, context, micro-batch or sequence that
// fits, and the fewest GPUs over TP × PP (× DP under ZeRO). See napkin/memory/ledgers.h.
#include "napkin/memory/ledgers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/model/parallel.h"
#include "napkin/model/params.h"

namespace napkin {

using namespace units;

namespace {

// Per-GPU memory never falls as batch or context grows (KV cache, activations and the reserve
// are non-decreasing in both), so the largest fitting value is found by doubling, then bisection.
// The context is bounded by the model's maximum (a model whose layers all keep a sliding window
// would otherwise fit any context).
constexpr std::int64_t kSearchCap = std::int64_t{1} << 40;  // far past any real batch

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

// The row of a "largest value that fits" answer: `what` a fits and a + 1 does not, the model's
// maximum context fits, or not even 1 fits (no answer: a none value, JSON null).
void largest_answer(ResultSet& out, std::string_view key, std::string_view label, std::string_view symbolic,
                    std::string_view what, double a, bool at_max) {
  if (at_max)
    out.item(key, label, value(a), symbolic, text("the model's maximum context {} fits", a));
  else if (a >= static_cast<double>(kSearchCap))
    out.item(key, label, value(a), symbolic, text("{} {} fits: the search stops at 2^40", what, a));
  else if (a > 0.0)
    out.item(key, label, value(a), symbolic, text("{} {} fits, {} does not", what, a, a + 1.0));
  else
    out.item(key, label, no_value(), symbolic, text("even {} 1 does not fit", what));
}

// TP degrees shard_stages accepts for this model, ascending, up to `max_tp` (a bare parameter
// count splits evenly over any degree).
std::vector<std::int64_t> valid_tp(const specs::ModelSpec& m, std::int64_t max_tp) {
  std::vector<std::int64_t> out;
  const std::int64_t top = m.count_only() ? max_tp : std::min(max_tp, m.heads);
  for (std::int64_t t = 1; t <= top; ++t) {
    if (!m.count_only() && m.heads % t != 0) continue;
    if (!m.count_only() && m.attention != specs::AttentionKind::mla && m.kv_heads > 0 &&
        !(m.kv_heads >= t ? m.kv_heads % t == 0 : t % m.kv_heads == 0))
      continue;
    out.push_back(t);
  }
  return out;
}

// A bare count has no layers; its "stages" split P evenly, up to one per... a stated cap.
constexpr std::int64_t kBarePpCap = 128;

std::int64_t max_pp(const specs::ModelSpec& m) { return m.count_only() ? kBarePpCap : m.layers; }

// Better: fewer GPUs, then fewer pipeline stages, then the lower TP degree.
bool better(const Layout& a, const Layout& b) {
  if (a.gpus() != b.gpus()) return a.gpus() < b.gpus();
  if (a.pp != b.pp) return a.pp < b.pp;
  return a.tp < b.tp;
}

void require_capacity(const std::optional<Bytes>& capacity) {
  if (!capacity) throw InputError("--gpu-memory", "(missing)", "a GPU memory capacity for the solver");
  require_positive(*capacity, "gpu_memory");
}

void check_search(const LayoutSearch& s) {
  if (s.max_tp < 1) throw InputError("gpus_per_node", std::to_string(s.max_tp), "a positive integer");
}

// Walks every (tp, pp) of the search; `per_gpu(tp, pp, dp_out)` returns the per-GPU ledger at the
// smallest dp it could find for that pair (dp_out set) or nullopt when no dp fits.
template <class Eval>
LayoutAnswer search_layouts(const specs::ModelSpec& m, const LayoutSearch& s, Bytes capacity, Eval per_gpu) {
  check_search(s);
  std::vector<std::int64_t> tps = s.tp ? std::vector<std::int64_t>{*s.tp} : valid_tp(m, s.max_tp);
  const std::int64_t pp_lo = s.pp ? *s.pp : 1, pp_hi = s.pp ? *s.pp : max_pp(m);
  LayoutAnswer a;
  std::optional<Bytes> closest_mem;
  for (std::int64_t tp : tps) {
    for (std::int64_t pp = pp_lo; pp <= pp_hi; ++pp) {
      Layout l{tp, pp, 1};
      ++a.tried;
      const Bytes mem = per_gpu(l);
      if (!closest_mem || mem < *closest_mem) {
        closest_mem = mem;
        a.closest = l;
      }
      if (mem <= capacity && (!a.fewest || better(l, *a.fewest))) a.fewest = l;
    }
  }
  return a;
}

std::string search_limits(const specs::ModelSpec& m, const LayoutSearch& s, bool dp_searched) {
  std::string t = s.tp ? "tp " + std::to_string(*s.tp) + " (given)" : "tp ≤ " + std::to_string(s.max_tp) +
                                                                          " (a node, --gpus-per-node)";
  t += s.pp ? ", pp " + std::to_string(*s.pp) + " (given)"
            : ", pp ≤ " + std::to_string(max_pp(m)) + (m.count_only() ? " (a cap for a bare count)" : " (the layers)");
  if (dp_searched) t += ", dp ≤ " + std::to_string(s.max_dp);
  return t;
}

// The min_gpus row and its layout rows (tp, pp, dp); none values when nothing fits.
void layout_answer(ResultSet& out, const LayoutAnswer& a, const std::string& limits, std::string_view what) {
  const std::string_view lim = out.keep(limits);
  if (a.fewest) {
    const Layout& l = *a.fewest;
    out.item("min_gpus", "fewest GPUs that fit", value(static_cast<double>(l.gpus())), "min tp·pp·dp: per GPU ≤ capacity",
             text("tp {} × pp {} × dp {} fits; no layout of fewer GPUs does ({} layouts searched: {})",
                  static_cast<double>(l.tp), static_cast<double>(l.pp), static_cast<double>(l.dp),
                  static_cast<double>(a.tried), lim));
    out.item("tp", "tensor-parallel degree", value(static_cast<double>(l.tp)), "of the answer", text(""));
    out.item("pp", "pipeline stages", value(static_cast<double>(l.pp)), "of the answer", text(""));
    out.item("dp", "data-parallel ranks", value(static_cast<double>(l.dp)), "of the answer", text(""));
  } else {
    out.item("min_gpus", "fewest GPUs that fit", no_value(), "min tp·pp·dp: per GPU ≤ capacity",
             text("no layout fits ({} layouts searched: {}); the ledger above is the smallest per GPU, at tp {} × pp {} "
                  "× dp {}{}",
                  static_cast<double>(a.tried), lim, static_cast<double>(a.closest.tp),
                  static_cast<double>(a.closest.pp), static_cast<double>(a.closest.dp), what));
    out.item("tp", "tensor-parallel degree", no_value(), "of the answer", text(""));
    out.item("pp", "pipeline stages", no_value(), "of the answer", text(""));
    out.item("dp", "data-parallel ranks", no_value(), "of the answer", text(""));
  }
}

}  // namespace

std::vector<std::int64_t> tp_degrees(const specs::ModelSpec& m, std::int64_t max_tp) { return valid_tp(m, max_tp); }

bool fewer_gpus_first(const Layout& a, const Layout& b) { return better(a, b); }

std::string layout_search_limits(const specs::ModelSpec& m, const LayoutSearch& s, bool dp_searched) {
  return search_limits(m, s, dp_searched);
}

std::int64_t solve_inference(const specs::ModelSpec& m, const InferenceMemoryInput& in, SolveFor what) {
  require_capacity(in.capacity);
  if (what == SolveFor::min_gpus) throw std::invalid_argument("solve_inference: min_gpus_inference finds layouts");
  const std::int64_t limit = what == SolveFor::max_context && m.max_context > 0 ? m.max_context : kSearchCap;
  return largest_fitting(limit, [&](double x) {
    InferenceMemoryInput at = in;
    (what == SolveFor::max_batch ? at.batch : at.context) = x * one;
    return inference_memory(m, at).per_gpu() <= *in.capacity;
  });
}

LayoutAnswer min_gpus_inference(const specs::ModelSpec& m, const InferenceMemoryInput& in, const LayoutSearch& search) {
  specs::refuse_encoder_decoder(m, "memory --min-gpus");
  require_capacity(in.capacity);
  return search_layouts(m, search, *in.capacity, [&](Layout& l) {
    InferenceMemoryInput at = in;
    at.tp = static_cast<double>(l.tp) * one;
    at.pp = static_cast<double>(l.pp) * one;
    return inference_memory(m, at).per_gpu();
  });
}

void solve_inference(const specs::ModelSpec& m, const InferenceMemoryInput& in, SolveFor what, ResultSet& out,
                     const LayoutSearch& search) {
  if (what == SolveFor::min_gpus) {
    const LayoutAnswer a = min_gpus_inference(m, in, search);
    const Layout shown = a.fewest ? *a.fewest : a.closest;
    InferenceMemoryInput at = in;
    at.tp = static_cast<double>(shown.tp) * one;
    at.pp = static_cast<double>(shown.pp) * one;
    inference_memory(m, at, out);
    layout_answer(out, a, search_limits(m, search, false), "");
    out.assume("solver", text("fewest GPUs: every TP degree the model accepts (divisors of the heads compatible with "
                              "the KV heads) and every PP degree within the limits tried on the per-GPU ledger; ties "
                              "go to fewer pipeline stages, then lower TP; a serving engine reserves more than this "
                              "ledger (memory --engine vllm --users N --min-gpus answers with vLLM's own budget)"));
    return;
  }
  const std::int64_t answer = solve_inference(m, in, what);
  InferenceMemoryInput at = in;
  const double shown = static_cast<double>(std::max<std::int64_t>(answer, 1));
  (what == SolveFor::max_batch ? at.batch : at.context) = shown * one;
  inference_memory(m, at, out);
  const double a = static_cast<double>(answer);
  if (what == SolveFor::max_batch)
    largest_answer(out, "max_batch", "largest batch that fits", "max b: per GPU(b) ≤ capacity", "batch", a, false);
  else
    largest_answer(out, "max_context", "longest context that fits", "max ctx: per GPU(ctx) ≤ capacity", "context", a,
                   answer > 0 && m.max_context > 0 && answer == m.max_context);
  out.assume("solver", text("solved on the per-GPU ledger above, exact to one step"));
}

// ---- the training solver ----------------------------------------------------------------------

std::int64_t solve_training(const specs::ModelSpec& m, const TrainingMemoryInput& in, TrainSolveFor what) {
  require_capacity(in.capacity);
  if (what == TrainSolveFor::min_gpus) throw std::invalid_argument("solve_training: min_gpus_training finds layouts");
  const std::int64_t limit = what == TrainSolveFor::max_seq && m.max_context > 0 ? m.max_context : kSearchCap;
  return largest_fitting(limit, [&](double x) {
    TrainingMemoryInput at = in;
    (what == TrainSolveFor::max_micro_batch ? at.micro_batch : at.seq) = x * one;
    return training_memory(m, at).per_gpu() <= *in.capacity;
  });
}

LayoutAnswer min_gpus_training(const specs::ModelSpec& m, const TrainingMemoryInput& in, const LayoutSearch& search) {
  require_capacity(in.capacity);
  if ((in.first_stage_layers || in.last_stage_layers) && !search.pp)
    throw InputError(in.first_stage_layers ? "--first-stage-layers" : "--last-stage-layers",
                     format_plain_number((in.first_stage_layers ? *in.first_stage_layers : *in.last_stage_layers).in(one)),
                     "--pp with it under --min-gpus (the stage split is checked against one pipeline degree)");
  const auto ep = static_cast<std::int64_t>(in.ep.in(one));
  const auto cp = static_cast<std::int64_t>(in.cp.in(one));
  // The dp step at TP t: the expert grid's ep · etp ranks must divide t · cp · dp
  // (training.cpp, check_expert_ranks), so dp is a multiple of ep · etp / gcd(ep · etp, t · cp);
  // with etp = t and cp = 1 that is ep.
  auto dp_step = [&](std::int64_t t) {
    const std::int64_t expert = ep * (in.etp ? static_cast<std::int64_t>(in.etp->in(one)) : t);
    return expert / std::gcd(expert, t * cp);
  };
  // ZeRO shards the states over dp, so the per-GPU ledger does not rise with dp: the smallest
  // fitting multiple of the step is found by bisection. Without ZeRO dp changes nothing per GPU.
  const bool by_dp = in.states.zero_stage >= 1 && !search.dp;
  const std::int64_t fixed_dp = search.dp ? *search.dp : static_cast<std::int64_t>(in.states.dp.in(one));
  const Bytes cap = *in.capacity;
  return search_layouts(m, search, cap, [&](Layout& l) {
    TrainingMemoryInput at = in;
    at.tp = static_cast<double>(l.tp) * one;
    at.pp = static_cast<double>(l.pp) * one;
    auto at_dp = [&](std::int64_t dp) {
      at.states.dp = static_cast<double>(dp) * one;
      return training_memory(m, at).per_gpu();
    };
    if (!by_dp) {
      l.dp = fixed_dp;
      // A given --etp with the dp given fits some TP degrees and not others: the others are no
      // layout (the largest finite ledger, never chosen while one fits).
      if (fixed_dp % dp_step(l.tp) != 0) return std::numeric_limits<double>::max() * byte;
      return at_dp(fixed_dp);
    }
    // ZeRO shards over dp: at dp 1 it shards nothing, so the search starts at dp 2 (the ZeRO run
    // the user asked for: --zero 3 answers an FSDP layout, not a tensor-parallel one at dp 1).
    const std::int64_t step = dp_step(l.tp);
    const std::int64_t k_min = step >= 2 ? 1 : 2;
    const std::int64_t top = std::max<std::int64_t>(k_min, search.max_dp / step);  // dp = k · step, k ≤ top
    const Bytes at_top = at_dp(top * step);
    if (at_top > cap) {
      l.dp = top * step;
      return at_top;
    }
    std::int64_t lo = k_min - 1, hi = top;  // hi fits; lo does not (k_min − 1: untried)
    if (at_dp(k_min * step) <= cap) hi = k_min;
    else lo = k_min;
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      (at_dp(mid * step) <= cap ? hi : lo) = mid;
    }
    l.dp = hi * step;
    return at_dp(l.dp);
  });
}

void solve_training(const specs::ModelSpec& m, const TrainingMemoryInput& in, TrainSolveFor what, ResultSet& out,
                    const LayoutSearch& search) {
  if (what == TrainSolveFor::min_gpus) {
    const LayoutAnswer a = min_gpus_training(m, in, search);
    const Layout shown = a.fewest ? *a.fewest : a.closest;
    TrainingMemoryInput at = in;
    at.tp = static_cast<double>(shown.tp) * one;
    at.pp = static_cast<double>(shown.pp) * one;
    at.states.dp = static_cast<double>(shown.dp) * one;
    training_memory(m, at, out);
    const bool by_dp = in.states.zero_stage >= 1 && !search.dp;
    layout_answer(out, a, search_limits(m, search, by_dp),
                  by_dp ? " (activations and the unsharded rows do not shrink with dp)" : "");
    if (by_dp && in.etp)
      out.assume("solver", text("fewest GPUs: every TP degree the model accepts and every PP degree within the limits, "
                                "each with the smallest dp (at least 2: ZeRO shards nothing at dp 1) whose tp·dp the "
                                "EP {} × ETP {} expert ranks divide, that shards the ZeRO-{} states enough; ties go to "
                                "fewer pipeline stages, then lower TP",
                                in.ep, *in.etp, static_cast<double>(in.states.zero_stage)));
    else if (by_dp)
      out.assume("solver", text("fewest GPUs: every TP degree the model accepts and every PP degree within the limits, "
                                "each with the smallest dp (a multiple of EP {}, at least 2: ZeRO shards nothing at dp "
                                "1) that shards the ZeRO-{} states enough; ties go to fewer pipeline stages, then lower "
                                "TP",
                                in.ep, static_cast<double>(in.states.zero_stage)));
    else
      out.assume("solver", text("fewest GPUs: every TP degree the model accepts and every PP degree within the limits, "
                                "at dp {}{}; ties go to fewer pipeline stages, then lower TP",
                                static_cast<double>(search.dp ? *search.dp : in.states.dp.in(one)),
                                in.states.zero_stage >= 1 ? " (given)" : " (without ZeRO, dp does not shrink the ledger)"));
    return;
  }
  const std::int64_t answer = solve_training(m, in, what);
  const double a = static_cast<double>(answer);
  TrainingMemoryInput at = in;
  (what == TrainSolveFor::max_micro_batch ? at.micro_batch : at.seq) = std::max(a, 1.0) * one;
  training_memory(m, at, out);
  if (what == TrainSolveFor::max_micro_batch)
    largest_answer(out, "max_micro_batch", "largest micro-batch that fits", "max b: per GPU(b) ≤ capacity",
                   "micro-batch", a, false);
  else
    largest_answer(out, "max_seq", "longest sequence that fits", "max s: per GPU(s) ≤ capacity", "sequence", a,
                   answer > 0 && m.max_context > 0 && answer == m.max_context);
  out.assume("solver", text("solved on the per-GPU ledger above, exact to one step"));
}

}  // namespace napkin
