// The fewest GPUs vLLM serves N users on. See napkin/engines/vllm_layout.h.
#include "napkin/engines/vllm_layout.h"

#include <string>
#include <vector>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"

namespace napkin {

using namespace units;

namespace {

VllmInput at_layout(const specs::ModelSpec& m, const VllmInput& base, const InferenceMemoryInput& weights,
                    const Layout& l) {
  InferenceMemoryInput wi = weights;
  wi.tp = static_cast<double>(l.tp) * one;
  wi.pp = static_cast<double>(l.pp) * one;
  wi.capacity.reset();
  VllmInput v = base;
  v.tp = wi.tp;
  v.pp = wi.pp;
  v.weights = vllm_weights(m, wi, base.arch).total();
  return v;
}

}  // namespace

VllmLayoutAnswer vllm_min_gpus(const specs::ModelSpec& m, const VllmInput& base, const InferenceMemoryInput& weights,
                               double users, const LayoutSearch& search) {
  if (search.max_tp < 1) throw InputError("--gpus-per-node", std::to_string(search.max_tp), "a positive integer");
  const std::vector<std::int64_t> tps = search.tp ? std::vector<std::int64_t>{*search.tp} : tp_degrees(m, search.max_tp);
  VllmInput probe = base;
  probe.users = users * one;
  validate_vllm_settings(m, probe);  // --users above --max-num-seqs fits on no number of GPUs
  VllmLayoutAnswer a;
  bool any = false;
  const std::int64_t pp_lo = search.pp ? *search.pp : 1, pp_hi = search.pp ? *search.pp : m.layers;
  for (std::int64_t tp : tps)
    for (std::int64_t pp = pp_lo; pp <= pp_hi; ++pp) {
      const Layout l{tp, pp, 1};
      // Past a layout that holds the users, more stages only add GPUs.
      if (a.fewest && l.gpus() > a.fewest->gpus()) break;
      VllmInput v = at_layout(m, base, weights, l);
      v.users = users * one;
      const VllmBudget b = vllm_budget(m, v);
      ++a.tried;
      if (!any || b.max_concurrency > a.closest_concurrency) {
        any = true;
        a.closest = l;
        a.closest_concurrency = b.max_concurrency;
      }
      if (vllm_fit(b) == VllmFit::fits && (!a.fewest || fewer_gpus_first(l, *a.fewest))) a.fewest = l;
    }
  return a;
}

void vllm_min_gpus(const specs::ModelSpec& m, const VllmInput& base, const InferenceMemoryInput& weights, double users,
                   const LayoutSearch& search, ResultSet& out) {
  const VllmLayoutAnswer a = vllm_min_gpus(m, base, weights, users, search);
  const Layout shown = a.fewest ? *a.fewest : a.closest;
  VllmInput v = at_layout(m, base, weights, shown);
  v.users = users * one;
  vllm_budget(m, v, out);
  const std::string_view lim = out.keep(layout_search_limits(m, search, false));
  const char* symbolic = "min tp·pp: vLLM's pool holds --users requests of --context at once";
  if (a.fewest) {
    out.item("min_gpus", "fewest GPUs (vLLM)", value(static_cast<double>(shown.gpus())), symbolic,
             text("tp {} × pp {} holds {} requests ≥ {}; no layout of fewer GPUs does ({} layouts searched: {})",
                  static_cast<double>(shown.tp), static_cast<double>(shown.pp), vllm_budget(m, v).max_concurrency, users,
                  static_cast<double>(a.tried), lim));
    out.item("tp", "tensor-parallel degree", value(static_cast<double>(shown.tp)), "of the answer", text(""));
    out.item("pp", "pipeline stages", value(static_cast<double>(shown.pp)), "of the answer", text(""));
    out.item("dp", "data-parallel ranks", value(1.0), "of the answer", text(""));
  } else {
    out.item("min_gpus", "fewest GPUs (vLLM)", no_value(), symbolic,
             text("no layout holds {} requests ({} layouts searched: {}); the ledger above is the one whose pool holds "
                  "the most, {} requests at tp {}",
                  users, static_cast<double>(a.tried), lim, a.closest_concurrency, static_cast<double>(a.closest.tp)));
    out.item("tp", "tensor-parallel degree", no_value(), "of the answer", text(""));
    out.item("pp", "pipeline stages", no_value(), "of the answer", text(""));
    out.item("dp", "data-parallel ranks", no_value(), "of the answer", text(""));
  }

  // The engine-neutral ledger's answer to the same question: users sequences of the context,
  // exact KV and a prefill chunk's activations on the same GPU total, PP searched too.
  InferenceMemoryInput ni = weights;
  ni.batch = users * one;
  ni.context = base.context;
  ni.capacity = base.gpu_memory;
  const LayoutAnswer n = min_gpus_inference(m, ni, search);
  const char* nsym = "min tp·pp·dp: napkin's engine-neutral ledger (batch = --users) ≤ the GPU total";
  if (n.fewest)
    out.item("neutral_min_gpus", "fewest GPUs (engine-neutral)", value(static_cast<double>(n.fewest->gpus())), nsym,
             text("tp {} × pp {} ({} layouts searched)", static_cast<double>(n.fewest->tp),
                  static_cast<double>(n.fewest->pp), static_cast<double>(n.tried)));
  else
    out.item("neutral_min_gpus", "fewest GPUs (engine-neutral)", no_value(), nsym,
             text("no layout fits ({} layouts searched)", static_cast<double>(n.tried)));
  const bool differ = a.fewest.has_value() != n.fewest.has_value() ||
                      (a.fewest && n.fewest && a.fewest->gpus() != n.fewest->gpus());
  const auto gpus = [&](const std::optional<Layout>& l) {
    return out.keep(l ? format_plain_number(static_cast<double>(l->gpus())) : std::string("more than the search allows"));
  };
  if (differ)
    out.remark(text("vLLM needs {} GPUs where napkin's engine-neutral ledger needs {}: vLLM leaves {} of each GPU "
                  "unused (--gpu-memory-utilization), reserves its profiled activation peak and pages the KV cache in "
                  "blocks, while the engine-neutral ledger counts the exact KV of --users sequences, one prefill chunk's "
                  "activations and a 5% allocator slack (memory --min-gpus without --engine)",
                  gpus(a.fewest), gpus(n.fewest),
                  1.0 - base.gpu_memory_utilization));
  out.assume("solver", text("fewest GPUs for vLLM: every TP degree the model accepts (divisors of the heads compatible "
                            "with the KV heads, as vLLM requires) and pipeline stages within {}; a layout holds the "
                            "users when vLLM starts and max_concurrency ≥ --users {}; ties go to fewer stages, then "
                            "lower TP",
                            lim, users));
}

}  // namespace napkin
