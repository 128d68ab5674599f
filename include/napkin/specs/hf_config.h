// Hugging Face config.json → ModelSpec, for the families people run today. Each family's field
// names and defaults follow its transformers configuration class (configuration_<family>.py) and
// the tensors its modeling file creates. Errors are InputError with the file and JSON pointer:
//   config.json: /num_hidden_layers: missing; expected a positive integer (number of layers)
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "napkin/model/model_spec.h"

namespace napkin::specs {

/// Reads a parsed config.json. `file` names it in error messages. A config whose language
/// model sits in `text_config` (vision-language models) is read from there. The family comes
/// from model_type (or, without one, architectures[0]); an unknown model_type is InputError
/// naming the families napkin counts, unless `as` names one of them: then the config is read by
/// analogy with it (ModelSpec::analogy says so), except that a config with mixture-of-experts,
/// state-space or encoder-decoder keys the family does not read is still refused.
ModelSpec from_hf_config(const nlohmann::json& j, std::string_view file, std::string_view as = {});

/// When from_hf_config would refuse `j` because napkin counts no family of it (neither its
/// model_type nor its architectures[0] class): what it is ("model_type 'foo'"); else nullopt.
std::optional<std::string> unknown_family(const nlohmann::json& j);

/// The families napkin counts, comma-separated ("llama, mixtral, ..."), as --as takes them.
std::string family_names();

/// Every model_type napkin reads, comma-separated, in registry order: exactly the set
/// from_hf_config accepts (the error for an unknown one lists it whole).
std::string model_type_names();

/// Reads and parses `path` (InputError when it cannot be read or is not JSON).
ModelSpec read_hf_config(const std::string& path);

/// Parses JSON text; a parse error is InputError "<what>: not valid JSON (byte N)".
nlohmann::json parse_json_text(std::string_view text, const std::string& what);

/// Parses a JSON file, turning I/O and parse errors into InputError naming the file. The file
/// is read once and bounded (napkin/specs/files.h, read_json_text): a FIFO, a device or a symlink
/// loop is named as what it is, a weights file as weights ("pytorch_model.bin is a PyTorch
/// weights file, not a config JSON; give the model directory or its config.json"), and a file
/// above 64 MiB is refused with its size. `expected` and `hint` word those messages.
nlohmann::json read_json_file(const std::string& path, std::string_view expected = "a config JSON",
                              std::string_view hint = "give the model directory or its config.json");

}  // namespace napkin::specs
