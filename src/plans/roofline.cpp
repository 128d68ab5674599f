#include "napkin/plans/roofline.h"

#include <algorithm>
#include <array>
#include <string>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"

namespace napkin {

using namespace units;

namespace {

// Operation counts per element. The notes (7.5) count ReLU's comparison as one operation and
// say so; GELU (tanh form, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))) is counted term by term:
// x³ (2), ·0.044715 (1), + x (1), ·√(2/π) (1), tanh (1), + 1 (1), · x (1), · 0.5 (1) = 9.
constexpr std::array<ElementwiseOp, 4> kOps{{
    {"relu", 1.0, 2.0, "1 comparison per element counted as 1 operation (not strictly a FLOP)"},
    {"add", 1.0, 3.0, "1 addition per element; 2 reads + 1 write"},
    {"gelu", 9.0, 2.0, "tanh-form GELU counted as 9 operations per element, tanh as 1"},
    {"copy", 0.0, 2.0, "a copy does no arithmetic: 0 operations, 1 read + 1 write"},
}};

struct Traffic {
  Intensity intensity;
  std::optional<Flops> flops;
  std::optional<Bytes> bytes;
};

bool has_matrix_op(const RooflineInput& in) { return in.matmul || in.ffn || in.attention; }

std::string_view matrix_op_name(const RooflineInput& in) {
  return in.matmul ? "matmul" : in.ffn ? "ffn" : "attention";
}

// A matrix op's FLOP (flops.h's counts, not derived again here) and its least traffic: every
// operand read once, the output written once.
struct MatrixTraffic {
  Flops flops;
  Bytes bytes;
};

MatrixTraffic matrix_traffic(const RooflineInput& in) {
  const Bytes s = dtype_size(in.dtype);
  if (in.matmul) {
    const BatchedMatmul& mm = *in.matmul;
    require_positive_integer(mm.batch, "batch");
    const double b = mm.batch.in(one);
    const Flops c = b * matmul_flops(MatmulInput{mm.m, mm.k, mm.n});
    const double m = mm.m.in(one), k = mm.k.in(one), n = mm.n.in(one);
    return {c, b * (m * k + k * n + m * n) * s};
  }
  if (in.ffn) {
    const FfnInput& f = *in.ffn;
    if (f.layers)
      throw InputError("layers", format_plain_number(f.layers->in(one)),
                       "one FFN block in a roofline (one kernel; L blocks take L times its time)");
    const Flops c = ffn_flops(f);
    const double projections = f.gated ? 3.0 : 2.0, d = f.d.in(one);
    return {c, (projections * d * f.f.in(one) + 2.0 * ffn_tokens(f).in(token) * d) * s};
  }
  const AttentionInput& a = *in.attention;
  if (a.layers != 1.0 * one)
    throw InputError("layers", format_plain_number(a.layers.in(one)),
                     "one attention layer in a roofline (one kernel; L layers take L times its time)");
  const Flops c = attention_flops(a).attention;
  const double d = a.d.in(one), dkv = a.d_kv.in(one) == 0.0 ? d : a.d_kv.in(one);
  return {c, a.batch.in(one) * a.seq.in(one) * (2.0 * d + 2.0 * dkv) * s};
}

Traffic resolve_traffic(const RooflineInput& in) {
  const int ways = (in.intensity ? 1 : 0) + (in.bytes ? 1 : 0) + (in.op ? 1 : 0) + (in.matmul ? 1 : 0) +
                   (in.ffn ? 1 : 0) + (in.attention ? 1 : 0);
  if (ways != 1)
    throw InputError("intensity", ways == 0 ? "(none)" : "(several)",
                     "exactly one of --intensity, --flops with --bytes, or --op");
  if (in.flops) require_non_negative(*in.flops, "flops");
  if (has_matrix_op(in)) {
    const std::string op(matrix_op_name(in));
    if (in.flops)
      throw InputError("flops", format_plain_number(in.flops->in(flop)),
                       "no --flops with --op " + op + " (its shapes give the FLOP)");
    if (in.elements)
      throw InputError("elements", format_plain_number(in.elements->in(one)),
                       "no --elements with --op " + op + " (the length of an elementwise op)");
    if (in.ops_per_element)
      throw InputError("ops_per_element", format_plain_number(*in.ops_per_element),
                       "no --ops-per-element with --op " + op + " (a count of an elementwise op)");
    const MatrixTraffic m = matrix_traffic(in);
    return {m.flops / m.bytes, m.flops, m.bytes};
  }
  if (in.intensity) {
    require_non_negative(*in.intensity, "intensity");
    if (in.flops && in.flops->in(flop) > 0.0 && in.intensity->in(flop_per_byte) == 0.0)
      throw InputError("intensity", "0", "a positive intensity when --flops is given");
    // The bytes follow from C / I when the FLOP count is known.
    if (in.flops)
      return {*in.intensity, in.flops,
              in.flops->in(flop) == 0.0 ? 0.0 * byte : *in.flops / *in.intensity};
    return {*in.intensity, std::nullopt, std::nullopt};
  }
  if (in.op) {
    if (in.flops) throw InputError("flops", "(given)", "no --flops with --op (use --elements)");
    const double ops = in.ops_per_element.value_or(in.op->ops_per_element);
    if (!std::isfinite(ops) || ops < 0.0)
      throw InputError("ops_per_element", format_plain_number(ops), "a non-negative number");
    const Bytes per_element = in.op->accesses_per_element * dtype_size(in.dtype);
    const Intensity i = (ops * flop) / per_element;
    if (!in.elements) return {i, std::nullopt, std::nullopt};
    require_positive_integer(*in.elements, "elements");
    const double n = in.elements->in(one);
    return {i, n * ops * flop, n * per_element};
  }
  if (!in.flops) throw InputError("flops", "(missing)", "--flops together with --bytes");
  require_positive(*in.bytes, "bytes");
  return {*in.flops / *in.bytes, in.flops, in.bytes};
}

void matrix_inputs(const RooflineInput& in, ResultSet& out) {
  if (in.matmul) {
    out.input("batch", value(in.matmul->batch));
    out.input("m", value(in.matmul->m));
    out.input("k", value(in.matmul->k));
    out.input("n", value(in.matmul->n));
  } else if (in.ffn) {
    out.input("d", value(in.ffn->d));
    out.input("f", value(in.ffn->f));
    out.input("gated", boolean(in.ffn->gated));
    out.input("tokens", value(ffn_tokens(*in.ffn)));
    if (in.ffn->batch) {
      out.input("batch", value(*in.ffn->batch));
      out.input("seq", value(*in.ffn->seq));
    }
  } else {
    const AttentionInput& a = *in.attention;
    out.input("batch", value(a.batch));
    out.input("seq", value(a.seq));
    out.input("d", value(a.d));
    out.input("d_kv", value(a.d_kv.in(one) == 0.0 ? a.d : a.d_kv));
    out.input("causal_skip", boolean(a.causal_skip));
  }
}

// The flops and bytes items of a matrix op: flops.h's formula, then the least traffic.
void matrix_items(const RooflineInput& in, const Traffic& t, ResultSet& out) {
  const Bytes s = dtype_size(in.dtype);
  if (in.matmul) {
    const BatchedMatmul& mm = *in.matmul;
    if (mm.batch == 1.0 * one) {
      out.item("flops", "FLOP", value(*t.flops), "C = 2·m·k·n", text("2 · {} · {} · {}", mm.m, mm.k, mm.n));
      out.item("bytes", "bytes moved", value(*t.bytes), "Q = (m·k + k·n + m·n) · s",
               text("({} · {} + {} · {} + {} · {}) · {}", mm.m, mm.k, mm.k, mm.n, mm.m, mm.n, s));
    } else {
      out.item("flops", "FLOP", value(*t.flops), "C = 2·B·m·k·n",
               text("2 · {} · {} · {} · {}", mm.batch, mm.m, mm.k, mm.n));
      out.item("bytes", "bytes moved", value(*t.bytes), "Q = B · (m·k + k·n + m·n) · s",
               text("{} · ({} · {} + {} · {} + {} · {}) · {}", mm.batch, mm.m, mm.k, mm.k, mm.n, mm.m, mm.n, s));
    }
    return;
  }
  if (in.ffn) {
    const FfnInput& f = *in.ffn;
    const double p = f.gated ? 3.0 : 2.0;
    if (f.batch) {
      out.item("flops", "FLOP", value(*t.flops), f.gated ? "C = 6·D·F · B·T" : "C = 4·D·F · B·T",
               text("{} · {} · {} · {} · {}", 2.0 * p, f.d, f.f, *f.batch, *f.seq));
      out.item("bytes", "bytes moved", value(*t.bytes),
               f.gated ? "Q = (3·D·F + 2·B·T·D) · s" : "Q = (2·D·F + 2·B·T·D) · s",
               text("({} · {} · {} + 2 · {} · {} · {}) · {}", p, f.d, f.f, *f.batch, *f.seq, f.d, s));
    } else {
      const double tokens = ffn_tokens(f).in(token);
      out.item("flops", "FLOP", value(*t.flops), f.gated ? "C = 6·D·F · tokens" : "C = 4·D·F · tokens",
               text("{} · {} · {} · {}", 2.0 * p, f.d, f.f, tokens));
      out.item("bytes", "bytes moved", value(*t.bytes),
               f.gated ? "Q = (3·D·F + 2·tokens·D) · s" : "Q = (2·D·F + 2·tokens·D) · s",
               text("({} · {} · {} + 2 · {} · {}) · {}", p, f.d, f.f, tokens, f.d, s));
    }
    return;
  }
  const AttentionInput& a = *in.attention;
  if (a.causal_skip)
    out.item("flops", "FLOP", value(*t.flops), "C = ½ · 4·B·T²·D",
             text("0.5 · 4 · {} · {}² · {}", a.batch, a.seq, a.d));
  else
    out.item("flops", "FLOP", value(*t.flops), "C = 4·B·T²·D", text("4 · {} · {}² · {}", a.batch, a.seq, a.d));
  if (a.d_kv.in(one) == 0.0 || a.d_kv == a.d)
    out.item("bytes", "bytes moved", value(*t.bytes), "Q = 4·B·T·D · s",
             text("4 · {} · {} · {} · {}", a.batch, a.seq, a.d, s));
  else
    out.item("bytes", "bytes moved", value(*t.bytes), "Q = B·T·(2·D + 2·D_kv) · s",
             text("{} · {} · (2 · {} + 2 · {}) · {}", a.batch, a.seq, a.d, a.d_kv, s));
}

void matrix_assumptions(const RooflineInput& in, ResultSet& out) {
  out.assume("dtype", text("operands and output are {} ({} each)", dtype_name(in.dtype), dtype_size(in.dtype)));
  out.assume("flop_counting",
             text("a multiply-add counts as 2 FLOP, as flops matmul counts and as peak rates are quoted"));
  if (in.matmul) {
    const BatchedMatmul& mm = *in.matmul;
    out.assume("min_traffic",
               text("A and B read once, C written once: the least any kernel can move (tiling reaches it only "
                    "when a tile fits on chip; napkin kernel tiling)"));
    if (mm.batch == 1.0 * one)
      out.assume("matmul_batch", text("one product (--batch B: B independent products)"));
    else
      out.assume("matmul_batch",
                 text("{} independent products, each with its own A and B (torch.bmm); a weight shared by "
                      "the batch is read once: fold the batch into --m instead",
                      mm.batch));
    return;
  }
  if (in.ffn) {
    const FfnInput& f = *in.ffn;
    out.assume("min_traffic",
               text("weights read once, input read and output written once: the least any kernel can move; "
                    "the [tokens, F] intermediate stays on chip (fused; unfused it goes to memory and back)"));
    assume_ffn_counting(f.gated, out);
    if (f.batch)
      out.assume("ffn_batch_seq",
                 text("{} sequences of {} tokens: {} through the FFN", *f.batch, *f.seq, ffn_tokens(f)));
    else
      out.assume("tokens", text("tokens through the FFN: {} (default 1, one decode step)", f.tokens));
    return;
  }
  const AttentionInput& a = *in.attention;
  out.assume("min_traffic",
             text("Q, K, V read once, O written once (the FlashAttention minimum): the T×T scores stay on "
                  "chip; a standard kernel also moves them (napkin kernel flash-io)"));
  out.assume("attention_core",
             text("the attention core only, QKᵀ and A·V (flops attention's attention_flops); the Q/K/V/O "
                  "projections are matmuls of their own (--op matmul)"));
  assume_causal_skip(a.causal_skip, out);
  if (a.d_kv.in(one) == 0.0 || a.d_kv == a.d)
    out.assume("d_kv", text("multi-head attention: K and V are as wide as Q (GQA/MQA: give --d-kv)"));
  else
    out.assume("d_kv", text("K and V are {} wide (grouped/multi-query attention)", a.d_kv));
  out.assume("attention_extras", text("softmax, scaling, masking and biases not counted"));
}

}  // namespace

const ElementwiseOp* find_elementwise_op(std::string_view name) {
  for (const auto& o : kOps)
    if (o.name == name) return &o;
  return nullptr;
}

Roofline roofline(const RooflineInput& in) {
  require_positive(in.peak, "peak");
  require_positive(in.bandwidth, "bandwidth");
  if (in.launch_overhead) require_non_negative(*in.launch_overhead, "launch_overhead");
  const Traffic t = resolve_traffic(in);
  Roofline r;
  r.intensity = t.intensity;
  r.ridge = in.peak / in.bandwidth;
  r.attainable = std::min(in.peak, t.intensity * in.bandwidth);
  // At the ridge both roofs meet; the notes' condition for reaching the compute roof is I ≥ I*.
  r.compute_bound = t.intensity >= r.ridge;
  if (t.bytes) {
    // The roofline time is the larger of the compute time and the memory time.
    r.time = std::max(*t.flops / in.peak, *t.bytes / in.bandwidth);
    if (in.launch_overhead && *r.time < *in.launch_overhead) r.overhead_bound = true;
  }
  return r;
}

void roofline(const RooflineInput& in, ResultSet& out) {
  const Roofline r = roofline(in);
  const Traffic t = resolve_traffic(in);
  out.command = "roofline";
  out.input("peak", value(in.peak));
  out.input("bandwidth", value(in.bandwidth));
  if (in.op) {
    out.input("op", verdict(in.op->name));
    out.input("dtype", verdict(dtype_name(in.dtype)));
    if (in.elements) out.input("elements", value(*in.elements));
  } else if (has_matrix_op(in)) {
    out.input("op", verdict(matrix_op_name(in)));
    out.input("dtype", verdict(dtype_name(in.dtype)));
    matrix_inputs(in, out);
  } else if (in.intensity) {
    out.input("intensity", value(*in.intensity));
  }
  if (in.flops) out.input("flops", value(*in.flops));
  if (in.bytes) out.input("bytes", value(*in.bytes));
  if (in.launch_overhead) out.input("launch_overhead", value(*in.launch_overhead));

  if (in.op) {
    const double ops = in.ops_per_element.value_or(in.op->ops_per_element);
    const Bytes per_element = in.op->accesses_per_element * dtype_size(in.dtype);
    out.item("intensity", "arithmetic intensity", value(r.intensity), "I = ops / bytes per element",
             text("{} op / ({} accesses · {}) = {} op / {}", ops, in.op->accesses_per_element,
                  dtype_size(in.dtype), ops, per_element));
  } else if (in.intensity) {
    out.item("intensity", "arithmetic intensity", value(r.intensity), "I (given)",
             text("{}", r.intensity));
  } else {
    out.item("intensity", "arithmetic intensity", value(r.intensity), "I = C / Q",
             text("{} / {}", *t.flops, *t.bytes));
  }
  out.item("ridge_intensity", "ridge point", value(r.ridge), "I* = R_peak / BW",
           text("{} / {}", in.peak, in.bandwidth));
  out.item("attainable", "attainable rate", value(r.attainable), "P = min(R_peak, I · BW)",
           text("min({}, {} · {})", in.peak, r.intensity, in.bandwidth));
  out.item("peak_fraction", "fraction of peak", value(r.attainable / in.peak), "P / R_peak",
           text("{} / {}", r.attainable, in.peak));
  if (has_matrix_op(in)) {
    matrix_items(in, t, out);
  } else if (t.flops) {
    if (in.op)
      out.item("flops", "FLOP", value(*t.flops), "C = n · ops",
               text("{} · {}", *in.elements, t.flops->in(flop) / in.elements->in(one)));
    else
      out.item("flops", "FLOP", value(*t.flops), "C (given)", text("{}", *t.flops));
  }
  if (t.bytes && !has_matrix_op(in)) {
    if (in.op)
      out.item("bytes", "bytes moved", value(*t.bytes), "Q = n · bytes per element",
               text("{} · {}", *in.elements, *t.bytes / in.elements->in(one)));
    else if (in.bytes)
      out.item("bytes", "bytes moved", value(*t.bytes), "Q (given)", text("{}", *t.bytes));
    else
      out.item("bytes", "bytes moved", value(*t.bytes), "Q = C / I", text("{} / {}", *t.flops, r.intensity));
  }
  if (r.time) {
    out.item("time", "time lower bound", value(*r.time), "t = max(C / R_peak, Q / BW)",
             text("max({} / {}, {} / {})", *t.flops, in.peak, *t.bytes, in.bandwidth));
  }
  const std::string_view bound =
      r.overhead_bound ? "overhead" : (r.compute_bound ? "compute" : "memory");
  if (r.overhead_bound)
    out.item("bound", "bound", verdict(bound), "t < launch overhead",
             text("{} < {}", *r.time, *in.launch_overhead));
  else if (r.compute_bound)
    out.item("bound", "bound", verdict(bound), "I ≥ I*", text("{} ≥ {}", r.intensity, r.ridge));
  else
    out.item("bound", "bound", verdict(bound), "I < I*", text("{} < {}", r.intensity, r.ridge));

  out.assume("peak", text("{} is the peak compute rate the kernel can reach (dense, this dtype)", in.peak));
  out.assume("bandwidth", text("{} is the bandwidth of the memory level the traffic is counted at", in.bandwidth));
  out.assume("roofline_model",
             text("perfect overlap of compute and memory; caches, latency and occupancy ignored"));
  if (in.op) {
    if (in.ops_per_element)
      out.assume("ops_per_element", text("{} operations per element (given)", *in.ops_per_element));
    else
      out.assume("ops_per_element", text("{}", in.op->counting));
    out.assume("dtype", text("elements are {} ({} each), read and written once from memory",
                              dtype_name(in.dtype), dtype_size(in.dtype)));
    if (in.op->name == "relu") {
      out.note(text("ReLU reads and writes each element once: {} moved per element for 1 operation",
                    in.op->accesses_per_element * dtype_size(in.dtype)));
      out.note(text("I = 1 op / {} = {} (op/B); in fp32 it is 1/8 = 0.125 and in fp16 1/4 = 0.25",
                    in.op->accesses_per_element * dtype_size(in.dtype), r.intensity));
      out.remark(text("erratum: the slides' body text says 8 (fp32) and 4 (fp16) FLOP/byte for ReLU, which "
                      "inverts the ratio; the table beside it is right: 1/8 = 0.125 and 1/4 = 0.25 op/B (notes 7.5)"));
    }
  }
  if (has_matrix_op(in)) matrix_assumptions(in, out);
  if (in.launch_overhead)
    out.assume("launch_overhead", text("{} of launch overhead per kernel", *in.launch_overhead));
  else if (r.time)
    out.assume("launch_overhead",
               text("kernel launch overhead ignored (give --launch-overhead, e.g. 5us, to check "
                    "for overhead-bound kernels)"));
  if (in.launch_overhead && !r.time)
    out.warn(text("--launch-overhead needs a FLOP count (--flops, or --op with --elements) to "
                  "compare against; the overhead verdict is skipped"));
  out.note(text("ridge: the kernel needs I ≥ {} to reach the compute roof", r.ridge));
}

}  // namespace napkin
