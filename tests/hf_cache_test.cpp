// MODEL as a Hugging Face repository id, resolved offline from the hub cache (issue 14 item 1).
// The fixture tests/hf-cache/huggingface/hub is laid out as huggingface_hub leaves it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint_files.h"
#include "napkin/ground/error.h"
#include "napkin/specs/checkpoint.h"
#include "napkin/specs/files.h"
#include "napkin/specs/hf_cache.h"
#include "napkin/specs/load.h"
#include "run_napkin.h"

using namespace napkin;
using napkin_test::run_shell;

namespace {

const std::string kFixture = std::string(NAPKIN_SOURCE_DIR) + "/tests/hf-cache";
const std::string kHub = kFixture + "/huggingface/hub";

// napkin with exactly one of the cache variables set (the others removed from the environment).
napkin_test::Run napkin_with(const std::string& var, const std::string& value, const std::string& args) {
  return run_shell("env -u HF_HUB_CACHE -u HF_HOME -u XDG_CACHE_HOME " + var + "='" + value + "' " +
                   std::string(NAPKIN_BINARY) + " " + args + " 2>&1");
}

}  // namespace

TEST_CASE("repository ids are org/name with an optional @revision; paths are not ids", "[hf_cache]") {
  const auto r = specs::parse_repo_id("meta-llama/Llama-3.1-8B");
  REQUIRE(r);
  CHECK(r->repo == "meta-llama/Llama-3.1-8B");
  CHECK(r->revision == "main");
  const auto v = specs::parse_repo_id("Qwen/Qwen3-0.6B@v1.0");
  REQUIRE(v);
  CHECK(v->revision == "v1.0");
  CHECK_FALSE(specs::parse_repo_id("llama-3.1-8b"));
  CHECK_FALSE(specs::parse_repo_id("./models/x"));
  CHECK_FALSE(specs::parse_repo_id("/abs/path"));
  CHECK_FALSE(specs::parse_repo_id("a/b/c"));
  CHECK_FALSE(specs::parse_repo_id("models/config.json"));
  CHECK_FALSE(specs::parse_repo_id("org/name@"));
  CHECK_FALSE(specs::parse_repo_id("org/na me"));
  CHECK_FALSE(specs::parse_repo_id("org/../x"));
}

TEST_CASE("the hub directory is HF_HUB_CACHE, else HF_HOME/hub, else XDG_CACHE_HOME, else HOME", "[hf_cache]") {
  specs::HubEnv e{"/a", "/b", "/c", "/d"};
  CHECK(specs::hub_cache_dir(e)->path == "/a");
  e.hf_hub_cache.clear();
  CHECK(specs::hub_cache_dir(e)->path == "/b/hub");
  e.hf_home.clear();
  CHECK(specs::hub_cache_dir(e)->path == "/c/huggingface/hub");
  e.xdg_cache_home.clear();
  CHECK(specs::hub_cache_dir(e)->path == "/d/.cache/huggingface/hub");
  CHECK(specs::hub_cache_dir(e)->from == "HOME");
  e.home.clear();
  CHECK_FALSE(specs::hub_cache_dir(e));
}

TEST_CASE("refs/main names the snapshot; a commit hash names it directly; a bad ref is refused", "[hf_cache]") {
  const specs::HubEnv env{kHub, "", "", ""};
  const auto found = specs::find_in_hub_cache(*specs::parse_repo_id("Qwen/Qwen3-0.6B"), env);
  REQUIRE(found.snapshot);
  CHECK(found.snapshot->filename() == "5fcb2d3e9b1a4c7d8e0f1a2b3c4d5e6f7a8b9c0d");
  CHECK(specs::find_in_hub_cache(*specs::parse_repo_id("Qwen/Qwen3-0.6B@5fcb2d3e9b1a4c7d8e0f1a2b3c4d5e6f7a8b9c0d"), env)
            .snapshot);
  const auto missing = specs::find_in_hub_cache(*specs::parse_repo_id("Qwen/Qwen3-0.6B@v9"), env);
  CHECK_FALSE(missing.snapshot);
  CHECK(missing.looked.find("models--Qwen--Qwen3-0.6B/refs/v9") != std::string::npos);
  CHECK_THROWS_WITH(specs::find_in_hub_cache(*specs::parse_repo_id("acme/broken"), env),
                    Catch::Contains("refs/main: 'not-a-hash': expected a 40-character commit hash"));
}

TEST_CASE("params and memory read org/name from the cache under each of the cache variables", "[hf_cache][cli]") {
  // Qwen3-0.6B: 596,049,920 parameters by napkin's count of its config (tied head).
  const std::string home = (std::filesystem::temp_directory_path() / "napkin-hf-home").string();
  std::filesystem::remove_all(home);
  std::filesystem::create_directories(home + "/.cache");
  std::filesystem::create_symlink(kFixture + "/huggingface", home + "/.cache/huggingface");
  const std::pair<std::string, std::string> vars[] = {
      {"HF_HUB_CACHE", kHub}, {"HF_HOME", kFixture + "/huggingface"}, {"XDG_CACHE_HOME", kFixture}, {"HOME", home}};
  for (const auto& [var, value] : vars) {
    INFO(var);
    const auto p = napkin_with(var, value, "params Qwen/Qwen3-0.6B --json");
    CHECK(p.code == 0);
    CHECK(p.out.find("\"total_params\"") != std::string::npos);
    CHECK(p.out.find("596049920") != std::string::npos);
    const auto m = napkin_with(var, value, "memory Qwen/Qwen3-0.6B --context 8192 --json");
    CHECK(m.code == 0);
    CHECK(m.out.find("\"kv_cache\"") != std::string::npos);
  }
  std::filesystem::remove_all(home);
}

TEST_CASE("a repository id not in the cache is its bundled preset, or an error saying where napkin looked",
          "[hf_cache][cli]") {
  const std::string empty = (std::filesystem::temp_directory_path() / "napkin-empty-hub").string();
  std::filesystem::create_directories(empty);
  const auto preset = napkin_with("HF_HUB_CACHE", empty, "params meta-llama/Llama-3.1-8B");
  CHECK(preset.code == 0);
  CHECK(preset.out.find("8.03B") != std::string::npos);
  CHECK(preset.out.find("bundled preset llama-3.1-8b") != std::string::npos);
  const auto missing = napkin_with("HF_HUB_CACHE", empty, "memory acme/unknown-model");
  CHECK(missing.code == 2);
  CHECK(missing.out.find("acme/unknown-model: no such file or directory, and not in the Hugging Face cache") !=
        std::string::npos);
  CHECK(missing.out.find(empty + "/models--acme--unknown-model/refs/main (cache from HF_HUB_CACHE)") !=
        std::string::npos);
}

TEST_CASE("a cached repository's quantized checkpoint is counted at its stored bytes", "[hf_cache][cli]") {
  // tests/quant-configs/tiny-llama-fp8: 36,864 B of F8_E4M3, 33,152 B of BF16, 28 B of F32 scales.
  const auto r = napkin_with("HF_HUB_CACHE", kHub, "memory acme/tiny-fp8 --context 1024 --json");
  CHECK(r.code == 0);
  CHECK(r.out.find("\"weights\":{\"value\":70044,") != std::string::npos);
  CHECK(r.out.find("weights as stored in acme/tiny-fp8") != std::string::npos);
}

// ---- issue 35: dangling snapshot links, and the spellings of one repository -----------------------

namespace {

namespace fs = std::filesystem;
using napkin::test::input_error;
using napkin::test::TempDir;

const std::string kHashA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const std::string kHashB = "abcdef0123456789abcdef0123456789abcdef01";
const std::string kHashC = "abcdef9999999999999999999999999999999999";
const std::string kQwenConfig =
    kHub + "/models--Qwen--Qwen3-0.6B/snapshots/5fcb2d3e9b1a4c7d8e0f1a2b3c4d5e6f7a8b9c0d/config.json";
const std::string kFp8 = std::string(NAPKIN_SOURCE_DIR) + "/tests/quant-configs/tiny-llama-fp8";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// One repository of a hub cache laid out as huggingface_hub leaves it: refs/<revision> holding
// the commit hash, the files in blobs/<name>, and snapshots/<hash>/<file> a link to
// ../../blobs/<name>. A blob given no content is not written: its link dangles.
struct CachedRepo {
  fs::path dir;
  CachedRepo(const fs::path& hub, const std::string& folder) : dir(hub / folder) {
    fs::create_directories(dir / "blobs");
    fs::create_directories(dir / "refs");
  }
  CachedRepo& ref(const std::string& revision, const std::string& hash) {
    fs::create_directories((dir / "refs" / revision).parent_path());
    napkin::test::write_file(dir / "refs" / revision, hash);
    return *this;
  }
  fs::path snapshot(const std::string& hash) const { return dir / "snapshots" / hash; }
  CachedRepo& file(const std::string& hash, const std::string& name, const std::string& blob,
                   const std::optional<std::string>& content) {
    fs::create_directories(snapshot(hash));
    if (content) napkin::test::write_file(dir / "blobs" / blob, *content);
    fs::create_symlink("../../blobs/" + blob, snapshot(hash) / name);
    return *this;
  }
};

// napkin run with HF_HUB_CACHE=hub alone, from `cwd`.
napkin_test::Run napkin_in_hub(const fs::path& hub, const std::string& args, const fs::path& cwd = fs::current_path()) {
  return run_shell("cd '" + cwd.string() + "' && env -u HF_HOME -u XDG_CACHE_HOME HF_HUB_CACHE='" + hub.string() +
                   "' " + std::string(NAPKIN_BINARY) + " " + args + " 2>&1");
}

}  // namespace

TEST_CASE("file_status names a link whose target is gone, with its target", "[hf_cache][files]") {
  TempDir t;
  fs::create_symlink("../../blobs/0123abcd", t / "config.json");
  fs::create_symlink("nowhere/x.json", t / "other.json");
  const specs::FileStatus blob = specs::file_status(t / "config.json");
  CHECK(blob.kind == specs::FileKind::dangling_link);
  CHECK(blob.link_target == "../../blobs/0123abcd");
  CHECK(specs::describe(blob) == "a link to ../../blobs/0123abcd which does not exist (the blob was not downloaded)");
  CHECK(specs::describe(specs::file_status(t / "other.json")) ==
        "a symbolic link to nowhere/x.json which does not exist");
  CHECK(specs::file_status(t / "absent.json").kind == specs::FileKind::missing);
  CHECK(specs::file_status(t / "config.json" / "below").kind == specs::FileKind::missing);
  CHECK_THROWS_WITH(specs::InputFile(t / "config.json", "config.json"),
                    (t / "config.json").string() +
                        ": a link to ../../blobs/0123abcd which does not exist (the blob was not downloaded); "
                        "expected a file");
}

TEST_CASE("a snapshot's config.json whose blob is gone is refused, not read as no config.json", "[hf_cache]") {
  TempDir t;
  CachedRepo repo(t.path(), "models--acme--m");
  repo.ref("main", kHashA).file(kHashA, "config.json", "c0ffee", std::nullopt);
  const fs::path config = repo.snapshot(kHashA) / "config.json";
  const std::string expected =
      config.string() + ": a link to ../../blobs/c0ffee which does not exist (the blob was not downloaded); "
                        "expected a config JSON";
  CHECK(input_error([&] { specs::resolve_model_files(repo.snapshot(kHashA).string()); }) == expected);
  // With safetensors beside it, the weights alone would have been read as a model without a config.
  repo.file(kHashA, "model.safetensors", "5afe", slurp(kFp8 + "/model.safetensors"));
  CHECK(input_error([&] { specs::resolve_model_files(repo.snapshot(kHashA).string()); }) == expected);
  const auto r = napkin_in_hub(t.path(), "params acme/m");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: " + expected + "\n");
}

TEST_CASE("a checkpoint file whose blob is gone is refused, not passed over", "[hf_cache]") {
  TempDir t;
  CachedRepo repo(t.path(), "models--acme--m");
  repo.ref("main", kHashA).file(kHashA, "config.json", "c0ffee", slurp(kFp8 + "/config.json"));
  const fs::path snap = repo.snapshot(kHashA);
  SECTION("a single safetensors file") {
    repo.file(kHashA, "model.safetensors", "5afe", std::nullopt);
    const std::string expected = (snap / "model.safetensors").string() +
                                 ": a link to ../../blobs/5afe which does not exist (the blob was not "
                                 "downloaded); expected the checkpoint file it names";
    CHECK(input_error([&] { specs::resolve_model_files(snap.string()); }) == expected);
    CHECK(input_error([&] { specs::stored_weights(snap); }) == expected);
    // memory counted the config's parameters at bf16 as if there were no weights.
    const auto r = napkin_in_hub(t.path(), "memory acme/m --context 1024");
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: " + expected + "\n");
  }
  SECTION("a GGUF file") {
    repo.file(kHashA, "model-Q4_K_M.gguf", "9909", std::nullopt);
    CHECK_THAT(input_error([&] { specs::resolve_model_files(snap.string()); }),
               Catch::StartsWith((snap / "model-Q4_K_M.gguf").string() + ": a link to ../../blobs/9909"));
  }
  SECTION("the index") {
    repo.file(kHashA, "model.safetensors.index.json", "1ndex", std::nullopt);
    CHECK_THAT(input_error([&] { specs::resolve_model_files(snap.string()); }),
               Catch::StartsWith((snap / "model.safetensors.index.json").string() + ": a link to ../../blobs/1ndex"));
  }
  SECTION("several: the first by name, and how many more") {
    repo.file(kHashA, "model-00002-of-00002.safetensors", "b2", std::nullopt);
    repo.file(kHashA, "model-00001-of-00002.safetensors", "b1", std::nullopt);
    CHECK_THAT(input_error([&] { specs::find_checkpoint(snap); }),
               Catch::StartsWith((snap / "model-00001-of-00002.safetensors").string() + ": a link to ../../blobs/b1") &&
                   Catch::EndsWith("(1 more such link(s) beside it)"));
  }
  SECTION("a dangling link of another kind of file is not the checkpoint's business") {
    repo.file(kHashA, "README.md", "read", std::nullopt);
    repo.file(kHashA, "model.safetensors", "5afe", slurp(kFp8 + "/model.safetensors"));
    const auto w = specs::stored_weights(snap);
    REQUIRE(w);
    CHECK(w->bytes == 70044);
  }
}

TEST_CASE("index shards whose blobs are gone are refused, not replaced by metadata.total_size", "[hf_cache]") {
  TempDir t;
  CachedRepo repo(t.path(), "models--acme--m");
  const std::string index =
      R"({"metadata": {"total_size": 70044}, "weight_map": {)"
      R"("model.embed_tokens.weight": "model-00001-of-00002.safetensors",)"
      R"( "lm_head.weight": "model-00002-of-00002.safetensors"}})";
  repo.ref("main", kHashA)
      .file(kHashA, "config.json", "c0ffee", slurp(kFp8 + "/config.json"))
      .file(kHashA, "model.safetensors.index.json", "1ndex", index)
      .file(kHashA, "model-00001-of-00002.safetensors", "b1", std::nullopt)
      .file(kHashA, "model-00002-of-00002.safetensors", "b2", std::nullopt);
  const fs::path snap = repo.snapshot(kHashA);
  // find_checkpoint sees the shards' dangling links first; the index's own readers name them too.
  CHECK_THAT(input_error([&] { specs::stored_weights(snap); }),
             Catch::StartsWith((snap / "model-00001-of-00002.safetensors").string() + ": a link to ../../blobs/b1"));
  // The weight_map in key order: lm_head.weight's shard first.
  CHECK_THAT(input_error([&] { specs::stored_weights(snap / "model.safetensors.index.json"); }),
             Catch::Equals((snap / "model-00002-of-00002.safetensors").string() +
                           ": a link to ../../blobs/b2 which does not exist (the blob was not downloaded); expected "
                           "the shard model.safetensors.index.json names"));
  CHECK_THAT(input_error([&] { specs::read_checkpoint(snap / "model.safetensors.index.json"); }),
             Catch::Equals((snap / "model-00001-of-00002.safetensors").string() +
                           ": a link to ../../blobs/b1 which does not exist (the blob was not downloaded); expected "
                           "a file"));
  // Shards that were never downloaded (no links at all) still fall back to metadata.total_size.
  fs::remove(snap / "model-00001-of-00002.safetensors");
  fs::remove(snap / "model-00002-of-00002.safetensors");
  const auto w = specs::stored_weights(snap);
  REQUIRE(w);
  CHECK(w->bytes == 70044);
  CHECK(w->detail == "model.safetensors.index.json metadata.total_size; shards not present");
}

TEST_CASE("a ref, snapshot or repository folder that is a dangling link is refused", "[hf_cache]") {
  TempDir t;
  const specs::HubEnv env{t.path().string(), "", "", ""};
  const auto ref = *specs::parse_repo_id("acme/m");
  SECTION("refs/main") {
    fs::create_directories(t / "models--acme--m/refs");
    fs::create_symlink("../../blobs/gone", t / "models--acme--m/refs/main");
    CHECK_THAT(input_error([&] { specs::find_in_hub_cache(ref, env); }),
               Catch::Contains("refs/main: a link to ../../blobs/gone which does not exist (the blob was not "
                               "downloaded); expected a Hugging Face cache ref file"));
  }
  SECTION("the snapshot directory") {
    CachedRepo repo(t.path(), "models--acme--m");
    repo.ref("main", kHashA);
    fs::create_directories(repo.dir / "snapshots");
    fs::create_symlink("/nonexistent/snapshot", repo.snapshot(kHashA));
    CHECK_THAT(input_error([&] { specs::find_in_hub_cache(ref, env); }),
               Catch::Contains(kHashA + ": a symbolic link to /nonexistent/snapshot which does not exist; expected a "
                                        "Hugging Face cache snapshot directory"));
  }
  SECTION("the repository folder") {
    fs::create_symlink("/nonexistent/repo", t / "models--acme--m");
    CHECK_THAT(input_error([&] { specs::find_in_hub_cache(ref, env); }),
               Catch::Contains("models--acme--m: a symbolic link to /nonexistent/repo which does not exist; expected a "
                               "Hugging Face cache repository directory"));
  }
}

TEST_CASE("a plain model directory's dangling links and a dangling MODEL are refused", "[hf_cache][cli]") {
  TempDir t;
  fs::create_directories(t / "model");
  fs::create_symlink("../weights/config.json", t / "model/config.json");
  const auto dir = napkin_test::run_napkin("params " + (t / "model").string());
  CHECK(dir.code == 2);
  CHECK(dir.out == "napkin: error: " + (t / "model/config.json").string() +
                       ": a symbolic link to ../weights/config.json which does not exist; expected a config JSON\n");
  fs::create_symlink("gone.json", t / "gone-link.json");
  const auto arg = napkin_test::run_napkin("params " + (t / "gone-link.json").string());
  CHECK(arg.code == 2);
  CHECK(arg.out.find("gone-link.json: a symbolic link to gone.json which does not exist; expected a preset name") !=
        std::string::npos);
}

TEST_CASE("spellings of one repository id parse to the same id", "[hf_cache]") {
  const auto same = [](const std::string& arg, const std::string& repo, const std::string& revision, bool given) {
    INFO(arg);
    const auto r = specs::parse_repo_id(arg);
    REQUIRE(r);
    CHECK(r->repo == repo);
    CHECK(r->revision == revision);
    CHECK(r->revision_given == given);
  };
  same("Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B", "main", false);
  same("Qwen/Qwen3-0.6B@main", "Qwen/Qwen3-0.6B", "main", true);
  same("Qwen/Qwen3-0.6B/", "Qwen/Qwen3-0.6B", "main", false);
  same("https://huggingface.co/Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B", "main", false);
  same("https://huggingface.co/Qwen/Qwen3-0.6B/", "Qwen/Qwen3-0.6B", "main", false);
  same("http://huggingface.co/Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B", "main", false);
  same("HTTPS://HuggingFace.co/Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B", "main", false);
  same("https://www.huggingface.co/Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B", "main", false);
  same("huggingface.co/Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B", "main", false);
  same("hf.co/Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B", "main", false);
  same("https://hf.co/Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B", "main", false);
  same("https://huggingface.co/Qwen/Qwen3-0.6B/tree/main", "Qwen/Qwen3-0.6B", "main", true);
  same("hf.co/Qwen/Qwen3-0.6B/tree/v1.0/", "Qwen/Qwen3-0.6B", "v1.0", true);
  same("https://huggingface.co/Qwen/Qwen3-0.6B/tree/refs%2Fpr%2F1", "Qwen/Qwen3-0.6B", "refs/pr/1", true);
  same("https://huggingface.co/Qwen/Qwen3-0.6B/tree/refs/pr/1", "Qwen/Qwen3-0.6B", "refs/pr/1", true);
}

TEST_CASE("a Hugging Face URL that names something other than a model repository is refused", "[hf_cache]") {
  const auto refused = [](const std::string& arg, const std::string& problem) {
    INFO(arg);
    CHECK(input_error([&] { specs::parse_repo_id(arg); }) ==
          arg + ": " + problem +
              "; expected a model repository's URL, https://huggingface.co/<org>/<name> or "
              "https://huggingface.co/<org>/<name>/tree/<revision>");
  };
  refused("https://huggingface.co/datasets/acme/m", "a URL of a dataset, not of a model repository");
  refused("hf.co/spaces/acme/m", "a URL of a Space, not of a model repository");
  refused("https://huggingface.co/acme/m/blob/main/config.json",
          "a URL of the repository's 'blob' page or a file in it, not the repository");
  refused("https://huggingface.co/acme/m/resolve/main/model.safetensors",
          "a URL of the repository's 'resolve' page or a file in it, not the repository");
  refused("https://huggingface.co/gpt2", "a URL with one path part (no organization)");
  refused("https://huggingface.co/", "a URL without a repository");
  refused("hf.co/acme/m//", "a URL with an empty path part");
  refused("https://huggingface.co/acme/m/tree", "/tree without a revision");
  refused("https://huggingface.co/acme/m?library=transformers", "a URL with a query or fragment");
  refused("hf.co/acme/m@main", "'@' in a URL (a URL names a revision as /tree/<revision>)");
  refused("hf.co/acme/..m", "'acme/..m' is not a repository id");
  refused("hf.co/acme/m/tree/a..b", "'a..b' is not a revision");
  // Found by fuzz_hf_cache: the URL was read as the id that "ao/acmeig.json" typed plainly is not.
  refused("https://huggingface.co/ao/acmeig.json",
          "'ao/acmeig.json' ends like a file name, which napkin reads as a path, never as a repository id");
  CHECK_FALSE(specs::parse_repo_id("ao/acmeig.json@main"));
  // Not URLs of the Hub: left to the path and preset lookups, as before.
  CHECK_FALSE(specs::parse_repo_id("https://example.com/acme/m"));
  CHECK_FALSE(specs::parse_repo_id("acme/m//"));
}

TEST_CASE("spellings of one repository resolve to the same snapshot", "[hf_cache]") {
  TempDir t;
  const specs::HubEnv env{t.path().string(), "", "", ""};
  CachedRepo repo(t.path(), "models--Acme--Tiny-Model");
  repo.ref("main", kHashB).ref("v1", kHashC).file(kHashB, "config.json", "c1", slurp(kQwenConfig));
  repo.file(kHashC, "config.json", "c2", slurp(kQwenConfig));
  const auto at = [&](const std::string& arg) {
    INFO(arg);
    const auto ref = specs::parse_repo_id(arg);
    REQUIRE(ref);
    const auto found = specs::find_in_hub_cache(*ref, env);
    return found.snapshot ? found.snapshot->string() : "not found: " + found.looked;
  };
  const std::string b = repo.snapshot(kHashB).string(), c = repo.snapshot(kHashC).string();
  const std::vector<std::string> spellings_of_b = {
      "Acme/Tiny-Model", "Acme/Tiny-Model@main", "Acme/Tiny-Model/", "https://huggingface.co/Acme/Tiny-Model",
      "hf.co/Acme/Tiny-Model", "huggingface.co/Acme/Tiny-Model/tree/main", "acme/tiny-model", "ACME/TINY-MODEL",
      "https://huggingface.co/acme/tiny-model", "Acme/Tiny-Model@" + kHashB, "acme/tiny-model@" + kHashB,
      "Acme/Tiny-Model@ABCDEF0123456789ABCDEF0123456789ABCDEF01", "Acme/Tiny-Model@abcdef0",
      "Acme/Tiny-Model@ABCDEF01"};
  for (const std::string& arg : spellings_of_b)
    CHECK(at(arg) == b);
  for (const std::string arg : {"Acme/Tiny-Model@v1", "hf.co/acme/TINY-model/tree/v1", "Acme/Tiny-Model@abcdef9"})
    CHECK(at(arg) == c);
  CHECK(at("Acme/Tiny-Model@v2") == "not found: " + (repo.dir / "refs/v2").string() + " (cache from HF_HUB_CACHE)");
  CHECK(at("Acme/Tiny-Model@abcd0000") == "not found: " + (repo.dir / "refs/abcd0000").string() +
                                            ", or a snapshot " + (repo.dir / "snapshots/abcd0000").string() +
                                            "... (cache from HF_HUB_CACHE)");

  SECTION("a short hash of several snapshots is refused, listing them") {
    CHECK(input_error([&] { at("Acme/Tiny-Model@abcdef"); }) ==
          "Acme/Tiny-Model@abcdef: the short hash starts 2 snapshots' hashes in " + (repo.dir / "snapshots").string() +
              " (" + kHashB + ", " + kHashC + "); expected enough digits to name one of them");
  }
  SECTION("a ref named like a short hash is the ref") {
    repo.ref("abcdef", kHashC);
    CHECK(at("Acme/Tiny-Model@abcdef") == c);
  }
  SECTION("a branch in another case is not that branch") {
    CHECK(input_error([&] { at("Acme/Tiny-Model@Main"); }) ==
          "Acme/Tiny-Model@Main: no ref 'Main' in " + repo.dir.string() +
              ", but refs/main; expected the revision as the ref spells it (branch and tag names are case-sensitive)");
  }
  SECTION("several folders in other cases are refused, listing them; the exact spelling still wins") {
    CachedRepo(t.path(), "models--acme--tiny-model")
        .ref("main", kHashC)
        .file(kHashC, "config.json", "c3", slurp(kQwenConfig));
    CHECK(at("Acme/Tiny-Model") == b);
    CHECK(at("acme/tiny-model") == (t / "models--acme--tiny-model" / "snapshots" / kHashC).string());
    CHECK(input_error([&] { at("ACME/Tiny-Model"); }) ==
          "ACME/Tiny-Model: 2 folders in " + t.path().string() +
              " match it without regard to case (models--Acme--Tiny-Model, models--acme--tiny-model); expected one: "
              "type the id as one of them spells it");
  }
}

TEST_CASE("params reads every spelling of a cached repository as the repository", "[hf_cache][cli]") {
  const std::string want = napkin_with("HF_HUB_CACHE", kHub, "params Qwen/Qwen3-0.6B --json").out;
  REQUIRE(want.find("596049920") != std::string::npos);
  for (const std::string arg :
       {"Qwen/Qwen3-0.6B/", "https://huggingface.co/Qwen/Qwen3-0.6B", "hf.co/Qwen/Qwen3-0.6B",
        "huggingface.co/Qwen/Qwen3-0.6B/tree/main", "qwen/qwen3-0.6b", "Qwen/Qwen3-0.6B@5fcb2d3"}) {
    INFO(arg);
    const auto r = napkin_with("HF_HUB_CACHE", kHub, "params '" + arg + "' --json");
    CHECK(r.code == 0);
    CHECK(r.out.find("\"total_params\":{\"value\":596049920") != std::string::npos);
  }
}

TEST_CASE("a URL of a repository not in the cache is its preset on main only; a directory wins over an id",
          "[hf_cache][cli]") {
  TempDir t;
  const auto preset = napkin_in_hub(t.path(), "params https://huggingface.co/meta-llama/Llama-3.1-8B");
  CHECK(preset.code == 0);
  CHECK(preset.out.find("bundled preset llama-3.1-8b") != std::string::npos);
  const auto tree = napkin_in_hub(t.path(), "params https://huggingface.co/meta-llama/Llama-3.1-8B/tree/v2");
  CHECK(tree.code == 2);
  const std::string v2 = (t / "models--meta-llama--Llama-3.1-8B/refs/v2").string();
  CHECK(tree.out.find("not in the Hugging Face cache (looked for " + v2) != std::string::npos);
  // ./Qwen/Qwen3-0.6B/ as a directory of its own: read, though the cache holds the id.
  fs::create_directories(t / "work/Qwen/Qwen3-0.6B");
  fs::copy_file(kFp8 + "/config.json", t / "work/Qwen/Qwen3-0.6B/config.json");
  for (const std::string arg : {"Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B/"}) {
    const auto dir = run_shell("cd '" + (t / "work").string() + "' && env HF_HUB_CACHE='" + kHub + "' " +
                               std::string(NAPKIN_BINARY) + " params " + arg + " --json 2>&1");
    CHECK(dir.code == 0);
    CHECK(dir.out.find("596049920") == std::string::npos);
  }
}
