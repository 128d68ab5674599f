// The numeric flags of one command (NumericFlags): each kept as the text typed, refused by name
// when given twice, and parsed into a sweep's axis (sweep.h) only after CLI11 is done; the first
// one brings --max-rows.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/ground/units.h"
#include "command_app.h"
#include "sweep.h"

namespace napkin::cli {

/// The numeric flags of one command, each parsed from its text only after CLI11 is done.
class NumericFlags {
 public:
  NumericFlags() { flags_.reserve(kMax); }
  /// Adds `--flag` to `sub`; returns its index for Point::get.
  std::size_t add(CommandApp* sub, std::string_view flag, std::string_view name, DimRt dim, Constraint c,
                  std::string_view help, std::string_view type_name, std::optional<double> fallback = {},
                  double plain_scale = 1.0);
  std::vector<NumericFlag>& flags() { return flags_; }
  const std::vector<NumericFlag>& flags() const { return flags_; }
  /// Marks given flags and returns their indices in command-line order.
  std::vector<std::size_t> resolve(CommandApp* sub);
  /// --max-rows N (added with the first numeric flag: every command that sweeps has it): the
  /// most rows a sweep may have, kDefaultMaxRows unless given. Throws InputError naming
  /// --max-rows for anything but a positive integer.
  double max_rows() const;

 private:
  static constexpr std::size_t kMax = 48;  // memory: 26 of its own, 10 of a made-up decoder
  std::vector<NumericFlag> flags_;
  std::vector<CLI::Option*> options_;
  std::string max_rows_;  // as typed
};

}  // namespace napkin::cli
