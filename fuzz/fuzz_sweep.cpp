// Fuzzes the sweep-range parser (src/cli/sweep.h, parse_axis): one value, a list `1,2,4`, a
// linear range `1024..8192:+1024` or a geometric one `1..64:x2`. Input: byte 0 picks the
// dimension, byte 1 the constraint and plain-number scale, the rest is the flag's text. An
// accepted axis must have at least one value, every value it yields must pass the flag's own
// check, and a sweep of two such flags must agree on its row count.
#include <array>
#include <cmath>

#include "fuzz_common.h"
#include "napkin/ground/error.h"
#include "sweep.h"

namespace {

using namespace napkin;
using napkin::cli::Axis;
using napkin::cli::Constraint;
using napkin::cli::NumericFlag;

constexpr std::array<DimRt, 8> kDims{dim_rt<Count::dim>(),   dim_rt<Bytes::dim>(),
                                     dim_rt<Seconds::dim>(), dim_rt<FlopRate::dim>(),
                                     dim_rt<Tokens::dim>(),  dim_rt<Bandwidth::dim>(),
                                     dim_rt<Watts::dim>(),   dim_rt<UsdPerJoule::dim>()};
constexpr std::array<Constraint, 6> kConstraints{
    Constraint::any,           Constraint::positive,
    Constraint::non_negative,  Constraint::positive_integer,
    Constraint::non_negative_integer, Constraint::pue};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  NumericFlag f;
  f.flag = "--fuzz";
  f.name = "fuzz";
  f.dim = kDims[data[0] % kDims.size()];
  f.constraint = kConstraints[data[1] % kConstraints.size()];
  f.plain_scale = (data[1] / kConstraints.size()) % 2 == 0 ? 1.0 : 1.0 / 3.6e6;
  f.raw = std::string(fuzz::as_text(data + 2, size - 2));
  f.given = true;
  Axis a;
  try {
    a = cli::parse_axis(f);
  } catch (const InputError&) {
    return 0;
  }
  NAPKIN_FUZZ_CHECK(a.size() >= 1);
  // The first values, the last values and a few in between: each is finite and passes the
  // flag's check (an InputError here means the axis promised a value it cannot give).
  const std::size_t n = a.size();
  const std::array<std::size_t, 7> probes{0, 1, 2, n / 2, n - 3, n - 2, n - 1};
  for (const std::size_t i : probes) {
    if (i >= n) continue;
    const double v = a.at(i);
    NAPKIN_FUZZ_CHECK(std::isfinite(v));
    cli::check_value(f, v, false);
  }
  // Two copies of the flag swept together: rows multiply.
  if (n <= 30) {
    std::vector<NumericFlag> flags{f, f};
    flags[1].flag = "--fuzz2";
    flags[1].name = "fuzz2";
    const cli::Sweep sweep(flags, {0, 1});
    NAPKIN_FUZZ_CHECK(sweep.rows() == (n > 1 ? n * n : 1));
    std::size_t seen = 0;
    sweep.run([&](const cli::Point& p) {
      NAPKIN_FUZZ_CHECK(std::isfinite(p[0]) && std::isfinite(p[1]));
      ++seen;
    });
    NAPKIN_FUZZ_CHECK(seen == sweep.rows());
  }
  return 0;
}
