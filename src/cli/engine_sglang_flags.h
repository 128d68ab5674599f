// `--engine sglang` on memory and serve (--engine itself: engine_flags.h): SGLang's flags (with
// SGLang's names and defaults) and the exit-1 line when SGLang would not serve a request of the
// context. The arithmetic is the core's (napkin/engines/sglang.h).
#pragma once

#include "command_app.h"

#include <string>
#include <string_view>

#include "numeric_flags.h"
#include "napkin/engines/sglang.h"
#include "napkin/specs/hardware.h"

namespace napkin::cli {

/// Indices of SGLang's numeric flags in a command's NumericFlags, and --sglang-version as typed.
struct SglangFlags {
  std::size_t fraction = 0, chunk = 0, graph_bs = 0, page_size = 0, max_total_tokens = 0;
  std::string version = "0.5.8";
};
/// --mem-fraction-static (default: the release's rule), --chunked-prefill-size and
/// --cuda-graph-max-bs (default: SGLang's for the GPU), --page-size (1), --max-total-tokens, and
/// --sglang-version (0.5.8), in the help group "SGLang".
void add_sglang_flags(CommandApp* sub, NumericFlags& nf, SglangFlags& f);
/// Refuses an SGLang flag given without --engine sglang (InputError naming the flag).
void check_sglang_flags(CommandApp* sub, bool sglang);
/// The core's input at one sweep point. gpu_memory is torch's total of the GPU (the capacity);
/// `hw` the --hw spec when given, for the driver's total (SGLang's default fraction is computed
/// from it) and the links between GPUs (NVLink unless the part has only PCIe).
SglangInput sglang_input(const SglangFlags& f, const Point& p, Bytes gpu_memory, const specs::HardwareSpec* hw);
/// Why SGLang would not serve a request of the context ("does not fit: ..." naming the flags that
/// help), or "" when it would.
std::string sglang_failure(const SglangBudget& b);

}  // namespace napkin::cli
