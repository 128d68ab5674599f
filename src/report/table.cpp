// The default human table. One result set: an itemized table (key, value with a readable unit
// and a second form, formula with the numbers) and the assumptions. A sweep: one row per
// combination (swept inputs, then each result in compact form). The first kWindow rows (10k: every
// table a person reads) are held until the sweep ends or the window fills, and the columns are
// as wide as their widest cell; rows past the window stream, and a cell wider than its column
// widens it and repeats the header line above that row, so every row lines up with the header
// above it.
#include <algorithm>
#include <string>
#include <vector>

#include "napkin/report/human_units.h"
#include "napkin/report/render.h"

namespace napkin::report {

namespace {

// Columns on a terminal: UTF-8 continuation bytes take no column.
// Columns a cell takes: UTF-8 code points, less the colour codes paint() adds (ESC [ ... m).
std::size_t display_width(std::string_view s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++w;
  }
  return w;
}

// The fit verdict in colour (RenderOptions::colour: a terminal, NO_COLOR unset): yes green, no red.
std::string paint(const RenderOptions& opt, std::string_view key, const Value& v, std::string cell) {
  if (!opt.colour || key != "fits" || v.kind != Value::Kind::boolean) return cell;
  return (v.flag ? "\x1b[32m" : "\x1b[31m") + cell + "\x1b[0m";
}

void pad_to(std::string& out, std::string_view s, std::size_t width, bool right) {
  const std::size_t w = display_width(s);
  if (right) out.append(width > w ? width - w : 0, ' ');
  out += s;
  if (!right) out.append(width > w ? width - w : 0, ' ');
}

void append_remarks(std::string& out, const ResultSet& rs, std::string_view heading) {
  if (rs.remarks.empty()) return;
  out += '\n';
  out += heading;
  out += '\n';
  for (const auto& r : rs.remarks) {
    out += "  ";
    append_text(out, rs.view(r));
    out += '\n';
  }
}

void append_assumptions(std::string& out, const ResultSet& rs, std::string_view heading) {
  if (rs.assumptions.empty()) return;
  std::vector<std::string> texts;
  std::size_t w = 0;
  for (const auto& a : rs.assumptions) {
    texts.push_back(expand(rs.view(a.text)));
    w = std::max(w, display_width(texts.back()));
  }
  out += '\n';
  out += heading;
  out += '\n';
  for (std::size_t i = 0; i < texts.size(); ++i) {
    out += "  ";
    const auto& flag = rs.assumptions[i].flag;
    if (flag.empty()) {
      out += texts[i];
    } else {
      pad_to(out, texts[i], w, false);
      out += "  ";
      out += flag;
    }
    out += '\n';
  }
}

}  // namespace

void append_series_tables(std::string& out, const ResultSet& rs) {
  for (const Series& se : rs.series) {
    std::vector<std::string> cells;
    std::vector<std::size_t> w(se.columns.size());
    for (std::size_t c = 0; c < se.columns.size(); ++c) w[c] = display_width(se.columns[c]);
    for (std::size_t i = 0; i < se.cells.size(); ++i) {
      const Value& v = se.cells[i];
      std::string cell;
      if (v.kind == Value::Kind::number)
        append_compact(cell, v.num, v.dim);
      else
        cell = human_value(rs, v);
      w[i % se.columns.size()] = std::max(w[i % se.columns.size()], display_width(cell));
      cells.push_back(std::move(cell));
    }
    out += '\n';
    out += se.label;
    out += '\n';
    for (std::size_t c = 0; c < se.columns.size(); ++c) {
      out += "  ";
      pad_to(out, se.columns[c], w[c], true);
    }
    out += '\n';
    for (std::size_t i = 0; i < cells.size(); ++i) {
      out += "  ";
      pad_to(out, cells[i], w[i % se.columns.size()], true);
      if ((i + 1) % se.columns.size() == 0) out += '\n';
    }
  }
}

namespace {

void append_single(std::string& out, const ResultSet& rs, const RenderOptions& opt) {
  std::vector<std::string> values, formulas;
  std::size_t wk = std::string_view("result").size(), wv = std::string_view("value").size();
  for (const auto& it : rs.items) {
    values.push_back(paint(opt, it.key, it.value, human_value(rs, it.value)));
    std::string f(it.symbolic);
    if (!it.substituted.pattern.empty()) {
      f += " = ";
      append_text(f, rs.view(it.substituted));
    }
    formulas.push_back(std::move(f));
    wk = std::max(wk, display_width(it.key));
    wv = std::max(wv, display_width(values.back()));
  }
  out += "  ";
  pad_to(out, "result", wk, false);
  out += "  ";
  pad_to(out, "value", wv, true);
  out += "  formula\n";
  for (std::size_t i = 0; i < rs.items.size(); ++i) {
    const Item& it = rs.items[i];
    if (it.is_total) {
      out += "  ";
      out.append(wk + 2 + wv, '-');
      out += '\n';
    }
    out += "  ";
    pad_to(out, it.key, wk, false);
    out += "  ";
    pad_to(out, values[i], wv, true);
    out += "  ";
    out += formulas[i];
    out += '\n';
  }
  append_series_tables(out, rs);
  append_remarks(out, rs, "Notes");
  append_assumptions(out, rs, "Assumptions");
}

// A value as a sweep cell: compact number with its unit, or the human form of anything else.
std::string cell_text(const ResultSet& rs, const Value& v) {
  std::string cell;
  if (v.kind == Value::Kind::number)
    append_compact(cell, v.num, v.dim);
  else
    cell = human_value(rs, v);
  return cell;
}

class TableRenderer final : public Renderer {
 public:
  TableRenderer(const RenderOptions& opt, std::FILE* out) : Renderer(out), opt_(opt) {}

  void row(const ResultSet& rs) override {
    if (!opt_.sweep) {
      append_single(buf_, rs, opt_);
      return;
    }
    if (columns_.empty()) {
      for (const auto& s : opt_.swept) columns_.push_back(s);
      // A result that repeats a swept input (roofline's intensity) is shown once. A comparison
      // names every result any of its rows has (RenderOptions::items).
      auto add_key = [&](std::string_view key) {
        if (std::find(opt_.swept.begin(), opt_.swept.end(), key) == opt_.swept.end() &&
            std::find(columns_.begin(), columns_.end(), key) == columns_.end())
          columns_.emplace_back(key);
      };
      for (const auto& key : opt_.items) add_key(key);
      if (opt_.only_items.empty())
        for (const auto& it : rs.items) add_key(it.key);
      for (const auto& key : opt_.only_items) add_key(key);
      // The first row's assumptions, as text now: the strings they point into may not outlive
      // the row (a comparison loads the next model over the first).
      if (!opt_.every_rows_notes)
        append_remarks(assumptions_, rs, opt_.compare ? "Notes (first configuration)" : "Notes (first row)");
      append_assumptions(assumptions_, rs, opt_.compare ? "Assumptions (first configuration)" : "Assumptions (first row)");
    }
    if (opt_.every_rows_notes)
      for (const auto& r : rs.remarks) {
        notes_ += "  ";
        append_text(notes_, rs.view(r));
        notes_ += '\n';
      }
    std::vector<std::string> cells;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      std::string cell;
      if (c < opt_.swept.size()) {
        if (const Input* in = rs.find_input(opt_.swept[c])) cell = cell_text(rs, in->value);
      } else if (const Item* it = rs.find(columns_[c])) {
        cell = paint(opt_, it->key, it->value, cell_text(rs, it->value));
      }
      cells.push_back(std::move(cell));
    }
    if (opt_.compare) {
      compared_.push_back(std::move(cells));
      return;
    }
    add_cells(cells);
  }

  void finish() override {
    if (opt_.sweep) {
      if (opt_.compare && !side_by_side()) {
        for (const auto& cells : compared_) add_cells(cells);  // too wide: one row per configuration
      }
      if (!opt_.compare || !compared_printed_) {
        if (!widths_fixed_) fix_widths();
      }
      if (!notes_.empty()) buf_ += "\nNotes\n" + notes_;
      buf_ += assumptions_;
    }
    flush();
  }

 private:
  void add_cells(const std::vector<std::string>& cells) {
    if (!widths_fixed_) {
      for (const auto& cell : cells) {
        pending_ += cell;
        pending_ends_.push_back(pending_.size());
      }
      if (pending_ends_.size() >= kWindow * columns_.size()) fix_widths();
    } else {
      // Past the window: a wider cell widens its column from this row on, under a new header.
      bool wider = false;
      for (std::size_t c = 0; c < cells.size(); ++c) {
        if (display_width(cells[c]) > widths_[c]) {
          widths_[c] = display_width(cells[c]);
          wider = true;
        }
      }
      if (wider) emit(columns_);
      emit(cells);
    }
  }

  // The configurations side by side: a line per swept input (its values head the columns), then
  // a line per result. False, printing nothing, when that is wider than a 100-column terminal.
  bool side_by_side() {
    constexpr std::size_t kTerminal = 100;
    const std::size_t n = compared_.size();
    std::size_t wk = 0;
    for (const auto& k : columns_) wk = std::max(wk, display_width(k));
    std::vector<std::size_t> w(n, 0);
    for (std::size_t r = 0; r < n; ++r)
      for (const auto& cell : compared_[r]) w[r] = std::max(w[r], display_width(cell));
    std::size_t total = 2 + wk;
    for (std::size_t x : w) total += 2 + x;
    if (total > kTerminal) return false;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (c == opt_.swept.size()) {
        buf_ += "  ";
        buf_.append(total - 2, '-');
        buf_ += '\n';
      }
      buf_ += "  ";
      pad_to(buf_, columns_[c], wk, false);
      for (std::size_t r = 0; r < n; ++r) {
        buf_ += "  ";
        pad_to(buf_, compared_[r][c], w[r], true);
      }
      buf_ += '\n';
    }
    compared_printed_ = true;
    return true;
  }

  // Rows held to size the columns: 10k rows of ~10 cells are ~1.5 MB, flat (a sweep of any
  // length stays within issue 18's 8 MiB peak RSS; 100k rows took ~15 MB).
  static constexpr std::size_t kWindow = 10000;

  std::string_view pending_cell(std::size_t i) const {
    const std::size_t begin = i == 0 ? 0 : pending_ends_[i - 1];
    return std::string_view(pending_).substr(begin, pending_ends_[i] - begin);
  }

  void fix_widths() {
    const std::size_t n = columns_.size();
    widths_.assign(n, 0);
    for (std::size_t c = 0; c < n; ++c) widths_[c] = display_width(columns_[c]);
    for (std::size_t i = 0; i < pending_ends_.size(); ++i)
      widths_[i % n] = std::max(widths_[i % n], display_width(pending_cell(i)));
    emit(columns_);
    for (std::size_t i = 0; i < pending_ends_.size(); ++i) {
      buf_ += "  ";
      pad_to(buf_, pending_cell(i), widths_[i % n], true);
      if ((i + 1) % n == 0) {
        buf_ += '\n';
        maybe_flush();
      }
    }
    pending_.clear();
    pending_.shrink_to_fit();
    pending_ends_.clear();
    pending_ends_.shrink_to_fit();
    widths_fixed_ = true;
  }
  void emit(const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      buf_ += "  ";
      pad_to(buf_, cells[c], widths_[c], true);
    }
    buf_ += '\n';
    maybe_flush();
  }

  RenderOptions opt_;
  std::vector<std::string> columns_;
  std::vector<std::size_t> widths_;
  std::string pending_;                    // the held rows' cells, end to end
  std::vector<std::size_t> pending_ends_;  // where each cell ends in pending_, row by row
  bool widths_fixed_ = false;
  std::string assumptions_;                      // the first row's, rendered
  std::string notes_;                            // every row's notes (RenderOptions::every_rows_notes)
  std::vector<std::vector<std::string>> compared_;  // a comparison's rows, held to the end
  bool compared_printed_ = false;
};

}  // namespace

std::unique_ptr<Renderer> make_table_renderer(const RenderOptions& opt, std::FILE* out) {
  return std::make_unique<TableRenderer>(opt, out);
}

}  // namespace napkin::report
