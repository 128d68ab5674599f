#pragma once

namespace napkin {
inline constexpr const char* kVersion = "0.1.0";
}  // namespace napkin
