// The library's MODEL resolution (napkin/specs/load.h): what the CLI's MODEL argument takes, for
// programs, with warnings returned as data and nothing printed.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include <unistd.h>

#include "checkpoint_files.h"
#include "napkin/ground/error.h"
#include "napkin/model/params.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/load.h"
#include "napkin/specs/presets.h"
#include "preset_config.h"

using napkin_test::llama_config;

namespace {

using napkin::test::TempDir;

// What `f` writes to the stderr file descriptor.
template <class F>
std::string stderr_of(F&& f) {
  std::fflush(stderr);
  std::FILE* tmp = std::tmpfile();
  REQUIRE(tmp != nullptr);
  const int saved = ::dup(2);
  ::dup2(::fileno(tmp), 2);
  f();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  std::string text;
  std::rewind(tmp);
  for (int c; (c = std::fgetc(tmp)) != EOF;) text += static_cast<char>(c);
  std::fclose(tmp);
  return text;
}

}  // namespace

TEST_CASE("specs::load_model reads a preset name with no warnings", "[specs][load]") {
  const napkin::specs::ModelSpec m = napkin::specs::load_model("llama-3.1-8b");
  CHECK(m.name == "llama-3.1-8b");
  CHECK(napkin::count_params(m).total == 8030261248);
  CHECK(napkin::specs::model_warnings(m).empty());
}

TEST_CASE("specs::load_model returns a config read by analogy with its warning as data and prints nothing",
          "[specs][load]") {
  TempDir dir;
  nlohmann::json j = llama_config();
  j["model_type"] = "my_llama";
  j.erase("architectures");
  napkin::test::write_file(dir / "config.json", j.dump());
  napkin::specs::ModelSpec m;
  const std::string printed = stderr_of([&] { m = napkin::specs::load_model(dir.path().string(), "llama"); });
  CHECK(printed.empty());
  CHECK(m.name == dir.path().string());  // a directory names the model
  CHECK(napkin::count_params(m).total == 8030261248);
  CHECK(napkin::specs::model_warnings(m) ==
        std::vector<std::string>{"model_type 'my_llama' counted as llama (--as llama): the count is by analogy, "
                                 "not exact; intermediate_size is read as each MLP matrix's width: where a family "
                                 "states the sum of gate and up (Qwen v1), the count is 2818572288 params (35.1%) "
                                 "lower"});
  // The file itself resolves the same way, named by its path.
  CHECK(napkin::specs::load_model((dir / "config.json").string(), "llama").name == (dir / "config.json").string());
}

TEST_CASE("specs::load_model refuses an unknown name with the closest preset and weights without a config",
          "[specs][load]") {
  CHECK_THROWS_WITH(napkin::specs::load_model("llama-3.1-9b"),
                    Catch::Matchers::Contains("did you mean 'llama-3.1-8b'?"));
  TempDir dir;
  napkin::test::write_safetensors(dir / "model.safetensors",
                                  R"({"w":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]}})", 8);
  const napkin::specs::ModelFiles f = napkin::specs::resolve_model_files(dir.path().string());
  CHECK(!f.spec);
  REQUIRE(f.checkpoint);
  CHECK(f.checkpoint->filename() == "model.safetensors");
  CHECK_THROWS_WITH(napkin::specs::load_model(dir.path().string()),
                    Catch::Matchers::Contains("safetensors weights without a config.json beside them"));
}

TEST_CASE("specs::is_checkpoint_path knows checkpoints by their extension", "[specs][load]") {
  CHECK(napkin::specs::is_checkpoint_path("m.safetensors"));
  CHECK(napkin::specs::is_checkpoint_path("model.safetensors.index.json"));
  CHECK(napkin::specs::is_checkpoint_path("m.gguf"));
  CHECK(!napkin::specs::is_checkpoint_path("config.json"));
  CHECK(!napkin::specs::is_checkpoint_path("llama-3.1-8b"));
}
