// Reading a Hugging Face config.json: model_type and architectures[] to an architecture table
// (data/architectures, arch_table.h) or, for the layouts no table expresses yet, to a reader in
// src/specs/family_*.cpp (the registry below); the refusal of unknown ones, --as, declared
// quantization, and config.json in Python's JSON dialect. Sources: the transformers configuration
// and modeling files of each family, cited beside each reader where a default decides a count; a
// default that changes the count and that the file does not state is recorded as a note (shown
// under Assumptions).
#include "napkin/specs/hf_config.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <span>
#include <stdexcept>

#include <fmt/format.h>

#include "arch_table.h"
#include "json_fields.h"
#include "napkin/ground/error.h"
#include "napkin/model/params.h"
#include "napkin/model/tensor_table.h"
#include "napkin/specs/files.h"
#include "napkin/specs/napkin_json.h"
#include "rope_scaling.h"

namespace napkin::specs {

namespace {

using json = nlohmann::json;
using i64 = std::int64_t;
using Fields = JsonFields;
constexpr const char* kCount = "a non-negative integer";

// ---- families ---------------------------------------------------------------------------------
//
// Every family napkin counts is an architecture table (data/architectures, arch_table.h): the
// model_type values and architectures[] classes that select it, its tensors with their shapes over
// the config's keys, and the spec fields the ledgers read. An unknown model_type is refused
// (ModelSpec is never a guess); --as FAMILY reads it by analogy, saying so on every command.

// --as names of the hand-written readers the tables replaced, where the name is no table's
// model_type: read as the model type they named.
constexpr std::pair<std::string_view, std::string_view> kAsAliases[] = {
    {"deepseek_moe", "deepseek"}, {"gemma3", "gemma3_text"}, {"llama4", "llama4_text"}};

std::string as_model_type(std::string_view as) {
  for (const auto& [name, type] : kAsAliases)
    if (name == as) return std::string(type);
  return std::string(as);
}

// Keys no supported family reads silently: a config carrying them is never counted by analogy
// with a family that ignores them.
constexpr const char* kMoeKeys[] = {"num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts",
                                    "num_experts_per_tok", "moe_intermediate_size"};
constexpr const char* kSsmKeys[] = {"ssm_cfg", "state_size", "d_state", "mamba_d_state", "mamba_expand",
                                    "conv_kernel", "hybrid_override_pattern", "attn_layer_period"};
constexpr const char* kEncDecKeys[] = {"is_encoder_decoder", "num_decoder_layers", "decoder_layers",
                                       "encoder_layers"};

// Before reading by analogy (--as): a config whose layers the family would not build (state-space
// mixers, an encoder-decoder, experts) is refused by the key that says so, unless the family's
// table `by` reads it.
void refuse_unread_layout(const Fields& f, std::string_view as, const arch::Table& by, const std::string& t) {
  auto first_present = [&](const auto& keys) -> const char* {
    for (const char* k : keys)
      if (f.has(k) && !arch::table_reads(by, k)) return k;
    return nullptr;
  };
  const std::string what = "model_type '" + t + "' with --as " + std::string(as);
  if (const char* k = first_present(kSsmKeys))
    throw InputError(f.where(k) + ": a state-space (Mamba) layer key; " + what +
                     " would drop those layers; expected a supported family (" + family_names() + ")");
  if (const char* k = first_present(kEncDecKeys); k != nullptr && !(std::string_view(k) == "is_encoder_decoder" &&
                                                                    !f.bool_or("is_encoder_decoder", false)))
    throw InputError(f.where(k) + ": an encoder-decoder key; " + what +
                     " does not read it (a decoder, or another encoder-decoder layout); expected a supported family (" +
                     family_names() + ")");
  if (const char* k = first_present(kMoeKeys)) {
    std::string moe;
    for (const std::string& mt : arch::table_model_types())
      if (const arch::Table* x = arch::table_by_model_type(mt);
          x != nullptr && arch::table_name(*x) == mt &&
          std::any_of(std::begin(kMoeKeys), std::end(kMoeKeys), [x](const char* key) { return arch::table_reads(*x, key); }))
        moe += (moe.empty() ? "" : ", ") + mt;
    throw InputError(f.where(k) + ": a mixture-of-experts key; " + what +
                     " counts a dense model; expected --as a family that reads experts (" + moe + ")");
  }
}

// Keys that change a count wherever they appear: a family reader that never looks at one of them
// would count the model without it (MiniCPM-MoE's num_experts once made a 13.9B model 2.7B). A
// config holding one with a value that says something (not null, 0, false, empty, nor
// layer_types of full attention only) is refused unless its reader looked at it.
constexpr const char* kCountKeys[] = {
    // experts
    "num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts", "num_experts_per_tok",
    "moe_intermediate_size", "n_shared_experts", "shared_expert_intermediate_size", "first_k_dense_replace",
    "moe_layer_freq", "mlp_only_layers", "moe_k", "moe_topk", "num_shared_experts", "moe_layers",
    // per-layer kinds and widths
    "layer_types", "block_configs", "hybrid_override_pattern", "layers_block_type", "attn_layer_period",
    "attn_layer_offset", "expert_layer_period", "full_attn_idxs", "attn_type_list", "cross_attention_layers",
    "intermediate_size_mlp",
    // linear attention, state-space, convolution
    "linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim",
    "linear_conv_kernel_dim", "linear_attn_config", "ssm_cfg", "state_size", "d_state", "mamba_d_state",
    "mamba_expand", "mamba_n_heads", "conv_kernel", "conv_L_cache",
    // attention shapes beyond heads × head_dim
    "kv_lora_rank", "q_lora_rank", "index_n_heads", "index_head_dim", "num_kv_shared_layers",
    "hidden_size_per_layer_input", "altup_num_inputs", "laurel_rank",
    // towers
    "vision_config", "audio_config"};

bool says_something(const JsonFields::json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0.0;
  if (v.is_string()) return !v.get<std::string>().empty();
  if (v.is_array()) {
    for (const auto& x : v)
      if (!(x.is_string() && x.get<std::string>() == "full_attention")) return true;
    return false;  // [] or every layer full attention: what a reader without layer_types assumes
  }
  return !v.empty();
}

void refuse_unconsumed(const Fields& f, const std::string& t, std::string_view family) {
  for (const char* k : kCountKeys) {
    if (f.looked_at(k) || !f.object().contains(k) || !says_something(f.object().at(k))) continue;
    throw InputError(f.where(k) + ": " + f.object().at(k).dump().substr(0, 80) + " changes the count, and model_type '" +
                     t + "' (read with the tensors of " + std::string(family) +
                     ") does not read it; expected a config of a family napkin counts with this key "
                     "(napkin params on the checkpoint's safetensors counts its weights tensor by tensor)");
  }
}

// What reading by analogy may get wrong, with its size: a class default the config leaves out
// (tie_word_embeddings), and intermediate_size's convention (Qwen v1 states the sum of gate and up,
// twice each matrix's width). Appended to the analogy's warning.
void analogy_sizes(const Fields& f, std::string_view family, ModelSpec& m) {
  const std::string before = m.analogy;
  const ParamCount c = count_params(m);
  const auto pct = [&c](std::int64_t v) {
    return fmt::format("{:.1f}%", 100.0 * static_cast<double>(v) / static_cast<double>(c.total));
  };
  if (!f.object().contains("tie_word_embeddings") && m.vocab > 0 && m.hidden > 0) {
    const std::int64_t head = m.vocab * m.hidden;
    m.analogy += "; tie_word_embeddings is absent and " + std::string(family) + "'s default (" +
                 (m.tied_embeddings ? "tied" : "untied") + ") is used: a family whose default is " +
                 (m.tied_embeddings ? "untied counts " : "tied counts ") + std::to_string(head) + " params (" +
                 pct(head) + ") " + (m.tied_embeddings ? "more" : "fewer");
  }
  if (m.ffn > 0 && m.ffn_kind == FfnKind::gated && m.mamba.version == 0 && !m.encoder_decoder) {
    const std::int64_t dense = (m.layers - m.moe.first_k_dense) > 0 && !m.moe.is_moe() ? m.layers : m.moe.first_k_dense;
    const std::int64_t half = dense * 3 * m.hidden * (m.ffn / 2);
    if (half > 0)
      m.analogy += "; intermediate_size is read as each MLP matrix's width: where a family states the sum of gate and "
                   "up (Qwen v1), the count is " + std::to_string(half) + " params (" + pct(half) + ") lower";
  }
  for (std::string& n : m.notes)
    if (n == before) n = m.analogy;
}

ModelSpec read(const Fields& f, std::string model_type, const std::string& file, std::string_view as) {
  std::vector<std::string> notes;
  std::string t = model_type;
  const arch::Table* table = t.empty() ? nullptr : arch::table_by_model_type(t);
  if (table == nullptr) {
    // No model_type, or one napkin does not know: architectures[0] names the modeling class,
    // which decides the tensors (Kimi K2: model_type kimi_k2, DeepseekV3ForCausalLM).
    std::string arch;
    if (f.has("architectures")) {
      const JsonFields::json& a = f.raw("architectures");
      if (a.is_array() && !a.empty() && a.front().is_string()) arch = a.front().get<std::string>();
    }
    if (!arch.empty() && (table = arch::table_by_class(arch)) != nullptr) {
      t = arch::model_type_of_class(*table, arch);
      notes.push_back((model_type.empty() ? std::string("no model_type") : "model_type '" + model_type + "' is not one napkin names") +
                      ": architectures[0] " + arch + " is the modeling class of " + t + ", counted as " + t);
    }
    if (table == nullptr && model_type.empty() && as.empty() && f.has("n_embd")) {
      // openai-community/gpt2's first config.json has neither: its n_embd/n_layer/n_head are GPT-2's.
      t = "gpt2";
      table = arch::table_by_model_type(t);
      notes.push_back("no model_type: n_embd/n_layer/n_head read with GPT-2 conventions (biases, LayerNorm, "
                      "learned positions, tied head)");
    }
  }
  std::string analogy;
  if (!as.empty()) {
    const std::string as_type = as_model_type(as);
    const arch::Table* by = arch::table_by_model_type(as_type);
    if (by == nullptr) throw InputError("--as", std::string(as), "a family napkin counts: " + family_names());
    if (table != nullptr)
      throw InputError("--as", std::string(as),
                       "no --as for a known family: " + file + " says model_type '" + model_type + "' (" +
                           (t == model_type ? std::string(arch::table_name(*table)) : "architectures[0] names " + t) +
                           "); --as reads an unknown model_type by analogy");
    analogy = (model_type.empty() ? std::string("a config without model_type") : "model_type '" + model_type + "'") +
              " counted as " + std::string(arch::table_name(*by)) + " (--as " + std::string(as) +
              "): the count is by analogy, not exact";
    notes.push_back(analogy);
    // Every count-changing key must be one the table reads.
    refuse_unread_layout(f, as, *by, model_type);
    table = by;
    t = as_type;
  }
  if (table == nullptr)
    throw InputError(f.where("model_type") + ": " +
                     (model_type.empty() ? std::string("missing") : "'" + model_type + "' is not a family napkin counts") +
                     "; expected one of " + model_type_names() +
                     " (or --as FAMILY to count it by analogy with one, stated as a warning)");
  ModelSpec m = arch::read_with_table(*table, f, t);
  m.model_type = model_type;
  m.stored_dtype = f.has("torch_dtype") ? f.str_or("torch_dtype", "") : f.str_or("dtype", "");
  m.analogy = analogy;
  m.notes.insert(m.notes.begin(), notes.begin(), notes.end());
  // The family shown is the model_type read (mistral, qwen2_moe, deepseek_v3, ...), except that
  // Falcon's legacy RefinedWeb names show as falcon.
  if (t == "RefinedWeb" || t == "RefinedWebModel") m.family = arch::table_name(*table);
  if (!analogy.empty()) analogy_sizes(f, arch::table_name(*table), m);
  read_rope_scaling(f, m);
  refuse_unconsumed(f, model_type.empty() ? t : model_type, arch::table_name(*table));
  return m;
}

}  // namespace

namespace {

// NVFP4 (NVIDIA's 4-bit float: E2M1 values, one FP8 E4M3 scale per 16, and two fp32 scales per
// matrix, the per-tensor weight_scale_2 and input_scale) and FP8 as NVIDIA ModelOpt writes them
// (quant_method "modelopt", quant_algo "NVFP4" / "FP8", group_size 16: e.g.
// nvidia/Llama-3.3-70B-Instruct-FP4) and as llm-compressor's compressed-tensors does
// (config_groups.*.weights {num_bits 4, type "float", group_size 16}: the nvfp4-pack-quantized
// format, e.g. RedHatAI/*-NVFP4). The per-matrix fp32 scales (8 B a matrix) are not counted.
void read_nvfp4(const Fields& q, const std::string& method, ModelSpec& m) {
  std::string algo;
  i64 group = 0;
  if (method == "modelopt") {
    algo = q.str_or("quant_algo", "");
    group = q.has("group_size") && q.raw("group_size").is_number_integer() ? q.raw("group_size").get<i64>() : 16;
  } else if (q.has("config_groups") && q.raw("config_groups").is_object()) {
    for (const auto& [name, g] : q.raw("config_groups").items()) {
      if (!g.is_object() || !g.contains("weights") || !g.at("weights").is_object()) continue;
      const auto& w = g.at("weights");
      const int bits = w.contains("num_bits") && w.at("num_bits").is_number_integer() ? w.at("num_bits").get<int>() : 0;
      const std::string type = w.contains("type") && w.at("type").is_string() ? w.at("type").get<std::string>() : "";
      group = w.contains("group_size") && w.at("group_size").is_number_integer() ? w.at("group_size").get<i64>() : 0;
      if (bits == 4 && type == "float") algo = "NVFP4";
      else if (bits == 8 && type == "float") algo = "FP8";
      break;  // the first group: the checkpoints quantize every targeted linear alike
    }
  }
  if (algo == "NVFP4" && (group == 16 || group == 0)) {
    m.quant_dtype = "fp4";
    m.quant_group = 16;
    m.quant_scale_dtype = "fp8";  // E4M3
    m.quant_note = method + " NVFP4: 4-bit E2M1 weights with one FP8 E4M3 scale per 16 (4.5 bits a weight); "
                   "embeddings, head and norms in bf16; two fp32 scales per matrix not counted";
  } else if (algo == "FP8") {
    m.quant_dtype = "fp8";
    m.quant_note = method + " FP8 weights, per-tensor or per-channel scales (not counted)";
  } else {
    m.quant_note = "quant_method '" + method + "'" + (algo.empty() ? std::string() : " (" + algo + ")") +
                   " is not modelled (NVFP4 and FP8 are)";
  }
}

// quantization_config as the quantizers write it (transformers' utils/quantization_config.py):
// AWQ (bits/w_bit, group_size/q_group_size, zero_point), GPTQ (bits, group_size, sym; its
// checkpoints store qzeros whatever sym says), bitsandbytes (load_in_4bit with nf4/fp4 and 64
// weights per absmax, load_in_8bit), FP8 (weight_block_size [128, 128]: one fp32 scale per block).
// Anything else (MXFP4's per-module layout, ...) is recorded as not modelled.
void read_quantization(const Fields& top, ModelSpec& m) {
  if (!top.has("quantization_config")) return;
  const Fields q = top.sub("quantization_config");
  const std::string method = q.str_or("quant_method", q.bool_or("load_in_4bit", false) || q.bool_or("load_in_8bit", false)
                                                          ? "bitsandbytes"
                                                          : "");
  m.quant_method = method;
  auto bits = [&]() { return q.has("bits") ? q.positive("bits", "a positive integer (bits)") : q.int_or("w_bit", 0, kCount); };
  if (method == "awq" || method == "gptq") {
    const i64 b = bits();
    if (b != 4 && b != 8) {
      m.quant_note = method + " with " + std::to_string(b) + "-bit weights is not modelled (4 or 8 are)";
      return;
    }
    m.quant_dtype = b == 4 ? "int4" : "int8";
    const i64 g = q.has("group_size") ? q.raw("group_size").is_number_integer() ? q.raw("group_size").get<i64>() : 0
                                      : q.int_or("q_group_size", 128, kCount);
    m.quant_group = g > 0 ? g : 0;
    m.quant_zero_points = method == "gptq" ? true : q.bool_or("zero_point", true);
    m.quant_note = method + " " + std::to_string(b) + "-bit weights" +
                   (m.quant_group > 0 ? ", group " + std::to_string(m.quant_group) : ", per-channel scales (not counted)") +
                   (m.quant_zero_points ? ", zero points" : "");
  } else if (method == "bitsandbytes") {
    if (q.bool_or("load_in_4bit", false)) {
      m.quant_dtype = q.str_or("bnb_4bit_quant_type", "fp4") == "nf4" ? "nf4" : "fp4";
      m.quant_group = 64;  // bitsandbytes' 4-bit blocksize: one absmax per 64 weights
      m.quant_scale_dtype = "fp32";
      m.quant_note = "bitsandbytes 4-bit (" + m.quant_dtype + "), one fp32 absmax per 64 weights";
    } else {
      m.quant_dtype = "int8";
      m.quant_note = "bitsandbytes 8-bit (LLM.int8)";
    }
  } else if (method == "fp8") {
    m.quant_dtype = "fp8";
    if (q.has("weight_block_size") && q.raw("weight_block_size").is_array() && q.raw("weight_block_size").size() == 2 &&
        q.raw("weight_block_size")[0].is_number_integer() && q.raw("weight_block_size")[1].is_number_integer()) {
      const i64 a = q.raw("weight_block_size")[0].get<i64>(), b = q.raw("weight_block_size")[1].get<i64>();
      if (a > 0 && b > 0 && a <= 65536 && b <= 65536) m.quant_group = a * b;
    }
    m.quant_scale_dtype = "fp32";
    m.quant_note = "fp8 weights" + (m.quant_group > 0 ? ", one fp32 scale per block of " + std::to_string(m.quant_group)
                                                       : std::string(", per-tensor scales (not counted)"));
  } else if (method == "mxfp4" && m.moe.is_moe()) {
    // OCP Microscaling Formats (MX) v1.0, §5: MXFP4 is 4-bit E2M1 elements with one shared E8M0
    // (8-bit) scale per block of 32. gpt-oss (transformers integrations/mxfp4.py,
    // Mxfp4GptOssExperts) stores only the experts' gate_up_proj and down_proj that way, as
    // *_blocks (2 values per byte) and *_scales (1 B per 32); modules_to_not_convert and the
    // biases stay bf16. tests/real-configs/gpt-oss-20b/SOURCE.md checks the split byte for byte.
    m.quant_dtype = "fp4";
    m.quant_group = 32;
    m.quant_scale_dtype = "fp8";  // one byte, as E8M0 is
    m.quant_experts_only = true;
    m.quant_note = "mxfp4: the routed experts' weight matrices as 4-bit E2M1 values with one 1-byte E8M0 scale per "
                   "32; attention, router, embeddings, head, norms and every bias in bf16";
  } else if (method == "mxfp4") {
    m.quant_note = "quant_method 'mxfp4' on a model without routed experts is not modelled (gpt-oss quantizes its "
                   "experts only)";
  } else if (method == "modelopt" || method == "compressed-tensors") {
    read_nvfp4(q, method, m);
  } else {
    m.quant_note = "quant_method '" + method + "' is not modelled";
  }
}

}  // namespace

std::string model_type_names() {
  std::string s;
  for (const std::string& mt : arch::table_model_types()) s += (s.empty() ? "" : ", ") + mt;
  return s;
}

std::string family_names() {
  std::string s = model_type_names();
  for (const auto& [name, type] : kAsAliases) s += ", " + std::string(name);
  return s;
}

namespace {

// The key of the nested object holding the language model of a multimodal config (text_config;
// InternVL: llm_config; DeepSeek-VL2: language_config), or nullptr for a flat config.
const char* language_model_key(const json& j) {
  if (j.contains("hidden_size") || j.contains("n_embd")) return nullptr;
  for (const char* k : {"text_config", "llm_config", "language_config"})
    if (j.contains(k) && j.at(k).is_object()) return k;
  return nullptr;
}

}  // namespace

std::optional<std::string> unknown_family(const json& j) {
  if (!j.is_object() || is_napkin_model_json(j)) return std::nullopt;
  const char* inner = language_model_key(j);
  const json* src = inner != nullptr ? &j.at(inner) : &j;
  std::string t = src->contains("model_type") && src->at("model_type").is_string()
                      ? src->at("model_type").get<std::string>()
                      : std::string();
  if (t.empty() && inner != nullptr && j.contains("model_type") && j.at("model_type").is_string())
    t = std::string(arch::tower_text_model_type(j.at("model_type").get<std::string>()));
  if (!t.empty() && arch::table_by_model_type(t) != nullptr) return std::nullopt;
  std::string cls;
  if (src->contains("architectures") && src->at("architectures").is_array() && !src->at("architectures").empty() &&
      src->at("architectures").front().is_string())
    cls = src->at("architectures").front().get<std::string>();
  if (!cls.empty() && arch::table_by_class(cls) != nullptr) return std::nullopt;
  if (t.empty() && src->contains("n_embd")) return std::nullopt;  // GPT-2's first config
  return t.empty() ? std::string("a config without model_type") : "model_type '" + t + "'";
}

ModelSpec from_hf_config(const json& j, std::string_view file, std::string_view as) {
  const std::string f(file);
  if (!j.is_object()) throw InputError(f + ": expected a JSON object (a config.json), got " + std::string(j.type_name()));
  const char* inner = language_model_key(j);
  const bool nested = inner != nullptr;
  // A nested text_config that names no model_type is built as the class its top-level
  // configuration gives it (the tower table's text_model_type: Kimi-VL's DeepseekV3Config).
  if (nested && j.at(inner).is_object() && !j.at(inner).contains("model_type") && j.contains("model_type") &&
      j.at("model_type").is_string()) {
    const std::string typed(arch::tower_text_model_type(j.at("model_type").get<std::string>()));
    if (!typed.empty()) {
      json patched = j;
      patched[inner]["model_type"] = typed;
      ModelSpec m = from_hf_config(patched, file, as);
      m.notes.push_back(std::string(inner) + " names no model_type: read as " + typed + ", the class " +
                        j.at("model_type").get<std::string>() + "'s configuration builds for it");
      return m;
    }
  }
  // A nested text_config is built by transformers as its configuration class, whose defaults
  // fill what the file leaves out: LLaVA-1.5's text_config gives only vocab_size and
  // max_position_embeddings (LlamaConfig: configuration_llama.py; MistralConfig:
  // configuration_mistral.py). Those defaults are stated as a note.
  json text_with_defaults;
  std::string defaults_note;
  if (nested && j.at(inner).contains("model_type") && j.at(inner).at("model_type").is_string()) {
    const std::string tt = j.at(inner).at("model_type").get<std::string>();
    static const json kLlama = {{"vocab_size", 32000},          {"hidden_size", 4096},
                                {"intermediate_size", 11008},   {"num_hidden_layers", 32},
                                {"num_attention_heads", 32},    {"max_position_embeddings", 2048},
                                {"tie_word_embeddings", false}};
    static const json kMistral = {{"vocab_size", 32000},         {"hidden_size", 4096},
                                  {"intermediate_size", 14336},  {"num_hidden_layers", 32},
                                  {"num_attention_heads", 32},   {"num_key_value_heads", 8},
                                  {"max_position_embeddings", 131072}, {"sliding_window", 4096},
                                  {"tie_word_embeddings", false}};
    const json* defaults = tt == "llama" ? &kLlama : tt == "mistral" ? &kMistral : nullptr;
    if (defaults != nullptr) {
      text_with_defaults = j.at(inner);
      for (const auto& [k, v] : defaults->items())
        if (!text_with_defaults.contains(k)) {  // an explicit null says something (no sliding window)
          text_with_defaults[k] = v;
          defaults_note += (defaults_note.empty() ? "" : ", ") + k + " " + v.dump();
        }
    }
  }
  const json& src = !defaults_note.empty() ? text_with_defaults : nested ? j.at(inner) : j;
  Fields fields(src, f, nested ? "/" + std::string(inner) : "");
  // A vision (or audio) tower the checkpoint ships, described by a tower table of the top-level
  // model_type, is counted from the top-level config (data/architectures, "kind": "tower").
  const Fields top = nested ? Fields(j, f, "") : fields;
  const std::string top_type = top.has("model_type") && top.raw("model_type").is_string() ? top.str_or("model_type", "") : "";
  const arch::Table* tower = top_type.empty() || !as.empty() ? nullptr : arch::tower_by_model_type(top_type);
  std::shared_ptr<const TensorTable> tower_tensors;
  std::string tower_refusal;
  if (tower != nullptr) {
    try {
      tower_tensors = arch::read_tower(*tower, top);
    } catch (const InputError& e) {
      tower_refusal = e.what();  // the language model may still be counted alone (--text-only)
    }
  }
  const bool tower_unverified = tower != nullptr && !arch::table_verified(*tower);
  std::string mt = fields.str_or("model_type", "");
  ModelSpec m = read(fields, mt, f, as);
  m.tower = std::move(tower_tensors);
  m.tower_refusal = std::move(tower_refusal);
  if (tower_unverified) {
    const std::string what = "the " + std::string(arch::table_name(*tower)) + " tower (" + top_type +
                             ") is counted from its modeling file; no checkpoint total has confirmed it yet";
    m.unverified = m.unverified.empty() ? what : m.unverified + "; " + what;
    m.notes.push_back(what);
  }
  read_quantization(Fields(j, f, ""), m);
  if (!defaults_note.empty())
    m.notes.push_back("absent from " + std::string(inner) + ", the defaults of its configuration class (" +
                      src.at("model_type").get<std::string>() + "): " + defaults_note);
  if (nested && !m.tower)
    m.notes.push_back("language model read from " + std::string(inner) + "; the vision tower and projector are not counted");
  else if (nested)
    m.notes.push_back("language model read from " + std::string(inner));
  return m;
}

json read_json_file(const std::string& path, std::string_view expected, std::string_view hint) {
  return parse_json_text(read_json_text(path, path, expected, hint), path);
}

namespace {

// Python's json module writes float('inf') and float('nan') as the bare tokens Infinity,
// -Infinity and NaN, and real config.json files carry them (e.g. a loss coefficient). Outside
// strings they become null: a field napkin reads that holds one is then "missing" and named
// as such, never a number. Returns false when there was nothing to replace.
bool python_tokens_to_null(std::string& s) {
  bool in_string = false, changed = false;
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < s.size()) out += s[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    bool replaced = false;
    for (std::string_view tok : {std::string_view("-Infinity"), std::string_view("Infinity"), std::string_view("NaN")}) {
      if (s.compare(i, tok.size(), tok) == 0) {
        out += "null";
        i += tok.size() - 1;
        replaced = changed = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  if (changed) s = std::move(out);
  return changed;
}

}  // namespace

json parse_json_text(std::string_view text, const std::string& what) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::string python(text);
    if (python_tokens_to_null(python)) {
      try {
        return json::parse(python);
      } catch (const json::exception&) {
        // not only Python's tokens: report the original error
      }
    }
    throw InputError(what + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const json::out_of_range& e) {
    // "[json.exception.out_of_range.406] number overflow parsing '1e999'": name the number.
    const std::string m = e.what();
    const auto q = m.find('\'');
    throw InputError(what + ": number " + (q == std::string::npos ? std::string("(unnamed)") : m.substr(q)) +
                     " is out of range; expected JSON numbers a double holds (magnitude below 1.8e308)");
  }
}

ModelSpec read_hf_config(const std::string& path) {
  ModelSpec m = from_hf_config(read_json_file(path), path);
  m.name = path;
  return m;
}

}  // namespace napkin::specs
