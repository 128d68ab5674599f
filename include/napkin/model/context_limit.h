// The longest context a model was made for, and the one check every command makes against it:
// memory (--context), serve (--prompt + --generate), train and memory --train (--seq), and the
// engine modes. The check is a warning on the result; an engine that refuses the length (vLLM:
// max_model_len past its derived one) refuses it in its own code, against the same limit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "napkin/ground/result.h"
#include "napkin/model/model_spec.h"

namespace napkin {

/// The longest context the model takes, as vLLM derives its max_model_len (vllm/config/model.py
/// _get_and_verify_max_len, v0.10): the length the config states (max_position_embeddings,
/// n_positions, seq_length, as the family reads it) multiplied by rope_scaling's factor, except
/// for the "su", "longrope" and "llama3" types (which scale frequencies within the stated length)
/// and Gemma 3 (whose stated length is already scaled); yarn multiplies its
/// original_max_position_embeddings. 0 tokens when the config states no length.
struct ContextLimit {
  std::int64_t tokens = 0;
  std::string source;  // "max_position_embeddings 131072", "original_max_position_embeddings 32768 × ..."
};
ContextLimit context_limit(const specs::ModelSpec& m);

/// `tokens` (what `flag` sets: "--context", "--prompt + --generate", "--seq", ...) against the
/// context limit: past it, one warning on `out` (the arithmetic holds; the model was not trained
/// for the length, and with learned positions no engine runs it). Engines that refuse the length
/// refuse it themselves (vllm_budget). `flag` must outlive `out` (a string literal).
void check_trained_context(const specs::ModelSpec& m, double tokens, std::string_view flag, ResultSet& out);

}  // namespace napkin
