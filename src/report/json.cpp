// --json and --jsonl. Values in base units, printed exactly (integers) or as the shortest
// round-trip text; the shape is fixed by interface.md and described, with its version
// (kJsonSchemaVersion), by docs/output.schema.json.
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
    for (std::size_t r = 0; r < se.rows(); ++r) {
      if (r) out += ',';
      out += nl2;
      out += '{';
      for (std::size_t c = 0; c < se.columns.size(); ++c) {
        if (c) out += ',';
        append_json_string(out, se.columns[c]);
        out += ':';
        append_value(out, rs, se.cells[r * se.columns.size() + c]);
      }
      out += '}';
    }
    out += pretty && se.rows() ? "\n  ]," : "],";
    out += nl;
  }
  out += "\"assumptions\":[";
  std::string t;
  for (std::size_t i = 0; i < rs.assumptions.size(); ++i) {
    const Assumption& a = rs.assumptions[i];
    if (i) out += ',';
    out += nl2;
    out += "{\"key\":";
    append_json_string(out, a.key);
    t.clear();
    append_text(t, rs.view(a.text));
    out += ",\"text\":";
    append_json_string(out, t);
    out += ",\"flag\":";
    if (a.flag.empty())
      out += "null";  // a convention no flag changes
    else
      append_json_string(out, a.flag);
    out += '}';
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

}  // namespace

std::unique_ptr<Renderer> make_json_renderer(const RenderOptions& opt, std::FILE* out) {
  return std::make_unique<JsonRenderer>(opt, out);
}

}  // namespace napkin::report
