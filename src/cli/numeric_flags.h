// The numeric flags of one command (NumericFlags): each kept as the text typed, refused by name
// when given twice, and parsed into a sweep's axis (sweep.h) only after CLI11 is done; the first
// one brings --max-rows.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/ground/units.h"
#include "command_app.h"
#include "sweep.h"

namespace napkin::cli {

/// A sweep's cap on rows: `rows`, and `why` when a flag lowers the command's default (" with
/// --min-gpus, a layout search per row"), for the message that refuses a larger sweep.
struct RowCap {
  double rows = kDefaultMaxRows;
  std::string why;
};

/// The default cap of `command` ("memory", "kernel waves"): about 2 s of rows on a 2-core VM
/// for its costliest ordinary row (numeric_flags.cpp lists them: 2,000,000 for flops matmul,
/// 100,000 for memory, 20,000 for serve and train), lower where a flag `given` makes each row
/// a search (memory --min-gpus: 200; --max: 10,000). kDefaultMaxRows for another command.
RowCap default_row_cap(std::string_view command, const std::function<bool(std::string_view)>& given);

/// The numeric flags of one command, each parsed from its text only after CLI11 is done.
class NumericFlags {
 public:
  NumericFlags() { flags_.reserve(kMax); }
  /// Adds `--flag` to `sub`; returns its index for Point::get. `type_name` (the value --help
  /// shows) also names the value in parse errors where the dimension would mislead: RATIO is a
  /// fraction, a factor or a PUE, P a probability, GPU-H GPU-hours, TOKENS/S a rate in tokens
  /// per second, OPS operations per element (--mfu 2x: "expected a fraction such as 0.4").
  std::size_t add(CommandApp* sub, std::string_view flag, std::string_view name, DimRt dim, Constraint c,
                  std::string_view help, std::string_view type_name, std::optional<double> fallback = {},
                  double plain_scale = 1.0);
  std::vector<NumericFlag>& flags() { return flags_; }
  const std::vector<NumericFlag>& flags() const { return flags_; }
  /// Marks given flags and returns their indices in command-line order.
  std::vector<std::size_t> resolve(CommandApp* sub);
  /// --max-rows N (added with the first numeric flag: every command that sweeps has it): the
  /// most rows a sweep may have, the command's default_row_cap unless given. Throws InputError
  /// naming --max-rows for anything but a positive integer.
  RowCap max_rows() const;

 private:
  static constexpr std::size_t kMax = 64;  // memory: 26 of its own, 10 of a made-up decoder, 11 of engines
  std::vector<NumericFlag> flags_;
  std::vector<CLI::Option*> options_;
  std::string max_rows_;  // as typed
  CommandApp* sub_ = nullptr;  // the command, for the flags that lower its cap
  std::string command_;        // its path: "kernel waves"
};

}  // namespace napkin::cli
