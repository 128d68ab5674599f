// A checkpoint of a family napkin does not count (issue 28): its weights are exact from the
// safetensors headers, and what needs the architecture (the KV cache) is refused naming it.
#include <catch2/catch.hpp>

#include <string>

#include "checkpoint_files.h"
#include "run_napkin.h"

using napkin::test::TempDir;
using napkin_test::run_napkin;

namespace {

// Two layers of a made-up hybrid: 1000×64 embedding, per layer in_proj 256×64, out_proj 64×128
// and a norm of 64, a final norm: 64000 + 2·(16384 + 8192 + 64) + 64 = 113344 parameters, bf16.
void write_unknown_model(const TempDir& dir) {
  std::string header = "{";
  std::uint64_t off = 0;
  auto add = [&](const std::string& name, std::uint64_t rows, std::uint64_t cols) {
    const std::uint64_t bytes = rows * (cols == 0 ? 1 : cols) * 2;
    header += (header.size() > 1 ? "," : "") + std::string("\"") + name + "\":{\"dtype\":\"BF16\",\"shape\":[" +
              std::to_string(rows) + (cols == 0 ? "" : "," + std::to_string(cols)) + "],\"data_offsets\":[" +
              std::to_string(off) + "," + std::to_string(off + bytes) + "]}";
    off += bytes;
  };
  add("model.embed_tokens.weight", 1000, 64);
  for (int l = 0; l < 2; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    add(p + "mixer.in_proj.weight", 256, 64);
    add(p + "mixer.out_proj.weight", 64, 128);
    add(p + "norm.weight", 64, 0);
  }
  add("model.norm.weight", 64, 0);
  header += "}";
  napkin::test::write_safetensors(dir / "model.safetensors", header, off);
  napkin::test::write_file(dir / "config.json",
                           R"({"model_type": "foo_hybrid", "architectures": ["FooForCausalLM"], "hidden_size": 64,
                               "num_hidden_layers": 2, "vocab_size": 1000})");
}

}  // namespace

TEST_CASE("params of an unknown family's checkpoint counts its weights exactly from the headers", "[unknown-family]") {
  TempDir dir;
  write_unknown_model(dir);
  const auto r = run_napkin("params " + dir.path().string() + " --json");
  REQUIRE(r.code == 0);
  CHECK(r.out.find(R"("total_params":{"value":113344,)") != std::string::npos);
  CHECK(r.out.find("model_type 'foo_hybrid' is not a family napkin counts: the weights are counted from the "
                   "checkpoint's headers alone") != std::string::npos);
}

TEST_CASE("memory of an unknown family's checkpoint refuses the KV cache naming the family, with the weights",
          "[unknown-family]") {
  TempDir dir;
  write_unknown_model(dir);
  const auto r = run_napkin("memory " + dir.path().string() + " --context 8192");
  CHECK(r.code == 2);
  CHECK(r.out.find("model_type 'foo_hybrid' is not a family napkin counts, so its KV cache, activations and FLOPs "
                   "cannot be sized (its weights, from the safetensors headers: 113344 params in 226688 B") !=
        std::string::npos);
  // Without the weights beside it, the config alone is refused as before.
  std::filesystem::remove(dir / "model.safetensors");
  const auto alone = run_napkin("params " + dir.path().string());
  CHECK(alone.code == 2);
  CHECK(alone.out.find("'foo_hybrid' is not a family napkin counts; expected one of") != std::string::npos);
}
