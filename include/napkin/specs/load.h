// Loading what napkin's commands take as MODEL and --hw, for programs that use napkin as a
// library: the same resolution the CLI does, with nothing printed. A model argument is
//   - a bundled preset name ("llama-3.1-8b"; napkin presets models, model_preset_names()),
//   - a Hugging Face config.json or napkin model JSON (docs/model-spec.md),
//   - a model directory (config.json and/or checkpoint files),
//   - a checkpoint file (.safetensors, a sharded *.safetensors.index.json, .gguf),
//   - a Hugging Face repository id ("org/name[@revision]") found in the local hub cache
//     (hf_cache.h; never the network), else the bundled preset of that repository.
// A hardware argument is a preset name or a hardware JSON file: load_hardware (hardware.h).
//
// Errors are napkin::InputError (napkin/ground/error.h): one line naming the argument or the file and
// what was expected. What the caller should tell the user but is not an error (a config read by
// analogy with another family, a layout no checkpoint total has confirmed) is data in the
// returned spec: model_warnings() lists it; ModelSpec::notes holds what the reader assumed.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/model/model_spec.h"
#include "napkin/specs/hardware.h"

namespace napkin::specs {

/// What a model argument names: an architecture spec, checkpoint weights, or both (a directory
/// holding config.json and safetensors shards; a checkpoint file with config.json beside it).
struct ModelFiles {
  std::optional<ModelSpec> spec;
  std::optional<std::filesystem::path> checkpoint;
  /// A config.json beside a checkpoint whose family napkin does not count ("model_type 'foo'"):
  /// then spec is empty, the weights count from the checkpoint's headers alone, and whatever
  /// needs the architecture (KV cache, activations, FLOPs) is refused naming it.
  std::string unknown_family;
};

/// Resolves a model argument. Files win over preset names; an unknown name gets the closest
/// preset ("did you mean ...?"). `as` (the CLI's --as FAMILY): read a config with an unknown
/// model_type by analogy with that family. Throws InputError naming the argument or the file.
ModelFiles resolve_model_files(std::string_view arg, std::string_view as = {});

/// Resolves a model argument to its architecture: the spec of resolve_model_files, or, for a
/// GGUF file alone, the architecture its metadata states. Safetensors weights without a
/// config.json beside them are InputError (read_checkpoint in checkpoint.h reads them alone).
ModelSpec load_model(std::string_view arg, std::string_view as = {});

/// A config.json or napkin model JSON given as text (the CLI's `-`, read from stdin): read as
/// resolve_model_files reads such a file; `name` stands for the file in messages and the spec's
/// name. Throws InputError on malformed JSON or a config napkin refuses.
ModelSpec model_from_json_text(std::string_view text, std::string_view name, std::string_view as = {});

/// The warnings a spec carries, one line each (ModelSpec::analogy, then ModelSpec::unverified;
/// none for a preset of a verified family). The CLI prints them as `napkin: warning:` lines.
std::vector<std::string> model_warnings(const ModelSpec& m);

/// True when `arg` names a checkpoint file by its extension (.safetensors, .gguf,
/// *.safetensors.index.json) rather than a config.
bool is_checkpoint_path(std::string_view arg);

}  // namespace napkin::specs
