// Fuzzes parse_quantity (include/napkin/ground/parse_quantity.h), the parser behind every numeric flag and the
// quantity strings of spec files. Input: byte 0 picks the expected dimension, byte 1 the
// plain-number scale, the rest is the text. A parsed value must be finite, and its display form
// (report::compact) must be printable.
#include <array>
#include <cmath>

#include "fuzz_common.h"
#include "napkin/ground/error.h"
#include "napkin/ground/parse_quantity.h"
#include "napkin/report/human_units.h"

namespace {

using namespace napkin;

constexpr std::array<DimRt, 16> kDims{
    dim_rt<Count::dim>(),          dim_rt<Flops::dim>(),        dim_rt<FlopRate::dim>(),
    dim_rt<Bytes::dim>(),          dim_rt<Bandwidth::dim>(),    dim_rt<Intensity::dim>(),
    dim_rt<Seconds::dim>(),        dim_rt<Joules::dim>(),       dim_rt<Watts::dim>(),
    dim_rt<Tokens::dim>(),         dim_rt<Params::dim>(),       dim_rt<EnergyPerFlop::dim>(),
    dim_rt<UsdPerJoule::dim>(),    dim_rt<Co2PerJoule::dim>(),  dim_rt<Usd::dim>(),
    dim_rt<BytesPerParam::dim>()};
// 1 for base-unit flags, per kWh (energy prices), and two odd ones.
constexpr std::array<double, 4> kPlainScales{1.0, 1.0 / 3.6e6, 1e-12, 1e9};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const DimRt d = kDims[data[0] % kDims.size()];
  const double scale = kPlainScales[data[1] % kPlainScales.size()];
  const std::string_view text = fuzz::as_text(data + 2, size - 2);
  double v = 0;
  try {
    v = parse_quantity(text, d, "--fuzz", scale);
  } catch (const InputError& e) {
    NAPKIN_FUZZ_CHECK(e.what()[0] != '\0');
    (void)describe_dim(d);
    return 0;
  }
  NAPKIN_FUZZ_CHECK(std::isfinite(v));
  const std::string shown = report::compact(v, d);
  NAPKIN_FUZZ_CHECK(!shown.empty());
  return 0;
}
