// The config.json of a bundled model preset, to modify field by field in the config-reader tests.
#pragma once

#include <string_view>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "napkin/model/params.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"

namespace napkin_test {

inline nlohmann::json preset_config(std::string_view name) {
  for (const auto& p : napkin::specs::model_preset_texts())
    if (p.name == name) return napkin::specs::parse_json_text(p.json, "preset").at("config");
  FAIL("preset missing: " << name);
  return {};
}

/// A spec read from an architecture table, as its fields alone describe it: for tests that change
/// a field (layers, vocab, kv_heads) and count or size the changed model. The tensor table and the
/// per-layer lists the table filled from the config would otherwise keep the model as read.
/// Requires a table whose fields say all its tensors do and a uniform layer list.
inline napkin::specs::ModelSpec spec_fields_only(napkin::specs::ModelSpec m) {
  REQUIRE(napkin::formulas_reproduce_tensors(m));
  m.tensors = nullptr;
  for (auto k : m.layer_kinds) REQUIRE(k == m.layer_kinds.front());
  for (auto k : m.layer_ffns) REQUIRE(k == m.layer_ffns.front());
  for (auto k : m.layer_mixers) REQUIRE(k == m.layer_mixers.front());
  REQUIRE((m.layer_kinds.empty() || m.layer_kinds.front() == napkin::specs::LayerAttention::full));
  REQUIRE((m.layer_ffns.empty() || m.layer_ffns.front() == (m.moe.is_moe() ? napkin::specs::LayerFfn::moe : napkin::specs::LayerFfn::dense)));
  REQUIRE((m.layer_mixers.empty() || m.layer_mixers.front() == napkin::specs::LayerMixer::attention));
  m.layer_kinds.clear();
  m.layer_ffns.clear();
  m.layer_mixers.clear();
  return m;
}

/// llama-3.1-8b's config (8,030,261,248 parameters).
inline nlohmann::json llama_config() { return preset_config("llama-3.1-8b"); }

}  // namespace napkin_test
