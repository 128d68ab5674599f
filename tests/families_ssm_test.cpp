// State-space and hybrid families (Mamba layers), exact against real checkpoints where a total was
// found: tests/real-configs/<model>/ holds the config.json and SOURCE.md (where the total comes from
// and the arithmetic). The KV cache at 32Ki tokens (attention layers only) and the Mamba state
// (ssm_state: conv window + SSM state per Mamba layer) are computed by hand beside each.
#include <catch2/catch.hpp>

#include <string>

#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/params.h"
#include "napkin/specs/checkpoint.h"
#include "napkin/specs/hf_config.h"
#include "real_configs.h"

using namespace napkin;
using namespace napkin::units;
using napkin_test::kv_32k;

namespace {

// The inference ledger's ssm_state row: one sequence of 32Ki tokens on one GPU.
double ssm_32k(const specs::ModelSpec& m) {
  InferenceMemoryInput in;
  in.context = 32768.0 * one;
  return inference_memory(m, in).ssm_state.in(byte);
}

}  // namespace

TEST_CASE("mamba-130m-hf: 24 Mamba-1 layers and a tied head give the checkpoint's 129,135,360", "[families]") {
  // Loaded checkpoint's numel sum 129,135,360 (242 fp32 tensors, 516,541,440 B / 4; SOURCE.md).
  const auto m = napkin_test::real_config("mamba-130m-hf");
  CHECK(m.family == "mamba");
  const ParamCount c = count_params(m);
  CHECK(c.total == 129135360);
  CHECK(c.mamba_layers == 24);
  CHECK(c.attention_layers == 0);
  // Per mixer: in_proj 768·3072, conv1d 1536·4 + 1536, x_proj 1536·(48 + 32), dt_proj 48·1536 + 1536,
  // A_log 1536·16, D 1536, out_proj 1536·768.
  CHECK(c.group(ParamGroup::ssm) == 24 * (768 * 3072 + 1536 * 5 + 1536 * 80 + 48 * 1536 + 1536 + 1536 * 16 + 1536 +
                                          1536 * 768));
  // No attention: no KV cache. Mamba state per layer: conv 1536 · 3 · 2 B + SSM 1536 · 16 · 2 B.
  CHECK(kv_32k(m) == 0.0);
  CHECK(ssm_32k(m) == 24.0 * (1536 * 3 * 2 + 1536 * 16 * 2));
}

TEST_CASE("Falcon-Mamba 7B: Mamba-1 with weightless B/C/dt norms, untied head, 7,272,665,088 by hand", "[families]") {
  // No checkpoint total was found (SOURCE.md): the count is the modeling file's, by hand.
  const auto m = napkin_test::real_config("falcon-mamba-7b");
  CHECK(m.family == "falcon_mamba");
  CHECK(m.mamba.d_inner == 8192);  // intermediate_size, not the stale "expand": 16
  const std::int64_t mixer = 4096LL * 16384 + (8192 * 4 + 8192) + 8192LL * (256 + 32) + (256LL * 8192 + 8192) +
                             8192 * 16 + 8192 + 8192LL * 4096;
  CHECK(count_params(m).total == 64 * (mixer + 4096) + 2 * 65024LL * 4096 + 4096);
  CHECK(count_params(m).total == 7272665088);
  CHECK(ssm_32k(m) == 64.0 * (8192 * 3 * 2 + 8192 * 16 * 2));
}

TEST_CASE("Jamba: attention on every 8th layer, MoE on odd layers, dt/B/C norms, 51,570,323,328", "[families]") {
  // AI21-Jamba-1.5-Mini's config (Jamba-v0.1's shapes). No checkpoint index was found; a third
  // party reports reproducing 51,570,323,328 exactly (SOURCE.md); the paper says 52B.
  const auto m = napkin_test::real_config("jamba-v0.1");
  CHECK(m.family == "jamba");
  const ParamCount c = count_params(m);
  CHECK(c.total == 51570323328);
  CHECK(c.active == 12110311296);
  CHECK(c.attention_layers == 4);
  CHECK(c.mamba_layers == 28);
  CHECK(c.moe_layers == 16);
  CHECK(c.dense_layers == 16);
  CHECK(m.layer_attention(4) == specs::LayerAttention::full);
  CHECK(m.layer_attention(5) == specs::LayerAttention::none);
  // Attention layers 4, 12, 20, 28 only; 8 KV heads of 128: 2 · 8 · 128 · 2 B per token and layer.
  CHECK(kv_32k(m) == 4.0 * 32768 * 2 * 8 * 128 * 2);
  // 28 Mamba layers: conv 8192 · 3 · 2 B + SSM 8192 · 16 · 2 B each.
  CHECK(ssm_32k(m) == 28.0 * (8192 * 3 * 2 + 8192 * 16 * 2));
}

TEST_CASE("Nemotron-H 8B: Mamba-2, attention and MLP blocks by pattern give 8,100,852,736", "[families]") {
  // The loaded model's named_parameters sum to 8,100,852,736 (SOURCE.md).
  const auto m = napkin_test::real_config("nemotron-h-8b-base-8k");
  CHECK(m.family == "nemotron_h");
  const ParamCount c = count_params(m);
  CHECK(c.total == 8100852736);
  CHECK(c.mamba_layers == 24);
  CHECK(c.attention_layers == 4);
  CHECK(c.dense_layers == 24);
  // Mamba-2 mixer: in_proj 4096 · (2·8192 + 2·8·128 + 128), conv1d (8192 + 2048) · 4 + 10240,
  // dt_bias/A_log/D 3 · 128, out_proj 8192 · 4096 (its gated norm 8192 counts under norm).
  CHECK(c.mamba_mixer.ssm == 4096LL * 18560 + 10240 * 5 + 384 + 8192LL * 4096);
  // Attention blocks 7, 18, 29, 40: 8 KV heads of 128.
  CHECK(m.layer_attention(7) == specs::LayerAttention::full);
  CHECK(m.layer_attention(1) == specs::LayerAttention::none);
  CHECK(kv_32k(m) == 4.0 * 32768 * 2 * 8 * 128 * 2);
  // 24 Mamba layers: conv (8192 + 2·8·128) · 3 · 2 B + SSM 128 heads · 64 · 128 · 2 B.
  CHECK(ssm_32k(m) == 24.0 * (10240 * 3 * 2 + 128 * 64 * 128 * 2));
}

TEST_CASE("A config's mamba_ssm_cache_dtype float32 keeps the SSM state at 4 bytes", "[families]") {
  nlohmann::json j = {{"model_type", "nemotron_h"}, {"hidden_size", 64},        {"hybrid_override_pattern", "M*-"},
                      {"vocab_size", 128},          {"num_attention_heads", 4}, {"num_key_value_heads", 2},
                      {"head_dim", 16},             {"intermediate_size", 128}, {"mamba_num_heads", 4},
                      {"mamba_head_dim", 16},       {"n_groups", 1},           {"ssm_state_size", 8},
                      {"mamba_ssm_cache_dtype", "float32"}};
  const auto m = specs::from_hf_config(j, "config.json");
  CHECK(m.mamba.ssm_state_fp32);
  // conv (64 + 2·1·8) · 3 · 2 B + SSM 64 · 8 · 4 B.
  CHECK(ssm_state_per_layer(m).in(byte) == 80.0 * 3 * 2 + 64.0 * 8 * 4);
}

TEST_CASE("Mamba models: the training ledger and serve refuse them; a checkpoint's mixer tensors group as ssm",
          "[families]") {
  const auto m = napkin_test::real_config("mamba-130m-hf");
  TrainingMemoryInput t;
  t.seq = 1024.0 * one;
  CHECK_THROWS_AS(training_memory(m, t), InputError);
  CHECK(specs::tensor_group("backbone.layers.0.mixer.in_proj.weight") == "ssm");
  CHECK(specs::tensor_group("backbone.layers.0.mixer.A_log") == "ssm");
  CHECK(specs::tensor_group("model.layers.0.mamba.x_proj.weight") == "ssm");
  CHECK(specs::tensor_group("model.layers.0.mamba.dt_layernorm.weight") == "norm");
  CHECK(specs::tensor_group("backbone.layers.7.mixer.q_proj.weight") == "attention");
  CHECK(specs::tensor_group("backbone.layers.1.mixer.up_proj.weight") == "mlp");
  CHECK(specs::tensor_group("blk.0.ssm_conv1d.weight") == "ssm");
}
