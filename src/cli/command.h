// The command table: every command of the binary, in the order of the help, and the one
// calculator command a run names (the cold start builds that one alone).
#pragma once

#include <CLI/CLI.hpp>

#include <string_view>

namespace napkin::cli {

/// Every command of the binary, as main builds them (the flag-walk test builds the same app).
void add_all_commands(CLI::App& app, int& exit_code);
/// Only the calculator command named `name` (flops, roofline, ..., train): a run that names one
/// builds the option tree of that one alone (the cold start). False, adding nothing, for any
/// other word: help, completions and man read the whole table (add_all_commands).
bool add_command_named(CLI::App& app, int& exit_code, std::string_view name);
/// True for the names add_command_named builds.
bool is_command_name(std::string_view name);

void add_flops_command(CLI::App& app, int& exit_code);
void add_roofline_command(CLI::App& app, int& exit_code);
void add_energy_command(CLI::App& app, int& exit_code);
void add_memory_command(CLI::App& app, int& exit_code);
void add_params_command(CLI::App& app, int& exit_code);
void add_presets_command(CLI::App& app, int& exit_code);
void add_kernel_command(CLI::App& app, int& exit_code);
void add_serve_command(CLI::App& app, int& exit_code);
void add_train_command(CLI::App& app, int& exit_code);
void add_plan_command(CLI::App& app, int& exit_code);

}  // namespace napkin::cli
