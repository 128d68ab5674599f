// --explain: the derivation as a student writes it. The givens with their units, then one step
// per result: what it is and its unit first, the symbolic formula, the numbers substituted,
// the value. Then the notes and the assumptions.
#include <string>

#include "napkin/report/human_units.h"
#include "napkin/report/render.h"

namespace napkin::report {

namespace {

void append_explain(std::string& out, const ResultSet& rs) {
  out += rs.command;
  out += ": the derivation, units first\n\nGiven\n";
  for (const auto& in : rs.inputs) {
    out += "  ";
    out += in.name;
    out += " = ";
    if (in.value.kind == Value::Kind::number && !in.echo_unit.empty()) {
      append_number(out, echoed(in));
      out += ' ';
      out += in.echo_unit;
    } else if (in.value.kind == Value::Kind::number) {
      append_compact(out, in.value.num, in.value.dim);
      const std::string sym = unit_symbol(in.value.dim);
      if (sym != "1") {
        out += "  [";
        out += sym;
        out += ']';
      }
    } else {
      out += human_value(rs, in.value);
    }
    out += '\n';
  }
  int step = 1;
  for (const auto& it : rs.items) {
    out += '\n';
    out += std::to_string(step++);
    out += ". ";
    out += it.label;
    out += " (";
    out += it.key;
    if (it.value.kind == Value::Kind::number) {
      const std::string sym = unit_symbol(it.value.dim);
      out += sym == "1" ? ", a plain number" : ", in " + sym;
    } else {
      out += ", a verdict";
    }
    out += ")\n   ";
    out += it.symbolic;
    if (!it.substituted.pattern.empty()) {  // an item without numbers to substitute skips the line
      out += "\n   = ";
      append_text(out, rs.view(it.substituted));
    }
    out += "\n   = ";
    out += human_value(rs, it.value);
    out += '\n';
  }
  append_series_tables(out, rs);
  if (!rs.notes.empty() || !rs.remarks.empty()) {
    out += "\nNotes\n";
    for (const auto* list : {&rs.remarks, &rs.notes})
      for (const auto& n : *list) {
        out += "  ";
        append_text(out, rs.view(n));
        out += '\n';
      }
  }
  if (!rs.assumptions.empty()) {
    out += "\nAssumptions\n";
    for (const auto& a : rs.assumptions) {
      out += "  ";
      append_text(out, rs.view(a.text));
      if (!a.flag.empty()) {
        out += "  (";
        out += a.flag;
        out += ')';
      }
      out += '\n';
    }
  }
}

class ExplainRenderer final : public Renderer {
 public:
  ExplainRenderer(const RenderOptions& opt, std::FILE* out) : Renderer(out), opt_(opt) {}
  void row(const ResultSet& rs) override {
    if (opt_.sweep) {
      buf_ += rows_ == 0 ? "" : "\n";
      buf_ += "== ";
      bool first = true;
      for (const auto& name : opt_.swept) {
        if (const Input* in = rs.find_input(name)) {
          if (!first) buf_ += ", ";
          buf_ += name;
          buf_ += " = ";
          if (in->value.kind == Value::Kind::number)
            append_compact(buf_, in->value.num, in->value.dim);
          else
            buf_ += human_value(rs, in->value);
          first = false;
        }
      }
      buf_ += " ==\n";
    }
    append_explain(buf_, rs);
    ++rows_;
    maybe_flush();
  }
  void finish() override { flush(); }

 private:
  RenderOptions opt_;
  std::size_t rows_ = 0;
};

}  // namespace

std::unique_ptr<Renderer> make_explain_renderer(const RenderOptions& opt, std::FILE* out) {
  return std::make_unique<ExplainRenderer>(opt, out);
}

}  // namespace napkin::report
