// ggml's tensor storage types: elements per block and bytes per block, as GGUF files store them.
// A fact table shared by the GGUF reader (src/specs/gguf.cpp), the llama-quantize calculator
// (gguf_quant.h) and llama.cpp's KV cache types (engines/llamacpp.cpp). No I/O.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace napkin {

struct GgmlType {
  std::uint32_t id;
  std::string_view name;
  std::uint64_t block;  // elements per block
  std::uint64_t bytes;  // bytes per block
};

// ggml/src/ggml.c, `type_traits[GGML_TYPE_COUNT]`: .blck_size and .type_size (= sizeof of the
// block struct in ggml/src/ggml-common.h); enum values from ggml/include/ggml.h `enum ggml_type`.
// QK_K = 256. Values 4 and 5 (Q4_2, Q4_3) were removed in 2023 and are refused. 31-33 and
// 36-38 are the repacked Q4_0/IQ4_NL layouts that GGUF files carried in late 2024 before ggml
// dropped them from files; they keep their parent's block (32 elements, 18 B).
inline constexpr std::array<GgmlType, 38> kGgmlTypes = {{
    {0, "F32", 1, 4},
    {1, "F16", 1, 2},
    {2, "Q4_0", 32, 18},       // fp16 d + 32 nibbles
    {3, "Q4_1", 32, 20},       // fp16 d, m + 32 nibbles
    {6, "Q5_0", 32, 22},       // fp16 d + 4 B high bits + 32 nibbles
    {7, "Q5_1", 32, 24},       // fp16 d, m + 4 B high bits + 32 nibbles
    {8, "Q8_0", 32, 34},       // fp16 d + 32 int8
    {9, "Q8_1", 32, 36},       // fp16 d, s + 32 int8
    {10, "Q2_K", 256, 84},     // 16 B scales + 64 B quants + fp16 d, dmin
    {11, "Q3_K", 256, 110},    // 32 B hmask + 64 B quants + 12 B scales + fp16 d
    {12, "Q4_K", 256, 144},    // fp16 d, dmin + 12 B scales + 128 B quants
    {13, "Q5_K", 256, 176},    // fp16 d, dmin + 12 B scales + 32 B high bits + 128 B quants
    {14, "Q6_K", 256, 210},    // 128 B low + 64 B high + 16 B scales + fp16 d
    {15, "Q8_K", 256, 292},    // f32 d + 256 int8 + 16 int16 block sums
    {16, "IQ2_XXS", 256, 66},  // fp16 d + 32 u16
    {17, "IQ2_XS", 256, 74},   // fp16 d + 32 u16 + 8 B scales
    {18, "IQ3_XXS", 256, 98},  // fp16 d + 96 B
    {19, "IQ1_S", 256, 50},    // fp16 d + 32 B + 8 u16
    {20, "IQ4_NL", 32, 18},    // fp16 d + 32 nibbles
    {21, "IQ3_S", 256, 110},   // fp16 d + 64 + 8 + 32 + 4 B
    {22, "IQ2_S", 256, 82},    // fp16 d + 64 + 8 + 8 B
    {23, "IQ4_XS", 256, 136},  // fp16 d + u16 + 4 B + 128 B
    {24, "I8", 1, 1},
    {25, "I16", 1, 2},
    {26, "I32", 1, 4},
    {27, "I64", 1, 8},
    {28, "F64", 1, 8},
    {29, "IQ1_M", 256, 56},  // 32 + 16 + 8 B (the scale is spread over the scales)
    {30, "BF16", 1, 2},
    {31, "Q4_0_4_4", 32, 18},
    {32, "Q4_0_4_8", 32, 18},
    {33, "Q4_0_8_8", 32, 18},
    {34, "TQ1_0", 256, 54},  // 48 B base-3 trits + 4 B + fp16 d
    {35, "TQ2_0", 256, 66},  // 64 B 2-bit + fp16 d
    {36, "IQ4_NL_4_4", 32, 18},
    {37, "IQ4_NL_4_8", 32, 18},
    {38, "IQ4_NL_8_8", 32, 18},
    {39, "MXFP4", 32, 17},  // e8m0 scale + 32 fp4 nibbles
}};

constexpr const GgmlType* find_ggml_type(std::uint32_t id) {
  for (const auto& t : kGgmlTypes)
    if (t.id == id) return &t;
  return nullptr;
}

/// The type whose name (as ggml spells it: "Q4_K", "F32") is `name`; nullptr when none is.
constexpr const GgmlType* find_ggml_type(std::string_view name) {
  for (const auto& t : kGgmlTypes)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace napkin
