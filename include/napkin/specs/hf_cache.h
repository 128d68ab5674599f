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
  std::string repo;             // "meta-llama/Llama-3.1-8B", as typed (its case included)
  std::string revision;         // "main" unless given
  bool revision_given = false;  // "@v1.0" or ".../tree/v1.0" was typed (no preset stands in then)
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
/// '-', '_' and '.' joined by one '/', neither starting with '.' or '-' (huggingface_hub's
/// validate_repo_id), optionally "@revision". Paths (a leading '/' or '.', more than one '/', a
/// .json/.gguf/.safetensors name) are not ids: nullopt. Callers ask only after finding nothing at
/// `arg` as a path, so a directory ./org/name is read as that directory, never as an id.
///
/// Spellings of the same repository, all read as "org/name" (revision "main", not given):
///   org/name/                                  one trailing '/', as shell completion leaves it
///   https://huggingface.co/org/name            also http://, hf.co, www.huggingface.co, no
///   huggingface.co/org/name, hf.co/org/name    scheme, and one trailing '/'
///   https://huggingface.co/org/name/tree/<rev> the same as org/name@<rev> (%2F in <rev> is '/')
/// A Hugging Face URL that names something else is an InputError, not "not found": a dataset or
/// a Space (/datasets/..., /spaces/...), a file or page of the repository (/blob/, /resolve/,
/// /raw/, /commit/, /discussions, ...), a single path part (a legacy id such as gpt2, which the
/// Hub redirects to an org napkin cannot know offline), '@' in a URL (a URL names its revision
/// as /tree/<rev>), a query or fragment, parts that are not a valid id or revision, or a name
/// ending in .json, .gguf or .safetensors (not an id when typed plainly either: a path).
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

/// Looks the repository up in models--<org>--<name>/. The folder is the one spelled as `ref.repo`
/// is; when there is none, the one folder whose name matches without regard to case (the Hub
/// treats ids so; the cache keeps the case of the first download). The revision is, in order:
///   1. refs/<revision>, a file holding the commit hash of the snapshot (a branch or tag);
///   2. a 40-digit hex commit hash (either case): snapshots/<hash> directly, so org/name@<hash>
///      and a ref holding <hash> are the same snapshot;
///   3. 4 to 39 hex digits (either case): the one snapshot whose hash starts with them, as git
///      reads a short hash.
/// InputError, naming what is there, rather than "not found":
///   - several folders match without regard to case and none exactly (they are listed);
///   - a short hash that starts several snapshots' hashes (they are listed);
///   - a revision found in refs/ only in another case (branch and tag names are case-sensitive,
///     as in git): the ref that is there is named;
///   - a malformed ref; a ref, repository folder or snapshot that is not what it should be (a
///     file, a FIFO, a link loop) or a symbolic link whose target does not exist.
/// A missing repository, ref or snapshot is a HubLookup without a snapshot.
HubLookup find_in_hub_cache(const RepoRef& ref, const HubEnv& env);

}  // namespace napkin::specs
