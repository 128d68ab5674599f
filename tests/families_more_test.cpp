// More real configs per family (tests/real-configs/<model>/SOURCE.md says where each config and
// total come from). Each count is the checkpoint's, or, where no total was found ("by hand"), the
// hand computation beside it; the KV cache at 32Ki tokens is computed by hand.
#include <catch2/catch.hpp>

#include <string>

#include "napkin/memory/ledgers.h"
#include "napkin/model/params.h"
#include "napkin/specs/hf_config.h"
#include "real_configs.h"

using namespace napkin;
using namespace napkin::units;
using napkin_test::kv_32k;

TEST_CASE("Phi-3-mini-4k: 3,821,079,552 as its index, every layer windowed at 2047 keys", "[families]") {
  // index total_size 7,642,159,104 B in bf16 / 2.
  const auto m = napkin_test::real_config("phi-3-mini-4k-instruct");
  CHECK(count_params(m).total == 3821079552);
  // 32 layers, 32 KV heads of 96: 2 · 32 · 96 · 2 B = 12,288 B per token and layer, 2047 kept.
  CHECK(kv_32k(m) == 32.0 * 2047 * 12288);
}

TEST_CASE("Phi-4: 14,659,507,200 as its index, 10 KV heads, window of 16384", "[families]") {
  // index total_size 29,319,014,400 B in bf16 / 2.
  const auto m = napkin_test::real_config("phi-4");
  CHECK(count_params(m).total == 14659507200);
  CHECK(kv_32k(m) == 40.0 * 16384 * (2 * 10 * 128 * 2));
}

TEST_CASE("Mistral-Small-3.1 (mistral3): 24,011,361,280 with the Pixtral tower, 23,572,403,200 text only", "[families]") {
  // 24,011,361,280 for the whole checkpoint: the text model 23,572,403,200, the vision tower
  // 403,305,472 and projector 35,652,608 (SOURCE.md; data/architectures/mistral3_vision.json).
  auto m = napkin_test::real_config("mistral-small-3.1-24b-instruct-2503");
  CHECK(count_params(m).total == 24011361280);
  CHECK(count_params(m).active == 23572403200);
  REQUIRE(m.tower);
  m.tower.reset();  // --text-only
  CHECK(count_params(m).total == 23572403200);
  CHECK(kv_32k(m) == 40.0 * 32768 * (2 * 8 * 128 * 2));
}

TEST_CASE("OLMoE-1B-7B: 64 experts with full-width q/k norms, 6,919,161,856", "[families]") {
  const auto m = napkin_test::real_config("olmoe-1b-7b-0924");
  CHECK(count_params(m).total == 6919161856);
  CHECK(kv_32k(m) == 16.0 * 32768 * (2 * 16 * 128 * 2));
}

TEST_CASE("DeepSeek-MoE 16B: one dense layer, 64 routed and 2 shared experts, 16,375,728,128", "[families]") {
  const auto m = napkin_test::real_config("deepseek-moe-16b-base");
  CHECK(count_params(m).total == 16375728128);
  CHECK(kv_32k(m) == 28.0 * 32768 * (2 * 16 * 128 * 2));
}

TEST_CASE("StarCoder2 3B and 15B (by hand): biases, plain MLP, 15B's untied head, 4096-token windows",
          "[families]") {
  const auto s3 = napkin_test::real_config("starcoder2-3b");
  // 30 layers: q/k/v/o with biases (24 + 2·2 heads of 128), c_fc/c_proj 3072↔12288 with biases,
  // two LayerNorms with bias; tied embedding 49152·3072; final LayerNorm.
  const std::int64_t layer3 = 3072LL * (24 + 4) * 128 + (24 + 4) * 128 + 3072LL * 3072 + 3072 +
                              2 * 3072LL * 12288 + 12288 + 3072 + 2 * 2 * 3072;
  CHECK(count_params(s3).total == 30 * layer3 + 49152LL * 3072 + 2 * 3072);
  CHECK(kv_32k(s3) == 30.0 * 4096 * (2 * 2 * 128 * 2));
  const auto s15 = napkin_test::real_config("starcoder2-15b");
  const std::int64_t layer15 = 6144LL * (48 + 8) * 128 + (48 + 8) * 128 + 6144LL * 6144 + 6144 +
                               2 * 6144LL * 24576 + 24576 + 6144 + 2 * 2 * 6144;
  CHECK(count_params(s15).total == 40 * layer15 + 2 * 49152LL * 6144 + 2 * 6144);
  CHECK(kv_32k(s15) == 40.0 * 4096 * (2 * 4 * 128 * 2));
  // No checkpoint total confirms StarCoder2 yet: every command says so.
  CHECK(s3.unverified.find("no checkpoint total has confirmed it yet") != std::string::npos);
  CHECK(napkin_test::real_config("phi-4").unverified.empty());
}

TEST_CASE("Command A (cohere2, by hand): 16 global and 48 windowed layers of weight-only LayerNorms",
          "[families]") {
  const auto m = napkin_test::real_config("command-a-03-2025");
  // 64 layers: q (96·128), k and v (8·128 each), o; gated MLP 12288↔36864; one weight-only
  // LayerNorm; tied embedding 256000·12288; final weight-only LayerNorm.
  const std::int64_t layer = 12288LL * (96 + 16) * 128 + 96LL * 128 * 12288 + 3 * 12288LL * 36864 + 12288;
  CHECK(count_params(m).total == 64 * layer + 256000LL * 12288 + 12288);
  CHECK(kv_32k(m) == 16.0 * 32768 * 4096 + 48.0 * 4096 * 4096);
}

TEST_CASE("mamba-2.8b-hf: 64 Mamba-1 layers, 2,768,345,600 as the loaded checkpoint counts", "[families]") {
  const auto m = napkin_test::real_config("mamba-2.8b-hf");
  CHECK(count_params(m).total == 2768345600);
  CHECK(kv_32k(m) == 0.0);
}

TEST_CASE("GLM-4-9B-chat (chatglm): 2 KV groups, q/k/v biases, untied output layer, 9,399,951,360", "[families]") {
  // The loaded checkpoint's trainable parameters (SOURCE.md); its 32 more values are inv_freq.
  const auto m = napkin_test::real_config("glm-4-9b-chat");
  CHECK(count_params(m).total == 9399951360);
  CHECK(kv_32k(m) == 40.0 * 32768 * (2 * 2 * 128 * 2));
}

TEST_CASE("GLM (glm-4-9b-chat-hf's layout, model_type glm) counts the 9,399,951,360 of the checkpoint it converts",
          "[families]") {
  // The keys of glm-4-9b-chat as transformers >= 4.46 exports it (GlmForCausalLM), as a public
  // config-loader test states them (search index id 70487556887); the weights are those of
  // THUDM/glm-4-9b-chat (tests/real-configs/glm-4-9b-chat), renamed.
  const nlohmann::json j = {{"model_type", "glm"},       {"architectures", {"GlmForCausalLM"}},
                            {"hidden_size", 4096},       {"intermediate_size", 13696},
                            {"num_hidden_layers", 40},   {"num_attention_heads", 32},
                            {"num_key_value_heads", 2},  {"head_dim", 128},
                            {"vocab_size", 151552},      {"partial_rotary_factor", 0.5},
                            {"attention_bias", true},    {"tie_word_embeddings", false},
                            {"max_position_embeddings", 131072}};
  const auto m = specs::from_hf_config(j, "config.json");
  CHECK(count_params(m).total == 9399951360);
  // GlmConfig's class defaults are glm-4-9b-chat's (configuration_glm.py): a config that leaves
  // them out counts the same, and says which it took.
  const nlohmann::json bare = {{"model_type", "glm"}};
  const auto d = specs::from_hf_config(bare, "config.json");
  CHECK(count_params(d).total == 9399951360);
  CHECK(d.kv_heads == 2);
  CHECK(d.head_dim == 128);
  REQUIRE_FALSE(d.notes.empty());
  CHECK(d.notes.front().rfind("absent from the config, the class defaults of configuration_glm.py GlmConfig", 0) == 0);
  // GlmMLP has no biases whatever a config says of mlp_bias (GlmConfig has no such field).
  nlohmann::json biased = j;
  biased["mlp_bias"] = true;
  CHECK(count_params(specs::from_hf_config(biased, "config.json")).total == 9399951360);
}
