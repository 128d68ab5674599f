// Helpers shared by the safetensors and GGUF header readers (not part of napkin's interface).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/specs/checkpoint.h"

namespace napkin::specs::detail {

/// How a message names a file: its file name, as the user sees it in a listing.
std::string file_label(const std::filesystem::path& path);

/// Throws InputError("<file>: <what>").
[[noreturn]] void fail(const std::filesystem::path& path, std::string_view what);

/// Size of a regular file; InputError when it is missing or not a regular file.
std::uint64_t regular_file_size(const std::filesystem::path& path);

/// Opens `path` for binary reading; InputError when it cannot.
std::ifstream open_binary(const std::filesystem::path& path);

/// a · b and a + b, or nothing when the result does not fit in 64 bits.
std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b);
std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b);

/// Product of the dimensions (1 for a scalar), or nothing on overflow.
std::optional<std::uint64_t> element_count(const std::vector<std::uint64_t>& shape);

/// "[4096, 14336]".
std::string shape_text(const std::vector<std::uint64_t>& shape);

/// `text` with bytes outside printable ASCII written as \xNN, for quoting file contents.
std::string printable(std::string_view text);

/// Fills dtypes, total_elements and total_bytes from tensors; `path` names the checkpoint in the
/// (unreachable in practice) overflow message.
void tally(Checkpoint& checkpoint, const std::filesystem::path& path);

}  // namespace napkin::specs::detail
