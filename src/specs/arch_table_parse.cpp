// Parsing data/architectures/*.json into the tables arch_table.cpp evaluates (arch_table_data.h):
// each file's variables, tensors and spec as expressions, checked once at the first use (a table
// that does not parse is a build defect, tests/arch_table_test.cpp).
#include <algorithm>
#include <string>
#include <string_view>

#include "arch_table_data.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"

namespace napkin::specs::arch {

namespace {

Expr parse(const Table& t, const std::string& where, const json& v) {
  if (!v.is_string()) defect(t.name, where + ": expected an expression string");
  try {
    return Expr::parse(v.get<std::string>());
  } catch (const ExprError& e) {
    defect(t.name, where + ": " + e.what);
  }
}

std::vector<std::string> strings(const Table& t, const json& j, const char* key) {
  std::vector<std::string> out;
  if (!j.contains(key) || !j.at(key).is_array()) defect(t.name, std::string(key) + ": expected a list of strings");
  for (const json& x : j.at(key)) out.push_back(x.get<std::string>());
  return out;
}

TensorGroup group_of(const Table& t, const std::string& g) {
  static const std::pair<const char*, TensorGroup> kGroups[] = {
      {"embedding", TensorGroup::embedding}, {"attention", TensorGroup::attention}, {"mlp", TensorGroup::mlp},
      {"experts", TensorGroup::experts},     {"router", TensorGroup::router},       {"norm", TensorGroup::norm},
      {"head", TensorGroup::head},           {"other", TensorGroup::other},         {"ssm", TensorGroup::ssm},
      {"vision", TensorGroup::vision}};
  for (const auto& [n, v] : kGroups)
    if (g == n) return v;
  defect(t.name, "group '" + g + "': expected embedding, attention, mlp, experts, router, norm, head, other, ssm or vision");
}

Table parse_table(std::string_view name, std::string_view text) {
  Table t;
  t.name = std::string(name);
  const json j = parse_json_text(text, "data/architectures/" + t.name + ".json");
  if (j.value("family", "") != t.name) defect(t.name, "family: expected the file's name");
  if (j.contains("kind") && j.at("kind") != "model" && j.at("kind") != "tower")
    defect(t.name, "kind: expected model or tower");
  t.model_types = strings(t, j, "model_types");
  t.classes = strings(t, j, "architectures");
  t.source = j.value("source", "");
  t.checked = j.value("checked", "");
  t.tower = j.value("kind", "model") == "tower";
  t.verified = j.value("verified", true);
  // "unverified": model types of the table no checkpoint total has confirmed (Falcon-Mamba).
  if (j.contains("unverified")) t.unverified = strings(t, j, "unverified");
  t.text_model_type = j.value("text_model_type", "");
  if (!t.text_model_type.empty() && !t.tower) defect(t.name, "text_model_type: only a tower table names it");
  if (t.source.empty()) defect(t.name, "source: expected the modeling file the table follows");
  for (const auto& [k, v] : j.at("vars").items()) {
    Var var;
    if (v.is_string()) {
      var.expr = parse(t, "vars/" + k, v);
    } else if (v.is_array() && v.size() == 3) {
      var.expr = parse(t, "vars/" + k, v[0]);
      var.check = v[1].get<std::string>();
      var.what = v[2].get<std::string>();
    } else {
      defect(t.name, "vars/" + k + ": expected an expression or [expression, check, what]");
    }
    t.vars.emplace(k, std::move(var));
  }
  t.layers = parse(t, "layers", j.at("layers"));
  for (const json& d : j.at("tensors")) {
    TensorDef td;
    td.name = d.at("name").get<std::string>();
    td.group = group_of(t, d.at("group").get<std::string>());
    for (const json& s : d.at("shape")) td.shape.push_back(parse(t, td.name + "/shape", s));
    if (d.contains("layers")) td.layers = parse(t, td.name + "/layers", d.at("layers"));
    if (d.contains("if")) td.when = parse(t, td.name + "/if", d.at("if"));
    if (d.contains("experts")) td.experts = parse(t, td.name + "/experts", d.at("experts"));
    if (d.contains("mtp")) td.mtp = parse(t, td.name + "/mtp", d.at("mtp"));
    if (td.layers && td.mtp) defect(t.name, td.name + ": layers and mtp are exclusive");
    if (d.contains("stack")) {
      // An encoder-decoder's decoder stack: its own layer loop (see TensorDef::decoder).
      if (d.at("stack") != "decoder") defect(t.name, td.name + "/stack: expected \"decoder\"");
      if (!td.layers) defect(t.name, td.name + "/stack: a decoder tensor is per layer (\"layers\")");
      td.decoder = true;
    }
    t.tensors.push_back(std::move(td));
  }
  for (const auto& [k, v] : j.at("spec").items()) t.spec.emplace_back(k, parse(t, "spec/" + k, v));
  if (std::any_of(t.tensors.begin(), t.tensors.end(), [](const TensorDef& d) { return d.decoder; }) &&
      (t.tower || !j.at("spec").contains("decoder_layers") || !j.at("spec").contains("encoder_decoder")))
    defect(t.name, "stack: decoder tensors need spec encoder_decoder and decoder_layers (a model table's)");
  if (j.contains("class_defaults")) {
    const json& d = j.at("class_defaults");
    if (!d.is_object() || !d.contains("class") || !d.at("class").is_string() || !d.contains("values") ||
        !d.at("values").is_object() || d.at("values").empty())
      defect(t.name, "class_defaults: expected {\"class\": the configuration class, \"values\": {key: default}}");
    if (t.tower) defect(t.name, "class_defaults: a tower reads the top-level config; its table names defaults with ??");
    t.defaults_class = d.at("class").get<std::string>();
    t.defaults = d.at("values");
    for (const auto& [k, v] : t.defaults.items()) t.keys.insert(k);
  }
  if (j.contains("notes")) {
    if (!j.at("notes").is_array()) defect(t.name, "notes: expected a list");
    for (const json& n : j.at("notes")) {
      if (n.is_string()) {
        t.notes.emplace_back(std::nullopt, n.get<std::string>());
      } else if (n.is_object() && n.contains("if") && n.contains("text") && n.at("text").is_string()) {
        t.notes.emplace_back(parse(t, "notes/if", n.at("if")), n.at("text").get<std::string>());
      } else {
        defect(t.name, "notes: expected a text or {\"if\": condition, \"text\": text}");
      }
    }
  }
  // Which variables depend on the layer index, and every config key named.
  auto note_keys = [&t](const Expr& e) { t.keys.insert(e.config_keys().begin(), e.config_keys().end()); };
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto& [k, v] : t.vars) {
      if (v.per_layer) continue;
      for (const std::string& n : v.expr.variables())
        if (n == "l" || (t.vars.count(n) != 0 && t.vars.at(n).per_layer)) {
          v.per_layer = changed = true;
          break;
        }
    }
  }
  for (TensorDef& d : t.tensors) {
    auto layered = [&t](const Expr& e) {
      for (const std::string& n : e.variables())
        if (n == "l" || (t.vars.count(n) != 0 && t.vars.at(n).per_layer)) return true;
      return false;
    };
    d.per_layer = std::any_of(d.shape.begin(), d.shape.end(), layered) || (d.when && layered(*d.when)) ||
                  (d.experts && layered(*d.experts));
  }
  // The expressions that describe the model: the layer count, every tensor's, the spec's.
  auto each_model_expr = [&t](auto&& fn) {
    fn(t.layers);
    for (const TensorDef& d : t.tensors) {
      for (const Expr& e : d.shape) fn(e);
      for (const auto* e : {&d.layers, &d.when, &d.experts, &d.mtp})
        if (*e) fn(**e);
    }
    for (const auto& [k, e] : t.spec) fn(e);
    for (const auto& [cond, text] : t.notes)
      if (cond) fn(*cond);
  };
  // Every variable is used by a tensor, the spec or the layer count, directly or through other
  // variables: a guard (a check that refuses a config) nobody reads would never be evaluated.
  std::set<std::string> used;
  std::vector<std::string> todo;
  auto use = [&](const Expr& e) {
    for (const std::string& n : e.variables())
      if (t.vars.count(n) != 0 && used.insert(n).second) todo.push_back(n);
  };
  each_model_expr(use);
  while (!todo.empty()) {
    const std::string n = todo.back();
    todo.pop_back();
    use(t.vars.at(n).expr);
  }
  for (const auto& [k, v] : t.vars)
    if (used.count(k) == 0) defect(t.name, "vars/" + k + ": used by no tensor, spec field or other variable in use");
  for (const auto& [k, v] : t.vars) note_keys(v.expr);
  each_model_expr(note_keys);
  return t;
}

}  // namespace

const std::vector<Table>& tables() {
  static const std::vector<Table> kTables = [] {
    std::vector<Table> out;
    for (const auto& p : architecture_texts()) out.push_back(parse_table(p.name, p.json));
    return out;
  }();
  return kTables;
}

}  // namespace napkin::specs::arch
