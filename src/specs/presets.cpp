#include "napkin/specs/presets.h"

#include <cctype>

#include <nlohmann/json.hpp>

#include "napkin/ground/error.h"
#include "napkin/ground/suggest.h"
#include "napkin/specs/hf_config.h"

namespace napkin::specs {

namespace {

// By name, then without regard to case ("Llama-3.1-8B" is llama-3.1-8b; preset names are lower
// case).
const ModelPresetText* find(std::string_view name) {
  for (const auto& p : model_preset_texts())
    if (p.name == name) return &p;
  std::string typed(name);
  for (char& c : typed) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& p : model_preset_texts())
    if (p.name == typed) return &p;
  return nullptr;
}

[[noreturn]] void unknown(std::string_view name) {
  std::string msg = "unknown model preset '" + std::string(name) + "'";
  if (const auto near = closest(name, model_preset_names())) msg += "; did you mean '" + *near + "'?";
  msg += " (napkin presets models)";
  throw InputError(msg);
}

nlohmann::json parse(const ModelPresetText& p) {
  // A preset that does not parse is a build defect, not user input: let it surface as internal.
  return parse_json_text(p.json, "preset " + std::string(p.name));
}

}  // namespace

std::vector<std::string> model_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : model_preset_texts()) names.emplace_back(p.name);
  return names;
}

bool is_model_preset(std::string_view name) { return find(name) != nullptr; }

std::optional<std::string> model_preset_for_repo(std::string_view repo) {
  auto same = [](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    return true;
  };
  for (const auto& p : model_preset_texts()) {
    const nlohmann::json j = parse(p);
    if (j.contains("repo") && j.at("repo").is_string() && same(j.at("repo").get<std::string>(), repo))
      return std::string(p.name);
  }
  return std::nullopt;
}

PresetSource model_preset_source(std::string_view name) {
  const ModelPresetText* p = find(name);
  if (p == nullptr) unknown(name);
  const nlohmann::json j = parse(*p);
  PresetSource s;
  s.repo = j.at("repo").get<std::string>();
  s.config_source = j.at("config_source").get<std::string>();
  const auto& t = j.at("total_params");
  if (!t.at("value").is_null()) s.total_params = t.at("value").get<std::int64_t>();
  s.total_source = t.at("source").get<std::string>();
  return s;
}

ModelSpec load_model_preset(std::string_view name) {
  const ModelPresetText* p = find(name);
  if (p == nullptr) unknown(name);
  const nlohmann::json j = parse(*p);
  ModelSpec m = from_hf_config(j.at("config"), "preset " + std::string(p->name));
  m.name = std::string(p->name);
  m.repo = j.at("repo").get<std::string>();
  return m;
}

}  // namespace napkin::specs
