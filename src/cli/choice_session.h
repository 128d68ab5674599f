// The comparison in progress, shared by run_choices (choice_axes.cpp), which opens it, and
// run_sweep (sweep_runner.cpp), which validates into it and renders through it. Private to those two.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "napkin/report/render.h"

namespace napkin::cli {

// The comparison run_choices is in (nullptr outside one): run_sweep validates into it while
// `probing`, then renders every combination's rows through its one renderer.
struct ChoiceSession {
  bool probing = true;
  std::vector<std::pair<std::string, std::string>> current;  // (input name, value) of this combination
  std::size_t rows = 0;                                      // numeric rows per combination
  std::vector<std::string> numeric_swept;
  std::vector<std::string> inputs, items;  // union over the combinations, first seen first
  report::Renderer* renderer = nullptr;
  std::set<std::string> warned;  // warning lines already printed (print_warning, warn_analogy)
};
extern ChoiceSession* g_choices;

}  // namespace napkin::cli
