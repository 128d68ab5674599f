// --csv: a header row (input names, then result keys), then one row per result set, values in
// base units. The columns are fixed by the first row (a comparison's: every column any row has,
// RenderOptions); a later row that lacks a column leaves it empty.
#include <algorithm>
#include <string>

#include "napkin/report/human_units.h"
#include "napkin/report/render.h"
#include "napkin/sanitize.h"

namespace napkin::report {

namespace {

// A text cell (RFC 4180 quoting). Text that a spreadsheet would run as a formula (= + - @,
// tab, CR first) starts with a single quote (OWASP's CSV-injection rule); controls and bytes
// that are not UTF-8 are visible escapes (\n, \x1b: sanitize.h), so a row stays one line.
// Numbers never come here: -3 stays a number.
void append_csv_field(std::string& out, std::string_view s) {
  // The common cell (a model or dtype name): printable ASCII without ',' or '"', not a formula,
  // goes out as it is.
  bool plain = !csv_formula_like(s);
  for (std::size_t i = 0; plain && i < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    plain = u >= 0x20 && u < 0x7f && u != ',' && u != '"';
  }
  if (plain) {
    out += s;
    return;
  }
  std::string cell;
  if (csv_formula_like(s)) cell += '\'';
  append_visible(cell, s);
  if (cell.find_first_of(",\"") == std::string::npos) {
    out += cell;
    return;
  }
  out += '"';
  for (char c : cell) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void append_csv_value(std::string& out, const ResultSet& rs, const Value& v, double num) {
  switch (v.kind) {
    case Value::Kind::list:  // a list in one cell: numbers separated by ';'
      for (std::uint32_t i = 0; i < v.count; ++i) {
        if (i) out += ';';
        append_number(out, rs.numbers[v.first + i]);
      }
      break;
    case Value::Kind::number: append_number(out, num); break;
    case Value::Kind::text: append_csv_field(out, v.str); break;
    case Value::Kind::boolean: out += v.flag ? "true" : "false"; break;
    case Value::Kind::none: break;  // an empty cell
  }
}

class CsvRenderer final : public Renderer {
 public:
  CsvRenderer(const RenderOptions& opt, std::FILE* out) : Renderer(out), opt_(opt) {}

  void row(const ResultSet& rs) override {
    if (!header_done_) header(rs);
    const bool same_shape = rs.inputs.size() == inputs_.size() && rs.items.size() == items_.size();
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      if (i) buf_ += ',';
      const Input* in = same_shape && rs.inputs[i].name == inputs_[i] ? &rs.inputs[i] : rs.find_input(inputs_[i]);
      if (in) append_csv_value(buf_, rs, in->value, echoed(*in));
    }
    for (std::size_t i = 0; i < items_.size(); ++i) {
      if (i || !inputs_.empty()) buf_ += ',';
      const Item* it = same_shape && rs.items[i].key == items_[i] ? &rs.items[i] : rs.find(items_[i]);
      if (it) append_csv_value(buf_, rs, it->value, it->value.num);
    }
    buf_ += '\n';
    maybe_flush();
  }
  void finish() override { flush(); }

 private:
  void header(const ResultSet& rs) {
    // A comparison's columns are every input and result any of its rows has (RenderOptions).
    auto add = [](std::vector<std::string>& names, std::string_view n) {
      if (std::find(names.begin(), names.end(), n) == names.end()) names.emplace_back(n);
    };
    for (const auto& n : opt_.inputs) add(inputs_, n);
    for (const auto& in : rs.inputs) add(inputs_, in.name);
    for (const auto& n : opt_.items) add(items_, n);
    for (const auto& it : rs.items) add(items_, it.key);
    bool first = true;
    for (const auto& n : inputs_) {
      if (!first) buf_ += ',';
      append_csv_field(buf_, n);
      first = false;
    }
    for (const auto& n : items_) {
      if (!first) buf_ += ',';
      append_csv_field(buf_, n);
      first = false;
    }
    buf_ += '\n';
    header_done_ = true;
  }
  RenderOptions opt_;
  bool header_done_ = false;
  std::vector<std::string> inputs_, items_;
};

}  // namespace

std::unique_ptr<Renderer> make_csv_renderer(const RenderOptions& opt, std::FILE* out) {
  return std::make_unique<CsvRenderer>(opt, out);
}

}  // namespace napkin::report
