// The config.json of a bundled model preset, to modify field by field in the config-reader tests.
#pragma once

#include <string_view>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"

namespace napkin_test {

inline nlohmann::json preset_config(std::string_view name) {
  for (const auto& p : napkin::specs::model_preset_texts())
    if (p.name == name) return napkin::specs::parse_json_text(p.json, "preset").at("config");
  FAIL("preset missing: " << name);
  return {};
}

/// llama-3.1-8b's config (8,030,261,248 parameters).
inline nlohmann::json llama_config() { return preset_config("llama-3.1-8b"); }

}  // namespace napkin_test
