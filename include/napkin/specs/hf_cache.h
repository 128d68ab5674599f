// Hugging Face repository ids resolved offline, from the local hub cache that huggingface_hub's
// downloads fill (https://huggingface.co/docs/huggingface_hub/guides/manage-cache):
//
//   <hub>/models--<org>--<name>/refs/<revision>     a file holding the commit hash
//   <hub>/models--<org>--<name>/snapshots/<hash>/   config.json, *.safetensors, index, *.gguf
//
// where <hub> is HF_HUB_CACHE, else HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub (huggingface_hub's constants.py). Nothing is ever downloaded.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace napkin::specs {

/// "org/name" or "org/name@revision" (a branch or tag under refs/, or a commit hash).
struct RepoRef {
  std::string repo;      // "meta-llama/Llama-3.1-8B"
  std::string revision;  // "main" unless given
};

/// The environment the cache location comes from (read once by the CLI; tests build their own).
struct HubEnv {
  std::string hf_hub_cache;    // HF_HUB_CACHE
  std::string hf_home;         // HF_HOME
  std::string xdg_cache_home;  // XDG_CACHE_HOME
  std::string home;            // HOME
  static HubEnv from_environment();
};

/// The repository id `arg` names, when it has that form: two non-empty parts of letters, digits,
/// '-', '_' and '.' joined by one '/', neither starting with '.', optionally "@revision". Paths
/// (a leading '/' or '.', more than one '/', a .json/.gguf/.safetensors name) are not ids.
std::optional<RepoRef> parse_repo_id(std::string_view arg);

/// The hub directory and the variable that chose it ("HF_HUB_CACHE", "HF_HOME",
/// "XDG_CACHE_HOME" or "HOME"); nullopt when none is set.
struct HubDir {
  std::filesystem::path path;
  std::string from;
};
std::optional<HubDir> hub_cache_dir(const HubEnv& env);

/// Where a repository's snapshot is, or why it is not there.
struct HubLookup {
  std::optional<std::filesystem::path> snapshot;  // the snapshot directory, when found
  std::string looked;                             // what was looked for, for the message
};

/// Looks the repository up: refs/<revision> gives the commit hash (or the revision is itself a
/// snapshot's hash), snapshots/<hash>/ must be a directory. Malformed refs and non-directory
/// snapshots are InputError naming the file; a missing repository is a HubLookup without a
/// snapshot.
HubLookup find_in_hub_cache(const RepoRef& ref, const HubEnv& env);

}  // namespace napkin::specs
