// The bytes of a GGUF that llama.cpp's llama-quantize would write for a model, computed from its
// ModelSpec without the file: every tensor gets the ggml type llama-quantize assigns it for the
// requested file type (Q4_K_M, IQ4_XS, ...), and its bytes follow from the type's block size.
//
// The rules are those of `llama_tensor_get_type` and `tensor_type_fallback` in llama.cpp's
// src/llama-quant.cpp, followed at commit 007dbbf3fd17eefe9b47fee45f48f7ba5e62b714
// (ggml-org/llama.cpp; kLlamaCppQuantCommit): the K-quant mixes (attn_v and ffn_down get more bits
// on the layers `use_more_bits(i, n)` picks: the first and last eighth and every third layer
// between), the output (and tied token embedding) at Q6_K (Q5_K for the 1-2 bit IQ types, Q8_0
// when its rows do not fill a block), GQA (n_head/n_head_kv >= 4) and 8-expert special cases, the
// 70B attn_v bump, 1-D tensors (norms, biases) and the MoE router kept at F32, and the fallback of
// a tensor whose row is not a multiple of the type's block (Q4_K → Q5_0, Q5_K → Q5_1, Q6_K → Q8_0,
// Q2_K/Q3_K/TQ* → Q4_0, IQ* → IQ4_NL, then F16).
//
// The input is the GGUF convert_hf_to_gguf.py writes (napkin/model/gguf_layout.h: the model's
// architecture table renamed to llama.cpp's tensors; 1-D tensors, norms, routers and a few others
// in F32, the rest in 16 bits, except a checkpoint's MXFP4 experts, kept in MXFP4); llama-quantize
// runs with its defaults (no --pure, no --leave-output-tensor, no --tensor-type overrides, no
// --allow-requantize) and with an importance matrix only where the type cannot be made without
// one (IQ1_*, IQ2_*, IQ3_XXS, IQ3_XS, Q2_K_S), as llama-quantize refuses those without --imatrix.
// Every family whose table gguf_layout maps to a llama.cpp architecture is covered: fused attn_qkv
// (GPT-NeoX, Phi-3, Falcon, Bloom, GPT-2, MPT, StarCoder) takes attn_v's rules as 007dbbf's
// category_is_attn_v says, MLA's split attn_k_b/attn_v_b and every 3-D tensor under MXFP4_MOE,
// Falcon's own output/ffn_down/attn_output rules, ssm_* tensors. A model without a table (napkin
// model JSON) is built from its spec's fields for the llama-like layouts (llama, mistral, mixtral,
// qwen2, qwen2_moe, qwen3, qwen3_moe, gemma2, gemma3_text) and refused otherwise.
//
// Not counted: the GGUF header and metadata (vocabulary strings: a few MB) and Llama 3.1's 64-float
// rope_freqs tensor (256 B). A file's size is these bytes plus a few MB.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/model/model_spec.h"

namespace napkin {

/// The llama.cpp commit whose src/llama-quant.cpp the rules follow (see above).
inline constexpr std::string_view kLlamaCppQuantCommit = "007dbbf3fd17eefe9b47fee45f48f7ba5e62b714";

/// llama-quantize's file types (LLAMA_FTYPE_*), by the names tools/quantize/quantize.cpp lists.
enum class GgufFileType {
  f32, f16, q4_0, q4_1, q5_0, q5_1, q8_0, q2_k, q2_k_s, q3_k_s, q3_k_m, q3_k_l, q4_k_s, q4_k_m,
  q5_k_s, q5_k_m, q6_k, iq1_s, iq1_m, iq2_xxs, iq2_xs, iq2_s, iq2_m, iq3_xxs, iq3_xs, iq3_s,
  iq3_m, iq4_nl, iq4_xs, tq1_0, tq2_0, mxfp4_moe,
};

/// The file type named `name` (case-insensitive): llama-quantize's names ("q4_k_m", "iq4_xs"), its
/// aliases q3_k, q4_k and q5_k (of the _M mixes, as quantize.cpp lists them), and "mxfp4" for
/// MXFP4_MOE. bf16 is not here: napkin's own bf16 dtype covers it. nullopt when none.
std::optional<GgufFileType> gguf_file_type(std::string_view name);
/// "Q4_K_M", as llama-quantize prints it.
std::string_view gguf_file_type_name(GgufFileType t);
/// Every name gguf_file_type accepts, comma-separated (for error messages and help).
std::string gguf_file_type_names();
/// True where llama-quantize refuses to make the type without --imatrix.
bool gguf_needs_imatrix(GgufFileType t);
/// True where an importance matrix changes the mix's types (Q4_0, Q5_0, IQ4_NL, IQ4_XS: the first
/// eighth of ffn_down; IQ3_XXS: attn_v and ffn_down).
bool gguf_imatrix_changes_mix(GgufFileType t);

/// One ggml type of the result: how many tensors got it, their elements and bytes.
struct GgufTypeTotal {
  std::string_view type;  // "Q4_K"
  std::int64_t tensors = 0;
  std::int64_t elements = 0;
  std::int64_t bytes = 0;
};

/// One tensor as llama-quantize would write it.
struct GgufTensor {
  std::string name;         // "blk.3.attn_v.weight"
  std::int64_t row = 0;     // ne[0]: elements per row (what the block must divide)
  std::int64_t elements = 0;
  std::string_view type;    // the ggml type assigned
  std::int64_t bytes = 0;
  bool fallback = false;    // the row did not fill the mix's type: tensor_type_fallback chose
};

struct GgufQuantMix {
  GgufFileType file_type{};
  bool imatrix = false;              // quantized with an importance matrix (see above)
  std::vector<GgufTensor> tensors;   // in llama.cpp's order (by layer, then name)
  std::vector<GgufTypeTotal> types;  // by bytes, largest first
  std::int64_t elements = 0;
  std::int64_t bytes = 0;
  std::int64_t fallbacks = 0;        // tensors whose rows did not fill the mix's block
  double bits_per_weight() const;    // 8 · bytes / elements
  /// "Q4_K 193 tensors 3.66 GB, Q6_K 33 tensors 1.26 GB, F32 65 tensors 1.06 MB".
  std::string detail() const;
};

/// The tensors, their types and bytes of `m` quantized by llama-quantize to `t`. `imatrix`: with
/// an importance matrix (it changes IQ3_XXS, IQ4_NL/IQ4_XS and Q4_0/Q5_0 mixes); nullopt: only
/// where the type needs one. Throws InputError (field "--weights-dtype") for a model gguf_layout
/// refuses (no llama.cpp architecture, an encoder, a tensor without a GGUF name), or a type
/// llama-quantize would not make for it (a 1-3 bit IQ type or Q2_K_S without an importance
/// matrix; a legacy type whose block a row does not fill, for which llama.cpp defines no fallback;
/// any type but MXFP4_MOE for a checkpoint whose experts are stored in MXFP4, which llama-quantize
/// will not requantize). MXFP4_MOE on a dense model is every matrix in Q8_0, as llama-quantize
/// writes it. GgufTensor.name is the GGUF name (token_embd.weight, blk.N.*, output.weight).
GgufQuantMix gguf_quant_mix(const specs::ModelSpec& m, GgufFileType t, std::optional<bool> imatrix = std::nullopt);

}  // namespace napkin
