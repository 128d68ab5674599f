#include "napkin/specs/hf_cache.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

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

// A name napkin reads as a file's: "org/config.json" is a path that is not there, not an id.
bool file_like(std::string_view s) {
  return ends_with(s, ".json") || ends_with(s, ".gguf") || ends_with(s, ".safetensors");
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

bool is_hex(std::string_view s) {
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  return !s.empty();
}

bool is_commit_hash(std::string_view s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// `s` without `prefix`, compared without regard to ASCII case; nullopt when it does not start so.
std::optional<std::string_view> strip_prefix_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size() || lower(s.substr(0, prefix.size())) != prefix) return std::nullopt;
  return s.substr(prefix.size());
}

// The path after a Hugging Face host ("https://huggingface.co/", "hf.co/", ...); nullopt when
// `arg` does not start with one.
std::optional<std::string_view> hub_url_path(std::string_view arg) {
  std::string_view rest = arg;
  for (std::string_view scheme : {"https://", "http://"})
    if (const auto r = strip_prefix_nocase(rest, scheme)) {
      rest = *r;
      break;
    }
  for (std::string_view host : {"huggingface.co/", "www.huggingface.co/", "hf.co/"})
    if (const auto r = strip_prefix_nocase(rest, host)) return r;
  return std::nullopt;
}

std::vector<std::string_view> split_slashes(std::string_view s) {
  std::vector<std::string_view> parts;
  std::size_t begin = 0;
  while (true) {
    const std::size_t slash = s.find('/', begin);
    parts.push_back(s.substr(begin, slash == std::string_view::npos ? std::string_view::npos : slash - begin));
    if (slash == std::string_view::npos) return parts;
    begin = slash + 1;
  }
}

// "<arg>: <problem>; expected <what a URL names>", for a Hugging Face URL napkin does not read.
[[noreturn]] void refuse_url(std::string_view arg, const std::string& problem) {
  throw InputError(std::string(arg) + ": " + problem +
                   "; expected a model repository's URL, https://huggingface.co/<org>/<name> or "
                   "https://huggingface.co/<org>/<name>/tree/<revision>");
}

// "/tree/<rev>" spells '/' in a revision as %2F ("refs%2Fpr%2F1").
std::string decode_revision(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && lower(s.substr(i + 1, 2)) == "2f") {
      out += '/';
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

RepoRef parse_hub_url(std::string_view arg, std::string_view path) {
  if (path.find_first_of("?#") != std::string_view::npos) refuse_url(arg, "a URL with a query or fragment");
  if (path.find('@') != std::string_view::npos)
    refuse_url(arg, "'@' in a URL (a URL names a revision as /tree/<revision>)");
  if (path.ends_with('/')) path.remove_suffix(1);
  const std::vector<std::string_view> parts = split_slashes(path);
  for (std::string_view part : parts)
    if (part.empty())
      refuse_url(arg, parts.size() == 1 ? "a URL without a repository" : "a URL with an empty path part");
  if (parts[0] == "datasets" || parts[0] == "spaces")
    refuse_url(arg, std::string("a URL of a ") + (parts[0] == "datasets" ? "dataset" : "Space") +
                        ", not of a model repository");
  if (parts.size() < 2) refuse_url(arg, "a URL with one path part (no organization)");
  RepoRef r;
  r.repo = std::string(parts[0]) + "/" + std::string(parts[1]);
  r.revision = "main";
  if (!valid_part(parts[0]) || !valid_part(parts[1])) refuse_url(arg, "'" + r.repo + "' is not a repository id");
  if (file_like(parts[1]))
    refuse_url(arg, "'" + r.repo + "' ends like a file name, which napkin reads as a path, never as a "
                                  "repository id");
  if (parts.size() == 2) return r;
  if (parts[2] != "tree")
    refuse_url(arg, "a URL of the repository's '" + std::string(parts[2]) +
                        "' page or a file in it, not the repository");
  if (parts.size() == 3) refuse_url(arg, "/tree without a revision");
  r.revision = decode_revision(path.substr(parts[0].size() + parts[1].size() + parts[2].size() + 3));
  r.revision_given = true;
  if (!valid_revision(r.revision)) refuse_url(arg, "'" + r.revision + "' is not a revision");
  return r;
}

// Refuses a revision that refs/ holds only in another letter case ("Main" when refs/main is
// there): git's branch and tag names are case-sensitive, so it is not that ref.
void refuse_ref_in_other_case(const RepoRef& ref, const fs::path& repo_dir) {
  const fs::path refs = repo_dir / "refs";
  if (file_status(refs).kind != FileKind::directory) return;
  std::error_code ec;
  std::size_t seen = 0;  // a cache has a few refs; a tree of thousands is not walked further
  const std::string want = lower(ref.revision);
  std::vector<std::string> others;
  for (fs::recursive_directory_iterator it(refs, ec), end; !ec && it != end && seen < 10000; it.increment(ec), ++seen) {
    std::string rel = it->path().lexically_relative(refs).generic_string();
    if (lower(rel) == want && rel != ref.revision && file_status(it->path()).kind != FileKind::directory)
      others.push_back(std::move(rel));
  }
  if (others.empty()) return;
  std::sort(others.begin(), others.end());
  throw InputError(ref.repo + "@" + ref.revision + ": no ref '" + ref.revision + "' in " + repo_dir.string() +
                   ", but refs/" + others[0] +
                   "; expected the revision as the ref spells it (branch and tag names are case-sensitive)");
}

// Names in `dir` for which `keep` holds, sorted. A missing directory has none; one that is not a
// directory (a file, a dangling link) or cannot be listed is an InputError.
template <typename Keep>
std::vector<std::string> names_in(const fs::path& dir, Keep keep) {
  std::vector<std::string> names;
  const FileStatus status = file_status(dir);
  if (status.kind == FileKind::missing) return names;
  if (status.kind != FileKind::directory)
    throw InputError(dir.string() + ": " + describe(status) + "; expected a directory");
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (keep(name)) names.push_back(std::move(name));
  }
  if (ec) throw InputError(dir.string() + ": cannot list the directory: " + ec.message());
  std::sort(names.begin(), names.end());
  return names;
}

std::string joined(const std::vector<std::string>& names, std::size_t most = 8) {
  std::string s;
  for (std::size_t i = 0; i < names.size() && i < most; ++i) s += (i > 0 ? ", " : "") + names[i];
  if (names.size() > most) s += ", and " + std::to_string(names.size() - most) + " more";
  return s;
}

}  // namespace

HubEnv HubEnv::from_environment() {
  return HubEnv{env_or_empty("HF_HUB_CACHE"), env_or_empty("HF_HOME"), env_or_empty("XDG_CACHE_HOME"),
                env_or_empty("HOME")};
}

std::optional<RepoRef> parse_repo_id(std::string_view arg) {
  if (const std::optional<std::string_view> path = hub_url_path(arg)) return parse_hub_url(arg, *path);
  if (arg.ends_with('/')) arg.remove_suffix(1);  // "org/name/", as shell completion leaves it
  RepoRef r;
  std::string_view id = arg;
  if (const auto at = arg.find('@'); at != std::string_view::npos) {
    id = arg.substr(0, at);
    r.revision = std::string(arg.substr(at + 1));
    r.revision_given = true;
    if (!valid_revision(r.revision)) return std::nullopt;
  } else {
    r.revision = "main";
  }
  const auto slash = id.find('/');
  if (slash == std::string_view::npos || id.find('/', slash + 1) != std::string_view::npos) return std::nullopt;
  if (file_like(id)) return std::nullopt;
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
  const std::string from = " (cache from " + hub->from + ")";
  const FileStatus hub_status = file_status(hub->path);
  if (hub_status.kind != FileKind::missing && hub_status.kind != FileKind::directory)
    throw InputError(hub->path.string() + ": " + describe(hub_status) +
                     "; expected the Hugging Face cache directory (" + hub->from + ")");
  std::string folder = "models--" + ref.repo;
  folder.replace(folder.find('/'), 1, "--");
  fs::path repo_dir = hub->path / folder;
  FileStatus repo_status = file_status(repo_dir);
  if (repo_status.kind == FileKind::missing) {
    // The Hub reads ids without regard to case; the cache folder keeps the first download's.
    const std::string want = lower(folder);
    const std::vector<std::string> same =
        names_in(hub->path, [&](const std::string& name) { return lower(name) == want; });
    if (same.size() > 1)
      throw InputError(ref.repo + ": " + std::to_string(same.size()) + " folders in " + hub->path.string() +
                       " match it without regard to case (" + joined(same) +
                       "); expected one: type the id as one of them spells it");
    if (same.size() == 1) {
      repo_dir = hub->path / same[0];
      repo_status = file_status(repo_dir);
    }
  }
  if (repo_status.kind != FileKind::missing && repo_status.kind != FileKind::directory)
    throw InputError(repo_dir.string() + ": " + describe(repo_status) +
                     "; expected a Hugging Face cache repository directory");
  const fs::path ref_file = repo_dir / "refs" / ref.revision;
  const fs::path snapshots = repo_dir / "snapshots";
  out.looked = ref_file.string() + from;

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
  } else if (ref.revision.size() == 40 && is_hex(ref.revision)) {
    hash = lower(ref.revision);  // a commit hash given as the revision: its snapshot directly
    out.looked = (snapshots / hash).string() + from;
  } else if (ref.revision.size() >= 4 && ref.revision.size() < 40 && is_hex(ref.revision)) {
    // A short hash, as git reads one: the one snapshot whose hash starts with it.
    const std::string prefix = lower(ref.revision);
    const std::vector<std::string> matches = names_in(snapshots, [&](const std::string& name) {
      return is_commit_hash(name) && name.starts_with(prefix);
    });
    if (matches.size() > 1)
      throw InputError(ref.repo + "@" + ref.revision + ": the short hash starts " + std::to_string(matches.size()) +
                       " snapshots' hashes in " + snapshots.string() + " (" + joined(matches) +
                       "); expected enough digits to name one of them");
    if (matches.empty()) {
      refuse_ref_in_other_case(ref, repo_dir);
      out.looked = ref_file.string() + ", or a snapshot " + (snapshots / prefix).string() + "..." + from;
      return out;
    }
    hash = matches[0];
  } else {
    refuse_ref_in_other_case(ref, repo_dir);
    return out;
  }
  const fs::path snapshot = snapshots / hash;
  const FileStatus snap_status = file_status(snapshot);
  if (snap_status.kind == FileKind::missing) {
    const bool by_ref = ref_status.kind == FileKind::regular;
    out.looked = snapshot.string() + (by_ref ? " (named by " + ref_file.string() + ")" : from);
    return out;
  }
  if (snap_status.kind != FileKind::directory)
    throw InputError(snapshot.string() + ": " + describe(snap_status) + "; expected a Hugging Face cache snapshot directory");
  out.snapshot = snapshot;
  return out;
}

}  // namespace napkin::specs
