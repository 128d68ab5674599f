// The roofline model: attainable rate P = min(R_peak, I · BW), ridge point I* = R_peak / BW.
// Course notes 7.5 (and 7.2 for the third bottleneck class: launch overhead).
#pragma once

#include <optional>
#include <string_view>

#include "napkin/ground/dtype.h"
#include "napkin/ground/result.h"
#include "napkin/ground/units.h"
#include "napkin/model/flops.h"

namespace napkin {

/// An elementwise operation on a vector: operations counted per element and memory accesses
/// per element (reads + writes), each of the element's size.
struct ElementwiseOp {
  std::string_view name;
  double ops_per_element;
  double accesses_per_element;
  std::string_view counting;  // how the operations are counted, for the assumption line
};

/// relu, add, gelu, copy. Returns nullptr for an unknown name.
const ElementwiseOp* find_elementwise_op(std::string_view name);

/// B independent products [m,k] @ [k,n] -> [m,n], each with its own A and B (torch.bmm).
struct BatchedMatmul {
  Count batch = 1.0 * units::one;
  Count m{}, k{}, n{};
};

struct RooflineInput {
  FlopRate peak{};
  Bandwidth bandwidth{};
  // Exactly one way to give the intensity: `intensity`, or `flops` with `bytes`, or `op`, or
  // one matrix op (`matmul`, `ffn`, `attention`).
  std::optional<Intensity> intensity{};
  std::optional<Flops> flops{};
  std::optional<Bytes> bytes{};
  const ElementwiseOp* op = nullptr;
  // Matrix ops: the FLOP are flops.h's counts (a multiply-add is 2 FLOP), the bytes the least
  // any kernel moves: every operand read once and the output written once, in `dtype`.
  //   matmul     B·(m·k + k·n + m·n) elements
  //   ffn        one block (no layers): its (2 or 3)·D·F weights, tokens·D in and tokens·D out;
  //              the [tokens, F] intermediate stays on chip (a fused FFN)
  //   attention  the core only, QKᵀ and A·V (flops attention's attention_flops; one layer):
  //              Q and O of B·T·D, K and V of B·T·D_kv (the FlashAttention minimum; the T×T
  //              scores stay on chip)
  std::optional<BatchedMatmul> matmul{};
  std::optional<FfnInput> ffn{};
  std::optional<AttentionInput> attention{};
  Dtype dtype = Dtype::fp32;                     // element type of `op` or of the matrix op
  std::optional<double> ops_per_element{};         // overrides op->ops_per_element
  std::optional<Count> elements{};                 // vector length for `op`: gives FLOP and bytes
  std::optional<Seconds> launch_overhead{};      // per kernel launch (notes 7.2)
};

struct Roofline {
  Intensity intensity{};
  Intensity ridge{};
  FlopRate attainable{};
  bool compute_bound{};
  std::optional<Seconds> time{};  // lower bound, when the FLOP count is known
  bool overhead_bound = false;  // roofline time below the launch overhead
};

Roofline roofline(const RooflineInput& in);
void roofline(const RooflineInput& in, ResultSet& out);

}  // namespace napkin
