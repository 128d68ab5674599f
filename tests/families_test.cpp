// Every family napkin counts, exact against a real checkpoint: tests/real-configs/<model>/ holds
// the config.json as published and SOURCE.md, which says where the checkpoint's total comes from
// (model.safetensors.index.json total_size over the dtype bytes, or the .bin index) and the
// arithmetic. The KV cache at 32Ki tokens is computed by hand beside each.
#include <catch2/catch.hpp>

#include <string>

#include "napkin/memory/ledgers.h"
#include "napkin/model/params.h"
#include "napkin/specs/hf_config.h"
#include "real_configs.h"

using namespace napkin;
using namespace napkin::units;
using napkin_test::kv_32k;

TEST_CASE("gpt-oss-20b: experts with biases, router bias and attention sinks give the checkpoint's 20,914,757,184",
          "[families]") {
  // total_size 13,761,264,768 B: bf16 tensors plus MXFP4 expert blocks (2 values per byte) and
  // scales (SOURCE.md); the model card says 20.91B.
  const auto m = napkin_test::real_config("gpt-oss-20b");
  CHECK(m.family == "gpt_oss");
  CHECK(count_params(m).total == 20914757184);
  // 24 layers alternate sliding (128 tokens) and full; 8 KV heads of 64: 2 · 8 · 64 · 2 B = 2048 B
  // per token and layer.
  CHECK(kv_32k(m) == 12.0 * 32768 * 2048 + 12.0 * 128 * 2048);
}

TEST_CASE("Gemma 3 27B, nested in text_config: QK-norm, four norms, tied head, 27,432,406,640 with its SigLIP tower",
          "[families]") {
  // medgemma-27b-it (Gemma 3 27B's architecture): total_size 54,864,813,280 B in bf16 is
  // 27,432,406,640 params, of which the SigLIP tower and projector are 423,060,336 (SOURCE.md;
  // data/architectures/gemma3_vision.json counts them), the language model 27,009,346,304.
  const auto m = napkin_test::real_config("medgemma-27b-it");
  CHECK(m.family == "gemma3_text");
  CHECK(count_params(m).total == 27432406640);
  CHECK(count_params(m).active == 27009346304);  // the tower is outside a text token's parameters
  REQUIRE(m.tower);
  auto text_only = m;
  text_only.tower.reset();  // --text-only
  CHECK(count_params(text_only).total == 27009346304);
  // layer_types: 10 full layers (every sixth), 52 sliding over 1024 tokens; 16 KV heads of 128:
  // 2 · 16 · 128 · 2 B = 8192 B per token and layer.
  CHECK(kv_32k(m) == 10.0 * 32768 * 8192 + 52.0 * 1024 * 8192);
}

TEST_CASE("Gemma 3 without layer_types slides five layers in six and fills the class defaults", "[families]") {
  nlohmann::json j = {{"model_type", "gemma3_text"}, {"num_hidden_layers", 12}, {"sliding_window", 512}};
  const auto m = specs::from_hf_config(j, "config.json");
  REQUIRE(m.layer_kinds.size() == 12);
  CHECK(m.layer_attention(5) == specs::LayerAttention::full);
  CHECK(m.layer_attention(11) == specs::LayerAttention::full);
  CHECK(m.layer_attention(0) == specs::LayerAttention::sliding);
  CHECK(m.hidden == 2304);
  CHECK(m.head_dim == 256);
  REQUIRE_FALSE(m.notes.empty());
  CHECK(m.notes.back().find("class defaults of configuration_gemma3.py") != std::string::npos);
}

TEST_CASE("BLOOM 176B: ALiBi, embedding LayerNorm, biases everywhere, tied head, 176,247,271,424", "[families]") {
  // bigscience/bloom: total_size 352,494,542,848 B in bf16.
  const auto m = napkin_test::real_config("bloom-176b");
  CHECK(count_params(m).total == 176247271424);
  // 70 layers, 112 heads of 128 (MHA): 2 · 112 · 128 · 2 B per token and layer.
  CHECK(kv_32k(m) == 70.0 * 32768 * 2 * 112 * 128 * 2);
}

TEST_CASE("GraniteMoE counts as Mixtral's layout: granite-3.1-1b-a400m is 1,334,628,352", "[families]") {
  // The fp32 index: total_size 5,338,513,408 B / 4.
  const auto m = napkin_test::real_config("granite-3.1-1b-a400m-instruct");
  CHECK(count_params(m).total == 1334628352);
  CHECK(kv_32k(m) == 24.0 * 32768 * 2 * 8 * 64 * 2);
}

TEST_CASE("Falcon-40B in its original RefinedWeb format reads n_head_kv: 41,303,293,952", "[families]") {
  // pytorch_model.bin.index.json: 83,671,941,120 B in bf16 = 41,835,970,560 stored, lm_head
  // stored beside the embedding it is tied to; unique parameters 41,303,293,952 (SOURCE.md).
  const auto m = napkin_test::real_config("falcon-40b");
  CHECK(m.family == "falcon");
  CHECK(m.kv_heads == 8);
  CHECK(count_params(m).total == 41303293952);
  CHECK(kv_32k(m) == 60.0 * 32768 * 2 * 8 * 64 * 2);
}

TEST_CASE("Falcon-180B in the current format is 178,557,088,768", "[families]") {
  // index total_size 359,045,130,240 B in bf16 = 179,522,565,120 stored; tied lm_head stored too.
  const auto m = napkin_test::real_config("falcon-180B-chat");
  CHECK(count_params(m).total == 178557088768);
  CHECK(kv_32k(m) == 80.0 * 32768 * 2 * 8 * 64 * 2);
}

TEST_CASE("Mistral-Small-3.1's text model (Devstral-Small-2507) is 23,572,403,200", "[families]") {
  // index total_size 47,144,806,400 B in bf16; its metadata total_parameters agrees. head_dim 128
  // with 32 heads is 4096, not the hidden 5120.
  const auto m = napkin_test::real_config("devstral-small-2507");
  CHECK(count_params(m).total == 23572403200);
  CHECK(kv_32k(m) == 40.0 * 32768 * 2 * 8 * 128 * 2);
}

TEST_CASE("GPT-NeoX (RedPajama-INCITE-7B) is 6,857,302,016", "[families]") {
  // .bin index 13,731,385,408 B in fp16 less 16,781,376 B of buffers (causal masks, inv_freq).
  const auto m = napkin_test::real_config("redpajama-incite-7b-base");
  CHECK(count_params(m).total == 6857302016);
  CHECK(kv_32k(m) == 32.0 * 32768 * 2 * 32 * 128 * 2);
}

TEST_CASE("layer_types other than full, sliding and chunked attention are refused", "[families]") {
  nlohmann::json j = {{"model_type", "llama"}, {"hidden_size", 64},       {"num_hidden_layers", 2},
                      {"num_attention_heads", 4}, {"intermediate_size", 128}, {"vocab_size", 100},
                      {"layer_types", {"full_attention", "linear_attention"}}};
  CHECK_THROWS_WITH(specs::from_hf_config(j, "config.json"),
                    "config.json: /layer_types: expected one of full, sliding, chunked, none, got 'linear_attention' "
                    "(llama spec/layer_attention (layer 1) = kind)");
}

TEST_CASE("chunked layers keep at most one chunk of keys, and need attention_chunk_size", "[families]") {
  nlohmann::json j = {{"model_type", "llama"}, {"hidden_size", 64},       {"num_hidden_layers", 2},
                      {"num_attention_heads", 4}, {"intermediate_size", 128}, {"vocab_size", 100},
                      {"layer_types", {"full_attention", "chunked_attention"}}};
  CHECK_THROWS_WITH(specs::from_hf_config(j, "config.json"),
                    Catch::Contains("attention_chunk_size") && Catch::Contains("chunked_attention"));
  j["attention_chunk_size"] = 1024;
  const auto m = specs::from_hf_config(j, "config.json");
  CHECK(m.layer_attention(1) == specs::LayerAttention::chunked);
  // 4 KV heads of 16 in bf16: 2 · 4 · 16 · 2 B = 256 B per token and layer; the full layer keeps
  // 32768 keys, the chunked one 1024.
  CHECK(kv_32k(m) == (32768.0 + 1024.0) * 256);
}
