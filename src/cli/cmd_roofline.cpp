// napkin roofline: bound, ridge point, attainable rate and time (course notes 7.5, 7.2).
#include <memory>

#include "command.h"
#include "napkin/dtype.h"
#include "napkin/error.h"
#include "napkin/roofline.h"

namespace napkin::cli {

namespace {

struct RooflineCmd {
  NumericFlags nf;
  std::size_t peak = 0, bandwidth = 0, intensity = 0, flops = 0, bytes = 0, elements = 0, ops = 0, overhead = 0;
  std::string op, dtype;
  HardwareOption hw;
  OutputOptions out;
};

}  // namespace

void add_roofline_command(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("roofline", "Compute- or memory-bound? P = min(R_peak, I·BW), ridge I* = R_peak/BW");
  auto c = std::make_shared<RooflineCmd>();
  c->peak = c->nf.add(sub, "--peak", "peak", dim_rt<FlopRate::dim>(), Constraint::positive,
                      "Peak compute rate, e.g. 989TFLOP/s (dense, for the dtype used)", "FLOP/s");
  c->bandwidth = c->nf.add(sub, "--bandwidth", "bandwidth", dim_rt<Bandwidth::dim>(), Constraint::positive,
                           "Memory bandwidth, e.g. 3.35TB/s", "B/s");
  sub->get_option("--peak")->group("Hardware");
  sub->get_option("--bandwidth")->group("Hardware");
  add_hw_option(sub, c->hw);
  c->intensity = c->nf.add(sub, "--intensity", "intensity", dim_rt<Intensity::dim>(), Constraint::non_negative,
                           "Arithmetic intensity I in FLOP/B", "FLOP/B");
  c->flops = c->nf.add(sub, "--flops", "flops", dim_rt<Flops::dim>(), Constraint::non_negative,
                       "FLOP of the kernel (with --bytes or --intensity; gives the time)", "FLOP");
  c->bytes = c->nf.add(sub, "--bytes", "bytes", dim_rt<Bytes::dim>(), Constraint::positive,
                       "Bytes moved at the memory level of --bandwidth", "BYTES");
  sub->add_option("--op", c->op, "Elementwise op preset: relu, add, gelu or copy")->type_name("relu|add|gelu|copy");
  sub->add_option("--dtype", c->dtype, "Element type for --op (default fp32); with --hw also the peak's dtype "
                                      "(default bf16)")->type_name("DTYPE");
  c->elements = c->nf.add(sub, "--elements", "elements", dim_rt<Count::dim>(), Constraint::positive_integer,
                          "Vector length for --op (gives FLOP, bytes and time)", "COUNT");
  c->ops = c->nf.add(sub, "--ops-per-element", "ops_per_element", dim_rt<Count::dim>(), Constraint::non_negative,
                     "Override the operations counted per element of --op", "OPS");
  c->overhead = c->nf.add(sub, "--launch-overhead", "launch_overhead", dim_rt<Seconds::dim>(), Constraint::non_negative,
                          "Per-kernel launch overhead, e.g. 5us: below it the verdict is overhead-bound", "TIME");
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin roofline --peak 100TFLOP/s --bandwidth 1TB/s --intensity 10\n"
              "         napkin roofline --hw h100-sxm --flops 137438953472 --bytes 100663296\n"
              "         napkin roofline --peak 100TFLOP/s --bandwidth 1TB/s --op relu --dtype fp16");
  sub->callback([c, sub, &exit_code] {
    reject_extras(sub);
    const ElementwiseOp* op = nullptr;
    if (!c->op.empty()) {
      op = find_elementwise_op(c->op);
      if (op == nullptr) throw InputError("--op", c->op, "relu, add, gelu or copy");
    }
    // --elements and --ops-per-element describe an --op; without one they would change nothing.
    for (const std::size_t i : {c->elements, c->ops}) {
      const NumericFlag& f = c->nf.flags()[i];
      if (op == nullptr && !f.raw.empty())
        throw InputError(f.flag, f.raw, "--op with it (" + f.flag + " describes an elementwise op)");
    }
    Dtype dtype = Dtype::fp32;
    if (!c->dtype.empty()) {
      if (op == nullptr && c->hw.arg.empty()) throw InputError("--dtype", c->dtype, "--dtype together with --op or --hw");
      dtype = parse_dtype(c->dtype, "--dtype");
    }
    c->hw.load();
    if (c->hw.spec) {
      const Dtype peak_dtype = c->dtype.empty() ? Dtype::bf16 : dtype;
      const auto peak = c->hw.spec->peak(peak_dtype);
      if (!peak && c->nf.flags()[c->peak].raw.empty())
        throw InputError("--hw", c->hw.arg, std::string("hardware with a published dense ") +
                                                std::string(dtype_name(peak_dtype)) + " peak, or --peak");
      if (peak) c->hw.fill(c->nf.flags()[c->peak], peak->in_base_units());
      c->hw.fill(c->nf.flags()[c->bandwidth], c->hw.spec->bandwidth.in_base_units());
    }
    require_value(c->nf.flags()[c->peak], "a peak rate such as 989TFLOP/s");
    require_value(c->nf.flags()[c->bandwidth], "a bandwidth such as 3.35TB/s");
    exit_code = run_sweep(sub, c->nf, c->out, [&](const Point& p, ResultSet& rs) {
      RooflineInput in;
      in.peak = p.get<FlopRate>(c->peak);
      in.bandwidth = p.get<Bandwidth>(c->bandwidth);
      in.intensity = p.maybe<Intensity>(c->intensity);
      in.flops = p.maybe<Flops>(c->flops);
      in.bytes = p.maybe<Bytes>(c->bytes);
      in.op = op;
      in.dtype = dtype;
      if (p.has(c->ops)) in.ops_per_element = p[c->ops];
      in.elements = p.maybe<Count>(c->elements);
      in.launch_overhead = p.maybe<Seconds>(c->overhead);
      roofline(in, rs);
      c->hw.assume(rs);
    });
  });
}

}  // namespace napkin::cli
