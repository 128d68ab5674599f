// --csv: a header row (input names, then result keys), then one row per result set, values in
// base units. The columns are fixed by the first row (a comparison's: every column any row has,
// RenderOptions); a later row that lacks a column leaves it empty.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "napkin/ground/sanitize.h"
#include "napkin/report/human_units.h"
#include "napkin/report/render.h"

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

// Whether a row's column name is the header's: the names are short and mostly equal, so compared
// a word or two at a time inline, not by a call to memcmp per column and row.
std::uint64_t load8(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
std::uint32_t load4(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
[[gnu::always_inline]] inline bool same_name(std::string_view a, const std::string& b) {
  const std::size_t n = a.size();
  if (n != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  if (n > 16) return std::memcmp(x, y, n) == 0;
  if (n >= 8) return load8(x) == load8(y) && load8(x + n - 8) == load8(y + n - 8);  // overlapping
  if (n >= 4) return load4(x) == load4(y) && load4(x + n - 4) == load4(y + n - 4);
  for (std::size_t i = 0; i < n; ++i)
    if (x[i] != y[i]) return false;
  return true;
}

class CsvRenderer final : public Renderer {
 public:
  CsvRenderer(const RenderOptions& opt, std::FILE* out) : Renderer(out), opt_(opt) {}

  void row(const ResultSet& rs) override {
    if (!header_done_) header(rs);
    // The cells of this row by column, and a bound on the row's length; then the row is written
    // in place at the end of the buffer (no append per cell).
    const bool same_shape = rs.inputs.size() == inputs_.size() && rs.items.size() == items_.size();
    std::size_t bound = cells_.size() + 1;  // the commas and the newline
    std::size_t col = 0;
    for (std::size_t i = 0; i < inputs_.size(); ++i, ++col) {
      const Input* in = same_shape && same_name(rs.inputs[i].name, inputs_[i]) ? &rs.inputs[i] : rs.find_input(inputs_[i]);
      cells_[col] = in ? Cell{&in->value, in->echo_scale == 1.0 ? in->value.num : echoed(*in)} : Cell{};
      bound += prepare(col);
    }
    for (std::size_t i = 0; i < items_.size(); ++i, ++col) {
      const Item* it = same_shape && same_name(rs.items[i].key, items_[i]) ? &rs.items[i] : rs.find(items_[i]);
      cells_[col] = it ? Cell{&it->value, it->value.num} : Cell{};
      bound += prepare(col);
    }
    const std::size_t at = buf_.size();
    buf_.resize(at + bound);
    char* const begin = buf_.data();
    char* p = begin + at;
    for (col = 0; col < cells_.size(); ++col) {
      if (col) *p++ = ',';
      p = write_cell(p, rs, col);
    }
    *p++ = '\n';
    buf_.resize(static_cast<std::size_t>(p - begin));
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
    cells_.resize(inputs_.size() + items_.size());
    text_.resize(cells_.size());
    header_done_ = true;
  }
  struct Cell {
    const Value* value = nullptr;  // none: the row lacks the column (an empty cell)
    double num = 0.0;              // a number as written (an input's in its echo unit)
  };
  // The most a column's cell of this row takes. A text cell is quoted here, once for as long as
  // the column's text stays the same (a model or dtype name, row after row).
  std::size_t prepare(std::size_t col) {
    const Value* v = cells_[col].value;
    if (v == nullptr) return 0;
    switch (v->kind) {
      case Value::Kind::number: return kMaxNumberChars;
      case Value::Kind::list: return v->count * (kMaxNumberChars + 1);
      case Value::Kind::boolean: return 5;
      case Value::Kind::none: return 0;
      case Value::Kind::text: break;
    }
    Text& t = text_[col];
    if (!t.valid || !same_name(v->str, t.text)) {
      t.text.assign(v->str);
      t.cell.clear();
      append_csv_field(t.cell, v->str);
      t.valid = true;
    }
    return t.cell.size();
  }
  char* write_cell(char* p, const ResultSet& rs, std::size_t col) const {
    const Value* v = cells_[col].value;
    if (v == nullptr) return p;
    switch (v->kind) {
      case Value::Kind::number: return write_number(p, cells_[col].num);
      case Value::Kind::list:  // a list in one cell: numbers separated by ';'
        for (std::uint32_t i = 0; i < v->count; ++i) {
          if (i) *p++ = ';';
          p = write_number(p, rs.numbers[v->first + i]);
        }
        return p;
      case Value::Kind::text: {
        const std::string& cell = text_[col].cell;
        std::memcpy(p, cell.data(), cell.size());
        return p + cell.size();
      }
      case Value::Kind::boolean: {
        const std::string_view b = v->flag ? "true" : "false";
        std::memcpy(p, b.data(), b.size());
        return p + b.size();
      }
      case Value::Kind::none: return p;  // an empty cell
    }
    return p;
  }
  struct Text {
    bool valid = false;
    std::string text;  // the column's last text
    std::string cell;  // and its cell
  };
  RenderOptions opt_;
  bool header_done_ = false;
  std::vector<Cell> cells_;  // by column: this row's
  std::vector<Text> text_;   // by column
  std::vector<std::string> inputs_, items_;
};

}  // namespace

std::unique_ptr<Renderer> make_csv_renderer(const RenderOptions& opt, std::FILE* out) {
  return std::make_unique<CsvRenderer>(opt, out);
}

}  // namespace napkin::report
