// GPU kernel arithmetic: launch grids, wave quantization, tiling reuse, FlashAttention HBM
// traffic and online softmax. Course notes 7.1, 7.6, 7.7 and 7.8; FlashAttention counts from
// Dao et al. 2022, "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness"
// (arXiv 2205.14135).
//
// Every calculator comes in two forms, as in flops.h: a numeric one returning a plain struct
// (what tests and other calculators call) and one that appends the itemized result to a
// ResultSet. Preconditions are checked in the numeric form; a violation throws InputError
// naming the input (the CLI turns "tile" into "--tile").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "napkin/ground/dtype.h"
#include "napkin/ground/result.h"
#include "napkin/ground/units.h"

namespace napkin {

// ---- launch grid (notes 7.1) ----------------------------------------------------------------

/// CUDA limits on a thread block: at most 1024 threads in all and blockDim.z ≤ 64. CUDA C++
/// Programming Guide, "Technical Specifications per Compute Capability" (all of 5.0 to 12.x).
inline constexpr double kMaxThreadsPerBlock = 1024;
inline constexpr double kMaxBlockDimZ = 64;

struct GridInput {
  std::vector<Count> n;      // elements per dimension, x first; 1 to 3 dimensions
  std::vector<Count> block;  // threads per block per dimension (blockDim), as many dimensions
  Count warp_size = 32.0 * units::one;  // NVIDIA; AMD CDNA wavefronts are 64
};

struct Grid {
  std::vector<double> blocks_per_dim;  // ceil(n_i / b_i)
  Count blocks{}, threads_per_block{}, threads{}, elements{}, idle_threads{};
  Count warps_per_block{}, warps{};
  Count partial_warps{};   // warps with some but not all lanes doing work
  Count idle_warps{};      // warps with no lane doing work (they exit at the guard)
  Count masked_lanes_last_warp{};  // lanes without work in the warp holding the last element
  Count masked_lanes{};    // warps · warp size − elements
};

/// One thread per element: blocks = Π ceil(n_i / b_i), threads = blocks · Π b_i, idle threads
/// = threads − Π n_i. Warps are warp_size consecutive threads of a block, x fastest; a lane
/// works when its thread's index is inside n in every dimension (the `i < n` guard).
/// Preconditions: 1-3 dimensions, the same number in n and block, positive integers, at most
/// 1024 threads per block and blockDim.z ≤ 64.
Grid launch_grid(const GridInput& in);
void launch_grid(const GridInput& in, ResultSet& out);

// ---- wave quantization (notes 7.6) ----------------------------------------------------------

struct WavesInput {
  Count m{}, n{};             // output shape
  Count tile_m{}, tile_n{};   // output tile per thread block
  Count sms{};                // streaming multiprocessors
  Count blocks_per_sm = 1.0 * units::one;  // resident tiles per SM (the notes' simplification: 1)
};

struct Waves {
  Count tiles_m{}, tiles_n{}, tiles{}, slots{}, waves{}, last_wave_tiles{};
  double wave_efficiency = 0;  // tiles / (waves · slots)
  Count padded_elements{};     // masked elements of edge tiles
};

/// tiles = ceil(m/T_m) · ceil(n/T_n), waves = ceil(tiles / (SMs · blocks per SM)), the last
/// wave holds tiles − (waves − 1) · slots. Every tile is assumed to take the same time.
Waves wave_quantization(const WavesInput& in);
/// With `previous` (the shape before this one in a scan), adds a `cliff` item: true where the
/// wave count is larger than the previous shape's.
void wave_quantization(const WavesInput& in, ResultSet& out, const std::optional<WavesInput>& previous = {});

// ---- tiled matmul traffic (notes 7.6) -------------------------------------------------------

struct TilingInput {
  Count m{}, k{}, n{};  // [m,k] @ [k,n]
  Count tile{};         // T: square T×T tiles of A and B staged in shared memory
  Dtype dtype = Dtype::fp32;
  std::optional<Bytes> smem_per_sm{};  // checks the tile pair when given
  std::optional<FlopRate> peak{};      // with bandwidth: roofline placement
  std::optional<Bandwidth> bandwidth{};
};

struct Tiling {
  Count naive_reads{}, tiled_reads{}, writes{};  // elements
  Bytes naive_bytes{}, tiled_bytes{};
  double reuse_factor = 0;  // naive reads / tiled reads (≈ T)
  Flops flops{};
  Intensity naive_intensity{}, tiled_intensity{};
  Bytes smem_per_tile_pair{};  // 2 · T² · element size
  std::optional<Seconds> naive_time{}, tiled_time{};
  std::optional<Intensity> ridge{};
};

/// Naive: every output reads a row of A and a column of B from HBM, 2·m·n·k element reads.
/// Tiled: each T×T tile of A is read once per column of output tiles and each tile of B once
/// per row of them, m·k·ceil(n/T) + k·n·ceil(m/T) reads, edge tiles masked (no reads outside
/// the matrix). Both write m·n. Throws InputError("tile") when --smem-per-sm is given and a
/// tile pair does not fit in it.
Tiling tiled_matmul_traffic(const TilingInput& in);
void tiled_matmul_traffic(const TilingInput& in, ResultSet& out);

// ---- FlashAttention HBM traffic (notes 7.7; Dao et al. 2022) --------------------------------

struct FlashIoInput {
  Count batch = 1.0 * units::one;
  Count heads = 1.0 * units::one;
  Count seq{};       // N
  Count head_dim{};  // d
  Dtype dtype = Dtype::bf16;
  Bytes sram{};      // on-chip SRAM per SM; M = floor(sram / element size) elements
  bool backward = false;
  std::optional<FlopRate> peak{};
  std::optional<Bandwidth> bandwidth{};
};

struct FlashIo {
  double sram_elements = 0;      // M
  double block_cols = 0;         // B_c = ceil(M / 4d)
  double block_rows = 0;         // B_r = min(B_c, d)
  double col_blocks = 0;         // T_c = ceil(N / B_c)
  double row_blocks = 0;         // T_r = ceil(N / B_r)
  double naive_elements_per_head = 0;  // Algorithm 0: 4·N·d + 4·N²
  double flash_elements_per_head = 0;  // Algorithm 1: 3·N·d + 2·N + T_c·N·(3d + 4)
  Bytes naive_bytes{}, flash_bytes{};  // × batch × heads × element size
  Flops flops{};                       // 4·N²·d per head, the same for both
  Intensity naive_intensity{}, flash_intensity{};
  // With backward: Algorithm 3 (standard) and Algorithm 4 (FlashAttention, recomputation).
  double naive_backward_elements_per_head = 0;  // 7·N² + 8·N·d
  double flash_backward_elements_per_head = 0;  // 7·N·d + T_c·N·(5d + 2)
  Bytes naive_backward_bytes{}, flash_backward_bytes{};
  Flops naive_backward_flops{}, flash_backward_flops{};  // 8·N²·d and 10·N²·d per head
  std::optional<Seconds> naive_time{}, flash_time{};
};

/// HBM accesses per head, counted line by line from the paper's algorithm listings (see
/// gpu_kernel.cpp), times batch × heads × element size. FLOP are 4·N²·d per head for both: exact
/// attention, quadratic arithmetic; only the traffic changes.
FlashIo flash_attention_io(const FlashIoInput& in);
void flash_attention_io(const FlashIoInput& in, ResultSet& out);

// ---- online softmax (notes 7.8) -------------------------------------------------------------

/// Parses a comma-separated list of scores: plain numbers (`1.5`, `-2e-3`), `e`, `ln2`,
/// `ln(3)`, `ln(e)`, `-ln2`, and `-inf` for a masked position. Throws InputError naming
/// `field` on anything else (including +inf, NaN and ln of a non-positive number).
std::vector<double> parse_score_list(std::string_view text, std::string_view field);
/// Parses values: `1,2,4` (one number per score, d = 1) or `1,0;2,1;4,2` (one row of d numbers
/// per score, rows separated by ';'). The same tokens as scores, but finite. Returns rows.
std::vector<std::vector<double>> parse_value_rows(std::string_view text, std::string_view field);

struct OnlineSoftmaxInput {
  std::vector<double> scores;                // -inf marks a masked position
  std::vector<std::vector<double>> values;   // one row of d numbers per score
  std::vector<double> blocks;                // block sizes, summing to the number of scores
  // The text the user typed, echoed as inputs; string_views into these must outlive the
  // ResultSet (keep the input alive until it is rendered).
  std::string scores_text, values_text;
};

struct SoftmaxStep {
  double size = 0;
  std::size_t first = 0;  // index of the block's first score
  bool masked = false;    // every score of the block is -inf
  double m = 0;           // running max after the block (-inf while everything is masked)
  /// exp(m_old − m_new), applied to the old ℓ and u; empty when there are no old terms to
  /// rescale (m_old = −∞, ℓ = 0, u = 0: the first block, or every earlier score was −∞), where
  /// the factor would be exp(−∞ − m_new) or −∞ − (−∞). JSON writes it as null.
  std::optional<double> rescale;
  std::vector<double> weights;  // exp(s − m_new) for each score of the block (0 for −∞)
  double l = 0;
  std::vector<double> u;
};

struct OnlineSoftmax {
  std::vector<SoftmaxStep> trace;
  bool row_masked = false;            // every score is -inf: no output
  std::vector<double> output;         // u / ℓ (empty when row_masked)
  std::vector<double> reference;      // full-row softmax · V (empty when row_masked)
  std::vector<double> weights;        // full-row softmax probabilities
  double max_score = 0, normaliser = 0;  // max s and Σ exp(s − max s), when not row_masked
  double max_abs_difference = 0;
};

/// Runs the online softmax block by block: m' = max(m, max s_b), ℓ' = ℓ·exp(m − m') +
/// Σ_b exp(s − m'), u' = u·exp(m − m') + Σ_b exp(s − m')·v, output u/ℓ; starting from m = −∞,
/// ℓ = 0, u = 0 without ever evaluating −∞ − (−∞). Preconditions: scores not empty, finite or
/// -inf; one value row per score, all of the same length; blocks positive integers summing
/// to the number of scores.
OnlineSoftmax online_softmax(const OnlineSoftmaxInput& in);
/// The items, the per-block trace (rescale none, JSON null, where there are no old terms) and,
/// as explain-only notes, every block worked out with its numbers as notes 7.8's example is:
/// m' = max(…), the rescale exp(m − m'), ℓ' and u' substituted, then u/ℓ. A block's sums show
/// their first 8 terms and the block's size; value rows their first 4 numbers.
void online_softmax(const OnlineSoftmaxInput& in, ResultSet& out);

}  // namespace napkin
