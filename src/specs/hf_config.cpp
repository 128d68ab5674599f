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
#include <functional>
#include <initializer_list>
#include <span>
#include <stdexcept>

#include <fmt/format.h>

#include "arch_table.h"
#include "hf_family.h"
#include "json_fields.h"
#include "napkin/ground/error.h"
#include "napkin/model/params.h"
#include "napkin/model/tensor_table.h"
#include "napkin/specs/files.h"
#include "napkin/specs/napkin_json.h"

namespace napkin::specs {

namespace {

using namespace family;  // the readers and the helpers they share (hf_family.h)

// ---- the registry of families ---------------------------------------------------------------
//
// The hand-written families: the model_types and architectures[] classes that select each, the
// transformers files behind its field names and defaults, and its reader. A model type a table
// reads is read by it (the reader stays for tests/table_migration_test.cpp); names stay --as names.
// An unknown model_type is refused (ModelSpec is never a guess); --as FAMILY reads it by analogy,
// saying so on every command.

using Reader = void (*)(const Fields&, ModelSpec&, const std::string& model_type);

// Qwen2 and Qwen3 (configuration_qwen2.py, configuration_qwen3.py): use_sliding_window defaults to
// false, and with it the layers from max_window_layers on slide (the ones before stay full),
// unless layer_types lists them.
void qwen_sliding(const Fields& f, ModelSpec& m) {
  if (!f.bool_or("use_sliding_window", false)) {
    if (!f.has("layer_types")) m.sliding_window = 0;
    return;
  }
  if (f.has("layer_types") || m.sliding_window <= 0) return;
  const i64 from = f.int_or("max_window_layers", m.layers, kCount);
  m.layer_kinds.assign(static_cast<std::size_t>(m.layers), LayerAttention::full);
  for (i64 l = from; l < m.layers; ++l) m.layer_kinds[static_cast<std::size_t>(l)] = LayerAttention::sliding;
}

// A few names, kept in place (the registry is built at the first config read: no allocation).
class Names {
 public:
  Names(std::initializer_list<std::string_view> l) : n_(l.size()) {
    if (l.size() > v_.size()) throw std::logic_error("hf_config: more names than Names holds");
    std::copy(l.begin(), l.end(), v_.begin());
  }
  const std::string_view* begin() const { return v_.data(); }
  const std::string_view* end() const { return v_.data() + n_; }
  std::string_view front() const { return v_[0]; }

 private:
  std::array<std::string_view, 8> v_{};
  std::size_t n_;
};

struct Family {
  std::string_view name;
  Names model_types;
  Names architectures;
  std::string_view source;  // where the field names and class defaults come from
  bool moe = false;         // reads mixture-of-experts fields
  Reader read;
};

std::span<const Family> families() {
  static const Family kFamilies[] = {
      {"llama",
       // Baichuan 2, InternLM 2.5 and MiniCPM keep Llama's tensors under other model_types (their
       // remote-code configs use Llama's field names); issue 13's check against their real
       // configs found Llama's count exact.
       {"llama", "mistral", "phi3", "baichuan", "internlm2", "minicpm"},
       {"LlamaForCausalLM", "MistralForCausalLM", "Phi3ForCausalLM", "BaichuanForCausalLM", "InternLM2ForCausalLM",
        "MiniCPMForCausalLM"},
       "configuration_llama.py, configuration_mistral.py, configuration_phi3.py",
       false,
       [](const Fields& f, ModelSpec& m, const std::string& t) {
         // MiniCPM's remote-code configuration_minicpm.py defaults tie_word_embeddings to True in
         // some releases and False in others (MiniCPM4's): without the key the count is a guess.
         if (t == "minicpm" && !f.has("tie_word_embeddings"))
           f.missing("tie_word_embeddings", "true or false (MiniCPM's remote code defaults it differently by "
                                            "release)");
         read_llama_like(f, m, false);
         m.ffn = f.positive("intermediate_size", kFfn);
       }},
      {"mixtral",
       // GraniteMoE keeps Mixtral's tensors (input_linear fuses gate and up, router without bias);
       // its multipliers add no weights. Exact against granite-3.1-1b-a400m's checkpoint.
       {"mixtral", "granitemoe"},
       {"MixtralForCausalLM", "GraniteMoeForCausalLM"},
       "configuration_mixtral.py, modeling_mixtral.py, modeling_granitemoe.py",
       true,
       [](const Fields& f, ModelSpec& m, const std::string&) {
         // Every layer is MoE, experts w1/w2/w3 of width intermediate_size, router D×E without bias.
         read_llama_like(f, m, false);
         m.moe.n_experts = f.positive("num_local_experts", "a positive integer (experts)");
         m.moe.experts_per_token = f.positive("num_experts_per_tok", "a positive integer (experts per token)");
         m.moe.expert_ffn = f.positive("intermediate_size", kFfn);
       }},
      {"llama4", {"llama4_text", "llama4"}, {"Llama4ForCausalLM", "Llama4ForConditionalGeneration"},
       "configuration_llama4.py, modeling_llama4.py", true,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_llama4(f, m); }},
      {"qwen2", {"qwen2", "qwen2_moe"}, {"Qwen2ForCausalLM", "Qwen2MoeForCausalLM"},
       "configuration_qwen2.py, modeling_qwen2.py, modeling_qwen2_moe.py", true,
       [](const Fields& f, ModelSpec& m, const std::string& t) {
         // q/k/v projections have biases, o_proj has none.
         read_llama_like(f, m, false);
         qwen_sliding(f, m);
         m.qkv_bias = true;
         m.o_bias = false;
         // The dense MLP's width: every layer of a dense model, only mlp_only_layers (or those
         // decoder_sparse_step skips) of a MoE one, which may then leave it out.
         m.ffn = t == "qwen2_moe" ? f.int_or("intermediate_size", 0, kCount) : f.positive("intermediate_size", kFfn);
         if (t == "qwen2_moe") {
           // shared_expert (width shared_expert_intermediate_size) with a D→1 shared_expert_gate.
           read_moe_layout(f, m);
           // Qwen2MoeSparseMoeBlock always builds the shared expert and its gate.
           m.moe.shared_ffn = f.positive("shared_expert_intermediate_size", "a positive integer (shared expert MLP width)");
           m.moe.shared_expert_gate = true;
         }
       }},
      {"qwen3", {"qwen3", "qwen3_moe"}, {"Qwen3ForCausalLM", "Qwen3MoeForCausalLM"},
       "configuration_qwen3.py, modeling_qwen3.py", true,
       [](const Fields& f, ModelSpec& m, const std::string& t) {
         // q_norm and k_norm (RMSNorm over d_head) in every attention block; biases follow
         // attention_bias (default false).
         read_llama_like(f, m, false);
         qwen_sliding(f, m);
         m.qk_norm = true;
         m.ffn = t == "qwen3_moe" ? f.int_or("intermediate_size", 0, kCount) : f.positive("intermediate_size", kFfn);
         if (t == "qwen3_moe") read_moe_layout(f, m);
       }},
      {"gemma", {"gemma", "gemma2"}, {"GemmaForCausalLM", "Gemma2ForCausalLM"},
       "modeling_gemma.py, modeling_gemma2.py", false,
       [](const Fields& f, ModelSpec& m, const std::string& t) {
         // lm_head tied to embed_tokens; Gemma 2 adds post_attention and post_feedforward norms
         // (4 per layer) and slides a window on every other layer.
         read_llama_like(f, m, true);
         m.ffn = f.positive("intermediate_size", kFfn);
         if (t == "gemma2") {
           m.norms_per_layer = 4;
           m.sliding_every = m.sliding_window > 0 ? 2 : 0;
         }
       }},
      {"gemma3", {"gemma3_text"}, {"Gemma3ForCausalLM"}, "configuration_gemma3.py, modeling_gemma3.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_gemma3(f, m); }},
      {"gpt_oss", {"gpt_oss"}, {"GptOssForCausalLM"}, "configuration_gpt_oss.py, modeling_gpt_oss.py", true,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_gpt_oss(f, m); }},
      // State-space and hybrid models (Mamba layers).
      {"mamba", {"mamba", "falcon_mamba"}, {"MambaForCausalLM", "FalconMambaForCausalLM"},
       "configuration_mamba.py, modeling_mamba.py, configuration_falcon_mamba.py, modeling_falcon_mamba.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_mamba(f, m); }},
      {"jamba", {"jamba"}, {"JambaForCausalLM"}, "configuration_jamba.py, modeling_jamba.py", true,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_jamba(f, m); }},
      {"nemotron_h", {"nemotron_h"}, {"NemotronHForCausalLM"}, "configuration_nemotron_h.py, modeling_nemotron_h.py",
       false, [](const Fields& f, ModelSpec& m, const std::string&) { read_nemotron_h(f, m); }},
      {"bloom", {"bloom"}, {"BloomForCausalLM"}, "configuration_bloom.py, modeling_bloom.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_bloom(f, m); }},
      {"gpt2", {"gpt2"}, {"GPT2LMHeadModel", "GPT2Model"}, "configuration_gpt2.py, modeling_gpt2.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_gpt2(f, m); }},
      {"gpt_neox", {"gpt_neox"}, {"GPTNeoXForCausalLM"}, "configuration_gpt_neox.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_neox(f, m); }},
      {"opt", {"opt"}, {"OPTForCausalLM"}, "modeling_opt.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_opt(f, m); }},
      {"falcon", {"falcon", "RefinedWeb", "RefinedWebModel"}, {"FalconForCausalLM", "RWForCausalLM"},
       "configuration_falcon.py, modeling_falcon.py", false,
       [](const Fields& f, ModelSpec& m, const std::string& t) { read_falcon(f, m, t); }},
      {"deepseek", {"deepseek_v2", "deepseek_v3"}, {"DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM"},
       "configuration_deepseek.py, modeling_deepseek.py (DeepSeek-V2/V3 repositories)", true,
       [](const Fields& f, ModelSpec& m, const std::string& t) { read_deepseek(f, m, t == "deepseek_v3"); }},
      // OLMo, ChatGLM/GLM, Phi, DeepSeek-MoE v1 (tests/families_dense_b_test.cpp).
      {"olmo", {"olmo", "olmo2", "olmoe"}, {"OlmoForCausalLM", "Olmo2ForCausalLM", "OlmoeForCausalLM"},
       "configuration_olmo.py, modeling_olmo.py, modeling_olmo2.py, modeling_olmoe.py", true,
       [](const Fields& f, ModelSpec& m, const std::string& t) { read_olmo(f, m, t); }},
      {"chatglm", {"chatglm"}, {"ChatGLMModel", "ChatGLMForConditionalGeneration"},
       "configuration_chatglm.py, modeling_chatglm.py (THUDM ChatGLM2/3, GLM-4 repositories)", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_chatglm(f, m); }},
      {"glm", {"glm", "glm4"}, {"GlmForCausalLM", "Glm4ForCausalLM"},
       "configuration_glm.py, modeling_glm.py, modeling_glm4.py", false,
       [](const Fields& f, ModelSpec& m, const std::string& t) {
         // GlmAttention: q/k/v biases follow attention_bias (configuration_glm.py default true),
         // o_proj has none; gate_up_proj fuses gate and up (2·F) without bias. GLM-4-0414 adds
         // post_self_attn_layernorm and post_mlp_layernorm (4 RMSNorms per layer).
         read_llama_like(f, m, false);
         m.ffn = f.positive("intermediate_size", kFfn);
         m.qkv_bias = f.bool_or("attention_bias", true);
         m.o_bias = false;
         if (t == "glm4") m.norms_per_layer = 4;
       }},
      {"phi", {"phi"}, {"PhiForCausalLM"}, "configuration_phi.py, modeling_phi.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_phi(f, m); }},
      {"deepseek_moe", {"deepseek"}, {"DeepseekForCausalLM"},
       "configuration_deepseek.py, modeling_deepseek.py (deepseek-ai/deepseek-moe-16b-base)", true,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_deepseek_v1(f, m); }},
      {"bert", {"bert"}, {"BertForMaskedLM", "BertModel"}, "modeling_bert.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_bert(f, m); }},
      // Dense families, exact against the checkpoints in tests/families_dense_a_test.cpp.
      {"granite", {"granite"}, {"GraniteForCausalLM"}, "configuration_granite.py, modeling_granite.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_granite(f, m); }},
      {"cohere", {"cohere", "cohere2"}, {"CohereForCausalLM", "Cohere2ForCausalLM"},
       "configuration_cohere.py, modeling_cohere.py, configuration_cohere2.py, modular_cohere2.py", false,
       [](const Fields& f, ModelSpec& m, const std::string& t) { read_cohere(f, m, t == "cohere2"); }},
      {"starcoder2", {"starcoder2"}, {"Starcoder2ForCausalLM"}, "configuration_starcoder2.py, modeling_starcoder2.py",
       false, [](const Fields& f, ModelSpec& m, const std::string&) { read_starcoder2(f, m); }},
      {"gptj", {"gptj"}, {"GPTJForCausalLM"}, "configuration_gptj.py, modeling_gptj.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_gptj(f, m); }},
      {"stablelm", {"stablelm"}, {"StableLmForCausalLM"}, "configuration_stablelm.py, modeling_stablelm.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_stablelm(f, m); }},
      {"t5", {"t5"}, {"T5ForConditionalGeneration"}, "configuration_t5.py, modeling_t5.py", false,
       [](const Fields& f, ModelSpec& m, const std::string&) { read_t5(f, m); }},
  };
  return kFamilies;
}

const Family* family_by_model_type(std::string_view t) {
  for (const Family& fam : families())
    for (std::string_view mt : fam.model_types)
      if (mt == t) return &fam;
  return nullptr;
}

const Family* family_by_name(std::string_view name) {
  for (const Family& fam : families())
    if (fam.name == name) return &fam;
  return family_by_model_type(name);
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
// mixers, an encoder-decoder, experts) is refused by the key that says so. `reads` is whether the
// family reads a key: a table's expressions name it, a hand-written reader of experts reads
// kMoeKeys, only T5's the encoder-decoder keys.
void refuse_unread_layout(const Fields& f, std::string_view as, const std::function<bool(std::string_view)>& reads,
                          const std::string& t) {
  auto first_present = [&](const auto& keys) -> const char* {
    for (const char* k : keys)
      if (f.has(k) && !reads(k)) return k;
    return nullptr;
  };
  const std::string what = "model_type '" + t + "' with --as " + std::string(as);
  if (const char* k = first_present(kSsmKeys))
    throw InputError(f.where(k) + ": a state-space (Mamba) layer key; " + what +
                     " would drop those layers; expected a supported family (" + family_names() + ")");
  if (const char* k = first_present(kEncDecKeys); k != nullptr && !(std::string_view(k) == "is_encoder_decoder" &&
                                                                    !f.bool_or("is_encoder_decoder", false)))
    throw InputError(f.where(k) + ": an encoder-decoder key; " + what +
                     " counts a decoder only; expected a supported family (" + family_names() + ")");
  if (const char* k = first_present(kMoeKeys)) {
    std::string moe;
    for (const Family& fam : families())
      if (fam.moe && arch::table_by_model_type(fam.model_types.front()) == nullptr)
        moe += (moe.empty() ? "" : ", ") + std::string(fam.name);
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

// The model_type of `fam` that architectures class `arch` names: the classes are listed in the
// order of the model types they implement (the first type when there are more classes).
std::string model_type_of(const Family& fam, std::string_view arch) {
  std::size_t i = 0;
  for (std::string_view c : fam.architectures) {
    if (c == arch) break;
    ++i;
  }
  std::size_t n = 0;
  for (std::string_view mt : fam.model_types) {
    if (n == i) return std::string(mt);
    ++n;
  }
  return std::string(fam.model_types.front());
}

ModelSpec read(const Fields& f, std::string model_type, const std::string& file, std::string_view as) {
  ModelSpec m;
  m.model_type = model_type;
  m.stored_dtype = f.has("torch_dtype") ? f.str_or("torch_dtype", "") : f.str_or("dtype", "");
  std::string t = model_type;
  // A model type with an architecture table is read by it; the hand-written readers read the
  // rest (issue 28 migrates them onto tables one by one).
  const arch::Table* table = t.empty() ? nullptr : arch::table_by_model_type(t);
  const Family* fam = t.empty() || table != nullptr ? nullptr : family_by_model_type(t);
  if (fam == nullptr && table == nullptr) {
    // No model_type, or one napkin does not know: architectures[0] names the modeling class,
    // which decides the tensors (Kimi K2: model_type kimi_k2, DeepseekV3ForCausalLM).
    std::string arch;
    if (f.has("architectures")) {
      const JsonFields::json& a = f.raw("architectures");
      if (a.is_array() && !a.empty() && a.front().is_string()) arch = a.front().get<std::string>();
    }
    for (const Family& x : families())
      for (std::string_view c : x.architectures)
        if (!arch.empty() && c == arch && fam == nullptr) {
          fam = &x;
          t = model_type_of(x, arch);
        }
    if (fam == nullptr && !arch.empty() && (table = arch::table_by_class(arch)) != nullptr)
      t = arch::model_type_of_class(*table, arch);
    if (fam != nullptr && (table = arch::table_by_model_type(t)) != nullptr) fam = nullptr;
    if (fam != nullptr || table != nullptr)
      m.notes.push_back((model_type.empty() ? std::string("no model_type") : "model_type '" + model_type + "' is not one napkin names") +
                        ": architectures[0] " + arch + " is the modeling class of " + t + ", counted as " + t);
    if (fam == nullptr && model_type.empty() && as.empty() && f.has("n_embd")) {
      // openai-community/gpt2's first config.json has neither: its n_embd/n_layer/n_head are GPT-2's.
      t = "gpt2";
      table = arch::table_by_model_type(t);
      if (table == nullptr) fam = family_by_model_type(t);
      m.notes.push_back("no model_type: n_embd/n_layer/n_head read with GPT-2 conventions (biases, LayerNorm, "
                        "learned positions, tied head)");
    }
  }
  if (!as.empty()) {
    // A reader family's name (llama, deepseek, olmo, ...) reads as its first model type, with
    // that type's table where it has one.
    const Family* by = family_by_name(as);
    const std::string as_type(by != nullptr ? by->model_types.front() : as);
    const arch::Table* by_table = arch::table_by_model_type(as_type);
    if (by_table != nullptr) by = nullptr;
    if (by == nullptr && by_table == nullptr)
      throw InputError("--as", std::string(as), "a family napkin counts: " + family_names());
    if (fam != nullptr || table != nullptr)
      throw InputError("--as", std::string(as),
                       "no --as for a known family: " + file + " says model_type '" + model_type + "' (" +
                           (t == model_type ? std::string(fam != nullptr ? fam->name : arch::table_name(*table))
                                            : "architectures[0] names " + t) +
                           "); --as reads an unknown model_type by analogy");
    m.analogy = (model_type.empty() ? std::string("a config without model_type") : "model_type '" + model_type + "'") +
                " counted as " + std::string(by != nullptr ? by->name : arch::table_name(*by_table)) + " (--as " +
                std::string(as) + "): the count is by analogy, not exact";
    m.notes.push_back(m.analogy);
    if (by_table != nullptr) {
      // A family described as data: every count-changing key must be one its table reads.
      refuse_unread_layout(
          f, as, [by_table](std::string_view k) { return arch::table_reads(*by_table, k); }, model_type);
      ModelSpec d = arch::read_with_table(*by_table, f, as_type);
      d.model_type = model_type;
      d.stored_dtype = m.stored_dtype;
      d.analogy = m.analogy;
      d.notes.insert(d.notes.begin(), m.notes.begin(), m.notes.end());
      analogy_sizes(f, arch::table_name(*by_table), d);
      read_rope_scaling(f, d);
      refuse_unconsumed(f, model_type.empty() ? std::string(as) : model_type, arch::table_name(*by_table));
      return d;
    }
    refuse_unread_layout(
        f, by->name,
        [by](std::string_view k) {
          return std::find(std::begin(kMoeKeys), std::end(kMoeKeys), k) != std::end(kMoeKeys)  ? by->moe
                 : std::find(std::begin(kEncDecKeys), std::end(kEncDecKeys), k) != std::end(kEncDecKeys) ? by->name == "t5"
                                                                                                         : false;
        },
        model_type);
    fam = by;
    t = std::string(by->model_types.front());
  }
  if (table != nullptr) {
    // A family described as data (data/architectures/*.json).
    ModelSpec d = arch::read_with_table(*table, f, t);
    d.model_type = model_type;
    // Falcon's legacy RefinedWeb names show as falcon.
    if (t == "RefinedWeb" || t == "RefinedWebModel") d.family = arch::table_name(*table);
    d.stored_dtype = m.stored_dtype;
    d.notes.insert(d.notes.begin(), m.notes.begin(), m.notes.end());
    read_rope_scaling(f, d);
    refuse_unconsumed(f, model_type.empty() ? t : model_type, arch::table_name(*table));
    return d;
  }
  if (fam == nullptr)
    throw InputError(f.where("model_type") + ": " +
                     (model_type.empty() ? std::string("missing") : "'" + model_type + "' is not a family napkin counts") +
                     "; expected one of " + model_type_names() +
                     " (or --as FAMILY to count it by analogy with one, stated as a warning)");
  // The family shown is the model_type read (mistral, qwen2_moe, deepseek_v3, ...), except that
  // Falcon's legacy RefinedWeb names show as falcon.
  m.family = (t == "RefinedWeb" || t == "RefinedWebModel") ? std::string(fam->name) : t;
  fam->read(f, m, t);
  if (!m.analogy.empty()) analogy_sizes(f, fam->name, m);
  read_rope_scaling(f, m);
  if (m.analogy.empty()) refuse_unconsumed(f, model_type.empty() ? t : model_type, fam->name);
  // Layouts counted from their modeling files that no checkpoint total has yet confirmed
  // (tests/real-configs: the hand computations and the rounded figures published for them).
  static constexpr std::pair<std::string_view, std::string_view> kUnverified[] = {
      {"starcoder2", "modeling_starcoder2.py (StarCoder2-3B: 3.03B published, rounded)"},
      {"cohere2", "modular_cohere2.py"},
      {"falcon_mamba", "modeling_falcon_mamba.py (Falcon-Mamba-7B: 7.27B published, rounded)"},
      {"glm4", "modular_glm4.py"}};
  for (const auto& [type, source] : kUnverified)
    if (m.analogy.empty() && t == type) {
      m.unverified = "model_type '" + t + "' is counted from " + std::string(source) +
                     "; no checkpoint total has confirmed it yet";
      m.notes.push_back(m.unverified);
    }
  return m;
}

}  // namespace

namespace {

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
  } else {
    m.quant_note = "quant_method '" + method + "' is not modelled";
  }
}

}  // namespace

std::string model_type_names() {
  std::string s;
  for (const Family& fam : families())
    for (std::string_view mt : fam.model_types) s += (s.empty() ? "" : ", ") + std::string(mt);
  // A table of a type a reader already reads (the tables the readers move onto) is listed once.
  for (const std::string& mt : arch::table_model_types())
    if (family_by_model_type(mt) == nullptr) s += ", " + mt;
  return s;
}

std::string family_names() {
  std::string s;
  for (const Family& fam : families()) s += (s.empty() ? "" : ", ") + std::string(fam.name);
  for (const std::string& mt : arch::table_model_types())
    if (family_by_model_type(mt) == nullptr) s += ", " + mt;
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
  if (!t.empty() && (family_by_model_type(t) != nullptr || arch::table_by_model_type(t) != nullptr)) return std::nullopt;
  std::string cls;
  if (src->contains("architectures") && src->at("architectures").is_array() && !src->at("architectures").empty() &&
      src->at("architectures").front().is_string())
    cls = src->at("architectures").front().get<std::string>();
  for (const Family& fam : families())
    for (std::string_view c : fam.architectures)
      if (!cls.empty() && c == cls) return std::nullopt;
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

namespace family {

ModelSpec read_config_with_reader(const json& config, std::string_view model_type) {
  const Family* fam = family_by_model_type(model_type);
  if (fam == nullptr)
    throw InputError("config.json: no hand-written reader reads model_type '" + std::string(model_type) + "'");
  const JsonFields f(config, "config.json", "");
  ModelSpec m;
  const std::string t(model_type);
  m.model_type = t;
  m.family = (t == "RefinedWeb" || t == "RefinedWebModel") ? std::string(fam->name) : t;
  fam->read(f, m, t);
  read_rope_scaling(f, m);
  return m;
}

}  // namespace family

}  // namespace napkin::specs
