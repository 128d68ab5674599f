#include "model_arg.h"

#include "safe_output.h"

#include <cstdio>

#include "napkin/ground/error.h"
#include "napkin/ground/sanitize.h"

namespace napkin::cli {

bool is_checkpoint_path(const std::string& arg) { return specs::is_checkpoint_path(arg); }

namespace {

// MODEL `-`: stdin, read once (a comparison or a second look at MODEL reads the same text).
const std::string& stdin_text() {
  static std::string text;
  static bool read = false;
  if (read) return text;
  read = true;
  constexpr std::size_t kLimit = 16u << 20;  // a model JSON is a few kB; a config a few tens
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
    text.append(buf, n);
    if (text.size() > kLimit)
      throw InputError("MODEL: '-': expected a model JSON on stdin of at most 16 MiB (a config.json or napkin model JSON)");
  }
  if (std::ferror(stdin)) throw InputError("MODEL: '-': expected a readable stdin holding a config.json or napkin model JSON");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError("MODEL: '-': expected a config.json or napkin model JSON on stdin (stdin is empty)");
  return text;
}

}  // namespace

ModelFiles resolve_model_files(const std::string& arg, std::string_view as) {
  if (arg == "-") {
    ModelFiles f;
    f.spec = specs::model_from_json_text(stdin_text(), "(stdin)", as);
    return f;
  }
  return specs::resolve_model_files(arg, as);
}

void warn_analogy(const specs::ModelSpec& m) {
  // model_type comes from the file: print_warning sanitizes it like every echo (one line, no
  // terminal controls), and holds it until the run's first row.
  for (const std::string& what : specs::model_warnings(m)) print_warning(what);
}

void refuse_text_only_without_model(bool text_only, const std::string& model) {
  if (text_only && model.empty())
    throw InputError("--text-only", "(given)",
                     "MODEL with it (a multimodal checkpoint's config.json; a made-up decoder or --params has no tower)");
}

void apply_text_only(specs::ModelSpec& m, bool text_only, const std::string& arg) {
  if (!text_only) return;
  if (!m.tower_refusal.empty()) {
    m.tower_refusal.clear();
    m.notes.push_back("--text-only: the language model alone; the tower the checkpoint ships is not counted");
    return;
  }
  if (!m.tower)
    throw InputError("--text-only", "(given)", "a multimodal MODEL whose vision or audio tower napkin counts (" + arg +
                                                 " has none counted)");
  m.tower.reset();
  m.notes.push_back("--text-only: the language model alone; the vision tower and projector are not counted");
}

specs::ModelSpec load_model(const std::string& arg, std::string_view as, bool text_only) {
  specs::ModelSpec m = arg == "-" ? *resolve_model_files(arg, as).spec : specs::load_model(arg, as);
  if (!m.ledger_refusal.empty())
    throw InputError(arg + ": " + m.ledger_refusal + "; expected a model whose layers napkin's ledgers size (napkin params " +
                     arg + " counts its weights exactly)");
  apply_text_only(m, text_only, arg);
  warn_analogy(m);  // a GGUF's own spec carries neither warning
  return m;
}

}  // namespace napkin::cli
