// Dense families of issue 13, batch A: Granite, Cohere (Command R, Aya; Cohere 2), StarCoder2,
// GPT-J and StableLM. Each count is compared with a checkpoint's total where one was found
// (tests/real-configs/<model>/SOURCE.md says where and shows the arithmetic); the KV cache at
// 32Ki tokens is computed by hand beside each.
#include <catch2/catch.hpp>

#include <string>

#include "napkin/memory/ledgers.h"
#include "napkin/model/params.h"
#include "napkin/specs/hf_config.h"
#include "real_configs.h"

using namespace napkin;
using namespace napkin::units;
using napkin_test::kv_32k;

TEST_CASE("Granite 3.3 8B: Llama's tensors, multipliers add nothing, tied head, 8,170,864,640", "[families]") {
  // HF's safetensors total for ibm-granite/granite-3.3-8b-instruct @ 51dd4bc (SOURCE.md):
  // 40 · (4096·(32 + 16)·128 + 4096·4096 + 3·4096·12800 + 2·4096) + 49159·4096 + 4096.
  const auto m = napkin_test::real_config("granite-3.3-8b-instruct");
  CHECK(m.family == "granite");
  CHECK(m.tied_embeddings);
  CHECK(count_params(m).total == 8170864640);
  // 8 KV heads of 128: 2 · 8 · 128 · 2 B = 4096 B per token and layer.
  CHECK(kv_32k(m) == 40.0 * 32768 * 4096);
}

TEST_CASE("Cohere (Aya Expanse 8B): one weight-only LayerNorm per parallel block, tied head, 8,028,033,024",
          "[families]") {
  // HF's safetensors parameter_count for CohereForAI/aya-expanse-8b (SOURCE.md):
  // 32 · (4096·(32 + 16)·128 + 4096·4096 + 3·4096·14336 + 4096) + 256000·4096 + 4096.
  const auto m = napkin_test::real_config("aya-expanse-8b");
  CHECK(m.family == "cohere");
  CHECK(m.norms_per_layer == 1);
  CHECK_FALSE(m.norm_bias);
  CHECK(count_params(m).total == 8028033024);
  CHECK(kv_32k(m) == 32.0 * 32768 * 2 * 8 * 128 * 2);
}

TEST_CASE("Cohere use_qk_norm adds a [heads, d_head] q_norm and a [kv_heads, d_head] k_norm per layer",
          "[families]") {
  // modeling_cohere.py CohereAttention: CohereLayerNorm((H, d_head)) and ((H_kv, d_head)), weight only.
  nlohmann::json j = {{"model_type", "cohere"},      {"hidden_size", 256},         {"num_hidden_layers", 3},
                      {"num_attention_heads", 8},    {"num_key_value_heads", 2},   {"intermediate_size", 512},
                      {"vocab_size", 1000},          {"use_qk_norm", false}};
  const auto plain = specs::from_hf_config(j, "config.json");
  j["use_qk_norm"] = true;
  const auto qk = specs::from_hf_config(j, "config.json");
  CHECK(count_params(qk).total - count_params(plain).total == 3 * (8 + 2) * 32);
  // Hand count of the plain one: 3 · (256·(8 + 4)·32 + 256·256 + 3·256·512 + 256) + 1000·256 + 256.
  CHECK(count_params(plain).total == 3 * (256 * 12 * 32 + 256 * 256 + 3 * 256 * 512 + 256) + 1000 * 256 + 256);
}

TEST_CASE("Cohere 2 (Command R7B's shape) windows three layers in four and has no QK-norm", "[families]") {
  // c4ai-command-r7b-12-2024's shape; configuration_cohere2.py: sliding_window_pattern 4 when
  // layer_types is absent. No checkpoint total was found for a Cohere 2 model: the count is the
  // hand computation 32 · (4096·48·128 + 4096·4096 + 3·4096·14336 + 4096) + 256000·4096 + 4096.
  nlohmann::json j = {{"model_type", "cohere2"},       {"hidden_size", 4096},       {"num_hidden_layers", 32},
                      {"num_attention_heads", 32},     {"num_key_value_heads", 8},  {"intermediate_size", 14336},
                      {"vocab_size", 256000},          {"sliding_window", 4096},    {"sliding_window_pattern", 4}};
  const auto m = specs::from_hf_config(j, "config.json");
  CHECK(m.family == "cohere2");
  REQUIRE(m.layer_kinds.size() == 32);
  CHECK(m.layer_attention(0) == specs::LayerAttention::sliding);
  CHECK(m.layer_attention(3) == specs::LayerAttention::full);
  CHECK(count_params(m).total == 8028033024);
  // 8 global layers keep 32768 tokens, 24 sliding ones 4096; 2 · 8 · 128 · 2 B per token and layer.
  CHECK(kv_32k(m) == 8.0 * 32768 * 4096 + 24.0 * 4096 * 4096);
}

TEST_CASE("StarCoder2 (3B's shape): LayerNorm and every projection with biases, plain MLP, sliding window",
          "[families]") {
  // bigcode/starcoder2-3b's shape (hidden 3072, 30 layers, 24 heads, 2 KV heads, MLP 12288, vocab
  // 49152, window 4096, tied by the class default). No checkpoint total was found: the hand count
  // is 30 · (3072·(24 + 4)·128 + 28·128 + 3072·3072 + 3072 + 2·3072·12288 + 12288 + 3072 + 4·3072)
  // + 49152·3072 + 2·3072.
  nlohmann::json j = {{"model_type", "starcoder2"},      {"hidden_size", 3072},      {"num_hidden_layers", 30},
                      {"num_attention_heads", 24},       {"num_key_value_heads", 2}, {"intermediate_size", 12288},
                      {"vocab_size", 49152},             {"sliding_window", 4096},   {"use_bias", true}};
  const auto m = specs::from_hf_config(j, "config.json");
  CHECK(m.tied_embeddings);
  const std::int64_t layer = 3072 * 28 * 128 + 28 * 128 + 3072 * 3072 + 3072 + 2 * 3072 * 12288 + 12288 + 3072 + 4 * 3072;
  CHECK(count_params(m).total == 30 * layer + 49152 * 3072 + 2 * 3072);
  CHECK(count_params(m).total == 3030371328);
  // Every layer keeps 4096 tokens; 2 · 2 · 128 · 2 B per token and layer.
  CHECK(kv_32k(m) == 30.0 * 4096 * 2 * 2 * 128 * 2);
}

TEST_CASE("GPT-J 6B: one LayerNorm per parallel block, unbiased attention, lm_head with bias, 6,050,882,784",
          "[families]") {
  // pytorch_model.bin @ 47e1693: 285 parameter tensors, the 56 attn.bias / masked_bias buffers left
  // out (SOURCE.md): 28 · (4·4096² + 2·4096·16384 + 16384 + 4096 + 2·4096) + 2·50400·4096 + 50400
  // + 2·4096.
  const auto m = napkin_test::real_config("gpt-j-6b");
  CHECK(m.family == "gptj");
  CHECK(m.ffn == 16384);
  CHECK(count_params(m).total == 6050882784);
  // 16 heads of 256 (MHA): 2 · 16 · 256 · 2 B per token and layer.
  CHECK(kv_32k(m) == 28.0 * 32768 * 2 * 16 * 256 * 2);
}

TEST_CASE("StableLM 2 1.6B: LayerNorm with bias, q/k/v biases, gated MLP, untied head, 1,644,515,328",
          "[families]") {
  // The checkpoint's count as the H2O-Danube comparison quotes it (SOURCE.md):
  // 24 · (3·2048·2048 + 3·2048 + 2048·2048 + 3·2048·5632 + 4·2048) + 2·100352·2048 + 2·2048.
  const auto m = napkin_test::real_config("stablelm-2-1_6b");
  CHECK(m.family == "stablelm");
  CHECK(count_params(m).total == 1644515328);
  CHECK(kv_32k(m) == 24.0 * 32768 * 2 * 32 * 64 * 2);
}

TEST_CASE("StableLM parallel residual drops a norm; qk_layernorm adds per-head weights without bias",
          "[families]") {
  nlohmann::json j = {{"model_type", "stablelm"},       {"hidden_size", 256},       {"num_hidden_layers", 2},
                      {"num_attention_heads", 8},       {"num_key_value_heads", 2}, {"intermediate_size", 512},
                      {"vocab_size", 1000}};
  const auto base = specs::from_hf_config(j, "config.json");
  j["use_parallel_residual"] = true;
  j["qk_layernorm"] = true;
  const auto par = specs::from_hf_config(j, "config.json");
  CHECK(par.norms_per_layer == 1);
  // One LayerNorm (2·256) fewer, (8 + 2) heads of 32 weights more, in each of 2 layers.
  CHECK(count_params(par).total - count_params(base).total == 2 * ((8 + 2) * 32 - 2 * 256));
}

TEST_CASE("the registry names Granite, Cohere, StarCoder2, GPT-J and StableLM among the families", "[families]") {
  const std::string names = ", " + specs::family_names() + ",";
  for (const char* f : {"granite", "cohere", "starcoder2", "gptj", "stablelm"}) {
    INFO(f);
    CHECK(names.find(std::string(", ") + f + ",") != std::string::npos);
  }
}
