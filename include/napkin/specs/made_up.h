// A made-up decoder (issue 16): a decoder-only transformer given by a few shapes instead of a
// config file, for homework questions and architectures that exist only on paper. napkin's CLI
// builds it from --layers --hidden --heads --kv-heads --head-dim --ffn --vocab --tied --no-gated
// --moe-experts --moe-top-k --moe-ffn (src/cli/model_flags.h), wherever a MODEL is taken.
//
// Conventions: Llama's (transformers configuration_llama.py and modeling_llama.py), which are
// also napkin model JSON's defaults (docs/model-spec.md): the spec is what from_napkin_json reads
// from a file holding these fields, so a made-up decoder and the same model written as napkin
// model JSON count alike.
//   attention     H query heads of d_head; H_kv key/value heads (default H: multi-head); no biases
//   d_head        D / H unless given (refused when D / H is not an integer)
//   MLP           gated SwiGLU: gate and up D→F, down F→D (3·D·F), no biases; or, not gated, a
//                 plain up/down pair D→F→D (2·D·F) with a GELU-style activation
//   MoE           with E experts: every layer's MLP is E experts of width F_e (default F), k routed
//                 per token, a D×E router without bias, no shared expert (Mixtral's layout)
//   norms         RMSNorm (a weight of D, no bias) before attention and before the MLP, and one
//                 after the last layer
//   positions     rotary (no position weights); no context limit
//   embeddings    untied unless `tied`: the LM head is its own V×D matrix
// Every size is an exact integer. Errors name the CLI flag of the field (InputError).
#pragma once

#include <cstdint>
#include <string>

#include "napkin/model/model_spec.h"

namespace napkin::specs {

/// The shapes of a made-up decoder. A field left at 0 takes the default beside it.
struct DecoderShape {
  std::int64_t layers = 0;       // L
  std::int64_t hidden = 0;       // D
  std::int64_t heads = 0;        // H (query heads)
  std::int64_t kv_heads = 0;     // H_kv; 0: H (multi-head attention)
  std::int64_t head_dim = 0;     // d_head; 0: D / H
  std::int64_t ffn = 0;          // F, the MLP width; with experts, their width unless moe_ffn
  std::int64_t vocab = 0;        // V
  bool tied = false;             // the LM head shares the embedding matrix
  bool gated = true;             // SwiGLU (3 matrices) or a plain MLP (2)
  std::int64_t moe_experts = 0;  // E routed experts in every layer; 0: dense
  std::int64_t moe_top_k = 0;    // k experts per token (needed with E)
  std::int64_t moe_ffn = 0;      // width of one expert; 0: F
  bool operator==(const DecoderShape&) const = default;
  bool is_moe() const { return moe_experts > 0; }
};

/// The model's name in inputs and outputs: "decoder(L=32, D=4096, H=32, H_kv=8, F=14336,
/// V=128256)", with d_head when given; for a mixture of experts "E=8, k=2, F_e=14336" in place of
/// F; then "tied" and "plain MLP" when they apply.
std::string decoder_name(const DecoderShape& s);

/// The spec of the made-up decoder. Throws InputError naming the flag when a size is missing or
/// out of range (the bounds of count_params), D / H is not an integer and no head_dim is given,
/// H_kv does not divide H, k is outside 1..E, an expert flag comes without E, or F and F_e are
/// both given for a model whose every layer is MoE (F would be unused).
ModelSpec made_up_decoder(const DecoderShape& s);

}  // namespace napkin::specs
