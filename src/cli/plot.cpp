#include "plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <utility>

#include "napkin/ground/error.h"
#include "napkin/report/human_units.h"

namespace napkin::cli {

namespace {

constexpr DimRt kByte = dim_rt<Bytes::dim>();
constexpr std::size_t kMaxRoofs = 8;

const char* const kWhat =
    "a sweep (a list or range on a numeric flag), or roofline, memory, serve --per-op or kernel waves --scan";

// The numeric item `key` of `rs`, or its numeric input of that name.
std::optional<double> number(const ResultSet& rs, std::string_view key) {
  if (const Item* i = rs.find(key); i && i->value.kind == Value::Kind::number) return i->value.num;
  if (const Input* i = rs.find_input(key); i && i->value.kind == Value::Kind::number) return i->value.num;
  return std::nullopt;
}

std::string numeric_keys(const ResultSet& rs) {
  std::string keys;
  for (const auto& i : rs.items) {
    if (i.value.kind != Value::Kind::number) continue;
    if (!keys.empty()) keys += ", ";
    keys += i.key;
  }
  return keys;
}

const Series* ops_series(const ResultSet& rs) {
  for (const auto& s : rs.series)
    if (std::find(s.columns.begin(), s.columns.end(), "intensity") != s.columns.end()) return &s;
  return nullptr;
}

bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\v' || ch == '\f'; }

// The name's last four characters are ".svg" in any case.
bool ends_in_svg(std::string_view name) {
  if (name.size() < 4) return false;
  const std::string_view ext = name.substr(name.size() - 4);
  return ext[0] == '.' && (ext[1] | 0x20) == 's' && (ext[2] | 0x20) == 'v' && (ext[3] | 0x20) == 'g';
}

}  // namespace

void check_plot_name(const std::string& path) {
  if (path.empty()) throw InputError("--plot", path, "a file name (FILE.svg)");
  if (is_space(path.front()) || is_space(path.back()))
    throw InputError("--plot", path, "a file name without white space around it (FILE.svg)",
                     is_space(path.back()) ? "ends with white space" : "starts with white space");
  if (path == "-")
    throw InputError("--plot", path, "a file name (FILE.svg): the chart goes to a file, never to stdout, which "
                                     "carries the table");
  if (path.back() == '/') throw InputError("--plot", path, "a file name (FILE.svg), not a directory");
  const std::string_view name = std::string_view(path).substr(path.rfind('/') + 1);  // npos + 1 = 0
  if (name.size() == 4 && ends_in_svg(name))
    throw InputError("--plot", path, "a name before the extension, such as chart.svg");
}

std::string_view default_plot_key(std::string_view command) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 14> kKeys{{
      {"roofline", "attainable"},
      {"memory", "per_gpu"},
      {"flops matmul", "flops"},
      {"flops ffn", "flops"},
      {"flops attention", "flops"},
      {"flops train", "training_flops"},
      {"energy", "energy"},
      {"params", "total_params"},
      {"kernel grid", "idle_threads"},
      {"kernel waves", "wave_efficiency"},
      {"kernel tiling", "tiled_bytes"},
      {"kernel flash-io", "flash_bytes"},
      {"serve", "tokens_per_second"},
      {"train", "time"},
  }};
  for (const auto& [c, k] : kKeys)
    if (c == command) return k;
  return {};
}

std::string command_path(CLI::App* sub) {
  std::string path;
  for (CLI::App* a = sub; a != nullptr && a->get_parent() != nullptr; a = a->get_parent())
    path = a->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

std::string command_line(CLI::App* sub) {
  std::string line = "napkin " + command_path(sub);
  std::vector<const CLI::Option*> seen;
  for (const CLI::Option* o : sub->parse_order()) {
    if (std::find(seen.begin(), seen.end(), o) != seen.end()) continue;
    seen.push_back(o);
    const std::string name = o->get_name();
    static constexpr std::array<std::string_view, 7> kOutput{"--json", "--jsonl", "--compact", "--csv", "--explain",
                                                              "--plot", "--plot-y"};
    if (std::find(kOutput.begin(), kOutput.end(), name) != kOutput.end()) continue;
    if (o->get_positional()) {
      for (const auto& r : o->results()) line += " " + r;
    } else if (o->get_expected_max() == 0) {  // a flag
      line += " " + name;
    } else {
      for (const auto& r : o->results()) line += " " + name + " " + r;
    }
  }
  return line;
}

namespace {

// What the command reads that a plot must not replace: its positional arguments (MODEL) and --hw.
std::vector<std::string> input_paths(CLI::App* sub) {
  std::vector<std::string> paths;
  for (const CLI::Option* o : sub->get_options())
    if (o->get_positional() || o->get_name() == "--hw")
      for (const auto& r : o->results()) paths.push_back(r);
  return paths;
}

}  // namespace

Plot::Plot(std::string path, std::string y_key, std::string command, std::string title,
           const std::vector<NumericFlag>& flags, const Sweep& sweep, const std::vector<std::string>& inputs)
    : path_(std::move(path)), y_key_(std::move(y_key)), command_(std::move(command)), title_(std::move(title)),
      flags_(flags), rows_(sweep.rows()) {
  check_plot_name(path_);
  for (const auto& name : sweep.swept_names())
    for (std::size_t i = 0; i < flags_.size(); ++i)
      if (flags_[i].name == name) swept_.push_back(i);
  const bool swept = rows_ > 1;
  if (!y_key_.empty()) {
    if (!swept)
      throw InputError("--plot-y", y_key_, "a sweep to plot it against (a list 1,2,4 or a range 1..64:x2 on a numeric flag)");
    kind_ = Kind::line;
  } else if (command_ == "roofline") {
    kind_ = Kind::roofline;
  } else if (command_ == "memory" && rows_ <= kMaxPlotBars) {
    kind_ = Kind::ledger;
  } else if (swept) {
    kind_ = Kind::line;
  } else if (command_ == "serve") {
    kind_ = Kind::undecided;  // a per-op series, seen in the first result set
  } else {
    throw InputError("--plot", path_, kWhat);
  }
  if (rows_ > kMaxPlotPoints)
    throw InputError("--plot", path_,
                     fmt::format("a sweep of at most {} points to plot ({} here)", kMaxPlotPoints, rows_));
  if (kind_ == Kind::roofline) {
    std::size_t roofs = 1;
    for (std::size_t i : swept_)
      if (flags_[i].name == "peak" || flags_[i].name == "bandwidth") roofs *= flags_[i].axis.size();
    if (roofs > kMaxRoofs)
      throw InputError("--plot", path_,
                       fmt::format("at most {} roofs (swept --peak and --bandwidth combinations; {} here)", kMaxRoofs,
                                   roofs));
  }
  if (kind_ == Kind::line) {
    per_series_ = rows_ / flags_[swept_.front()].axis.size();
    if (per_series_ > kMaxPlotSeries)
      throw InputError("--plot", path_,
                       fmt::format("at most {} lines: the flags swept after {} give {}; sweep fewer values",
                                   kMaxPlotSeries, flags_[swept_.front()].flag, per_series_));
    line_.series.resize(per_series_);
  }
  roofline_.title = ledger_.title = line_.title = title_;
  // A '~' the shell left as is names a directory "~" that does not exist: say why.
  if (path_.front() == '~') {
    const std::filesystem::path dir = std::filesystem::path(path_).parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::exists(dir, ec))
      throw InputError("--plot", path_, "the path written out, such as $HOME/" + path_.substr(path_.find('/') + 1),
                       "starts with a '~' the shell did not expand (inside quotes, or after --plot=)");
  }
  file_ = std::make_unique<ReplaceFile>("--plot", path_, inputs);
  // After ReplaceFile's refusals, which name a file the run reads or a device as such.
  if (!ends_in_svg(path_))
    throw InputError("--plot", path_, "a file name ending in .svg, such as chart.svg (napkin writes SVG only)");
}

Plot::Plot(CLI::App* sub, std::string path, std::string y_key, const std::vector<NumericFlag>& flags,
           const Sweep& sweep)
    : Plot(std::move(path), std::move(y_key), command_path(sub), command_line(sub), flags, sweep, input_paths(sub)) {}

Plot::~Plot() = default;  // without finish(), file_ removes its temporary file: the target is untouched

std::string Plot::label_of(const Point& p, bool skip_first) const {
  std::vector<std::size_t> shown;
  for (std::size_t k = skip_first ? 1 : 0; k < swept_.size(); ++k) {
    const NumericFlag& f = flags_[swept_[k]];
    if (kind_ == Kind::roofline && (f.name == "peak" || f.name == "bandwidth")) continue;
    shown.push_back(swept_[k]);
  }
  std::string label;
  for (std::size_t i : shown) {
    if (!label.empty()) label += ", ";
    // A roofline point swept in one flag with a unit needs no name: "10 FLOP/B".
    if (!(kind_ == Kind::roofline && shown.size() == 1 && !flags_[i].dim.dimensionless())) label += flags_[i].name + " ";
    label += report::compact(p[i], flags_[i].dim);
  }
  return label;
}

void Plot::first(const ResultSet& rs) {
  if (kind_ == Kind::undecided) {
    if (ops_series(rs) == nullptr) throw InputError("--plot", path_, kWhat);
    kind_ = Kind::ops;
  }
  if (kind_ == Kind::ledger && !rs.find("per_gpu"))
    throw InputError("--plot", path_, "a memory result with a per_gpu ledger");
  if (kind_ != Kind::line) return;
  if (y_key_.empty()) {
    y_key_ = std::string(default_plot_key(command_));
    if (!number(rs, y_key_) || !rs.find(y_key_)) y_key_.clear();
    for (const auto& i : rs.items)
      if (y_key_.empty() && i.value.kind == Value::Kind::number) y_key_ = std::string(i.key);
    if (y_key_.empty()) throw InputError("--plot", path_, "a command whose results include a number");
  }
  const Item* item = rs.find(y_key_);
  if (item == nullptr || item->value.kind != Value::Kind::number)
    throw InputError("--plot-y", y_key_, "a numeric result key: " + numeric_keys(rs));
  const NumericFlag& fx = flags_[swept_.front()];
  line_.x_label = fx.name;
  line_.x_dim = fx.dim;
  const Axis& a = fx.axis;
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (std::size_t i = 0; i < a.size() && i < 64; ++i) {
    lo = std::min(lo, a.at(i));
    hi = std::max(hi, a.at(i));
  }
  if (a.size() > 64) {
    lo = std::min(lo, a.at(a.size() - 1));
    hi = std::max(hi, a.at(a.size() - 1));
  }
  line_.x_log = lo > 0 && (a.kind == Axis::Kind::geometric || hi / lo >= 50);
  if (a.size() <= 12)
    for (std::size_t i = 0; i < a.size(); ++i) line_.x_ticks.push_back(a.at(i));
  line_.y_key = y_key_;
  line_.y_label = std::string(item->label.empty() ? item->key : item->label);
  line_.y_dim = item->value.dim;
  if (y_key_ == "per_gpu")
    if (const auto h = number(rs, "headroom")) {
      line_.y_ref = item->value.num + *h;
      line_.y_ref_label = "capacity";
    }
}

void Plot::add(const Point& p, const ResultSet& rs) {
  if (row_ == 0) first(rs);
  switch (kind_) {
    case Kind::roofline: {
      const double peak = number(rs, "peak").value_or(0), bw = number(rs, "bandwidth").value_or(0);
      std::size_t k = 0;
      while (k < roofline_.roofs.size() && !(roofline_.roofs[k].peak_flop_per_s == peak &&
                                             roofline_.roofs[k].bandwidth_bytes_per_s == bw))
        ++k;
      if (k == roofline_.roofs.size())
        roofline_.roofs.push_back(report::Roof{"", peak, bw});  // labelled by its peak and bandwidth
      std::string label;
      if (const Input* op = rs.find_input("op"); op && op->value.kind == Value::Kind::text) label = op->value.str;
      const std::string swept = label_of(p, false);
      if (!swept.empty()) label += (label.empty() ? "" : ", ") + swept;
      roofline_.points.push_back(report::RooflinePoint{std::move(label), number(rs, "intensity").value_or(0),
                                                       number(rs, "attainable").value_or(0), k});
      break;
    }
    case Kind::ops: {
      const report::Roof roof{"", number(rs, "peak").value_or(0), number(rs, "bandwidth").value_or(0)};
      if (!(roof.peak_flop_per_s > 0 && roof.bandwidth_bytes_per_s > 0))
        throw InputError("--plot", path_, "a per-op result with its peak and bandwidth (" + std::string(rs.command) + ")");
      roofline_.roofs = {roof};
      for (const auto& s : rs.series) {
        if (std::find(s.columns.begin(), s.columns.end(), "intensity") == s.columns.end()) continue;
        const auto pts = report::roofline_points(s, roof, roofline_.groups.size());
        roofline_.groups.emplace_back(s.key);
        roofline_.points.insert(roofline_.points.end(), pts.begin(), pts.end());
      }
      break;
    }
    case Kind::ledger: {
      report::LedgerBar bar;
      if (rows_ > 1) {
        bar.label = label_of(p, false);
      } else if (const Input* m = rs.find_input("model"); m && m->value.kind == Value::Kind::text) {
        bar.label = m->value.str;
      } else {
        bar.label = "per GPU";
      }
      for (const auto& i : rs.items) {
        if (i.key == "per_gpu") break;
        if (i.is_total || i.key == "total" || i.value.kind != Value::Kind::number || !(i.value.dim == kByte))
          continue;
        bar.parts.push_back(report::LedgerPart{std::string(i.key), i.value.num, std::string(i.label)});
      }
      const auto per_gpu = number(rs, "per_gpu");
      if (const auto h = number(rs, "headroom"); h && per_gpu) bar.capacity_bytes = *per_gpu + *h;
      ledger_.bars.push_back(std::move(bar));
      break;
    }
    case Kind::line: {
      report::LineSeries& s = line_.series[row_ % per_series_];
      if (row_ < per_series_) s.name = label_of(p, true);
      const Item* i = rs.find(y_key_);
      s.x.push_back(p[swept_.front()]);
      s.y.push_back(i && i->value.kind == Value::Kind::number ? i->value.num : std::nan(""));
      // kernel waves --scan marks the sizes where one more wave starts.
      if (const Item* cliff = rs.find("cliff"); cliff && cliff->value.kind == Value::Kind::boolean && cliff->value.flag) {
        s.marked.push_back(s.x.size() - 1);
        line_.mark_label = "wave cliff";
      }
      if (line_.y_ref && y_key_ == "per_gpu") {
        const auto h = number(rs, "headroom");
        if (!h || !i || i->value.num + *h != *line_.y_ref) ref_constant_ = false;
      }
      break;
    }
    case Kind::undecided:
      break;
  }
  ++row_;
}

void Plot::finish() {
  std::string svg;
  switch (kind_) {
    case Kind::roofline:
    case Kind::ops:
      svg = report::roofline_svg(roofline_);
      break;
    case Kind::ledger:
      svg = report::ledger_svg(ledger_);
      break;
    case Kind::line: {
      if (!ref_constant_) line_.y_ref.reset();
      double lo = std::numeric_limits<double>::infinity(), hi = 0;
      bool all_positive = true;
      for (const auto& s : line_.series)
        for (double v : s.y) {
          if (!std::isfinite(v)) continue;
          all_positive = all_positive && v > 0;
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
      line_.y_log = all_positive && lo > 0 && hi / lo >= 1000;
      svg = report::line_svg(line_);
      break;
    }
    case Kind::undecided:
      return;
  }
  file_->commit(svg);
}

}  // namespace napkin::cli
