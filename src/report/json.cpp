// --json, --jsonl and --jsonl --compact. Values in base units, printed exactly (integers) or as the shortest
// round-trip text; the shape is fixed by interface.md and described, with its version
// (kJsonSchemaVersion), by docs/output.schema.json.
#include <cstring>
#include <string>

#include "napkin/report/human_units.h"
#include "napkin/report/render.h"

namespace napkin::report {

namespace {

void append_value(std::string& out, const ResultSet& rs, const Value& v) {
  switch (v.kind) {
    case Value::Kind::number: append_number(out, v.num); break;
    case Value::Kind::text: append_json_string(out, v.str); break;
    case Value::Kind::boolean: out += v.flag ? "true" : "false"; break;
    case Value::Kind::none: out += "null"; break;
    case Value::Kind::list:
      out += '[';
      for (std::uint32_t i = 0; i < v.count; ++i) {
        if (i) out += ',';
        append_number(out, rs.numbers[v.first + i]);
      }
      out += ']';
      break;
  }
}

// A list of filled patterns as a JSON array of strings: ["...", "..."].
void append_text_array(std::string& out, const ResultSet& rs, const std::vector<TextRef>& texts) {
  out += '[';
  std::string t;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (i) out += ',';
    t.clear();
    append_text(t, rs.view(texts[i]));
    append_json_string(out, t);
  }
  out += ']';
}

// {"key":...,"text":...,"flag":...}; `scratch` holds the filled text on the way.
void append_assumption(std::string& out, const ResultSet& rs, const Assumption& a, std::string& scratch) {
  out += "{\"key\":";
  append_json_string(out, a.key);
  scratch.clear();
  append_text(scratch, rs.view(a.text));
  out += ",\"text\":";
  append_json_string(out, scratch);
  out += ",\"flag\":";
  if (a.flag.empty())
    out += "null";  // a convention no flag changes
  else
    append_json_string(out, a.flag);
  out += '}';
}

// A series' rows, the elements of its JSON array: {"column":value,...}, each after `sep` (nothing,
// or a newline and indent when pretty).
void append_series_rows(std::string& out, const ResultSet& rs, const Series& se, const char* sep) {
  for (std::size_t r = 0; r < se.rows(); ++r) {
    if (r) out += ',';
    out += sep;
    out += '{';
    for (std::size_t c = 0; c < se.columns.size(); ++c) {
      if (c) out += ',';
      append_json_string(out, se.columns[c]);
      out += ':';
      append_value(out, rs, se.cells[r * se.columns.size() + c]);
    }
    out += '}';
  }
}

void append_result_set(std::string& out, const ResultSet& rs, bool pretty) {
  const char* nl = pretty ? "\n  " : "";
  const char* nl2 = pretty ? "\n    " : "";
  out += '{';
  out += nl;
  out += "\"schema_version\":";
  append_number(out, kJsonSchemaVersion);
  out += ',';
  out += nl;
  out += "\"command\":";
  append_json_string(out, rs.command);
  out += ',';
  out += nl;
  out += "\"inputs\":{";
  for (std::size_t i = 0; i < rs.inputs.size(); ++i) {
    const Input& in = rs.inputs[i];
    if (i) out += ',';
    append_json_string(out, in.name);
    out += ':';
    if (in.value.kind == Value::Kind::number)
      append_number(out, echoed(in));
    else
      append_value(out, rs, in.value);
  }
  out += "},";
  out += nl;
  out += "\"results\":{";
  std::string formula;
  for (std::size_t i = 0; i < rs.items.size(); ++i) {
    const Item& it = rs.items[i];
    if (i) out += ',';
    out += nl2;
    append_json_string(out, it.key);
    out += ":{\"value\":";
    append_value(out, rs, it.value);
    if (it.value.kind != Value::Kind::text && it.value.kind != Value::Kind::boolean) {  // null too
      out += ",\"unit\":";
      append_json_string(out, unit_symbol(it.value.dim));
    }
    out += ",\"label\":";
    append_json_string(out, it.label);
    formula.assign(it.symbolic);
    if (!it.substituted.pattern.empty()) {
      formula += " = ";
      append_text(formula, rs.view(it.substituted));
    }
    out += ",\"formula\":";
    append_json_string(out, formula);
    out += '}';
  }
  out += pretty ? "\n  }," : "},";
  out += nl;
  for (const Series& se : rs.series) {
    append_json_string(out, se.key);
    out += ":[";
    append_series_rows(out, rs, se, nl2);
    out += pretty && se.rows() ? "\n  ]," : "],";
    out += nl;
  }
  out += "\"assumptions\":[";
  std::string t;
  for (std::size_t i = 0; i < rs.assumptions.size(); ++i) {
    const Assumption& a = rs.assumptions[i];
    if (i) out += ',';
    out += nl2;
    append_assumption(out, rs, a, t);
  }
  out += pretty && !rs.assumptions.empty() ? "\n  ]," : "],";
  out += nl;
  out += "\"notes\":";
  append_text_array(out, rs, rs.remarks);
  out += ',';
  out += nl;
  out += "\"warnings\":";
  append_text_array(out, rs, rs.warnings);
  out += pretty ? "\n}" : "}";
}

class JsonRenderer final : public Renderer {
 public:
  JsonRenderer(const RenderOptions& opt, std::FILE* out)
      : Renderer(out), lines_(opt.format == Format::jsonl), array_(opt.sweep && !lines_) {}

  void row(const ResultSet& rs) override {
    if (array_) {
      buf_ += rows_ == 0 ? "[\n" : ",\n";
      append_result_set(buf_, rs, false);
    } else {
      append_result_set(buf_, rs, !lines_);
      buf_ += '\n';
    }
    ++rows_;
    maybe_flush();
  }
  void finish() override {
    if (array_) buf_ += rows_ == 0 ? "[]\n" : "\n]\n";
    flush();
  }

 private:
  bool lines_;
  bool array_;
  std::size_t rows_ = 0;
};

// --jsonl --compact: a header line stating once what every row shares (the command, the input
// names, each result's key, unit, label and symbolic formula, the assumptions and notes), then
// one line per row with the values alone, in the header's order. A row whose inputs, results
// (key, label, formula, unit) or assumption keys or notes differ from the last header's starts
// a new header line first; an assumption whose text differs (it echoes a swept value) is
// carried by the row, by key. Warnings and series are the row's own.
class CompactJsonlRenderer final : public Renderer {
 public:
  explicit CompactJsonlRenderer(std::FILE* out) : Renderer(out) {}

  void row(const ResultSet& rs) override {
    if (!same_header(rs)) header(rs);
    buf_ += "{\"inputs\":[";
    for (std::size_t i = 0; i < rs.inputs.size(); ++i) {
      const Input& in = rs.inputs[i];
      if (i) buf_ += ',';
      if (in.value.kind == Value::Kind::number)
        append_number(buf_, echoed(in));
      else
        append_value(buf_, rs, in.value);
    }
    buf_ += "],\"results\":[";
    for (std::size_t i = 0; i < rs.items.size(); ++i) {
      if (i) buf_ += ',';
      append_value(buf_, rs, rs.items[i].value);
    }
    buf_ += ']';
    bool any = false;
    for (std::size_t i = 0; i < rs.assumptions.size(); ++i) {
      if (same_text(rs, rs.assumptions[i].text, assumptions_[i])) continue;
      buf_ += any ? "," : ",\"assumptions\":{";
      any = true;
      append_json_string(buf_, rs.assumptions[i].key);
      buf_ += ':';
      text_.clear();
      append_text(text_, rs.view(rs.assumptions[i].text));
      append_json_string(buf_, text_);
    }
    if (any) buf_ += '}';
    for (const Series& se : rs.series) {
      buf_ += ',';
      append_json_string(buf_, se.key);
      buf_ += ":[";
      append_series_rows(buf_, rs, se, "");
      buf_ += ']';
    }
    if (!rs.warnings.empty()) {
      buf_ += ",\"warnings\":";
      append_text_array(buf_, rs, rs.warnings);
    }
    buf_ += "}\n";
    maybe_flush();
  }
  void finish() override { flush(); }

 private:
  // A filled pattern as the header holds it: the pattern and its operands, texts copied (the
  // ResultSet's views die with the row).
  struct Filled {
    std::string pattern;
    std::vector<Operand> ops;
    std::vector<std::string> texts;  // ops[i].text's copy for a text operand
  };
  struct ItemHead {
    std::string key, label, symbolic;
    bool has_unit = false;
    DimRt dim{};
  };

  static bool has_unit(const Value& v) { return v.kind != Value::Kind::text && v.kind != Value::Kind::boolean; }

  static Filled keep(const ResultSet& rs, const TextRef& t) {
    Filled f{std::string(t.pattern), {}, {}};
    const TextView v = rs.view(t);
    for (std::uint8_t i = 0; i < v.n; ++i) {
      f.ops.push_back(v.ops[i]);
      f.texts.emplace_back(v.ops[i].is_text ? v.ops[i].text : std::string_view{});
    }
    return f;
  }

  // The same text without formatting it: the same pattern and operands (numbers bit for bit).
  static bool same_text(const ResultSet& rs, const TextRef& t, const Filled& f) {
    if (t.n != f.ops.size() || t.pattern != f.pattern) return false;
    const TextView v = rs.view(t);
    for (std::uint8_t i = 0; i < v.n; ++i) {
      const Operand& a = v.ops[i];
      const Operand& b = f.ops[i];
      if (a.is_text != b.is_text) return false;
      if (a.is_text ? a.text != f.texts[i]
                    : std::memcmp(&a.num, &b.num, sizeof a.num) != 0 || !(a.dim == b.dim))
        return false;
    }
    return true;
  }

  bool same_header(const ResultSet& rs) const {
    if (!started_ || rs.command != command_ || rs.inputs.size() != inputs_.size() ||
        rs.items.size() != items_.size() || rs.assumptions.size() != assumption_keys_.size() ||
        rs.remarks.size() != notes_.size())
      return false;
    for (std::size_t i = 0; i < inputs_.size(); ++i)
      if (rs.inputs[i].name != inputs_[i]) return false;
    for (std::size_t i = 0; i < items_.size(); ++i) {
      const Item& it = rs.items[i];
      const ItemHead& h = items_[i];
      if (it.key != h.key || it.label != h.label || it.symbolic != h.symbolic || has_unit(it.value) != h.has_unit ||
          (h.has_unit && !(it.value.dim == h.dim)))
        return false;
    }
    for (std::size_t i = 0; i < assumption_keys_.size(); ++i)
      if (rs.assumptions[i].key != assumption_keys_[i] || rs.assumptions[i].flag != assumption_flags_[i]) return false;
    for (std::size_t i = 0; i < notes_.size(); ++i)
      if (!same_text(rs, rs.remarks[i], notes_[i])) return false;
    return true;
  }

  void header(const ResultSet& rs) {
    started_ = true;
    command_.assign(rs.command);
    inputs_.clear();
    items_.clear();
    assumption_keys_.clear();
    assumption_flags_.clear();
    assumptions_.clear();
    notes_.clear();
    buf_ += "{\"schema_version\":";
    append_number(buf_, kJsonSchemaVersion);
    buf_ += ",\"command\":";
    append_json_string(buf_, rs.command);
    buf_ += ",\"compact\":\"header\",\"inputs\":[";
    for (std::size_t i = 0; i < rs.inputs.size(); ++i) {
      if (i) buf_ += ',';
      append_json_string(buf_, rs.inputs[i].name);
      inputs_.emplace_back(rs.inputs[i].name);
    }
    buf_ += "],\"results\":[";
    for (std::size_t i = 0; i < rs.items.size(); ++i) {
      const Item& it = rs.items[i];
      if (i) buf_ += ',';
      buf_ += "{\"key\":";
      append_json_string(buf_, it.key);
      if (has_unit(it.value)) {
        buf_ += ",\"unit\":";
        append_json_string(buf_, unit_symbol(it.value.dim));
      }
      buf_ += ",\"label\":";
      append_json_string(buf_, it.label);
      buf_ += ",\"formula\":";
      append_json_string(buf_, it.symbolic);
      buf_ += '}';
      items_.push_back({std::string(it.key), std::string(it.label), std::string(it.symbolic), has_unit(it.value),
                        it.value.dim});
    }
    buf_ += "],\"assumptions\":[";
    for (std::size_t i = 0; i < rs.assumptions.size(); ++i) {
      const Assumption& a = rs.assumptions[i];
      if (i) buf_ += ',';
      append_assumption(buf_, rs, a, text_);
      assumption_keys_.emplace_back(a.key);
      assumption_flags_.emplace_back(a.flag);
      assumptions_.push_back(keep(rs, a.text));
    }
    buf_ += "],\"notes\":";
    append_text_array(buf_, rs, rs.remarks);
    for (const TextRef& n : rs.remarks) notes_.push_back(keep(rs, n));
    buf_ += "}\n";
  }

  bool started_ = false;
  std::string command_;
  std::vector<std::string> inputs_;
  std::vector<ItemHead> items_;
  std::vector<std::string> assumption_keys_, assumption_flags_;
  std::vector<Filled> assumptions_, notes_;
  std::string text_;  // scratch for one filled pattern
};

}  // namespace

std::unique_ptr<Renderer> make_json_renderer(const RenderOptions& opt, std::FILE* out) {
  if (opt.format == Format::jsonl_compact) return std::make_unique<CompactJsonlRenderer>(out);
  return std::make_unique<JsonRenderer>(opt, out);
}

}  // namespace napkin::report
