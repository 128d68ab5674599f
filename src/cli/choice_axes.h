// Comparisons: a string flag (or MODEL) given a comma list runs the command once per value, and
// every combination's rows go to one output (run_choices).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "output_flags.h"

namespace napkin::cli {

/// A string flag (or MODEL) that takes a comma list, each value one configuration of a
/// comparison: `napkin memory llama-3.1-8b,qwen2.5-7b --hw h100-sxm,l40s`.
struct ChoiceAxis {
  std::string name;    // the input it shows as ("model", "hw", "weights_dtype")
  std::string flag;    // for messages ("MODEL", "--hw")
  std::string* value;  // the command's string the flag is bound to
};

/// Runs `body` (a command's callback: it reads the strings `axes` point to and calls run_sweep)
/// once per combination of the axes' values, the first axis varying slowest, into one output:
/// every combination is validated first (nothing is printed if one fails), then each row carries
/// the combination's values as inputs. `reset` restores the command's state before each run. A
/// value that names an existing file or directory is never split. With one value per axis it is
/// just `body()`. Returns the largest exit code of the runs. A table of at most 6 rows with a
/// list compares them side by side (keys as rows) when that fits 100 columns.
int run_choices(const std::vector<ChoiceAxis>& axes, const OutputOptions& out, const std::function<void()>& reset,
                const std::function<int()>& body);

}  // namespace napkin::cli
