// See napkin/model/gguf_layout.h. Sources, cited per table below:
// - llama.cpp src/llama-arch.cpp LLM_ARCH_NAMES and LLM_TENSOR_NAMES (ggml-org/llama.cpp
//   00395eb285c7c6821ff372e3ca41dae9da33c2c7): the architecture and tensor names.
// - gguf-py/gguf/tensor_mapping.py TensorNameMap (ggml-org/llama.cpp 0024aa7417efd50a7c2a79e049dfbbbceb0beaaf):
//   which checkpoint name becomes which GGUF tensor.
// - convert_hf_to_gguf.py and its per-family modules conversion/*.py (ggml-org/llama.cpp; the
//   commit of each is named where a family's converter is cited): the operations beyond renaming,
//   and prepare_tensors' choice of F32 for 1-D tensors, *_norm.weight, names not ending in
//   ".weight", and ffn_gate_inp, position_embd, token_types, ssm_conv1d, shortconv.conv,
//   altup_correct_coef and altup_predict_coef (conversion/base.py, 2bbcf7fc93a460f04d5709756a48b2408443eecb).
#include "napkin/model/gguf_layout.h"

#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

#include "napkin/ground/error.h"
#include "napkin/model/tensor_table.h"

namespace napkin {

namespace {

using specs::ModelSpec;
using specs::TableTensor;

// ---------------------------------------------------------------------------------------------
// Families → llama.cpp architectures.

enum ArchFlag : unsigned {
  kMla = 1,      // MLA: kv_b_proj split into attn_k_b/attn_v_b, head_count_kv written as 1
                 // (conversion/deepseek.py DeepseekV2Model, 01a723dc: "deepseek2 using MLA converts into MQA")
  kConv1d = 2,   // GPT-2's Conv1D weights are stored [in, out]; the converter transposes them (conversion/gpt2.py)
  kFalcon = 4,   // LLM_ARCH_FALCON: llama-quant.cpp has rules of its own for it
};

struct Arch {
  std::string_view family;  // data/architectures/<family>.json
  std::string_view arch;    // LLM_ARCH_NAMES; empty: llama.cpp has no architecture for the family
  unsigned flags = 0;
  std::string_view why = {};  // for an empty arch: what llama.cpp lacks
};

// One row per table family. The converter classes (ModelBase.register in conversion/*.py) name
// the architecture each checkpoint class converts to.
constexpr std::array kArchs = std::to_array<Arch>({
    {"afmoe", "afmoe"},
    {"apertus", "apertus"},
    {"baichuan", "baichuan"},
    {"bailing_moe", "bailingmoe2"},
    {"bloom", "bloom"},
    {"chatglm", "chatglm"},
    {"cohere", "command-r"},
    {"cohere2", "cohere2"},
    {"dbrx", "dbrx"},
    {"deepseek", "deepseek"},
    {"deepseek_v2", "deepseek2", kMla},
    {"deepseek_v3", "deepseek2", kMla},
    {"dots1", "dots1"},
    {"ernie4_5", "ernie4_5"},
    {"ernie4_5_moe", "ernie4_5-moe"},
    {"exaone", "exaone"},
    {"exaone4", "exaone4"},
    {"falcon", "falcon", kFalcon},
    {"falcon_h1", "falcon-h1"},
    {"gemma", "gemma"},
    {"gemma2", "gemma2"},
    {"gemma3_text", "gemma3"},
    {"glm", "glm4"},
    {"glm4_moe", "glm4moe"},
    {"glm4_moe_lite", "deepseek2", kMla},
    {"glm4v_text", "glm4"},
    {"glm4v_moe_text", "glm4moe"},
    {"gpt2", "gpt2", kConv1d},
    {"gpt_bigcode", "starcoder"},
    {"gpt_neox", "gptneox"},
    {"gpt_oss", "gpt-oss"},
    {"gptj", "gptj"},
    {"granite", "granite"},
    {"granitemoe", "granitemoe"},
    {"granitemoehybrid", "granitehybrid"},
    {"hunyuan_v1_dense", "hunyuan-dense"},
    {"hunyuan_v1_moe", "hunyuan-moe"},
    {"internlm2", "internlm2"},
    {"jamba", "jamba"},
    {"kimi_linear", "kimi-linear", kMla},
    {"lfm2", "lfm2"},
    {"lfm2_moe", "lfm2moe"},
    {"llama", "llama"},
    {"llama4", "llama4"},
    {"mamba", "mamba"},
    {"mamba2", "mamba2"},
    {"mimo", "qwen2"},
    {"minicpm3", "minicpm3"},
    {"minimax_m2", "minimax-m2"},
    {"ministral3", "mistral3"},
    {"mixtral", "llama"},
    {"mpt", "mpt"},
    {"nemotron", "nemotron"},
    {"nemotron-nas", "deci"},
    {"nemotron_h", "nemotron_h"},
    {"olmo", "olmo"},
    {"olmo2", "olmo2"},
    {"olmo3", "olmo2"},
    {"olmoe", "olmoe"},
    {"phi", "phi2"},
    {"phi3", "phi3"},
    {"phimoe", "phimoe"},
    {"qwen", "qwen"},
    {"qwen2", "qwen2"},
    {"qwen2_moe", "qwen2moe"},
    {"qwen2_vl", "qwen2vl"},
    {"qwen3", "qwen3"},
    {"qwen3_5", "qwen35"},
    {"qwen3_moe", "qwen3moe"},
    {"qwen3_next", "qwen3next"},
    {"qwen3_vl", "qwen3vl"},
    {"seed_oss", "seed_oss"},
    {"smollm3", "smollm3"},
    {"stablelm", "stablelm"},
    {"starcoder2", "starcoder2"},
    // No llama.cpp architecture (LLM_ARCH_NAMES at 00395eb lists none for them), or a conversion
    // napkin does not follow yet: refused.
    {"opt", "", 0, "llama.cpp has no OPT architecture"},
    {"mllama_text", "", 0, "llama.cpp has no Llama 3.2 Vision (mllama) architecture: its cross-attention layers"},
    {"minimax_m1", "", 0, "llama.cpp has no MiniMax-M1 architecture: its lightning-attention layers"},
    {"longcat_flash", "", 0, "llama.cpp has no LongCat-Flash architecture"},
    {"helium", "", 0, "napkin has not checked which llama.cpp architecture convert_hf_to_gguf.py gives Helium"},
    {"internlm3", "", 0, "napkin has not checked which llama.cpp architecture convert_hf_to_gguf.py gives InternLM3"},
    {"gemma3n_text", "", 0,
     "napkin does not yet follow convert_hf_to_gguf.py's Gemma 3n conversion (altup, laurel, per-layer "
     "embeddings)"},
    {"gemma4_text", "", 0,
     "napkin does not yet follow convert_hf_to_gguf.py's Gemma 4 conversion (per-layer embeddings, "
     "router scales, fused expert gate_up)"},
    {"deepseek_v32", "", 0,
     "napkin does not yet follow convert_hf_to_gguf.py's DeepSeek-V3.2 lightning-indexer tensors"},
    {"glm_moe_dsa", "", 0, "napkin does not yet follow convert_hf_to_gguf.py's GLM-5 lightning-indexer tensors"},
    {"bert", "", 0, "napkin's llama.cpp model is of decoders; BERT is an encoder (llama.cpp runs it for embeddings)"},
    {"t5", "", 0, "napkin's llama.cpp model is of decoder-only models; T5 is an encoder-decoder"},
});

const Arch* find_arch(std::string_view family) {
  for (const Arch& a : kArchs)
    if (a.family == family) return &a;
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Checkpoint names → GGUF names (tensor_mapping.py TensorNameMap, by role).

enum class Op : std::uint8_t {
  rename,       // one tensor; its row is the checkpoint shape's last dimension ([out, in])
  rename_io,    // stored [in, out] (GPT-2 Conv1D, DBRX w2, fused io experts): the row is the first
  gate_up,      // fused [gate; up] (or [in, 2F] io) split in two: gguf "a|b", the row is D
  expert_down,  // a fused experts' down projection in either orientation: the row is its width (not D)
  qkv,          // packed q/k/v split in three by heads (Baichuan W_pack, InternLM2 wqkv): "q|k|v"
  kv_b,         // MLA kv_b_proj split into attn_k_b (rows of nope) and attn_v_b (rows of kv_lora)
  drop,         // the converter writes no such tensor
};

struct Name {
  std::string_view families;  // comma-separated families the entry is for; empty: every family
  std::string_view hf;        // the checkpoint name after "{l}." (a layer's), or the whole name (a global's)
  std::string_view gguf;      // "attn_q" (".weight"/".bias" kept from the checkpoint name), or a full name
  Op op = Op::rename;
};

// Entries are checked family-specific first. `hf` is matched against the checkpoint name with its
// last ".weight" or ".bias" taken off (kept on the GGUF name); an entry whose `hf` has the suffix
// itself matches the whole name and `gguf` is then the whole GGUF name.
constexpr std::array kLayerNames = std::to_array<Name>({
    // Attention (ATTN_Q, ATTN_K, ATTN_V, ATTN_OUT, ATTN_QKV).
    {"", "self_attn.q_proj", "attn_q"},
    {"", "self_attn.k_proj", "attn_k"},
    {"", "self_attn.v_proj", "attn_v"},
    {"", "self_attn.o_proj", "attn_output"},
    {"", "self_attn.out_proj", "attn_output"},              // lfm2
    {"", "self_attn.dense", "attn_output"},                 // phi2
    {"", "self_attn.linear_attn", "attn_output"},           // deci
    {"", "self_attn.qkv_proj", "attn_qkv"},                 // phi3
    {"", "mixer.q_proj", "attn_q"},                         // nemotron-h
    {"", "mixer.k_proj", "attn_k"},
    {"", "mixer.v_proj", "attn_v"},
    {"", "mixer.o_proj", "attn_output"},
    {"", "attn.q_proj", "attn_q"},                          // gpt-j
    {"", "attn.k_proj", "attn_k"},
    {"", "attn.v_proj", "attn_v"},
    {"", "attn.out_proj", "attn_output"},
    {"", "attn.attention.q_proj", "attn_q"},                // exaone
    {"", "attn.attention.k_proj", "attn_k"},
    {"", "attn.attention.v_proj", "attn_v"},
    {"", "attn.attention.out_proj", "attn_output"},
    {"gpt2", "attn.c_attn", "attn_qkv", Op::rename_io},     // Conv1D (conversion/gpt2.py transposes)
    {"gpt2", "attn.c_proj", "attn_output", Op::rename_io},
    {"", "attn.c_attn", "attn_qkv"},                        // starcoder, qwen
    {"", "attn.c_proj", "attn_output"},
    {"", "attn.Wqkv", "attn_qkv"},                          // mpt
    {"", "norm_attn_norm.attn.Wqkv", "attn_qkv"},           // dbrx
    {"", "norm_attn_norm.attn.out_proj", "attn_output"},
    {"", "attention.query_key_value", "attn_qkv"},          // gptneox, bailingmoe2
    {"", "attention.dense", "attn_output"},
    {"", "self_attention.query_key_value", "attn_qkv"},     // falcon, bloom, chatglm
    {"", "self_attention.dense", "attn_output"},
    // conversion/baichuan.py and conversion/internlm.py split the packed projection into q, k, v.
    {"", "self_attn.W_pack", "attn_q|attn_k|attn_v", Op::qkv},
    {"", "attention.wqkv", "attn_q|attn_k|attn_v", Op::qkv},
    {"", "attention.wo", "attn_output"},                    // internlm2
    {"", "self_attn.sinks", "attn_sinks.weight"},           // gpt-oss (conversion/gpt_oss.py appends ".weight")
    {"", "self_attn.gate_proj", "attn_gate"},               // afmoe
    {"", "self_attn.q_norm", "attn_q_norm"},
    {"", "self_attn.k_norm", "attn_k_norm"},
    {"", "self_attn.q_layernorm", "attn_q_norm"},
    {"", "self_attn.k_layernorm", "attn_k_norm"},
    {"", "self_attn.q_layernorm.norms.[0..H-1]", "attn_q_norm"},   // stablelm: per-head norms stacked
    {"", "self_attn.k_layernorm.norms.[0..KV-1]", "attn_k_norm"},
    {"", "self_attn.query_layernorm", "attn_q_norm"},       // hunyuan
    {"", "self_attn.key_layernorm", "attn_k_norm"},
    {"", "attention.query_layernorm", "attn_q_norm"},       // bailingmoe2
    {"", "attention.key_layernorm", "attn_k_norm"},
    // MLA (ATTN_Q_A, ATTN_Q_B, ATTN_KV_A_MQA, ATTN_KV_B; ATTN_K_B/ATTN_V_B after the split).
    {"", "self_attn.q_a_proj", "attn_q_a"},
    {"", "self_attn.q_a_layernorm", "attn_q_a_norm"},
    {"", "self_attn.q_b_proj", "attn_q_b"},
    {"", "self_attn.kv_a_proj_with_mqa", "attn_kv_a_mqa"},
    {"", "self_attn.kv_a_layernorm", "attn_kv_a_norm"},
    {"minicpm3", "self_attn.kv_b_proj", "attn_kv_b"},
    {"", "self_attn.kv_b_proj", "attn_k_b|attn_v_b", Op::kv_b},
    // Norms.
    {"", "input_layernorm", "attn_norm"},
    {"", "ln_1", "attn_norm"},
    {"", "ln_2", "ffn_norm"},
    {"", "norm_1", "attn_norm"},                            // mpt
    {"", "norm_2", "ffn_norm"},
    {"", "norm_attn_norm.norm_1", "attn_norm"},             // dbrx
    {"", "norm_attn_norm.norm_2", "attn_output_norm"},
    {"", "ln_attn", "attn_norm_2"},                         // falcon-40b
    {"", "ln_mlp", "attn_norm"},
    {"", "norm", "attn_norm"},                              // mamba, nemotron-h
    {"", "attention_norm", "attn_norm"},                    // internlm2
    {"", "attention_layernorm", "attn_norm"},               // apertus
    {"", "operator_norm", "attn_norm"},                     // lfm2
    {"", "ffn_norm", "ffn_norm"},
    {"", "feedforward_layernorm", "ffn_norm"},              // apertus
    {"", "pre_ff_layernorm", "ffn_norm"},                   // jamba, falcon-h1
    {"", "pre_feedforward_layernorm", "ffn_norm"},          // gemma2
    {"", "pre_mlp_layernorm", "ffn_norm"},                  // afmoe
    {"gemma2,gemma3_text,olmo2,olmo3,exaone4,afmoe", "post_attention_layernorm", "post_attention_norm"},
    {"", "post_attention_layernorm", "ffn_norm"},
    {"", "post_self_attn_layernorm", "post_attention_norm"},   // glm-4-0414
    {"", "post_feedforward_layernorm", "post_ffw_norm"},
    {"", "post_mlp_layernorm", "post_ffw_norm"},
    {"", "final_layernorm", "layer_output_norm"},           // bailingmoe2
    // Dense feed-forward (FFN_GATE, FFN_UP, FFN_DOWN).
    {"", "mlp.gate_proj", "ffn_gate"},
    {"", "mlp.up_proj", "ffn_up"},
    {"", "mlp.down_proj", "ffn_down"},
    {"", "mlp.gate_up_proj", "ffn_up"},                     // phi3, glm4: kept fused (2F rows)
    {"", "mlp.fc1", "ffn_up"},                              // phi2
    {"", "mlp.fc2", "ffn_down"},
    {"", "mlp.fc_in", "ffn_up"},                            // gpt-j
    {"", "mlp.fc_out", "ffn_down"},
    {"gpt2", "mlp.c_fc", "ffn_up", Op::rename_io},
    {"gpt2", "mlp.c_proj", "ffn_down", Op::rename_io},
    {"", "mlp.c_fc", "ffn_up"},                             // starcoder, starcoder2
    {"", "mlp.c_proj", "ffn_down"},
    {"", "mlp.c_fc_0", "ffn_gate"},                         // exaone
    {"", "mlp.c_fc_1", "ffn_up"},
    {"", "mlp.w1", "ffn_up"},                               // qwen
    {"", "mlp.w2", "ffn_gate"},
    {"", "mlp.dense_h_to_4h", "ffn_up"},                    // gptneox, falcon, bloom, chatglm
    {"", "mlp.dense_4h_to_h", "ffn_down"},
    {"", "ffn.up_proj", "ffn_up"},                          // mpt
    {"", "ffn.down_proj", "ffn_down"},
    {"", "feed_forward.gate_proj", "ffn_gate"},             // llama4, jamba, falcon-h1
    {"", "feed_forward.up_proj", "ffn_up"},
    {"", "feed_forward.down_proj", "ffn_down"},
    {"", "feed_forward.w1", "ffn_gate"},                    // internlm2, lfm2
    {"", "feed_forward.w3", "ffn_up"},
    {"", "feed_forward.w2", "ffn_down"},
    {"", "mixer.up_proj", "ffn_up"},                        // nemotron-h
    {"", "mixer.down_proj", "ffn_down"},
    {"", "mlp.act_fn.alpha_n", "", Op::drop},               // apertus: xIELU scalars go to metadata (LLM_KV_XIELU_*)
    {"", "mlp.act_fn.alpha_p", "", Op::drop},
    // Routers (FFN_GATE_INP) and their bias (FFN_EXP_PROBS_B).
    {"", "mlp.gate", "ffn_gate_inp"},
    {"", "mlp.gate.wg", "ffn_gate_inp"},                    // hunyuan
    {"", "mlp.router", "ffn_gate_inp"},                     // gpt-oss
    {"", "mlp.router.gate", "ffn_gate_inp"},                // afmoe
    {"", "block_sparse_moe.gate", "ffn_gate_inp"},          // mixtral, phimoe, minimax-m2, kimi
    {"", "block_sparse_moe.router.layer", "ffn_gate_inp"},  // granitemoe
    {"", "feed_forward.router", "ffn_gate_inp"},            // llama4, jamba
    {"", "feed_forward.gate", "ffn_gate_inp"},              // lfm2moe
    {"", "ffn.router.layer", "ffn_gate_inp"},               // dbrx
    {"", "mixer.gate", "ffn_gate_inp"},                     // nemotron-h-moe
    {"", "mlp.gate.e_score_correction_bias", "exp_probs_b.bias"},
    {"", "mlp.moe_statics.e_score_correction_bias", "exp_probs_b.bias"},
    {"", "mlp.gate.expert_bias", "exp_probs_b.bias"},
    {"", "mlp.expert_bias", "exp_probs_b.bias"},
    {"", "block_sparse_moe.e_score_correction_bias", "exp_probs_b.bias"},
    {"", "block_sparse_moe.gate.e_score_correction_bias", "exp_probs_b.bias"},
    {"", "mixer.gate.e_score_correction_bias", "exp_probs_b.bias"},
    // Routed experts, one tensor per expert stacked per layer (FFN_*_EXP → ffn_*_exps).
    {"", "mlp.experts.{e}.gate_proj", "ffn_gate_exps"},
    {"", "mlp.experts.{e}.up_proj", "ffn_up_exps"},
    {"", "mlp.experts.{e}.down_proj", "ffn_down_exps"},
    {"", "block_sparse_moe.experts.{e}.w1", "ffn_gate_exps"},
    {"", "block_sparse_moe.experts.{e}.w3", "ffn_up_exps"},
    {"", "block_sparse_moe.experts.{e}.w2", "ffn_down_exps"},
    {"", "feed_forward.experts.{e}.gate_proj", "ffn_gate_exps"},
    {"", "feed_forward.experts.{e}.up_proj", "ffn_up_exps"},
    {"", "feed_forward.experts.{e}.down_proj", "ffn_down_exps"},
    {"", "feed_forward.experts.{e}.w1", "ffn_gate_exps"},
    {"", "feed_forward.experts.{e}.w3", "ffn_up_exps"},
    {"", "feed_forward.experts.{e}.w2", "ffn_down_exps"},
    {"", "mixer.experts.{e}.up_proj", "ffn_up_exps"},
    {"", "mixer.experts.{e}.down_proj", "ffn_down_exps"},
    // Experts stored fused per layer: gpt-oss (conversion/gpt_oss.py splits gate_up_proj into
    // gate ::2 and up 1::2 and transposes), Llama 4, Qwen3-VL/3.5 MoE, Granite MoE (input_linear =
    // [gate; up]), DBRX (ffn.experts.mlp.w1/v1/w2, each [E·F, D]; w2 permuted to rows of F).
    {"", "mlp.experts.gate_up_proj", "ffn_gate_exps.weight|ffn_up_exps.weight", Op::gate_up},
    {"", "mlp.experts.down_proj", "ffn_down_exps.weight", Op::expert_down},
    {"", "mlp.experts.gate_up_proj_bias", "ffn_gate_exps.bias|ffn_up_exps.bias", Op::gate_up},
    {"", "mlp.experts.down_proj_bias", "ffn_down_exps.bias"},
    {"", "feed_forward.experts.gate_up_proj", "ffn_gate_exps.weight|ffn_up_exps.weight", Op::gate_up},
    {"", "feed_forward.experts.down_proj", "ffn_down_exps.weight", Op::expert_down},
    {"", "block_sparse_moe.input_linear", "ffn_gate_exps|ffn_up_exps", Op::gate_up},
    {"", "block_sparse_moe.output_linear", "ffn_down_exps"},
    {"", "ffn.experts.mlp.w1", "ffn_gate_exps.weight"},
    {"", "ffn.experts.mlp.v1", "ffn_up_exps.weight"},
    {"", "ffn.experts.mlp.w2", "ffn_down_exps.weight", Op::rename_io},
    // Shared experts (FFN_*_SHEXP, FFN_GATE_INP_SHEXP).
    {"", "mlp.shared_expert.gate_proj", "ffn_gate_shexp"},
    {"", "mlp.shared_expert.up_proj", "ffn_up_shexp"},
    {"", "mlp.shared_expert.down_proj", "ffn_down_shexp"},
    {"", "mlp.shared_experts.gate_proj", "ffn_gate_shexp"},
    {"", "mlp.shared_experts.up_proj", "ffn_up_shexp"},
    {"", "mlp.shared_experts.down_proj", "ffn_down_shexp"},
    {"", "mlp.shared_mlp.gate_proj", "ffn_gate_shexp"},     // hunyuan
    {"", "mlp.shared_mlp.up_proj", "ffn_up_shexp"},
    {"", "mlp.shared_mlp.down_proj", "ffn_down_shexp"},
    {"", "feed_forward.shared_expert.gate_proj", "ffn_gate_shexp"},   // llama4
    {"", "feed_forward.shared_expert.up_proj", "ffn_up_shexp"},
    {"", "feed_forward.shared_expert.down_proj", "ffn_down_shexp"},
    {"", "block_sparse_moe.shared_experts.gate_proj", "ffn_gate_shexp"},   // kimi
    {"", "block_sparse_moe.shared_experts.up_proj", "ffn_up_shexp"},
    {"", "block_sparse_moe.shared_experts.down_proj", "ffn_down_shexp"},
    {"", "mixer.shared_experts.up_proj", "ffn_up_shexp"},   // nemotron-h-moe
    {"", "mixer.shared_experts.down_proj", "ffn_down_shexp"},
    {"", "shared_mlp.input_linear", "ffn_gate_shexp|ffn_up_shexp", Op::gate_up},   // granite
    {"", "shared_mlp.output_linear", "ffn_down_shexp"},
    {"", "mlp.shared_expert_gate", "ffn_gate_inp_shexp"},   // qwen2moe
    // State-space mixers (SSM_*): Mamba, Mamba-2, Jamba, Falcon-H1, Granite 4.0-H, Nemotron-H.
    {"", "mixer.in_proj", "ssm_in"},
    {"", "mixer.conv1d", "ssm_conv1d"},
    {"", "mixer.x_proj", "ssm_x"},
    {"", "mixer.dt_proj", "ssm_dt"},
    {"", "mixer.dt_bias", "ssm_dt.bias"},
    {"", "mixer.A_log", "ssm_a"},                           // -exp(A_log), no ".weight" (F32)
    {"", "mixer.D", "ssm_d"},
    {"", "mixer.norm", "ssm_norm"},
    {"", "mixer.out_proj", "ssm_out"},
    {"", "mamba.in_proj", "ssm_in"},
    {"", "mamba.conv1d", "ssm_conv1d"},
    {"", "mamba.x_proj", "ssm_x"},
    {"", "mamba.dt_proj", "ssm_dt"},
    {"", "mamba.dt_bias", "ssm_dt.bias"},
    {"", "mamba.A_log", "ssm_a"},
    {"", "mamba.D", "ssm_d"},
    {"", "mamba.norm", "ssm_norm"},
    {"", "mamba.out_proj", "ssm_out"},
    {"", "mamba.dt_layernorm", "ssm_dt_norm"},              // jamba
    {"", "mamba.b_layernorm", "ssm_b_norm"},
    {"", "mamba.c_layernorm", "ssm_c_norm"},
    // Linear attention: Qwen3-Next (in_proj_qkvz → ssm_in), Qwen3.5 (in_proj_qkv → attn_qkv).
    {"", "linear_attn.in_proj_qkvz", "ssm_in"},
    {"", "linear_attn.in_proj_ba", "ssm_ba"},
    {"", "linear_attn.in_proj_qkv", "attn_qkv"},
    {"", "linear_attn.in_proj_z", "attn_gate"},
    {"", "linear_attn.in_proj_b", "ssm_beta"},
    {"", "linear_attn.in_proj_a", "ssm_alpha"},
    {"", "linear_attn.conv1d", "ssm_conv1d"},
    {"", "linear_attn.dt_bias", "ssm_dt.bias"},
    {"", "linear_attn.A_log", "ssm_a"},
    {"", "linear_attn.norm", "ssm_norm"},
    {"", "linear_attn.out_proj", "ssm_out"},
    // Kimi delta attention (conversion/kimi_linear.py: dt_bias renamed dt_proj.bias).
    {"", "self_attn.q_conv1d", "ssm_conv1d_q"},
    {"", "self_attn.k_conv1d", "ssm_conv1d_k"},
    {"", "self_attn.v_conv1d", "ssm_conv1d_v"},
    {"", "self_attn.f_a_proj", "ssm_f_a"},
    {"", "self_attn.f_b_proj", "ssm_f_b"},
    {"", "self_attn.b_proj", "ssm_beta"},
    {"", "self_attn.g_a_proj", "ssm_g_a"},
    {"", "self_attn.g_b_proj", "ssm_g_b"},
    {"", "self_attn.A_log", "ssm_a"},
    {"", "self_attn.dt_bias", "ssm_dt.bias"},
    {"", "self_attn.o_norm", "ssm_norm"},
    // LFM2 short convolutions (SHORTCONV_*).
    {"", "conv.in_proj", "shortconv.in_proj"},
    {"", "conv.conv", "shortconv.conv"},
    {"", "conv.out_proj", "shortconv.out_proj"},
});

constexpr std::array kGlobalNames = std::to_array<Name>({
    // TOKEN_EMBD
    {"", "model.embed_tokens", "token_embd"},
    {"", "model.language_model.embed_tokens", "token_embd"},
    {"", "transformer.wte", "token_embd"},
    {"", "gpt_neox.embed_in", "token_embd"},
    {"", "transformer.word_embeddings", "token_embd"},
    {"", "word_embeddings", "token_embd"},
    {"", "backbone.embeddings", "token_embd"},
    {"", "model.tok_embeddings", "token_embd"},
    {"", "model.word_embeddings", "token_embd"},
    {"", "transformer.embedding.word_embeddings", "token_embd"},
    // OUTPUT
    {"", "lm_head", "output"},
    {"", "embed_out", "output"},
    {"", "output", "output"},
    {"", "transformer.output_layer", "output"},
    // OUTPUT_NORM
    {"", "model.norm", "output_norm"},
    {"", "model.language_model.norm", "output_norm"},
    {"", "transformer.ln_f", "output_norm"},
    {"", "ln_f", "output_norm"},
    {"", "gpt_neox.final_layer_norm", "output_norm"},
    {"", "backbone.norm_f", "output_norm"},
    {"", "transformer.norm_f", "output_norm"},
    {"", "model.final_layernorm", "output_norm"},
    {"", "transformer.encoder.final_layernorm", "output_norm"},
    // POS_EMBD, TOKEN_EMBD_NORM
    {"", "transformer.wpe", "position_embd"},
    {"", "word_embeddings_layernorm", "token_embd_norm"},   // bloom
    {"", "model.embedding_norm", "token_embd_norm"},        // lfm2
});

bool in_families(std::string_view list, std::string_view family) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (list.substr(0, comma) == family) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

// The entry for `hf` (the name less its ".weight"/".bias"), family-specific entries first.
template <std::size_t N>
const Name* find_name(const std::array<Name, N>& names, std::string_view family, std::string_view stem) {
  for (const Name& n : names)
    if (!n.families.empty() && n.hf == stem && in_families(n.families, family)) return &n;
  for (const Name& n : names)
    if (n.families.empty() && n.hf == stem) return &n;
  return nullptr;
}

std::vector<std::string_view> split_bar(std::string_view s) {
  std::vector<std::string_view> out;
  for (;;) {
    const std::size_t bar = s.find('|');
    out.push_back(s.substr(0, bar));
    if (bar == std::string_view::npos) return out;
    s.remove_prefix(bar + 1);
  }
}

[[noreturn]] void refuse(std::string_view value, const std::string& why) {
  throw InputError("--weights-dtype", std::string(value), why);
}

// convert_hf_to_gguf.py prepare_tensors: the tensors it writes in F32 whatever --outtype says.
bool written_f32(const std::string& name, int dims) {
  if (dims <= 1 || name.ends_with("_norm.weight") || !name.ends_with(".weight")) return true;
  for (std::string_view key : {"ffn_gate_inp", "position_embd", "token_types", "ssm_conv1d", "shortconv.conv",
                               "altup_correct_coef", "altup_predict_coef"})
    if (name.find(key) != std::string::npos) return true;
  return false;
}

int layer_of(const std::string& name) {
  if (!name.starts_with("blk.")) return -1;
  return std::stoi(name.substr(4));
}

}  // namespace

bool gguf_family_supported(std::string_view family) {
  const Arch* a = find_arch(family);
  return a != nullptr && !a->arch.empty();
}

GgufLayout gguf_layout(const ModelSpec& m, std::string_view value) {
  if (m.count_only())
    refuse(value, "MODEL (a preset or config.json: the per-tensor types need the architecture), not --params");
  if (!m.tensors)
    refuse(value, "a model with its architecture table (a preset or config.json): " + m.name +
                      " carries no tensor list, and llama-quantize's types follow the tensors");
  const std::string& family = m.tensors->family;
  const Arch* arch = find_arch(family);
  if (arch == nullptr || arch->arch.empty())
    refuse(value, fmt::format("a model llama.cpp can load: {} ({} tensors){}", m.name, family,
                              arch ? "; " + std::string(arch->why)
                                   : "; napkin has no llama.cpp architecture for this family"));
  if (m.encoder_decoder || m.encoder_only)
    refuse(value, "a decoder model: " + m.name + " is an encoder" + (m.encoder_decoder ? "-decoder" : ""));

  GgufLayout out;
  out.arch = arch->arch;
  out.falcon = (arch->flags & kFalcon) != 0;
  const bool mla = (arch->flags & kMla) != 0;
  const std::int64_t D = m.hidden;

  // A checkpoint that stores its routed experts in MXFP4 (gpt-oss: quantization_config quant_method
  // mxfp4) is converted with them kept in MXFP4 (conversion/gpt_oss.py repack_mxfp4).
  const bool mxfp4_experts = m.quant_method == "mxfp4" && m.quant_experts_only;
  std::map<std::string, std::size_t> index;  // GGUF name → position, to catch a name written twice
  const auto emit = [&](std::string name, std::int64_t row, std::int64_t ne2, std::int64_t elements, int dims) {
    if (index.contains(name))
      refuse(value, fmt::format("a model napkin converts one tensor per GGUF name: {} ({} tensors) gives {} twice",
                                m.name, family, name));
    index.emplace(name, out.tensors.size());
    const bool f32 = written_f32(name, dims) || name.find("ffn_gate_inp_shexp") != std::string::npos;
    const bool mxfp4 = mxfp4_experts && name.ends_with("_exps.weight");
    out.tensors.push_back(GgufSourceTensor{std::move(name), row, ne2, elements, dims, f32 && !mxfp4, mxfp4});
  };

  for (const TableTensor& t : m.tensors->tensors) {
    if (t.mtp) continue;  // multi-token prediction: the converters skip it (DeepseekV2Model.skip_mtp, ...)
    const std::string_view hf = t.name;
    std::string_view stem = hf, ending;
    for (std::string_view e : {".weight", ".bias"})
      if (hf.ends_with(e)) {
        stem = hf.substr(0, hf.size() - e.size());
        ending = e;
        break;
      }
    const Name* rule = nullptr;
    std::string prefix;
    const std::size_t at = hf.find("{l}.");
    if (t.layer >= 0 && at != std::string_view::npos) {
      const std::string_view suffix = stem.substr(at + 4);
      rule = find_name(kLayerNames, family, suffix);
      if (rule == nullptr && !ending.empty()) rule = find_name(kLayerNames, family, hf.substr(at + 4));
      prefix = fmt::format("blk.{}.", t.layer);
    } else if (t.layer < 0) {
      rule = find_name(kGlobalNames, family, stem);
    }
    if (rule == nullptr)
      refuse(value, fmt::format("a model whose every tensor napkin can name in the GGUF: {} ({} tensors) has {}, "
                                "which napkin has no GGUF name for",
                                m.name, family, hf));
    if (rule->op == Op::drop) continue;

    // One copy's shape, outermost first; a stacked expert tensor adds the experts as ne[2].
    std::int64_t one = t.elements();
    std::vector<std::int64_t> shape = t.shape;
    while (shape.size() > 1 && shape.front() == 1) shape.erase(shape.begin());  // ggml_n_dims drops trailing ne of 1
    const std::int64_t copies = t.copies;
    const int dims = static_cast<int>(shape.size()) + (copies > 1 ? 1 : 0);
    const std::int64_t last = shape.empty() ? 1 : shape.back(), first = shape.empty() ? 1 : shape.front();
    const std::vector<std::string_view> names = split_bar(rule->gguf);
    const auto full = [&](std::string_view g) {
      return prefix + std::string(g) + (g.ends_with(".weight") || g.ends_with(".bias") ? "" : std::string(ending));
    };
    switch (rule->op) {
      case Op::rename:
        emit(full(names[0]), last, copies, one * copies, dims);
        break;
      case Op::rename_io:
        emit(full(names[0]), first, copies, one * copies, dims);
        break;
      case Op::gate_up:
        // [2F, D] (or [D, 2F] stored in-out): two halves of F rows of D (a bias: of F).
        for (std::string_view g : names)
          emit(full(g), shape.size() > 1 ? D : one / 2, copies, one / 2 * copies, dims);
        break;
      case Op::expert_down:
        emit(full(names[0]), shape.size() > 1 ? (first == D ? last : first) : one, copies, one * copies, dims);
        break;
      case Op::qkv: {
        const std::int64_t dh = m.head_dim > 0 ? m.head_dim : m.hidden / m.heads;
        const std::int64_t rows[3] = {m.heads * dh, m.kv_heads * dh, m.kv_heads * dh};
        const std::int64_t per_row = shape.size() > 1 ? last : 1;
        for (int i = 0; i < 3; ++i) emit(full(names[static_cast<std::size_t>(i)]), per_row, 1, rows[i] * per_row, dims);
        break;
      }
      case Op::kv_b: {
        if (!mla) refuse(value, m.name + ": kv_b_proj outside an MLA architecture");
        // conversion/deepseek.py: kv_b viewed [H, nope + vd, kv_lora], split, k_b transposed:
        // attn_k_b ne = [nope, kv_lora, H], attn_v_b ne = [kv_lora, vd, H].
        const std::int64_t H = m.heads, kvr = m.mla.kv_lora_rank, nope = m.mla.qk_nope_head_dim, vd = m.mla.v_head_dim;
        if (H * (nope + vd) * kvr != one)
          refuse(value, fmt::format("{}: kv_b_proj of {} elements is not heads {} × (nope {} + v {}) × kv_lora {}", m.name,
                                    one, H, nope, vd, kvr));
        emit(full(names[0]), nope, H, H * nope * kvr, 3);
        emit(full(names[1]), kvr, H, H * vd * kvr, 3);
        break;
      }
      case Op::drop: break;
    }
  }

  std::sort(out.tensors.begin(), out.tensors.end(), [](const GgufSourceTensor& a, const GgufSourceTensor& b) {
    const int la = layer_of(a.name), lb = layer_of(b.name);
    return la != lb ? la < lb : a.name < b.name;
  });

  // Hyperparameters llama-quantize reads (llama_model::load_hparams).
  out.n_layer = m.layers;
  out.n_head = m.heads;
  out.n_head_kv = mla ? 1 : m.kv_heads;
  // Hybrids write head_count_kv per layer, 0 where a layer has no attention: n_gqa() of layer 0.
  if (m.layer_mixer(0) != specs::LayerMixer::attention || m.layer_attention(0) == specs::LayerAttention::none)
    out.n_head_kv = 0;
  out.n_expert = m.moe.n_experts;
  // LLM_TYPE_70B (llama-model.cpp load_hparams): LLM_ARCH_LLAMA with 80 layers and fewer KV heads
  // than heads (a dense one: 8-expert models are typed by their expert count), LLM_ARCH_QWEN2 with
  // 80 layers.
  const bool llama_arch = m.model_type == "llama" || m.model_type == "mistral";
  out.type_70b = m.layers == 80 && ((llama_arch && !m.moe.is_moe() && m.heads != m.kv_heads) || m.model_type == "qwen2");
  return out;
}

}  // namespace napkin
