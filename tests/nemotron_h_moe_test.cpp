// Nemotron-H's mixture-of-experts blocks ("E", Nemotron 3; modeling_nemotron_h.py NemotronHMoE):
// exact against NVIDIA-Nemotron-3-Nano-30B-A3B's index total_parameters, with the KV cache and
// the Mamba state still those of the attention and Mamba blocks only; the layouts napkin does not
// count (latent experts, biased experts, several shared experts) are refused by name.
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

namespace {

std::string error_of(const nlohmann::json& j) {
  try {
    specs::from_hf_config(j, "config.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

nlohmann::json nano30b() {
  return nlohmann::json::parse(
      R"({"model_type": "nemotron_h", "hidden_size": 2688, "num_hidden_layers": 52, "vocab_size": 131072,
          "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
          "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128, "intermediate_size": 1856,
          "mamba_num_heads": 64, "mamba_head_dim": 64, "n_groups": 8, "ssm_state_size": 128, "conv_kernel": 4,
          "n_routed_experts": 128, "num_experts_per_tok": 6, "n_shared_experts": 1, "moe_intermediate_size": 1856,
          "moe_shared_expert_intermediate_size": 3712, "mlp_bias": false, "tie_word_embeddings": false})");
}

}  // namespace

TEST_CASE("Nemotron-3-Nano-30B-A3B: E blocks of 128 relu² experts and one shared expert give 31,577,937,344",
          "[families]") {
  // model.safetensors.index.json total_parameters 31,577,937,344 (SOURCE.md): the 23 · 128
  // e_score_correction_bias buffers (fp32, in total_size) are not parameters.
  const auto m = napkin_test::real_config("nvidia-nemotron-3-nano-30b-a3b");
  CHECK(m.family == "nemotron_h");
  const ParamCount c = count_params(m);
  CHECK(c.total == 31577937344);
  CHECK(c.moe_layers == 23);
  CHECK(c.mamba_layers == 23);
  CHECK(c.attention_layers == 6);
  CHECK(c.dense_layers == 0);
  // One E block: router 128 · 2688, 128 experts of 2 · 2688 · 1856, a shared expert 2 · 2688 · 3712.
  CHECK(c.moe_layer.router == 128LL * 2688);
  CHECK(c.moe_layer.routed_one == 2LL * 2688 * 1856);
  CHECK(c.moe_layer.shared == 2LL * 2688 * 3712);
  // Active: all but the 122 experts a token skips in each E block.
  CHECK(c.active == 31577937344LL - 23LL * 122 * 2 * 2688 * 1856);
  // E blocks keep no KV cache and no Mamba state: 6 attention blocks of 2 KV heads of 128, and 23
  // Mamba blocks of conv (4096 + 2·8·128) · 3 · 2 B + SSM 64 · 64 · 128 · 2 B.
  CHECK(m.layer_attention(1) == specs::LayerAttention::none);
  CHECK(m.layer_attention(5) == specs::LayerAttention::full);
  CHECK(kv_32k(m) == 6.0 * 32768 * 2 * 2 * 128 * 2);
  InferenceMemoryInput in;
  in.context = 32768.0 * one;
  CHECK(inference_memory(m, in).ssm_state.in(byte) == 23.0 * (6144 * 3 * 2 + 64 * 64 * 128 * 4));
  // The config above, inline, counts the same.
  CHECK(count_params(specs::from_hf_config(nano30b(), "config.json")).total == 31577937344);
}

TEST_CASE("Nemotron-H E blocks napkin does not count are refused naming the key", "[families]") {
  nlohmann::json j = nano30b();
  j["moe_latent_size"] = 1024;
  CHECK(error_of(j).rfind("config.json: /moe_latent_size: 1024: expected no moe_latent_size (a latent mixture of "
                          "experts",
                          0) == 0);
  j = nano30b();
  j["mlp_bias"] = true;
  CHECK(error_of(j).rfind("config.json: /mlp_bias: true: expected mlp_bias false in a model with E blocks", 0) == 0);
  j = nano30b();
  j["n_shared_experts"] = 2;
  CHECK(error_of(j).rfind("config.json: /n_shared_experts: 2: expected n_shared_experts 1", 0) == 0);
  j = nano30b();
  j.erase("n_shared_experts");
  CHECK(error_of(j).rfind("config.json: /n_shared_experts: missing", 0) == 0);
  j = nano30b();
  j["moe_intermediate_size"] = {1856, 1856};
  CHECK(error_of(j).rfind("config.json: /moe_intermediate_size: expected a positive integer", 0) == 0);
  j = nano30b();
  j["hybrid_override_pattern"] = "MXM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";
  j["num_hidden_layers"] = 50;
  CHECK(error_of(j).rfind("config.json: /hybrid_override_pattern: \"MXM*EMEM", 0) == 0);
  CHECK(error_of(j).find("expected a block kind M (Mamba-2), * (attention), - (MLP) or E (mixture of experts)") !=
        std::string::npos);
  CHECK(error_of(j).find(", layer 1)") != std::string::npos);
  // The names of layers_block_type read the same: "moe" is an E block.
  j = nano30b();
  nlohmann::json types = nlohmann::json::array();
  for (char ch : j["hybrid_override_pattern"].get<std::string>())
    types.push_back(ch == 'M' ? "mamba" : ch == '*' ? "attention" : ch == '-' ? "mlp" : "moe");
  j.erase("hybrid_override_pattern");
  j["layers_block_type"] = types;
  CHECK(count_params(specs::from_hf_config(j, "config.json")).total == 31577937344);
}
