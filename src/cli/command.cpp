// See command.h.
#include "command.h"

#include <utility>

#include "completions.h"

namespace napkin::cli {

namespace {

// The calculator commands, in the order of the help: add_all_commands adds them all,
// add_command_named the one typed.
using AddCommand = void (*)(CLI::App&, int&);
constexpr std::pair<std::string_view, AddCommand> kCommands[] = {
    {"flops", add_flops_command},   {"roofline", add_roofline_command}, {"energy", add_energy_command},
    {"memory", add_memory_command}, {"params", add_params_command},     {"presets", add_presets_command},
    {"kernel", add_kernel_command}, {"serve", add_serve_command},       {"train", add_train_command},
    {"plan", add_plan_command}};

}  // namespace

void add_all_commands(CLI::App& app, int& exit_code) {
  for (const auto& [name, add] : kCommands) add(app, exit_code);
  // Generated from the commands above (completions.h): keep them last.
  add_help_command(app, exit_code);
  add_completions_command(app, exit_code);
  add_man_command(app, exit_code);
}

namespace {

AddCommand command_named(std::string_view name) {
  for (const auto& [n, add] : kCommands)
    if (n == name) return add;
  return nullptr;
}

}  // namespace

bool is_command_name(std::string_view name) { return command_named(name) != nullptr; }

bool add_command_named(CLI::App& app, int& exit_code, std::string_view name) {
  const AddCommand add = command_named(name);
  if (add != nullptr) add(app, exit_code);
  return add != nullptr;
}

}  // namespace napkin::cli
