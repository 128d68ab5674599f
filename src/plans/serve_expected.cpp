#include "napkin/plans/serve_expected.h"

#include <algorithm>
#include <cmath>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/plans/serve.h"

namespace napkin {

using namespace units;

namespace {

void require_fraction(double v, std::string_view field) {
  if (!(v > 0.0 && v <= 1.0))
    throw InputError(std::string(field), format_plain_number(v), "a fraction in (0, 1]");
}

}  // namespace

ExpectedPhase expected_phase(const PhaseCost& c, const Efficiency& e, double prefill_tokens, FlopRate peak,
                             Bandwidth bw) {
  require_fraction(e.bandwidth, "--efficiency-bandwidth");
  require_fraction(e.compute, "--efficiency-compute");
  if (!(e.prefill_half >= 0.0 && std::isfinite(e.prefill_half)))
    throw InputError("--prefill-half-tokens", format_plain_number(e.prefill_half), "a token count ≥ 0");
  if (!(e.pass_overhead.in(second) >= 0.0 && std::isfinite(e.pass_overhead.in(second))))
    throw InputError("--token-overhead", format_plain_number(e.pass_overhead.in(second)), "a time ≥ 0");
  ExpectedPhase x;
  x.tokens = prefill_tokens;
  x.compute_efficiency =
      prefill_tokens > 0.0 ? e.compute * prefill_tokens / (prefill_tokens + e.prefill_half) : e.compute;
  const FlopRate r = x.compute_efficiency * peak;
  const Bandwidth b = e.bandwidth * bw;
  for (const OpCost& o : c.ops) {
    const Seconds tc = o.flops / r, tm = o.bytes / b;
    x.compute += tc;
    x.memory += tm;
    x.comm += o.comm;
    x.time += std::max({tc, tm, o.comm});
  }
  x.time += e.pass_overhead;
  return x;
}

}  // namespace napkin
