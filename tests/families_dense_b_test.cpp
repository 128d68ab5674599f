// Families added for issue 13 (second batch of dense families): OLMo / OLMo-2 / OLMoE, ChatGLM and
// GLM-4, Phi, DeepSeek-MoE v1. Each real checkpoint's config.json and the source of its total are in
// tests/real-configs/<model>/ (SOURCE.md has the arithmetic); families without a checkpoint total
// found are checked against a hand count from their modeling file. KV cache at 32Ki by hand.
#include <catch2/catch.hpp>

#include <string>

#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/params.h"
#include "napkin/specs/hf_config.h"
#include "real_configs.h"

using namespace napkin;
using namespace napkin::units;
using napkin_test::kv_32k;

TEST_CASE("OLMo-2 13B: post-norms and full-width q_norm/k_norm give the checkpoint's 13,716,198,400",
          "[families]") {
  // model.safetensors.index.json total_size 54,864,793,600 B in fp32 / 4 (SOURCE.md).
  const auto m = napkin_test::real_config("olmo-2-1124-13b");
  CHECK(m.family == "olmo2");
  CHECK(count_params(m).total == 13716198400);
  // 40 layers, 40 KV heads of 128: 2 · 40 · 128 · 2 B = 20480 B per token and layer.
  CHECK(kv_32k(m) == 40.0 * 32768 * 20480);
}

TEST_CASE("OLMo's non-parametric LayerNorms count nothing; q/k/v/o and the MLP are Llama's", "[families]") {
  // modeling_olmo.py: OlmoLayerNorm has no weight or bias; clip_qkv adds no weights.
  const nlohmann::json j = {{"model_type", "olmo"},           {"hidden_size", 64},      {"num_hidden_layers", 2},
                            {"num_attention_heads", 4},       {"intermediate_size", 96}, {"vocab_size", 100},
                            {"clip_qkv", 8.0},                {"tie_word_embeddings", true}};
  const auto m = specs::from_hf_config(j, "config.json");
  const auto c = count_params(m);
  CHECK(c.group(ParamGroup::norm) == 0);
  // tied embedding 100·64; per layer 4·64·64 + 3·64·96.
  CHECK(c.total == 100 * 64 + 2 * (4 * 64 * 64 + 3 * 64 * 96));
}

TEST_CASE("OLMoE 1B-7B's shape: full-width q/k norms, 64 experts, router without bias, 6,919,161,856",
          "[families]") {
  // No config.json copy was found: these are OLMoE-1B-7B-0924's fields as several public configs
  // quote them. 6,919,161,856 is the count of the checkpoint's safetensors headers (3,219 BF16 tensors,
  // revision 6d84c48) and of the Hub's API (F32 upload), quoted by third parties; see the report.
  const nlohmann::json j = {{"model_type", "olmoe"},          {"hidden_size", 2048},      {"num_hidden_layers", 16},
                            {"num_attention_heads", 16},      {"num_key_value_heads", 16}, {"intermediate_size", 1024},
                            {"num_experts", 64},              {"num_experts_per_tok", 8},  {"vocab_size", 50304},
                            {"tie_word_embeddings", false}};
  const auto m = specs::from_hf_config(j, "config.json");
  CHECK(m.moe.n_experts == 64);
  CHECK(count_params(m).total == 6919161856);
  CHECK(kv_32k(m) == 16.0 * 32768 * 2 * 16 * 128 * 2);
}

TEST_CASE("ChatGLM2-6B: fused QKV with bias over 2 KV groups, SwiGLU, padded vocab, untied: 6,243,584,000",
          "[families]") {
  // pytorch_model.bin.index.json total_size 12,487,168,064 B in fp16 = 6,243,584,032 stored, less the
  // 32-entry rotary inv_freq buffer (SOURCE.md).
  const auto m = napkin_test::real_config("chatglm2-6b");
  CHECK(m.family == "chatglm");
  CHECK(m.kv_heads == 2);
  CHECK(count_params(m).total == 6243584000);
  // 28 layers, 2 KV groups of 128: 2 · 2 · 128 · 2 B = 1024 B per token and layer.
  CHECK(kv_32k(m) == 28.0 * 32768 * 1024);
}

TEST_CASE("the first ChatGLM-6B layout under model_type chatglm is refused", "[families]") {
  const nlohmann::json j = {{"model_type", "chatglm"}, {"hidden_size", 4096},         {"num_layers", 28},
                            {"num_attention_heads", 32}, {"inner_hidden_size", 16384}, {"vocab_size", 130528},
                            {"position_encoding_2d", true}};
  CHECK_THROWS_AS(specs::from_hf_config(j, "config.json"), InputError);
}

TEST_CASE("GLM (glm-4-9b-chat-hf layout) and GLM-4-0414: q/k/v biases, no o_proj bias, glm4's four norms",
          "[families]") {
  // modeling_glm.py GlmAttention (q/k/v bias = attention_bias, o_proj bias=False), GlmMLP gate_up_proj
  // (2·F, no bias); modular_glm4.py Glm4DecoderLayer adds post_self_attn_layernorm and post_mlp_layernorm.
  nlohmann::json j = {{"model_type", "glm"},          {"hidden_size", 64},         {"num_hidden_layers", 2},
                      {"num_attention_heads", 4},     {"num_key_value_heads", 2},  {"head_dim", 16},
                      {"intermediate_size", 96},      {"vocab_size", 100},         {"attention_bias", true},
                      {"partial_rotary_factor", 0.5}, {"tie_word_embeddings", false}};
  // per layer: q/k/v 64·(4 + 2·2)·16 + bias (4 + 2·2)·16, o 4·16·64, MLP 3·64·96, norms 2·64.
  const long layer = 64 * 8 * 16 + 8 * 16 + 4 * 16 * 64 + 3 * 64 * 96 + 2 * 64;
  CHECK(count_params(specs::from_hf_config(j, "config.json")).total == 2 * 100 * 64 + 2 * layer + 64);
  j["model_type"] = "glm4";
  CHECK(count_params(specs::from_hf_config(j, "config.json")).total == 2 * 100 * 64 + 2 * (layer + 2 * 64) + 64);
}

TEST_CASE("Phi-2: parallel block, one LayerNorm, biases everywhere, lm_head with bias: 2,779,683,840",
          "[families]") {
  // model.safetensors.index.json total_size 5,559,367,680 B in fp16 / 2 (SOURCE.md).
  const auto m = napkin_test::real_config("phi-2");
  CHECK(m.family == "phi");
  CHECK(count_params(m).total == 2779683840);
  // 32 layers, 32 heads of 80 (MHA): 2 · 32 · 80 · 2 B = 10240 B per token and layer.
  CHECK(kv_32k(m) == 32.0 * 32768 * 10240);
}

TEST_CASE("Phi's qk_layernorm adds a LayerNorm (weight and bias) over d_head for q and for k", "[families]") {
  nlohmann::json j = {{"model_type", "phi"},      {"hidden_size", 64},        {"num_hidden_layers", 1},
                      {"num_attention_heads", 4}, {"intermediate_size", 128}, {"vocab_size", 100}};
  const auto without = count_params(specs::from_hf_config(j, "config.json")).total;
  j["qk_layernorm"] = true;
  CHECK(count_params(specs::from_hf_config(j, "config.json")).total == without + 2 * 2 * 16);
}

TEST_CASE("DeepSeek-MoE v1 16B's shape: MHA, one dense layer, 64 routed + 2 shared experts: 16,375,728,128",
          "[families]") {
  // deepseek-ai/deepseek-moe-16b-base config.json fields (configuration_deepseek.py names). The total
  // is the figure third-party workload files give for this checkpoint (num_params 16375728128,
  // num_params_embedding 419430400); no index total_size was found (see the report).
  const nlohmann::json j = {{"model_type", "deepseek"},
                            {"hidden_size", 2048},
                            {"num_hidden_layers", 28},
                            {"num_attention_heads", 16},
                            {"num_key_value_heads", 16},
                            {"intermediate_size", 10944},
                            {"moe_intermediate_size", 1408},
                            {"n_routed_experts", 64},
                            {"n_shared_experts", 2},
                            {"num_experts_per_tok", 6},
                            {"first_k_dense_replace", 1},
                            {"moe_layer_freq", 1},
                            {"vocab_size", 102400},
                            {"tie_word_embeddings", false}};
  const auto m = specs::from_hf_config(j, "config.json");
  CHECK(m.family == "deepseek");
  CHECK(m.attention == specs::AttentionKind::mha);
  const auto c = count_params(m);
  CHECK(c.dense_layers == 1);
  CHECK(c.moe_layers == 27);
  // dense layer 4·2048² + 3·2048·10944 + 2·2048; MoE layer 4·2048² + 64·3·2048·1408 + 3·2048·2816 +
  // 64·2048 + 2·2048; embeddings 2·102400·2048, final norm 2048.
  CHECK(c.total == 16375728128);
  CHECK(kv_32k(m) == 28.0 * 32768 * 2 * 16 * 128 * 2);
}

TEST_CASE("Mistral-Small-3.x (mistral3) counts its text_config and its Pixtral tower: 24,011,361,280",
          "[families]") {
  // Mistral3ForConditionalGeneration keeps the language model in text_config (model_type mistral).
  // Its text model is Devstral-Small-2507's (same text_config fields; that checkpoint's index total
  // is 23,572,403,200). The Hub's safetensors.total of Mistral-Small-3.2-24B-Instruct-2506 is
  // 24,011,361,280 (quoted by a third party); the vision parts, from modeling_pixtral.py and
  // modeling_mistral3.py at vision hidden 1024, 24 layers, MLP 4096, patch 14, text hidden 5120
  // (data/architectures/mistral3_vision.json):
  //   tower: patch_conv 3·14·14·1024 + ln_pre 1024 + 24·(4·1024² + 3·1024·4096 + 2·1024) = 403,305,472
  //   projector: norm 1024 + patch_merger 4·1024·1024 + linear_1 1024·5120 + linear_2 5120·5120 = 35,652,608
  //   23,572,403,200 + 403,305,472 + 35,652,608 = 24,011,361,280.
  const std::string text_path = std::string(NAPKIN_SOURCE_DIR) + "/tests/real-configs/devstral-small-2507/config.json";
  const nlohmann::json text = specs::read_json_file(text_path);
  nlohmann::json j = {{"architectures", {"Mistral3ForConditionalGeneration"}},
                      {"model_type", "mistral3"},
                      {"text_config", text},
                      {"vision_config",
                       {{"model_type", "pixtral"}, {"hidden_size", 1024}, {"num_hidden_layers", 24},
                        {"intermediate_size", 4096}, {"patch_size", 14}}}};
  auto m = specs::from_hf_config(j, "config.json");
  CHECK(m.family == "mistral");
  CHECK(count_params(m).total == 24011361280);
  REQUIRE_FALSE(m.notes.empty());
  CHECK(m.notes.back() == "language model read from text_config");
  REQUIRE(m.tower);
  m.tower.reset();  // --text-only
  CHECK(count_params(m).total == 23572403200);
  // PixtralVisionConfig's patch_size default is 16 (Mistral3Config's own default vision config has 14).
  j["vision_config"].erase("patch_size");
  CHECK(count_params(specs::from_hf_config(j, "config.json")).total == 24011361280 + 1024 * 3 * (16 * 16 - 14 * 14));
}

TEST_CASE("Phi-3-mini-4k and Phi-4 count as Llama (fused qkv_proj and gate_up_proj hold the same weights)",
          "[families]") {
  // No config.json copy was kept: the fields below are those of microsoft/Phi-3-mini-4k-instruct's and
  // microsoft/phi-4's config.json as quoted by third parties. Totals: Phi-3-mini 3,821,079,552 (the
  // Hub's safetensors.total as quoted in a model registry, and keras-hub's phi3_mini_4k preset
  // "params"); Phi-4 14,659,507,200 (GGUF general.parameter_count of the converted checkpoint, and
  // safetensors_total_bytes 29,319,014,400 / 2 in bf16).
  nlohmann::json mini = {{"model_type", "phi3"},         {"hidden_size", 3072},      {"num_hidden_layers", 32},
                         {"num_attention_heads", 32},    {"num_key_value_heads", 32}, {"intermediate_size", 8192},
                         {"vocab_size", 32064},          {"max_position_embeddings", 4096},
                         {"sliding_window", 2047},       {"tie_word_embeddings", false}};
  const auto m = specs::from_hf_config(mini, "config.json");
  CHECK(count_params(m).total == 3821079552);
  // sliding_window 2047 on every layer (modeling_phi3.py passes it to the attention): 32 layers keep
  // 2047 tokens of 2 · 32 · 96 · 2 B.
  CHECK(kv_32k(m) == 32.0 * 2047 * 2 * 32 * 96 * 2);
  const nlohmann::json phi4 = {{"model_type", "phi3"},        {"hidden_size", 5120},      {"num_hidden_layers", 40},
                               {"num_attention_heads", 40},   {"num_key_value_heads", 10}, {"intermediate_size", 17920},
                               {"vocab_size", 100352},        {"max_position_embeddings", 16384},
                               {"tie_word_embeddings", false}};
  const auto p4 = specs::from_hf_config(phi4, "config.json");
  CHECK(count_params(p4).total == 14659507200);
  CHECK(kv_32k(p4) == 40.0 * 32768 * 2 * 10 * 128 * 2);
}
