// The command table as data, read back from the CLI11 app add_all_commands builds, and what is
// generated from it: shell completions (`napkin completions bash|zsh|fish`), the man page
// (`napkin man`, napkin.1) and `napkin help COMMAND [SUBCOMMAND]`. Nothing here lists a command
// or flag by hand: a new flag shows up in all three by being added to its command.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace napkin::cli {

/// What a flag's value (or a positional) completes to.
enum class ValueKind {
  none,      // a switch: no value
  free,      // a number, a key, a list: nothing to offer
  words,     // one of `words` (a comma list of them where the flag takes one)
  files,     // any file
  svg,       // *.svg files (--plot)
  model,     // a model preset (`words`), or a file or directory
  hardware,  // a hardware preset or short name (`words`), or a *.json file
  command,   // a command path (napkin help COMMAND [SUBCOMMAND])
};

struct FlagInfo {
  std::vector<std::string> names;  // "--gpu-memory", "--memory", "-h"; a positional: its name
  std::string value_name;          // CLI11's type_name ("HARDWARE", "relu|add"); "" for a switch
  std::string help;
  std::string group;
  bool positional = false;
  ValueKind kind = ValueKind::none;
  std::vector<std::string> words;
};

struct CommandInfo {
  std::vector<std::string> path;  // {"flops", "matmul"}; the root is {}
  std::string help, footer;
  std::vector<std::string> subcommands;  // the visible ones, in declaration order
  std::vector<FlagInfo> flags;           // positionals first, then flags in declaration order
  std::string path_text() const;         // "flops matmul"
};

/// Every visible command of `app` (the root first, then depth first in declaration order), with
/// its flags; --help is the root's only. A hidden command (empty group) is left out.
std::vector<CommandInfo> command_table(const CLI::App& app);

/// The completion script for `shell` (bash, zsh or fish); InputError naming SHELL otherwise.
std::string completion_script(const CLI::App& app, std::string_view shell);
/// napkin.1 in roff (man(7) macros).
std::string man_page(const CLI::App& app);
/// The help text of the command at `path` exactly as `napkin PATH --help` prints it; InputError
/// for an unknown command, with the closest name.
std::string command_help(const CLI::App& app, const std::vector<std::string>& path);

/// `napkin completions SHELL`, `napkin man` and `napkin help [COMMAND [SUBCOMMAND]]` (main prints
/// the overview for `napkin help` alone).
void add_completions_command(CLI::App& app, int& exit_code);
void add_man_command(CLI::App& app, int& exit_code);
void add_help_command(CLI::App& app, int& exit_code);

}  // namespace napkin::cli
