#include "model_arg.h"

#include "output.h"

#include <cstdio>

#include "napkin/sanitize.h"

namespace napkin::cli {

bool is_checkpoint_path(const std::string& arg) { return specs::is_checkpoint_path(arg); }

ModelFiles resolve_model_files(const std::string& arg, std::string_view as) {
  return specs::resolve_model_files(arg, as);
}

void warn_analogy(const specs::ModelSpec& m) {
  for (const std::string& what : specs::model_warnings(m)) {
    if (!first_warning(what)) continue;
    // model_type comes from the file: sanitized like every echo (one line, no terminal controls).
    const std::string line = "napkin: warning: " + sanitize_message(what) + "\n";
    std::fflush(stdout);
    (void)std::fwrite(line.data(), 1, line.size(), stderr);  // a failed stderr write is not an error
  }
}

specs::ModelSpec load_model(const std::string& arg, std::string_view as) {
  specs::ModelSpec m = specs::load_model(arg, as);
  warn_analogy(m);  // a GGUF's own spec carries neither warning
  return m;
}

}  // namespace napkin::cli
