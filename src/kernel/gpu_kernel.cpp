// Grids, waves, tiling and FlashAttention traffic: the launch and traffic arithmetic of one GPU kernel.
#include "napkin/kernel/gpu_kernel.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"

namespace napkin {

using namespace units;

namespace {

constexpr double kExactIntegers = 9007199254740992.0;  // 2^53

// Exact ceil(a / b) for the positive integers below 2^53 that the checks let through; above
// that (products of such counts) the double quotient, never a wrapped integer.
double ceil_div(double a, double b) {
  if (!(a < kExactIntegers && b < kExactIntegers && b >= 1)) return std::ceil(a / b);
  const auto x = static_cast<std::uint64_t>(a);
  const auto y = static_cast<std::uint64_t>(b);
  return static_cast<double>((x + y - 1) / y);
}

// A positive integer below 2^53, where doubles hold every integer (the kernel counts stay exact).
template <class D>
void require_count(Quantity<D> q, std::string_view name) {
  require_positive_integer(q, name);
  if (q.in_base_units() >= kExactIntegers)
    throw InputError(std::string(name), format_plain_number(q.in_base_units()),
                     "a positive integer below 2^53 = 9007199254740992 (counts stay exact)");
}

double count(Count c) { return c.in(one); }

// Roofline placement, shared by tiling and flash-io: --peak and --bandwidth come together.
void check_roofline_inputs(const std::optional<FlopRate>& peak, const std::optional<Bandwidth>& bandwidth) {
  if (peak.has_value() != bandwidth.has_value())
    throw InputError(peak ? "bandwidth" : "peak", "(missing)", "--peak and --bandwidth together");
  if (peak) require_positive(*peak, "peak");
  if (bandwidth) require_positive(*bandwidth, "bandwidth");
}

Seconds roofline_time(Flops c, Bytes q, FlopRate peak, Bandwidth bandwidth) {
  return std::max(c / peak, q / bandwidth);
}

// `time_key` and `bound_key` rows for one kernel: t = max(C / R_peak, Q / BW) and its verdict.
void roofline_items(ResultSet& out, std::string_view time_key, std::string_view time_label,
                    std::string_view symbolic, std::string_view bound_key, std::string_view bound_label, Flops c,
                    Bytes q, FlopRate peak, Bandwidth bandwidth) {
  const Intensity i = c / q, ridge = peak / bandwidth;
  out.item(time_key, time_label, value(roofline_time(c, q, peak, bandwidth)), symbolic,
           text("max({} / {}, {} / {})", c, peak, q, bandwidth));
  const bool compute = i >= ridge;
  out.item(bound_key, bound_label, verdict(compute ? "compute" : "memory"), compute ? "I ≥ I*" : "I < I*",
           text(compute ? "{} ≥ {}" : "{} < {}", i, ridge));
}

void roofline_assumptions(ResultSet& out, FlopRate peak, Bandwidth bandwidth) {
  out.assume("peak", text("{} is the peak compute rate the kernel can reach (dense, this dtype)", peak));
  out.assume("bandwidth", text("{} is the HBM bandwidth", bandwidth));
  out.assume("roofline_model", text("perfect overlap of compute and memory; caches, latency and occupancy ignored"));
}

// "1920x1080": a shape as the user writes it, for messages.
std::string shape_text(const std::vector<Count>& dims) {
  std::string s;
  for (const Count c : dims) s += (s.empty() ? "" : "x") + format_plain_number(c.in(one));
  return s;
}

}  // namespace

// ---- launch grid ----------------------------------------------------------------------------

Grid launch_grid(const GridInput& in) {
  const std::size_t dims = in.n.size();
  if (dims < 1 || dims > 3) throw InputError("n", shape_text(in.n), "1 to 3 dimensions (e.g. 1000 or 1920x1080)");
  if (in.block.size() != dims)
    throw InputError("block", shape_text(in.block),
                     "as many dimensions as --n " + shape_text(in.n) + " (e.g. " +
                         (dims == 1 ? std::string("256") : dims == 2 ? std::string("16x16") : std::string("8x8x4")) + ")");
  for (const Count c : in.n) require_count(c, "n");
  for (const Count c : in.block) require_count(c, "block");
  require_count(in.warp_size, "warp_size");

  std::array<double, 3> n{1, 1, 1}, b{1, 1, 1};
  for (std::size_t i = 0; i < dims; ++i) {
    n[i] = count(in.n[i]);
    b[i] = count(in.block[i]);
  }
  const double tpb = b[0] * b[1] * b[2];
  if (tpb > kMaxThreadsPerBlock)
    throw InputError("block", format_plain_number(tpb) + " threads",
                     "at most 1024 threads per block (the CUDA limit)");
  if (b[2] > kMaxBlockDimZ)
    throw InputError("block", format_plain_number(b[2]), "blockDim.z of at most 64 (the CUDA limit)");

  Grid g;
  std::array<double, 3> nb{}, last{};  // blocks per dimension; active extent of the last block
  for (std::size_t i = 0; i < 3; ++i) {
    nb[i] = ceil_div(n[i], b[i]);
    last[i] = n[i] - (nb[i] - 1) * b[i];
    if (i < dims) g.blocks_per_dim.push_back(nb[i]);
  }
  const double w = count(in.warp_size);
  const double blocks = nb[0] * nb[1] * nb[2];
  const double elements = n[0] * n[1] * n[2];
  const double wpb = ceil_div(tpb, w);
  // Every count below is at most blocks · warps per block · warp size lanes: below 2^53, they
  // are exact.
  if (blocks * wpb * w >= kExactIntegers)
    throw InputError("n", shape_text(in.n), "a grid of fewer than 2^53 = 9007199254740992 lanes in all (" +
                                                format_plain_number(blocks) + " blocks of " + format_plain_number(wpb) +
                                                " warps of " + format_plain_number(w) + " threads; counts stay exact)");
  g.blocks = blocks * one;
  g.threads_per_block = tpb * one;
  g.threads = blocks * tpb * one;
  g.elements = elements * one;
  g.idle_threads = (blocks * tpb - elements) * one;
  g.warps_per_block = wpb * one;
  g.warps = blocks * wpb * one;
  g.masked_lanes = (blocks * wpb * w - elements) * one;

  // Blocks fall into at most 2³ classes: along each dimension a block is either interior
  // (all b_i threads in range) or the last one (last_i threads in range). Count the lanes of
  // each warp of one block per class, lane by lane (a block has at most 1024 threads).
  const auto tpb_i = static_cast<std::uint64_t>(tpb);
  const auto w_i = static_cast<std::uint64_t>(w);
  const auto bx = static_cast<std::uint64_t>(b[0]), by = static_cast<std::uint64_t>(b[1]);
  auto active_lanes = [&](std::uint64_t warp, const std::array<double, 3>& extent) {
    std::uint64_t active = 0;
    for (std::uint64_t t = warp * w_i; t < std::min((warp + 1) * w_i, tpb_i); ++t) {
      const auto x = static_cast<double>(t % bx), y = static_cast<double>((t / bx) % by),
                 z = static_cast<double>(t / (bx * by));
      if (x < extent[0] && y < extent[1] && z < extent[2]) ++active;
    }
    return static_cast<double>(active);
  };
  double partial = 0, idle = 0;
  for (int cls = 0; cls < 8; ++cls) {
    double how_many = 1;
    std::array<double, 3> extent{};
    for (std::size_t i = 0; i < 3; ++i) {
      const bool is_last = (cls >> i) & 1;
      how_many *= is_last ? 1.0 : nb[i] - 1;
      extent[i] = is_last ? last[i] : b[i];
    }
    if (how_many == 0) continue;
    for (std::uint64_t warp = 0; warp < static_cast<std::uint64_t>(wpb); ++warp) {
      const double a = active_lanes(warp, extent);
      if (a == 0)
        idle += how_many;
      else if (a < w)
        partial += how_many;
    }
  }
  g.partial_warps = partial * one;
  g.idle_warps = idle * one;
  // The warp holding the last element: local thread (last_x−1, last_y−1, last_z−1) of the
  // last block.
  const auto t_last = static_cast<std::uint64_t>((last[0] - 1) + b[0] * ((last[1] - 1) + b[1] * (last[2] - 1)));
  g.masked_lanes_last_warp = (w - active_lanes(t_last / w_i, last)) * one;
  return g;
}

void launch_grid(const GridInput& in, ResultSet& out) {
  const Grid g = launch_grid(in);
  const std::size_t dims = in.n.size();
  out.command = "kernel grid";
  static constexpr std::array<const char*, 3> kN{"n_x", "n_y", "n_z"}, kB{"block_x", "block_y", "block_z"};
  if (dims == 1) {
    out.input("n", value(in.n[0]));
    out.input("block", value(in.block[0]));
  } else {
    for (std::size_t i = 0; i < dims; ++i) out.input(kN[i], value(in.n[i]));
    for (std::size_t i = 0; i < dims; ++i) out.input(kB[i], value(in.block[i]));
  }
  out.input("warp_size", value(in.warp_size));

  const auto& nb = g.blocks_per_dim;
  const Count W = in.warp_size;
  if (dims == 1) {
    out.item("blocks", "thread blocks", value(g.blocks), "B = ceil(n / b)", text("ceil({} / {})", in.n[0], in.block[0]));
    out.item("threads_per_block", "threads per block", value(g.threads_per_block), "b", text("{}", in.block[0]));
  } else if (dims == 2) {
    out.item("blocks", "thread blocks", value(g.blocks), "B = ceil(n_x / b_x) · ceil(n_y / b_y)",
             text("ceil({} / {}) · ceil({} / {}) = {} · {}", in.n[0], in.block[0], in.n[1], in.block[1], nb[0], nb[1]));
    out.item("threads_per_block", "threads per block", value(g.threads_per_block), "b_x · b_y",
             text("{} · {}", in.block[0], in.block[1]));
  } else {
    out.item("blocks", "thread blocks", value(g.blocks), "B = ceil(n_x / b_x) · ceil(n_y / b_y) · ceil(n_z / b_z)",
             text("ceil({} / {}) · ceil({} / {}) · ceil({} / {}) = {} · {} · {}", in.n[0], in.block[0], in.n[1],
                  in.block[1], in.n[2], in.block[2], nb[0], nb[1], nb[2]));
    out.item("threads_per_block", "threads per block", value(g.threads_per_block), "b_x · b_y · b_z",
             text("{} · {} · {}", in.block[0], in.block[1], in.block[2]));
  }
  out.item("threads", "threads launched", value(g.threads), "B · threads per block",
           text("{} · {}", g.blocks, g.threads_per_block));
  if (dims == 1)
    out.item("idle_threads", "idle threads (fail i < n)", value(g.idle_threads), "threads − n",
             text("{} − {}", g.threads, g.elements));
  else
    out.item("idle_threads", "idle threads (fail the bounds check)", value(g.idle_threads), "threads − Π n_i",
             text("{} − {}", g.threads, g.elements));
  out.item("thread_utilization", "threads doing work", value(g.elements / g.threads),
           dims == 1 ? "n / threads" : "Π n_i / threads", text("{} / {}", g.elements, g.threads));
  out.item("warps_per_block", "warps per block", value(g.warps_per_block), "ceil(threads per block / W)",
           text("ceil({} / {})", g.threads_per_block, W));
  out.item("warps", "warps launched", value(g.warps), "B · warps per block", text("{} · {}", g.blocks, g.warps_per_block));
  out.item("partial_warps", "partial warps", value(g.partial_warps), "warps with 0 < working lanes < W",
           text("{} of {} warps", g.partial_warps, g.warps));
  out.item("idle_warps", "idle warps", value(g.idle_warps), "warps with no working lane",
           text("{} of {} warps", g.idle_warps, g.warps));
  out.item("masked_lanes_last_warp", "masked lanes, last warp", value(g.masked_lanes_last_warp),
           "W − working lanes of the warp holding the last element",
           text("{} − {}", W, W - g.masked_lanes_last_warp));
  out.item("lane_utilization", "lanes doing work", value(g.elements / (g.warps * count(W))), dims == 1 ? "n / (warps · W)" : "Π n_i / (warps · W)",
           text("{} / ({} · {})", g.elements, g.warps, W));

  out.assume("warp_size", text("a warp is {} threads (NVIDIA; AMD CDNA wavefronts are 64)", W));
  out.assume("grid_mapping", text("one thread per element; warps are consecutive threads of a block, x fastest"));

  if (dims == 1) {
    out.note(text("index: i = blockIdx.x * blockDim.x + threadIdx.x runs over 0 … {} − 1", g.threads));
    out.note(text("guard: if (i < n) { ... } leaves the {} threads with i ≥ {} idle (the tail of the last block)",
                  g.idle_threads, in.n[0]));
  } else {
    out.note(text("index: x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y "
                  "(and z likewise)"));
    out.note(text("guard: if (x < n_x && y < n_y ...) { ... } leaves {} threads idle in the edge blocks",
                  g.idle_threads));
  }
  out.note(text("a warp runs in lockstep: its masked lanes cost issue slots, while a warp with no working lane "
                "exits at the guard"));

  const double tpb = count(g.threads_per_block), w = count(W);
  if (std::fmod(tpb, w) != 0.0)
    out.warn(text("{} threads per block is not a multiple of the warp size {}: the last warp of every block "
                  "runs with {} of {} lanes (--block)",
                  g.threads_per_block, W, std::fmod(tpb, w), W));
  if (count(g.blocks) == 1 && count(g.idle_threads) > count(g.elements))
    out.warn(text("one block with more idle threads ({}) than working ones ({}): a smaller --block fits n better",
                  g.idle_threads, g.elements));
}

// ---- waves ----------------------------------------------------------------------------------

Waves wave_quantization(const WavesInput& in) {
  require_count(in.m, "m");
  require_count(in.n, "n");
  require_count(in.tile_m, "tile");
  require_count(in.tile_n, "tile");
  require_count(in.sms, "sms");
  require_count(in.blocks_per_sm, "blocks_per_sm");
  Waves w;
  const double tm = ceil_div(count(in.m), count(in.tile_m));
  const double tn = ceil_div(count(in.n), count(in.tile_n));
  const double tiles = tm * tn;
  const double slots = count(in.sms) * count(in.blocks_per_sm);
  // Every count below is at most the padded output tm·T_m · tn·T_n or the slots: below 2^53,
  // they are exact.
  if (tm * count(in.tile_m) * tn * count(in.tile_n) >= kExactIntegers)
    throw InputError("m", format_plain_number(count(in.m)) + "x" + format_plain_number(count(in.n)),
                     "an output of fewer than 2^53 = 9007199254740992 elements, tiles padded (counts stay exact)");
  if (slots >= kExactIntegers)
    throw InputError("sms", format_plain_number(count(in.sms)) + " x " + format_plain_number(count(in.blocks_per_sm)),
                     "fewer than 2^53 = 9007199254740992 slots (SMs · blocks per SM)");
  const double waves = ceil_div(tiles, slots);
  w.tiles_m = tm * one;
  w.tiles_n = tn * one;
  w.tiles = tiles * one;
  w.slots = slots * one;
  w.waves = waves * one;
  w.last_wave_tiles = (tiles - (waves - 1) * slots) * one;
  w.wave_efficiency = tiles / (waves * slots);
  w.padded_elements = (tm * count(in.tile_m) * tn * count(in.tile_n) - count(in.m) * count(in.n)) * one;
  return w;
}

void wave_quantization(const WavesInput& in, ResultSet& out, const std::optional<WavesInput>& previous) {
  const Waves w = wave_quantization(in);
  out.command = "kernel waves";
  out.input("m", value(in.m));
  out.input("n", value(in.n));
  out.input("tile_m", value(in.tile_m));
  out.input("tile_n", value(in.tile_n));
  out.input("sms", value(in.sms));
  out.input("blocks_per_sm", value(in.blocks_per_sm));

  out.item("tiles", "output tiles", value(w.tiles), "ceil(m / T_m) · ceil(n / T_n)",
           text("ceil({} / {}) · ceil({} / {}) = {} · {}", in.m, in.tile_m, in.n, in.tile_n, w.tiles_m, w.tiles_n));
  out.item("slots", "tiles per wave", value(w.slots), "SMs · blocks per SM", text("{} · {}", in.sms, in.blocks_per_sm));
  out.item("waves", "waves", value(w.waves), "ceil(tiles / slots)", text("ceil({} / {})", w.tiles, w.slots));
  out.item("last_wave_tiles", "tiles in the last wave", value(w.last_wave_tiles), "tiles − (waves − 1) · slots",
           text("{} − ({} − 1) · {}", w.tiles, w.waves, w.slots));
  out.item("wave_efficiency", "wave efficiency", value(w.wave_efficiency), "tiles / (waves · slots)",
           text("{} / ({} · {})", w.tiles, w.waves, w.slots));
  out.item("padded_elements", "masked elements in edge tiles", value(w.padded_elements),
           "tiles_m·T_m · tiles_n·T_n − m·n",
           text("{}·{} · {}·{} − {}·{}", w.tiles_m, in.tile_m, w.tiles_n, in.tile_n, in.m, in.n));
  if (previous) {
    const Waves p = wave_quantization(*previous);
    out.item("cliff", "wave cliff", boolean(w.waves > p.waves), "waves > waves of the previous size?",
             text("{} vs {} at {} × {}", w.waves, p.waves, previous->m, previous->n));
  }

  if (count(in.blocks_per_sm) == 1)
    out.assume("blocks_per_sm",
               text("1 resident tile per SM (the notes' simplification; real kernels may hold several, "
                    "limited by registers and shared memory)"));
  else
    out.assume("blocks_per_sm", text("{} resident tiles per SM at a time", in.blocks_per_sm));
  out.assume("sms", text("{} SMs, each running its resident tiles independently", in.sms));
  out.assume("wave_model",
             text("every tile takes the same time and a wave ends with its slowest tile; no split-K, stream-K "
                  "or persistent scheduling"));
  out.note(text("wave quantization is about scheduling whole tiles on SMs, not about weight quantization"));
  out.note(text("the last wave runs {} tiles on {} slots: {} slots idle while it runs", w.last_wave_tiles, w.slots,
                w.slots - w.last_wave_tiles));

  if (in.m < in.tile_m || in.n < in.tile_n)
    out.warn(text("the tile is larger than the output in at least one dimension: most of each tile is "
                  "masked (--tile)"));
  if (count(in.blocks_per_sm) > 32)
    out.warn(text("{} blocks per SM is above the 32 resident blocks current NVIDIA SMs allow (--blocks-per-sm)",
                  in.blocks_per_sm));
}

// ---- tiled matmul ---------------------------------------------------------------------------

Tiling tiled_matmul_traffic(const TilingInput& in) {
  require_count(in.m, "m");
  require_count(in.k, "k");
  require_count(in.n, "n");
  require_count(in.tile, "tile");
  if (in.smem_per_sm) require_positive(*in.smem_per_sm, "smem_per_sm");
  check_roofline_inputs(in.peak, in.bandwidth);
  const double m = count(in.m), k = count(in.k), n = count(in.n), t = count(in.tile);
  const Bytes size = dtype_size(in.dtype);
  Tiling r;
  r.smem_per_tile_pair = 2.0 * t * t * size;
  if (in.smem_per_sm && r.smem_per_tile_pair > *in.smem_per_sm)
    throw InputError("tile", format_plain_number(t),
                     "a tile pair that fits in --smem-per-sm (2 · " + format_plain_number(t) + "² · " +
                         format_plain_number(size.in(byte)) + " B = " +
                         format_plain_number(r.smem_per_tile_pair.in(byte)) + " B > " +
                         format_plain_number(in.smem_per_sm->in(byte)) + " B)");
  r.naive_reads = 2.0 * m * n * k * one;
  r.tiled_reads = (m * k * ceil_div(n, t) + k * n * ceil_div(m, t)) * one;
  r.writes = m * n * one;
  r.naive_bytes = count(r.naive_reads + r.writes) * size;
  r.tiled_bytes = count(r.tiled_reads + r.writes) * size;
  r.reuse_factor = r.naive_reads / r.tiled_reads;
  r.flops = 2.0 * m * k * n * flop;
  r.naive_intensity = r.flops / r.naive_bytes;
  r.tiled_intensity = r.flops / r.tiled_bytes;
  if (in.peak) {
    r.ridge = *in.peak / *in.bandwidth;
    r.naive_time = roofline_time(r.flops, r.naive_bytes, *in.peak, *in.bandwidth);
    r.tiled_time = roofline_time(r.flops, r.tiled_bytes, *in.peak, *in.bandwidth);
  }
  return r;
}

void tiled_matmul_traffic(const TilingInput& in, ResultSet& out) {
  const Tiling r = tiled_matmul_traffic(in);
  const Bytes size = dtype_size(in.dtype);
  out.command = "kernel tiling";
  out.input("m", value(in.m));
  out.input("k", value(in.k));
  out.input("n", value(in.n));
  out.input("tile", value(in.tile));
  out.input("dtype", verdict(dtype_name(in.dtype)));
  if (in.smem_per_sm) out.input("smem_per_sm", value(*in.smem_per_sm));
  if (in.peak) {
    out.input("peak", value(*in.peak));
    out.input("bandwidth", value(*in.bandwidth));
  }

  out.item("naive_bytes", "naive HBM traffic", value(r.naive_bytes), "(2·m·n·k + m·n) · size",
           text("(2 · {} · {} · {} + {} · {}) · {}", in.m, in.n, in.k, in.m, in.n, size));
  out.item("tiled_bytes", "tiled HBM traffic", value(r.tiled_bytes),
           "(m·k·ceil(n/T) + k·n·ceil(m/T) + m·n) · size",
           text("({} · {} · {} + {} · {} · {} + {} · {}) · {}", in.m, in.k, ceil_div(count(in.n), count(in.tile)),
                in.k, in.n, ceil_div(count(in.m), count(in.tile)), in.m, in.n, size));
  out.item("reuse_factor", "read reduction (reuse)", value(r.reuse_factor), "naive reads / tiled reads",
           text("{} / {}", r.naive_reads, r.tiled_reads));
  out.item("flops", "matmul FLOP", value(r.flops), "C = 2·m·k·n", text("2 · {} · {} · {}", in.m, in.k, in.n));
  out.item("naive_intensity", "naive intensity", value(r.naive_intensity), "C / naive bytes",
           text("{} / {}", r.flops, r.naive_bytes));
  out.item("tiled_intensity", "tiled intensity", value(r.tiled_intensity), "C / tiled bytes",
           text("{} / {}", r.flops, r.tiled_bytes));
  out.item("smem_per_tile_pair", "shared memory per tile pair", value(r.smem_per_tile_pair), "2 · T² · size",
           text("2 · {}² · {}", in.tile, size));
  if (in.smem_per_sm)
    out.item("smem_fraction", "share of shared memory", value(r.smem_per_tile_pair / *in.smem_per_sm),
             "tile pair / shared memory per SM", text("{} / {}", r.smem_per_tile_pair, *in.smem_per_sm));
  if (in.peak) {
    out.item("ridge_intensity", "ridge point", value(*r.ridge), "I* = R_peak / BW", text("{} / {}", *in.peak, *in.bandwidth));
    roofline_items(out, "naive_time", "naive time lower bound", "max(C / R_peak, Q_naive / BW)", "naive_bound",
                   "naive bound", r.flops, r.naive_bytes, *in.peak, *in.bandwidth);
    roofline_items(out, "tiled_time", "tiled time lower bound", "max(C / R_peak, Q_tiled / BW)", "tiled_bound",
                   "tiled bound", r.flops, r.tiled_bytes, *in.peak, *in.bandwidth);
  }

  out.assume("dtype", text("A, B and C are {} ({} per element)", dtype_name(in.dtype), size));
  out.assume("tiling_model",
             text("no cache between the kernel and HBM: the naive count is the worst case (L2 catches part of "
                  "it on real GPUs); edge tiles load only in-range elements"));
  if (!in.smem_per_sm)
    out.assume("smem_per_sm", text("shared-memory capacity not checked (give --smem-per-sm, e.g. 228KiB)"));
  else
    out.assume("smem_per_sm", text("{} of shared memory per SM; one tile pair resident, no double buffering",
                                   *in.smem_per_sm));
  if (in.peak) roofline_assumptions(out, *in.peak, *in.bandwidth);
  out.note(text("naive: each of the {} · {} outputs reads a row of A and a column of B ({} elements each)", in.m,
                in.n, in.k));
  out.note(text("tiled: a {}×{} tile of A is loaded once per column of output tiles and feeds {} outputs; likewise B",
                in.tile, in.tile, in.tile));
  out.note(text("reads fall by about T = {}; coalescing (adjacent lanes, adjacent addresses) is a separate matter",
                in.tile));
  if (in.tile > in.m || in.tile > in.n)
    out.warn(text("--tile {} is larger than the output ({} × {}): the edge tiles are mostly masked", in.tile, in.m,
                  in.n));
}

// ---- FlashAttention -------------------------------------------------------------------------
//
// HBM accesses per head, in elements, from the algorithm listings of Dao et al. 2022
// (arXiv 2205.14135). N = seq, d = head_dim, M = SRAM size in elements.
//
// Algorithm 0 (standard attention, §2.2):
//   1. load Q, K (2Nd); write S = QKᵀ (N²)
//   2. read S (N²); write P = softmax(S) (N²)
//   3. load P (N²), V (Nd); write O = PV (Nd)
//   total 4·N·d + 4·N² (Theorem 2: Θ(Nd + N²)).
//
// Algorithm 1 (FlashAttention forward, §3.1), B_c = ceil(M/4d), B_r = min(B_c, d),
// T_c = ceil(N/B_c):
//   line 2:  initialise O (Nd), ℓ (N), m (N) in HBM               → Nd + 2N writes
//   line 6:  per column block j, load K_j, V_j                     → 2Nd over all j
//   line 8:  per (i, j), load Q_i, O_i (B_r·d each), ℓ_i, m_i (B_r each)
//   line 12: write O_i (B_r·d); line 13: write ℓ_i, m_i (B_r each)
//   Summed over i the row blocks cover the N rows once, so lines 8-13 move N·(3d + 4) per j
//   (edge blocks are shorter, not padded), and B_r drops out of the count:
//   total 3·N·d + 2·N + T_c·N·(3d + 4). With T_c ≈ 4Nd/M this is Θ(N²d²/M) (Theorem 2).
//
// Algorithm 3 (standard backward, Appendix B.2), P kept from the forward pass:
//   1. load P (N²), dO (Nd); write dV = Pᵀ dO (Nd)
//   2. load dO, V (2Nd); write dP = dO Vᵀ (N²)
//   3. read P, dP (2N²); write dS (N²)
//   4. load dS (N²), K (Nd); write dQ = dS K (Nd)
//   5. load dS (N²), Q (Nd); write dK = dSᵀ Q (Nd)
//   total 7·N² + 8·N·d.
//
// Algorithm 4 (FlashAttention backward, Appendix B.4):
//   line 5:  initialise dQ, dK, dV in HBM                          → 3Nd writes
//   line 7:  per j, load K_j, V_j                                  → 2Nd
//   line 10: per (i, j), load Q_i, O_i, dO_i, dQ_i (B_r·d each), ℓ_i, m_i (B_r each)
//   line 21: per (i, j), write dQ_i (B_r·d)
//   line 24: per j, write dK_j, dV_j                               → 2Nd
//   total 7·N·d + T_c·N·(5d + 2).
//
// FLOP per head (softmax and scaling not counted): forward QKᵀ and PV, 2·N²·d each = 4·N²·d,
// the same for both algorithms. Backward: dV, dP, dQ, dK at 2·N²·d each = 8·N²·d for the
// standard pass; FlashAttention recomputes S = QKᵀ (line 11), 10·N²·d.

FlashIo flash_attention_io(const FlashIoInput& in) {
  require_count(in.batch, "batch");
  require_count(in.heads, "heads");
  require_count(in.seq, "seq");
  require_count(in.head_dim, "head_dim");
  require_positive(in.sram, "sram");
  check_roofline_inputs(in.peak, in.bandwidth);
  const Bytes size = dtype_size(in.dtype);
  const double N = count(in.seq), d = count(in.head_dim), bh = count(in.batch) * count(in.heads);
  FlashIo r;
  r.sram_elements = std::floor(in.sram / size);
  if (r.sram_elements < 1)
    throw InputError("sram", format_plain_number(in.sram.in(byte)) + " B", "room for at least one element");
  r.block_cols = ceil_div(r.sram_elements, 4 * d);
  r.block_rows = std::min(r.block_cols, d);
  r.col_blocks = ceil_div(N, r.block_cols);
  r.row_blocks = ceil_div(N, r.block_rows);
  r.naive_elements_per_head = 4 * N * d + 4 * N * N;
  r.flash_elements_per_head = 3 * N * d + 2 * N + r.col_blocks * N * (3 * d + 4);
  r.naive_bytes = bh * r.naive_elements_per_head * size;
  r.flash_bytes = bh * r.flash_elements_per_head * size;
  r.flops = bh * 4 * N * N * d * flop;
  r.naive_intensity = r.flops / r.naive_bytes;
  r.flash_intensity = r.flops / r.flash_bytes;
  if (in.backward) {
    r.naive_backward_elements_per_head = 7 * N * N + 8 * N * d;
    r.flash_backward_elements_per_head = 7 * N * d + r.col_blocks * N * (5 * d + 2);
    r.naive_backward_bytes = bh * r.naive_backward_elements_per_head * size;
    r.flash_backward_bytes = bh * r.flash_backward_elements_per_head * size;
    r.naive_backward_flops = bh * 8 * N * N * d * flop;
    r.flash_backward_flops = bh * 10 * N * N * d * flop;
  }
  if (in.peak) {
    r.naive_time = roofline_time(r.flops, r.naive_bytes, *in.peak, *in.bandwidth);
    r.flash_time = roofline_time(r.flops, r.flash_bytes, *in.peak, *in.bandwidth);
  }
  return r;
}

void flash_attention_io(const FlashIoInput& in, ResultSet& out) {
  const FlashIo r = flash_attention_io(in);
  const Bytes size = dtype_size(in.dtype);
  out.command = "kernel flash-io";
  out.input("batch", value(in.batch));
  out.input("heads", value(in.heads));
  out.input("seq", value(in.seq));
  out.input("head_dim", value(in.head_dim));
  out.input("dtype", verdict(dtype_name(in.dtype)));
  out.input("sram", value(in.sram));
  out.input("backward", boolean(in.backward));
  if (in.peak) {
    out.input("peak", value(*in.peak));
    out.input("bandwidth", value(*in.bandwidth));
  }
  const Count B = in.batch, H = in.heads, N = in.seq, d = in.head_dim;

  out.item("sram_elements", "SRAM size M in elements", value(r.sram_elements), "M = floor(SRAM / size)",
           text("floor({} / {})", in.sram, size));
  out.item("block_cols", "key/value block B_c", value(r.block_cols), "B_c = ceil(M / 4d)",
           text("ceil({} / (4 · {}))", r.sram_elements, d));
  out.item("block_rows", "query block B_r", value(r.block_rows), "B_r = min(B_c, d)",
           text("min({}, {})", r.block_cols, d));
  out.item("col_blocks", "key/value blocks T_c", value(r.col_blocks), "T_c = ceil(N / B_c)",
           text("ceil({} / {})", N, r.block_cols));
  out.item("naive_bytes", "standard attention HBM traffic", value(r.naive_bytes), "B · H · (4·N·d + 4·N²) · size",
           text("{} · {} · (4 · {} · {} + 4 · {}²) · {}", B, H, N, d, N, size));
  out.item("flash_bytes", "FlashAttention HBM traffic", value(r.flash_bytes),
           "B · H · (3·N·d + 2·N + T_c·N·(3d + 4)) · size",
           text("{} · {} · (3 · {} · {} + 2 · {} + {} · {} · (3 · {} + 4)) · {}", B, H, N, d, N, r.col_blocks, N,
                d, size));
  out.item("traffic_ratio", "standard / FlashAttention traffic", value(r.naive_bytes / r.flash_bytes),
           "naive bytes / flash bytes", text("{} / {}", r.naive_bytes, r.flash_bytes));
  out.item("flops", "attention FLOP (both)", value(r.flops), "B · H · 4·N²·d", text("{} · {} · 4 · {}² · {}", B, H, N, d));
  out.item("naive_intensity", "standard intensity", value(r.naive_intensity), "C / naive bytes",
           text("{} / {}", r.flops, r.naive_bytes));
  out.item("flash_intensity", "FlashAttention intensity", value(r.flash_intensity), "C / flash bytes",
           text("{} / {}", r.flops, r.flash_bytes));
  if (in.peak) {
    out.item("ridge_intensity", "ridge point", value(*in.peak / *in.bandwidth), "I* = R_peak / BW",
             text("{} / {}", *in.peak, *in.bandwidth));
    roofline_items(out, "naive_time", "standard time lower bound", "max(C / R_peak, Q_naive / BW)", "naive_bound",
                   "standard bound", r.flops, r.naive_bytes, *in.peak, *in.bandwidth);
    roofline_items(out, "flash_time", "FlashAttention time lower bound", "max(C / R_peak, Q_flash / BW)",
                   "flash_bound", "FlashAttention bound", r.flops, r.flash_bytes, *in.peak, *in.bandwidth);
  }
  if (in.backward) {
    out.item("naive_backward_bytes", "standard backward HBM traffic", value(r.naive_backward_bytes),
             "B · H · (7·N² + 8·N·d) · size", text("{} · {} · (7 · {}² + 8 · {} · {}) · {}", B, H, N, N, d, size));
    out.item("flash_backward_bytes", "FlashAttention backward HBM traffic", value(r.flash_backward_bytes),
             "B · H · (7·N·d + T_c·N·(5d + 2)) · size",
             text("{} · {} · (7 · {} · {} + {} · {} · (5 · {} + 2)) · {}", B, H, N, d, r.col_blocks, N, d, size));
    out.item("naive_backward_flops", "standard backward FLOP", value(r.naive_backward_flops), "B · H · 8·N²·d",
             text("{} · {} · 8 · {}² · {}", B, H, N, d));
    out.item("flash_backward_flops", "FlashAttention backward FLOP (recomputes S)", value(r.flash_backward_flops),
             "B · H · 10·N²·d", text("{} · {} · 10 · {}² · {}", B, H, N, d));
  }

  out.assume("dtype", text("Q, K, V, O and the statistics are {} ({} per element)", dtype_name(in.dtype), size));
  out.assume("sram", text("{} of on-chip SRAM per SM gives M = {} elements (Dao et al. 2022, Algorithm 1)",
                          in.sram, r.sram_elements));
  out.assume("batch_heads", text("batch {} × heads {}, each head an independent N × d attention", B, H));
  out.assume("flash_io_model",
             text("HBM accesses counted line by line from the paper's listings (Algorithms 0, 1; 3, 4 backward); "
                  "no masking, dropout or caching"));
  if (!in.backward)
    out.assume("backward", text("forward pass only (give --backward for Algorithms 3 and 4)"));
  else
    out.assume("backward", text("backward: standard keeps P from the forward pass; FlashAttention recomputes it from "
                                "Q, K and the saved ℓ, m"));
  if (in.peak) roofline_assumptions(out, *in.peak, *in.bandwidth);
  out.note(text("FlashAttention is exact attention, not an approximation (reduction order may differ slightly)"));
  out.note(text("its FLOP stay quadratic: 4·N²·d per head for both; only the HBM traffic changes"));
  out.note(text("standard attention writes S and P (N × N each) to HBM and reads them back: Θ(N·d + N²) per head"));
  out.note(text("FlashAttention keeps S and P in SRAM, block by block: Θ(N²·d²/M) per head (Theorem 2)"));
  out.note(text("the count follows Algorithm 1's loop order (K, V blocks outer): O, ℓ and m are read and written "
                "once per K, V block, T_c = {} times; FlashAttention-2 puts the query blocks outer and writes O once "
                "(not modelled here)",
                r.col_blocks));
  if (r.sram_elements < 4 * count(d))
    out.warn(text("SRAM of {} elements is below 4·d = {}: blocks of one key; the paper assumes d ≤ M ≤ N·d (--sram)",
                  r.sram_elements, 4 * count(d)));
}

}  // namespace napkin
