// The tensors of the GGUF that llama.cpp's convert_hf_to_gguf.py writes for a model, derived from
// the model's architecture table (ModelSpec::tensors, the checkpoint's own names and shapes): the
// GGUF names llama.cpp's loader expects (src/llama-arch.cpp LLM_TENSOR_NAMES: token_embd,
// blk.N.attn_qkv, blk.N.ffn_down_exps, ...), each tensor's row (ne[0]) and element count, and
// whether the converter writes it in F32 or 16 bits. This is the input llama-quantize reads
// (napkin/model/gguf_quant.h).
//
// How: every checkpoint tensor is renamed by a role table (src/model/gguf_layout.cpp kNames,
// after gguf-py/gguf/tensor_mapping.py TensorNameMap): the part of its name after the layer index
// ("self_attn.q_proj.weight") gives the GGUF name ("attn_q.weight"), with a handful of
// converter operations the table names per entry: routed experts stacked into one 3-D
// ffn_*_exps tensor per layer, Conv1D weights stored transposed (GPT-2), fused expert gate/up
// tensors split in two (gpt-oss, Llama 4, Granite MoE), a packed q/k/v split (Baichuan W_pack,
// InternLM2 wqkv), MLA's kv_b split into attn_k_b and attn_v_b (DeepSeek-V2/V3), tensors the
// converter drops (multi-token-prediction layers, Apertus' xIELU scalars). A family is mapped to
// llama.cpp's architecture by a second table (kArchs), which also says where llama.cpp has none.
//
// A tensor no entry names, or a family llama.cpp does not support, is refused (InputError on
// --weights-dtype), never approximated.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/model/model_spec.h"

namespace napkin {

/// One tensor of the converted GGUF, before llama-quantize.
struct GgufSourceTensor {
  std::string name;          // "blk.3.attn_v.weight"
  std::int64_t row = 0;      // ne[0]: elements per row
  std::int64_t ne2 = 1;      // ne[2] (experts of a stacked ffn_*_exps, heads of MLA's attn_k_b/v_b)
  std::int64_t elements = 0;
  int dims = 2;              // ggml_n_dims: 1 for vectors (and [n, 1] matrices), 2, or 3
  bool f32 = false;          // convert_hf_to_gguf writes it in F32 (else in 16 bits)
  bool mxfp4 = false;        // written as the checkpoint stores it, in MXFP4 (gpt-oss's routed experts)
};

/// The converted GGUF as llama-quantize sees it.
struct GgufLayout {
  std::string_view arch;                 // llama.cpp's architecture name ("llama", "gptneox", "deepseek2")
  std::vector<GgufSourceTensor> tensors;  // in llama.cpp's order: by layer (globals first), then name
  std::int64_t n_layer = 0;              // block_count (hparams.n_layer_all)
  std::int64_t n_head = 0, n_head_kv = 0;  // layer 0's, as the GGUF states them (MLA: n_head_kv 1)
  std::int64_t n_expert = 0;             // expert_count (0: dense)
  bool type_70b = false;                 // llama.cpp types the model LLM_TYPE_70B
  bool falcon = false;                   // LLM_ARCH_FALCON (its own rules in llama-quant.cpp)
};

/// The GGUF tensors of `m` as convert_hf_to_gguf.py writes them. `value` is the --weights-dtype
/// the caller was given, for the messages. Throws InputError (field "--weights-dtype") when `m`
/// has no architecture table (a bare parameter count), is an encoder or encoder-decoder, is a
/// family llama.cpp has no architecture for, or has a tensor napkin has no GGUF name for.
GgufLayout gguf_layout(const specs::ModelSpec& m, std::string_view value);

/// True when llama.cpp has an architecture for the table family `family` (data/architectures/).
bool gguf_family_supported(std::string_view family);

}  // namespace napkin
