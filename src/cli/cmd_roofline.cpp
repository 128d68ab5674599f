// napkin roofline: bound, ridge point, attainable rate and time (course notes 7.5, 7.2).
#include <memory>

#include "command.h"
#include "flag_checks.h"
#include "hardware_option.h"
#include "napkin/ground/dtype.h"
#include "napkin/ground/error.h"
#include "napkin/plans/roofline.h"
#include "numeric_flags.h"
#include "output_flags.h"
#include "sweep_runner.h"

namespace napkin::cli {

namespace {

constexpr DimRt kCount = dim_rt<Count::dim>();

struct RooflineCmd {
  NumericFlags nf;
  std::size_t peak = 0, bandwidth = 0, intensity = 0, flops = 0, bytes = 0, elements = 0, ops = 0, overhead = 0;
  // Shapes of the matrix ops (--op matmul, ffn, attention).
  std::size_t m = 0, k = 0, n = 0, batch = 0, seq = 0, d = 0, f = 0, d_kv = 0, tokens = 0;
  bool gated = false, causal_skip = false;
  std::string op, dtype;
  HardwareOption hw;
  OutputOptions out;
};

// Which --op a flag belongs to: a flag given with another --op (or none) would change nothing,
// so it is refused by name.
enum OpSet : unsigned { kNoOp = 1, kElementwise = 2, kMatmul = 4, kFfn = 8, kAttention = 16 };
constexpr unsigned kMatrix = kMatmul | kFfn | kAttention;

struct FlagOps {
  const char* flag;
  unsigned ops;
  const char* owners;  // for the message: the --op values that take it
};
constexpr FlagOps kFlagOps[] = {
    {"--m", kMatmul, "matmul"},
    {"--k", kMatmul, "matmul"},
    {"--n", kMatmul, "matmul"},
    {"--batch", kMatrix, "matmul, ffn or attention"},
    {"--seq", kFfn | kAttention, "ffn or attention"},
    {"--d", kFfn | kAttention, "ffn or attention"},
    {"--f", kFfn, "ffn"},
    {"--tokens", kFfn, "ffn"},
    {"--gated", kFfn, "ffn"},
    {"--d-kv", kAttention, "attention"},
    {"--causal-skip", kAttention, "attention"},
};

// The value as typed, "(given)" for a flag without one.
std::string typed(const CLI::Option* o) {
  const auto& r = o->results();
  return r.empty() || o->get_expected_min() == 0 ? std::string("(given)") : r.front();
}

void check_op_flags(CommandApp* sub, unsigned chosen, const std::string& op) {
  for (const FlagOps& fo : kFlagOps) {
    const CLI::Option* o = sub->get_option(fo.flag);
    if (o->count() == 0 || (fo.ops & chosen) != 0) continue;
    throw InputError(fo.flag, typed(o),
                     std::string("--op ") + fo.owners + " with it" +
                         (op.empty() ? std::string() : " (--op " + op + " has no " + fo.flag + ")"));
  }
  if ((chosen & kMatrix) == 0) return;
  // A matrix op's shapes give the FLOP, the bytes and so the intensity.
  for (const char* flag : {"--intensity", "--flops", "--bytes", "--elements", "--ops-per-element"}) {
    const CLI::Option* o = sub->get_option(flag);
    if (o->count() != 0)
      throw InputError(flag, typed(o),
                       "no " + std::string(flag) + " with --op " + op + " (its shapes give the FLOP and the bytes)");
  }
}

void require_shape(const NumericFlag& f, const std::string& op) {
  if (f.raw.empty()) throw InputError(f.flag, "(missing)", "a size with --op " + op);
}

}  // namespace

void add_roofline_command(CLI::App& app, int& exit_code) {
  auto* sub = add_command(app, "roofline", "Compute- or memory-bound? P = min(R_peak, I·BW), ridge I* = R_peak/BW");
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
  sub->add_option("--op", c->op,
                  "An elementwise op (relu, add, gelu, copy: with --elements) or a matrix op (matmul, ffn, "
                  "attention: with its shapes and --dtype), instead of --intensity")
      ->type_name("relu|add|gelu|copy|matmul|ffn|attention");
  sub->add_option("--dtype", c->dtype, "Element type for --op (default fp32; a matrix op needs it); with --hw "
                                      "also the peak's dtype (default bf16)")->type_name("DTYPE");
  c->elements = c->nf.add(sub, "--elements", "elements", dim_rt<Count::dim>(), Constraint::positive_integer,
                          "Vector length for --op (gives FLOP, bytes and time)", "COUNT");
  c->ops = c->nf.add(sub, "--ops-per-element", "ops_per_element", dim_rt<Count::dim>(), Constraint::non_negative,
                     "Override the operations counted per element of --op", "OPS");
  const char* shapes = "Shapes (--op matmul, ffn, attention)";
  c->m = c->nf.add(sub, "--m", "m", kCount, Constraint::positive_integer, "--op matmul: rows of A and of C", "COUNT");
  c->k = c->nf.add(sub, "--k", "k", kCount, Constraint::positive_integer, "--op matmul: the reduction (A's columns)",
                   "COUNT");
  c->n = c->nf.add(sub, "--n", "n", kCount, Constraint::positive_integer, "--op matmul: columns of B and of C",
                   "COUNT");
  c->batch = c->nf.add(sub, "--batch", "batch", kCount, Constraint::positive_integer,
                       "--op matmul: independent products (default 1); ffn, attention: sequences B", "COUNT");
  c->seq = c->nf.add(sub, "--seq", "seq", kCount, Constraint::positive_integer,
                     "--op ffn (with --batch), attention: tokens per sequence T", "COUNT");
  c->d = c->nf.add(sub, "--d", "d", kCount, Constraint::positive_integer, "--op ffn, attention: model width D",
                   "COUNT");
  c->f = c->nf.add(sub, "--f", "f", kCount, Constraint::positive_integer, "--op ffn: hidden width F", "COUNT");
  c->tokens = c->nf.add(sub, "--tokens", "tokens", dim_rt<Tokens::dim>(), Constraint::positive,
                        "--op ffn: tokens through the block (default 1; or --batch with --seq)", "TOKENS", 1.0);
  c->d_kv = c->nf.add(sub, "--d-kv", "d_kv", kCount, Constraint::positive_integer,
                      "--op attention: width of K and V (KV heads × head dim; default D)", "COUNT");
  sub->add_flag("--gated", c->gated, "--op ffn: gated (SwiGLU, GeGLU), three projections");
  sub->add_flag("--causal-skip", c->causal_skip, "--op attention: the kernel skips the masked half of the scores");
  for (const char* flag : {"--m", "--k", "--n", "--batch", "--seq", "--d", "--f", "--tokens", "--d-kv", "--gated",
                           "--causal-skip"})
    sub->get_option(flag)->group(shapes);
  c->overhead = c->nf.add(sub, "--launch-overhead", "launch_overhead", dim_rt<Seconds::dim>(), Constraint::non_negative,
                          "Per-kernel launch overhead, e.g. 5us: below it the verdict is overhead-bound", "TIME");
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin roofline --peak 100TFLOP/s --bandwidth 1TB/s --intensity 10\n"
              "         napkin roofline --hw h100-sxm --flops 137438953472 --bytes 100663296\n"
              "         napkin roofline --peak 100TFLOP/s --bandwidth 1TB/s --op relu --dtype fp16\n"
              "         napkin roofline --hw a100-sxm-80gb --op matmul --m 1024 --k 1024 --n 1024 --dtype fp16");
  sub->callback([c, sub, &exit_code] {
    reject_extras(sub);
    const ElementwiseOp* op = nullptr;
    unsigned chosen = kNoOp;
    if (!c->op.empty()) {
      op = find_elementwise_op(c->op);
      chosen = op != nullptr          ? kElementwise
               : c->op == "matmul"    ? kMatmul
               : c->op == "ffn"       ? kFfn
               : c->op == "attention" ? kAttention
                                      : 0u;
      if (chosen == 0u) throw InputError("--op", c->op, "relu, add, gelu, copy, matmul, ffn or attention");
    }
    check_op_flags(sub, chosen, c->op);
    const bool matrix = (chosen & kMatrix) != 0;
    // --elements and --ops-per-element describe an --op; without one they would change nothing.
    for (const std::size_t i : {c->elements, c->ops}) {
      const NumericFlag& f = c->nf.flags()[i];
      if (op == nullptr && !f.raw.empty())
        throw InputError(f.flag, f.raw, "--op with it (" + f.flag + " describes an elementwise op)");
    }
    const auto& flags = c->nf.flags();
    if (matrix && c->dtype.empty())
      throw InputError("--dtype", "(missing)", "an element type with --op " + c->op + ", such as fp16 or bf16");
    if (chosen == kMatmul)
      for (const std::size_t i : {c->m, c->k, c->n}) require_shape(flags[i], c->op);
    if (chosen == kFfn) {
      for (const std::size_t i : {c->d, c->f}) require_shape(flags[i], c->op);
      check_tokens_or_batch_seq(flags[c->tokens], flags[c->batch], flags[c->seq]);
    }
    if (chosen == kAttention)
      for (const std::size_t i : {c->batch, c->seq, c->d}) require_shape(flags[i], c->op);
    Dtype dtype = Dtype::fp32;
    if (!c->dtype.empty()) {
      if (op == nullptr && !matrix && c->hw.arg.empty())
        throw InputError("--dtype", c->dtype, "--dtype together with --op or --hw");
      dtype = parse_dtype(c->dtype, "--dtype");
    }
    c->hw.load();
    c->hw.require_given(c->nf.flags()[c->bandwidth], "--bandwidth", "memory bandwidth");
    c->hw.require_given(c->nf.flags()[c->peak], "--peak", "peak FLOP rate");
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
      if (chosen == kMatmul)
        in.matmul = BatchedMatmul{p.maybe<Count>(c->batch).value_or(1.0 * units::one), p.get<Count>(c->m),
                                  p.get<Count>(c->k), p.get<Count>(c->n)};
      if (chosen == kFfn) {
        in.ffn = FfnInput{p.get<Count>(c->d), p.get<Count>(c->f), c->gated, p.get<Tokens>(c->tokens)};
        in.ffn->batch = p.maybe<Count>(c->batch);
        in.ffn->seq = p.maybe<Count>(c->seq);
      }
      if (chosen == kAttention)
        in.attention = AttentionInput{p.get<Count>(c->batch), p.get<Count>(c->seq), p.get<Count>(c->d),
                                      p.maybe<Count>(c->d_kv).value_or(Count{}), 1.0 * units::one, c->causal_skip};
      roofline(in, rs);
      c->hw.assume(rs);
    });
  });
}

}  // namespace napkin::cli
