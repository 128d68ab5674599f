// Fuzzes hardware JSON files (include/napkin/specs/hardware.h, load_hardware with a file
// path). An accepted spec has finite, positive memory and bandwidth and finite, positive rates.
#include <cmath>

#include "fuzz_common.h"
#include "napkin/ground/error.h"
#include "napkin/specs/hardware.h"

namespace {

template <class Q>
bool positive_finite(const Q& q) {
  const double v = q.in_base_units();
  return std::isfinite(v) && v > 0.0;
}

template <class Q>
bool ok(const std::optional<Q>& q) {
  return !q || positive_finite(*q);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace napkin;
  static const std::filesystem::path path = fuzz::scratch_file("hw.json");
  fuzz::write_file(path, fuzz::as_text(data, size));
  specs::HardwareSpec h;
  try {
    h = specs::load_hardware(path.string());
  } catch (const InputError&) {
    return 0;
  }
  NAPKIN_FUZZ_CHECK(positive_finite(h.memory) && positive_finite(h.memory_advertised));
  NAPKIN_FUZZ_CHECK(positive_finite(h.bandwidth));
  NAPKIN_FUZZ_CHECK(ok(h.fp64) && ok(h.fp32) && ok(h.tf32) && ok(h.bf16) && ok(h.fp16) &&
                    ok(h.fp8) && ok(h.int8) && ok(h.fp4));
  NAPKIN_FUZZ_CHECK(ok(h.smem_per_sm) && ok(h.tdp) && ok(h.l2) &&
                    ok(h.interconnect_bidirectional) && ok(h.pcie_bidirectional));
  NAPKIN_FUZZ_CHECK(!h.sm_count || (std::isfinite(*h.sm_count) && *h.sm_count > 0));
  NAPKIN_FUZZ_CHECK(ok(h.link_bandwidth_per_direction()));
  return 0;
}
