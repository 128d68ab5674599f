// What a serving engine is expected to achieve: serve.h's roofline bound derated by an engine's
// measured efficiency. The bound says what the hardware allows; the expected figure says what
// published measurements of an engine on a class of hardware reach. Issue 20; the coefficients
// are data (data/presets/efficiency/*.json), fitted by scripts/fit-efficiency on the published
// measurements in data/serving/measurements.csv, each row with its source.
//
// The model, per forward pass (a prefill pass of n = B·P tokens, or a decode step):
//   t = Σ_ops max(C_op / (η · R), Q_op / (η_bw · BW), link_op) + t_pass
//   η = η_c · n / (n + n½) in prefill, η_c in decode
// η_bw: the fraction of the datasheet bandwidth the engine streams weights and KV cache at;
// η_c: the fraction of the dense peak its matmuls reach on long prompts and large batches;
// n½: the prompt tokens per prefill pass at which half of that is reached (short prompts run far
// below peak; a decode step's small matmuls are memory-bound and its large-batch ones reach η_c);
// t_pass: a fixed cost per pass (kernel launches, synchronisation, sampling, the engine's CPU
// time), measured as a whole, so the bound's per-kernel launch floor is not added.
// Each op's C, Q and link time are the bound's (serve.h), summed over the layers it appears in.
#pragma once

#include "napkin/ground/units.h"

namespace napkin {

struct PhaseCost;

struct Efficiency {
  double bandwidth = 1.0;     // η_bw, in (0, 1]
  double compute = 1.0;       // η_c, in (0, 1]
  double prefill_half = 0.0;  // n½ tokens, ≥ 0
  Seconds pass_overhead{};    // t_pass, ≥ 0
  bool operator==(const Efficiency&) const = default;
};

struct ExpectedPhase {
  Seconds time{};              // the expected time of the pass
  Seconds compute{}, memory{}, comm{};  // Σ C/(η_c(n)·R), Σ Q/(η_bw·BW), Σ link over the ops
  double compute_efficiency = 0;        // η: η_c(n) in prefill, η_c in decode
  double tokens = 0;                    // n, the tokens of a prefill pass (0 for decode)
};

/// The expected time of a pass whose bound is `c`, at peak R and bandwidth BW: a prefill pass of
/// `prefill_tokens` tokens, or a decode step when that is 0. InputError naming the coefficient when
/// one is out of range.
ExpectedPhase expected_phase(const PhaseCost& c, const Efficiency& e, double prefill_tokens, FlopRate peak,
                             Bandwidth bw);

}  // namespace napkin
