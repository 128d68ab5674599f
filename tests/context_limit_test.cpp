// The one context check every command shares (napkin/model/context_limit.h) and vLLM's derived
// max_model_len it follows (vllm/config/model.py _get_and_verify_max_len, v0.10).
#include <catch2/catch.hpp>

#include <string>

#include "napkin/engines/vllm.h"
#include "napkin/ground/error.h"
#include "napkin/model/context_limit.h"
#include "napkin/report/human_units.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"

using namespace napkin;
using namespace napkin::units;

namespace {

specs::ModelSpec real_config(const std::string& name) {
  return specs::read_hf_config(std::string(NAPKIN_SOURCE_DIR) + "/tests/real-configs/" + name + "/config.json");
}

specs::ModelSpec config_text(const std::string& extra) {
  return specs::from_hf_config(nlohmann::json::parse(
                                   R"({"model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864,
                                       "num_hidden_layers": 24, "num_attention_heads": 14, "num_key_value_heads": 2,
                                       "vocab_size": 151936, "max_position_embeddings": 32768)" +
                                   extra + "}"),
                               "config.json", "");
}

}  // namespace

TEST_CASE("context limit: max_position_embeddings when the config has no rope_scaling", "[context]") {
  const ContextLimit l = context_limit(config_text(""));
  CHECK(l.tokens == 32768);
  CHECK(l.source == "max_position_embeddings 32768");
}

TEST_CASE("context limit: yarn multiplies original_max_position_embeddings by its factor (Qwen2.5's recipe)",
          "[context]") {
  // Qwen2.5-7B-Instruct's README: add {"type": "yarn", "factor": 4.0,
  // "original_max_position_embeddings": 32768} for 131072 tokens; vLLM derives the same.
  const auto m = config_text(R"(, "rope_scaling": {"type": "yarn", "factor": 4.0,
                                 "original_max_position_embeddings": 32768})");
  CHECK(m.rope_type == "yarn");
  CHECK(context_limit(m).tokens == 131072);
  // A "dynamic" or "linear" factor multiplies the stated length.
  CHECK(context_limit(config_text(R"(, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0})")).tokens == 65536);
  // transformers v5 spells it rope_parameters.
  CHECK(context_limit(config_text(R"(, "rope_parameters": {"rope_type": "linear", "factor": 2.0})")).tokens == 65536);
}

TEST_CASE("context limit: llama3-type scaling and Gemma 3 keep the stated length (real configs)", "[context]") {
  // Llama 4 Scout: rope_scaling llama3, factor 16, max_position_embeddings 10485760.
  CHECK(context_limit(real_config("llama-4-scout-17b-16e-instruct")).tokens == 10485760);
  // MedGemma 27B (gemma3): linear factor 8, but Gemma 3's 131072 is already scaled.
  CHECK(context_limit(real_config("medgemma-27b-it")).tokens == 131072);
}

TEST_CASE("a rope_scaling factor that is not a positive number is refused", "[context]") {
  CHECK_THROWS_AS(config_text(R"(, "rope_scaling": {"rope_type": "linear", "factor": -2})"), InputError);
  CHECK_THROWS_AS(config_text(R"(, "rope_scaling": {"rope_type": "linear", "factor": "4"})"), InputError);
}

TEST_CASE("past the limit: one warning, which says no engine runs it for learned positions", "[context]") {
  ResultSet out;
  const auto llama = specs::load_model_preset("llama-3.1-8b");
  check_trained_context(llama, 131072, "--context", out);
  CHECK(out.warnings.empty());
  check_trained_context(llama, 131073, "--context", out);
  REQUIRE(out.warnings.size() == 1);
  CHECK(report::expand(out, out.warnings[0]).find("past the model's maximum context 131072") != std::string::npos);
  ResultSet learned;
  const auto gpt2 = specs::load_model_preset("gpt2");
  check_trained_context(gpt2, 1024, "--context", learned);
  CHECK(learned.warnings.empty());
  check_trained_context(gpt2, 1025, "--seq", learned);
  REQUIRE(learned.warnings.size() == 1);
  CHECK(report::expand(learned, learned.warnings[0]).find("--seq 1025 is past the model's 1024 learned positions") !=
        std::string::npos);
}

TEST_CASE("vLLM refuses a max_model_len past its derived one, unless model_max_length allows it", "[context][engine_vllm]") {
  VllmInput in;
  in.gpu_memory = 80.0 * GiB;
  in.context = 32769.0 * one;
  in.max_num_seqs = 256.0 * one;
  CHECK_THROWS_WITH(validate_vllm_settings(config_text(""), in),
                    Catch::Contains("--context: '32769': expected at most vLLM's derived max_model_len 32768"));
  CHECK_NOTHROW(validate_vllm_settings(config_text(R"(, "model_max_length": 65536)"), in));
  in.context = 32768.0 * one;
  CHECK_NOTHROW(validate_vllm_settings(config_text(""), in));
}
