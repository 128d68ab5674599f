#include "napkin/report/human_units.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "napkin/ground/sanitize.h"

namespace napkin::report {

namespace {

constexpr DimRt kOne = dim_rt<Count::dim>();
constexpr DimRt kFlop = dim_rt<Flops::dim>();
constexpr DimRt kFlopRate = dim_rt<FlopRate::dim>();
constexpr DimRt kByte = dim_rt<Bytes::dim>();
constexpr DimRt kBandwidth = dim_rt<Bandwidth::dim>();
constexpr DimRt kIntensity = dim_rt<Intensity::dim>();
constexpr DimRt kSecond = dim_rt<Seconds::dim>();
constexpr DimRt kJoule = dim_rt<Joules::dim>();
constexpr DimRt kWatt = dim_rt<Watts::dim>();
constexpr DimRt kToken = dim_rt<Tokens::dim>();
constexpr DimRt kParam = dim_rt<Params::dim>();
constexpr DimRt kUsd = dim_rt<Usd::dim>();
constexpr DimRt kCo2 = dim_rt<Co2::dim>();

struct Named {
  DimRt d;
  std::string_view symbol;
};
constexpr std::array<Named, 18> kSymbols{{
    {kOne, "1"},
    {kFlop, "FLOP"},
    {kFlopRate, "FLOP/s"},
    {kByte, "B"},
    {kBandwidth, "B/s"},
    {kIntensity, "FLOP/B"},
    {kSecond, "s"},
    {kJoule, "J"},
    {kWatt, "W"},
    {kToken, "tokens"},
    {kParam, "params"},
    {kUsd, "USD"},
    {kCo2, "kgCO2e"},
    {dim_rt<EnergyPerFlop::dim>(), "J/FLOP"},
    {dim_rt<UsdPerJoule::dim>(), "USD/J"},
    {dim_rt<Co2PerJoule::dim>(), "kgCO2e/J"},
    {dim_rt<Dim<1, 0, 0, 0, -1, 0>>(), "FLOP/token"},
    {dim_rt<BytesPerParam::dim>(), "B/param"},
}};

constexpr std::array<std::string_view, kBaseDims> kBaseSymbols{"FLOP", "B",     "s",   "J",
                                                               "token", "param", "USD", "kgCO2e"};

constexpr std::array<std::string_view, 11> kSiUp{"", "k", "M", "G", "T", "P", "E", "Z", "Y", "R", "Q"};
constexpr std::array<std::string_view, 5> kSiDown{"", "m", "µ", "n", "p"};
constexpr std::array<std::string_view, 7> kIec{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
constexpr std::array<std::string_view, 5> kCountSuffix{"", "k", "M", "B", "T"};

constexpr double kExactLimit = 9007199254740992.0;  // 2^53

// An integer that a double holds exactly (|v| < 2^53; false for NaN and infinity): the integer
// conversion round-trips.
bool is_integral(double v) {
  return std::fabs(v) < kExactLimit && static_cast<double>(static_cast<std::int64_t>(v)) == v;
}

// --digits N: significant digits of every figure a person reads (0: the house style below).
int g_digits = 0;

// Drops a fraction's trailing zeros, and the point when nothing follows it: "2.50000" -> "2.5".
void trim_zeros(std::string& out, std::size_t from) {
  const std::size_t dot = out.find('.', from);
  if (dot == std::string::npos) return;
  std::size_t end = out.size();
  while (end > dot + 1 && out[end - 1] == '0') --end;
  if (end == dot + 1) --end;
  out.resize(end);
}

// `n` significant digits in fixed notation, trailing zeros dropped: 2.777777 -> "2.77778" (n = 6).
void append_sig(std::string& out, double v, int n) {
  if (v == 0.0 || !std::isfinite(v)) {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v == 0.0 ? 0.0 : v);
    return;
  }
  const int e = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const std::size_t from = out.size();
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.{}f}"), v, std::max(0, n - 1 - e));
  trim_zeros(out, from);
}

// `n` significant digits in scientific notation without '+': 1.37438953e11 -> "1.37439e11" (n = 6).
void append_sci(std::string& out, double v, int n) {
  if (v == 0.0 || !std::isfinite(v)) {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v);
    return;
  }
  int e = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  double m = v / std::pow(10.0, e);
  const double unit = std::pow(10.0, n - 1);
  if (std::fabs(std::round(m * unit) / unit) >= 10.0) {
    m /= 10.0;
    ++e;
  }
  const std::size_t from = out.size();
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.{}f}"), m, n - 1);
  trim_zeros(out, from);
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("e{}"), e);
}

// "12.35", or with 3 significant digits below 1 ("0.125"), never "-0.00".
void append_fixed(std::string& out, double v) {
  if (v == 0.0) {
    out += "0";
    return;
  }
  if (g_digits > 0) return append_sig(out, v, g_digits);
  if (std::fabs(v) < 0.995)  // below what rounds to 1.00
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.3g}"), v);
  else
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.2f}"), v);
}

// Scale by powers of `step`, choosing the prefix so that 1 ≤ |scaled| < step after rounding
// to two decimals.
void append_prefixed(std::string& out, double v, double step, const std::string_view* up,
                     std::size_t n_up, const std::string_view* down, std::size_t n_down,
                     std::string_view unit, bool space = true) {
  if (!std::isfinite(v)) {
    out += std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
    out += ' ';
    out += unit;
    return;
  }
  double a = std::fabs(v);
  std::size_t i = 0;
  std::size_t j = 0;
  if (a != 0.0) {
    while (i + 1 < n_up && std::round(a / std::pow(step, static_cast<double>(i)) * 100.0) / 100.0 >= step) ++i;
    if (i == 0)
      // 1e-6 · 1000² is 0.9999999999999999 in binary: a relative 1e-12 keeps 1 µs in µs.
      while (j + 1 < n_down && a * std::pow(step, static_cast<double>(j)) * (1.0 + 1e-12) < 1.0) ++j;
  }
  const double scaled = i > 0 ? v / std::pow(step, static_cast<double>(i)) : v * std::pow(step, static_cast<double>(j));
  if (std::fabs(scaled) >= step * 1000.0) {
    // Past the largest prefix (1e36 FLOP, 1e21 T params): scientific notation in the base unit,
    // not a 20-digit mantissa.
    if (g_digits > 0)
      append_sci(out, v, g_digits);
    else
      fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.3e}"), v);
    if (space) out += ' ';
    out += up[0];
    out += unit;
    return;
  }
  if (i == 0 && j == 0 && std::fabs(scaled) < 1e15 && is_integral(scaled))
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), static_cast<std::int64_t>(scaled));  // "2 B", not "2.00 B"
  else
    append_fixed(out, scaled);
  if (space) out += ' ';
  out += i > 0 ? up[i] : down[j];
  out += unit;
}

void append_si(std::string& out, double v, std::string_view unit, bool allow_down = false) {
  append_prefixed(out, v, 1000.0, kSiUp.data(), kSiUp.size(), kSiDown.data(),
                  allow_down ? kSiDown.size() : 1, unit);
}

// Plain numbers: integers exactly (below 2^53: "2070000", not "2.07e6"); others from a million
// up, or below 0.001, with 3 significant digits in scientific notation without the '+' ("1.50e9");
// others with at least 4 significant digits and, from 1 up, 2 decimals where that is more
// ("341.33", "5.667", "0.6931"), trailing zeros dropped ("1.5"). --digits N: N significant digits instead.
void append_plain(std::string& out, double v) {
  if (is_integral(v)) {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), static_cast<std::int64_t>(v));
    return;
  }
  if (!std::isfinite(v)) {  // a finite base value can overflow in display units (per kWh)
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v);
    return;
  }
  if (g_digits > 0) {
    if (v != 0.0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3))
      append_sci(out, v, g_digits);
    else
      append_sig(out, v, g_digits);
    return;
  }
  if (v != 0.0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3)) {
    const int e = static_cast<int>(std::floor(std::log10(std::fabs(v))));
    double m = v / std::pow(10.0, e);
    int ee = e;
    if (std::fabs(std::round(m * 100.0) / 100.0) >= 10.0) {
      m /= 10.0;
      ++ee;
    }
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.2f}e{}"), m, ee);
    return;
  }
  // At least 4 significant digits, and up to 2 decimals from 1 up: 341.33, 5.667, 1.5, 0.6931.
  if (std::fabs(v) >= 1.0) {
    const std::size_t from = out.size();
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.{}f}"), v,
                   std::max(2, 3 - static_cast<int>(std::floor(std::log10(std::fabs(v))))));
    trim_zeros(out, from);
  } else {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.4g}"), v);
  }
}

void append_sci4(std::string& out, double v) {
  if (g_digits > 0) return append_sci(out, v, g_digits);
  if (v == 0.0 || !std::isfinite(v)) {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v);
    return;
  }
  const int e = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  double m = v / std::pow(10.0, e);
  int ee = e;
  if (std::fabs(std::round(m * 1000.0) / 1000.0) >= 10.0) {
    m /= 10.0;
    ++ee;
  }
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.3f}e{}"), m, ee);
}

// A fixed-point figure with two decimals below a trillion, then scientific notation with 4
// significant digits: 1e300 FLOP at 1 FLOP/s takes "1.157e+295 d", not a 296-digit number.
constexpr double kFixedLimit = 1e12;
void append_fixed2(std::string& out, double v) {
  if (g_digits > 0 && std::isfinite(v) && std::fabs(v) >= kFixedLimit) return append_sci(out, v, g_digits);
  if (g_digits > 0) return append_sig(out, v, g_digits);
  if (std::isfinite(v) && std::fabs(v) >= kFixedLimit)
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.3e}"), v);  // as append_prefixed past its prefixes
  else
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.2f}"), v);
}

void append_time(std::string& out, double s) {
  const double a = std::fabs(s);
  if (a >= 2 * 86400.0) {
    append_fixed2(out, s / 86400.0);
    out += " d";
  } else if (a >= 3600.0) {
    append_fixed2(out, s / 3600.0);
    out += " h";
  } else if (a >= 60.0) {
    append_fixed2(out, s / 60.0);
    out += " min";
  } else {
    append_prefixed(out, s, 1000.0, kSiUp.data(), 1, kSiDown.data(), kSiDown.size(), "s");
  }
}

void append_energy(std::string& out, double j) {
  if (std::fabs(j) >= 3.6e3)  // from 1 Wh up, in Wh with SI prefixes (kWh, MWh, GWh)
    append_si(out, j / 3.6e3, "Wh");
  else
    append_si(out, j, "J", true);
}

void append_count(std::string& out, double v, std::string_view unit) {
  if (std::fabs(v) < 1e4) {
    append_plain(out, v);
  } else {
    append_prefixed(out, v, 1000.0, kCountSuffix.data(), kCountSuffix.size(), kSiDown.data(), 1, "",
                    false);
  }
  if (!unit.empty()) {
    out += ' ';
    out += unit;
  }
}

// Text that may come from input (a model name, a config's model_type, a path) as the reports
// show it: controls and bytes that are not UTF-8 made visible, and bounded (sanitize.h). The
// bound is the message one: napkin's own notes run to a few hundred bytes.
void append_shown_text(std::string& out, std::string_view t) {
  if (t.size() > kMaxMessageBytes)
    out += echo(t, kMaxMessageBytes);
  else
    append_visible(out, t);
}

std::string shown_text(std::string_view t) {
  std::string s;
  append_shown_text(s, t);
  return s;
}

}  // namespace

void set_display_digits(int n) { g_digits = n; }
int display_digits() { return g_digits; }

std::string unit_symbol(DimRt d) {
  for (const auto& n : kSymbols)
    if (n.d == d) return std::string(n.symbol);
  // A dimension without a name: write it out, numerator over denominator.
  std::string num, den;
  for (std::size_t i = 0; i < kBaseDims; ++i) {
    const int e = d.e[i];
    if (e == 0) continue;
    std::string& part = e > 0 ? num : den;
    if (!part.empty()) part += "·";
    part += kBaseSymbols[i];
    if (std::abs(e) > 1) part += fmt::format("^{}", std::abs(e));
  }
  if (num.empty()) num.push_back('1');
  return den.empty() ? num : num + "/" + den;
}

void append_compact(std::string& out, double v, DimRt d) {
  if (d == kOne) return append_plain(out, v);
  if (d == kFlop) return append_si(out, v, "FLOP");
  if (d == kFlopRate) return append_si(out, v, "FLOP/s");
  if (d == kByte) return append_si(out, v, "B");
  if (d == kBandwidth) return append_si(out, v, "B/s");
  if (d == kWatt) return append_si(out, v, "W", true);
  if (d == kSecond) return append_time(out, v);
  if (d == kJoule) return append_energy(out, v);
  if (d == kToken) return append_count(out, v, "tokens");
  if (d == kParam) return append_count(out, v, "params");
  if (d == dim_rt<Dim<0, 0, -1, 0, 1, 0>>()) return append_count(out, v, "tokens/s");  // a token rate
  if (d == kUsd) {
    append_fixed2(out, v);
    out += " USD";
    return;
  }
  if (d == kCo2) {
    if (std::fabs(v) >= 1000.0) {
      append_fixed2(out, v / 1000.0);
      out += " tCO2e";
    } else {
      append_fixed2(out, v);
      out += " kgCO2e";
    }
    return;
  }
  if (d == dim_rt<EnergyPerFlop::dim>()) return append_si(out, v, "J/FLOP", true);
  // Prices and carbon intensities are quoted per kWh.
  if (d == dim_rt<UsdPerJoule::dim>()) {
    append_plain(out, v * 3.6e6);
    out += " USD/kWh";
    return;
  }
  if (d == dim_rt<Co2PerJoule::dim>()) {
    append_plain(out, v * 3.6e6);
    out += " kgCO2e/kWh";
    return;
  }
  if (d == dim_rt<Dim<1, 0, 0, 0, -1, 0>>()) return append_si(out, v, "FLOP/token");
  // FLOP/B and anything unnamed: a plain number and the symbol.
  append_plain(out, v);
  out += ' ';
  out += unit_symbol(d);
}

std::string compact(double base, DimRt d) {
  std::string s;
  append_compact(s, base, d);
  return s;
}

std::string human_value(const Value& v) {
  std::string s;
  switch (v.kind) {
    case Value::Kind::text:
      return shown_text(v.str);
    case Value::Kind::boolean:
      return v.flag ? "yes" : "no";
    case Value::Kind::list:
      return "(list)";
    case Value::Kind::none:
      return v.str.empty() ? std::string("none") : shown_text(v.str);
    case Value::Kind::number:
      break;
  }
  append_compact(s, v.num, v.dim);
  const double a = std::fabs(v.num);
  if (v.dim == kByte && a >= 1000.0) {
    s += " (";
    append_prefixed(s, v.num, 1024.0, kIec.data(), kIec.size(), kSiDown.data(), 1, "B");
    s += ')';
  } else if (v.dim == kSecond && a >= 60.0) {
    s += " (";
    if (g_digits > 0)
      append_fixed2(s, v.num);
    else if (a >= kFixedLimit)
      fmt::format_to(std::back_inserter(s), FMT_COMPILE("{:.3e}"), v.num);
    else if (a >= 100.0)
      fmt::format_to(std::back_inserter(s), FMT_COMPILE("{:.0f}"), v.num);
    else
      fmt::format_to(std::back_inserter(s), FMT_COMPILE("{:.2f}"), v.num);
    s += " s";
    s += ')';
  } else if (v.dim == kJoule && a >= 3.6e3) {
    s += " (";
    append_si(s, v.num, "J");
    s += ')';
  } else if (v.dim == kFlop && a >= 1000.0) {
    s += " (";
    if (is_integral(v.num))
      fmt::format_to(std::back_inserter(s), FMT_COMPILE("{}"), static_cast<std::int64_t>(v.num));  // exact
    else
      append_sci4(s, v.num);
    s += " FLOP)";
  } else if ((v.dim == kParam || v.dim == kToken) && a >= 1e4) {
    s += " (";
    if (is_integral(v.num))
      fmt::format_to(std::back_inserter(s), FMT_COMPILE("{}"), static_cast<std::int64_t>(v.num));
    else
      append_sci4(s, v.num);
    s += ')';
  }
  return s;
}

std::string human_value(const ResultSet& rs, const Value& v) {
  if (v.kind != Value::Kind::list) return human_value(v);
  std::string s = "[";
  for (std::uint32_t i = 0; i < v.count; ++i) {
    if (i) s += ", ";
    append_compact(s, rs.numbers[v.first + i], v.dim);
  }
  s += ']';
  return s;
}

namespace {

// "{} parameters" or "{} tokens" in a pattern already names a count's unit: the number alone
// ("37.61B parameters", not "37.61B params parameters").
bool unit_follows(std::string_view rest, DimRt d) {
  if (d == kParam) return rest.starts_with(" param");
  if (d == kToken) return rest.starts_with(" token");
  return false;
}

}  // namespace

void append_text(std::string& out, TextView t) {
  std::size_t arg = 0;
  const std::string_view p = t.pattern;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '{' && i + 1 < p.size() && p[i + 1] == '}') {
      if (arg < t.n) {
        const Operand& o = t.ops[arg++];
        if (o.is_text)
          append_shown_text(out, o.text);
        else if (unit_follows(p.substr(i + 2), o.dim))
          append_count(out, o.num, "");
        else
          append_compact(out, o.num, o.dim);
      }
      ++i;
    } else {
      // The text up to the next '{' in one append.
      const std::size_t next = std::min(p.find('{', i + 1), p.size());
      out.append(p.data() + i, next - i);
      i = next - 1;
    }
  }
}

std::string expand(TextView t) {
  std::string s;
  append_text(s, t);
  return s;
}

namespace {

// "00" "01" ... "99": two digits a step.
constexpr std::array<char, 200> kDigitPairs = [] {
  std::array<char, 200> t{};
  for (int i = 0; i < 100; ++i) {
    t[static_cast<std::size_t>(2 * i)] = static_cast<char>('0' + i / 10);
    t[static_cast<std::size_t>(2 * i + 1)] = static_cast<char>('0' + i % 10);
  }
  return t;
}();

constexpr std::array<std::uint64_t, 20> kPowersOf10 = [] {
  std::array<std::uint64_t, 20> t{};
  std::uint64_t p = 1;
  for (auto& x : t) {
    x = p;
    p *= 10;
  }
  return t;
}();

// The digits of u < 10^8 ending at `end`, two a step (32-bit arithmetic); returns their start.
char* write_digits_back(char* end, std::uint32_t u) {
  char* p = end;
  while (u >= 100) {
    p -= 2;
    std::memcpy(p, &kDigitPairs[2 * (u % 100)], 2);
    u /= 100;
  }
  if (u >= 10) {
    p -= 2;
    std::memcpy(p, &kDigitPairs[2 * u], 2);
  } else {
    *--p = static_cast<char>('0' + u);
  }
  return p;
}

// Eight digits of u < 10^8 at `p`, leading zeros included: four independent pairs.
void write_8_digits(char* p, std::uint32_t u) {
  const std::uint32_t hi = u / 10000, lo = u % 10000;
  std::memcpy(p, &kDigitPairs[2 * (hi / 100)], 2);
  std::memcpy(p + 2, &kDigitPairs[2 * (hi % 100)], 2);
  std::memcpy(p + 4, &kDigitPairs[2 * (lo / 100)], 2);
  std::memcpy(p + 6, &kDigitPairs[2 * (lo % 100)], 2);
}

// The decimal digits of |i| < 2^53 (with '-' when negative) at `out`, as "{}" writes them;
// returns the end. Written in place (the digit count first), so that no scratch copy is read
// back right after its bytes were stored; below 2^53 there are at most 16 digits, two groups of
// eight at most.
char* write_integer(char* out, std::int64_t i) {
  std::uint64_t u = i < 0 ? 0 - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
  if (i < 0) *out++ = '-';
  // floor(log10(2) · bits) is the digit count or one less (1233 / 4096 ≈ log10 2).
  const auto t = static_cast<std::size_t>(std::bit_width(u | 1) * 1233 >> 12);
  const std::size_t n = t + (u >= kPowersOf10[t] ? 1 : 0) + (u == 0 ? 1 : 0);
  char* const end = out + n;
  if (u < 100000000) {
    write_digits_back(end, static_cast<std::uint32_t>(u));
  } else {
    write_8_digits(end - 8, static_cast<std::uint32_t>(u % 100000000));
    write_digits_back(end - 8, static_cast<std::uint32_t>(u / 100000000));
  }
  return end;
}

}  // namespace

char* write_number(char* out, double v) {
  // The hot loop of a sweep. Integers (exact below 2^53; |v| < 2^53 is false for NaN and
  // infinity) two digits a step, as "{}" writes them; other numbers through fmt's "{}" compiled,
  // the shortest round-trip form in fmt's notation (1e+30, 0.0001: std::to_chars would write
  // 1e-04 there, so fmt it stays).
  if (is_integral(v)) return write_integer(out, static_cast<std::int64_t>(v));
  if (!std::isfinite(v)) {
    std::memcpy(out, "null", 4);  // JSON has no NaN or infinity; the calculators reject inputs that make them
    return out + 4;
  }
  char buf[kMaxNumberChars];
  const auto r = fmt::format_to_n(buf, sizeof buf, FMT_COMPILE("{}"), v);
  const auto n = static_cast<std::size_t>(r.out - buf);
  std::memcpy(out, buf, n);
  return out + n;
}

void append_number(std::string& out, double v) {
  char buf[kMaxNumberChars];
  out.append(buf, write_number(buf, v));
}

double echoed(const Input& in) {
  if (in.echo_scale == 1.0) return in.value.num;
  // Back to the unit the user typed: 0.4 kgCO2e/kWh went in as 0.4 / 3.6e6 per joule, and the
  // product's last binary digit (0.39999999999999997) is an artefact; 15 significant digits
  // are exact for anything typed. A subnormal base value holds fewer: 1e-310 USD/kWh is
  // 2.8e-317 USD/J, a multiple of the smallest double good to 6 digits, and echoes as 1e-310.
  const double base = in.value.num;
  const double v = base * in.echo_scale;
  if (!std::isfinite(v) || v == 0.0) return v;
  int digits = 15;
  if (std::fabs(base) < std::numeric_limits<double>::min())
    digits = std::clamp(static_cast<int>(std::floor(std::log10(std::fabs(base) / std::numeric_limits<double>::denorm_min()))), 1, 15);
  const std::string text = fmt::format("{:.{}g}", v, digits);
  // strtod, not std::stod: a tiny result is subnormal, which strtod returns (with ERANGE) and
  // std::stod throws for.
  return std::strtod(text.c_str(), nullptr);
}

}  // namespace napkin::report
