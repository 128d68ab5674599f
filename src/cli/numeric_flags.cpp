// See numeric_flags.h.
#include "numeric_flags.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "napkin/ground/error.h"
#include "napkin/ground/parse_quantity.h"

namespace napkin::cli {

namespace {

// A numeric flag given more than once is refused by name (CLI11 would say "At Most 1 required
// but received 2"); keeping the last value would silently drop the first.
[[noreturn]] void given_twice(const std::string& flag, const CLI::results_t& r) {
  std::string values, list;
  bool listable = true;
  for (const auto& v : r) {
    values += (values.empty() ? "'" : ", '") + v + "'";
    list += (list.empty() ? "" : ",") + v;
    listable = listable && v.find("..") == std::string::npos && !v.empty();
  }
  const std::string times = r.size() == 2 ? "twice" : std::to_string(r.size()) + " times";
  throw InputError(flag + ": given " + times + " (" + values + "); expected one value, or " +
                   (listable ? "a list " + list + " to sweep" : "one list or range to sweep"));
}

// A one-value option bound to `target`, refusing a repeat by name. Nothing is built for an
// option a run does not add (CommandApp::stand_in_for).
CLI::Option* add_single_option(CommandApp* sub, std::string_view names, std::string* target, std::string_view help) {
  if (CLI::Option* stand_in = sub->stand_in_for(names)) return stand_in;
  CLI::Option* opt = sub->add_option(
      std::string(names),
      [target, shown = std::string(names.substr(0, names.find(',')))](const CLI::results_t& r) {
        if (r.size() > 1) given_twice(shown, r);
        *target = r.empty() ? std::string() : r.front();
        return true;
      },
      std::string(help));
  opt->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);  // every value reaches the callback
  return opt;
}

}  // namespace

std::size_t NumericFlags::add(CommandApp* sub, std::string_view flag, std::string_view name, DimRt dim,
                              Constraint c, std::string_view help, std::string_view type_name,
                              std::optional<double> fallback, double plain_scale) {
  if (flags_.size() >= kMax) throw std::logic_error("too many numeric flags on one command");
  if (flags_.empty()) {
    // Every command that sweeps has numeric flags: the first one brings --max-rows.
    CLI::Option* max_rows = add_single_option(sub, "--max-rows", &max_rows_, "");
    if (sub->added(max_rows))
      max_rows->description(fmt::format("At most N rows in a sweep (default {:.0f}); a larger sweep is refused",
                                        kDefaultMaxRows))
          ->type_name("N")
          ->group("Output");
  }
  NumericFlag f;
  f.flag = flag.substr(0, flag.find(','));  // "--gpu-memory,--memory": messages use the first name
  f.name = name;
  f.dim = dim;
  f.constraint = c;
  f.plain_scale = plain_scale;
  f.fallback = fallback;
  flags_.push_back(std::move(f));
  // reserve() above keeps this pointer valid while flags are added.
  CLI::Option* opt = add_single_option(sub, flag, &flags_.back().raw, help);
  if (sub->added(opt)) opt->type_name(std::string(type_name));
  options_.push_back(opt);
  return flags_.size() - 1;
}

double NumericFlags::max_rows() const {
  if (max_rows_.empty()) return kDefaultMaxRows;
  NumericFlag f;
  f.flag = "--max-rows";
  f.dim = dim_rt<Count::dim>();
  f.constraint = Constraint::positive_integer;
  f.raw = max_rows_;
  const double n = parse_quantity(max_rows_, f.dim, f.flag);
  check_value(f, n, true);
  return n;
}

std::vector<std::size_t> NumericFlags::resolve(CommandApp* sub) {
  for (std::size_t i = 0; i < flags_.size(); ++i) flags_[i].given = options_[i]->count() > 0;
  std::vector<std::size_t> order;
  for (const CLI::Option* o : sub->parse_order()) {
    const auto it = std::find(options_.begin(), options_.end(), o);
    if (it == options_.end()) continue;
    const auto i = static_cast<std::size_t>(it - options_.begin());
    if (std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
  }
  return order;
}

}  // namespace napkin::cli
