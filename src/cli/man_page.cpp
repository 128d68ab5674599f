// napkin.1 from the command table (man(7) macros, written here: no generator to depend on), and
// `napkin help COMMAND [SUBCOMMAND]`, which prints what `napkin COMMAND [SUBCOMMAND] --help` does.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

#include "completions.h"
#include "flag_checks.h"
#include "napkin/ground/error.h"
#include "napkin/ground/suggest.h"
#include "napkin/report/checked_output.h"
#include "napkin/version.h"

namespace napkin::cli {

namespace {

// Text for a roff line: '\' as \e, every '-' as \- (a minus sign: flags copied from the page
// keep their hyphen-minus), non-ASCII as \[uXXXX] (groff reads ASCII without preconv), and a
// line that would start with '.' or '\'' (a request) guarded by \&.
std::string roff(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == '\\') out += "\\e";
      else if (c == '-') out += "\\-";
      else if (c == '\n') out += ' ';
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    // UTF-8: a lead byte and its continuation bytes; a malformed byte becomes U+FFFD.
    const int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    char32_t cp = len == 4 ? c & 0x07 : len == 3 ? c & 0x0F : len == 2 ? c & 0x1F : 0xFFFD;
    bool ok = len > 1 && i + len <= s.size();
    for (int k = 1; ok && k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      ok = (cc & 0xC0) == 0x80;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (!ok) cp = 0xFFFD;
    out += fmt::format("\\[u{:04X}]", static_cast<unsigned>(cp));
    i += ok ? len : 1;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

std::string bold(std::string_view s) { return "\\fB" + roff(s) + "\\fR"; }
std::string italic(std::string_view s) { return "\\fI" + roff(s) + "\\fR"; }

// "--plot FILE.svg", with both names of an aliased flag: "--gpu-memory, --memory BYTES".
std::string flag_term(const FlagInfo& f) {
  if (f.positional) return italic(f.names.front());
  std::string s;
  for (const auto& n : f.names) s += (s.empty() ? "" : ", ") + bold(n);
  if (!f.value_name.empty()) s += " " + italic(f.value_name);
  return s;
}

// A flag that several commands take with the same help: listed once, under COMMON FLAGS.
std::string flag_id(const FlagInfo& f) { return fmt::format("{}\n{}\n{}", fmt::join(f.names, ","), f.value_name, f.help); }

// The footer's lines without "Example:" and the alignment under it.
std::vector<std::string> example_lines(const std::string& footer) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= footer.size() && !footer.empty()) {
    const std::size_t end = std::min(footer.find('\n', start), footer.size());
    std::string line = footer.substr(start, end - start);
    for (std::string_view tag : {"Examples:", "Example:"})
      if (line.rfind(tag, 0) == 0) line = std::string(tag.size(), ' ') + line.substr(tag.size());
    std::size_t lead = 0;
    while (lead < line.size() && lead < 9 && line[lead] == ' ') ++lead;
    line.erase(0, lead);
    if (!line.empty()) out.push_back(line);
    if (end == footer.size()) break;
    start = end + 1;
  }
  return out;
}

struct EnvVar {
  const char* name;
  const char* text;
};
// What napkin reads from the environment (add_hw_option in hardware_option.cpp, src/specs/hf_cache.cpp).
constexpr EnvVar kEnvironment[] = {
    {"NAPKIN_HW",
     "The hardware --hw means when it is not given: a hardware preset, a short name of one or a hardware JSON "
     "file (set but empty: none). The hardware assumption says it came from NAPKIN_HW, and a value napkin cannot "
     "read is refused naming NAPKIN_HW."},
    {"HF_HUB_CACHE",
     "The Hugging Face hub cache in which a MODEL given as a repository id (org/name[@revision]) is looked up, "
     "offline: models--org--name/refs/REVISION names the snapshot whose config.json and weights are read. "
     "Nothing is ever downloaded."},
    {"HF_HOME", "The hub cache is HF_HOME/hub when HF_HUB_CACHE is not set."},
    {"XDG_CACHE_HOME", "The hub cache is XDG_CACHE_HOME/huggingface/hub when neither HF_HUB_CACHE nor HF_HOME is set."},
    {"HOME", "The hub cache is ~/.cache/huggingface/hub when none of the above is set."},
    {"NO_COLOR",
     "When set and not empty, no colour: otherwise, on a terminal, the table's fit verdict is green (yes) or red "
     "(no) and stderr's \"warning:\" yellow; never in a pipe or a file (https://no-color.org)."},
};

}  // namespace

std::string man_page(const CLI::App& app) {
  const auto table = command_table(app);
  // A flag most of the commands that run take (same names, same help) is described once, under
  // COMMON FLAGS: the output formats, --expect, --digits, --max-rows, --help.
  std::map<std::string, int> uses;
  int leaves = 0;
  for (const auto& c : table)
    if (!c.path.empty() && c.subcommands.empty()) {
      ++leaves;
      for (const auto& f : c.flags)
        if (!f.positional) ++uses[flag_id(f)];
    }
  const auto common = [&](const FlagInfo& f) { return !f.positional && 2 * uses[flag_id(f)] > leaves; };

  std::string s;
  s += fmt::format(".\\\" napkin.1, generated from the command table by `napkin man` (napkin {}): do not edit.\n",
                   kVersion);
  s += fmt::format(".TH NAPKIN 1 \"\" \"napkin {}\" \"User Commands\"\n", kVersion);
  s += ".SH NAME\nnapkin \\- the arithmetic before you touch a GPU\n";
  s += ".SH SYNOPSIS\n.B napkin\n" + italic("COMMAND") + " [" + italic("SUBCOMMAND") + "] [" + italic("FLAGS") + "] [" +
       bold("--json") + " | " + bold("--jsonl") + " | " + bold("--csv") + " | " + bold("--explain") + "]\n.br\n" +
       bold("napkin help") + " [" + italic("COMMAND") + " [" + italic("SUBCOMMAND") + "]]\n.br\n" +
       bold("napkin completions") + " " + bold("bash") + " | " + bold("zsh") + " | " + bold("fish") + "\n.br\n" +
       bold("napkin --version") + "\n";
  s += ".SH DESCRIPTION\n" +
       roff("napkin answers sizing questions about models and GPUs before anything runs: exact parameter counts, "
            "FLOPs, the memory ledger per GPU for inference and training, the roofline, prefill and decode time, "
            "training time and cost, energy, and GPU-kernel arithmetic. Every result carries its unit, its formula, "
            "the formula with the numbers substituted, and the assumptions it rests on, each with the flag that "
            "changes it.") +
       "\n.PP\n" +
       roff("Numbers take units: 80GiB, 3.35TB/s, 989TFLOP/s, 700W, 2.5h, 8Ki (8192), 15T (1.5e13). Any numeric "
            "flag sweeps: a list 1,2,4,8, a range 1024..8192:+1024 or 1..64:x2, one row per combination. MODEL "
            "and --hw take a comma list, compared side by side.") +
       "\n.PP\n" +
       roff("Input napkin cannot use exactly is refused, never ignored: one line on standard error names the flag, "
            "the value and what was expected (exit status 2).") +
       "\n";

  s += ".SH COMMANDS\n";
  for (const auto& c : table) {
    if (c.path.empty() || !c.subcommands.empty()) continue;  // the commands that run
    s += ".SS \"" + roff("napkin " + c.path_text()) + "\"\n" + roff(c.help) + "\n";
    std::string group;
    std::vector<std::string> shared;
    for (const auto& f : c.flags) {
      if (common(f)) {
        shared.push_back(bold(f.names.front()));
        continue;
      }
      const std::string g = f.positional ? "Arguments" : f.group;
      if (g != group) s += ".PP\n" + italic(g) + "\n";
      group = g;
      s += ".TP\n" + flag_term(f) + "\n" + roff(f.help) + "\n";
    }
    if (!shared.empty()) s += ".PP\n" + italic("Common flags") + ": " + fmt::format("{}", fmt::join(shared, ", ")) + "\n";
  }

  s += ".SH COMMON FLAGS\n" + roff("Flags most commands take, with the same meaning in each:") + "\n";
  std::map<std::string, bool> done;
  for (const auto& c : table)
    for (const auto& f : c.flags)
      if (common(f) && !done[flag_id(f)]) {
        done[flag_id(f)] = true;
        s += ".TP\n" + flag_term(f) + "\n" + roff(f.help) + "\n";
      }

  s += ".SH EXIT STATUS\n.TP\n.B 0\nSuccess.\n.TP\n.B 1\n" +
       roff("A check the user asked for failed: --expect, --require-fit, a solver without an answer.") +
       "\n.TP\n.B 2\n" +
       roff("Bad input or usage, with one line on standard error naming the flag, the value and what was expected; "
            "or output that could not be written.") +
       "\n";
  s += ".SH ENVIRONMENT\n";
  for (const EnvVar& e : kEnvironment) s += ".TP\n" + bold(e.name) + "\n" + roff(e.text) + "\n";
  s += ".SH EXAMPLES\n";
  for (const auto& c : table) {
    const auto lines = example_lines(c.footer);
    if (lines.empty()) continue;
    s += ".PP\n" + bold("napkin " + c.path_text()) + "\n.RS\n.nf\n";
    for (const auto& l : lines) s += roff(l) + "\n";
    s += ".fi\n.RE\n";
  }
  s += ".SH SEE ALSO\n" +
       roff("napkin COMMAND --help (or napkin help COMMAND) for one command's flags; napkin presets models and "
            "napkin presets hardware for the bundled presets; the README for the formulas and their sources.") +
       "\n";
  return s;
}

std::string command_help(const CLI::App& app, const std::vector<std::string>& path) {
  const CLI::App* at = &app;
  std::string prev;  // the path above `at`, as CLI11's help() takes it
  for (const auto& word : path) {
    const auto all = at->get_subcommands([](const CLI::App*) { return true; });
    const auto it = std::find_if(all.begin(), all.end(), [&](const CLI::App* s) { return s->get_name() == word; });
    if (it == all.end()) {
      const std::string where = prev.empty() ? at->get_name() : prev + " " + at->get_name();
      std::vector<std::string> names;
      for (const CLI::App* s : all)
        if (!s->get_group().empty()) names.push_back(s->get_name());
      std::string msg = (all.empty() ? "unexpected argument '" : "unknown command '") + word + "' for '" + where + "'";
      if (const auto best = closest(word, names)) msg += "; did you mean '" + *best + "'?";
      throw InputError(msg + " (" + where + " --help)");
    }
    prev = prev.empty() ? at->get_name() : prev + " " + at->get_name();
    at = *it;
  }
  return at->help(prev);
}

void add_man_command(CLI::App& app, int& exit_code) {
  auto* sub = add_command(app, "man", "This manual page in roff (napkin.1): napkin man | man -l -");
  sub->footer("Example: napkin man | man -l -\n         napkin man > napkin.1");
  sub->callback([sub, &app, &exit_code] {
    reject_extras(sub);
    report::write_checked(stdout, man_page(app));
    exit_code = 0;
  });
}

void add_help_command(CLI::App& app, int& exit_code) {
  auto* sub = add_command(app, "help", "A command's flags: napkin help COMMAND [SUBCOMMAND] is napkin COMMAND "
                                         "[SUBCOMMAND] --help");
  auto path = std::make_shared<std::vector<std::string>>();
  sub->add_option("COMMAND", *path, "The command (and subcommand) whose help is printed")->type_name("COMMAND");
  sub->footer("Example: napkin help memory\n         napkin help flops matmul");
  sub->callback([sub, path, &app, &exit_code] {
    reject_extras(sub);
    report::write_checked(stdout, command_help(app, *path));
    exit_code = 0;
  });
}

}  // namespace napkin::cli
