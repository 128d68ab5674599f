#include "napkin/ground/parse_quantity.h"

#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>

#include "napkin/ground/error.h"

namespace napkin {

namespace {

constexpr DimRt kOne = dim_rt<Count::dim>();
constexpr DimRt kToken = dim_rt<Tokens::dim>();
constexpr DimRt kParam = dim_rt<Params::dim>();
// A rental price per second (train.h's UsdPerSecond), quoted per hour: 2.5USD/h.
constexpr DimRt kUsdPerSecond = dim_rt<Dim<0, 0, -1, 0, 0, 0, 1, 0>>();

struct Described {
  DimRt d;
  DimDescription desc;
};
constexpr std::array<Described, 15> kDescriptions{{
    {kOne, {"a count", "4096, 8k or 8Ki"}},
    {dim_rt<Flops::dim>(), {"a FLOP count", "1e18 or 2.5PFLOP"}},
    {dim_rt<FlopRate::dim>(), {"a FLOP/s rate", "989TFLOP/s"}},
    {dim_rt<Bytes::dim>(), {"a byte amount (B)", "80GiB or 16GB"}},
    {dim_rt<Bandwidth::dim>(), {"a bandwidth (B/s)", "3.35TB/s"}},
    {dim_rt<Intensity::dim>(), {"an intensity (FLOP/B)", "10 or 10FLOP/B"}},
    {dim_rt<Seconds::dim>(), {"a time (s)", "10s, 5us or 2.5h"}},
    {dim_rt<Joules::dim>(), {"an energy (J)", "10kWh or 3.6MJ"}},
    {dim_rt<Watts::dim>(), {"a power (W)", "700W or 1kW"}},
    {kToken, {"a token count", "15T or 8192"}},
    {kParam, {"a parameter count", "8B or 70e9"}},
    {dim_rt<EnergyPerFlop::dim>(), {"an energy per FLOP (J/FLOP)", "1pJ/FLOP"}},
    {dim_rt<UsdPerJoule::dim>(), {"a price per kWh", "0.12 or 0.12USD/kWh"}},
    {dim_rt<Co2PerJoule::dim>(), {"a carbon intensity", "0.4kgCO2e/kWh or 400gCO2e/kWh"}},
    {kUsdPerSecond, {"a price per hour", "2.5 or 2.5USD/h"}},
}};

struct Prefix {
  std::string_view p;
  double scale;
};
constexpr std::array<Prefix, 15> kSiPrefixes{{{"", 1.0},
                                              {"k", 1e3},
                                              {"K", 1e3},
                                              {"M", 1e6},
                                              {"G", 1e9},
                                              {"T", 1e12},
                                              {"P", 1e15},
                                              {"E", 1e18},
                                              {"Z", 1e21},
                                              {"Y", 1e24},
                                              {"m", 1e-3},
                                              {"u", 1e-6},
                                              {"µ", 1e-6},  // U+00B5 MICRO SIGN
                                              {"μ", 1e-6},  // U+03BC GREEK SMALL LETTER MU (same glyph)
                                              {"n", 1e-9}}};
constexpr std::array<Prefix, 6> kIecPrefixes{{{"Ki", 1024.0},
                                              {"Mi", 1048576.0},
                                              {"Gi", 1073741824.0},
                                              {"Ti", 1099511627776.0},
                                              {"Pi", 1125899906842624.0},
                                              {"Ei", 1152921504606846976.0}}};
constexpr std::array<Prefix, 11> kCountSuffixes{{{"k", 1e3},
                                                 {"K", 1e3},
                                                 {"M", 1e6},
                                                 {"B", 1e9},
                                                 {"G", 1e9},
                                                 {"T", 1e12},
                                                 {"Ki", 1024.0},
                                                 {"Mi", 1048576.0},
                                                 {"Gi", 1073741824.0},
                                                 {"Ti", 1099511627776.0},
                                                 {"p", 1e-12}}};

enum PrefixSet : unsigned { kNone = 0, kSiUp = 1, kSiDown = 2, kIec = 4 };

struct BaseUnit {
  std::string_view symbol;
  DimRt d;
  double scale;       // base units per unprefixed unit
  unsigned prefixes;  // which prefix sets apply
};
// Longest symbols first so that "FLOP/s" is tried before "s" and "B/s" before "B".
const std::array<BaseUnit, 23> kUnits{{
    {"kgCO2e/kWh", dim_rt<Co2PerJoule::dim>(), 1.0 / 3.6e6, kNone},
    {"kgCO2/kWh", dim_rt<Co2PerJoule::dim>(), 1.0 / 3.6e6, kNone},
    {"gCO2e/kWh", dim_rt<Co2PerJoule::dim>(), 1e-3 / 3.6e6, kNone},
    {"gCO2/kWh", dim_rt<Co2PerJoule::dim>(), 1e-3 / 3.6e6, kNone},
    {"USD/kWh", dim_rt<UsdPerJoule::dim>(), 1.0 / 3.6e6, kNone},
    {"$/kWh", dim_rt<UsdPerJoule::dim>(), 1.0 / 3.6e6, kNone},
    {"USD/hour", kUsdPerSecond, 1.0 / 3600.0, kNone},
    {"USD/h", kUsdPerSecond, 1.0 / 3600.0, kNone},
    {"$/h", kUsdPerSecond, 1.0 / 3600.0, kNone},
    {"J/FLOP", dim_rt<EnergyPerFlop::dim>(), 1.0, kSiUp | kSiDown},
    {"FLOP/s", dim_rt<FlopRate::dim>(), 1.0, kSiUp},
    {"FLOP/B", dim_rt<Intensity::dim>(), 1.0, kNone},
    {"op/B", dim_rt<Intensity::dim>(), 1.0, kNone},
    {"FLOP", dim_rt<Flops::dim>(), 1.0, kSiUp},
    {"B/s", dim_rt<Bandwidth::dim>(), 1.0, kSiUp | kIec},
    {"min", dim_rt<Seconds::dim>(), 60.0, kNone},
    {"Wh", dim_rt<Joules::dim>(), 3600.0, kSiUp},
    {"B", dim_rt<Bytes::dim>(), 1.0, kSiUp | kIec},
    {"s", dim_rt<Seconds::dim>(), 1.0, kSiDown},
    {"h", dim_rt<Seconds::dim>(), 3600.0, kNone},
    {"d", dim_rt<Seconds::dim>(), 86400.0, kNone},
    {"J", dim_rt<Joules::dim>(), 1.0, kSiUp | kSiDown},
    {"W", dim_rt<Watts::dim>(), 1.0, kSiUp | kSiDown},
}};

bool is_count(DimRt d) { return d == kOne || d == kToken || d == kParam; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<double> prefix_scale(std::string_view p, unsigned sets) {
  if (p.empty()) return 1.0;
  if (sets & kSiUp)
    for (const auto& x : kSiPrefixes)
      if (x.p == p && x.scale >= 1.0) return x.scale;
  if (sets & kSiDown)
    for (const auto& x : kSiPrefixes)
      if (x.p == p && x.scale < 1.0) return x.scale;
  if (sets & kIec)
    for (const auto& x : kIecPrefixes)
      if (x.p == p) return x.scale;
  // Picosecond and picojoule scales: "pJ/FLOP" is the usual way to write energy per FLOP.
  if ((sets & kSiDown) && p == "p") return 1e-12;
  return std::nullopt;
}

struct Resolved {
  double scale;
  DimRt d;
};

std::optional<Resolved> resolve_unit(std::string_view u) {
  // The FLOP symbol is also written in lower case; normalise "flop" to "FLOP".
  std::string norm(u);
  if (auto pos = norm.find("flop"); pos != std::string::npos) norm.replace(pos, 4, "FLOP");
  if (auto pos = norm.find("Flop"); pos != std::string::npos) norm.replace(pos, 4, "FLOP");
  const std::string_view n = norm;
  for (const auto& b : kUnits) {
    if (n.size() < b.symbol.size() || n.substr(n.size() - b.symbol.size()) != b.symbol) continue;
    const auto scale = prefix_scale(n.substr(0, n.size() - b.symbol.size()), b.prefixes);
    if (scale) return Resolved{*scale * b.scale, b.d};
  }
  return std::nullopt;
}

[[noreturn]] void fail(std::string_view field, std::string_view text, const DimDescription& e,
                       std::string_view problem = {}) {
  std::string exp = std::string(e.what) + " such as " + std::string(e.example);
  if (problem.empty()) throw InputError(std::string(field), std::string(text), exp);
  throw InputError(std::string(field), std::string(text), exp, std::string(problem));
}

}  // namespace

DimDescription describe_dim(DimRt d) {
  for (const auto& x : kDescriptions)
    if (x.d == d) return x.desc;
  return {"a quantity", "a number with a unit"};
}

bool is_plain_number(std::string_view text) {
  std::string_view num = trim(text);
  if (!num.empty() && num.front() == '+') num.remove_prefix(1);
  double v = 0.0;
  const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  return ec == std::errc() && end != num.data() && end == num.data() + num.size();
}

double parse_quantity(std::string_view text, DimRt expected, std::string_view field,
                      double plain_scale) {
  return parse_quantity(text, expected, field, plain_scale, describe_dim(expected));
}

double parse_quantity(std::string_view text, DimRt expected, std::string_view field, double plain_scale,
                      const DimDescription& described) {
  std::string_view s = trim(text);
  if (s.empty()) fail(field, text, described, "is empty");
  std::string_view num = s;
  if (num.front() == '+') num.remove_prefix(1);
  double v = 0.0;
  const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  if (ec == std::errc::result_out_of_range) fail(field, text, described, "is out of range");
  if (ec != std::errc() || end == num.data()) fail(field, text, described, "is not a number");
  if (!std::isfinite(v)) fail(field, text, described, "is not a finite number");
  const std::string_view unit = trim(std::string_view(end, static_cast<std::size_t>(num.data() + num.size() - end)));
  // A scale can push a finite number past the largest double ("1e308T"): out of range, not inf;
  // or below the smallest ("1e-320" USD/kWh is 2.8e-327 USD/J): out of range, not 0.
  const auto scaled = [&](double scale) {
    // An SI sub-unit prefix (1e-3, 1e-6, 1e-9) is not exact in binary: dividing by its power-of-ten
    // inverse gives the correctly rounded value (5us = 5e-6 s, not 4.9999999999999996e-06).
    const double inverse = scale < 1.0 ? std::round(1.0 / scale) : 0.0;
    const double decade = inverse >= 10.0 ? std::pow(10.0, std::round(std::log10(inverse))) : 0.0;
    const double base = decade > 0.0 && decade == inverse && std::fabs(1.0 / scale - inverse) < 1e-9 * inverse
                            ? v / inverse
                            : v * scale;
    if (!std::isfinite(base) || (base == 0.0 && v != 0.0)) fail(field, text, described, "is out of range");
    return base;
  };
  if (unit.empty()) return scaled(plain_scale);

  if (is_count(expected)) {
    for (const auto& c : kCountSuffixes)
      if (c.p == unit && c.p != "p") return scaled(c.scale);
  }
  // Words a user may add after a count: "15T tokens", "8B params".
  if (is_count(expected)) {
    for (std::string_view word : {"tokens", "token", "params", "param"}) {
      if (unit.size() >= word.size() && unit.substr(unit.size() - word.size()) == word) {
        const std::string_view head = trim(unit.substr(0, unit.size() - word.size()));
        if (head.empty()) return v;
        for (const auto& c : kCountSuffixes)
          if (c.p == head && c.p != "p") return scaled(c.scale);
      }
    }
  }
  // "FLOPS" and "FLOPs" mean a rate to some readers and a count to others.
  if (unit.ends_with("FLOPS") || unit.ends_with("FLOPs") || unit.ends_with("flops"))
    fail(field, text, described,
         "is ambiguous (FLOPS is read both as a count and as a rate): write FLOP for a count or FLOP/s for a rate");
  const auto r = resolve_unit(unit);
  if (!r) fail(field, text, described, "has an unknown unit '" + std::string(unit) + "'");
  if (!(r->d == expected)) {
    if (is_count(r->d) || r->d.dimensionless())
      fail(field, text, described, "is a plain number");
    const DimDescription got = describe_dim(r->d);
    fail(field, text, described, "is " + std::string(got.what));
  }
  return scaled(r->scale);
}

}  // namespace napkin
