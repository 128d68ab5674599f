#include "model_arg.h"

#include <filesystem>

#include "napkin/error.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/napkin_json.h"
#include "napkin/specs/presets.h"

namespace napkin::cli {

namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

[[noreturn]] void checkpoint_not_wired(const std::string& arg) {
  // Hook for the checkpoint header readers (specs/checkpoint.h): once `params` reads
  // safetensors and GGUF headers, this path returns their tensor inventory instead.
  throw InputError(arg + ": checkpoint files are not read by this command yet; expected a preset, a config.json, "
                         "a model directory with config.json, or napkin model JSON");
}

specs::ModelSpec read_model_json(const std::string& path) {
  const nlohmann::json j = specs::read_json_file(path);
  try {
    if (specs::is_napkin_model_json(j)) return specs::from_napkin_json(j, path);
    if (j.is_object() && j.contains("weight_map")) checkpoint_not_wired(path);
    specs::ModelSpec m = specs::from_hf_config(j, path);
    m.name = path;
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": " + e.what());
  }
}

}  // namespace

bool is_checkpoint_path(const std::string& arg) {
  return ends_with(arg, ".safetensors") || ends_with(arg, ".gguf") || ends_with(arg, ".safetensors.index.json");
}

specs::ModelSpec load_model(const std::string& arg) {
  std::error_code ec;
  const fs::path p(arg);
  if (fs::is_directory(p, ec)) {
    const fs::path config = p / "config.json";
    if (!fs::is_regular_file(config, ec))
      throw InputError(arg + ": directory has no config.json; expected a model directory with config.json");
    specs::ModelSpec m = read_model_json(config.string());
    m.name = arg;
    return m;
  }
  if (fs::is_regular_file(p, ec)) {
    if (is_checkpoint_path(arg)) checkpoint_not_wired(arg);
    return read_model_json(arg);
  }
  if (specs::is_model_preset(arg)) return specs::load_model_preset(arg);
  if (arg.find('/') != std::string::npos || ends_with(arg, ".json") || is_checkpoint_path(arg))
    throw InputError(arg + ": no such file or directory; expected a preset name (napkin presets models), a "
                           "config.json, a model directory or napkin model JSON");
  return specs::load_model_preset(arg);  // unknown name: "did you mean ...?"
}

}  // namespace napkin::cli
