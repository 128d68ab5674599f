// Charts as SVG text (`--plot FILE.svg`): a log-log roofline with points under the roofs, stacked
// bars of a memory ledger per GPU against its capacity, and a line chart of a sweep. Pure string
// building from plain numbers in base units: no I/O, no state. The CLI collects the numbers
// (src/cli/plot.cpp) and writes the file.
//
// Every drawn datum carries its number in base units as a data- attribute (data-intensity,
// data-rate, data-bytes, data-x, data-y, ...), so tests and scripts read a chart back without
// parsing pixels.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/ground/result.h"
#include "napkin/ground/units.h"

namespace napkin::report {

// ---- roofline -------------------------------------------------------------------------------

/// One roof: a compute peak and a memory bandwidth; the ridge is where they meet.
struct Roof {
  std::string label;              // legend text when there are several roofs ("": its peak and bandwidth)
  double peak_flop_per_s = 0.0;
  double bandwidth_bytes_per_s = 0.0;
};

/// A kernel (or a serving op) under the roofs: its arithmetic intensity and the rate it reaches.
struct RooflinePoint {
  std::string label;              // drawn beside the point when there are few points
  double intensity_flop_per_byte = 0.0;
  double rate_flop_per_s = 0.0;
  std::size_t roof = 0;           // index into RooflineChart::roofs (its colour)
  std::size_t group = 0;          // index into RooflineChart::groups (its colour, with one roof)
};

struct RooflineChart {
  std::string title;
  std::vector<Roof> roofs;        // at least one
  std::vector<RooflinePoint> points;
  std::vector<std::string> groups;  // legend of the point groups ("prefill_ops", "decode_ops")
};

/// Log-log chart: attainable FLOP/s against intensity FLOP/B, the bandwidth slope and compute
/// roof of each roof, the ridge marked, the points labelled. Points with a zero or non-finite
/// coordinate cannot sit on log axes and are left out.
std::string roofline_svg(const RooflineChart& c);

/// The ops of a per-op series as roofline points: one point per row, at (intensity, flops / time),
/// labelled by the row's first text column. Reads the columns `intensity` (FLOP/B), `flops`
/// (FLOP) and `time` (s); without `time`, the attainable rate min(peak, I·BW) of `roof` is used.
/// Rows without a positive intensity are skipped. The points belong to `group`.
std::vector<RooflinePoint> roofline_points(const Series& s, const Roof& roof, std::size_t group = 0);

// ---- memory ledger --------------------------------------------------------------------------

struct LedgerPart {
  std::string key;                // "weights", "kv_cache", ... (one colour per key)
  double bytes = 0.0;
  std::string label{};            // legend text ("KV cache"); the key when empty
};

/// One GPU's ledger: the parts stack up to per_gpu; the capacity line is drawn when known.
struct LedgerBar {
  std::string label;              // under the bar: the model, or the swept values
  std::vector<LedgerPart> parts;
  std::optional<double> capacity_bytes;
};

struct LedgerChart {
  std::string title;
  std::vector<LedgerBar> bars;
};

/// Stacked vertical bars in GiB, one per ledger, a legend of the parts, the total above each
/// bar and the capacity as a dashed line (red total when a bar goes over).
std::string ledger_svg(const LedgerChart& c);

// ---- sweeps ---------------------------------------------------------------------------------

struct LineSeries {
  std::string name;               // legend text ("" when there is one series)
  std::vector<double> x, y;       // base units
  std::vector<std::size_t> marked{};  // indices of points to ring (a wave cliff)
};

struct LineChart {
  std::string title;
  std::string x_label;            // the swept flag, "--batch"
  DimRt x_dim{};
  bool x_log = false;
  std::vector<double> x_ticks;    // where to put x ticks (e.g. the swept values); empty: chosen
  std::string y_label;            // the result, "per GPU"
  std::string y_key;              // its key, "per_gpu"
  DimRt y_dim{};
  bool y_log = false;
  std::optional<double> y_ref;    // a horizontal reference line (a capacity), base units
  std::string y_ref_label;        // its name ("capacity"); the value is written after it
  std::vector<LineSeries> series;
  std::string mark_label;         // legend text of the ringed points ("wave cliff")
};

/// One line per series, points marked while there are few, a legend when there are several.
/// Non-finite points are left out.
std::string line_svg(const LineChart& c);

// ---- pieces, for tests ----------------------------------------------------------------------

/// XML text escaping: & < > " ' become entities.
void append_xml_escaped(std::string& out, std::string_view s);

/// The display unit of an axis whose largest magnitude is `max_abs` (base units): the divisor
/// and the unit text, e.g. bytes up to 80e9 → {2^30, "GiB"}, FLOP/s → {1e12, "TFLOP/s"}.
struct AxisUnit {
  double scale = 1.0;
  std::string unit;
};
AxisUnit axis_unit(DimRt d, double max_abs);

/// At most this many ticks on a log axis (a linear axis has at most 8).
inline constexpr int kMaxLogTicks = 12;

/// Round tick values covering [lo, hi] (display units): steps of 1, 2 or 5 × 10^k on a linear
/// axis, decades (with 2 and 5 between when the range is short) on a log axis. A log axis over
/// more than kMaxLogTicks decades ticks every k-th decade, k the smallest of 2, 3, 5, 10, 20, 30,
/// 50, ... that keeps it to kMaxLogTicks, at the powers 10^e with e a multiple of k.
std::vector<double> nice_ticks(double lo, double hi, bool log);

}  // namespace napkin::report
