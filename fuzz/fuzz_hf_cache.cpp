// Fuzzes the Hugging Face cache resolver (napkin/specs/hf_cache.h) and the snapshot reading behind
// it (napkin/specs/load.h, napkin/specs/checkpoint.h). The input is text: its first line is the
// model argument, each further line one entry of a fake hub cache, its path relative to the hub:
//   d <path>            a directory
//   f <path> <content>  a regular file holding <content> (escapes \n, \t, \\ and \xHH), or canned
//                       bytes: @config (a small llama config.json), @sa and @sb (small safetensors
//                       files), @index (an index putting @sa's tensor in a.safetensors and @sb's
//                       in b.safetensors), @gguf (a small GGUF)
//   l <path> <target>   a symbolic link to <target>: present, dangling or a loop
// Parents of a path are made as directories. Entries that could reach outside the tree are
// skipped: path components are [A-Za-z0-9._@-] (not "." or ".."), none of a path's existing
// parents may be a link, and a target is relative with its ".." (at most 4) leading. The hub sits
// 6 directories deep in the scratch directory, so no chain of links climbs out of it; the argument
// is read as a path in the tree only when it is relative and has no "..", and as typed only when
// nothing is at that path in the working directory.
//
// Each input: parse_repo_id; find_in_hub_cache with a HubEnv naming the hub; load_model (the
// CLI's MODEL resolution, HF_HUB_CACHE set to the hub) of the argument and of the argument as a
// path in the tree; and, for a snapshot found, stored_weights and read_checkpoint (what memory and
// params read).
// InputError is the expected answer to bad input; anything else escapes. Invariants: an id that
// parses reparses to itself from "org/name@revision"; a snapshot found is a directory
// snapshots/<40 hex digits> of the folder that spells the id without regard to case.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_common.h"
#include "napkin/ground/error.h"
#include "napkin/specs/checkpoint.h"
#include "napkin/specs/files.h"
#include "napkin/specs/hf_cache.h"
#include "napkin/specs/load.h"

namespace {

namespace fs = std::filesystem;
using namespace napkin;

constexpr std::size_t kMaxEntries = 64, kMaxDepth = 8, kMaxComponent = 64, kMaxContent = 4096;

std::string le64(std::uint64_t v) {
  std::string s;
  for (int i = 0; i < 8; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

std::string safetensors(const std::string& tensor) {
  const std::string header = R"({")" + tensor + R"(":{"dtype":"BF16","shape":[4,2],"data_offsets":[0,16]}})";
  return le64(header.size()) + header + std::string(16, '\0');
}

std::string gguf() {
  const auto str = [](const std::string& s) { return le64(s.size()) + s; };
  std::string b = "GGUF";
  b += std::string("\x03\0\0\0", 4) + le64(1) + le64(1);
  b += str("general.architecture") + std::string("\x08\0\0\0", 4) + str("llama");
  b += str("token_embd.weight") + std::string("\x02\0\0\0", 4) + le64(2) + le64(4) + std::string(4, '\0') + le64(0);
  b += std::string((32 - b.size() % 32) % 32, '\0');
  return b + std::string(32, '\0');
}

std::string canned(const std::string& name) {
  if (name == "@config")
    return R"({"model_type":"llama","architectures":["LlamaForCausalLM"],"hidden_size":64,"num_hidden_layers":2,)"
           R"("num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,"vocab_size":256,)"
           R"("max_position_embeddings":128,"rms_norm_eps":1e-5,"tie_word_embeddings":false})";
  if (name == "@sa") return safetensors("model.embed_tokens.weight");
  if (name == "@sb") return safetensors("lm_head.weight");
  if (name == "@index")
    return R"({"metadata":{"total_size":32},"weight_map":{"model.embed_tokens.weight":"a.safetensors",)"
           R"("lm_head.weight":"b.safetensors"}})";
  if (name == "@gguf") return gguf();
  std::string out;  // escapes
  for (std::size_t i = 0; i < name.size() && out.size() < kMaxContent; ++i) {
    if (name[i] != '\\' || i + 1 == name.size()) {
      out += name[i];
      continue;
    }
    const char c = name[++i];
    if (c == 'n') out += '\n';
    else if (c == 't') out += '\t';
    else if (c == 'x' && i + 2 < name.size()) {
      out += static_cast<char>(std::strtol(name.substr(i + 1, 2).c_str(), nullptr, 16));
      i += 2;
    } else out += c;
  }
  return out;
}

bool safe_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-' || c == '@';
}

std::vector<std::string> components(std::string_view s) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  while (begin <= s.size()) {
    const std::size_t slash = std::min(s.find('/', begin), s.size());
    parts.emplace_back(s.substr(begin, slash - begin));
    begin = slash + 1;
  }
  return parts;
}

// The entry's path under the hub when every component is safe; empty otherwise.
std::string safe_path(std::string_view s) {
  const std::vector<std::string> parts = components(s);
  if (parts.size() > kMaxDepth) return {};
  for (const std::string& p : parts) {
    if (p.empty() || p == "." || p == ".." || p.size() > kMaxComponent) return {};
    for (char c : p)
      if (!safe_char(c)) return {};
  }
  return std::string(s);
}

bool safe_target(std::string_view s) {
  const std::vector<std::string> parts = components(s);
  if (parts.size() > kMaxDepth) return false;
  std::size_t ups = 0;
  bool below = false;  // a component other than ".." seen: no ".." after it
  for (const std::string& p : parts) {
    if (p.empty() || p.size() > kMaxComponent) return false;
    if (p == "..") {
      if (below || ++ups > 4) return false;
      continue;
    }
    below = true;
    for (char c : p)
      if (!safe_char(c)) return false;
  }
  return true;
}

// Whether `rel` can be made under `hub`: no existing parent of it is a link (a link would take the
// new entry somewhere else), and its parents can be made as directories.
bool make_parents(const fs::path& hub, const std::string& rel) {
  fs::path at = hub;
  const std::vector<std::string> parts = components(rel);
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    at /= parts[i];
    struct stat st {};
    if (::lstat(at.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) return false;
      continue;
    }
    if (::mkdir(at.c_str(), 0755) != 0) return false;
  }
  struct stat st {};
  return ::lstat((hub / rel).c_str(), &st) != 0;  // not there yet
}

void build_tree(const fs::path& hub, std::string_view entries) {
  std::size_t count = 0;
  std::size_t begin = 0;
  while (begin < entries.size() && count < kMaxEntries) {
    const std::size_t end = std::min(entries.find('\n', begin), entries.size());
    const std::string_view line = entries.substr(begin, end - begin);
    begin = end + 1;
    if (line.size() < 3 || line[1] != ' ') continue;
    const std::string_view rest = line.substr(2);
    const std::size_t space = rest.find(' ');
    const std::string rel = safe_path(rest.substr(0, space));
    const std::string arg = space == std::string_view::npos ? std::string() : std::string(rest.substr(space + 1));
    if (rel.empty() || !make_parents(hub, rel)) continue;
    ++count;
    const fs::path p = hub / rel;
    if (line[0] == 'd') {
      (void)::mkdir(p.c_str(), 0755);
    } else if (line[0] == 'f') {
      fuzz::write_file(p, canned(arg));
    } else if (line[0] == 'l' && safe_target(arg)) {
      (void)::symlink(arg.c_str(), p.c_str());
    }
  }
}

// The hub, 6 directories below the scratch directory, made once; HF_HUB_CACHE names it.
const fs::path& hub_dir() {
  static const fs::path hub = [] {
    const fs::path h = fuzz::scratch_dir() / "t" / "p" / "p" / "p" / "p" / "p" / "hub";
    fs::create_directories(h);
    NAPKIN_FUZZ_CHECK(::setenv("HF_HUB_CACHE", h.c_str(), 1) == 0);
    return h;
  }();
  return hub;
}

void clear(const fs::path& hub) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(hub, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(it->path());
  NAPKIN_FUZZ_CHECK(!ec);
  for (const fs::path& e : entries) fs::remove_all(e, ec);
  NAPKIN_FUZZ_CHECK(fs::is_empty(hub, ec) && !ec);
  specs::forget_file_reads();  // the tree's inodes are gone; file_read() need not keep them
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool is_commit_hash(const std::string& s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

void check_ref(const specs::RepoRef& r) {
  const std::size_t slash = r.repo.find('/');
  NAPKIN_FUZZ_CHECK(slash != std::string::npos && slash > 0 && slash + 1 < r.repo.size());
  NAPKIN_FUZZ_CHECK(r.repo.find('/', slash + 1) == std::string::npos);
  NAPKIN_FUZZ_CHECK(!r.revision.empty());
  // "org/name@revision" reads back as the same id, unless the org is a host name that makes it a URL.
  const std::string org = lower(r.repo.substr(0, slash));
  if (org == "hf.co" || org == "huggingface.co" || org == "www.huggingface.co") return;
  const auto again = specs::parse_repo_id(r.repo + "@" + r.revision);
  NAPKIN_FUZZ_CHECK(again && again->repo == r.repo && again->revision == r.revision && again->revision_given);
}

void check_snapshot(const fs::path& hub, const specs::RepoRef& r, const fs::path& snapshot) {
  NAPKIN_FUZZ_CHECK(specs::file_status(snapshot).kind == specs::FileKind::directory);
  NAPKIN_FUZZ_CHECK(is_commit_hash(snapshot.filename().string()));
  NAPKIN_FUZZ_CHECK(snapshot.parent_path().filename() == "snapshots");
  const fs::path folder = snapshot.parent_path().parent_path();
  NAPKIN_FUZZ_CHECK(folder.parent_path() == hub);
  std::string want = "models--" + r.repo;
  want.replace(want.find('/'), 1, "--");
  NAPKIN_FUZZ_CHECK(lower(folder.filename().string()) == lower(want));
}

// What the CLI does with MODEL, against the tree.
void resolve(const fs::path& hub, const std::string& arg) {
  std::optional<specs::RepoRef> ref;
  try {
    ref = specs::parse_repo_id(arg);
  } catch (const InputError&) {
  }
  std::optional<fs::path> snapshot;
  if (ref) {
    check_ref(*ref);
    try {
      const specs::HubLookup found = specs::find_in_hub_cache(*ref, specs::HubEnv{hub.string(), "", "", ""});
      NAPKIN_FUZZ_CHECK(found.snapshot || !found.looked.empty());
      if (found.snapshot) {
        check_snapshot(hub, *ref, *found.snapshot);
        snapshot = found.snapshot;
      }
    } catch (const InputError&) {
    }
  }
  // The CLI's resolution of MODEL: as typed when nothing is at that path in the working directory
  // (libFuzzer's, left as it is: it writes the corpus and crash inputs there), so that it is read
  // as a preset or an id of the tree; and as a path in the tree when it is relative without "..".
  if (!arg.empty() && specs::file_status(arg).kind == specs::FileKind::missing) {
    try {
      (void)specs::load_model(arg);
    } catch (const InputError&) {
    }
  }
  if (!arg.empty() && arg.front() != '/' && arg.find("..") == std::string::npos) {
    try {
      (void)specs::load_model((hub / arg).string());
    } catch (const InputError&) {
    }
  }
  if (snapshot) {
    try {
      (void)specs::stored_weights(*snapshot);
    } catch (const InputError&) {
    }
    try {
      (void)specs::read_checkpoint(*snapshot);
    } catch (const InputError&) {
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path& hub = hub_dir();
  const std::string_view text = fuzz::as_text(data, size);
  const std::size_t newline = text.find('\n');
  const std::string arg(text.substr(0, newline));
  clear(hub);
  if (newline != std::string_view::npos) build_tree(hub, text.substr(newline + 1));
  resolve(hub, arg);
  clear(hub);
  return 0;
}
