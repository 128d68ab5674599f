// Helpers shared by the safetensors and GGUF header readers (not part of napkin's interface).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "napkin/specs/checkpoint.h"

namespace napkin::specs::detail {

/// How a message names a file: its file name, as the user sees it in a listing.
std::string file_label(const std::filesystem::path& path);

/// Throws InputError("<file>: <what>").
[[noreturn]] void fail(const std::filesystem::path& path, std::string_view what);

/// Refuses a checkpoint that holds no weights (no tensors, or only empty ones): a count of 0 and
/// a bits-per-weight of 0/0 would say nothing true.
void require_weights(const Checkpoint& checkpoint, const std::filesystem::path& path);

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

/// An index's metadata.total_size (which must be present): a non-negative integer below 2^64, also
/// written as a whole float ("16060522496.0"); else fail() naming the index and the field.
std::uint64_t index_total_size(const std::filesystem::path& path, const nlohmann::json& index);

}  // namespace napkin::specs::detail
