// Kernel arithmetic: launch grids, wave quantization, tiling, FlashAttention traffic, online
// softmax (course notes 7.1, 7.6, 7.7, 7.8), and the kernel commands' CLI messages.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "assumption_flags.h"
#include "napkin/ground/error.h"
#include "napkin/kernel/gpu_kernel.h"
#include "napkin/report/human_units.h"
#include "run_napkin.h"

using namespace napkin;
using namespace napkin::units;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using napkin_test::run_napkin;

namespace {

double c(Count x) { return x.in(one); }

Grid grid1(double n, double b) { return launch_grid({.n = {n * one}, .block = {b * one}}); }

WavesInput square(double s) {
  return {.m = s * one, .n = s * one, .tile_m = 256 * one, .tile_n = 128 * one, .sms = 108 * one};
}

OnlineSoftmax softmax(std::vector<double> s, std::vector<double> v, std::vector<double> blocks) {
  OnlineSoftmaxInput in;
  in.scores = std::move(s);
  for (double x : v) in.values.push_back({x});
  in.blocks = std::move(blocks);
  return online_softmax(in);
}

void check_against_reference(const OnlineSoftmax& r) {
  REQUIRE_FALSE(r.row_masked);
  REQUIRE(r.output.size() == r.reference.size());
  for (std::size_t i = 0; i < r.output.size(); ++i) CHECK_THAT(r.output[i], WithinAbs(r.reference[i], 1e-12));
}

FlashIoInput flash(double n, double d, Bytes sram) {
  return {.seq = n * one, .head_dim = d * one, .dtype = Dtype::bf16, .sram = sram};
}

}  // namespace

// ---- waves (notes 7.6) ----------------------------------------------------------------------

TEST_CASE("1792×1792 in 256×128 tiles is 7·14 = 98 tiles: 1 wave on 108 SMs", "[kernel][seed]") {
  const Waves w = wave_quantization(square(1792));
  CHECK(c(w.tiles_m) == 7);
  CHECK(c(w.tiles_n) == 14);
  CHECK(c(w.tiles) == 98);
  CHECK(c(w.waves) == 1);
  CHECK(c(w.last_wave_tiles) == 98);
  CHECK(c(w.padded_elements) == 0);
}

TEST_CASE("1793×1793 is 8·15 = 120 tiles: 2 waves on 108 SMs, the last holding 12", "[kernel][seed]") {
  const Waves w = wave_quantization(square(1793));
  CHECK(c(w.tiles) == 120);
  CHECK(c(w.waves) == 2);
  CHECK(c(w.last_wave_tiles) == 12);
  CHECK_THAT(w.wave_efficiency, WithinRel(120.0 / 216.0, 1e-15));
  CHECK(c(w.padded_elements) == 8 * 256 * 15 * 128 - 1793.0 * 1793.0);
}

TEST_CASE("4 blocks per SM turn 120 tiles on 108 SMs into 1 wave of 432 slots", "[kernel]") {
  WavesInput in = square(1793);
  in.blocks_per_sm = 4 * one;
  const Waves w = wave_quantization(in);
  CHECK(c(w.slots) == 432);
  CHECK(c(w.waves) == 1);
  CHECK(c(w.last_wave_tiles) == 120);
}

TEST_CASE("a scan marks 1793 as a cliff after 1792 and 1794 as none", "[kernel]") {
  ResultSet rs;
  wave_quantization(square(1793), rs, square(1792));
  REQUIRE(rs.find("cliff") != nullptr);
  CHECK(rs.find("cliff")->value.flag);
  rs.clear();
  wave_quantization(square(1794), rs, square(1793));
  CHECK_FALSE(rs.find("cliff")->value.flag);
}

TEST_CASE("waves reject a zero tile edge naming the tile", "[kernel]") {
  WavesInput in = square(1793);
  in.tile_n = 0 * one;
  CHECK_THROWS_AS(wave_quantization(in), InputError);
}

// ---- grid (notes 7.1) -----------------------------------------------------------------------

TEST_CASE("n = 1000 in blocks of 256: 4 blocks, 1024 threads, 24 idle, last warp has 24 masked lanes", "[kernel][seed]") {
  const Grid g = grid1(1000, 256);
  CHECK(c(g.blocks) == 4);
  CHECK(c(g.threads) == 1024);
  CHECK(c(g.idle_threads) == 24);
  CHECK(c(g.warps_per_block) == 8);
  CHECK(c(g.warps) == 32);
  CHECK(c(g.partial_warps) == 1);
  CHECK(c(g.idle_warps) == 0);
  CHECK(c(g.masked_lanes_last_warp) == 24);
  CHECK(c(g.masked_lanes) == 24);
}

TEST_CASE("n = 33 in one block of 128: 1 full warp, 1 partial with 31 masked lanes, 2 idle warps", "[kernel]") {
  const Grid g = grid1(33, 128);
  CHECK(c(g.blocks) == 1);
  CHECK(c(g.idle_threads) == 95);
  CHECK(c(g.partial_warps) == 1);
  CHECK(c(g.idle_warps) == 2);
  CHECK(c(g.masked_lanes_last_warp) == 31);
}

TEST_CASE("blocks of 100 threads leave every block's 4th warp with 4 lanes: 10 partial warps", "[kernel]") {
  const Grid g = grid1(1000, 100);
  CHECK(c(g.blocks) == 10);
  CHECK(c(g.idle_threads) == 0);
  CHECK(c(g.warps_per_block) == 4);
  CHECK(c(g.partial_warps) == 10);
  CHECK(c(g.masked_lanes_last_warp) == 28);
  CHECK(c(g.masked_lanes) == 40 * 32 - 1000);
}

TEST_CASE("1920×1080 in 16×16 blocks: 120·68 = 8160 blocks, 15360 idle threads, 480 idle warps", "[kernel]") {
  const Grid g = launch_grid({.n = {1920 * one, 1080 * one}, .block = {16 * one, 16 * one}});
  CHECK(g.blocks_per_dim == std::vector<double>{120, 68});
  CHECK(c(g.blocks) == 8160);
  CHECK(c(g.threads) == 8160 * 256);
  CHECK(c(g.idle_threads) == 15360);
  // The last block row holds 8 of 16 rows: warps 0-3 (rows 0-7) work, warps 4-7 are idle.
  CHECK(c(g.partial_warps) == 0);
  CHECK(c(g.idle_warps) == 120 * 4);
  CHECK(c(g.masked_lanes_last_warp) == 0);
}

TEST_CASE("a 3-D grid of 10×10×10 in 8×8×4 blocks launches 2·2·3 = 12 blocks, 2072 idle threads", "[kernel]") {
  const Grid g = launch_grid({.n = {10 * one, 10 * one, 10 * one}, .block = {8 * one, 8 * one, 4 * one}});
  CHECK(c(g.blocks) == 12);
  CHECK(c(g.threads) == 12 * 256);
  CHECK(c(g.idle_threads) == 12 * 256 - 1000);
  CHECK(c(g.idle_warps) + c(g.partial_warps) <= c(g.warps));
}

TEST_CASE("a block of 2048 threads and a shape with mismatched dimensions are rejected", "[kernel]") {
  CHECK_THROWS_AS(grid1(4096, 2048), InputError);
  CHECK_THROWS_AS(launch_grid({.n = {1920 * one, 1080 * one}, .block = {256 * one}}), InputError);
  CHECK_THROWS_AS(grid1(0, 256), InputError);
}

// ---- tiling (notes 7.6) ---------------------------------------------------------------------

TEST_CASE("4096³ fp32 matmul with 32×32 tiles reads 32× less: 549.82 GB naive vs 17.25 GB tiled", "[kernel]") {
  const Tiling t = tiled_matmul_traffic(
      {.m = 4096 * one, .k = 4096 * one, .n = 4096 * one, .tile = 32 * one, .dtype = Dtype::fp32});
  const double n = 4096;
  CHECK(t.naive_bytes.in(byte) == (2 * n * n * n + n * n) * 4);
  CHECK(t.tiled_bytes.in(byte) == (2 * n * n * 128 + n * n) * 4);
  CHECK(t.reuse_factor == 32);
  CHECK(t.smem_per_tile_pair.in(byte) == 2 * 32 * 32 * 4);
  CHECK_THAT(t.naive_intensity.in(flop_per_byte), WithinRel(2 * n * n * n / ((2 * n * n * n + n * n) * 4), 1e-15));
}

TEST_CASE("edge tiles are masked: 100³ with T = 32 reads 2·100²·4 = 80000 elements tiled (reuse 25)", "[kernel]") {
  const Tiling t = tiled_matmul_traffic(
      {.m = 100 * one, .k = 100 * one, .n = 100 * one, .tile = 32 * one, .dtype = Dtype::bf16});
  CHECK(c(t.tiled_reads) == 80000);
  CHECK(c(t.naive_reads) == 2e6);
  CHECK(t.reuse_factor == 25);
  CHECK(t.tiled_bytes.in(byte) == (80000 + 10000) * 2);
}

TEST_CASE("a 256×256 fp32 tile pair (512 KiB) does not fit in 228 KiB of shared memory", "[kernel]") {
  TilingInput in{.m = 4096 * one, .k = 4096 * one, .n = 4096 * one, .tile = 256 * one, .dtype = Dtype::fp32,
                 .smem_per_sm = 228 * KiB};
  try {
    tiled_matmul_traffic(in);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(e.field() == "tile");
  }
  in.tile = 64 * one;
  CHECK(tiled_matmul_traffic(in).smem_per_tile_pair == 32 * KiB);
}

TEST_CASE("with --peak and --bandwidth, the naive matmul is memory-bound and the tiled one faster", "[kernel]") {
  const Tiling t = tiled_matmul_traffic({.m = 4096 * one, .k = 4096 * one, .n = 4096 * one, .tile = 64 * one,
                                         .dtype = Dtype::fp32, .peak = 19.5 * TFLOP_per_s,
                                         .bandwidth = 1.555 * TB_per_s});
  REQUIRE(t.naive_time.has_value());
  CHECK(*t.naive_time == t.naive_bytes / (1.555 * TB_per_s));
  CHECK(*t.tiled_time < *t.naive_time);
}

// ---- flash-io (notes 7.7; Dao et al. 2022) --------------------------------------------------

TEST_CASE("standard attention moves 4·N·d + 4·N² elements per head (Algorithm 0)", "[kernel]") {
  const FlashIo r = flash_attention_io(flash(1024, 64, 100 * KiB));
  CHECK(r.naive_elements_per_head == 4.0 * 1024 * 64 + 4.0 * 1024 * 1024);
  CHECK(r.naive_bytes.in(byte) == 2 * r.naive_elements_per_head);
  CHECK(r.flops.in(flop) == 4.0 * 1024 * 1024 * 64);
}

TEST_CASE("FlashAttention with M = 51200, d = 64: B_c = 200, B_r = 64, T_c = 6 at N = 1024", "[kernel]") {
  const FlashIo r = flash_attention_io(flash(1024, 64, 100 * KiB));
  CHECK(r.sram_elements == 51200);
  CHECK(r.block_cols == 200);
  CHECK(r.block_rows == 64);
  CHECK(r.col_blocks == 6);
  CHECK(r.flash_elements_per_head == 3.0 * 1024 * 64 + 2 * 1024 + 6.0 * 1024 * (3 * 64 + 4));
}

TEST_CASE("FlashAttention's bytes fall as 1/M: doubling SRAM halves the T_c term", "[kernel]") {
  // d = 64, N = 8192, bf16: 32 KiB gives M = 16384, B_c = 64, T_c = 128; 64 KiB gives T_c = 64.
  const FlashIo a = flash_attention_io(flash(8192, 64, 32 * KiB));
  const FlashIo b = flash_attention_io(flash(8192, 64, 64 * KiB));
  CHECK(a.col_blocks == 128);
  CHECK(b.col_blocks == 64);
  const double fixed = 3.0 * 8192 * 64 + 2 * 8192;
  CHECK(a.flash_elements_per_head - fixed == 2 * (b.flash_elements_per_head - fixed));
  CHECK_THAT(a.flash_bytes / b.flash_bytes, WithinRel(2.0, 0.02));
  CHECK(a.naive_bytes == b.naive_bytes);  // the standard path does not see the SRAM
}

TEST_CASE("FlashAttention's bytes grow as N² with sequence length; the standard path too", "[kernel]") {
  const FlashIo a = flash_attention_io(flash(8192, 64, 32 * KiB));
  const FlashIo b = flash_attention_io(flash(16384, 64, 32 * KiB));
  CHECK(b.col_blocks == 2 * a.col_blocks);
  CHECK_THAT(b.flash_bytes / a.flash_bytes, WithinRel(4.0, 0.02));
  CHECK_THAT(b.naive_bytes / a.naive_bytes, WithinRel(4.0, 0.02));
  CHECK(b.flops / a.flops == 4);
}

TEST_CASE("both paths are linear in batch × heads: 2 × 3 gives exactly 6× the bytes and FLOP", "[kernel]") {
  FlashIoInput in = flash(2048, 128, 100 * KiB);
  in.backward = true;
  const FlashIo one_head = flash_attention_io(in);
  in.batch = 2 * one;
  in.heads = 3 * one;
  const FlashIo six = flash_attention_io(in);
  CHECK(six.naive_bytes == 6 * one_head.naive_bytes);
  CHECK(six.flash_bytes == 6 * one_head.flash_bytes);
  CHECK(six.flops == 6 * one_head.flops);
  CHECK(six.flash_backward_bytes == 6 * one_head.flash_backward_bytes);
}

TEST_CASE("backward: standard 7·N² + 8·N·d, FlashAttention 7·N·d + T_c·N·(5d + 2), FLOP 8 vs 10 N²d", "[kernel]") {
  FlashIoInput in = flash(1024, 64, 100 * KiB);
  in.backward = true;
  const FlashIo r = flash_attention_io(in);
  const double n = 1024, d = 64;
  CHECK(r.naive_backward_elements_per_head == 7 * n * n + 8 * n * d);
  CHECK(r.flash_backward_elements_per_head == 7 * n * d + 6 * n * (5 * d + 2));
  CHECK(r.naive_backward_flops.in(flop) == 8 * n * n * d);
  CHECK(r.flash_backward_flops.in(flop) == 10 * n * n * d);
}

// ---- online softmax (notes 7.8) -------------------------------------------------------------

TEST_CASE("online softmax of [0, ln2, ln3] · [1, 2, 4] in blocks 2, 1 is 17/6 via (ln2, 1.5, 2.5), (ln3, 2, 17/3)",
          "[kernel][seed]") {
  const OnlineSoftmax r = softmax({0, std::log(2.0), std::log(3.0)}, {1, 2, 4}, {2, 1});
  REQUIRE(r.trace.size() == 2);
  CHECK_THAT(r.trace[0].m, WithinAbs(std::log(2.0), 1e-15));
  CHECK_THAT(r.trace[0].l, WithinAbs(1.5, 1e-15));
  CHECK_THAT(r.trace[0].u[0], WithinAbs(2.5, 1e-15));
  CHECK_THAT(r.trace[1].m, WithinAbs(std::log(3.0), 1e-15));
  REQUIRE(r.trace[1].rescale);
  CHECK_THAT(*r.trace[1].rescale, WithinAbs(2.0 / 3.0, 1e-15));
  CHECK_THAT(r.trace[1].l, WithinAbs(2.0, 1e-15));
  CHECK_THAT(r.trace[1].u[0], WithinAbs(17.0 / 3.0, 1e-14));
  CHECK_THAT(r.output[0], WithinAbs(17.0 / 6.0, 1e-15));
  CHECK_THAT(r.reference[0], WithinAbs(17.0 / 6.0, 1e-15));
  CHECK_THAT(r.weights[0], WithinAbs(1.0 / 6, 1e-15));
  CHECK_THAT(r.weights[2], WithinAbs(3.0 / 6, 1e-15));
}

TEST_CASE("online softmax matches the reference to 1e-12: single-element blocks, one block, masked blocks",
          "[kernel]") {
  const double ninf = -INFINITY;
  SECTION("single-element blocks") { check_against_reference(softmax({0.3, -1.2, 4.0, 2.5}, {1, -2, 3, 0.5}, {1, 1, 1, 1})); }
  SECTION("one block") { check_against_reference(softmax({0.3, -1.2, 4.0, 2.5}, {1, -2, 3, 0.5}, {4})); }
  SECTION("a fully masked first block") {
    const OnlineSoftmax r = softmax({ninf, ninf, 1.0, 2.0}, {5, 7, 1, 2}, {2, 2});
    CHECK(r.trace[0].masked);
    CHECK(std::isinf(r.trace[0].m));
    CHECK(r.trace[0].l == 0);
    CHECK_FALSE(r.trace[1].rescale);  // no old terms: nothing to rescale
    check_against_reference(r);
  }
  SECTION("a fully masked middle block leaves the state unchanged") {
    const OnlineSoftmax r = softmax({1.0, ninf, ninf, 30.0}, {1, 9, 9, 2}, {1, 2, 1});
    CHECK(r.trace[1].rescale == 1);
    CHECK(r.trace[1].l == r.trace[0].l);
    check_against_reference(r);
  }
  SECTION("large scores do not overflow") { check_against_reference(softmax({1000, 999, 1001}, {1, 2, 3}, {1, 2})); }
  SECTION("vector values, d = 2") {
    OnlineSoftmaxInput in;
    in.scores = {0, std::log(2.0), std::log(3.0)};
    in.values = {{1, 0}, {2, 1}, {4, 2}};
    in.blocks = {1, 2};
    const OnlineSoftmax r = online_softmax(in);
    check_against_reference(r);
    CHECK_THAT(r.output[0], WithinAbs(17.0 / 6.0, 1e-12));
    CHECK_THAT(r.output[1], WithinAbs(8.0 / 6.0, 1e-12));
  }
}

namespace {

// The explain-only notes of one online-softmax run, each as the renderer expands it.
std::vector<std::string> softmax_notes(const OnlineSoftmaxInput& in, ResultSet& rs) {
  online_softmax(in, rs);
  std::vector<std::string> lines;
  for (const auto& n : rs.notes) lines.push_back(report::expand(rs, n));
  return lines;
}

const TextRef* note_starting(const ResultSet& rs, std::string_view start) {
  for (const auto& n : rs.notes)
    if (report::expand(rs, n).rfind(start, 0) == 0) return &n;
  return nullptr;
}

bool has_line(const std::vector<std::string>& lines, const std::string& line) {
  for (const auto& l : lines)
    if (l == line) return true;
  return false;
}

OnlineSoftmaxInput seed_example() {
  OnlineSoftmaxInput in;
  in.scores = parse_score_list("0,ln2,ln3", "--scores");
  in.values = {{1}, {2}, {4}};
  in.blocks = {2, 1};
  in.scores_text = "0,ln2,ln3";
  return in;
}

}  // namespace

TEST_CASE("each block records its rescale (none with no old terms) and exp(s − m') terms: notes 7.8's example",
          "[kernel][seed]") {
  const OnlineSoftmax r = online_softmax(seed_example());
  REQUIRE(r.trace.size() == 2);
  // First two scores: m' = ln2, nothing to rescale, exp(0 − ln2) = 0.5 and exp(0) = 1.
  CHECK(r.trace[0].first == 0);
  CHECK_FALSE(r.trace[0].rescale);
  REQUIRE(r.trace[0].weights.size() == 2);
  CHECK_THAT(r.trace[0].weights[0], WithinAbs(0.5, 1e-15));
  CHECK(r.trace[0].weights[1] == 1);
  // The last: m' = ln3, old terms × 2/3, exp(0) = 1; ℓ' = 1.5 · 2/3 + 1 = 2, u' = 2.5 · 2/3 + 4 = 17/3.
  CHECK(r.trace[1].first == 2);
  REQUIRE(r.trace[1].rescale);
  CHECK_THAT(*r.trace[1].rescale, WithinAbs(2.0 / 3.0, 1e-15));
  REQUIRE(r.trace[1].weights.size() == 1);
  CHECK(r.trace[1].weights[0] == 1);
  CHECK_THAT(r.trace[1].l, WithinAbs(2.0, 1e-15));
  CHECK_THAT(r.trace[1].u[0], WithinAbs(17.0 / 3.0, 1e-14));
}

TEST_CASE("online softmax explain writes notes 7.8's worked example block by block: m', rescale, ℓ', u' substituted", "[kernel][seed]") {
  const OnlineSoftmaxInput in = seed_example();
  ResultSet rs;
  const std::vector<std::string> lines = softmax_notes(in, rs);
  const std::vector<std::string> expected{
      "block by block, from m = −∞, ℓ = 0, u = 0:",
      "block 1 (scores 1–2: 0, ln2)",
      "  m' = max(−∞, 0, 0.6931) = 0.6931",
      "  rescale: none, no old terms (first block: ℓ = 0, u = 0)",
      "  ℓ' = exp(0 − 0.6931) + exp(0.6931 − 0.6931) = 0.5 + 1 = 1.5",
      "  u' = 0.5 · 1 + 1 · 2 = 0.5 + 2 = 2.5",
      "block 2 (score 3: ln3)",
      "  m' = max(0.6931, 1.099) = 1.099",
      "  rescale the old terms by exp(m − m') = exp(0.6931 − 1.099) = 0.6667",
      "  ℓ' = 1.5 · 0.6667 + exp(1.099 − 1.099) = 1 + 1 = 2",
      "  u' = 2.5 · 0.6667 + 1 · 4 = 1.667 + 4 = 5.667",
      "output u / ℓ = 5.667 / 2 = 2.833; the full-row softmax gives 2.833",
  };
  REQUIRE(lines.size() > expected.size());
  CHECK(std::vector<std::string>(lines.begin() + 1, lines.begin() + 1 + static_cast<long>(expected.size())) == expected);
  // The numbers are operands (a renderer's precision applies), not text: block 2's ℓ' line
  // holds ℓ = 1.5, the factor 2/3, s = m' = ln3, ℓ·factor = 1, exp(0) = 1 and ℓ' = 2.
  const TextRef* l2 = note_starting(rs, "  ℓ' = 1.5");
  REQUIRE(l2 != nullptr);
  const TextView v = rs.view(*l2);
  REQUIRE(v.n == 7);
  CHECK(v.ops[0].num == 1.5);
  CHECK_THAT(v.ops[1].num, WithinAbs(2.0 / 3.0, 1e-15));
  CHECK(v.ops[2].num == std::log(3.0));
  CHECK(v.ops[3].num == std::log(3.0));
  CHECK_THAT(v.ops[4].num, WithinAbs(1.0, 1e-15));
  CHECK(v.ops[5].num == 1);
  CHECK_THAT(v.ops[6].num, WithinAbs(2.0, 1e-15));
  // The trace's rescale cell of the first block is no value (JSON null), not 0.
  REQUIRE(rs.series.size() == 1);
  const Series& t = rs.series.front();
  REQUIRE(t.columns[3] == "rescale");
  CHECK(t.cells[3].kind == Value::Kind::none);
  CHECK(t.cells[t.columns.size() + 3].kind == Value::Kind::number);
}

TEST_CASE("vector values: each block's u' is a row, (1, 0) · 1/3 + 2/3 · (2, 1) + 1 · (4, 2) = (17/3, 8/3)", "[kernel]") {
  OnlineSoftmaxInput in;
  in.scores = {0, std::log(2.0), std::log(3.0)};
  in.values = {{1, 0}, {2, 1}, {4, 2}};
  in.blocks = {1, 2};
  const OnlineSoftmax r = online_softmax(in);
  REQUIRE(r.trace.size() == 2);
  CHECK_FALSE(r.trace[0].rescale);
  CHECK(r.trace[0].m == 0);
  CHECK(r.trace[0].l == 1);
  CHECK(r.trace[0].u == std::vector<double>{1, 0});
  REQUIRE(r.trace[1].rescale);
  CHECK_THAT(*r.trace[1].rescale, WithinAbs(1.0 / 3.0, 1e-15));  // exp(0 − ln3)
  REQUIRE(r.trace[1].weights.size() == 2);
  CHECK_THAT(r.trace[1].weights[0], WithinAbs(2.0 / 3.0, 1e-15));  // exp(ln2 − ln3)
  CHECK(r.trace[1].weights[1] == 1);
  CHECK_THAT(r.trace[1].l, WithinAbs(2.0, 1e-15));
  CHECK_THAT(r.trace[1].u[0], WithinAbs(17.0 / 3.0, 1e-14));
  CHECK_THAT(r.trace[1].u[1], WithinAbs(8.0 / 3.0, 1e-14));
  ResultSet rs;
  const auto lines = softmax_notes(in, rs);
  CHECK(has_line(lines, "  u' = 1 · (1, 0) = (1, 0)"));
  CHECK(has_line(lines, "  u' = (1, 0) · 0.3333 + 0.6667 · (2, 1) + 1 · (4, 2) = (5.667, 2.667)"));
  CHECK(has_line(lines, "output u / ℓ = (5.667, 2.667) / 2 = (2.833, 1.333); the full-row softmax gives (2.833, 1.333)"));
}

TEST_CASE("masked scores: leading masked blocks have no rescale, a later one rescales by 1, −∞ − (−∞) never appears",
          "[kernel]") {
  const double ninf = -INFINITY;
  SECTION("a fully masked first block, then the first finite score") {
    OnlineSoftmaxInput in;
    in.scores = {ninf, ninf, 0, std::log(2.0)};
    in.values = {{1, 0}, {2, 1}, {4, 2}, {3, 3}};
    in.blocks = {2, 1, 1};
    in.scores_text = "-inf,-inf,0,ln2";
    const OnlineSoftmax r = online_softmax(in);
    REQUIRE(r.trace.size() == 3);
    CHECK(r.trace[0].masked);
    CHECK_FALSE(r.trace[0].rescale);
    CHECK(r.trace[0].weights == std::vector<double>{0, 0});
    CHECK(r.trace[0].u == std::vector<double>{0, 0});
    CHECK_FALSE(r.trace[1].rescale);  // the old terms are ℓ = 0, u = 0: nothing to rescale
    CHECK(r.trace[1].m == 0);
    CHECK(r.trace[1].l == 1);
    CHECK(r.trace[1].u == std::vector<double>{4, 2});
    REQUIRE(r.trace[2].rescale);
    CHECK_THAT(*r.trace[2].rescale, WithinAbs(0.5, 1e-15));
    CHECK_THAT(r.trace[2].l, WithinAbs(1.5, 1e-15));
    CHECK_THAT(r.trace[2].u[0], WithinAbs(5.0, 1e-15));
    CHECK_THAT(r.trace[2].u[1], WithinAbs(4.0, 1e-15));
    ResultSet rs;
    const auto lines = softmax_notes(in, rs);
    CHECK(has_line(lines, "  m' = max(−∞, −∞, −∞) = −∞"));
    CHECK(has_line(lines, "  rescale: none, no old terms (every earlier score is −∞: ℓ = 0, u = 0)"));
    CHECK(has_line(lines, "  ℓ' = exp(0 − 0) = 1"));
    CHECK(has_line(lines, "  ℓ' = 1 · 0.5 + exp(0.6931 − 0.6931) = 0.5 + 1 = 1.5"));
    CHECK(has_line(lines, "  u' = (4, 2) · 0.5 + 1 · (3, 3) = (5, 4)"));
    for (const auto& l : lines) {
      CHECK(l.find("exp(−∞ −") == std::string::npos);
      CHECK(l.find("− −∞") == std::string::npos);
    }
  }
  SECTION("a fully masked middle block: exp(−∞) terms add 0, the old terms × exp(0) = 1") {
    OnlineSoftmaxInput in;
    in.scores = {std::log(2.0), ninf, ninf, std::log(3.0)};
    in.values = {{2}, {9}, {9}, {4}};
    in.blocks = {1, 2, 1};
    const OnlineSoftmax r = online_softmax(in);
    REQUIRE(r.trace[1].rescale);
    CHECK(*r.trace[1].rescale == 1);
    CHECK(r.trace[1].weights == std::vector<double>{0, 0});
    CHECK(r.trace[1].l == r.trace[0].l);
    CHECK(r.trace[1].u == r.trace[0].u);
    ResultSet rs;
    const auto lines = softmax_notes(in, rs);
    CHECK(has_line(lines, "block 2 (scores 2–3: −∞, −∞)"));  // no text typed: the numbers
    CHECK(has_line(lines, "  ℓ' = 1 · 1 + exp(−∞) + exp(−∞) = 1 + 0 + 0 = 1"));
    CHECK(has_line(lines, "  u' = 2 · 1 + 0 · 9 + 0 · 9 = 2 + 0 + 0 = 2"));
  }
  SECTION("every score masked: the state stays (−∞, 0, 0) and the output is masked") {
    OnlineSoftmaxInput in;
    in.scores = {ninf, ninf};
    in.values = {{1}, {2}};
    in.blocks = {1, 1};
    const OnlineSoftmax r = online_softmax(in);
    CHECK_FALSE(r.trace[0].rescale);
    CHECK_FALSE(r.trace[1].rescale);
    ResultSet rs;
    const auto lines = softmax_notes(in, rs);
    CHECK(has_line(lines, "  m' = max(−∞, −∞) = −∞"));
    CHECK(has_line(lines, "output: ℓ = 0 after the last block, every score is −∞: no softmax (reported as masked)"));
  }
}

TEST_CASE("a long block's explain lines show 8 terms, then how many the block has", "[kernel]") {
  OnlineSoftmaxInput in;
  for (int j = 0; j < 12; ++j) {
    in.scores.push_back(-j);
    in.values.push_back({static_cast<double>(j)});
  }
  in.blocks = {12};
  ResultSet rs;
  softmax_notes(in, rs);
  const TextRef* ll = note_starting(rs, "  ℓ' = ");
  REQUIRE(ll != nullptr);
  const std::string line = report::expand(rs, *ll);
  std::size_t exps = 0;
  for (auto p = line.find("exp("); p != std::string::npos; p = line.find("exp(", p + 1)) ++exps;
  CHECK(exps == 8);
  CHECK(line.find("+ … (12 in the block) = 1 + 0.3679 + ") != std::string::npos);
  REQUIRE(note_starting(rs, "  m' = max(−∞, 0, -1, -2, -3, -4, -5, -6, -7, … (12 in the block)) = 0") != nullptr);
}

TEST_CASE("a fully masked row is reported as masked, with no NaN", "[kernel]") {
  const OnlineSoftmax r = softmax({-INFINITY, -INFINITY}, {1, 2}, {1, 1});
  CHECK(r.row_masked);
  CHECK(r.output.empty());
  CHECK(r.trace.back().l == 0);
  ResultSet rs;
  OnlineSoftmaxInput in;
  in.scores = {-INFINITY};
  in.values = {{1}};
  in.blocks = {1};
  online_softmax(in, rs);
  CHECK(rs.find("output")->value.str == "masked");
  CHECK(rs.warnings.size() == 1);
}

TEST_CASE("blocks that do not sum to the number of scores are rejected", "[kernel]") {
  CHECK_THROWS_AS(softmax({0, 1, 2}, {1, 2, 3}, {2, 2}), InputError);
  CHECK_THROWS_AS(softmax({0, 1, 2}, {1, 2}, {3}), InputError);
}

TEST_CASE("scores accept ln2, ln(3), e, -inf, -ln2 and plain numbers, and reject +inf and ln(0)", "[kernel]") {
  const std::vector<double> s = parse_score_list("0, ln2,ln(3),e,-inf,-ln2,2.5e-1,ln(e)", "--scores");
  REQUIRE(s.size() == 8);
  CHECK(s[1] == std::log(2.0));
  CHECK(s[2] == std::log(3.0));
  CHECK(s[3] == std::exp(1.0));
  CHECK(std::isinf(s[4]));
  CHECK(s[4] < 0);
  CHECK(s[5] == -std::log(2.0));
  CHECK(s[6] == 0.25);
  CHECK(s[7] == 1.0);
  CHECK_THROWS_AS(parse_score_list("inf", "--scores"), InputError);
  CHECK_THROWS_AS(parse_score_list("ln(0)", "--scores"), InputError);
  CHECK_THROWS_AS(parse_score_list("1,,2", "--scores"), InputError);
  CHECK_THROWS_AS(parse_score_list("nan", "--scores"), InputError);
  CHECK_THROWS_AS(parse_value_rows("1,-inf", "--values"), InputError);
  CHECK_THROWS_AS(parse_value_rows("1,0;2", "--values"), InputError);
  CHECK(parse_value_rows("1,0;2,1;4,2", "--values").size() == 3);
}

// ---- CLI ------------------------------------------------------------------------------------

TEST_CASE("kernel commands reject bad input with exit 2 and one line naming the flag", "[kernel][cli]") {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"kernel online-softmax --scores 0,ln2,ln3 --values 1,2,4 --blocks 2,2",
       "napkin: error: --blocks: '2,2': expected block sizes summing to the number of scores, 3 (they sum to 4)\n"},
      {"kernel online-softmax --scores 0,ln2,ln3 --values 1,2",
       "napkin: error: --values: '1,2': expected 3 values (one per score; rows separated by ';'), got 2\n"},
      {"kernel online-softmax --scores 0,inf --values 1,2",
       "napkin: error: --scores: 'inf': expected numbers such as 1.5, e, ln2, ln(3) or -inf (masked), separated by "
       "commas\n"},
      {"kernel waves --m 1793 --n 1793 --tile 256x0 --sms 108",
       "napkin: error: --tile: '256x0': expected positive integers in every dimension (e.g. 1920x1080)\n"},
      {"kernel waves --m 0 --n 1793 --tile 256x128 --sms 108", "napkin: error: --m: '0': expected a positive integer\n"},
      {"kernel waves --tile 256x128 --sms 108",
       "napkin: error: --m: '(missing)': expected --m and --n, or --scan M0..M1\n"},
      {"kernel tiling --m 64 --k 64 --n 64 --tile 2.5 --dtype fp32",
       "napkin: error: --tile: '2.5': expected a positive integer\n"},
      {"kernel tiling --m 4096 --k 4096 --n 4096 --tile 256 --dtype fp32 --smem-per-sm 228KiB",
       "napkin: error: --tile: '256': expected a tile pair that fits in --smem-per-sm (2 · 256² · 4 B = 524288 B > "
       "233472 B)\n"},
      {"kernel grid --n 4096 --block 2048",
       "napkin: error: --block: '2048 threads': expected at most 1024 threads per block (the CUDA limit)\n"},
      {"kernel grid --n 1920x1080 --block 256",
       "napkin: error: --block: '256': expected as many dimensions as --n 1920x1080 (e.g. 16x16)\n"},
      {"kernel flash-io --seq 0 --head-dim 64 --dtype bf16 --sram 100KiB",
       "napkin: error: --seq: '0': expected a positive integer\n"},
  };
  for (const auto& [args, msg] : cases) {
    INFO(args);
    const auto r = run_napkin(args);
    CHECK(r.code == 2);
    CHECK(r.out == msg);
  }
}

TEST_CASE("a block that is not a multiple of 32 threads is a warning, not an error", "[kernel][cli]") {
  const auto r = run_napkin("kernel grid --n 1000 --block 100 --csv");
  CHECK(r.code == 0);
  CHECK(r.out.find("napkin: warning: 100 threads per block is not a multiple of the warp size 32: the last warp of "
                   "every block runs with 4 of 32 lanes (--block)\n") != std::string::npos);
}

TEST_CASE("kernel waves --scan marks the 1792 -> 1793 cliff in CSV", "[kernel][cli]") {
  const auto r = run_napkin("kernel waves --scan 1792..1794 --tile 256x128 --sms 108 --csv");
  CHECK(r.code == 0);
  CHECK(r.out ==
        "size,m,n,tile_m,tile_n,sms,blocks_per_sm,tiles,slots,waves,last_wave_tiles,wave_efficiency,padded_elements,"
        "cliff\n"
        "1792,1792,1792,256,128,108,1,98,108,1,98,0.9074074074074074,0,false\n"
        "1793,1793,1793,256,128,108,1,120,108,2,12,0.5555555555555556,717311,true\n"
        "1794,1794,1794,256,128,108,1,120,108,2,12,0.5555555555555556,713724,false\n");
}

TEST_CASE("a 1-D grid sweeps over --n", "[kernel][cli]") {
  const auto r = run_napkin("kernel grid --n 255..257 --block 256 --csv");
  CHECK(r.code == 0);
  std::size_t lines = 0;
  for (char ch : r.out) lines += ch == '\n';
  CHECK(lines == 4);
}

TEST_CASE("every assumption key the kernel calculators emit has an entry in the flag table", "[kernel][cli]") {
  std::vector<ResultSet> sets(7);
  launch_grid({.n = {1000 * one}, .block = {256 * one}}, sets[0]);
  wave_quantization(square(1793), sets[1], square(1792));
  WavesInput w = square(1793);
  w.blocks_per_sm = 2 * one;
  wave_quantization(w, sets[2]);
  tiled_matmul_traffic({.m = 64 * one, .k = 64 * one, .n = 64 * one, .tile = 16 * one, .dtype = Dtype::fp32,
                        .smem_per_sm = 100 * KiB, .peak = 1.0 * TFLOP_per_s, .bandwidth = 1.0 * TB_per_s},
                       sets[3]);
  tiled_matmul_traffic({.m = 64 * one, .k = 64 * one, .n = 64 * one, .tile = 16 * one}, sets[4]);
  FlashIoInput f = flash(1024, 64, 100 * KiB);
  f.backward = true;
  f.peak = 1.0 * TFLOP_per_s;
  f.bandwidth = 1.0 * TB_per_s;
  flash_attention_io(f, sets[5]);
  OnlineSoftmaxInput o;
  o.scores = {0, 1};
  o.values = {{1}, {2}};
  o.blocks = {1, 1};
  online_softmax(o, sets[6]);
  for (const auto& rs : sets)
    for (const auto& a : rs.assumptions) {
      INFO(a.key);
      CHECK_NOTHROW(cli::flag_for_assumption(a.key));
    }
}
