#include "napkin/roofline.h"

#include <algorithm>
#include <array>
#include <string>

#include "napkin/check.h"
#include "napkin/error.h"

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

Traffic resolve_traffic(const RooflineInput& in) {
  const int ways = (in.intensity ? 1 : 0) + (in.bytes ? 1 : 0) + (in.op ? 1 : 0);
  if (ways != 1)
    throw InputError("intensity", ways == 0 ? "(none)" : "(several)",
                     "exactly one of --intensity, --flops with --bytes, or --op");
  if (in.flops) require_non_negative(*in.flops, "flops");
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
  if (t.flops) {
    if (in.op)
      out.item("flops", "FLOP", value(*t.flops), "C = n · ops",
               text("{} · {}", *in.elements, t.flops->in(flop) / in.elements->in(one)));
    else
      out.item("flops", "FLOP", value(*t.flops), "C (given)", text("{}", *t.flops));
  }
  if (t.bytes) {
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
