// Bundled model presets: data/presets/models/<name>.json, compiled into the binary by
// cmake/embed_presets.cmake. Each file holds the real config.json of a model (as `config`), the
// Hugging Face repository it belongs to, where the stored copy came from, and the checkpoint's
// total parameter count with its source where one was verified.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/model/model_spec.h"

namespace napkin::specs {

struct ModelPresetText {
  std::string_view name;
  std::string_view json;
};

/// Every bundled preset, sorted by name (generated source).
const std::vector<ModelPresetText>& model_preset_texts();
/// The architecture tables, data/architectures/*.json (docs/adding-a-family.md), compiled in the
/// same way.
const std::vector<ModelPresetText>& architecture_texts();
/// The hardware presets, data/presets/hardware/*.json, compiled in the same way.
const std::vector<ModelPresetText>& hardware_preset_texts();
/// The serving efficiency profiles, data/presets/efficiency/*.json (specs/efficiency.h).
const std::vector<ModelPresetText>& efficiency_profile_texts();
/// The system presets, data/presets/systems/*.json (specs/systems.h).
const std::vector<ModelPresetText>& system_preset_texts();

std::vector<std::string> model_preset_names();
bool is_model_preset(std::string_view name);
/// The preset whose Hugging Face repository is `repo` ("meta-llama/Llama-3.1-8B"; compared
/// without regard to case, as the Hub does), if one is bundled.
std::optional<std::string> model_preset_for_repo(std::string_view repo);

/// Provenance of a preset.
struct PresetSource {
  std::string repo;
  std::string config_source;                // where the config.json copy came from
  std::optional<std::int64_t> total_params;  // the checkpoint's own total, when verified
  std::string total_source;                 // where that total comes from, or why there is none
};
PresetSource model_preset_source(std::string_view name);

/// The preset's ModelSpec (its config read by from_hf_config; name and repo set). An unknown
/// name is InputError: "unknown model preset 'llama-3-8b'; did you mean 'llama-3.1-8b'?
/// (napkin presets models)".
ModelSpec load_model_preset(std::string_view name);

}  // namespace napkin::specs
