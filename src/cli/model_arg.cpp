#include "model_arg.h"

#include "output.h"

#include <cstdio>

#include "napkin/error.h"
#include "napkin/sanitize.h"
#include "napkin/specs/checkpoint.h"
#include "napkin/specs/files.h"
#include "napkin/specs/gguf_model.h"
#include "napkin/specs/hf_cache.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/napkin_json.h"
#include "napkin/specs/presets.h"

namespace napkin::cli {

namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

specs::ModelSpec spec_from_json(const nlohmann::json& j, const std::string& path, std::string_view as) {
  try {
    if (specs::is_napkin_model_json(j)) {
      if (!as.empty())
        throw InputError("--as", std::string(as), "a config.json with an unknown model_type (" + path +
                                                      " is napkin model JSON, which states its layout)");
      return specs::from_napkin_json(j, path);
    }
    specs::ModelSpec m = specs::from_hf_config(j, path, as);
    m.name = path;
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": " + e.what());
  }
}

constexpr std::string_view kExpected =
    "expected a preset name (napkin presets models), a config.json, a model directory or napkin model JSON";

// config.json in `dir`, when there is one. One that is there but is not a file (a FIFO, a link
// loop) is refused rather than passed over.
std::optional<specs::ModelSpec> config_in(const fs::path& dir, std::string_view as) {
  const fs::path config = dir / "config.json";
  const specs::FileStatus status = specs::file_status(config);
  if (status.kind == specs::FileKind::missing) return std::nullopt;
  if (status.kind != specs::FileKind::regular)
    throw InputError(config.string() + ": " + specs::describe(status) + "; expected a config JSON");
  return spec_from_json(specs::read_json_file(config.string()), config.string(), as);
}

}  // namespace

bool is_checkpoint_path(const std::string& arg) {
  return ends_with(arg, ".safetensors") || ends_with(arg, ".gguf") || ends_with(arg, ".safetensors.index.json");
}

ModelFiles resolve_model_files(const std::string& arg, std::string_view as) {
  const fs::path p(arg);
  ModelFiles f;
  // stat first: what is there decides how it is read, and nothing but a regular file is opened.
  const specs::FileStatus status = specs::file_status(p);
  if (status.kind == specs::FileKind::directory) {
    f.spec = config_in(p, as);
    f.checkpoint = specs::find_checkpoint(p);
    if (!f.spec && !f.checkpoint)
      throw InputError(arg + ": directory has neither config.json nor checkpoint files; expected a model "
                             "directory (config.json, *.safetensors, *.safetensors.index.json or *.gguf)");
    if (f.spec) f.spec->name = arg;
    return f;
  }
  if (status.kind == specs::FileKind::regular) {
    // A safetensors or GGUF file under another name is read as the checkpoint it is.
    const std::string_view sniffed = is_checkpoint_path(arg) ? "" : specs::sniff_weights_file(p);
    if (is_checkpoint_path(arg) || sniffed == "a safetensors weights file" || sniffed == "a GGUF weights file") {
      f.checkpoint = p;
      f.spec = config_in(p.has_parent_path() ? p.parent_path() : fs::path("."), as);
      return f;
    }
    const nlohmann::json j = specs::read_json_file(arg);
    if (j.is_object() && j.contains("weight_map")) {  // an index under another name
      f.checkpoint = p;
      f.spec = config_in(p.has_parent_path() ? p.parent_path() : fs::path("."), as);
      return f;
    }
    f.spec = spec_from_json(j, arg, as);
    return f;
  }
  if (status.kind != specs::FileKind::missing)  // a FIFO, a device, a socket, a link loop
    throw InputError(arg + ": " + specs::describe(status) + "; " + std::string(kExpected));
  if (!as.empty() && specs::is_model_preset(arg))
    throw InputError("--as", std::string(as), "a config.json with an unknown model_type (" + arg +
                                                  " is a preset of a known family)");
  if (specs::is_model_preset(arg)) {
    f.spec = specs::load_model_preset(arg);
    return f;
  }
  if (const std::optional<specs::RepoRef> ref = specs::parse_repo_id(arg)) {
    // A Hugging Face repository id: its snapshot in the local hub cache, else the preset of that
    // repository. Never the network.
    const specs::HubLookup found = specs::find_in_hub_cache(*ref, specs::HubEnv::from_environment());
    if (found.snapshot) {
      ModelFiles snap = resolve_model_files(found.snapshot->string(), as);
      if (snap.spec) {
        snap.spec->name = arg;
        snap.spec->repo = ref->repo;
      }
      return snap;
    }
    if (ref->revision == "main" && arg.find('@') == std::string::npos) {
      if (const std::optional<std::string> preset = specs::model_preset_for_repo(ref->repo)) {
        if (!as.empty())
          throw InputError("--as", std::string(as), "a config.json with an unknown model_type (" + arg +
                                                        " is the preset " + *preset + ", a known family)");
        f.spec = specs::load_model_preset(*preset);
        f.spec->notes.push_back(arg + " is not in the Hugging Face cache (" + found.looked + "): the bundled preset " +
                                *preset + " of that repository");
        return f;
      }
    }
    throw InputError(arg + ": no such file or directory, and not in the Hugging Face cache (looked for " +
                     found.looked + "); expected a path, a preset name (napkin presets models) or a repository "
                     "id downloaded with huggingface_hub");
  }
  if (arg.find('/') != std::string::npos || ends_with(arg, ".json") || is_checkpoint_path(arg))
    throw InputError(arg + ": no such file or directory; " + std::string(kExpected));
  f.spec = specs::load_model_preset(arg);  // unknown name: "did you mean ...?"
  return f;
}

void warn_analogy(const specs::ModelSpec& m) {
  for (const std::string* what : {&m.analogy, &m.unverified}) {
    if (what->empty() || !first_warning(*what)) continue;
    // model_type comes from the file: sanitized like every echo (one line, no terminal controls).
    const std::string line = "napkin: warning: " + sanitize_message(*what) + "\n";
    std::fflush(stdout);
    (void)std::fwrite(line.data(), 1, line.size(), stderr);  // a failed stderr write is not an error
  }
}

specs::ModelSpec load_model(const std::string& arg, std::string_view as) {
  ModelFiles f = resolve_model_files(arg, as);
  if (f.spec) warn_analogy(*f.spec);
  // A GGUF states its architecture in its metadata: read alone, checked against its tensors.
  if (!f.spec && f.checkpoint && (ends_with(f.checkpoint->string(), ".gguf") ||
                                  specs::sniff_weights_file(*f.checkpoint) == "a GGUF weights file")) {
    if (!as.empty())
      throw InputError("--as", std::string(as), "a config.json with an unknown model_type (" + arg +
                                                    " is a GGUF, whose metadata names its architecture)");
    specs::ModelSpec m = specs::model_from_gguf(specs::read_gguf(*f.checkpoint), *f.checkpoint);
    m.name = arg;
    return m;
  }
  if (!f.spec)
    throw InputError(arg + ": safetensors weights without a config.json beside them; expected a preset, a "
                           "config.json, napkin model JSON or a GGUF file (napkin params reads the weights alone)");
  return std::move(*f.spec);
}

}  // namespace napkin::cli
