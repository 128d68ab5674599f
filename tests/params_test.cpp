// Exact parameter counts (src/model/params.cpp) over the bundled presets and hand-built specs.
// Totals marked "checkpoint" are the checkpoints' own tensor counts (issue 3 acceptance, Pythia
// Table 1); the others are the formula's count, with the derivation written beside the number.
#include <catch2/catch.hpp>

#include <numeric>

#include "napkin/ground/error.h"
#include "napkin/model/params.h"
#include "napkin/specs/presets.h"
#include "preset_config.h"

using napkin::count_params;
using napkin::ParamCount;
using napkin::ParamGroup;
using napkin::specs::load_model_preset;

namespace {
ParamCount preset(const char* name) { return count_params(load_model_preset(name)); }
}  // namespace

TEST_CASE("llama-3.1-8b preset counts 8,030,261,248 params exactly", "[specs][params]") {
  const ParamCount c = preset("llama-3.1-8b");
  CHECK(c.total == 8030261248);
  CHECK(c.active == 8030261248);
  // 2 · 128256 · 4096 (embedding + untied head) = 1,050,673,152
  CHECK(c.embedding == 1050673152);
  CHECK(c.non_embedding == 6979588096);
  // per layer: attention 4096·(32 + 2·8)·128 + 32·128·4096 = 41,943,040; MLP 3·4096·14336
  CHECK(c.dense_layer.attention == 41943040);
  CHECK(c.dense_layer.mlp == 176160768);
  CHECK(c.dense_layers == 32);
}

TEST_CASE("mistral-7b preset counts 7,241,732,096 params exactly", "[specs][params]") {
  CHECK(preset("mistral-7b").total == 7241732096);
}

TEST_CASE("gpt2 preset counts 124,439,808 params exactly: tied head, 1024 learned positions, biases",
          "[specs][params]") {
  const ParamCount c = preset("gpt2");
  CHECK(c.total == 124439808);
  CHECK(c.group(ParamGroup::head) == 0);
  // wte 50257·768 + wpe 1024·768
  CHECK(c.group(ParamGroup::embedding) == 39383808);
  CHECK(c.non_embedding == 85056000);
}

TEST_CASE("mixtral-8x7b preset counts 46,702,792,704 total and 12,879,925,248 active", "[specs][params]") {
  const ParamCount c = preset("mixtral-8x7b");
  CHECK(c.total == 46702792704);
  // 6 of 8 experts skipped in 32 layers: 32 · 6 · 3 · 4096 · 14336 = 33,822,867,456
  CHECK(c.active == 46702792704 - 33822867456);
  CHECK(c.group(ParamGroup::router) == 32 * 8 * 4096);
  CHECK(c.moe_layers == 32);
  CHECK(c.dense_layers == 0);
}

TEST_CASE("llama-3.1-70b counts 70,553,706,496 (index total_size 141,107,412,992 B at 2 B each)", "[specs][params]") {
  CHECK(preset("llama-3.1-70b").total == 70553706496);
}

TEST_CASE("mixtral-8x22b counts 140,620,634,112 total and 39,152,031,744 active", "[specs][params]") {
  const ParamCount c = preset("mixtral-8x22b");
  CHECK(c.total == 140620634112);
  // 6 of 8 experts skipped in 56 layers: 56 · 6 · 3 · 6144 · 16384
  CHECK(c.active == 140620634112 - 56LL * 6 * 3 * 6144 * 16384);
  CHECK(c.active == 39152031744);
}

TEST_CASE("pythia-1.4b counts 1,414,647,808 total and 1,208,602,624 non-embedding (Pythia Table 1)",
          "[specs][params]") {
  const ParamCount c = preset("pythia-1.4b");
  CHECK(c.total == 1414647808);
  CHECK(c.non_embedding == 1208602624);
}

TEST_CASE("pythia-410m counts 405,334,016 total and 302,311,424 non-embedding (Pythia Table 1)",
          "[specs][params]") {
  const ParamCount c = preset("pythia-410m");
  CHECK(c.total == 405334016);
  CHECK(c.non_embedding == 302311424);
}

TEST_CASE("family conventions give the formula's count for each preset family", "[specs][params]") {
  // Gemma 2 9B: tied 256000·3584; per layer attention 3584·(16 + 2·8)·256 + 16·256·3584,
  // GeGLU 3·3584·14336, four RMSNorms 4·3584; 42 layers; final norm 3584.
  CHECK(preset("gemma-2-9b").total == 9241705984);
  // Qwen2.5-7B: q/k/v biases (28 + 2·4)·128 = 4608 per layer, untied 152064·3584 twice.
  CHECK(preset("qwen2.5-7b").total == 7615616512);
  // Qwen3-8B: q_norm and k_norm add 2·128 per layer.
  CHECK(preset("qwen3-8b").total == 8190735360);
  // Phi-3-mini: Llama layout, 32064·3072 twice.
  CHECK(preset("phi-3-mini").total == 3821079552);
  // OPT-1.3b: positions (2048 + 2)·2048, biases everywhere, tied head.
  CHECK(preset("opt-1.3b").total == 1315758080);
  // Falcon-7B: multi-query (1 KV head), one LayerNorm per layer (parallel attention), no biases.
  CHECK(preset("falcon-7b").total == 6921720704);
  // BERT base: BertModel with pooler (the MLM/NSP heads are not counted).
  CHECK(preset("bert-base-uncased").total == 109482240);
}

TEST_CASE("deepseek-v3 counts 671,026,419,200 for the main model (MTP layer not counted)", "[specs][params]") {
  const auto spec = load_model_preset("deepseek-v3");
  const ParamCount c = count_params(spec);
  CHECK(spec.mtp_layers == 1);
  CHECK(c.dense_layers == 3);  // first_k_dense_replace
  CHECK(c.moe_layers == 58);
  // MLA per layer: q_a 7168·1536 + q_b 1536·128·192 + kv_a 7168·576 + kv_b 512·128·256 + o 128·128·7168
  CHECK(c.dense_layer.attention == 187105280);
  // router 256·7168 weights + 256 e_score_correction_bias
  CHECK(c.moe_layer.router == 256 * 7168 + 256);
  CHECK(c.total == 671026419200);
  // 248 of 256 routed experts skipped in 58 layers, each 3·7168·2048
  CHECK(c.active == 671026419200 - 58LL * 248 * 3 * 7168 * 2048);
}

TEST_CASE("deepseek-v2-lite counts 15,706,484,224: no q_lora, 2 shared experts, 1 dense layer", "[specs][params]") {
  const ParamCount c = preset("deepseek-v2-lite");
  CHECK(c.total == 15706484224);
  CHECK(c.dense_layers == 1);
  CHECK(c.moe_layer.shared == 3 * 2048 * (2 * 1408));
  CHECK(c.moe_layer.router == 64 * 2048);  // greedy top-k: no correction bias
}

TEST_CASE("qwen1.5-moe-a2.7b counts 14,315,784,192 total and 2,689,173,504 active", "[specs][params]") {
  const ParamCount c = preset("qwen1.5-moe-a2.7b");
  // shared expert 3·2048·5632 and its D→1 gate in every layer
  CHECK(c.moe_layer.shared == 34603008);
  CHECK(c.moe_layer.router == 60 * 2048 + 2048);
  CHECK(c.total == 14315784192);
  CHECK(c.active == 2689173504);
}

TEST_CASE("every preset with a checkpoint total matches it exactly", "[specs][params]") {
  int verified = 0;
  for (const auto& name : napkin::specs::model_preset_names()) {
    const auto src = napkin::specs::model_preset_source(name);
    if (!src.total_params) continue;
    INFO(name);
    CHECK(count_params(load_model_preset(name)).total == *src.total_params);
    ++verified;
  }
  CHECK(verified >= 20);
}

TEST_CASE("at least 25 presets, each with its repository, config source and total source", "[specs][params]") {
  const auto names = napkin::specs::model_preset_names();
  CHECK(names.size() >= 25);
  for (const auto& name : names) {
    INFO(name);
    const auto src = napkin::specs::model_preset_source(name);
    // A Hugging Face repository, or a model whose weights were never released (GPT-3), said so.
    CHECK((src.repo.find('/') != std::string::npos || src.repo.rfind("(not released", 0) == 0));
    CHECK(!src.config_source.empty());
    CHECK(!src.total_source.empty());
    CHECK(count_params(load_model_preset(name)).total > 0);
  }
}

TEST_CASE("the groups add up to the total and active never exceeds it, for every preset", "[specs][params]") {
  for (const auto& name : napkin::specs::model_preset_names()) {
    INFO(name);
    const ParamCount c = count_params(load_model_preset(name));
    CHECK(std::accumulate(c.groups.begin(), c.groups.end(), std::int64_t{0}) == c.total);
    CHECK(c.embedding + c.non_embedding == c.total);
    CHECK(c.active <= c.total);
    CHECK(c.dense_layers + c.moe_layers == load_model_preset(name).layers);
  }
}

TEST_CASE("params ResultSet starts with the four interface keys and states the tied head", "[specs][params]") {
  const auto spec = load_model_preset("gpt2");
  napkin::ResultSet rs;
  count_params(spec, rs);
  REQUIRE(rs.items.size() >= 4);
  CHECK(rs.items[0].key == "total_params");
  CHECK(rs.items[1].key == "active_params");
  CHECK(rs.items[2].key == "embedding_params");
  CHECK(rs.items[3].key == "non_embedding_params");
  CHECK(rs.items[0].value.num == 124439808.0);
  bool tied = false;
  for (const auto& a : rs.assumptions)
    if (a.key == "tied_embeddings") tied = true;
  CHECK(tied);
  double groups = 0;
  for (const auto g : napkin::kParamGroups)
    if (const auto* it = rs.find(napkin::param_group_name(g))) groups += it->value.num;
  CHECK(groups == 124439808.0);
}

TEST_CASE("KV heads that do not divide the heads are rejected naming kv_heads", "[specs][params]") {
  auto spec = napkin_test::spec_fields_only(load_model_preset("llama-3.1-8b"));
  spec.kv_heads = 5;
  try {
    count_params(spec);
    FAIL("expected InputError");
  } catch (const napkin::InputError& e) {
    CHECK(std::string(e.what()) ==
          "llama-3.1-8b: kv_heads: '5': expected a positive divisor of the number of attention heads (32)");
  }
}
