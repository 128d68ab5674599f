// rope_scaling (or transformers v5's rope_parameters) and model_max_length, as config.json spells
// them: read for every family (hf_config.cpp) and by napkin model JSON. Internal to the specs layer.
#pragma once

#include "json_fields.h"
#include "napkin/model/model_spec.h"

namespace napkin::specs {

/// The RoPE scaling type, factor and original context, and model_max_length, of config `f`.
void read_rope_scaling(const JsonFields& f, ModelSpec& m);

}  // namespace napkin::specs
