// The readers of config.json per family and the helpers they share (src/specs/family_*.cpp),
// internal to the specs layer. hf_config.cpp's registry maps each model_type to its reader; each
// reader fills a ModelSpec from the config's fields, its family's spellings and the class
// defaults transformers leaves out of config.json (each cited beside the reader).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "json_fields.h"
#include "napkin/model/model_spec.h"

namespace napkin::specs::family {

using json = nlohmann::json;
using i64 = std::int64_t;
using Fields = JsonFields;

// What a field must be, for messages.
inline constexpr const char* kHidden = "a positive integer (hidden size D)";
inline constexpr const char* kLayers = "a positive integer (number of layers L)";
inline constexpr const char* kHeads = "a positive integer (attention heads H)";
inline constexpr const char* kKvHeads = "a positive integer (key/value heads)";
inline constexpr const char* kFfn = "a positive integer (MLP width F)";
inline constexpr const char* kVocab = "a positive integer (vocabulary size V)";
inline constexpr const char* kCount = "a non-negative integer";

// family_common.cpp
void read_shape(const Fields& f, ModelSpec& m, std::initializer_list<const char*> hidden,
                std::initializer_list<const char*> layers, std::initializer_list<const char*> heads);
void classic_layout(ModelSpec& m);
void attention_kind(ModelSpec& m);
void read_layer_types(const Fields& f, ModelSpec& m);
void slide_by_pattern(ModelSpec& m, i64 pattern);
void read_llama_like(const Fields& f, ModelSpec& m, bool tied_default);
/// rope_scaling (or transformers v5's rope_parameters) and model_max_length, for every family:
/// the type ("type" in older configs), factor and original_max_position_embeddings.
void read_rope_scaling(const Fields& f, ModelSpec& m);
/// Reads a flat config.json object with the hand-written reader of `model_type` even where an
/// architecture table takes precedence (hf_config.cpp), as the registry would: the reader, then
/// rope_scaling and model_max_length. For holding a table against the reader it replaces
/// (tests/table_migration_test.cpp). InputError when no reader reads `model_type`.
ModelSpec read_config_with_reader(const json& config, std::string_view model_type);
json with_defaults(const Fields& f, const json& defaults, std::string_view source, ModelSpec& m);
void read_moe_layout(const Fields& f, ModelSpec& m);

// family_classic.cpp
void read_gpt2(const Fields& f, ModelSpec& m);
void read_neox(const Fields& f, ModelSpec& m);
void read_opt(const Fields& f, ModelSpec& m);
void read_falcon(const Fields& f, ModelSpec& m, const std::string& model_type);
void read_bloom(const Fields& f, ModelSpec& m);
void read_bert(const Fields& f, ModelSpec& m);
void read_gptj(const Fields& f, ModelSpec& m);
void read_starcoder2(const Fields& f, ModelSpec& m);
void read_stablelm(const Fields& f, ModelSpec& m);
void read_phi(const Fields& f, ModelSpec& m);

// family_llama_like.cpp
void read_granite(const Fields& f, ModelSpec& m);
void read_cohere(const Fields& f, ModelSpec& m, bool cohere2);
void read_gemma3(const Fields& given, ModelSpec& m);
void read_olmo(const Fields& f, ModelSpec& m, const std::string& model_type);
void read_chatglm(const Fields& f, ModelSpec& m);

// family_moe.cpp
void read_deepseek(const Fields& f, ModelSpec& m, bool v3);
void read_deepseek_v1(const Fields& f, ModelSpec& m);
void read_gpt_oss(const Fields& f, ModelSpec& m);
void read_llama4(const Fields& given, ModelSpec& m);

// family_ssm.cpp
void set_layer(ModelSpec& m, std::int64_t l, LayerMixer mixer, LayerFfn ffn);
void read_ssm_cache_dtype(const Fields& f, ModelSpec& m);
void read_mamba(const Fields& f, ModelSpec& m);
std::int64_t read_period(const Fields& f, const char* key, std::int64_t fallback);
void read_jamba(const Fields& f, ModelSpec& m);
void read_nemotron_h(const Fields& f, ModelSpec& m);

// family_t5.cpp
void read_t5(const Fields& f, ModelSpec& m);

}  // namespace napkin::specs::family
