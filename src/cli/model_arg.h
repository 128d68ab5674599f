// MODEL on the command line: a bundled preset name, a Hugging Face config.json, a model
// directory holding config.json, or napkin model JSON. Shared by every command that takes MODEL.
#pragma once

#include <string>

#include "napkin/specs/model.h"

namespace napkin::cli {

/// Resolves MODEL to a spec. Files win over preset names; an unknown name gets the closest
/// preset ("did you mean ...?"). Throws InputError naming the argument or the file.
specs::ModelSpec load_model(const std::string& arg);

/// True when `arg` names a checkpoint file the header readers handle (.safetensors, .gguf,
/// *.safetensors.index.json) rather than a config.
bool is_checkpoint_path(const std::string& arg);

}  // namespace napkin::cli
