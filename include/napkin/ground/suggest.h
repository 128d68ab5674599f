// "Did you mean ...?" for names typed by hand: the closest candidate by edit distance.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace napkin {

/// Levenshtein distance (insertions, deletions, substitutions), case-sensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The shortest candidate that starts with `typed`; else the candidate closest to `typed`, if it
/// is close enough to be a plausible typo (distance at most max(2, |typed|/3)).
std::optional<std::string> closest(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace napkin
