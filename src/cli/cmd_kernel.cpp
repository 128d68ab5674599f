// napkin kernel grid|waves|tiling|flash-io|online-softmax: GPU kernel arithmetic (course notes
// 7.1, 7.6, 7.7, 7.8).
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "command.h"
#include "flag_checks.h"
#include "hardware_option.h"
#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/ground/parse_quantity.h"
#include "napkin/kernel/gpu_kernel.h"
#include "numeric_flags.h"
#include "output_flags.h"
#include "sweep_runner.h"

namespace napkin::cli {

namespace {

constexpr DimRt kCount = dim_rt<Count::dim>();
constexpr double kExactIntegers = 9007199254740992.0;  // 2^53

// "1920x1080" (or "8x8x4"): a shape, as opposed to a number, a list or a range ("1..64:x2").
bool is_shape(std::string_view s) { return s.find('x') != s.npos && s.find("..") == s.npos; }

// Splits "AxBxC" into counts, each a positive integer (units such as 8k and 4Ki allowed).
std::vector<Count> parse_shape(const std::string& text, const std::string& flag, std::size_t max_dims) {
  std::vector<Count> dims;
  std::size_t pos = 0;
  while (true) {
    const auto x = text.find('x', pos);
    const std::string part = text.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    const double v = parse_quantity(part, kCount, flag);
    if (!(v >= 1) || std::floor(v) != v)
      throw InputError(flag, text, "positive integers in every dimension (e.g. 1920x1080)");
    if (v >= kExactIntegers)
      throw InputError(flag, text, "dimensions below 2^53 = 9007199254740992 (counts stay exact)");
    dims.push_back(v * units::one);
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  if (dims.size() > max_dims)
    throw InputError(flag, text, "at most " + std::to_string(max_dims) + " dimensions (e.g. 1920x1080)");
  return dims;
}

// ---- grid -----------------------------------------------------------------------------------

struct GridCmd {
  NumericFlags nf;
  std::size_t n = 0, block = 0, warp = 0;
  OutputOptions out;
};

void add_grid(CommandApp* kernel, int& exit_code) {
  auto* sub = kernel->add_command("grid", "Launch grid: blocks = ceil(n/b), idle threads, warps and masked lanes");
  auto c = std::make_shared<GridCmd>();
  c->n = c->nf.add(sub, "--n", "n", kCount, Constraint::positive_integer,
                   "Elements: n (1-D, sweepable) or n_x x n_y [x n_z], e.g. 1920x1080", "COUNT|NxM");
  c->block = c->nf.add(sub, "--block", "block", kCount, Constraint::positive_integer,
                       "Threads per block (blockDim): b, or b_x x b_y [x b_z] with as many dimensions as --n",
                       "COUNT|BxB");
  sub->get_option("--n")->required();
  sub->get_option("--block")->required();
  c->warp = c->nf.add(sub, "--warp-size", "warp_size", kCount, Constraint::positive_integer,
                      "Threads per warp (default 32; AMD CDNA wavefronts are 64)", "COUNT", 32.0);
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin kernel grid --n 1000 --block 256\n"
              "         napkin kernel grid --n 1920x1080 --block 16x16 --explain");
  sub->callback([c, sub, &exit_code] {
    auto& flags = c->nf.flags();
    std::optional<std::vector<Count>> n_shape, block_shape;
    if (is_shape(flags[c->n].raw) || is_shape(flags[c->block].raw)) {
      // A shape takes one value; the sweep sees its x extent only, which the shape overrides.
      n_shape = parse_shape(flags[c->n].raw, "--n", 3);
      block_shape = parse_shape(flags[c->block].raw, "--block", 3);
      flags[c->n].raw = "1";
      flags[c->block].raw = "1";
    }
    exit_code = run_sweep(sub, c->nf, c->out, [&](const Point& p, ResultSet& rs) {
      GridInput in;
      if (n_shape) {
        in.n = *n_shape;
        in.block = *block_shape;
      } else {
        in.n = {p.get<Count>(c->n)};
        in.block = {p.get<Count>(c->block)};
      }
      in.warp_size = p.get<Count>(c->warp);
      launch_grid(in, rs);
    });
  });
}

// ---- waves ----------------------------------------------------------------------------------

struct WavesCmd {
  NumericFlags nf;
  std::size_t m = 0, n = 0, sms = 0, per_sm = 0, scan = 0;
  std::string tile;
  HardwareOption hw;
  OutputOptions out;
};

void add_waves(CommandApp* kernel, int& exit_code) {
  auto* sub = kernel->add_command("waves", "Wave quantization: output tiles over SMs, waves, the last wave's tiles");
  auto c = std::make_shared<WavesCmd>();
  c->m = c->nf.add(sub, "--m", "m", kCount, Constraint::positive_integer, "Output rows", "COUNT");
  c->n = c->nf.add(sub, "--n", "n", kCount, Constraint::positive_integer, "Output columns", "COUNT");
  sub->add_option("--tile", c->tile, "Output tile per thread block, T_m x T_n (e.g. 256x128), or T for T x T")
      ->type_name("MxN")
      ->required();
  c->sms = c->nf.add(sub, "--sms", "sms", kCount, Constraint::positive_integer,
                     "Streaming multiprocessors (e.g. 108 on an A100, 132 on an H100 SXM)", "COUNT");
  sub->get_option("--sms")->group("Hardware");
  add_hw_option(sub, c->hw);
  c->per_sm = c->nf.add(sub, "--blocks-per-sm", "blocks_per_sm", kCount, Constraint::positive_integer,
                        "Tiles resident per SM at a time (default 1, the notes' simplification)", "COUNT", 1.0);
  c->scan = c->nf.add(sub, "--scan", "size", kCount, Constraint::positive_integer,
                      "Square sizes m = n = s to scan, e.g. 1790..1800 or 1024..4096:+64; marks wave cliffs",
                      "M0..M1");
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin kernel waves --m 1793 --n 1793 --tile 256x128 --sms 108\n"
              "         napkin kernel waves --scan 1790..1796 --tile 256x128 --sms 108");
  sub->callback([c, sub, &exit_code] {
    reject_extras(sub);
    c->hw.load();
    if (c->hw.spec && c->hw.spec->sm_count) c->hw.fill(c->nf.flags()[c->sms], *c->hw.spec->sm_count);
    require_value(c->nf.flags()[c->sms], "a count of streaming multiprocessors such as 108");
    const std::vector<Count> tile = parse_shape(c->tile, "--tile", 2);
    const Count tile_m = tile[0], tile_n = tile.size() == 2 ? tile[1] : tile[0];
    auto* opt_m = sub->get_option("--m");
    auto* opt_n = sub->get_option("--n");
    const bool scan = sub->get_option("--scan")->count() > 0;
    if (scan && (opt_m->count() > 0 || opt_n->count() > 0))
      throw InputError("--scan", c->nf.flags()[c->scan].raw, "--scan without --m and --n (it sets m = n = s)");
    if (!scan && opt_m->count() == 0) throw InputError("--m", "(missing)", "--m and --n, or --scan M0..M1");
    if (!scan && opt_n->count() == 0) throw InputError("--n", "(missing)", "--m and --n, or --scan M0..M1");
    std::optional<double> prev;  // the previous size of the scan
    exit_code = run_sweep(sub, c->nf, c->out, [&](const Point& p, ResultSet& rs) {
      WavesInput in;
      in.tile_m = tile_m;
      in.tile_n = tile_n;
      in.sms = p.get<Count>(c->sms);
      in.blocks_per_sm = p.get<Count>(c->per_sm);
      if (!scan) {
        in.m = p.get<Count>(c->m);
        in.n = p.get<Count>(c->n);
        wave_quantization(in, rs);
        c->hw.assume(rs);
        return;
      }
      const double s = p[c->scan];
      in.m = in.n = s * units::one;
      // A cliff compares with the previous size of the scan; the first size with s − 1.
      std::optional<WavesInput> before;
      const double ps = prev && *prev < s ? *prev : s - 1;
      if (ps >= 1) {
        before = in;
        before->m = before->n = ps * units::one;
      }
      prev = s;
      rs.input("size", value(in.m));
      wave_quantization(in, rs, before);
    });
  });
}

// ---- tiling ---------------------------------------------------------------------------------

struct TilingCmd {
  NumericFlags nf;
  std::size_t m = 0, k = 0, n = 0, tile = 0, smem = 0, peak = 0, bandwidth = 0;
  std::string dtype;
  HardwareOption hw;
  OutputOptions out;
};

void add_tiling(CommandApp* kernel, int& exit_code) {
  auto* sub = kernel->add_command("tiling", "HBM traffic of a naive vs a T×T-tiled matmul, reuse and intensity");
  auto c = std::make_shared<TilingCmd>();
  c->m = c->nf.add(sub, "--m", "m", kCount, Constraint::positive_integer, "Rows of A and of the output", "COUNT");
  c->k = c->nf.add(sub, "--k", "k", kCount, Constraint::positive_integer, "Columns of A, rows of B", "COUNT");
  c->n = c->nf.add(sub, "--n", "n", kCount, Constraint::positive_integer, "Columns of B and of the output", "COUNT");
  c->tile = c->nf.add(sub, "--tile", "tile", kCount, Constraint::positive_integer,
                      "Tile edge T (square T×T tiles of A and B in shared memory)", "COUNT");
  for (const char* f : {"--m", "--k", "--n", "--tile"}) sub->get_option(f)->required();
  sub->add_option("--dtype", c->dtype, "Element type: fp32, bf16, fp16, fp8, ...")->type_name("DTYPE")->required();
  c->smem = c->nf.add(sub, "--smem-per-sm", "smem_per_sm", dim_rt<Bytes::dim>(), Constraint::positive,
                      "Shared memory per SM, e.g. 228KiB: the tile pair must fit", "BYTES");
  c->peak = c->nf.add(sub, "--peak", "peak", dim_rt<FlopRate::dim>(), Constraint::positive,
                      "Peak compute rate for the roofline placement, e.g. 989TFLOP/s (with --bandwidth)", "FLOP/s");
  c->bandwidth = c->nf.add(sub, "--bandwidth", "bandwidth", dim_rt<Bandwidth::dim>(), Constraint::positive,
                           "HBM bandwidth, e.g. 3.35TB/s (with --peak)", "B/s");
  for (const char* f : {"--smem-per-sm", "--peak", "--bandwidth"}) sub->get_option(f)->group("Hardware");
  add_hw_option(sub, c->hw);
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin kernel tiling --m 4096 --k 4096 --n 4096 --tile 32 --dtype fp32 --smem-per-sm 228KiB");
  sub->callback([c, sub, &exit_code] {
    const Dtype dtype = parse_dtype(c->dtype, "--dtype");
    reject_extras(sub);
    c->hw.load();
    if (const auto& h = c->hw.spec) {
      if (h->smem_per_sm) c->hw.fill(c->nf.flags()[c->smem], h->smem_per_sm->in_base_units());
      if (const auto pk = h->peak(dtype)) c->hw.fill(c->nf.flags()[c->peak], pk->in_base_units());
      c->hw.fill(c->nf.flags()[c->bandwidth], h->bandwidth.in_base_units());
    }
    exit_code = run_sweep(sub, c->nf, c->out, [&](const Point& p, ResultSet& rs) {
      TilingInput in;
      in.m = p.get<Count>(c->m);
      in.k = p.get<Count>(c->k);
      in.n = p.get<Count>(c->n);
      in.tile = p.get<Count>(c->tile);
      in.dtype = dtype;
      in.smem_per_sm = p.maybe<Bytes>(c->smem);
      in.peak = p.maybe<FlopRate>(c->peak);
      in.bandwidth = p.maybe<Bandwidth>(c->bandwidth);
      tiled_matmul_traffic(in, rs);
      c->hw.assume(rs);
    });
  });
}

// ---- flash-io -------------------------------------------------------------------------------

struct FlashCmd {
  NumericFlags nf;
  std::size_t batch = 0, heads = 0, seq = 0, head_dim = 0, sram = 0, peak = 0, bandwidth = 0;
  std::string dtype;
  bool backward = false;
  HardwareOption hw;
  OutputOptions out;
};

void add_flash_io(CommandApp* kernel, int& exit_code) {
  auto* sub = kernel->add_command(
      "flash-io", "HBM bytes of standard attention vs FlashAttention (Dao et al. 2022), intensity and time");
  auto c = std::make_shared<FlashCmd>();
  c->batch = c->nf.add(sub, "--batch", "batch", kCount, Constraint::positive_integer, "Sequences B (default 1)",
                       "COUNT", 1.0);
  c->heads = c->nf.add(sub, "--heads", "heads", kCount, Constraint::positive_integer, "Attention heads H (default 1)",
                       "COUNT", 1.0);
  c->seq = c->nf.add(sub, "--seq", "seq", kCount, Constraint::positive_integer, "Sequence length N", "COUNT");
  c->head_dim = c->nf.add(sub, "--head-dim", "head_dim", kCount, Constraint::positive_integer, "Head dimension d",
                          "COUNT");
  sub->get_option("--seq")->required();
  sub->get_option("--head-dim")->required();
  sub->add_option("--dtype", c->dtype, "Element type of Q, K, V, O: bf16, fp16, fp32, ...")
      ->type_name("DTYPE")
      ->required();
  c->sram = c->nf.add(sub, "--sram", "sram", dim_rt<Bytes::dim>(), Constraint::positive,
                      "On-chip SRAM per SM, e.g. 100KiB (the paper's M, in bytes)", "BYTES");
  sub->get_option("--sram")->group("Hardware");
  add_hw_option(sub, c->hw);
  sub->add_flag("--backward", c->backward,
                "Add the backward pass: standard (Algorithm 3) vs FlashAttention with recomputation (Algorithm 4)");
  c->peak = c->nf.add(sub, "--peak", "peak", dim_rt<FlopRate::dim>(), Constraint::positive,
                      "Peak compute rate for the roofline time, e.g. 989TFLOP/s (with --bandwidth)", "FLOP/s");
  c->bandwidth = c->nf.add(sub, "--bandwidth", "bandwidth", dim_rt<Bandwidth::dim>(), Constraint::positive,
                           "HBM bandwidth, e.g. 3.35TB/s (with --peak)", "B/s");
  for (const char* f : {"--peak", "--bandwidth"}) sub->get_option(f)->group("Hardware");
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin kernel flash-io --batch 8 --heads 32 --seq 4096 --head-dim 128 --dtype bf16 --sram 100KiB");
  sub->callback([c, sub, &exit_code] {
    const Dtype dtype = parse_dtype(c->dtype, "--dtype");
    reject_extras(sub);
    c->hw.load();
    if (const auto& h = c->hw.spec) {
      // The paper's M is the on-chip SRAM one thread block can use: the shared memory of one SM.
      if (h->smem_per_sm) c->hw.fill(c->nf.flags()[c->sram], h->smem_per_sm->in_base_units());
      if (const auto pk = h->peak(dtype)) c->hw.fill(c->nf.flags()[c->peak], pk->in_base_units());
      c->hw.fill(c->nf.flags()[c->bandwidth], h->bandwidth.in_base_units());
    }
    require_value(c->nf.flags()[c->sram], "an SRAM size such as 100KiB");
    exit_code = run_sweep(sub, c->nf, c->out, [&](const Point& p, ResultSet& rs) {
      FlashIoInput in;
      in.batch = p.get<Count>(c->batch);
      in.heads = p.get<Count>(c->heads);
      in.seq = p.get<Count>(c->seq);
      in.head_dim = p.get<Count>(c->head_dim);
      in.dtype = dtype;
      in.sram = p.get<Bytes>(c->sram);
      in.backward = c->backward;
      in.peak = p.maybe<FlopRate>(c->peak);
      in.bandwidth = p.maybe<Bandwidth>(c->bandwidth);
      flash_attention_io(in, rs);
      c->hw.assume(rs);
    });
  });
}

// ---- online softmax -------------------------------------------------------------------------

struct SoftmaxCmd {
  NumericFlags nf;  // none: the lists are not sweepable
  std::string scores, values, blocks;
  OnlineSoftmaxInput in;  // kept here: the ResultSet points into its texts
  OutputOptions out;
};

void add_online_softmax(CommandApp* kernel, int& exit_code) {
  auto* sub = kernel->add_command("online-softmax",
                                     "Online softmax block by block: running (m, ℓ, u), rescale, output vs reference");
  auto c = std::make_shared<SoftmaxCmd>();
  sub->add_option("--scores", c->scores, "Scores of one query row: numbers, e, ln2, ln(3), -inf (masked)")
      ->type_name("LIST")
      ->required();
  sub->add_option("--values", c->values, "One value per score (1,2,4), or rows of d numbers (1,0;2,1;4,2)")
      ->type_name("LIST")
      ->required();
  sub->add_option("--blocks", c->blocks, "Block sizes summing to the number of scores, e.g. 2,1 (default 1 each)")
      ->type_name("LIST");
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin kernel online-softmax --scores 0,ln2,ln3 --values 1,2,4 --blocks 2,1\n"
              "         (start a list with a masked score as --scores=-inf,0,1)\n"
              "--explain works every block out with its numbers: m', the rescale exp(m − m'), ℓ', u'");
  sub->callback([c, sub, &exit_code] {
    c->in.scores = parse_score_list(c->scores, "--scores");
    c->in.values = parse_value_rows(c->values, "--values");
    if (c->in.values.size() != c->in.scores.size())
      throw InputError("--values", c->values,
                       std::to_string(c->in.scores.size()) + " values (one per score; rows separated by ';'), got " +
                           std::to_string(c->in.values.size()));
    if (c->blocks.empty()) {
      c->in.blocks.assign(c->in.scores.size(), 1.0);
    } else {
      std::size_t pos = 0;
      while (true) {
        const auto comma = c->blocks.find(',', pos);
        const std::string part = c->blocks.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        const double v = parse_quantity(part, kCount, "--blocks");
        if (!(v >= 1) || std::floor(v) != v)
          throw InputError("--blocks", c->blocks, "block sizes that are positive integers, e.g. 2,1");
        c->in.blocks.push_back(v);
        if (comma == std::string::npos) break;
        pos = comma + 1;
      }
      double sum = 0;
      for (double b : c->in.blocks) sum += b;
      if (sum != static_cast<double>(c->in.scores.size()))
        throw InputError("--blocks", c->blocks,
                         "block sizes summing to the number of scores, " + std::to_string(c->in.scores.size()) +
                             " (they sum to " + format_plain_number(sum) + ")");
    }
    c->in.scores_text = c->scores;
    c->in.values_text = c->values;
    exit_code = run_sweep(sub, c->nf, c->out, [&](const Point&, ResultSet& rs) { online_softmax(c->in, rs); });
  });
}

}  // namespace

void add_kernel_command(CLI::App& app, int& exit_code) {
  auto* kernel = add_command(app, "kernel", "GPU kernel arithmetic: grid, waves, tiling, flash-io, online-softmax");
  kernel->require_subcommand(1);
  add_grid(kernel, exit_code);
  add_waves(kernel, exit_code);
  add_tiling(kernel, exit_code);
  add_flash_io(kernel, exit_code);
  add_online_softmax(kernel, exit_code);
}

}  // namespace napkin::cli
