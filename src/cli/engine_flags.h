// --engine and llama.cpp's flags, shared by memory and serve. --engine is defined here for every
// engine napkin knows: none (napkin's engine-neutral ledger), llama.cpp, vllm, sglang.
#pragma once

#include <string>

#include "numeric_flags.h"
#include "napkin/engines/llamacpp.h"
#include "napkin/memory/ledgers.h"

namespace napkin::cli {

enum class Engine { none, llamacpp, vllm, sglang };

/// --engine none|llama.cpp|vllm|sglang (default none), in group "Engine".
void add_engine_option(CommandApp* sub, std::string& engine);
/// "none", "llama.cpp" (also "llamacpp", "llama-cpp"), "vllm", "sglang". InputError naming --engine
/// for anything else.
Engine parse_engine(const std::string& text);

/// llama.cpp's flags beside --kv-dtype: --v-dtype, --ubatch, --parallel, --swa-full,
/// --no-flash-attention, and --flash-attention where the command has none yet.
struct LlamaCppFlags {
  std::string v_dtype;
  std::size_t ubatch = 0, parallel = 0;  // indices in NumericFlags
  bool swa_full = false, kv_unified = false, no_flash_attention = false, flash_attention = false;
};
void add_llamacpp_flags(CommandApp* sub, NumericFlags& nf, LlamaCppFlags& f, bool add_flash_attention);

/// Refuses (InputError naming the flag) llama.cpp's flags without --engine llama.cpp, and the
/// flags in `not_with_llamacpp` with it.
void check_engine_flags(CommandApp* sub, Engine engine, std::initializer_list<const char*> not_with_llamacpp);

/// The cache types and flash attention of a llama.cpp run: --kv-dtype (default f16) for K,
/// --v-dtype (default: K's) for V. llama.cpp refuses a quantized V cache without flash attention
/// ("V cache quantization requires flash_attn", src/llama-context.cpp): so does napkin.
void fill_llamacpp_input(CommandApp* sub, const std::string& kv_dtype, const LlamaCppFlags& f, LlamaCppInput& in);

/// The napkin dtype serve's roofline reads a llama.cpp cache at: the wider of K and V, f32 → fp32,
/// f16 → fp16, bf16 → bf16, q8_0 → int8, the 4- and 5-bit types → int4.
Dtype kv_read_dtype(CacheType k, CacheType v);

/// Why llama.cpp would not start with the ledger in `rs` ("does not fit: ..."), or "" when it fits
/// or no capacity was given: with every layer on the GPU (-ngl 99) a buffer that does not fit is
/// a failed allocation and the model does not load.
std::string llamacpp_failure(const ResultSet& rs);

/// llama.cpp's ledger into `rs` (llamacpp_memory; for serve, llamacpp_serve_ledger over the
/// engine-neutral rows): the model buffer is napkin's weights row for `weights` (a checkpoint's
/// stored bytes, e.g. a GGUF's tensors, or the dtype arithmetic) on one GPU.
void llamacpp_ledger(LlamaCppInput li, const specs::ModelSpec& m, InferenceMemoryInput weights, ResultSet& rs,
                     bool serve);

}  // namespace napkin::cli
