// Apple silicon presets (unified memory: sizes sold, the GPU's default share) and the cpu class preset.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "napkin/ground/error.h"
#include "napkin/specs/hardware.h"
#include "run_napkin.h"

using namespace napkin;
using namespace napkin::units;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string error_of(const std::string& arg) {
  try {
    specs::load_hardware(arg);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(loaded)";
}

constexpr const char* kChips[] = {"m1",     "m1-pro", "m1-max", "m1-ultra", "m2",     "m2-pro", "m2-max", "m2-ultra",
                                  "m3",     "m3-pro", "m3-max", "m3-ultra", "m4",     "m4-pro", "m4-max"};

}  // namespace

TEST_CASE("every Apple M1-M4 chip has a preset and a smaller-GPU variant, both apple-silicon with unified memory",
          "[hardware][apple]") {
  for (const char* chip : kChips) {
    const std::string bare = std::string("apple-") + chip;
    INFO(bare);
    const specs::HardwareSpec h = specs::load_hardware(bare);
    CHECK(h.device_class == "apple-silicon");
    CHECK_FALSE(h.sources.empty());
    REQUIRE_FALSE(h.memory_options.empty());
    REQUIRE(h.memory_physical.has_value());
    REQUIRE(h.gpu_memory_share.has_value());
    // The bare name is the smallest size sold, and the fit verdict's memory is the GPU's share of it.
    CHECK(h.memory_physical->in(byte) == h.memory_options.front().physical.in(byte));
    CHECK(h.memory.in(byte) == std::floor(h.memory_physical->in(byte) * *h.gpu_memory_share));
    CHECK(h.fp16.has_value());
    CHECK(h.fp32.has_value());
    CHECK(has(h.alias_note, "the smallest size sold"));
    // The variant with fewer GPU cores: a peak below the bare name's, never a larger bandwidth.
    const auto dash_c = h.variant_note.rfind("apple-");
    REQUIRE(dash_c != std::string::npos);
    const std::string variant = h.variant_note.substr(dash_c, h.variant_note.find(' ', dash_c) - dash_c);
    INFO(variant);
    const specs::HardwareSpec v = specs::load_hardware(variant);
    CHECK(v.device_class == "apple-silicon");
    CHECK(v.fp32->in(flop_per_s) < h.fp32->in(flop_per_s));
    CHECK(v.bandwidth.in(byte_per_s) <= h.bandwidth.in(byte_per_s));
  }
}

TEST_CASE("Apple unified memory bandwidths are Apple's figures: M2 Ultra 800, M3 Max 400/300, M4 Max 546/410 GB/s",
          "[hardware][apple]") {
  CHECK(specs::load_hardware("apple-m2-ultra").bandwidth.in(byte_per_s) == 800e9);
  CHECK(specs::load_hardware("apple-m3-max").bandwidth.in(byte_per_s) == 400e9);
  CHECK(specs::load_hardware("apple-m3-max-30c").bandwidth.in(byte_per_s) == 300e9);
  CHECK(specs::load_hardware("apple-m4-max").bandwidth.in(byte_per_s) == 546e9);
  CHECK(specs::load_hardware("apple-m4-max-32c").bandwidth.in(byte_per_s) == 410e9);
  CHECK(specs::load_hardware("apple-m4-pro").bandwidth.in(byte_per_s) == 273e9);
  CHECK(specs::load_hardware("apple-m3-pro").bandwidth.in(byte_per_s) == 150e9);
  CHECK(specs::load_hardware("apple-m3-ultra").bandwidth.in(byte_per_s) == 819e9);
  CHECK(specs::load_hardware("apple-m1").bandwidth.in(byte_per_s) == 68.256e9);  // LPDDR4X-4266 × 128 bit
}

TEST_CASE("Apple GPU peaks: cores × 128 ALUs × 2 × clock, FP16 at the FP32 rate (M1 8-core 2.617 TFLOP/s)",
          "[hardware][apple]") {
  const specs::HardwareSpec m1 = specs::load_hardware("apple-m1");
  CHECK(m1.fp32->in(flop_per_s) == 8.0 * 128 * 2 * 1278e6);
  CHECK(m1.fp16->in(flop_per_s) == m1.fp32->in(flop_per_s));
  CHECK_FALSE(m1.bf16.has_value());  // not published
  CHECK(specs::load_hardware("apple-m2-ultra").fp16->in(flop_per_s) == 76.0 * 128 * 2 * 1398e6);
}

TEST_CASE("the GPU may use 2/3 of unified memory up to 32 GB and 3/4 from 36 GB (recommendedMaxWorkingSetSize)",
          "[hardware][apple]") {
  // llama.cpp logs: 16 GB -> 10922.67 MiB, 32 GB -> 21845.34 MiB, 36 GB -> 28991.03 MB, 64 GB -> 49152 MiB.
  CHECK(specs::load_hardware("apple-m1-16gb").memory.in(MiB) == Approx(10922.67).margin(0.005));
  CHECK(specs::load_hardware("apple-m2-max-32gb").memory.in(MiB) == Approx(21845.34).margin(0.005));
  CHECK(specs::load_hardware("apple-m4-max-32c").memory.in(byte) / 1e6 == Approx(28991.03).margin(0.005));
  CHECK(specs::load_hardware("apple-m1-max-64gb").memory.in(MiB) == 49152.0);
  CHECK(*specs::load_hardware("apple-m1").gpu_memory_share == Approx(2.0 / 3.0));
  CHECK(*specs::load_hardware("apple-m3-pro-36gb").gpu_memory_share == 0.75);
}

TEST_CASE("a size suffix picks a memory configuration sold: apple-m2-ultra-192gb has 144 GiB for the GPU",
          "[hardware][apple]") {
  const specs::HardwareSpec h = specs::load_hardware("apple-m2-ultra-192gb");
  CHECK(h.name == "apple-m2-ultra-192gb");
  CHECK(h.memory_physical->in(GiB) == 192.0);
  CHECK(h.memory.in(GiB) == 144.0);
  CHECK(*h.gpu_memory_share == 0.75);
  CHECK(h.bandwidth.in(byte_per_s) == 800e9);
  CHECK(has(h.alias_note, "with 192 GB of unified memory"));
  CHECK(has(h.alias_note, "144.00 GiB"));
  // Without regard to case, and on a variant preset too.
  CHECK(specs::load_hardware("Apple-M3-Max-30C-96GB").memory.in(GiB) == 72.0);
  // The bare name is the smallest size: the same figures as its own suffix.
  CHECK(specs::load_hardware("apple-m2-ultra").memory.in(byte) == specs::load_hardware("apple-m2-ultra-64gb").memory.in(byte));
}

TEST_CASE("the bare Apple preset also answers to its own GPU core count: apple-m3-max-40c is apple-m3-max",
          "[hardware][apple]") {
  const specs::HardwareSpec h = specs::load_hardware("apple-m3-max-40c");
  CHECK(h.name == "apple-m3-max-40c");
  CHECK(*h.gpu_cores == 40.0);
  CHECK(h.bandwidth.in(byte_per_s) == 400e9);
  CHECK(h.memory.in(GiB) == 36.0);  // 3/4 of the smallest size, 48 GB
  CHECK(has(h.alias_note, "read as apple-m3-max, the 40-core GPU M3 Max"));
  CHECK(has(h.alias_note, "the smallest size sold"));
  CHECK(specs::load_hardware("apple-m3-max-40c-128gb").memory.in(GiB) == 96.0);
  // A core count the chip was not sold with is an unknown name.
  CHECK(has(error_of("apple-m3-max-38c"), "unknown hardware preset 'apple-m3-max-38c'"));
}

TEST_CASE("a memory size Apple did not sell is refused with --hw, the value and the sizes sold", "[hardware][apple]") {
  CHECK(error_of("apple-m2-ultra-96gb") ==
        "--hw: 'apple-m2-ultra-96gb': expected a size apple-m2-ultra was sold with: 64gb, 128gb, 192gb");
  CHECK(has(error_of("apple-m4-max-32c-48gb"), "sold with: 36gb"));
  // A part sold in one size takes no suffix.
  CHECK(has(error_of("rtx-4090-48gb"), "rtx-4090 has one memory size"));
}

TEST_CASE("the bare Apple name states its configuration in the hardware assumption", "[hardware][apple][cli]") {
  using napkin_test::run_napkin;
  const auto r = run_napkin("memory llama-3.1-8b --hw apple-m3-max --explain");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "--hw apple-m3-max read as the 40-core GPU M3 Max"));
  CHECK(has(r.out, "with 48 GB of unified memory, the smallest size sold"));
  CHECK(has(r.out, "36.00 GiB by default (3/4"));
}

TEST_CASE("the cpu preset is a class: no memory, bandwidth or peak of its own", "[hardware][cpu]") {
  const specs::HardwareSpec h = specs::load_hardware("cpu");
  CHECK(h.is_class);
  CHECK(h.device_class == "cpu");
  CHECK_FALSE(h.fp32.has_value());
  CHECK_FALSE(h.bf16.has_value());
  CHECK(h.memory_options.empty());
}

TEST_CASE("the cpu class preset needs --bandwidth (and --peak where a command needs one): a one-line error otherwise",
          "[hardware][cpu][cli]") {
  using napkin_test::run_napkin;
  auto r = run_napkin("serve llama-3.1-8b --hw cpu --peak 2TFLOP/s");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --bandwidth: '(not given)': expected a value with --hw cpu: a CPU preset "
                 "is a class of devices and has no memory bandwidth of its own\n");
  r = run_napkin("serve llama-3.1-8b --hw cpu --bandwidth 90GB/s");
  CHECK(r.code == 2);
  CHECK(has(r.out, "--peak: '(not given)': expected a value with --hw cpu: a CPU preset is a class of "
                   "devices and has no peak FLOP rate of its own"));
  r = run_napkin("roofline --hw cpu --intensity 10 --peak 2TFLOP/s");
  CHECK(r.code == 2);
  CHECK(has(r.out, "--bandwidth: '(not given)'"));
  // With the figures given it runs, and the figures are the user's.
  r = run_napkin("roofline --hw cpu --intensity 10 --peak 2TFLOP/s --bandwidth 100GB/s --csv");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, ",20,"));  // ridge: 2 TFLOP/s / 100 GB/s = 20 FLOP/B
  r = run_napkin("serve llama-3.1-8b --hw cpu --peak 2TFLOP/s --bandwidth 90GB/s --explain");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "a class of devices, no figures of its own"));
  // memory: no capacity of its own, so no verdict without --gpu-memory; --require-fit asks for one.
  r = run_napkin("memory llama-3.1-8b --hw cpu --json");
  REQUIRE(r.code == 0);
  CHECK_FALSE(has(r.out, "\"fits\""));
  r = run_napkin("memory llama-3.1-8b --hw cpu --require-fit");
  CHECK(r.code == 2);
  CHECK(has(r.out, "--gpu-memory"));
  r = run_napkin("memory llama-3.1-8b --hw cpu --gpu-memory 64GiB --require-fit");
  CHECK(r.code == 0);
}

TEST_CASE("every sized name completion offers loads that size of its preset") {
  const auto names = specs::hardware_sized_names();
  CHECK(names.size() > 40);  // every Apple variant, each with one to five sizes
  for (const auto& n : names) {
    INFO(n);
    const specs::HardwareSpec h = specs::load_hardware(n);
    const std::string gb = n.substr(n.rfind('-') + 1);
    CHECK(std::to_string(static_cast<long long>(std::llround(h.memory_advertised.in(GiB)))) + "gb" == gb);
  }
  CHECK(std::find(names.begin(), names.end(), "apple-m3-max-30c-96gb") != names.end());
  const auto bash = napkin_test::run_napkin("completions bash");
  CHECK(has(bash.out, " apple-m2-ultra-192gb "));
}
