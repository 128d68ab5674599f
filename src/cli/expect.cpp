#include "expect.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "check_failure.h"
#include "napkin/ground/error.h"
#include "napkin/ground/parse_quantity.h"
#include "napkin/report/human_units.h"

namespace napkin::cli {

namespace {

std::vector<std::string> g_misses;  // reported after the output (report_expectation_misses)

constexpr std::string_view kPlusMinus = "\xC2\xB1";  // U+00B1 PLUS-MINUS SIGN

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

bool valid_key(std::string_view k) {
  return !k.empty() && std::all_of(k.begin(), k.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
  });
}

// yes/no as a verdict is typed: "yes", "true", "1" or "no", "false", "0".
int parse_yes_no(std::string_view s) {
  const std::string l = lower(s);
  if (l == "yes" || l == "true" || l == "1") return 1;
  if (l == "no" || l == "false" || l == "0") return 0;
  return -1;
}

std::string keys_of(const ResultSet& rs) {
  std::string keys;
  for (const Item& it : rs.items) {
    if (it.value.kind == Value::Kind::list) continue;
    if (!keys.empty()) keys += ", ";
    keys += it.key;
  }
  return keys;
}

}  // namespace

double written_precision(std::string_view text, double base, DimRt dim) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const std::size_t begin = i;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  int decimals = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      ++decimals;
    }
  }
  int exponent = 0;
  if (i + 1 < text.size() && (text[i] == 'e' || text[i] == 'E') &&
      (std::isdigit(static_cast<unsigned char>(text[i + 1])) ||
       ((text[i + 1] == '+' || text[i + 1] == '-') && i + 2 < text.size() &&
        std::isdigit(static_cast<unsigned char>(text[i + 2]))))) {
    const std::size_t e = i;
    ++i;
    if (text[i] == '+' || text[i] == '-') ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    exponent = std::atoi(std::string(text.substr(e + 1, i - e - 1)).c_str());
  }
  const std::string literal(text.substr(begin, i - begin));
  const double number = std::strtod(literal.c_str(), nullptr);
  // The unit's scale: the value over its number, or what "1<unit>" is when the number is 0.
  const double scale = number != 0.0 ? base / number
                                     : parse_quantity("1" + std::string(text.substr(i)), dim, "--expect");
  return 0.5 * std::pow(10.0, exponent - decimals) * std::fabs(scale);
}

Expectations::Expectations(const std::vector<std::string>& texts) {
  for (const std::string& t : texts) {
    One e;
    e.text = t;
    const std::size_t eq = t.find('=');
    if (eq == std::string::npos)
      throw InputError("--expect", t, "KEY=VALUE[±TOL], e.g. flops=137.4GFLOP or per_gpu=40GiB±1%");
    e.key = t.substr(0, eq);
    if (!valid_key(e.key))
      throw InputError("--expect", t, "a result key (lower case, digits, '_') before '=', e.g. flops=137.4GFLOP");
    std::string rest = t.substr(eq + 1);
    std::size_t pm = rest.find(kPlusMinus);
    std::size_t pm_len = kPlusMinus.size();
    if (pm == std::string::npos) {
      pm = rest.find("+-");
      pm_len = 2;
    }
    if (pm != std::string::npos) {
      e.tol = rest.substr(pm + pm_len);
      rest.resize(pm);
      if (e.tol.empty()) throw InputError("--expect", t, "a tolerance after '±', e.g. ±1% or ±0.1GFLOP");
    }
    if (rest.empty()) throw InputError("--expect", t, "a value after '=', e.g. flops=137.4GFLOP");
    e.value = rest;
    list_.push_back(std::move(e));
  }
}

void Expectations::validate(const ResultSet& rs) {
  for (One& e : list_) {
    if (e.validated) continue;
    const Item* it = rs.find(e.key);
    if (it == nullptr || it->value.kind == Value::Kind::list)
      throw InputError("--expect", e.text,
                       fmt::format("a result key of {}: {}", rs.command.empty() ? "this command" : rs.command,
                                   keys_of(rs)));
    const Value& v = it->value;
    e.number = v.kind == Value::Kind::number || v.kind == Value::Kind::none;
    if (!e.number) {
      if (!e.tol.empty())
        throw InputError("--expect", e.text, "no tolerance for " + e.key + ", a verdict (" + e.key + "=" +
                                                 (v.kind == Value::Kind::boolean ? "yes" : "VALUE") + ")");
      if (v.kind == Value::Kind::boolean && parse_yes_no(e.value) < 0)
        throw InputError("--expect", e.text, "yes or no for " + e.key);
      e.validated = true;
      continue;
    }
    e.expected = parse_quantity(e.value, v.dim, "--expect " + e.key);
    if (e.tol.empty()) {
      e.tolerance = written_precision(e.value, e.expected, v.dim);
    } else if (e.tol.back() == '%') {
      const std::string pct = e.tol.substr(0, e.tol.size() - 1);
      if (!is_plain_number(pct))
        throw InputError("--expect", e.text, "a relative tolerance such as ±1% or an absolute one in the unit of " + e.key);
      e.tolerance = std::strtod(pct.c_str(), nullptr) / 100.0;
      e.relative = true;
    } else {
      e.tolerance = parse_quantity(e.tol, v.dim, "--expect " + e.key + " tolerance");
    }
    // ±inf% (or ±1e400%) would pass every value: a check that cannot fail is refused.
    if (!(e.tolerance >= 0.0) || !std::isfinite(e.tolerance))
      throw InputError("--expect", e.text, "a finite tolerance of at least 0, e.g. ±1%");
    e.validated = true;
  }
}

std::size_t Expectations::check(const ResultSet& rs, std::string_view where) {
  if (list_.empty()) return 0;
  validate(rs);
  std::size_t misses = 0;
  for (const One& e : list_) {
    const Item* it = rs.find(e.key);
    std::string why;
    const std::string at = where.empty() ? std::string() : " (" + std::string(where) + ")";
    if (it == nullptr) {
      why = fmt::format("{}{}: expected {}, napkin computed no {} for this row", e.key, at, e.value, e.key);
    } else if (!e.number) {
      const Value& v = it->value;
      const bool ok = v.kind == Value::Kind::boolean ? (parse_yes_no(e.value) == int(v.flag))
                                                      : lower(e.value) == lower(v.str);
      if (ok) continue;
      why = fmt::format("{}{}: expected {}, napkin computed {}", e.key, at, e.value, report::human_value(v));
    } else if (it->value.kind == Value::Kind::none) {
      why = fmt::format("{}{}: expected {}, napkin computed none", e.key, at, e.value);
    } else {
      const double got = it->value.num;
      const double tol = e.relative ? e.tolerance * std::fabs(e.expected) : e.tolerance;
      // A relative 1e-12 absorbs the last binary digit of a value that sits on the edge.
      if (std::fabs(got - e.expected) <= tol + 1e-12 * std::max(std::fabs(got), std::fabs(e.expected))) continue;
      std::string tol_text = e.relative ? e.tol : report::compact(e.tolerance, it->value.dim);
      std::string diff;
      if (e.expected != 0.0) {
        const double pct = (got - e.expected) / std::fabs(e.expected) * 100.0;
        diff = std::fabs(pct) >= 1.0 ? fmt::format("{:+.2f}%", pct) : fmt::format("{:+.3g}%", pct);
      } else {
        diff = "off by " + report::compact(got - e.expected, it->value.dim);
      }
      why = fmt::format("{}{}: expected {} ± {}, napkin computed {}: {}", e.key, at, e.value, tol_text,
                        report::human_value(it->value), diff);
    }
    ++misses;
    g_misses.push_back(std::move(why));
  }
  return misses;
}

void check_value_key(const ResultSet& rs, const std::string& key) {
  if (key.empty() || rs.find(key) != nullptr) return;
  throw InputError("--value", key,
                   fmt::format("a result key of {}: {}", rs.command.empty() ? "this command" : rs.command, keys_of(rs)));
}

bool report_expectation_misses() {
  for (const std::string& why : g_misses) report_check_failure("--expect", why);
  const bool missed = !g_misses.empty();
  g_misses.clear();
  return missed;
}

}  // namespace napkin::cli
