#include "napkin/report/svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <tuple>

#include "napkin/report/human_units.h"

namespace napkin::report {

namespace {

constexpr DimRt kOne = dim_rt<Count::dim>();
constexpr DimRt kFlopRate = dim_rt<FlopRate::dim>();
constexpr DimRt kByte = dim_rt<Bytes::dim>();
constexpr DimRt kIntensity = dim_rt<Intensity::dim>();
constexpr DimRt kSecond = dim_rt<Seconds::dim>();
constexpr DimRt kJoule = dim_rt<Joules::dim>();
constexpr DimRt kToken = dim_rt<Tokens::dim>();
constexpr DimRt kParam = dim_rt<Params::dim>();

// Canvas and plot area, in SVG user units.
constexpr double kWidth = 760, kHeight = 460;
constexpr double kLeft = 86, kTop = 52, kBottom = 62, kRight = 28, kLegend = 150;

// A palette that stays distinct for common colour-vision deficiencies (Okabe–Ito, yellow
// darkened for contrast on white).
constexpr std::array<std::string_view, 8> kPalette{"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                                    "#CC79A7", "#56B4E9", "#B8860B", "#000000"};
std::string_view colour(std::size_t i) { return kPalette[i % kPalette.size()]; }

// Ledger parts keep their colour across charts: the well-known keys first.
std::string_view part_colour(std::string_view key, std::size_t fallback) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kKnown{{
      {"weights", "#0072B2"},
      {"kv_cache", "#E69F00"},
      {"activations", "#009E73"},
      {"runtime_reserve", "#999999"},
      {"gradients", "#D55E00"},
      {"master_weights", "#56B4E9"},
      {"optimizer_states", "#CC79A7"},
      {"logits", "#B8860B"},
  }};
  for (const auto& [k, c] : kKnown)
    if (k == key) return c;
  static constexpr std::array<std::string_view, 6> kMore{"#4D4D4D", "#8C564B", "#17BECF",
                                                          "#BCBD22", "#7F7FFF", "#FF7F7F"};
  return kMore[fallback % kMore.size()];
}

template <class... A>
void put(std::string& out, fmt::format_string<A...> f, A&&... a) {
  fmt::format_to(std::back_inserter(out), f, std::forward<A>(a)...);
}

std::string esc(std::string_view s) {
  std::string r;
  append_xml_escaped(r, s);
  return r;
}

// A number for a data- attribute: base units, shortest round-trip text.
std::string num(double v) {
  std::string r;
  append_number(r, v);
  return r;
}

// A coordinate: two decimals are finer than any screen.
std::string px(double v) { return fmt::format("{:.2f}", v); }

// Tick text: integers as integers, else up to three significant digits.
std::string tick_text(double v) {
  if (v == 0.0) return "0";
  const double a = std::fabs(v);
  if (std::floor(v) == v && a < 1e6) return fmt::format("{}", static_cast<long long>(v));
  if (a >= 1e6 || a < 1e-3) return fmt::format("{:.2g}", v);
  return fmt::format("{:.3g}", v);
}

bool is_count(DimRt d) { return d == kOne || d == kToken || d == kParam; }

// Count ticks carry their own suffix ("16k", "1.5M", "8B"), as napkin writes counts.
std::string count_tick_text(double v) {
  static constexpr std::array<std::string_view, 5> kSuffix{"", "k", "M", "B", "T"};
  const double a = std::fabs(v);
  if (a < 1e6 && std::floor(v) == v) return tick_text(v);  // 16384, not 16.4k
  if (a < 1e4) return tick_text(v);
  std::size_t i = 0;
  double s = v;
  while (i + 1 < kSuffix.size() && std::fabs(s) >= 1000.0) {
    s /= 1000.0;
    ++i;
  }
  return tick_text(s) + std::string(kSuffix[i]);
}

// Maps a value in base units to a pixel coordinate.
struct Scale {
  double lo = 0, hi = 1;  // base units (for a log axis, both positive)
  bool log = false;
  double p0 = 0, p1 = 1;  // pixels at lo and hi
  double operator()(double v) const {
    const double t = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
    return p0 + t * (p1 - p0);
  }
  bool contains(double v) const {
    const double eps = 1e-9 * (hi - lo);
    return v >= lo - eps && v <= hi + eps;
  }
};

// Title across the top: the command line, on two lines when long, shortened with an ellipsis
// when even two would not hold it.
void title(std::string& out, std::string_view t) {
  constexpr std::size_t kLine = 96;  // characters of 13px text across the canvas
  auto cut_at = [](const std::string& s, std::size_t n) {
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;  // whole UTF-8 characters
    return n;
  };
  std::string first(t), second;
  if (first.size() > kLine) {
    std::size_t cut = first.rfind(' ', kLine);
    if (cut == std::string::npos || cut < kLine / 2) cut = cut_at(first, kLine);
    second = first.substr(cut + (first[cut] == ' ' ? 1 : 0));
    first.resize(cut);
    if (second.size() > kLine) second = second.substr(0, cut_at(second, kLine - 1)) + "…";
  }
  put(out, "<title>{}</title>\n", esc(t));
  put(out, "<text class=\"title\" x=\"16\" y=\"{}\" font-size=\"13\" font-weight=\"bold\">{}</text>\n",
      second.empty() ? 28 : 20, esc(first));
  if (!second.empty())
    put(out, "<text class=\"title\" x=\"16\" y=\"36\" font-size=\"13\" font-weight=\"bold\">{}</text>\n", esc(second));
}

// Boxes of the labels placed so far, so that the next one goes where it overlaps none (or is
// left to the point's tooltip).
struct Placed {
  std::vector<std::array<double, 4>> boxes;  // x0, y0, x1, y1
  static double text_width(std::string_view s, double font) {
    std::size_t chars = 0;
    for (char ch : s) chars += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
    return 0.56 * font * static_cast<double>(chars);
  }
  bool free(const std::array<double, 4>& b) const {
    for (const auto& o : boxes)
      if (b[0] < o[2] && o[0] < b[2] && b[1] < o[3] && o[1] < b[3]) return false;
    return true;
  }
  // Tries right-below, right-above, left-below, left-above of (x, y); returns the text origin
  // and anchor, or nothing.
  std::optional<std::tuple<double, double, bool>> place(double x, double y, std::string_view s, double font,
                                                        double x_min, double x_max, double y_min, double y_max) {
    const double w = text_width(s, font), h = font;
    const std::array<std::tuple<double, double, bool>, 4> tries{{
        {x + 7, y + 4 + h, false}, {x + 7, y - 6, false}, {x - 7, y + 4 + h, true}, {x - 7, y - 6, true}}};
    for (const auto& [tx, ty, end] : tries) {
      const double x0 = end ? tx - w : tx;
      const std::array<double, 4> b{x0, ty - h, x0 + w, ty + 2};
      if (b[0] < x_min || b[2] > x_max || b[1] < y_min || b[3] > y_max || !free(b)) continue;
      boxes.push_back(b);
      return std::tuple{tx, ty, end};
    }
    return std::nullopt;
  }
};

void open_svg(std::string& out, std::string_view kind) {
  put(out,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" "
      "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\" data-chart=\"{2}\">\n",
      kWidth, kHeight, kind);
  put(out, "<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", kWidth, kHeight);
}

// Axis ticks in base units, from nice display values.
std::vector<double> ticks_base(const Scale& s, const AxisUnit& u) {
  std::vector<double> t;
  for (double v : nice_ticks(s.lo / u.scale, s.hi / u.scale, s.log)) t.push_back(v * u.scale);
  return t;
}

std::string tick_label(double base, const AxisUnit& u, DimRt d) {
  return is_count(d) && u.scale == 1.0 ? count_tick_text(base) : tick_text(base / u.scale);
}

std::string axis_title(std::string_view name, const AxisUnit& u) {
  return u.unit.empty() ? std::string(name) : fmt::format("{} ({})", name, u.unit);
}

// Grid lines, tick labels and axis titles for a plot area.
void axes(std::string& out, const Scale& x, const Scale& y, const std::vector<double>& xt, const std::vector<double>& yt,
          const AxisUnit& xu, DimRt xd, const AxisUnit& yu, DimRt yd, std::string_view x_name,
          std::string_view y_name) {
  const double left = std::min(x.p0, x.p1), right = std::max(x.p0, x.p1);
  const double top = std::min(y.p0, y.p1), bottom = std::max(y.p0, y.p1);
  out += "<g class=\"grid\" stroke=\"#e5e5e5\" stroke-width=\"1\">\n";
  for (double v : xt)
    if (x.contains(v)) put(out, "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", px(x(v)), px(top), px(bottom));
  for (double v : yt)
    if (y.contains(v)) put(out, "<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\"/>\n", px(y(v)), px(left), px(right));
  out += "</g>\n";
  put(out,
      "<g class=\"axes\" stroke=\"#333\" stroke-width=\"1\"><line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>"
      "<line x1=\"{0}\" y1=\"{3}\" x2=\"{0}\" y2=\"{2}\"/></g>\n",
      px(left), px(right), px(bottom), px(top));
  out += "<g class=\"x-ticks\" text-anchor=\"middle\" fill=\"#333\">\n";
  for (double v : xt)
    if (x.contains(v))
      put(out, "<text x=\"{}\" y=\"{}\">{}</text>\n", px(x(v)), px(bottom + 16), esc(tick_label(v, xu, xd)));
  out += "</g>\n<g class=\"y-ticks\" text-anchor=\"end\" fill=\"#333\">\n";
  for (double v : yt)
    if (y.contains(v))
      put(out, "<text x=\"{}\" y=\"{}\">{}</text>\n", px(left - 6), px(y(v) + 4), esc(tick_label(v, yu, yd)));
  out += "</g>\n";
  put(out, "<text class=\"x-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\">{}</text>\n",
      px((left + right) / 2), px(bottom + 40), esc(axis_title(x_name, xu)));
  put(out,
      "<text class=\"y-label\" transform=\"translate({},{}) rotate(-90)\" text-anchor=\"middle\" "
      "font-size=\"13\">{}</text>\n",
      px(left - 62), px((top + bottom) / 2), esc(axis_title(y_name, yu)));
}

enum class Mark { box, line, dot };

void legend(std::string& out, const std::vector<std::pair<std::string, std::string>>& entries, double x, double y,
            Mark mark, bool from_bottom = false) {
  if (entries.empty()) return;
  if (from_bottom) y -= 18.0 * static_cast<double>(entries.size() - 1);
  out += "<g class=\"legend\">\n";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const double yy = y + 18.0 * static_cast<double>(i);
    if (mark == Mark::box)
      put(out, "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", px(x), px(yy - 10),
          entries[i].second);
    else if (mark == Mark::dot)
      put(out, "<circle cx=\"{}\" cy=\"{}\" r=\"4.5\" fill=\"{}\"/>\n", px(x + 7), px(yy - 4), entries[i].second);
    else
      put(out, "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2.5\"/>\n", px(x),
          px(yy - 4), px(x + 14), px(yy - 4), entries[i].second);
    put(out, "<text x=\"{}\" y=\"{}\">{}</text>\n", px(x + 20), px(yy), esc(entries[i].first));
  }
  out += "</g>\n";
}

double decade_floor(double v) { return std::pow(10.0, std::floor(std::log10(v))); }
double decade_ceil(double v) { return std::pow(10.0, std::ceil(std::log10(v))); }

bool positive(double v) { return std::isfinite(v) && v > 0.0; }

}  // namespace

// ---- pieces ---------------------------------------------------------------------------------

void append_xml_escaped(std::string& out, std::string_view s) {
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters are not allowed in XML 1.0 text; tabs and newlines become spaces.
        if (static_cast<unsigned char>(ch) < 0x20) out += ' ';
        else out += ch;
    }
  }
}

AxisUnit axis_unit(DimRt d, double max_abs) {
  const double a = std::isfinite(max_abs) ? std::fabs(max_abs) : 0.0;
  if (d == kByte) {
    static constexpr std::array<std::string_view, 7> kIec{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    std::size_t i = 0;
    while (i + 1 < kIec.size() && a >= std::pow(1024.0, static_cast<double>(i + 1))) ++i;
    return {std::pow(1024.0, static_cast<double>(i)), std::string(kIec[i])};
  }
  if (d == kSecond) {
    if (a >= 2 * 86400.0) return {86400.0, "d"};
    if (a >= 2 * 3600.0) return {3600.0, "h"};
    if (a >= 120.0) return {60.0, "min"};
    if (a >= 1.0 || a == 0.0) return {1.0, "s"};
    if (a >= 1e-3) return {1e-3, "ms"};
    if (a >= 1e-6) return {1e-6, "µs"};
    return {1e-9, "ns"};
  }
  if (is_count(d)) {
    if (d == kToken) return {1.0, "tokens"};
    if (d == kParam) return {1.0, "params"};
    return {1.0, ""};
  }
  std::string unit = unit_symbol(d);
  double base = 1.0;
  if (d == kJoule && a >= 3.6e3) {  // energy in Wh from 1 Wh up, as the tables show it
    unit = "Wh";
    base = 3.6e3;
  }
  // FLOP, FLOP/s, B/s, W and J take SI prefixes; other ratios (FLOP/B, B/param, USD/J), money
  // and carbon read best unprefixed.
  const bool prefixed = d == kFlopRate || d == dim_rt<Bandwidth::dim>() ||
                        (unit.find('/') == std::string::npos && unit != "USD" && unit != "kgCO2e");
  if (!prefixed) return {base, unit};
  static constexpr std::array<std::string_view, 7> kSi{"", "k", "M", "G", "T", "P", "E"};
  std::size_t i = 0;
  while (i + 1 < kSi.size() && a / base >= std::pow(1000.0, static_cast<double>(i + 1))) ++i;
  return {base * std::pow(1000.0, static_cast<double>(i)), std::string(kSi[i]) + unit};
}

std::vector<double> nice_ticks(double lo, double hi, bool log) {
  std::vector<double> t;
  if (!(std::isfinite(lo) && std::isfinite(hi)) || hi < lo) return t;
  if (log) {
    if (!(lo > 0)) return t;
    const int e0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
    const int e1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
    const bool fine = e1 - e0 <= 2;  // a short range: 1, 2 and 5 in each decade
    // Every k-th decade: a plot over 600 decades (--peak 1e-300TFLOP/s) had 603 labels.
    int k = 1;
    for (int base = 1; (e1 - e0) / k + 1 > kMaxLogTicks; base *= 10)
      for (int m : {1, 2, 3, 5})
        if ((e1 - e0) / k + 1 > kMaxLogTicks) k = m * base;
    const int first = e0 % k == 0 ? e0 : e0 - e0 % k + (e0 > 0 ? k : 0);  // the first multiple of k from e0
    for (int e = first; e <= e1; e += k) {
      for (double m : {1.0, 2.0, 5.0}) {
        if (m != 1.0 && !fine) continue;
        const double v = m * std::pow(10.0, e);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t.push_back(v);
      }
    }
    return t;
  }
  if (hi == lo) return {lo};
  // The finest round step that gives at most seven intervals.
  const double range = hi - lo;
  const double mag = std::pow(10.0, std::floor(std::log10(range)) - 1);
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0, 20.0, 25.0, 50.0, 100.0}) {
    step = m * mag;
    if (range / step <= 7.0 + 1e-9) break;
  }
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1.0) t.push_back(k * step);
  return t;
}

// ---- roofline -------------------------------------------------------------------------------

std::vector<RooflinePoint> roofline_points(const Series& s, const Roof& roof, std::size_t group) {
  std::vector<RooflinePoint> pts;
  const std::size_t nc = s.columns.size();
  auto col = [&](std::string_view name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < nc; ++i)
      if (s.columns[i] == name) return i;
    return std::nullopt;
  };
  const auto ci = col("intensity"), cf = col("flops"), ct = col("time");
  if (!ci) return pts;
  std::optional<std::size_t> cl;
  for (std::size_t i = 0; i < nc && !cl; ++i)
    if (!s.cells.empty() && s.cells[i].kind == Value::Kind::text) cl = i;
  for (std::size_t r = 0; r < s.rows(); ++r) {
    const Value* row = s.cells.data() + r * nc;
    const double i = row[*ci].num;
    if (!positive(i)) continue;
    double rate = std::min(roof.peak_flop_per_s, i * roof.bandwidth_bytes_per_s);
    if (cf && ct && positive(row[*cf].num) && positive(row[*ct].num)) rate = row[*cf].num / row[*ct].num;
    std::string label = cl ? std::string(row[*cl].str) : fmt::format("{}", r + 1);
    pts.push_back(RooflinePoint{std::move(label), i, rate, 0, group});
  }
  return pts;
}

std::string roofline_svg(const RooflineChart& c) {
  std::string out;
  out.reserve(8192);
  double i_lo = std::numeric_limits<double>::infinity(), i_hi = 0, r_lo = std::numeric_limits<double>::infinity(),
         r_hi = 0;
  auto widen = [](double& lo, double& hi, double v) {
    if (!positive(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  };
  for (const auto& r : c.roofs) {
    widen(i_lo, i_hi, r.peak_flop_per_s / r.bandwidth_bytes_per_s);
    widen(r_lo, r_hi, r.peak_flop_per_s);
  }
  for (const auto& p : c.points) {
    if (!positive(p.intensity_flop_per_byte) || !positive(p.rate_flop_per_s)) continue;
    widen(i_lo, i_hi, p.intensity_flop_per_byte);
    widen(r_lo, r_hi, p.rate_flop_per_s);
  }
  if (!(i_hi > 0)) {  // nothing to draw on: an empty frame around 1
    i_lo = i_hi = 1;
    r_lo = r_hi = 1;
  }
  // A decade either side of everything, so that the slope shows before the ridge.
  const double x_lo = decade_floor(i_lo) / 10, x_hi = decade_ceil(i_hi) * 10;
  double y_lo = r_lo;
  for (const auto& r : c.roofs) y_lo = std::min(y_lo, x_lo * r.bandwidth_bytes_per_s);
  y_lo = std::max(decade_floor(y_lo), decade_floor(r_hi) / 1e4);  // at most four decades down
  const double y_hi = r_hi * 2.5;  // the roof close under the top edge

  const bool many_roofs = c.roofs.size() > 1;
  const double right = kWidth - kRight - (many_roofs || c.groups.size() > 1 ? kLegend : 0);
  const Scale x{x_lo, x_hi, true, kLeft, right};
  const Scale y{y_lo, y_hi, true, kHeight - kBottom, kTop};
  const AxisUnit xu = axis_unit(kIntensity, x_hi), yu = axis_unit(kFlopRate, r_hi);

  open_svg(out, "roofline");
  title(out, c.title);
  axes(out, x, y, ticks_base(x, xu), ticks_base(y, yu), xu, kIntensity, yu, kFlopRate, "arithmetic intensity",
       "attainable rate");
  put(out, "<clipPath id=\"plot-area\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath>\n", px(kLeft),
      px(kTop), px(right - kLeft), px(kHeight - kBottom - kTop));

  std::vector<std::pair<std::string, std::string>> entries;
  Placed placed;
  for (std::size_t k = 0; k < c.roofs.size(); ++k) {
    const Roof& r = c.roofs[k];
    const double ridge = r.peak_flop_per_s / r.bandwidth_bytes_per_s;
    const std::string_view col = many_roofs ? colour(k) : std::string_view("#333333");
    // The slope starts where it enters the frame: at x_lo, or where I·BW = y_lo.
    const double i0 = std::max(x_lo, y_lo / r.bandwidth_bytes_per_s);
    put(out, "<g class=\"roof\" data-peak=\"{}\" data-bandwidth=\"{}\" data-ridge=\"{}\" clip-path=\"url(#plot-area)\">\n",
        num(r.peak_flop_per_s), num(r.bandwidth_bytes_per_s), num(ridge));
    put(out,
        "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2.5\" points=\"{},{} {},{} {},{}\"/>\n", col,
        px(x(i0)), px(y(i0 * r.bandwidth_bytes_per_s)), px(x(ridge)), px(y(r.peak_flop_per_s)), px(x(x_hi)),
        px(y(r.peak_flop_per_s)));
    put(out,
        "<line class=\"ridge\" data-intensity=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
        "stroke-dasharray=\"4 4\"/>\n",
        num(ridge), px(x(ridge)), px(y(r.peak_flop_per_s)), px(x(ridge)), px(kHeight - kBottom), col);
    out += "</g>\n";
    // Labels: the peak left at the roof's height (nothing is drawn above the slope there), the
    // bandwidth along the slope, the ridge at its foot. A peak or bandwidth shared with an earlier
    // roof is not written twice.
    bool same_peak = false, same_bw = false;
    for (std::size_t j = 0; j < k; ++j) {
      same_peak = same_peak || c.roofs[j].peak_flop_per_s == r.peak_flop_per_s;
      same_bw = same_bw || c.roofs[j].bandwidth_bytes_per_s == r.bandwidth_bytes_per_s;
    }
    const std::string peak_text = "peak " + compact(r.peak_flop_per_s, kFlopRate);
    const std::array<double, 4> peak_box{kLeft + 6, y(r.peak_flop_per_s) - 8,
                                         kLeft + 6 + Placed::text_width(peak_text, 12), y(r.peak_flop_per_s) + 6};
    if (!same_peak && placed.free(peak_box)) {
      put(out, "<text class=\"roof-label\" x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n", px(kLeft + 6),
          px(y(r.peak_flop_per_s) + 4), col, esc(peak_text));
      placed.boxes.push_back(peak_box);
    }
    const double xa = x(i0), ya = y(i0 * r.bandwidth_bytes_per_s), xb = x(ridge), yb = y(r.peak_flop_per_s);
    const double angle = std::atan2(yb - ya, xb - xa) * 180.0 / 3.14159265358979323846;
    const double t = 0.12;
    if (!same_bw)
      put(out,
          "<text class=\"roof-label\" transform=\"translate({},{}) rotate({:.1f})\" text-anchor=\"middle\" "
          "fill=\"{}\">{}</text>\n",
          px(xa + t * (xb - xa)), px(ya + t * (yb - ya) - 6), angle, col,
          esc(compact(r.bandwidth_bytes_per_s, dim_rt<Bandwidth::dim>())));
    // The ridge's label climbs from the axis until it overlaps no other ridge's label.
    const std::string ridge_text = "ridge " + compact(ridge, kIntensity);
    for (double ly = kHeight - kBottom - 6; ly > kTop + 12; ly -= 14) {
      const std::array<double, 4> b{x(ridge) + 4, ly - 11, x(ridge) + 4 + Placed::text_width(ridge_text, 11), ly + 2};
      if (!placed.free(b)) continue;
      put(out, "<text class=\"ridge-label\" x=\"{}\" y=\"{}\" fill=\"{}\" font-size=\"11\">{}</text>\n",
          px(x(ridge) + 4), px(ly), col, esc(ridge_text));
      placed.boxes.push_back(b);
      break;
    }
    const std::string roof_text =
        !r.label.empty() ? r.label
                         : fmt::format("{} {}, {} {}", tick_text(r.peak_flop_per_s / yu.scale), yu.unit,
                                       tick_text(r.bandwidth_bytes_per_s / axis_unit(dim_rt<Bandwidth::dim>(),
                                                 r.bandwidth_bytes_per_s).scale),
                                       axis_unit(dim_rt<Bandwidth::dim>(), r.bandwidth_bytes_per_s).unit);
    if (many_roofs) entries.emplace_back(roof_text, std::string(col));
  }

  const bool labels = c.points.size() <= 32;
  const bool by_group = !many_roofs && c.groups.size() > 1;
  if (by_group)
    for (std::size_t g = 0; g < c.groups.size(); ++g) entries.emplace_back(c.groups[g], std::string(colour(g + 1)));
  out += "<g class=\"points\">\n";
  for (const auto& p : c.points) {
    if (!positive(p.intensity_flop_per_byte) || !positive(p.rate_flop_per_s)) continue;
    const std::string_view col = many_roofs ? colour(p.roof) : by_group ? colour(p.group + 1) : colour(3);
    put(out,
        "<circle class=\"point\" data-group=\"{}\" data-intensity=\"{}\" data-rate=\"{}\" cx=\"{}\" cy=\"{}\" r=\"4.5\" fill=\"{}\" "
        "stroke=\"white\" stroke-width=\"1\"><title>{}: {}, {}</title></circle>\n",
        by_group ? esc(c.groups[std::min(p.group, c.groups.size() - 1)]) : std::string(), num(p.intensity_flop_per_byte),
        num(p.rate_flop_per_s), px(x(p.intensity_flop_per_byte)),
        px(y(p.rate_flop_per_s)), col, esc(p.label), esc(compact(p.intensity_flop_per_byte, kIntensity)),
        esc(compact(p.rate_flop_per_s, kFlopRate)));
    placed.boxes.push_back({x(p.intensity_flop_per_byte) - 5, y(p.rate_flop_per_s) - 5, x(p.intensity_flop_per_byte) + 5,
                            y(p.rate_flop_per_s) + 5});
  }
  // Labels after every point is down, so that none covers a point; a point on top of another
  // with the same label (the same kernel under two roofs) is labelled once.
  std::vector<std::tuple<std::string_view, double, double>> said;
  for (const auto& p : c.points) {
    if (!labels || p.label.empty() || !positive(p.intensity_flop_per_byte) || !positive(p.rate_flop_per_s)) continue;
    const double px_ = x(p.intensity_flop_per_byte), py_ = y(p.rate_flop_per_s);
    const bool repeat = std::any_of(said.begin(), said.end(), [&](const auto& t) {
      return std::get<0>(t) == p.label && std::fabs(std::get<1>(t) - px_) < 12 && std::fabs(std::get<2>(t) - py_) < 12;
    });
    if (repeat) continue;
    said.emplace_back(p.label, px_, py_);
    if (const auto at = placed.place(x(p.intensity_flop_per_byte), y(p.rate_flop_per_s), p.label, 11, kLeft, right,
                                     kTop, kHeight - kBottom))
      put(out, "<text class=\"point-label\" x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#333\"{}>{}</text>\n",
          px(std::get<0>(*at)), px(std::get<1>(*at)), std::get<2>(*at) ? " text-anchor=\"end\"" : "", esc(p.label));
  }
  out += "</g>\n";
  legend(out, entries, right + 16, kTop + 12, by_group ? Mark::dot : Mark::line);
  out += "</svg>\n";
  return out;
}

// ---- memory ledger --------------------------------------------------------------------------

std::string ledger_svg(const LedgerChart& c) {
  std::string out;
  out.reserve(8192);
  // Parts in order of first appearance, each with its colour.
  std::vector<std::string> keys, names;
  for (const auto& b : c.bars)
    for (const auto& p : b.parts)
      if (std::find(keys.begin(), keys.end(), p.key) == keys.end()) {
        keys.push_back(p.key);
        names.push_back(p.label.empty() ? p.key : p.label);
      }
  auto key_colour = [&](const std::string& k) {
    const auto i = static_cast<std::size_t>(std::find(keys.begin(), keys.end(), k) - keys.begin());
    return part_colour(k, i);
  };

  double hi = 0;
  std::vector<double> totals;
  for (const auto& b : c.bars) {
    double t = 0;
    for (const auto& p : b.parts) t += std::max(0.0, p.bytes);
    totals.push_back(t);
    hi = std::max(hi, t);
    if (b.capacity_bytes) hi = std::max(hi, *b.capacity_bytes);
  }
  if (!(hi > 0)) hi = 1;
  const AxisUnit yu = axis_unit(kByte, hi);
  const std::vector<double> yt_disp = nice_ticks(0, hi * 1.08 / yu.scale, false);
  const double y_top = yt_disp.empty() ? hi * 1.08 : std::max(yt_disp.back() * yu.scale, hi * 1.08);

  const double right = kWidth - kRight - kLegend;
  const Scale y{0, y_top, false, kHeight - kBottom, kTop};
  const std::size_t n = std::max<std::size_t>(c.bars.size(), 1);
  const double slot = (right - kLeft) / static_cast<double>(n);
  const double bar_w = std::min(90.0, slot * 0.62);

  open_svg(out, "ledger");
  title(out, c.title);
  std::vector<double> yt;
  for (double v : yt_disp) yt.push_back(v * yu.scale);
  // The x axis names bars, not values: no x ticks, labels under each bar instead.
  axes(out, Scale{0, 1, false, kLeft, right}, y, {}, yt, AxisUnit{}, kOne, yu, kByte, "", "memory per GPU");

  // One capacity line across the chart when every bar has the same capacity.
  std::optional<double> common;
  bool same = !c.bars.empty();
  for (const auto& b : c.bars) {
    if (!b.capacity_bytes || (common && *common != *b.capacity_bytes)) same = false;
    if (b.capacity_bytes && !common) common = b.capacity_bytes;
  }

  const bool slanted = c.bars.size() > 6;
  for (std::size_t i = 0; i < c.bars.size(); ++i) {
    const LedgerBar& b = c.bars[i];
    const double cx = kLeft + slot * (static_cast<double>(i) + 0.5);
    const double x0 = cx - bar_w / 2;
    put(out, "<g class=\"bar\" data-label=\"{}\" data-total=\"{}\"{}>\n", esc(b.label), num(totals[i]),
        b.capacity_bytes ? fmt::format(" data-capacity=\"{}\"", num(*b.capacity_bytes)) : std::string());
    double base = 0;
    for (const auto& p : b.parts) {
      if (!(p.bytes > 0)) continue;
      const double y0 = y(base), y1 = y(base + p.bytes);
      put(out,
          "<rect class=\"segment\" data-key=\"{}\" data-bytes=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
          "fill=\"{}\"><title>{}: {}</title></rect>\n",
          esc(p.key), num(p.bytes), px(x0), px(y1), px(bar_w), px(std::max(0.0, y0 - y1)), key_colour(p.key),
          esc(p.key), esc(compact(p.bytes, kByte)));
      base += p.bytes;
    }
    const bool over = b.capacity_bytes && totals[i] > *b.capacity_bytes;
    put(out, "<text class=\"total\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\" fill=\"{}\">{}</text>\n",
        px(cx), px(y(totals[i]) - 5), over ? "#C00000" : "#333", esc(fmt::format("{} {}", tick_text(totals[i] / yu.scale), yu.unit)));
    if (b.capacity_bytes && !same)
      put(out,
          "<line class=\"capacity\" data-bytes=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#C00000\" "
          "stroke-width=\"2\" stroke-dasharray=\"6 3\"/>\n",
          num(*b.capacity_bytes), px(x0 - 6), px(y(*b.capacity_bytes)), px(x0 + bar_w + 6), px(y(*b.capacity_bytes)));
    if (slanted)
      put(out,
          "<text class=\"bar-label\" transform=\"translate({},{}) rotate(-30)\" text-anchor=\"end\" "
          "font-size=\"11\">{}</text>\n",
          px(cx), px(kHeight - kBottom + 14), esc(b.label));
    else
      put(out, "<text class=\"bar-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", px(cx),
          px(kHeight - kBottom + 18), esc(b.label));
    out += "</g>\n";
  }
  if (same && common) {
    put(out,
        "<line class=\"capacity\" data-bytes=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#C00000\" "
        "stroke-width=\"2\" stroke-dasharray=\"6 3\"/>\n",
        num(*common), px(kLeft), px(y(*common)), px(right), px(y(*common)));
    put(out, "<text class=\"capacity-label\" x=\"{}\" y=\"{}\" fill=\"#C00000\">capacity</text>\n", px(right + 8),
        px(y(*common) - 2));
    put(out, "<text class=\"capacity-label\" x=\"{}\" y=\"{}\" fill=\"#C00000\">{} {}</text>\n", px(right + 8),
        px(y(*common) + 12), tick_text(*common / yu.scale), yu.unit);
  }
  std::vector<std::pair<std::string, std::string>> entries;
  // The legend stacks like the bars: the first part at the bottom, level with the axis.
  if (!same && common) entries.emplace_back("capacity", "#C00000");
  for (std::size_t k = keys.size(); k-- > 0;) entries.emplace_back(names[k], std::string(key_colour(keys[k])));
  legend(out, entries, right + 16, kHeight - kBottom - 2, Mark::box, true);
  out += "</svg>\n";
  return out;
}

// ---- sweeps ---------------------------------------------------------------------------------

std::string line_svg(const LineChart& c) {
  std::string out;
  out.reserve(8192);
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  auto usable = [&](double xv, double yv) {
    return std::isfinite(xv) && std::isfinite(yv) && (!c.x_log || xv > 0) && (!c.y_log || yv > 0);
  };
  for (const auto& s : c.series)
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!usable(s.x[i], s.y[i])) continue;
      x_lo = std::min(x_lo, s.x[i]);
      x_hi = std::max(x_hi, s.x[i]);
      y_lo = std::min(y_lo, s.y[i]);
      y_hi = std::max(y_hi, s.y[i]);
    }
  if (c.y_ref && std::isfinite(*c.y_ref) && (!c.y_log || *c.y_ref > 0)) {
    y_lo = std::min(y_lo, *c.y_ref);
    y_hi = std::max(y_hi, *c.y_ref);
  }
  if (!(x_hi >= x_lo)) x_lo = x_hi = 1;
  if (!(y_hi >= y_lo)) y_lo = y_hi = 1;

  const AxisUnit xu = axis_unit(c.x_dim, std::max(std::fabs(x_lo), std::fabs(x_hi)));
  const AxisUnit yu = axis_unit(c.y_dim, std::max(std::fabs(y_lo), std::fabs(y_hi)));
  // x spans the data; y starts at zero on a linear axis, so that heights compare honestly.
  if (c.x_log) {
    const double pad = x_hi > x_lo ? std::pow(x_hi / x_lo, 0.03) : 2.0;
    x_lo /= pad;
    x_hi *= pad;
  } else if (x_hi == x_lo) {
    x_lo -= std::max(1.0, std::fabs(x_lo) * 0.1);
    x_hi += std::max(1.0, std::fabs(x_hi) * 0.1);
  } else {
    const double pad = (x_hi - x_lo) * 0.03;
    x_lo -= pad;
    x_hi += pad;
  }
  if (c.y_log) {
    y_lo = decade_floor(y_lo);
    y_hi = y_hi == y_lo ? y_hi * 10 : decade_ceil(y_hi * 1.0001);
  } else {
    y_lo = std::min(0.0, y_lo);
    y_hi = std::max(0.0, y_hi);
    if (y_hi == y_lo) y_hi = y_lo + 1;
    const auto t = nice_ticks(y_lo / yu.scale, y_hi * 1.05 / yu.scale, false);
    if (!t.empty()) y_hi = std::max(y_hi * 1.06, t.back() * yu.scale);
  }

  const bool with_legend = c.series.size() > 1;
  const double right = kWidth - kRight - (with_legend ? kLegend : 0);
  const Scale x{x_lo, x_hi, c.x_log, kLeft, right};
  const Scale y{y_lo, y_hi, c.y_log, kHeight - kBottom, kTop};
  std::vector<double> xt;
  if (!c.x_ticks.empty() && c.x_ticks.size() <= 12) {
    xt = c.x_ticks;
  } else {
    xt = ticks_base(x, xu);
  }

  open_svg(out, "line");
  title(out, c.title);
  axes(out, x, y, xt, ticks_base(y, yu), xu, c.x_dim, yu, c.y_dim, c.x_label, c.y_label);

  if (c.y_ref && std::isfinite(*c.y_ref) && y.contains(*c.y_ref)) {
    put(out,
        "<line class=\"reference\" data-y=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#C00000\" "
        "stroke-width=\"2\" stroke-dasharray=\"6 3\"/>\n",
        num(*c.y_ref), px(kLeft), px(y(*c.y_ref)), px(right), px(y(*c.y_ref)));
    put(out, "<text class=\"reference-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#C00000\">{} {} {}</text>\n",
        px(right - 4), px(y(*c.y_ref) - 6), esc(c.y_ref_label), tick_text(*c.y_ref / yu.scale), esc(yu.unit));
  }

  std::size_t total = 0;
  for (const auto& s : c.series) total += s.x.size();
  const bool markers = total <= 400;
  std::vector<std::pair<std::string, std::string>> entries;
  bool any_marked = false;
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    const LineSeries& s = c.series[k];
    const std::string_view col = colour(k);
    put(out, "<g class=\"series\" data-name=\"{}\" data-key=\"{}\" data-points=\"{}\">\n", esc(s.name), esc(c.y_key),
        s.x.size());
    std::string pts;
    for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!usable(s.x[i], s.y[i])) continue;
      if (!pts.empty()) pts += ' ';
      pts += px(x(s.x[i]));
      pts += ',';
      pts += px(y(s.y[i]));
    }
    put(out, "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n", col, pts);
    if (markers)
      for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
        if (!usable(s.x[i], s.y[i])) continue;
        put(out,
            "<circle class=\"point\" data-x=\"{}\" data-y=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"><title>{}, "
            "{}</title></circle>\n",
            num(s.x[i]), num(s.y[i]), px(x(s.x[i])), px(y(s.y[i])), col, esc(compact(s.x[i], c.x_dim)),
            esc(compact(s.y[i], c.y_dim)));
      }
    for (std::size_t i : s.marked) {
      if (i >= s.x.size() || i >= s.y.size() || !usable(s.x[i], s.y[i])) continue;
      put(out,
          "<circle class=\"mark\" data-x=\"{}\" data-y=\"{}\" cx=\"{}\" cy=\"{}\" r=\"7\" fill=\"none\" "
          "stroke=\"#C00000\" stroke-width=\"1.5\"/>\n",
          num(s.x[i]), num(s.y[i]), px(x(s.x[i])), px(y(s.y[i])));
      any_marked = true;
    }
    out += "</g>\n";
    if (with_legend) entries.emplace_back(s.name, std::string(col));
  }
  if (any_marked && !c.mark_label.empty()) {
    // A ring in the corner says what the ringed points are.
    const double lx = with_legend ? right + 16 : right - 8 - Placed::text_width(c.mark_label, 12) - 20;
    const double ly = with_legend ? kTop + 12 + 18.0 * static_cast<double>(entries.size()) : kTop + 12;
    put(out,
        "<g class=\"legend\"><circle cx=\"{}\" cy=\"{}\" r=\"6\" fill=\"none\" stroke=\"#C00000\" "
        "stroke-width=\"1.5\"/><text x=\"{}\" y=\"{}\">{}</text></g>\n",
        px(lx + 7), px(ly - 4), px(lx + 20), px(ly), esc(c.mark_label));
  }
  legend(out, entries, right + 16, kTop + 12, Mark::line);
  out += "</svg>\n";
  return out;
}

}  // namespace napkin::report
