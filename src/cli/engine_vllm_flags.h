// `--engine vllm` on memory and serve (--engine itself: engine_flags.h): the vLLM flags (with
// vLLM's names and defaults) and the exit-1 line when vLLM would refuse to start. The arithmetic is the
// core's (napkin/engines/vllm.h).
#pragma once

#include "command_app.h"

#include <string>
#include <string_view>

#include "numeric_flags.h"
#include "napkin/engines/vllm.h"

namespace napkin::cli {

/// Indices of the vLLM flags in a command's NumericFlags.
struct VllmFlags {
  std::size_t utilization = 0, batched_tokens = 0, seqs = 0, block_size = 0;
  std::string version;        // --vllm-version
  bool enforce_eager = false;  // --enforce-eager
};
/// --gpu-memory-utilization (0.9), --max-num-batched-tokens and --max-num-seqs (vLLM's defaults
/// for the GPU: napkin::vllm_batch_defaults), --block-size (16), in the help group "vLLM".
/// Also --vllm-version (the release whose profiling the budget follows) and --enforce-eager.
/// `f` must outlive the parse (the string and flag options write into it).
void add_vllm_flags(CommandApp* sub, NumericFlags& nf, VllmFlags& f);
/// Refuses a vLLM flag given without --engine vllm (InputError naming the flag).
void check_vllm_flags(CommandApp* sub, bool vllm);
/// The core's input at one sweep point. gpu_memory is torch's total of the GPU; `device` its name
/// (for vLLM's A100 exception) or "" when only --gpu-memory was given.
VllmInput vllm_input(const VllmFlags& f, const Point& p, Bytes gpu_memory, std::string_view device);
/// Why vLLM would not start with this budget ("does not fit: ..." naming the flags that help), or
/// "" when it would.
std::string vllm_failure(const VllmBudget& b);

}  // namespace napkin::cli
