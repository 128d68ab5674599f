#include "napkin/specs/hf_cache.h"

#include <cstdlib>

#include "napkin/ground/error.h"
#include "napkin/specs/files.h"

namespace napkin::specs {

namespace fs = std::filesystem;

namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// One part of a repository id (huggingface_hub's validate_repo_id: letters, digits, '-', '_',
// '.'; no leading '.' or '-', no "--" or ".." inside, at most 96 characters).
bool valid_part(std::string_view s) {
  if (s.empty() || s.size() > 96 || s.front() == '.' || s.front() == '-') return false;
  if (s.find("--") != std::string_view::npos || s.find("..") != std::string_view::npos) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
          c == '.'))
      return false;
  return true;
}

// A revision: a branch, tag or commit hash (letters, digits, '-', '_', '.', '/' for "refs/pr/1"
// style names; no "..", no leading '/').
bool valid_revision(std::string_view s) {
  if (s.empty() || s.size() > 255 || s.front() == '/' || s.find("..") != std::string_view::npos) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
          c == '.' || c == '/'))
      return false;
  return true;
}

bool is_commit_hash(std::string_view s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

HubEnv HubEnv::from_environment() {
  return HubEnv{env_or_empty("HF_HUB_CACHE"), env_or_empty("HF_HOME"), env_or_empty("XDG_CACHE_HOME"),
                env_or_empty("HOME")};
}

std::optional<RepoRef> parse_repo_id(std::string_view arg) {
  RepoRef r;
  std::string_view id = arg;
  if (const auto at = arg.find('@'); at != std::string_view::npos) {
    id = arg.substr(0, at);
    r.revision = std::string(arg.substr(at + 1));
    if (!valid_revision(r.revision)) return std::nullopt;
  } else {
    r.revision = "main";
  }
  const auto slash = id.find('/');
  if (slash == std::string_view::npos || id.find('/', slash + 1) != std::string_view::npos) return std::nullopt;
  if (ends_with(id, ".json") || ends_with(id, ".gguf") || ends_with(id, ".safetensors")) return std::nullopt;
  if (!valid_part(id.substr(0, slash)) || !valid_part(id.substr(slash + 1))) return std::nullopt;
  r.repo = std::string(id);
  return r;
}

std::optional<HubDir> hub_cache_dir(const HubEnv& env) {
  if (!env.hf_hub_cache.empty()) return HubDir{fs::path(env.hf_hub_cache), "HF_HUB_CACHE"};
  if (!env.hf_home.empty()) return HubDir{fs::path(env.hf_home) / "hub", "HF_HOME"};
  if (!env.xdg_cache_home.empty()) return HubDir{fs::path(env.xdg_cache_home) / "huggingface" / "hub", "XDG_CACHE_HOME"};
  if (!env.home.empty()) return HubDir{fs::path(env.home) / ".cache" / "huggingface" / "hub", "HOME"};
  return std::nullopt;
}

HubLookup find_in_hub_cache(const RepoRef& ref, const HubEnv& env) {
  HubLookup out;
  const std::optional<HubDir> hub = hub_cache_dir(env);
  if (!hub) {
    out.looked = "no Hugging Face cache: none of HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME, HOME is set";
    return out;
  }
  std::string folder = "models--" + ref.repo;
  folder.replace(folder.find('/'), 1, "--");
  const fs::path repo_dir = hub->path / folder;
  const fs::path ref_file = repo_dir / "refs" / ref.revision;
  out.looked = (repo_dir / "refs" / ref.revision).string() + " (cache from " + hub->from + ")";

  std::string hash;
  const FileStatus ref_status = file_status(ref_file);
  if (ref_status.kind == FileKind::regular) {
    // refs/<revision> holds the commit hash, as huggingface_hub writes it (no newline).
    hash = read_json_text(ref_file, ref_file.string(), "a revision file holding a commit hash", {}, 4096);
    while (!hash.empty() && (hash.back() == '\n' || hash.back() == '\r' || hash.back() == ' ')) hash.pop_back();
    if (!is_commit_hash(hash))
      throw InputError(ref_file.string() + ": '" + hash.substr(0, 64) +
                       "': expected a 40-character commit hash (a Hugging Face cache ref)");
  } else if (ref_status.kind != FileKind::missing) {
    throw InputError(ref_file.string() + ": " + describe(ref_status) + "; expected a Hugging Face cache ref file");
  } else if (is_commit_hash(ref.revision)) {
    hash = ref.revision;  // a commit hash given as the revision: its snapshot directly
    out.looked = (repo_dir / "snapshots" / hash).string() + " (cache from " + hub->from + ")";
  } else {
    return out;
  }
  const fs::path snapshot = repo_dir / "snapshots" / hash;
  const FileStatus snap_status = file_status(snapshot);
  if (snap_status.kind == FileKind::missing) {
    out.looked = snapshot.string() + " (named by " + ref_file.string() + ")";
    return out;
  }
  if (snap_status.kind != FileKind::directory)
    throw InputError(snapshot.string() + ": " + describe(snap_status) + "; expected a Hugging Face cache snapshot directory");
  out.snapshot = snapshot;
  return out;
}

}  // namespace napkin::specs
