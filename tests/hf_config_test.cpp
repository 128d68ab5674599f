// Hugging Face config.json and napkin model JSON ingestion (src/specs/hf_config.cpp,
// src/specs/napkin_json.cpp), presets lookup and the did-you-mean error.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "napkin/ground/error.h"
#include "napkin/model/params.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/napkin_json.h"
#include "napkin/specs/presets.h"
#include "preset_config.h"

using json = nlohmann::json;
using napkin::count_params;
using napkin::specs::from_hf_config;

using napkin_test::llama_config;

namespace {

std::string error_of(const json& j, const char* file = "config.json") {
  try {
    from_hf_config(j, file);
  } catch (const napkin::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("halving num_hidden_layers of Llama-3.1-8B gives 4,540,469,248: 16 layers of 218,112,000 fewer",
          "[specs][hf_config]") {
  json j = llama_config();
  j["num_hidden_layers"] = 16;
  CHECK(count_params(from_hf_config(j, "config.json")).total == 8030261248 - 16LL * 218112000);
}

TEST_CASE("a 32000-token vocabulary on Llama-3.1-8B gives Mistral-7B's 7,241,732,096", "[specs][hf_config]") {
  json j = llama_config();
  j["vocab_size"] = 32000;
  CHECK(count_params(from_hf_config(j, "config.json")).total == 7241732096);
}

TEST_CASE("tying the embeddings of Llama-3.1-8B removes the 525,336,576-parameter head", "[specs][hf_config]") {
  json j = llama_config();
  j["tie_word_embeddings"] = true;
  CHECK(count_params(from_hf_config(j, "config.json")).total == 8030261248 - 128256LL * 4096);
}

TEST_CASE("a missing num_hidden_layers is an error naming the file and the JSON pointer", "[specs][hf_config]") {
  json j = llama_config();
  j.erase("num_hidden_layers");
  CHECK(error_of(j) == "config.json: /num_hidden_layers: missing; expected a positive integer (number of layers L)");
}

TEST_CASE("a negative num_key_value_heads is an error showing the value", "[specs][hf_config]") {
  json j = llama_config();
  j["num_key_value_heads"] = -8;
  CHECK(error_of(j, "llama.json") ==
        "llama.json: /num_key_value_heads: expected a positive integer (key/value heads), got -8");
}

TEST_CASE("a GPT-2 config without n_embd names every spelling it looked for", "[specs][hf_config]") {
  const json j = {{"model_type", "gpt2"}, {"n_layer", 12}, {"n_head", 12}, {"vocab_size", 50257}, {"n_positions", 1024}};
  CHECK(error_of(j) == "config.json: /n_embd: missing (also looked for /hidden_size); expected a positive integer "
                       "(hidden size D)");
}

TEST_CASE("an unknown model_type is refused, naming it and every model_type napkin reads", "[specs][hf_config]") {
  json j = llama_config();
  j["model_type"] = "my_llama";
  j.erase("architectures");  // with a known class it counts as that class (below)
  CHECK(error_of(j) == "config.json: /model_type: 'my_llama' is not a family napkin counts; expected one of " +
                           napkin::specs::model_type_names() + " (or --as FAMILY to count it by analogy with one, stated as a warning)");
  // --as takes every model type, and the names of the hand-written readers the tables replaced.
  CHECK(napkin::specs::family_names() == napkin::specs::model_type_names() + ", deepseek_moe, gemma3, llama4");
  for (const char* name : {"llama", "mixtral", "llama4", "qwen2", "qwen3", "gemma", "gemma3", "gpt_oss", "mamba", "jamba",
                           "nemotron_h", "bloom", "gpt2", "gpt_neox", "opt", "falcon", "deepseek", "olmo", "chatglm", "glm",
                           "phi", "deepseek_moe", "bert", "granite", "cohere", "starcoder2", "gptj", "stablelm", "t5"}) {
    INFO("--as " << name);
    std::string e;
    try {
      from_hf_config(j, "config.json", name);
    } catch (const napkin::InputError& x) {
      e = x.what();
    }
    CHECK(e.find("expected a family napkin counts") == std::string::npos);
  }
  j.erase("model_type");
  j.erase("architectures");
  CHECK(error_of(j).rfind("config.json: /model_type: missing; expected one of " + napkin::specs::model_type_names(), 0) ==
        0);
}

TEST_CASE("an unknown model_type is read by analogy with --as, which says so", "[specs][hf_config]") {
  json j = llama_config();
  j["model_type"] = "my_llama";
  j.erase("architectures");
  const auto m = from_hf_config(j, "config.json", "llama");
  CHECK(count_params(m).total == 8030261248);
  CHECK(m.family == "llama");
  // The warning gives the size of what the analogy may get wrong: Qwen v1's intermediate_size
  // convention would halve the MLP (3 · 32 · 4096 · 7168 of 8030261248).
  CHECK(m.analogy == "model_type 'my_llama' counted as llama (--as llama): the count is by analogy, not exact; intermediate_size is "
        "read as each MLP matrix's width: where a family states the sum of gate and up (Qwen v1), the count is "
        "2818572288 params (35.1%) lower");
  json untied = j;
  untied.erase("tie_word_embeddings");
  CHECK(from_hf_config(untied, "config.json", "llama").analogy.find(
            "tie_word_embeddings is absent and llama's default (untied) is used: a family whose default is tied counts "
            "525336576 params (6.5%) fewer") != std::string::npos);
  // A known model_type takes no --as; an unknown family name is refused.
  CHECK_THROWS_WITH(from_hf_config(llama_config(), "config.json", "llama"),
                    Catch::Matchers::StartsWith("--as: 'llama': expected no --as for a known family"));
  CHECK_THROWS_WITH(from_hf_config(j, "config.json", "not_a_family"),
                    Catch::Matchers::StartsWith("--as: 'not_a_family': expected a family napkin counts: " +
                                                napkin::specs::family_names()));
}

TEST_CASE("reading by analogy never counts experts, state-space layers or an encoder-decoder as a dense decoder",
          "[specs][hf_config]") {
  json j = llama_config();
  j["model_type"] = "my_moe";
  j.erase("architectures");
  j["num_local_experts"] = 8;
  CHECK_THROWS_WITH(from_hf_config(j, "config.json", "llama"),
                    Catch::Matchers::StartsWith("config.json: /num_local_experts: a mixture-of-experts key"));
  j["num_experts_per_tok"] = 2;
  CHECK(count_params(from_hf_config(j, "config.json", "mixtral")).total > 8030261248);  // experts read
  json s = llama_config();
  s["model_type"] = "my_hybrid";
  s.erase("architectures");
  s["attn_layer_period"] = 8;
  CHECK_THROWS_WITH(from_hf_config(s, "config.json", "llama"),
                    Catch::Matchers::StartsWith("config.json: /attn_layer_period: a state-space (Mamba) layer key"));
  json t = llama_config();
  t["model_type"] = "my_t5";
  t.erase("architectures");
  t["is_encoder_decoder"] = true;
  CHECK_THROWS_WITH(from_hf_config(t, "config.json", "llama"),
                    Catch::Matchers::StartsWith("config.json: /is_encoder_decoder: an encoder-decoder key"));
}

TEST_CASE("without model_type, architectures[0] names the family", "[specs][hf_config]") {
  json j = llama_config();
  j.erase("model_type");
  j["architectures"] = {"LlamaForCausalLM"};
  const auto m = from_hf_config(j, "config.json");
  CHECK(m.family == "llama");
  CHECK(count_params(m).total == 8030261248);
}

TEST_CASE("the language model of a vision-language config is read from text_config", "[specs][hf_config]") {
  json j = {{"model_type", "llava"}, {"text_config", llama_config()}, {"vision_config", {{"hidden_size", 1024}}}};
  auto m = from_hf_config(j, "config.json");
  // The CLIP tower and projector (data/architectures/llava_vision.json) at CLIPVisionConfig's
  // defaults but hidden 1024: 12 layers, MLP 3072, image 224, patch 32 (50 positions), text hidden 4096.
  const std::int64_t clip = 1024 + 1024 * 3 * 32 * 32 + 50 * 1024 + 2 * 1024 +
                            12 * (4 * (1024 * 1024 + 1024) + 4 * 1024 + 2 * 1024 * 3072 + 3072 + 1024) + 2 * 1024;
  const std::int64_t projector = 1024 * 4096 + 4096 + 4096 * 4096 + 4096;
  CHECK(count_params(m).total == 8030261248 + clip + projector);
  m.tower.reset();  // --text-only
  CHECK(count_params(m).total == 8030261248);
  // What the nested config leaves out, transformers fills from LlamaConfig: said as a note.
  j["text_config"].erase("intermediate_size");
  const auto d = from_hf_config(j, "config.json");
  CHECK(d.ffn == 11008);
  CHECK(std::find(d.notes.begin(), d.notes.end(),
                  "absent from text_config, the defaults of its configuration class (llama): intermediate_size 11008") !=
        d.notes.end());
  j["text_config"]["hidden_size"] = -1;
  // The language model's reader refuses it (a tower that cannot be read refuses only when it is
  // counted: --text-only may still count the language model).
  CHECK(error_of(j).find("/text_config/hidden_size") != std::string::npos);
  CHECK(error_of(j).find("got -1") != std::string::npos);
}

TEST_CASE("OPT-350m's project_in/out and missing final norm give 331,196,416", "[specs][hf_config]") {
  // facebook/opt-350m: word_embed_proj_dim 512 < hidden 1024, do_layer_norm_before false.
  // 50272·512 + 2050·1024 + 2·512·1024 + 24·(4·(1024² + 1024) + 2·2048 + 2·1024·4096 + 4096 + 1024)
  const json j = {{"model_type", "opt"},          {"hidden_size", 1024},        {"ffn_dim", 4096},
                  {"num_hidden_layers", 24},      {"num_attention_heads", 16}, {"vocab_size", 50272},
                  {"max_position_embeddings", 2048}, {"word_embed_proj_dim", 512}, {"do_layer_norm_before", false}};
  const auto m = from_hf_config(j, "config.json");
  const auto c = count_params(m);
  CHECK(c.group(napkin::ParamGroup::other) == 2 * 512 * 1024);
  CHECK(c.total == 331196416);
}

TEST_CASE("Falcon: multi_query false is multi-head; new_decoder_architecture has two norms and num_kv_heads",
          "[specs][hf_config]") {
  json j = {{"model_type", "falcon"}, {"hidden_size", 64}, {"num_hidden_layers", 2}, {"num_attention_heads", 4},
            {"vocab_size", 100}};
  auto m = from_hf_config(j, "config.json");
  CHECK(m.kv_heads == 1);  // multi_query defaults to true
  CHECK(m.norms_per_layer == 1);
  j["multi_query"] = false;
  CHECK(from_hf_config(j, "config.json").kv_heads == 4);
  j["new_decoder_architecture"] = true;
  j["num_kv_heads"] = 2;
  m = from_hf_config(j, "config.json");
  CHECK(m.kv_heads == 2);
  CHECK(m.norms_per_layer == 2);
  // tied head: 100·64; per layer 64·(4 + 2·2)·16 + 64·64 + 2·64·256 + 2·2·64; final 2·64
  CHECK(count_params(m).total == 100 * 64 + 2 * (64 * 8 * 16 + 64 * 64 + 2 * 64 * 256 + 2 * 2 * 64) + 2 * 64);
}

TEST_CASE("napkin model JSON round-trips every preset to the same count", "[specs][hf_config]") {
  for (const auto& name : napkin::specs::model_preset_names()) {
    INFO(name);
    const auto m = napkin::specs::load_model_preset(name);
    if (m.tower || !napkin::formulas_reproduce_tensors(m)) {
      // A tower (a Gemma 3 preset's SigLIP) or a tensor table the spec's fields do not say is not
      // carried by napkin model JSON: refused.
      CHECK_THROWS_WITH(napkin::specs::to_napkin_json(m), Catch::Contains("does not carry the tensor table"));
      continue;
    }
    const auto back = napkin::specs::from_napkin_json(napkin::specs::to_napkin_json(m), "round-trip.json");
    const auto a = count_params(m), b = count_params(back);
    CHECK(a.total == b.total);
    CHECK(a.active == b.active);
    CHECK(a.groups == b.groups);
  }
}

TEST_CASE("napkin model JSON round-trips every real config to the same count, or refuses what it cannot carry",
          "[specs][hf_config]") {
  namespace fs = std::filesystem;
  int round_trips = 0, refused = 0;
  for (const auto& dir : fs::directory_iterator(std::string(NAPKIN_SOURCE_DIR) + "/tests/real-configs")) {
    const fs::path config = dir.path() / "config.json";
    if (!fs::exists(config)) continue;
    INFO(config.string());
    if (fs::exists(dir.path() / "expect.json") &&
        napkin::specs::read_json_file((dir.path() / "expect.json").string()).contains("refused"))
      continue;  // a config napkin refuses (tests/real_config_totals_test.cpp checks the error)
    const auto m = napkin::specs::read_hf_config(config.string());
    if (m.has_mamba() || m.encoder_decoder || m.tower || !napkin::formulas_reproduce_tensors(m)) {
      CHECK_THROWS_WITH(napkin::specs::to_napkin_json(m), Catch::Contains("napkin model JSON does not carry"));
      ++refused;
      continue;
    }
    const auto back = napkin::specs::from_napkin_json(napkin::specs::to_napkin_json(m), "round-trip.json");
    const auto a = count_params(m), b = count_params(back);
    CHECK(a.total == b.total);
    CHECK(a.groups == b.groups);
    for (std::int64_t l = 0; l < m.layers; ++l) CHECK(m.layer_attention(l) == back.layer_attention(l));
    ++round_trips;
  }
  CHECK(round_trips > 10);
  CHECK(refused > 3);
}

TEST_CASE("napkin model JSON without layers is an error naming /layers", "[specs][hf_config]") {
  const json j = {{"napkin_model", 1}, {"hidden", 64}, {"heads", 4}, {"vocab", 100}, {"ffn", 256}};
  try {
    napkin::specs::from_napkin_json(j, "tiny.json");
    FAIL("expected InputError");
  } catch (const napkin::InputError& e) {
    CHECK(std::string(e.what()) == "tiny.json: /layers: missing; expected a positive integer (number of layers L)");
  }
}

TEST_CASE("an unknown preset suggests the closest name", "[specs][hf_config]") {
  try {
    napkin::specs::load_model_preset("lama-3.1-8b");
    FAIL("expected InputError");
  } catch (const napkin::InputError& e) {
    CHECK(std::string(e.what()) ==
          "unknown model preset 'lama-3.1-8b'; did you mean 'llama-3.1-8b'? (napkin presets models)");
  }
}

TEST_CASE("a Qwen-MoE config with dense mlp_only_layers is refused rather than miscounted", "[specs][hf_config]") {
  const json j = {{"model_type", "qwen2_moe"},     {"hidden_size", 64},        {"num_hidden_layers", 2},
                  {"num_attention_heads", 4},      {"vocab_size", 100},        {"num_experts", 4},
                  {"num_experts_per_tok", 2},      {"moe_intermediate_size", 32}, {"mlp_only_layers", {1}},
                  {"shared_expert_intermediate_size", 64}};
  CHECK(error_of(j) == "config.json: /mlp_only_layers: [1]: expected mlp_only_layers [] (dense layers between MoE "
                       "layers are not supported) (qwen2_moe dense = has($mlp_only_layers) && len($mlp_only_layers) > "
                       "0 ? 0 : 1 is 0, not a positive integer)");
}

TEST_CASE("config.json in Python's dialect: Infinity and NaN outside strings read as null", "[specs][hf_config]") {
  // Python's json.dump writes float('inf') as Infinity; real configs carry such fields.
  const std::string text = R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
    "rope_theta": 500000.0, "router_z_loss_coef": NaN, "max_grad": -Infinity, "note": "NaN and Infinity stay text",
    "clip": Infinity})";
  const json j = napkin::specs::parse_json_text(text, "config.json");
  CHECK(j.at("router_z_loss_coef").is_null());
  CHECK(j.at("max_grad").is_null());
  CHECK(j.at("note") == "NaN and Infinity stay text");
  CHECK(count_params(from_hf_config(j, "config.json")).total == 8030261248);
  // A field napkin reads that holds NaN is missing, never a number.
  const std::string bad = R"({"model_type": "llama", "hidden_size": NaN, "num_hidden_layers": 2,
    "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100})";
  CHECK_THROWS_WITH(from_hf_config(napkin::specs::parse_json_text(bad, "config.json"), "config.json"),
                    "config.json: /hidden_size: missing; expected a positive integer (hidden size D)");
  // Anything else that is not JSON is still an error naming the byte.
  CHECK_THROWS_WITH(napkin::specs::parse_json_text("{\"a\": Infinity,}", "config.json"),
                    "config.json: not valid JSON (byte 7)");
}
