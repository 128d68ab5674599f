// --hw NAME|FILE (default $NAPKIN_HW): the hardware preset or file whose datasheet figures fill the
// hardware flags a command was not given.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "napkin/ground/result.h"
#include "napkin/specs/hardware.h"
#include "command_app.h"
#include "sweep.h"

namespace napkin::cli {

/// --hw NAME|FILE: a hardware preset or file whose datasheet figures fill the hardware flags the
/// user did not give (a flag given on the command line wins).
struct HardwareOption {
  std::string arg;
  std::optional<specs::HardwareSpec> spec;
  const CLI::Option* option = nullptr;  // --hw, to tell a typed value from NAPKIN_HW's
  /// True when arg came from the NAPKIN_HW environment variable (--hw not given).
  bool from_env() const { return option != nullptr && option->count() == 0 && !arg.empty(); }
  /// Loads the spec when --hw was given.
  void load();
  /// Sets `f`'s default from the spec (nothing when --hw is absent, the figure unknown or the preset a
  /// class of devices such as cpu, which has no figures of its own).
  void fill(NumericFlag& f, std::optional<double> base_value) const;
  /// For a class preset (--hw cpu), `flag` must be given: InputError naming it when `f` is empty
  /// ("a CPU preset has no memory bandwidth of its own"). Nothing for a part or without --hw.
  void require_given(const NumericFlag& f, std::string_view flag, std::string_view what) const;
  /// True when --hw names a part whose figures fill the flags (not absent, not a class such as cpu).
  bool has_figures() const { return spec && !spec->is_class; }
  /// States which hardware the figures came from (key "hardware", flag --hw).
  void assume(ResultSet& rs) const;
};
void add_hw_option(CommandApp* sub, HardwareOption& h);

}  // namespace napkin::cli
