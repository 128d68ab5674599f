// MODEL on the command line: a bundled preset name, a Hugging Face config.json, a model
// directory (config.json and/or checkpoint files), a checkpoint file (.safetensors, a sharded
// *.safetensors.index.json, .gguf) or napkin model JSON. Shared by every command that takes MODEL.
// The resolution is the library's (napkin/specs/load.h); this layer prints its warnings.
#pragma once

#include <string>
#include <string_view>

#include "napkin/specs/load.h"

namespace napkin::cli {

/// What MODEL names: an architecture spec, checkpoint weights, or both (napkin/specs/load.h).
using ModelFiles = specs::ModelFiles;

/// Resolves MODEL. Files win over preset names; an unknown name gets the closest preset
/// ("did you mean ...?"). Throws InputError naming the argument or the file.
/// `as` (--as FAMILY): read a config with an unknown model_type by analogy with that family.
ModelFiles resolve_model_files(const std::string& arg, std::string_view as = {});

/// Resolves MODEL to a spec (commands that need the architecture). A checkpoint without a
/// config.json beside it is InputError.
specs::ModelSpec load_model(const std::string& arg, std::string_view as = {}, bool text_only = false);
/// --text-only without MODEL (a made-up decoder, --params): InputError.
void refuse_text_only_without_model(bool text_only, const std::string& model);
/// --text-only: drops the tower of `m` (InputError when it has none).
void apply_text_only(specs::ModelSpec& m, bool text_only, const std::string& arg);

/// Prints ModelSpec::analogy and ModelSpec::unverified as `napkin: warning:` lines (nothing when
/// they are empty). load_model calls it; commands that resolve MODEL themselves call it once.
void warn_analogy(const specs::ModelSpec& m);

/// True when `arg` names a checkpoint file the header readers handle (.safetensors, .gguf,
/// *.safetensors.index.json) rather than a config.
bool is_checkpoint_path(const std::string& arg);

}  // namespace napkin::cli
