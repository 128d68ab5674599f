// `napkin params MODEL` as a user meets it: MODEL as a preset, a config.json, a model directory or
// napkin model JSON, and the one-line errors (exit 2) for the rest. Runs the real binary.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"
#include "checkpoint_files.h"
#include "run_napkin.h"

namespace {

using napkin_test::Run;
using napkin_test::run_napkin;

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

std::string preset_config(const char* name) {
  for (const auto& p : napkin::specs::model_preset_texts())
    if (p.name == name) return napkin::specs::parse_json_text(p.json, "preset").at("config").dump(2);
  return "";
}

double total_of(const std::string& json_out) {
  return napkin::specs::parse_json_text(json_out, "output").at("results").at("total_params").at("value").get<double>();
}

}  // namespace

TEST_CASE("params reads a config.json file, a model directory and napkin model JSON", "[cli][params]") {
  const napkin::test::TempDir tmp;
  const auto dir = tmp.path();
  write(dir / "config.json", preset_config("llama-3.1-8b"));
  SECTION("a config.json") {
    const Run r = run_napkin("params " + (dir / "config.json").string() + " --json");
    REQUIRE(r.code == 0);
    CHECK(total_of(r.out) == 8030261248.0);
  }
  SECTION("a directory holding config.json") {
    const Run r = run_napkin("params " + dir.string() + " --json");
    REQUIRE(r.code == 0);
    CHECK(total_of(r.out) == 8030261248.0);
  }
  SECTION("napkin model JSON") {
    const auto f = dir / "tiny.json";
    write(f, R"({"napkin_model": 1, "hidden": 64, "layers": 2, "heads": 4, "vocab": 100, "ffn": 256})");
    const Run r = run_napkin("params " + f.string() + " --json");
    REQUIRE(r.code == 0);
    // 2·100·64 (untied) + 2·(4·64·64 + 3·64·256 + 2·64) + 64
    CHECK(total_of(r.out) == 2.0 * 100 * 64 + 2.0 * (4 * 64 * 64 + 3 * 64 * 256 + 2 * 64) + 64);
  }
}

TEST_CASE("params on an unknown preset is exit 2 with the closest name", "[cli][params]") {
  const Run r = run_napkin("params lama-3.1-8b");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: unknown model preset 'lama-3.1-8b'; did you mean 'llama-3.1-8b'? (napkin presets models)\n");
}

TEST_CASE("params on a config without num_hidden_layers is exit 2 naming the file and pointer", "[cli][params]") {
  auto j = napkin::specs::parse_json_text(preset_config("mistral-7b"), "preset");
  j.erase("num_hidden_layers");
  const napkin::test::TempDir tmp;
  const auto f = tmp / "config.json";
  write(f, j.dump());
  const Run r = run_napkin("params " + f.string());
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: " + f.string() +
                     ": /num_hidden_layers: missing; expected a positive integer (number of layers L)\n");
}

TEST_CASE("params on a missing path is exit 2 saying what MODEL may be", "[cli][params]") {
  const Run r = run_napkin("params ./no/such/config.json");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: ./no/such/config.json: no such file or directory; expected a preset name (napkin "
                 "presets models), a config.json, a model directory or napkin model JSON\n");
}

TEST_CASE("params on a file that is not JSON is exit 2 naming the file", "[cli][params]") {
  const napkin::test::TempDir tmp;
  const auto f = tmp / "config.json";
  write(f, "{ not json");
  const Run r = run_napkin("params " + f.string());
  CHECK(r.code == 2);
  CHECK(r.out.rfind("napkin: error: " + f.string() + ": not valid JSON", 0) == 0);
}

TEST_CASE("presets models lists every preset with total and active params", "[cli][params]") {
  const Run r = run_napkin("presets models --json");
  REQUIRE(r.code == 0);
  const auto j = napkin::specs::parse_json_text(r.out, "output");
  REQUIRE(j.is_array());
  CHECK(j.size() == napkin::specs::model_preset_names().size());
  bool mixtral = false;
  for (const auto& row : j)
    if (row.at("inputs").at("model") == "mixtral-8x7b") {
      mixtral = true;
      CHECK(row.at("results").at("total_params").at("value") == 46702792704.0);
      CHECK(row.at("results").at("active_params").at("value") == 12879925248.0);
      CHECK(row.at("results").at("checkpoint_total").at("value") == "matches");
    }
  CHECK(mixtral);
}

namespace {

// A two-layer Llama-style model (D 64, 4 heads, 2 KV heads of 16, F 128, V 100, untied) as a
// BF16 safetensors file, with one rotary inv_freq buffer per layer (F32) as old conversions
// stored them, and its config.json. Formula count: 2·100·64 + 2·(4096 + 2·2048 + 4096 +
// 3·64·128 + 2·64) + 64 = 86,848.
constexpr double kTinyTotal = 86848.0;

void write_tiny_llama(const std::filesystem::path& dir, int config_layers) {
  nlohmann::json header = nlohmann::json::object();
  std::uint64_t offset = 0;
  const auto add = [&](const std::string& name, std::vector<std::uint64_t> shape, const char* dtype = "BF16") {
    std::uint64_t n = 1;
    for (auto d : shape) n *= d;
    const std::uint64_t bytes = n * (std::string(dtype) == "F32" ? 4 : 2);
    header[name] = {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  };
  add("model.embed_tokens.weight", {100, 64});
  for (int l = 0; l < 2; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    add(p + "self_attn.q_proj.weight", {64, 64});
    add(p + "self_attn.k_proj.weight", {32, 64});
    add(p + "self_attn.v_proj.weight", {32, 64});
    add(p + "self_attn.o_proj.weight", {64, 64});
    add(p + "self_attn.rotary_emb.inv_freq", {8}, "F32");
    add(p + "mlp.gate_proj.weight", {128, 64});
    add(p + "mlp.up_proj.weight", {128, 64});
    add(p + "mlp.down_proj.weight", {64, 128});
    add(p + "input_layernorm.weight", {64});
    add(p + "post_attention_layernorm.weight", {64});
  }
  add("model.norm.weight", {64});
  add("lm_head.weight", {100, 64});
  napkin::test::write_safetensors(dir / "model.safetensors", header.dump(), offset);
  const nlohmann::json config = {{"model_type", "llama"},       {"hidden_size", 64},  {"num_hidden_layers", config_layers},
                                 {"num_attention_heads", 4},    {"num_key_value_heads", 2}, {"intermediate_size", 128},
                                 {"vocab_size", 100},           {"tie_word_embeddings", false}};
  write(dir / "config.json", config.dump());
}

}  // namespace

TEST_CASE("params on a model directory counts 86,848 from the safetensors headers and matches config.json",
          "[cli][params]") {
  napkin::test::TempDir dir;
  write_tiny_llama(dir.path(), 2);
  const Run r = run_napkin("params " + dir.path().string() + " --json");
  REQUIRE(r.code == 0);
  const auto j = napkin::specs::parse_json_text(r.out, "output");
  CHECK(j.at("results").at("total_params").at("value") == kTinyTotal);
  CHECK(j.at("results").at("config_total_params").at("value") == kTinyTotal);
  CHECK(j.at("results").at("config_difference").at("value") == 0.0);
  CHECK(j.at("results").at("dtype_BF16").at("value") == kTinyTotal);
  CHECK(j.at("results").at("dtype_F32").at("value") == 16.0);  // the two inv_freq buffers
  CHECK(j.at("results").at("attention").at("value") == 2.0 * (4096 + 2 * 2048 + 4096));
}

TEST_CASE("params on a .safetensors file whose config.json says 3 layers warns by tensor group", "[cli][params]") {
  napkin::test::TempDir dir;
  write_tiny_llama(dir.path(), 3);
  const Run r = run_napkin("params " + (dir / "model.safetensors").string() + " --csv");
  CHECK(r.code == 0);
  CHECK(r.out.find("napkin: warning: attention: the checkpoint holds 24,576 params and config.json implies 36,864 "
                   "params (difference -12,288 params); check the config\n") != std::string::npos);
  CHECK(r.out.find("napkin: warning: mlp: the checkpoint holds 49,152 params and config.json implies 73,728 params "
                   "(difference -24,576 params); check the config\n") != std::string::npos);
}

TEST_CASE("params counts a .gguf file from its headers by tensor group and ggml type", "[cli][params]") {
  using namespace napkin::test::gguf_types;
  const napkin::test::TempDir tmp;
  // A one-block llama: D = 64, 4 heads, 2 KV heads of 16, FFN 128, vocabulary 100.
  napkin::test::GgufBuilder g;
  g.kv("general.architecture", STRING).str("llama");
  g.kv("llama.block_count", U32).u32(1);
  g.tensor("token_embd.weight", {64, 100}, Q8_0, 64 * 100 / 32 * 34);
  g.tensor("output_norm.weight", {64}, F32, 64 * 4);
  g.tensor("output.weight", {64, 100}, Q8_0, 64 * 100 / 32 * 34);
  g.tensor("blk.0.attn_norm.weight", {64}, F32, 64 * 4);
  g.tensor("blk.0.attn_q.weight", {64, 64}, F16, 64 * 64 * 2);
  g.tensor("blk.0.attn_k.weight", {64, 32}, F16, 64 * 32 * 2);
  g.tensor("blk.0.attn_v.weight", {64, 32}, F16, 64 * 32 * 2);
  g.tensor("blk.0.attn_output.weight", {64, 64}, F16, 64 * 64 * 2);
  g.tensor("blk.0.ffn_norm.weight", {64}, F32, 64 * 4);
  g.tensor("blk.0.ffn_gate.weight", {64, 128}, Q8_0, 64 * 128 / 32 * 34);
  g.tensor("blk.0.ffn_up.weight", {64, 128}, Q8_0, 64 * 128 / 32 * 34);
  g.tensor("blk.0.ffn_down.weight", {128, 64}, Q8_0, 64 * 128 / 32 * 34);
  const auto f = tmp.path() / "tiny.gguf";
  write(f, g.build());
  const Run r = run_napkin("params " + f.string() + " --json");
  REQUIRE(r.code == 0);
  const auto j = napkin::specs::parse_json_text(r.out, "output");
  const auto& res = j.at("results");
  CHECK(res.at("total_params").at("value").get<double>() == 49856.0);
  CHECK(res.at("embedding").at("value").get<double>() == 6400.0);
  CHECK(res.at("attention").at("value").get<double>() == 2.0 * 64 * 64 + 2.0 * 64 * 32);
  CHECK(res.at("mlp").at("value").get<double>() == 3.0 * 64 * 128);
  CHECK(res.at("norm").at("value").get<double>() == 192.0);
  CHECK(res.at("dtype_Q8_0").at("value").get<double>() == 2.0 * 6400 + 3.0 * 64 * 128);
  for (const char* fmt : {"", " --jsonl", " --csv", " --explain"}) {
    INFO(fmt);
    CHECK(run_napkin("params " + f.string() + fmt).code == 0);
  }
}

namespace {

// A one-layer Mixtral-style config (D 8, 2 heads, 1 KV head, F 4, V 4, 4 experts, 2 per token)
// beside `expert_elements` elements of expert weights in one safetensors tensor.
void write_tiny_moe(const std::filesystem::path& dir, std::uint64_t expert_elements) {
  const nlohmann::json config = {{"model_type", "mixtral"},   {"hidden_size", 8},         {"num_hidden_layers", 1},
                                 {"num_attention_heads", 2},  {"num_key_value_heads", 1}, {"intermediate_size", 4},
                                 {"vocab_size", 4},           {"num_local_experts", 4},   {"num_experts_per_tok", 2},
                                 {"tie_word_embeddings", false}};
  write(dir / "config.json", config.dump());
  const std::string header =
      R"({"model.layers.0.block_sparse_moe.experts.0.w1.weight": {"dtype": "F16", "shape": [)" +
      std::to_string(expert_elements) + R"(], "data_offsets": [0, )" + std::to_string(2 * expert_elements) +
      R"(]}, "model.embed_tokens.weight": {"dtype": "F16", "shape": [4, 8], "data_offsets": [)" +
      std::to_string(2 * expert_elements) + ", " + std::to_string(2 * expert_elements + 64) + "]}}";
  napkin::test::write_safetensors(dir / "model.safetensors", header, 2 * expert_elements + 64);
}

}  // namespace

TEST_CASE("params on a MoE config beside a checkpoint with fewer expert weights than it skips is exit 2, "
          "not a wrapped 1.8e19",
          "[cli][params]") {
  const napkin::test::TempDir dir;
  // config.json: 4 experts of 3·8·4 = 96 per layer; a token skips 2 of them, 192 params.
  write_tiny_moe(dir.path(), 100);
  const Run r = run_napkin("params " + dir.path().string() + " --json");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: " + dir.path().string() +
                     ": config.json says a token skips 192 params of expert weights, but the checkpoint's expert "
                     "tensors hold 100 params; expected the config.json of these weights (a packed quantized "
                     "checkpoint, such as GPTQ int32, counts fewer elements than parameters)\n");
}

TEST_CASE("params on a MoE config beside its expert weights takes the skipped experts out of the total",
          "[cli][params]") {
  const napkin::test::TempDir dir;
  write_tiny_moe(dir.path(), 384);
  const Run r = run_napkin("params " + dir.path().string() + " --json");
  REQUIRE(r.code == 0);
  const auto j = napkin::specs::parse_json_text(r.out.substr(r.out.find('{')), "output");
  CHECK(j.at("results").at("total_params").at("value").get<double>() == 384.0 + 32.0);
  CHECK(j.at("results").at("active_params").at("value").get<double>() == 384.0 + 32.0 - 192.0);
}

TEST_CASE("params on a checkpoint of buffers alone is exit 2, not 0 params at 0/0 bits per weight",
          "[cli][params]") {
  const napkin::test::TempDir dir;
  napkin::test::write_safetensors(
      dir / "model.safetensors",
      R"({"model.layers.0.self_attn.rotary_emb.inv_freq": {"dtype": "F32", "shape": [8], "data_offsets": [0, 32]}})",
      32);
  const Run r = run_napkin("params " + (dir / "model.safetensors").string());
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: " + (dir / "model.safetensors").string() +
                     ": no weight tensors (1 buffer tensor(s) only); expected a checkpoint with weights\n");
}

TEST_CASE("params prints no bits per weight for a storage type whose tensors are all empty", "[cli][params]") {
  const napkin::test::TempDir dir;
  napkin::test::write_safetensors(dir / "model.safetensors",
                                  R"({"model.embed_tokens.weight": {"dtype": "F16", "shape": [4, 8], "data_offsets": [0, 64]},
                                      "model.extra": {"dtype": "F32", "shape": [0], "data_offsets": [64, 64]}})",
                                  64);
  const Run r = run_napkin("params " + (dir / "model.safetensors").string());
  CHECK(r.code == 0);
  CHECK(r.out.find("1 tensors, all empty") != std::string::npos);
  CHECK(r.out.find("0 bits/weight") == std::string::npos);
}
