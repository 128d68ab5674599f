#include "napkin/ground/suggest.h"

#include <algorithm>

namespace napkin {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest(std::string_view typed, const std::vector<std::string>& candidates) {
  // A name the user typed the start of ("h100" for "h100-sxm") beats a near miss ("h200").
  std::optional<std::string> prefixed;
  for (const auto& c : candidates)
    if (!typed.empty() && c.size() > typed.size() && c.compare(0, typed.size(), typed) == 0 &&
        (!prefixed || c.size() < prefixed->size()))
      prefixed = c;
  if (prefixed) return prefixed;
  std::optional<std::string> best;
  std::size_t best_d = std::max<std::size_t>(2, typed.size() / 3) + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(typed, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

}  // namespace napkin
