// Assumption key -> the flag that changes it (assumption_flags.cpp): run_sweep and presets name
// it on each assumption line.
#pragma once

#include <string_view>
#include <vector>

namespace napkin::cli {

/// The flag that changes an assumption, by the assumption's key ("" when no flag changes it).
/// Throws std::out_of_range for a key the table does not list.
std::string_view flag_for_assumption(std::string_view key);
/// Every key the table lists (for the test that checks the table covers every emitted key).
std::vector<std::string_view> assumption_keys();

}  // namespace napkin::cli
