// The command table read back from CLI11 and what is generated from it (issue 17): completion
// scripts, napkin.1 and `napkin help`. tests/completions/run.sh runs the scripts in their shells.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <sstream>

#include "command.h"
#include "completions.h"
#include "napkin/specs/presets.h"
#include "run_napkin.h"

using napkin::cli::CommandInfo;
using napkin::cli::FlagInfo;
using napkin::cli::ValueKind;
using napkin_test::run_napkin;

namespace {

struct App {
  CLI::App app{"napkin: the arithmetic before you touch a GPU", "napkin"};
  int exit_code = 0;
  App() {
    app.set_version_flag("--version", std::string("napkin"));
    app.set_help_flag("-h,--help", "Print this help and exit");
    napkin::cli::add_all_commands(app, exit_code);
  }
};

const CommandInfo& command(const std::vector<CommandInfo>& t, const std::string& path) {
  const auto it = std::find_if(t.begin(), t.end(), [&](const CommandInfo& c) { return c.path_text() == path; });
  REQUIRE(it != t.end());
  return *it;
}

const FlagInfo& flag(const CommandInfo& c, const std::string& name) {
  const auto it = std::find_if(c.flags.begin(), c.flags.end(), [&](const FlagInfo& f) {
    return std::find(f.names.begin(), f.names.end(), name) != f.names.end();
  });
  REQUIRE(it != c.flags.end());
  return *it;
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

TEST_CASE("the command table holds every command, subcommand and flag as CLI11 does", "[completions]") {
  App a;
  const auto t = napkin::cli::command_table(a.app);
  const auto& root = command(t, "");
  for (const char* c : {"flops", "roofline", "energy", "memory", "params", "presets", "kernel", "serve", "train", "help",
                        "completions", "man"})
    CHECK(has(root.subcommands, c));
  CHECK(command(t, "flops").subcommands == std::vector<std::string>{"matmul", "ffn", "attention", "train"});
  // Every option of every command, by every name, in the table.
  std::size_t checked = 0;
  for (const auto& c : t) {
    const CLI::App* app = &a.app;
    for (const auto& p : c.path) app = app->get_subcommand(p);
    for (const CLI::Option* o : app->get_options()) {
      for (const auto& l : o->get_lnames()) {
        CHECK_NOTHROW(flag(c, "--" + l));
        ++checked;
      }
      if (o->get_lnames().empty() && o->get_snames().empty()) CHECK_NOTHROW(flag(c, o->get_name(true)));
    }
  }
  CHECK(checked > 300);
  CHECK(flag(command(t, "memory"), "--gpu-memory").names == std::vector<std::string>{"--gpu-memory", "--memory"});
  CHECK(flag(command(t, "memory"), "--json").kind == ValueKind::none);
}

TEST_CASE("completion values come from type_name lists and the library's own name tables", "[completions]") {
  App a;
  const auto t = napkin::cli::command_table(a.app);
  // An `a|b|c` type_name is the set of values.
  CHECK(flag(command(t, "roofline"), "--op").words ==
        std::vector<std::string>{"relu", "add", "gelu", "copy", "matmul", "ffn", "attention"});
  for (const auto& c : t)
    for (const auto& f : c.flags)
      if (f.value_name.find('|') != std::string::npos && f.value_name.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string::npos)
        CHECK(f.kind == ValueKind::words);
  // COUNT|NxM is a count or a shape: placeholders, nothing to offer.
  CHECK(flag(command(t, "kernel grid"), "--n").kind == ValueKind::free);
  const auto& model = flag(command(t, "memory"), "MODEL");
  CHECK(model.positional);
  CHECK(model.kind == ValueKind::model);
  CHECK(model.words == napkin::specs::model_preset_names());
  const auto& hw = flag(command(t, "serve"), "--hw");
  CHECK(hw.kind == ValueKind::hardware);
  CHECK(has(hw.words, "h100-sxm"));
  CHECK(has(hw.words, "h100"));  // a short name load_hardware reads as h100-sxm
  CHECK(has(hw.words, "4090"));
  CHECK(flag(command(t, "memory"), "--plot").kind == ValueKind::svg);
  CHECK(flag(command(t, "memory"), "--batch").kind == ValueKind::free);
  CHECK(has(flag(command(t, "memory"), "--weights-dtype").words, "nf4"));
  CHECK(has(flag(command(t, "train"), "--optimizer").words, "adam-8bit"));
  CHECK(has(flag(command(t, "memory"), "--v-dtype").words, "iq4_nl"));
  CHECK(has(flag(command(t, "params"), "--as").words, "llama"));
  CHECK(flag(command(t, "memory"), "--zero").words == std::vector<std::string>{"0", "1", "2", "3"});
  CHECK(flag(command(t, "help"), "COMMAND").kind == ValueKind::command);
  CHECK(flag(command(t, "completions"), "SHELL").words == std::vector<std::string>{"bash", "zsh", "fish"});
}

TEST_CASE("each completion script names every command and every flag of the table", "[completions]") {
  App a;
  const auto t = napkin::cli::command_table(a.app);
  for (const char* shell : {"bash", "zsh", "fish"}) {
    INFO(shell);
    const std::string s = napkin::cli::completion_script(a.app, shell);
    for (const auto& c : t) {
      for (const auto& sub : c.subcommands) CHECK(s.find(sub) != std::string::npos);
      for (const auto& f : c.flags)
        if (!f.positional)
          for (const auto& n : f.names) {
            // fish spells --gpu-memory as -l gpu-memory and -h as -s h.
            const std::string spelled = std::string(shell) != "fish" ? n
                                        : n.rfind("--", 0) == 0    ? "-l " + n.substr(2)
                                                                   : "-s " + n.substr(1);
            CHECK(s.find(spelled) != std::string::npos);
          }
    }
    CHECK(s.find("llama-3.1-8b") != std::string::npos);
  }
  CHECK_THROWS_WITH(napkin::cli::completion_script(a.app, "tcsh"), "SHELL: 'tcsh': expected bash, zsh or fish");
}

TEST_CASE("napkin.1 escapes every hyphen, backslash and non-ASCII character and starts no line with a stray request",
          "[completions][man]") {
  App a;
  const std::string page = napkin::cli::man_page(a.app);
  const std::set<std::string> macros = {".TH", ".SH", ".SS", ".PP", ".TP", ".RS", ".RE", ".nf", ".fi", ".br", ".B", ".\\\""};
  std::istringstream in(page);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    INFO("napkin.1:" << n << ": " << line);
    if (line.rfind(".\\\"", 0) == 0) continue;  // the comment
    if (!line.empty() && (line[0] == '.' || line[0] == '\'')) CHECK(macros.count(line.substr(0, line.find(' '))) == 1);
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '-') CHECK((i > 0 && line[i - 1] == '\\'));
      CHECK(static_cast<unsigned char>(line[i]) < 0x80);
    }
  }
  CHECK(page.find("\\fB\\-\\-gpu\\-memory\\fR, \\fB\\-\\-memory\\fR \\fIBYTES\\fR") != std::string::npos);
  CHECK(page.find("\\[u00B7]") != std::string::npos);  // '·' in a help text
  CHECK(page.find(".SH EXIT STATUS") != std::string::npos);
  CHECK(page.find(".TP\n\\fBHF_HUB_CACHE\\fR\n") != std::string::npos);
}

TEST_CASE("napkin help COMMAND prints exactly what napkin COMMAND --help does", "[completions][cli]") {
  for (const char* path : {"memory", "flops matmul", "presets", "kernel online-softmax", "completions"}) {
    INFO(path);
    const auto help = run_napkin(std::string("help ") + path);
    const auto flag = run_napkin(std::string(path) + " --help");
    CHECK(help.code == 0);
    CHECK(flag.code == 0);
    CHECK(help.out == flag.out);
    CHECK(help.out.find(std::string("napkin ") + path) != std::string::npos);
  }
  // Alone, it is the overview napkin prints without arguments.
  const auto overview = run_napkin("");
  CHECK(run_napkin("help").out == overview.out);
  CHECK(overview.out.find("napkin help COMMAND") != std::string::npos);
  const auto unknown = run_napkin("help memry");
  CHECK(unknown.code == 2);
  CHECK(unknown.out == "napkin: error: unknown command 'memry' for 'napkin'; did you mean 'memory'? (napkin --help)\n");
}
