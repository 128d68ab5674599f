// Llama 4 (model_type llama4 with a llama4_text text_config; modeling_llama4.py), exact against
// the checkpoints' own totals: tests/real-configs/llama-4-*/SOURCE.md says where each total comes
// from and how the vision tower and projector (871,932,416 parameters, not counted) are taken
// off. KV caches at 32Ki tokens are computed by hand beside each.
#include <catch2/catch.hpp>

#include <string>

#include "napkin/memory/ledgers.h"
#include "napkin/model/params.h"
#include "napkin/plans/serve.h"
#include "napkin/specs/hf_config.h"
#include "real_configs.h"
#include "run_napkin.h"

using namespace napkin;
using namespace napkin::units;
using napkin_test::kv_32k;

namespace {

// One layer's attention: q and o 5120·(40·128), k and v 5120·(8·128), no biases.
constexpr std::int64_t kAttention = 2 * 5120 * 5120 + 2 * 5120 * 1024;
// One gated MLP of width 8192 (a routed expert, or the shared expert): 3·5120·8192.
constexpr std::int64_t kExpert = 3LL * 5120 * 8192;

}  // namespace

TEST_CASE("Llama 4 Scout's text model: 48 MoE layers of 16 experts and a shared one, 107,769,861,120",
          "[families]") {
  // The checkpoint (meta-llama/Llama-4-Scout-17B-16E-Instruct) holds 108,641,793,536 bf16
  // parameters (Hugging Face's safetensors.total); the vision tower and projector are 871,932,416
  // of them (SOURCE.md).
  const auto m = napkin_test::real_config("llama-4-scout-17b-16e-instruct");
  CHECK(m.family == "llama4_text");
  const ParamCount c = count_params(m);
  CHECK(c.moe_layers == 48);
  CHECK(c.dense_layers == 0);
  CHECK(c.moe_layer.attention == kAttention);
  CHECK(c.moe_layer.routed == 16 * kExpert);
  CHECK(c.moe_layer.shared == kExpert);
  CHECK(c.moe_layer.router == 5120 * 16);  // no bias
  CHECK(c.moe_layer.norm == 2 * 5120);     // the L2 QK-norm has no weights
  CHECK(c.total == 107769861120);
  CHECK(c.total == 108641793536 - 871932416);
  // Active: one routed expert of 16 and the shared one in each layer.
  CHECK(c.active == 107769861120 - 48LL * 15 * kExpert);
  CHECK(c.active == 17172894720);
  // Every fourth layer (3, 7, ..., 47) is NoPE with full attention, the 36 others attend within
  // their 8192-token chunk. 8 KV heads of 128 in bf16: 2 · 8 · 128 · 2 B = 4096 B per token and
  // layer; at 32Ki the 12 full layers keep 32768 keys and the 36 chunked ones 8192.
  REQUIRE(m.layer_kinds.size() == 48);
  CHECK(m.layer_attention(3) == specs::LayerAttention::full);
  CHECK(m.layer_attention(47) == specs::LayerAttention::full);
  CHECK(m.layer_attention(0) == specs::LayerAttention::chunked);
  CHECK(m.layers_of(specs::LayerAttention::full) == 12);
  CHECK(m.layers_of(specs::LayerAttention::chunked) == 36);
  CHECK(m.attention_chunk == 8192);
  CHECK(kv_32k(m) == 12.0 * 32768 * 4096 + 36.0 * 8192 * 4096);
  CHECK(kv_32k(m) == 2818572288.0);
}

TEST_CASE("Llama 4 Maverick's text model: 24 dense and 24 MoE layers of 128 experts, 400,711,848,960",
          "[families]") {
  // The checkpoint (meta-llama/Llama-4-Maverick-17B-128E-Instruct) holds 401,583,781,376 bf16
  // parameters (Hugging Face's API figure); the same vision tower and projector, 871,932,416.
  const auto m = napkin_test::real_config("llama-4-maverick-17b-128e-instruct");
  const ParamCount c = count_params(m);
  // interleave_moe_layer_step 2: the MoE layers are 1, 3, ..., 47.
  CHECK(c.moe_layers == 24);
  CHECK(c.dense_layers == 24);
  CHECK_FALSE(m.is_moe_layer(0));
  CHECK(m.is_moe_layer(1));
  CHECK(m.is_moe_layer(47));
  CHECK(c.dense_layer.mlp == 3LL * 5120 * 16384);  // intermediate_size_mlp
  CHECK(c.moe_layer.routed == 128 * kExpert);
  CHECK(c.moe_layer.shared == kExpert);
  CHECK(c.moe_layer.router == 5120 * 128);
  CHECK(c.total == 400711848960);
  CHECK(c.total == 401583781376 - 871932416);
  CHECK(c.active == 400711848960 - 24LL * 127 * kExpert);
  CHECK(c.active == 17184691200);
  // use_qk_norm false changes no count; the attention layout is Scout's.
  CHECK(kv_32k(m) == 12.0 * 32768 * 4096 + 36.0 * 8192 * 4096);
}

TEST_CASE("Llama 4 as the Hub files spell it (moe_layers, no_rope_layers, layer_types) counts the same", "[families]") {
  // The Hub's config.json lists moe_layers and no_rope_layers (transformers >= 4.53 also
  // layer_types); the stored copies in tests/real-configs leave them to the class defaults.
  const std::string dir = std::string(NAPKIN_SOURCE_DIR) + "/tests/real-configs/";
  nlohmann::json scout = specs::read_json_file(dir + "llama-4-scout-17b-16e-instruct/config.json");
  nlohmann::json maverick = specs::read_json_file(dir + "llama-4-maverick-17b-128e-instruct/config.json");
  nlohmann::json all, odd, rope, kinds;
  for (int i = 0; i < 48; ++i) {
    all.push_back(i);
    if (i % 2 == 1) odd.push_back(i);
    rope.push_back((i + 1) % 4 != 0 ? 1 : 0);
    kinds.push_back((i + 1) % 4 != 0 ? "chunked_attention" : "full_attention");
  }
  scout["text_config"]["moe_layers"] = all;
  scout["text_config"]["no_rope_layers"] = rope;
  maverick["text_config"]["moe_layers"] = odd;
  maverick["text_config"]["layer_types"] = kinds;
  const auto s = specs::from_hf_config(scout, "config.json");
  const auto v = specs::from_hf_config(maverick, "config.json");
  CHECK(count_params(s).total == 107769861120);
  CHECK(count_params(v).total == 400711848960);
  CHECK(kv_32k(s) == 2818572288.0);
  CHECK(kv_32k(v) == 2818572288.0);
}

TEST_CASE("Llama 4's moe_layers and no_rope_layers lists decide the layers when a config gives them", "[families]") {
  nlohmann::json t = {{"model_type", "llama4_text"},
                      {"hidden_size", 64},
                      {"num_hidden_layers", 4},
                      {"num_attention_heads", 4},
                      {"num_key_value_heads", 2},
                      {"head_dim", 16},
                      {"intermediate_size", 32},
                      {"intermediate_size_mlp", 128},
                      {"vocab_size", 100},
                      {"num_local_experts", 4},
                      {"attention_chunk_size", 16},
                      {"moe_layers", {1, 3}},
                      {"no_rope_layers", {1, 0, 1, 1}}};
  const nlohmann::json j = {{"model_type", "llama4"}, {"text_config", t}};
  const auto m = specs::from_hf_config(j, "config.json");
  // Nested: the note says the vision tower is not counted.
  bool vision_note = false;
  for (const auto& n : m.notes) vision_note = vision_note || n.find("the vision tower and projector are not counted") != std::string::npos;
  CHECK(vision_note);
  CHECK_FALSE(m.is_moe_layer(0));
  CHECK(m.is_moe_layer(1));
  CHECK_FALSE(m.is_moe_layer(2));
  CHECK(m.is_moe_layer(3));
  CHECK(m.layer_attention(0) == specs::LayerAttention::chunked);
  CHECK(m.layer_attention(1) == specs::LayerAttention::full);
  // Per layer: attention 64·(4 + 2·2)·16 + 4·16·64, 2 norms of 64. Dense: 3·64·128. MoE: 4
  // routed + 1 shared expert of 3·64·32, router 64·4. Embeddings and head 2·100·64, final norm 64.
  const std::int64_t attn = 64 * 8 * 16 + 64 * 64, norms = 2 * 64;
  const std::int64_t dense = attn + norms + 3 * 64 * 128, moe = attn + norms + 5 * 3 * 64 * 32 + 64 * 4;
  CHECK(count_params(m).total == 2 * dense + 2 * moe + 2 * 100 * 64 + 64);
  // 2 KV heads of 16 in bf16: 128 B per token and layer; 1 full layer keeps 32768, 3 chunked 16.
  CHECK(kv_32k(m) == (32768.0 + 3 * 16.0) * 128);

  SECTION("an empty moe_layers makes every layer dense") {
    t["moe_layers"] = nlohmann::json::array();
    const auto d = specs::from_hf_config(t, "config.json");
    CHECK(count_params(d).moe_layers == 0);
    CHECK(count_params(d).total == 4 * dense + 2 * 100 * 64 + 64);
  }
  SECTION("MoE layers that are not every k-th layer to the end are refused") {
    t["moe_layers"] = {0, 1, 3};
    CHECK_THROWS_WITH(specs::from_hf_config(t, "config.json"), Catch::Contains("/moe_layers"));
    t["moe_layers"] = {0};  // one MoE layer alone is a progression
    CHECK(count_params(specs::from_hf_config(t, "config.json")).moe_layers == 1);
    t["moe_layers"] = {1, 2};
    CHECK_THROWS_WITH(specs::from_hf_config(t, "config.json"), Catch::Contains("/moe_layers"));
  }
  SECTION("no_rope_layers must be 0 or 1 for every layer") {
    t["no_rope_layers"] = {1, 0};
    CHECK_THROWS_WITH(specs::from_hf_config(t, "config.json"), Catch::Contains("/no_rope_layers"));
    t["no_rope_layers"] = {1, 2, 1, 1};
    CHECK_THROWS_WITH(specs::from_hf_config(t, "config.json"), Catch::Contains("/no_rope_layers"));
  }
}

TEST_CASE("Llama 4 with no fields but its model_type is Llama4TextConfig's defaults, named in a note",
          "[families]") {
  const auto m = specs::from_hf_config(nlohmann::json{{"model_type", "llama4_text"}}, "config.json");
  // configuration_llama4.py: Scout's shape (48 layers, 16 experts, all MoE, NoPE every fourth).
  CHECK(count_params(m).total == 107769861120);
  CHECK(m.layers_of(specs::LayerAttention::full) == 12);
  bool named = false;
  for (const auto& n : m.notes) named = named || n.find("configuration_llama4.py Llama4TextConfig") != std::string::npos;
  CHECK(named);
}

TEST_CASE("serve runs on Llama 4 Scout: chunked layers read at most one chunk of keys", "[families]") {
  const auto m = napkin_test::real_config("llama-4-scout-17b-16e-instruct");
  ServeInput in;
  in.prompt = 32768.0 * one;
  in.generate = 2.0 * one;
  in.peak = 989.0 * TFLOP_per_s;
  in.bandwidth = 4.8 * TB_per_s;
  const Serve r = serve(m, in);
  // Decode at the mean context 32768 + 2/2 = 32769 reads each layer's cache once and writes the
  // new token's keys and values: 12 full layers of 32769 keys, 36 chunked ones of 8192, plus one
  // token in each of the 48 layers, 4096 B each.
  CHECK(r.decode.kv_bytes.in(byte) == Approx((12.0 * 32769 + 36.0 * 8192 + 48.0) * 4096));
  CHECK(r.decode.time.in(second) > 0.0);
  // The CLI, with its memory verdict: 216 GB of bf16 weights over 4 H200s.
  const auto cli = napkin_test::run_napkin("serve " + std::string(NAPKIN_SOURCE_DIR) +
                                           "/tests/real-configs/llama-4-scout-17b-16e-instruct/config.json"
                                           " --hw h200 --tp 4 --json");
  CHECK(cli.code == 0);
  CHECK(cli.out.find("\"command\":\"serve\"") != std::string::npos);
}
