// See numeric_flags.h.
#include "numeric_flags.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <utility>

#include "napkin/ground/check.h"
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

// The default caps on a sweep's rows (--max-rows raises them): about 2 s of CPU on the 2-core VM
// napkin is developed on, for the costliest ordinary row of each command (a table to /dev/null,
// the probe before the first row included), so that a capped sweep ends within 5 s while other
// work shares the VM (2026-12-06; the one cap of 4,000,000 at commit 7c75241 took 19.5 s for
// memory llama-3.1-8b --batch, and over 40 s for serve and train). A flag that makes every row a
// search lowers its command's cap. The cost of a row grows with a model's layers: a made-up
// decoder of 60,000 layers takes 1 to 33 ms a row, past what any cap here foresees. Per row:
struct RowCapRule {
  std::string_view command, flag;  // flag: "" for the command's own cap
  double rows;
  std::string_view why;            // with a flag: what each row does
};
constexpr RowCapRule kRowCaps[] = {
    {"flops matmul", "", 2'000'000, ""},     // 0.65 us
    {"flops ffn", "", 2'000'000, ""},        // 1.1 us
    {"flops attention", "", 1'000'000, ""},  // 1.9 us
    {"flops train", "", 1'000'000, ""},      // 2.3 us
    {"roofline", "", 500'000, ""},           // 4.6 us with --op attention --hw h100-sxm; 1.2 us --intensity alone
    {"energy", "", 500'000, ""},             // 3.1 us with --hw, --gpu-hours, prices and carbon
    {"kernel grid", "", 500'000, ""},        // 4.9 us
    {"kernel waves", "", 1'000'000, ""},     // 2.1 us
    {"kernel tiling", "", 500'000, ""},      // 3.5 us
    {"kernel flash-io", "", 500'000, ""},    // 4.0 us
    {"params", "", 100'000, ""},             // 20 us for a made-up decoder of 64 layers
    {"memory", "", 100'000, ""},             // 4.9 us llama-3.1-8b; 14 us with --train (llama-3.1-8b --micro-batch)
    {"memory", "--max", 10'000, "a solve per row"},                // 0.2 ms llama-3.1-405b --train
    {"memory", "--min-gpus", 200, "a layout search per row"},      // 7.8 ms llama-3.1-405b --hw h100-sxm
    {"serve", "", 20'000, ""},               // 19 us llama-3.1-8b; 83 us --engine llama.cpp --prompt
    {"train", "", 20'000, ""},               // 29 us llama-3.1-8b; 65 us deepseek-v3 --tp 8 --pp 16 --ep 8
};

// "kernel waves" for its CommandApp (the root app's name left out).
std::string command_path_of(const CLI::App* sub) {
  std::string path;
  for (const CLI::App* a = sub; a != nullptr && a->get_parent() != nullptr; a = a->get_parent())
    path = a->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

// What a flag's value is in its parse errors, where its dimension's words would mislead: a plain
// number that is no count (--mfu 2x said "expected a count such as 4096, 8k or 8Ki"). Read from
// the type its --help shows: a RATIO is a PUE under Constraint::pue, a fraction when its help
// says so ("the fraction of the GPU's memory"), else a factor (--backward-factor, "a multiple");
// P is a probability (--dropout), GPU-H GPU-hours, TOKENS/S a rate, OPS operations per element.
// The example is the flag's default where that says more than a made-up one.
void describe(NumericFlag& f, std::string_view type_name, std::string_view help) {
  const bool one = f.dim == dim_rt<Count::dim>();
  const auto with_default = [&f](std::string_view otherwise) {
    if (!f.fallback || *f.fallback == 0.0 || *f.fallback == 1.0) return std::string(otherwise);
    return format_plain_number(*f.fallback / f.plain_scale);
  };
  if (type_name == "RATIO" && one) {
    if (f.constraint == Constraint::pue) {
      f.what = "a PUE (facility / IT energy)";
      f.example = "1.1 or 1.58";
    } else if (help.find("fraction") != std::string_view::npos) {
      f.what = "a fraction";
      f.example = with_default("0.4 or 0.8");
    } else {
      f.what = "a factor";
      f.example = with_default("2 or 1.5");
    }
  } else if (type_name == "P" && one) {
    f.what = "a probability";
    f.example = "0.1 or 0";
  } else if ((type_name == "GPU-H" || type_name == "GPU-h") && one) {
    f.what = "a number of GPU-hours";
    f.example = "1000 or 30.84M";
  } else if ((type_name == "GPU-H" || type_name == "GPU-h") && f.dim == dim_rt<Seconds::dim>()) {
    f.what = "GPU-hours (a plain number is hours)";
    f.example = "1000, 30.84e6 or 57.7d";
  } else if (type_name == "TOKENS/S" && f.dim == dim_rt<Tokens::dim>()) {
    f.what = "a rate in tokens per second";
    f.example = "238.3k or 3000";
  } else if (type_name == "OPS" && one) {
    f.what = "a count of operations per element";
    f.example = "1 or 4";
  }
}

}  // namespace

std::size_t NumericFlags::add(CommandApp* sub, std::string_view flag, std::string_view name, DimRt dim,
                              Constraint c, std::string_view help, std::string_view type_name,
                              std::optional<double> fallback, double plain_scale) {
  if (flags_.size() >= kMax) throw std::logic_error("too many numeric flags on one command");
  if (flags_.empty()) {
    // Every command that sweeps has numeric flags: the first one brings --max-rows.
    sub_ = sub;
    command_ = command_path_of(sub);
    CLI::Option* max_rows = add_single_option(sub, "--max-rows", &max_rows_, "");
    if (sub->added(max_rows)) {
      std::string lowered;
      for (const RowCapRule& r : kRowCaps)
        if (r.command == command_ && !r.flag.empty())
          lowered += fmt::format("{}{:.0f} with {}", lowered.empty() ? "; " : ", ", r.rows, r.flag);
      max_rows->description(fmt::format("At most N rows in a sweep (default {:.0f}{}); a larger sweep is refused",
                                        default_row_cap(command_, [](std::string_view) { return false; }).rows,
                                        lowered))
          ->type_name("N")
          ->group("Output");
    }
  }
  NumericFlag f;
  f.flag = flag.substr(0, flag.find(','));  // "--gpu-memory,--memory": messages use the first name
  f.name = name;
  f.dim = dim;
  f.constraint = c;
  f.plain_scale = plain_scale;
  f.fallback = fallback;
  describe(f, type_name, help);
  flags_.push_back(std::move(f));
  // reserve() above keeps this pointer valid while flags are added.
  CLI::Option* opt = add_single_option(sub, flag, &flags_.back().raw, help);
  if (sub->added(opt)) opt->type_name(std::string(type_name));
  options_.push_back(opt);
  return flags_.size() - 1;
}

RowCap default_row_cap(std::string_view command, const std::function<bool(std::string_view)>& given) {
  RowCap cap;
  bool known = false;
  for (const RowCapRule& r : kRowCaps) {
    if (r.command != command || (!r.flag.empty() && !given(r.flag))) continue;
    if (known && r.rows >= cap.rows) continue;
    known = true;
    cap.rows = r.rows;
    cap.why = r.flag.empty() ? std::string() : fmt::format(" with {}, {}", r.flag, r.why);
  }
  return cap;
}

RowCap NumericFlags::max_rows() const {
  if (max_rows_.empty())
    return default_row_cap(command_, [this](std::string_view flag) {
      const CLI::Option* o = sub_ == nullptr ? nullptr : sub_->get_option_no_throw(std::string(flag));
      return o != nullptr && o->count() > 0;
    });
  NumericFlag f;
  f.flag = "--max-rows";
  f.dim = dim_rt<Count::dim>();
  f.constraint = Constraint::positive_integer;
  f.raw = max_rows_;
  const double n = parse_quantity(max_rows_, f.dim, f.flag);
  check_value(f, n, true);
  return RowCap{n, ""};
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
