#include "plausibility.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"

namespace napkin::cli {

namespace {

enum class Test {
  three_dots,   // the text holds "...": a range is a..b, and "0.1...5" reads as 0.1..0.5
  mixed_units,  // some values carry a unit and some are plain: "1,5kW" (a decimal comma?)
  plain,        // a plain value other than 0 (0 is 0 in every unit)
  plain_below,  // a plain value other than 0, below `limit` base units
  below,        // a value below `limit` base units
  above,        // a value above `limit` base units
};

enum class Verdict { refuse, warn };

// Which flags a rule applies to: the ones it names, every flag, or every flag whose plain number
// is in a physical unit (bytes, watts, seconds, ...). Counts (--batch, --tokens, --params) are
// left out of the last: a plain number is a whole count there, and 512,1k,2k is a fine list.
enum class Scope { named, every_flag, unit_flags };

struct Rule {
  Scope scope;
  std::string_view flags;  // Scope::named: first names, space-separated ("--smem-per-sm --sram")
  Test test;
  double limit;            // base units
  Verdict verdict;
  // The message is "FLAG: 'VALUE' PROBLEM; ADVICE", or "FLAG: 'VALUE': ADVICE" when PROBLEM is
  // empty. {value}: the value in base units; {fix}: a rewrite of the text (three dots, mixed).
  std::string_view problem;
  std::string_view advice;
};

constexpr double kKiB = 1024.0;
constexpr double kMiB = 1048576.0;
constexpr double kKgPerKwh = 1.0 / 3.6e6;  // 1 kgCO2e/kWh in base units (kgCO2e per joule)

// The table. README.md ("Plausibility rules") lists the same rules; keep them in step.
constexpr Rule kRules[] = {
    // Syntax slips, on every flag.
    {Scope::every_flag, "", Test::three_dots, 0.0, Verdict::refuse, "has three dots",
     "a range is written a..b (two dots), such as {fix}"},
    // A plain 0 counts as plain here: 0,5us is as likely 0.5us as a sweep of 0 and 5 us.
    {Scope::unit_flags, "", Test::mixed_units, 0.0, Verdict::refuse, "mixes a bare number with a unit", "{fix}"},

    // Memory amounts: a plain number is bytes. A GPU's memory and a CUDA context
    // are GiB and hundreds of MiB: a plain number below 1 MiB is a missing unit. 0 stays legal
    // where the constraint allows it (--cuda-context 0: no context). Shared memory and SRAM per
    // SM are tens to hundreds of KiB, and the FlashAttention paper states its M in bytes
    // (--sram 100000 is fine), so their floor is 1 KiB. --bytes (roofline) is a traffic count,
    // where a plain 4096 is plausible: no rule.
    {Scope::named, "--gpu-memory", Test::plain_below, kMiB, Verdict::refuse, "is {value} B, not a GPU's memory",
     "expected a unit, such as 80GB or 80GiB"},
    {Scope::named, "--cuda-context", Test::plain_below, kMiB, Verdict::refuse,
     "is {value} B, not a CUDA context (hundreds of MiB)", "expected a unit, such as 512MiB, or 0 for none"},
    {Scope::named, "--smem-per-sm --sram", Test::plain_below, kKiB, Verdict::refuse,
     "is {value} B, not an SM's on-chip memory (tens to hundreds of KiB)", "expected a unit, such as 228KiB"},

    // Energy and carbon. A plain carbon intensity was kgCO2e/kWh, while grid tables write
    // gCO2e/kWh (400): 1000× off, so a unit is required. No grid is above ~1.2 kgCO2e/kWh.
    {Scope::named, "--carbon-intensity", Test::plain, 0.0, Verdict::refuse, "has no unit",
     "expected a unit: 400gCO2e/kWh or 0.4kgCO2e/kWh"},
    {Scope::named, "--carbon-intensity", Test::above, 2.0 * kKgPerKwh, Verdict::warn, "is above 2 kgCO2e/kWh",
     "no grid is above ~1.2 kgCO2e/kWh (400gCO2e/kWh = 0.4kgCO2e/kWh)"},
    // PUE below 1 and above 10 is refused by Constraint::pue.
    {Scope::named, "--pue", Test::above, 3.0, Verdict::warn, "is above 3",
     "no data centre reports a PUE above ~2.5 (typical: 1.1 to 1.6)"},

    // Compute. MFU is a fraction of the peak (train.cpp refuses it too, for library callers).
    {Scope::named, "--mfu", Test::above, 1.0, Verdict::refuse, "",
     "expected a fraction of the peak in (0, 1], e.g. 0.4"},
    // serve's efficiencies are fractions too; a pass overhead is milliseconds, where a plain
    // number would be seconds.
    {Scope::named, "--efficiency-bandwidth --efficiency-compute", Test::above, 1.0, Verdict::refuse, "",
     "expected a fraction in (0, 1], e.g. 0.8"},
    {Scope::named, "--token-overhead", Test::plain, 0.0, Verdict::refuse, "has no unit",
     "expected a time with its unit, such as 2ms or 150us"},
    // Rates, powers and durations have no natural plain unit: a plain 5 on --launch-overhead was
    // 5 s (not 5 µs), a plain 1 on --power 1 W, on --peak 1 FLOP/s. A unit is required.
    {Scope::named, "--launch-overhead --graph-overhead", Test::plain, 0.0, Verdict::refuse, "has no unit",
     "expected a time with its unit, such as 5us"},
    {Scope::named, "--time", Test::plain, 0.0, Verdict::refuse, "has no unit",
     "expected a time with its unit, such as 3600s, 12h or 57.7d"},
    {Scope::named, "--power --node-power", Test::plain, 0.0, Verdict::refuse, "has no unit",
     "expected a power with its unit, such as 700W or 10.2kW"},
    {Scope::named, "--peak --throughput --achieved", Test::plain, 0.0, Verdict::refuse, "has no unit",
     "expected a rate with its unit, such as 989TFLOP/s"},
    {Scope::named, "--bandwidth", Test::plain, 0.0, Verdict::refuse, "has no unit",
     "expected a bandwidth with its unit, such as 3.35TB/s"},
    // Below one token there is nothing to count. Fractions above 1 stay legal: a token count
    // can be an average (tokens per expert), and a geometric sweep 1..1000:x1.5 yields 1.5.
    {Scope::named, "--tokens", Test::below, 1.0, Verdict::refuse, "", "expected a token count of at least 1"},
};

bool is_count_dim(DimRt d) {
  return d == dim_rt<Count::dim>() || d == dim_rt<Tokens::dim>() || d == dim_rt<Params::dim>();
}

bool applies(const Rule& r, const NumericFlag& f) {
  switch (r.scope) {
    case Scope::every_flag: return true;
    case Scope::unit_flags: return !is_count_dim(f.dim);
    case Scope::named: break;
  }
  std::string_view names = r.flags;
  while (!names.empty()) {
    const auto space = names.find(' ');
    if (names.substr(0, space) == f.flag) return true;
    if (space == std::string_view::npos) break;
    names.remove_prefix(space + 1);
  }
  return false;
}

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool all_digits(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_digit); }

// "1,5kW" -> "a decimal comma? write 1.5kW, or give every item a unit"
std::string mixed_fix(const std::vector<TypedValue>& values, bool range) {
  if (range) return "give both ends of the range a unit";
  if (values.size() == 2 && values[0].plain && !values[1].plain && all_digits(values[0].text) &&
      !values[1].text.empty() && is_digit(values[1].text.front()))
    return "a decimal comma? write " + values[0].text + "." + values[1].text + ", or give every item a unit";
  return "give every item a unit";
}

// "0.1...5" -> "0.1..5"
std::string three_dots_fix(std::string_view raw) {
  const auto at = raw.find("...");
  auto end = at;
  while (end < raw.size() && raw[end] == '.') ++end;
  return std::string(raw.substr(0, at)) + ".." + std::string(raw.substr(end));
}

std::string message(const Rule& r, const NumericFlag& f, std::string_view text, double value, std::string_view fix) {
  const std::string problem = fmt::format(fmt::runtime(r.problem), fmt::arg("value", format_plain_number(value)));
  const std::string advice = fmt::format(fmt::runtime(r.advice), fmt::arg("fix", fix));
  if (problem.empty()) return fmt::format("{}: '{}': {}", f.flag, text, advice);
  return fmt::format("{}: '{}' {}; {}", f.flag, text, problem, advice);
}

// The first value `r` finds fault with, if any.
const TypedValue* offending(const Rule& r, const std::vector<TypedValue>& values) {
  for (const TypedValue& v : values) {
    switch (r.test) {
      case Test::plain: if (v.plain && v.value != 0.0) return &v; break;
      case Test::plain_below: if (v.plain && v.value != 0.0 && v.value < r.limit) return &v; break;
      case Test::below: if (v.value < r.limit) return &v; break;
      case Test::above: if (v.value > r.limit) return &v; break;
      case Test::three_dots:
      case Test::mixed_units: return nullptr;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> check_plausible_text(const NumericFlag& f) {
  std::vector<std::string> warnings;
  for (const Rule& r : kRules) {
    if (r.test != Test::three_dots || !applies(r, f) || f.raw.find("...") == std::string::npos) continue;
    std::string m = message(r, f, f.raw, 0.0, three_dots_fix(f.raw));
    if (r.verdict == Verdict::refuse) throw InputError(m);
    warnings.push_back(std::move(m));
  }
  return warnings;
}

std::vector<std::string> check_plausible(const NumericFlag& f, const std::vector<TypedValue>& values, bool range) {
  std::vector<std::string> warnings;
  for (const Rule& r : kRules) {
    if (r.test == Test::three_dots || !applies(r, f)) continue;
    std::string m;
    if (r.test == Test::mixed_units) {
      const bool some_plain = std::any_of(values.begin(), values.end(), [](const TypedValue& v) { return v.plain; });
      const bool some_unit = std::any_of(values.begin(), values.end(), [](const TypedValue& v) { return !v.plain; });
      if (!some_plain || !some_unit) continue;
      m = message(r, f, f.raw, 0.0, mixed_fix(values, range));
    } else {
      const TypedValue* v = offending(r, values);
      if (v == nullptr) continue;
      m = message(r, f, v->text, v->value, "");
    }
    if (r.verdict == Verdict::refuse) throw InputError(m);
    warnings.push_back(std::move(m));
  }
  return warnings;
}

}  // namespace napkin::cli
