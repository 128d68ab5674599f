// Numeric storage types and their sizes. A fact table: the bit widths are those of the
// formats' definitions (IEEE 754 binary64/32/16, bfloat16, OCP FP8 E4M3/E5M2, OCP MX FP4
// E2M1, NF4 from Dettmers et al. 2023 "QLoRA", §2).
#pragma once

#include <string_view>

#include "napkin/ground/units.h"

namespace napkin {

enum class Dtype { fp64, fp32, tf32, bf16, fp16, fp8, int8, int4, nf4, fp4 };

/// Bits of storage per element (tf32 is stored in 32-bit registers and memory).
constexpr double dtype_bits(Dtype d) {
  switch (d) {
    case Dtype::fp64: return 64;
    case Dtype::fp32: return 32;
    case Dtype::tf32: return 32;
    case Dtype::bf16: return 16;
    case Dtype::fp16: return 16;
    case Dtype::fp8: return 8;
    case Dtype::int8: return 8;
    case Dtype::int4: return 4;
    case Dtype::nf4: return 4;
    case Dtype::fp4: return 4;
  }
  return 0;
}

constexpr Bytes dtype_size(Dtype d) { return (dtype_bits(d) / 8.0) * units::byte; }

std::string_view dtype_name(Dtype d);

/// Parses "fp32", "float32", "bf16", "fp8", "e4m3", "int4", ... (case-insensitive).
/// Throws InputError{field, text, list of names} when unknown.
Dtype parse_dtype(std::string_view text, std::string_view field);

}  // namespace napkin
