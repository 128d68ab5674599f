// Model arguments resolved the way every command resolves MODEL (napkin/specs/load.h). Nothing
// here prints: warnings stay in the spec (ModelSpec::analogy, ::unverified) for the caller.
#include "napkin/specs/load.h"

#include "napkin/ground/error.h"
#include "napkin/specs/checkpoint.h"
#include "napkin/specs/files.h"
#include "napkin/specs/gguf_model.h"
#include "napkin/specs/hf_cache.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/napkin_json.h"
#include "napkin/specs/presets.h"

namespace napkin::specs {

namespace {

namespace fs = std::filesystem;

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

ModelSpec spec_from_json(const nlohmann::json& j, const std::string& path, std::string_view as) {
  try {
    if (is_napkin_model_json(j)) {
      if (!as.empty())
        throw InputError("--as", std::string(as), "a config.json with an unknown model_type (" + path +
                                                      " is napkin model JSON, which states its layout)");
      return from_napkin_json(j, path);
    }
    ModelSpec m = from_hf_config(j, path, as);
    m.name = path;
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": " + e.what());
  }
}

constexpr std::string_view kExpected =
    "expected a preset name (napkin presets models), a config.json, a model directory or napkin model JSON";

// config.json in `dir`, when there is one. One that is there but is not a file (a FIFO, a link
// loop, a link whose target is gone: a Hugging Face cache blob never downloaded) is refused rather
// than passed over.
// `unknown` (when given, i.e. weights sit beside the config) receives the config's family when
// napkin counts none, instead of the refusal: the weights alone can still be counted.
std::optional<ModelSpec> config_in(const fs::path& dir, std::string_view as, std::string* unknown = nullptr) {
  const fs::path config = dir / "config.json";
  const FileStatus status = file_status(config);
  if (status.kind == FileKind::missing) return std::nullopt;
  if (status.kind != FileKind::regular)
    throw InputError(config.string() + ": " + describe(status) + "; expected a config JSON");
  const nlohmann::json j = read_json_file(config.string());
  if (unknown != nullptr && as.empty())
    if (const std::optional<std::string> u = unknown_family(j)) {
      *unknown = config.string() + ": " + *u;
      return std::nullopt;
    }
  return spec_from_json(j, config.string(), as);
}

}  // namespace

ModelSpec model_from_json_text(std::string_view text, std::string_view name, std::string_view as) {
  const std::string what(name);
  return spec_from_json(parse_json_text(text, what), what, as);
}

bool is_checkpoint_path(std::string_view arg) {
  return ends_with(arg, ".safetensors") || ends_with(arg, ".gguf") || ends_with(arg, ".safetensors.index.json");
}

ModelFiles resolve_model_files(std::string_view arg_view, std::string_view as) {
  const std::string arg(arg_view);
  const fs::path p(arg);
  ModelFiles f;
  // stat first: what is there decides how it is read, and nothing but a regular file is opened.
  const FileStatus status = file_status(p);
  if (status.kind == FileKind::directory) {
    f.checkpoint = find_checkpoint(p);
    f.spec = config_in(p, as, f.checkpoint ? &f.unknown_family : nullptr);
    if (!f.spec && !f.checkpoint)
      throw InputError(arg + ": directory has neither config.json nor checkpoint files; expected a model "
                             "directory (config.json, *.safetensors, *.safetensors.index.json or *.gguf)");
    if (f.spec) f.spec->name = arg;
    return f;
  }
  if (status.kind == FileKind::regular) {
    // A safetensors or GGUF file under another name is read as the checkpoint it is.
    const std::string_view sniffed = is_checkpoint_path(arg) ? "" : sniff_weights_file(p);
    if (is_checkpoint_path(arg) || sniffed == "a safetensors weights file" || sniffed == "a GGUF weights file") {
      f.checkpoint = p;
      f.spec = config_in(p.has_parent_path() ? p.parent_path() : fs::path("."), as, &f.unknown_family);
      return f;
    }
    const nlohmann::json j = read_json_file(arg);
    if (j.is_object() && j.contains("weight_map")) {  // an index under another name
      f.checkpoint = p;
      f.spec = config_in(p.has_parent_path() ? p.parent_path() : fs::path("."), as);
      return f;
    }
    f.spec = spec_from_json(j, arg, as);
    return f;
  }
  if (status.kind != FileKind::missing)  // a FIFO, a device, a socket, a link loop, a dangling link
    throw InputError(arg + ": " + describe(status) + "; " + std::string(kExpected));
  if (!as.empty() && is_model_preset(arg))
    throw InputError("--as", std::string(as), "a config.json with an unknown model_type (" + arg +
                                                  " is a preset of a known family)");
  if (is_model_preset(arg)) {
    f.spec = load_model_preset(arg);
    return f;
  }
  if (const std::optional<RepoRef> ref = parse_repo_id(arg)) {
    // A Hugging Face repository id (or a spelling of one: napkin/specs/hf_cache.h): its snapshot
    // in the local hub cache, else the preset of that repository. Never the network.
    const HubLookup found = find_in_hub_cache(*ref, HubEnv::from_environment());
    if (found.snapshot) {
      ModelFiles snap = resolve_model_files(found.snapshot->string(), as);
      if (snap.spec) {
        snap.spec->name = arg;
        snap.spec->repo = ref->repo;
      }
      return snap;
    }
    if (!ref->revision_given) {  // a preset is the repository's main revision, never another
      if (const std::optional<std::string> preset = model_preset_for_repo(ref->repo)) {
        if (!as.empty())
          throw InputError("--as", std::string(as), "a config.json with an unknown model_type (" + arg +
                                                        " is the preset " + *preset + ", a known family)");
        f.spec = load_model_preset(*preset);
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
  f.spec = load_model_preset(arg);  // unknown name: "did you mean ...?"
  return f;
}

ModelSpec load_model(std::string_view arg, std::string_view as) {
  ModelFiles f = resolve_model_files(arg, as);
  // A GGUF states its architecture in its metadata: read alone, checked against its tensors.
  if (!f.spec && f.checkpoint && (ends_with(f.checkpoint->string(), ".gguf") ||
                                  sniff_weights_file(*f.checkpoint) == "a GGUF weights file")) {
    if (!as.empty())
      throw InputError("--as", std::string(as), "a config.json with an unknown model_type (" + std::string(arg) +
                                                    " is a GGUF, whose metadata names its architecture)");
    ModelSpec m = model_from_gguf(read_gguf(*f.checkpoint), *f.checkpoint);
    m.name = std::string(arg);
    return m;
  }
  if (!f.spec && !f.unknown_family.empty()) {
    // The weights are exact from the headers; what needs the architecture is refused by name.
    const Checkpoint ck = read_checkpoint(*f.checkpoint);
    throw InputError(f.unknown_family + " is not a family napkin counts, so its KV cache, activations and FLOPs "
                     "cannot be sized (its weights, from the safetensors headers: " +
                     std::to_string(ck.total_elements) + " params in " + std::to_string(ck.total_bytes) +
                     " B; napkin params " + std::string(arg) +
                     "); expected a model of a family napkin counts (docs/adding-a-family.md adds one)");
  }
  if (!f.spec)
    throw InputError(std::string(arg) +
                     ": safetensors weights without a config.json beside them; expected a preset, a "
                     "config.json, napkin model JSON or a GGUF file (napkin params reads the weights alone)");
  return std::move(*f.spec);
}

std::vector<std::string> model_warnings(const ModelSpec& m) {
  std::vector<std::string> w;
  for (const std::string* what : {&m.analogy, &m.unverified})
    if (!what->empty()) w.push_back(*what);
  return w;
}

}  // namespace napkin::specs
