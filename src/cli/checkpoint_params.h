// `napkin params` on checkpoint files: the parameter count as the safetensors or GGUF headers
// state it (no weight read), by tensor group and by storage type, and, when a config.json sits
// beside the weights, the difference from the config's formula count, group by group.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "napkin/ground/result.h"
#include "napkin/model/model_spec.h"
#include "napkin/specs/checkpoint.h"

namespace napkin::cli {

/// What the ResultSet points into: keep it alive until the output is written.
struct CheckpointCount {
  specs::Checkpoint checkpoint;
  std::vector<std::string> dtype_keys, dtype_labels;  // "dtype_BF16", "BF16 tensors"
  std::deque<std::string> exact;  // exact counts quoted in warnings ("1,234,567 params")
};

/// True for tensors stored beside the weights that are not parameters (rotary inv_freq,
/// position_ids, GPT-2/GPT-NeoX causal masks `attn.bias`, GGUF rope_freqs); the same names
/// specs::tensor_group files under "other".
bool is_buffer_tensor(std::string_view name);

/// Fills `out` with the checkpoint's counts. `config` (may be null) is the spec read from the
/// config.json beside the weights; with it the config's count and every group that differs are
/// reported.
void checkpoint_params(const std::string& model_arg, CheckpointCount& c, const specs::ModelSpec* config,
                       ResultSet& out);

}  // namespace napkin::cli
