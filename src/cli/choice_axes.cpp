// See choice_axes.h.
#include "choice_axes.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

#include "napkin/ground/error.h"
#include "napkin/report/render.h"
#include "napkin/specs/files.h"
#include "choice_session.h"
#include "safe_output.h"

namespace napkin::cli {

// Set while run_choices runs (SessionGuard below).
ChoiceSession* g_choices = nullptr;

namespace {

// A flag's comma list; a value naming an existing path is one value (a file may hold a comma).
std::vector<std::string> choice_values(const ChoiceAxis& a) {
  const std::string& text = *a.value;
  if (text.find(',') == std::string::npos || specs::file_status(text).kind != specs::FileKind::missing) return {text};
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(',', begin);
    std::string v = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    // The whole message here: MODEL is not a flag that main would spell "--MODEL".
    if (v.empty()) throw InputError(a.flag + ": '" + text + "': expected a comma list without empty entries");
    out.push_back(std::move(v));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return out;
}

// Clears the session on every way out of run_choices.
struct SessionGuard {
  explicit SessionGuard(ChoiceSession& s) {
    g_choices = &s;
    set_warning_dedupe(&s.warned);
  }
  ~SessionGuard() {
    g_choices = nullptr;
    set_warning_dedupe(nullptr);
  }
  SessionGuard(const SessionGuard&) = delete;
  SessionGuard& operator=(const SessionGuard&) = delete;
};

}  // namespace

int run_choices(const std::vector<ChoiceAxis>& axes, const OutputOptions& out, const std::function<void()>& reset,
                const std::function<int()>& body) {
  // Each configuration loads its model and hardware: a comparison is bounded, like a sweep.
  constexpr std::size_t kMaxConfigurations = 10000;
  std::vector<std::vector<std::string>> values;
  std::size_t combos = 1;
  for (const ChoiceAxis& a : axes) {
    values.push_back(choice_values(a));
    combos *= values.back().size();
    if (combos > kMaxConfigurations)
      throw InputError(a.flag + ": '" + *a.value + "': expected at most " + std::to_string(kMaxConfigurations) +
                       " configurations in one comparison (the lists' product)");
  }
  if (combos == 1) return body();
  const report::Format format = output_format(out);
  ChoiceSession session;
  SessionGuard guard(session);
  // Combination k: each axis's index, the first axis slowest.
  auto select = [&](std::size_t k) {
    reset();
    session.current.clear();
    for (std::size_t a = axes.size(); a-- > 0;) {
      const std::string& v = values[a][k % values[a].size()];
      k /= values[a].size();
      *axes[a].value = v;
      if (values[a].size() > 1) session.current.emplace_back(axes[a].name, v);
    }
    std::reverse(session.current.begin(), session.current.end());
  };
  // Every combination is validated before anything is printed.
  std::size_t rows = 0;
  for (std::size_t k = 0; k < combos; ++k) {
    select(k);
    body();
    rows += session.rows;
  }
  report::RenderOptions ropt;
  ropt.format = format;
  ropt.value_key = out.value;
  ropt.colour = format == report::Format::table && use_colour(1);
  ropt.sweep = true;
  for (const auto& [name, value] : session.current) ropt.swept.push_back(name);
  for (const auto& n : session.numeric_swept) ropt.swept.push_back(n);
  ropt.inputs = session.inputs;
  ropt.items = session.items;
  ropt.compare = format == report::Format::table && rows <= 6;
  auto renderer = report::make_renderer(ropt, stdout);
  session.renderer = renderer.get();
  session.probing = false;
  int code = 0;
  for (std::size_t k = 0; k < combos; ++k) {
    select(k);
    code = std::max(code, body());
  }
  renderer->finish();
  return code;
}

}  // namespace napkin::cli
