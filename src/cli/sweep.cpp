#include "sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/ground/parse_quantity.h"
#include "napkin/ground/result.h"
#include "napkin/report/human_units.h"
#include "plausibility.h"

namespace napkin::cli {

namespace {

// 2^53: integer flags stay below it, where every integer is a double.
constexpr double kExactIntegers = 9007199254740992.0;

std::string what_constraint(Constraint c) {
  switch (c) {
    case Constraint::any: return "a number";
    case Constraint::positive: return "a positive number";
    case Constraint::non_negative: return "a non-negative number";
    case Constraint::positive_integer: return "a positive integer";
    case Constraint::non_negative_integer: return "a non-negative integer";
    case Constraint::pue: return "a PUE between 1 and 10 (1.0 = no facility overhead)";
  }
  return "a number";
}

bool is_blank(std::string_view s) { return s.find_first_not_of(" \t") == std::string_view::npos; }

bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f'; }

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// One value of a list or one part of a range, as typed, before it is read as a number: white
// space around it (' 1, 2', '1 .. 4', '1..4:+ 1') and a '+' sign ('+1', '1..8:x+2') are
// refused; a space between a number and its unit ('80 GiB') stays, as parse_quantity reads it.
void check_part(const NumericFlag& f, std::string_view part) {
  if (part.empty() || is_blank(part)) return;  // the callers name an empty part
  if (is_space(part.front()) || is_space(part.back()))
    throw InputError(f.flag, f.raw, "no spaces around a value: a list 1,2,4 or a range 1..64:x2",
                     "has white space around '" + std::string(trimmed(part)) + "'");
  if (part.front() == '+')
    throw InputError(f.flag, f.raw, "a number without a sign, such as " + std::string(part.substr(1)),
                     "has a '+' sign");
}

double parse_one(const NumericFlag& f, std::string_view text) {
  if (f.what.empty()) return parse_quantity(text, f.dim, f.flag, f.plain_scale);
  return parse_quantity(text, f.dim, f.flag, f.plain_scale, DimDescription{f.what, f.example});
}

// A row count as a message shows it: exact below 2^53, else "1e+300".
std::string rows_text(double n) {
  if (n < kExactIntegers) return std::to_string(static_cast<std::uint64_t>(n));
  return fmt::format("{:.3g}", n);
}

[[noreturn]] void too_many_rows(const NumericFlag& f, std::string_view others, double rows, double max_rows,
                                std::string_view why) {
  throw InputError(f.flag, f.raw, "at most " + rows_text(max_rows) + std::string(why) + " (raise with --max-rows)",
                   std::string(others) + "gives " + rows_text(rows) + " rows");
}

// A range whose step or factor does not reach its end: refused, since the end is a value of the
// range, and "1..10:+2" reads as both "up to 10" and "ending at 10".
[[noreturn]] void stops_short(const NumericFlag& f, double last, double end, std::string_view by) {
  throw InputError(f.flag, f.raw,
                   by == "step" ? "an end the step reaches: a..b:+step with b - a a multiple of the step"
                                : "an end the factor reaches: a..b:xfactor with b = a · factor^k",
                   "stops at " + report::compact(last, f.dim) + ", short of its end " + report::compact(end, f.dim));
}

}  // namespace

double Axis::at(std::size_t i) const {
  switch (kind) {
    case Kind::list: return values[i];
    case Kind::linear: return start + static_cast<double>(i) * step;
    case Kind::geometric: return start * std::pow(step, static_cast<double>(i));
  }
  return 0.0;
}

void check_value(const NumericFlag& f, double v, bool single) {
  const bool integer = f.constraint == Constraint::positive_integer || f.constraint == Constraint::non_negative_integer;
  if (integer && std::isfinite(v) && std::fabs(v) >= kExactIntegers) {
    // Above 2^53 a double skips integers: 9007199254740993 would silently become ...992.
    const std::string shown = single ? f.raw : format_plain_number(v / f.plain_scale);
    throw InputError(f.flag, shown, what_constraint(f.constraint) + " below 2^53 = 9007199254740992 (counts stay exact)");
  }
  bool ok = std::isfinite(v);
  switch (f.constraint) {
    case Constraint::any: break;
    case Constraint::positive: ok = ok && v > 0.0; break;
    case Constraint::non_negative: ok = ok && v >= 0.0; break;
    case Constraint::positive_integer: ok = ok && v >= 1.0 && std::floor(v) == v; break;
    case Constraint::non_negative_integer: ok = ok && v >= 0.0 && std::floor(v) == v; break;
    case Constraint::pue: ok = ok && v >= 1.0 && v <= 10.0; break;
  }
  if (!ok) {
    // Show the value as the user wrote it when it is the whole flag, else in base units.
    const std::string shown = single ? f.raw : format_plain_number(v / f.plain_scale);
    throw InputError(f.flag, shown, what_constraint(f.constraint));
  }
}

Axis parse_axis(const NumericFlag& f, std::vector<std::string>* warnings, double max_rows, std::string_view why) {
  const auto warn = [warnings](const std::vector<std::string>& w) {
    if (warnings != nullptr) warnings->insert(warnings->end(), w.begin(), w.end());
  };
  warn(check_plausible_text(f));
  const std::string_view s = f.raw;
  Axis a;
  const auto dots = s.find("..");
  if (dots == std::string_view::npos) {
    // One value or a list.
    std::vector<TypedValue> typed;
    std::size_t pos = 0;
    const bool list = s.find(',') != std::string_view::npos;
    while (true) {
      const auto comma = s.find(',', pos);
      const std::string_view part = s.substr(pos, comma == std::string_view::npos ? s.npos : comma - pos);
      // '1,,2', '1,' and ',1': a slip, not a value ('' alone is "empty", as parse_quantity says).
      if (list && is_blank(part)) throw InputError(f.flag, f.raw, "a list such as 1,2,4", "has an empty item");
      check_part(f, part);
      a.values.push_back(parse_one(f, part));
      typed.push_back({std::string(part), a.values.back(), is_plain_number(part)});
      if (comma == std::string_view::npos) break;
      pos = comma + 1;
    }
    a.kind = Axis::Kind::list;
    if (static_cast<double>(a.values.size()) > max_rows)
      too_many_rows(f, "", static_cast<double>(a.values.size()), max_rows, why);
    for (double v : a.values) check_value(f, v, a.values.size() == 1);
    // A value listed twice gives the same row twice: '1,2,2', or '1k,1000'.
    for (std::size_t i = 1; i < a.values.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (a.values[j] == a.values[i])
          throw InputError(f.flag, f.raw, "each value once",
                           typed[j].text == typed[i].text
                               ? "lists " + typed[i].text + " twice"
                               : "lists one value twice ('" + typed[j].text + "' and '" + typed[i].text + "')");
    warn(check_plausible(f, typed, false));
    return a;
  }
  const std::string_view first = s.substr(0, dots);
  std::string_view rest = s.substr(dots + 2);
  const auto colon = rest.find(':');
  const std::string_view last = rest.substr(0, colon);
  const std::string_view step = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
  // The grammar of a range, before its parts are read as numbers (which would report '5..7' as
  // a number with an unknown unit).
  if (rest.find("..") != std::string_view::npos)
    throw InputError(f.flag, f.raw, "one range a..b (two dots, once), with an optional :+step or :xfactor");
  if (s.find(',') != std::string_view::npos) throw InputError(f.flag, f.raw, "a list 1,2,4 or a range a..b, not both");
  if (is_blank(first) || is_blank(last)) throw InputError(f.flag, f.raw, "a range with both ends, such as 1..64:x2");
  if (colon != std::string_view::npos && is_blank(step))
    throw InputError(f.flag, f.raw, "a step after ':' (a..b:+step or a..b:xfactor)");
  check_part(f, first);
  check_part(f, last);
  if (!step.empty()) check_part(f, step.substr(1));  // after the ':+' or ':x': '1..8:+ 1', '1..8:x+2'

  const double lo = parse_one(f, first);
  const double hi = parse_one(f, last);
  // The plausibility rules see the two ends as typed (every value lies between them), before
  // the range is counted: 80..96GiB is a missing unit, not a range of 1e11 values.
  const std::vector<TypedValue> ends{{std::string(first), lo, is_plain_number(first)},
                                     {std::string(last), hi, is_plain_number(last)}};
  warn(check_plausible(f, ends, true));
  if (hi < lo)
    throw InputError(f.flag, f.raw, "a range whose end is not below its start (a..b:+step or a..b:xfactor)");
  // Integrality is checked for the start, the step and the last value.
  const bool integer = f.constraint == Constraint::positive_integer || f.constraint == Constraint::non_negative_integer;
  if (step.empty() || step.front() == '+') {
    a.kind = Axis::Kind::linear;
    a.start = lo;
    a.step = step.empty() ? 1.0 * f.plain_scale : parse_one(f, step.substr(1));
    if (!(a.step > 0.0))
      throw InputError(f.flag, f.raw, "a positive step after ':+' (a..b:+step)");
    if (integer && std::floor(a.step) != a.step)
      throw InputError(f.flag, f.raw, "an integer step for an integer flag");
    const double steps = (hi - lo) / a.step;
    if (steps + 1.0 > max_rows) too_many_rows(f, "", std::floor(steps * (1.0 + 1e-12) + 1e-9) + 1.0, max_rows, why);
    const double n = std::round(steps);
    // The end is a value of the range: '1..10:+2' (1, 3, ..., 9) would silently stop short of it.
    if (std::fabs(steps - n) > 1e-9 * std::max(1.0, steps)) stops_short(f, lo + std::floor(steps) * a.step, hi, "step");
    a.count = static_cast<std::size_t>(n + 1.0);
  } else if (step.front() == 'x' || step.front() == '*') {
    a.kind = Axis::Kind::geometric;
    a.start = lo;
    const std::string factor(step.substr(1));
    char* end = nullptr;
    a.step = std::strtod(factor.c_str(), &end);
    if (factor.empty() || end != factor.c_str() + factor.size() || !std::isfinite(a.step) || !(a.step > 1.0))
      throw InputError(f.flag, f.raw, "a plain factor above 1 after ':x' (a..b:x2)");
    if (!(lo > 0.0)) throw InputError(f.flag, f.raw, "a positive start for a geometric range");
    if (integer && std::floor(a.step) != a.step)
      throw InputError(f.flag, f.raw, "an integer factor for an integer flag");
    const double steps = std::log(hi / lo) / std::log(a.step);
    if (steps + 1.0 > max_rows) too_many_rows(f, "", std::floor(steps + 1e-9) + 1.0, max_rows, why);
    const double n = std::round(steps);
    // As for a step: '1..10:x3' (1, 3, 9) would stop short of 10.
    if (std::fabs(lo * std::pow(a.step, n) - hi) > 1e-9 * hi)
      stops_short(f, lo * std::pow(a.step, std::floor(steps + 1e-9)), hi, "factor");
    a.count = static_cast<std::size_t>(n + 1.0);
  } else {
    throw InputError(f.flag, f.raw, "a step ':+N' (linear) or a factor ':xN' (geometric) after the range");
  }
  // Every value lies between the first and the last, so checking the ends checks positivity.
  if (a.count == 0) throw InputError(f.flag, f.raw, "a range with at least one value");
  check_value(f, a.at(0), false);
  check_value(f, a.at(a.count - 1), false);
  return a;
}

Sweep::Sweep(std::vector<NumericFlag>& flags, const std::vector<std::size_t>& order, double max_rows,
             std::string_view why)
    : flags_(flags) {
  for (auto& f : flags_) {
    if (f.given) {
      f.axis = parse_axis(f, &warnings_, max_rows, why);
    } else if (f.fallback) {
      f.axis = Axis{};
      f.axis.values = {*f.fallback};
    }
  }
  double rows = 1.0;
  for (std::size_t i : order) {
    if (flags_[i].given && flags_[i].axis.size() > 1) {
      axes_.push_back(i);
      swept_names_.push_back(flags_[i].name);
      rows *= static_cast<double>(flags_[i].axis.size());
    }
  }
  if (rows > max_rows) {
    // Each flag is within the limit; their product is not: name them all.
    std::string others = "with";
    for (std::size_t k = 1; k < axes_.size(); ++k)
      others += (k > 1 ? ", " : " ") + flags_[axes_[k]].flag + " '" + flags_[axes_[k]].raw + "'";
    too_many_rows(flags_[axes_.front()], others + " ", rows, max_rows, why);
  }
  rows_ = static_cast<std::size_t>(rows);
}

void Sweep::run(const std::function<void(const Point&)>& fn) const {
  Point p(flags_);
  for (std::size_t i = 0; i < flags_.size(); ++i)
    if (p.has(i)) p.values_[i] = flags_[i].axis.at(0);
  std::vector<std::size_t> idx(axes_.size(), 0);
  while (true) {
    fn(p);
    // Odometer: the last swept flag turns fastest.
    std::size_t k = axes_.size();
    while (k > 0) {
      --k;
      const auto& f = flags_[axes_[k]];
      if (++idx[k] < f.axis.size()) {
        const double v = f.axis.at(idx[k]);
        check_value(f, v, false);
        p.values_[axes_[k]] = v;
        break;
      }
      idx[k] = 0;
      p.values_[axes_[k]] = f.axis.at(0);
      if (k == 0) return;
    }
    if (axes_.empty()) return;
  }
}

void Sweep::probe(const std::function<void(const Point&)>& fn) const {
  Point p(flags_);
  p.probing_ = true;
  for (std::size_t i = 0; i < flags_.size(); ++i)
    if (p.has(i)) p.values_[i] = flags_[i].axis.at(0);
  fn(p);
  // In the order the sweep meets these points: the fastest flag's values come first.
  for (std::size_t k = axes_.size(); k-- > 0;) {
    const auto& f = flags_[axes_[k]];
    for (std::size_t j = 1; j < f.axis.size(); ++j) {
      const double v = f.axis.at(j);
      check_value(f, v, false);
      p.values_[axes_[k]] = v;
      fn(p);
    }
    p.values_[axes_[k]] = f.axis.at(0);
  }
}

std::size_t Sweep::probes() const {
  std::size_t n = 1;
  for (std::size_t i : axes_) n += flags_[i].axis.size() - 1;
  return n;
}

namespace {

// "--m 1e200, --k 8" from the flags the user gave (the value of this combination for a swept
// one), else "m = 1e+200, k = 8" from the result's numeric inputs.
std::string given_values(const ResultSet& rs, const std::vector<NumericFlag>& flags, const Point& p) {
  std::string s;
  for (std::size_t i = 0; i < flags.size(); ++i) {
    const NumericFlag& f = flags[i];
    if (!f.given) continue;
    const std::string v = f.axis.size() > 1 ? format_plain_number(p[i] / f.plain_scale) : f.raw;
    s += (s.empty() ? "" : ", ") + f.flag + " " + v;
  }
  if (!s.empty()) return s;
  for (const Input& in : rs.inputs) {
    if (in.value.kind != Value::Kind::number) continue;
    s += (s.empty() ? "" : ", ") + std::string(in.name) + " = " + format_plain_number(in.value.num * in.echo_scale);
  }
  return s.empty() ? "these inputs" : s;
}

struct NotFinite {
  const ResultSet& rs;
  const std::vector<NumericFlag>& flags;
  const Point& p;
  [[noreturn]] void operator()(std::string_view key) const {
    throw InputError(std::string(key) + ": the result is not a finite number (it overflows a double, or is 0/0) for " +
                     given_values(rs, flags, p) + "; expected inputs small enough that every result is finite");
  }
};

bool finite_operands(const ResultSet& rs, const TextRef& t) {
  for (std::size_t i = t.first; i < std::size_t(t.first) + t.n && i < rs.operands.size(); ++i)
    if (!rs.operands[i].is_text && !std::isfinite(rs.operands[i].num)) return false;
  return true;
}

}  // namespace

void require_finite(const ResultSet& rs, const std::vector<NumericFlag>& flags, const Point& p) {
  const NotFinite not_finite{rs, flags, p};
  for (const Item& it : rs.items) {
    if (it.value.kind == Value::Kind::number && !std::isfinite(it.value.num)) not_finite(it.key);
    if (it.value.kind == Value::Kind::list)
      for (std::size_t i = it.value.first; i < std::size_t(it.value.first) + it.value.count; ++i)
        if (!std::isfinite(rs.numbers[i])) not_finite(it.key);
    if (!finite_operands(rs, it.substituted)) not_finite(it.key);
  }
  for (const Series& s : rs.series)
    for (const Value& v : s.cells)
      if (v.kind == Value::Kind::number && !std::isfinite(v.num)) not_finite(s.key);
  for (const Assumption& a : rs.assumptions)
    if (!finite_operands(rs, a.text)) not_finite(a.key);
  for (const TextRef& w : rs.warnings)
    if (!finite_operands(rs, w)) not_finite("a warning");
  for (const TextRef& n : rs.notes)
    if (!finite_operands(rs, n)) not_finite("a note");
}

}  // namespace napkin::cli
