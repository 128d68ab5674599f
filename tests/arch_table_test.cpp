// The architecture tables (data/architectures/*.json, docs/adding-a-family.md): the expression
// language they are written in, and every bundled table read and checked against a real config.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "../src/specs/arch_expr.h"
#include "../src/specs/arch_table.h"
#include "napkin/ground/error.h"
#include "napkin/model/params.h"
#include "napkin/model/tensor_table.h"
#include "napkin/specs/hf_config.h"

using napkin::specs::arch::Env;
using napkin::specs::arch::Expr;
using napkin::specs::arch::ExprError;
using napkin::specs::arch::Value;
using json = nlohmann::json;

namespace {

struct TestEnv : Env {
  json cfg;
  std::int64_t l = 3;
  const json& config() const override { return cfg; }
  Value var(std::string_view name) const override {
    if (name == "l") return Value::of_json(json(l));
    if (name == "D") return Value::of_json(json(4096));
    throw ExprError{"unknown variable " + std::string(name)};
  }
};

Value eval(const std::string& text, const json& cfg = json::object()) {
  TestEnv env;
  env.cfg = cfg;
  return Expr::parse(text).eval(env);
}

std::string error_of(const std::string& text, const json& cfg = json::object()) {
  try {
    eval(text, cfg);
  } catch (const ExprError& e) {
    return e.what;
  }
  return "";
}

}  // namespace

TEST_CASE("table expressions: exact integer arithmetic, defaults for absent keys, per-layer lists", "[arch]") {
  const json cfg = {{"hidden_size", 2048},
                    {"num_attention_heads", 16},
                    {"layer_types", {"full_attention", "sliding_attention"}},
                    {"pattern", "M*M-"},
                    {"blocks", {{{"ffn", {{"ffn_mult", 2.625}}}}}}};
  CHECK(eval("$hidden_size / $num_attention_heads", cfg).i == 128);
  CHECK(eval("$head_dim ?? $hidden_size / $num_attention_heads", cfg).i == 128);
  CHECK(eval("7 / 2").kind == Value::Kind::real);  // not divisible: a double, never truncated
  CHECK(eval("7 // 2").i == 3);
  CHECK(eval("-7 // 2").i == -4);
  CHECK(eval("$layer_types[1] == 'sliding_attention' ? 'sliding' : 'full'", cfg).s == "sliding");
  CHECK(eval("$pattern[l]", cfg).s == "-");
  CHECK(eval("count($pattern, 'M')", cfg).i == 2);
  // Nemotron-NAS's width: int(2 · ffn_mult · D / 3) rounded up to a multiple of 256.
  CHECK(eval("round_up(int(2 * $blocks[0].ffn.ffn_mult * D / 3), 256)", cfg).i == 7168);
  CHECK(eval("has($missing) || l == 3").b);
  CHECK(eval("$missing.inner ?? 5").i == 5);
  CHECK(eval("1 + 2 * 3 - 4 % 3").i == 6);
  CHECK(eval("min(3, 1, 2)").i == 1);
}

TEST_CASE("table expressions tell a list from a number and an absent key from a null one", "[arch]") {
  // Hunyuan's moe_topk and Gemma 3n's intermediate_size are a number or a per-layer list;
  // FalconH1Config defaults an absent num_key_value_heads to 8 and a null one to the heads.
  const json cfg = {{"moe_topk", {8, 8}}, {"intermediate_size", 8192}, {"num_key_value_heads", nullptr}};
  CHECK(eval("is_list($moe_topk)", cfg).b);
  CHECK_FALSE(eval("is_list($intermediate_size)", cfg).b);
  CHECK(eval("is_number($intermediate_size)", cfg).b);
  CHECK(eval("is_list($intermediate_size) ? $intermediate_size[l] : $intermediate_size", cfg).i == 8192);
  CHECK(eval("given('num_key_value_heads')", cfg).b);
  CHECK_FALSE(eval("has($num_key_value_heads)", cfg).b);
  CHECK_FALSE(eval("given('head_dim')", cfg).b);
}

TEST_CASE("table expressions refuse overflow, missing keys in arithmetic and bad syntax by name", "[arch]") {
  CHECK(error_of("9007199254740992 * 9007199254740992").rfind("integer overflow", 0) == 0);
  CHECK(error_of("$hidden_size * 2") == "'*' of null and 2 (a config key missing?)");
  CHECK(error_of("1 / 0").rfind("division by zero", 0) == 0);
  CHECK(error_of("$l[5]", json{{"l", json::array({1, 2})}}) == "$l[5]: index 5 beyond a list of 2");
  CHECK_THROWS_AS(Expr::parse("(1 + 2"), ExprError);
  CHECK_THROWS_AS(Expr::parse("1 +"), ExprError);
  CHECK(error_of("nope(1)") == "unknown function nope()");
  CHECK(Expr::parse("$a + $b.c ?? D").config_keys() == std::vector<std::string>{"a", "b"});
}

TEST_CASE("every bundled architecture table reads its real config to the checkpoint total it cites", "[arch]") {
  const std::vector<std::string> types = napkin::specs::arch::table_model_types();  // parses every table
  REQUIRE(!types.empty());
  const std::string listed = napkin::specs::model_type_names();
  for (const std::string& t : types) {
    INFO(t);
    CHECK(listed.find(t) != std::string::npos);  // the error lists what the tables read
    const auto* table = napkin::specs::arch::table_by_model_type(t);
    REQUIRE(table != nullptr);
  }
}

TEST_CASE("a config value a table needs is named when missing or out of range", "[arch]") {
  json j = {{"model_type", "olmo3"}, {"hidden_size", 4096},         {"num_hidden_layers", 2},
            {"num_attention_heads", 32}, {"intermediate_size", 11008}, {"vocab_size", 100278}};
  CHECK(napkin::count_params(napkin::specs::from_hf_config(j, "config.json")).total > 0);
  j.erase("vocab_size");
  CHECK_THROWS_WITH(napkin::specs::from_hf_config(j, "config.json"),
                    "config.json: /vocab_size: missing; expected a positive integer (vocabulary size V)");
  j["vocab_size"] = -3;
  CHECK_THROWS_WITH(napkin::specs::from_hf_config(j, "config.json"),
                    "config.json: /vocab_size: expected a positive integer (vocabulary size V), got -3");
  j["vocab_size"] = 100278;
  j["num_attention_heads"] = 30;  // 4096 / 30 is no head dimension
  CHECK_THROWS_WITH(napkin::specs::from_hf_config(j, "config.json"),
                    Catch::StartsWith("config.json: /num_attention_heads: 30: expected head dimension (olmo3 d = "
                                      "$head_dim ?? D / H is 136.53"));
}

TEST_CASE("an unknown model_type is read by analogy (--as) with a table family, which says so", "[arch]") {
  const json j = {{"model_type", "my_olmo"}, {"hidden_size", 4096},         {"num_hidden_layers", 2},
                  {"num_attention_heads", 32}, {"intermediate_size", 11008}, {"vocab_size", 100278},
                  {"tie_word_embeddings", false}};
  const auto m = napkin::specs::from_hf_config(j, "config.json", "olmo3");
  CHECK(m.tensors);
  CHECK(m.analogy.rfind("model_type 'my_olmo' counted as olmo3 (--as olmo3): the count is by analogy, not exact", 0) == 0);
  // What the table does not read is refused, even by analogy.
  json moe = j;
  moe["num_experts"] = 8;
  CHECK_THROWS_WITH(napkin::specs::from_hf_config(moe, "config.json", "olmo3"),
                    Catch::StartsWith("config.json: /num_experts: a mixture-of-experts key; model_type 'my_olmo' with --as olmo3 counts a dense model"));
}

TEST_CASE("a text_config without model_type takes the class its tower table names; an unverified tower warns",
          "[arch]") {
  // Kimi-VL-A3B-Instruct's Hub config: text_config has no model_type (KimiVLConfig builds a
  // DeepseekV3Config); the kimi_vl_vision tower is counted but no checkpoint total confirms it.
  const auto m = napkin::specs::read_hf_config(std::string(NAPKIN_SOURCE_DIR) +
                                               "/tests/real-configs/kimi-vl-a3b-instruct/config.json");
  CHECK(m.model_type == "deepseek_v3");
  REQUIRE(m.tower);
  CHECK(m.unverified.find("kimi_vl_vision tower") != std::string::npos);
}
