// napkin's own model JSON: every ModelSpec field under its own name, for architectures that
// have no config.json or that a user writes by hand. Format: docs/model-spec.md; schema:
// docs/model.schema.json. A file is napkin model JSON when it has "napkin_model": 1.
#pragma once

#include <nlohmann/json.hpp>

#include <string_view>

#include "napkin/model/model_spec.h"

namespace napkin::specs {

bool is_napkin_model_json(const nlohmann::json& j);

/// Reads napkin model JSON. Errors name the file and the JSON pointer:
///   tiny.json: /layers: missing; expected a positive integer (number of layers L)
ModelSpec from_napkin_json(const nlohmann::json& j, std::string_view file);

/// The spec as napkin model JSON (every field written; notes are not).
nlohmann::json to_napkin_json(const ModelSpec& m);

}  // namespace napkin::specs
