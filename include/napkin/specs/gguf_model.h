// A ModelSpec from a GGUF file alone: the architecture llama.cpp's metadata states
// (general.architecture and the `<arch>.*` hyperparameters, ggml docs/gguf.md "LLM"), read
// through the Hugging Face family it corresponds to, then checked against the file's own tensors.
#pragma once

#include <filesystem>

#include "napkin/model/model_spec.h"
#include "napkin/specs/checkpoint.h"

namespace napkin::specs {

/// The model a GGUF file describes. Reads `<arch>.block_count`, `embedding_length`,
/// `feed_forward_length`, `attention.head_count(_kv)`, `attention.key_length`/`value_length`,
/// `context_length`, `expert_count`/`expert_used_count` (and the MoE widths of qwen2moe/qwen3moe),
/// `attention.sliding_window` where the architecture slides a window, the vocabulary from
/// tokenizer.ggml.tokens, and biases and the output head from which tensors the file holds.
/// Known architectures: llama (Mixtral when it has experts), qwen2, qwen2moe, qwen3, qwen3moe,
/// gemma, gemma2, gemma3. Throws InputError (one line naming the file and the key) for another
/// architecture, a missing key, a per-layer array where one value is needed, K and V widths that
/// differ, or a spec whose exact parameter count differs from the tensors' element count (buffers
/// such as rope_freqs excluded): such a file is refused, never approximated.
ModelSpec model_from_gguf(const Checkpoint& checkpoint, const std::filesystem::path& path);

}  // namespace napkin::specs
