// MODEL as a Hugging Face repository id, resolved offline from the hub cache (issue 14 item 1).
// The fixture tests/hf-cache/huggingface/hub is laid out as huggingface_hub leaves it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "napkin/ground/error.h"
#include "napkin/specs/hf_cache.h"
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
