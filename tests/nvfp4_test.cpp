// NVFP4 weights (issue 29): --weights-dtype nvfp4, and the checkpoints that declare it (NVIDIA
// ModelOpt's quant_method "modelopt", llm-compressor's compressed-tensors nvfp4-pack-quantized).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "napkin/memory/ledgers.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"
#include "run_napkin.h"

using namespace napkin;
using namespace napkin::units;
using napkin_test::run_napkin;

namespace {

nlohmann::json llama8b_with(const nlohmann::json& quantization_config) {
  nlohmann::json j = {{"architectures", {"LlamaForCausalLM"}}, {"model_type", "llama"},
                      {"hidden_size", 4096},                   {"intermediate_size", 14336},
                      {"num_hidden_layers", 32},               {"num_attention_heads", 32},
                      {"num_key_value_heads", 8},              {"vocab_size", 128256},
                      {"max_position_embeddings", 131072},     {"tie_word_embeddings", false},
                      {"torch_dtype", "bfloat16"}};
  j["quantization_config"] = quantization_config;
  return j;
}

}  // namespace

// NVFP4: E2M1 values (4 bits) and one FP8 E4M3 scale per 16 weights: 4.5 bits a quantized weight.
// Llama-3.1-8B: 6.98B matrix weights · 4.5 / 8 = 3.93 GB, plus embeddings and head in bf16
// (2 · 525.3M · 2 B = 2.10 GB): about 6.0 GB, as NVIDIA ModelOpt's NVFP4 Llama 3.1 8B is described
// ("~6 GB", github.com/elizabetht/language-modeling-from-scratch,
// quantization/model-optimizer/LinkedIn_Article_Quantization.md).
TEST_CASE("memory --weights-dtype nvfp4 stores 4-bit E2M1 weights with one FP8 scale per 16: Llama-3.1-8B in about 6 GB",
          "[nvfp4]") {
  const auto r = run_napkin("memory llama-3.1-8b --weights-dtype nvfp4 --value weights");
  REQUIRE(r.code == 0);
  const auto fp4 = run_napkin("memory llama-3.1-8b --weights-dtype fp4 --group-size 16 --value weights");
  REQUIRE(fp4.code == 0);
  const double w = std::stod(r.out), bare = std::stod(fp4.out);
  CHECK(w > 5.9e9);
  CHECK(w < 6.1e9);
  // The scales are one byte per 16 quantized weights: 0.5 bit a weight over fp4 alone.
  const auto none = run_napkin("memory llama-3.1-8b --weights-dtype fp4 --value weights");
  const double scales = w - std::stod(none.out);
  CHECK(scales == Approx(6.979e9 / 16.0).epsilon(0.01));
  // fp4 --group-size 16 keeps its scales in the default fp16: one more byte per 16 than NVFP4's E4M3.
  CHECK(bare - w == Approx(scales).epsilon(1e-9));
  CHECK(run_napkin("memory llama-3.1-8b --weights-dtype nvfp4 --zero-points").code == 2);
}

TEST_CASE("a ModelOpt NVFP4 checkpoint's config is read as fp4 weights, group 16, FP8 scales", "[nvfp4]") {
  const auto m = specs::from_hf_config(llama8b_with(nlohmann::json::parse(R"({
    "quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "kv_cache_quant_algo": "FP8",
    "exclude_modules": ["lm_head"]})")),
                                       "config.json");
  CHECK(m.quant_dtype == "fp4");
  CHECK(m.quant_group == 16);
  CHECK(m.quant_scale_dtype == "fp8");
  CHECK(m.quant_note.find("NVFP4") != std::string::npos);
}

TEST_CASE("a compressed-tensors nvfp4-pack-quantized config is NVFP4; its 8-bit float groups are FP8", "[nvfp4]") {
  const auto nv = specs::from_hf_config(llama8b_with(nlohmann::json::parse(R"({
    "quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
    "config_groups": {"group_0": {"targets": ["Linear"],
      "weights": {"num_bits": 4, "type": "float", "group_size": 16, "strategy": "tensor_group"}}}})")),
                                        "config.json");
  CHECK(nv.quant_dtype == "fp4");
  CHECK(nv.quant_group == 16);
  const auto f8 = specs::from_hf_config(llama8b_with(nlohmann::json::parse(R"({
    "quant_method": "compressed-tensors",
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float"}}}})")),
                                        "config.json");
  CHECK(f8.quant_dtype == "fp8");
  const auto int4 = specs::from_hf_config(llama8b_with(nlohmann::json::parse(R"({
    "quant_method": "compressed-tensors",
    "config_groups": {"group_0": {"targets": ["Linear"],
      "weights": {"num_bits": 4, "type": "int", "group_size": 128}}}})")),
                                          "config.json");
  CHECK(int4.quant_dtype.empty());  // not modelled here: stated, counted in bf16
  CHECK(int4.quant_note.find("not modelled") != std::string::npos);
}
