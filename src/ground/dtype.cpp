#include "napkin/ground/dtype.h"

#include <array>
#include <cctype>
#include <string>
#include <utility>

#include "napkin/ground/error.h"

namespace napkin {

namespace {
struct DtypeName {
  std::string_view name;
  Dtype d;
};
// The first spelling of each type is its canonical name.
constexpr std::array<DtypeName, 22> kNames{{
    {"fp64", Dtype::fp64},     {"float64", Dtype::fp64}, {"fp32", Dtype::fp32},
    {"float32", Dtype::fp32},  {"float", Dtype::fp32},   {"tf32", Dtype::tf32},
    {"bf16", Dtype::bf16},     {"bfloat16", Dtype::bf16}, {"fp16", Dtype::fp16},
    {"float16", Dtype::fp16},  {"half", Dtype::fp16},    {"fp8", Dtype::fp8},
    {"e4m3", Dtype::fp8},      {"e5m2", Dtype::fp8},     {"float8", Dtype::fp8},
    {"int8", Dtype::int8},     {"i8", Dtype::int8},      {"int4", Dtype::int4},
    {"i4", Dtype::int4},       {"nf4", Dtype::nf4},      {"fp4", Dtype::fp4},
    {"e2m1", Dtype::fp4},
}};
}  // namespace

std::string_view dtype_name(Dtype d) {
  // The canonical spellings of kNames (its first for each type), without a scan: a sweep row
  // names its dtypes several times.
  switch (d) {
    case Dtype::fp64: return "fp64";
    case Dtype::fp32: return "fp32";
    case Dtype::tf32: return "tf32";
    case Dtype::bf16: return "bf16";
    case Dtype::fp16: return "fp16";
    case Dtype::fp8: return "fp8";
    case Dtype::int8: return "int8";
    case Dtype::int4: return "int4";
    case Dtype::nf4: return "nf4";
    case Dtype::fp4: return "fp4";
  }
  return "?";
}

Dtype parse_dtype(std::string_view text, std::string_view field) {
  std::string lower(text);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& n : kNames)
    if (n.name == lower) return n.d;
  throw InputError(std::string(field), std::string(text),
                   "a dtype: fp64, fp32, tf32, bf16, fp16, fp8, int8, int4, nf4 or fp4");
}

}  // namespace napkin
