// The consumer, workstation and embedded NVIDIA presets issue 20 asked for (RTX 3060 ... 5090, RTX
// A6000, RTX 6000 Ada, L40, A10, Jetson AGX Orin). Each pinned figure cites the page the preset's
// "source" names.

#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "napkin/ground/error.h"
#include "napkin/specs/hardware.h"
#include "run_napkin.h"

using namespace napkin;
using namespace napkin::units;

namespace {

struct Card {
  const char* preset;
  const char* device_class;
};

constexpr Card kCards[] = {
    {"rtx-3060", "consumer-gpu"},          {"rtx-3060-ti", "consumer-gpu"},
    {"rtx-3070", "consumer-gpu"},          {"rtx-3070-ti", "consumer-gpu"},
    {"rtx-3080", "consumer-gpu"},          {"rtx-3080-12gb", "consumer-gpu"},
    {"rtx-3080-ti", "consumer-gpu"},       {"rtx-3090-ti", "consumer-gpu"},
    {"rtx-4060", "consumer-gpu"},          {"rtx-4060-ti", "consumer-gpu"},
    {"rtx-4060-ti-16gb", "consumer-gpu"},  {"rtx-4070", "consumer-gpu"},
    {"rtx-4070-super", "consumer-gpu"},    {"rtx-4070-ti", "consumer-gpu"},
    {"rtx-4070-ti-super", "consumer-gpu"}, {"rtx-4080", "consumer-gpu"},
    {"rtx-4080-super", "consumer-gpu"},    {"rtx-5060-ti", "consumer-gpu"},
    {"rtx-5070", "consumer-gpu"},          {"rtx-5070-ti", "consumer-gpu"},
    {"rtx-5080", "consumer-gpu"},          {"rtx-5090", "consumer-gpu"},
    {"rtx-a6000", "workstation-gpu"},      {"rtx-6000-ada", "workstation-gpu"},
    {"l40", "datacenter-gpu"},             {"a10", "datacenter-gpu"},
    {"jetson-agx-orin", "embedded-gpu"},   {"jetson-agx-orin-32gb", "embedded-gpu"},
};

// FLOP per byte at which the dense FP16 tensor peak meets the memory bandwidth.
double ridge(const specs::HardwareSpec& h) { return h.fp16->in(flop_per_s) / h.bandwidth.in(byte_per_s); }

}  // namespace

TEST_CASE("every new NVIDIA preset loads with its device class, a dense fp16 peak, an SM count and sources",
          "[specs][hardware][nvidia-cards]") {
  for (const Card& c : kCards) {
    INFO(c.preset);
    const specs::HardwareSpec h = specs::load_hardware(c.preset);
    CHECK(h.name == c.preset);
    CHECK(h.device_class == c.device_class);
    REQUIRE(h.fp16.has_value());
    REQUIRE(h.bf16.has_value());
    CHECK(h.bf16->in(flop_per_s) == h.fp16->in(flop_per_s));
    CHECK(h.sm_count.has_value());
    CHECK(h.smem_per_sm.has_value());
    CHECK(h.tdp.has_value());
    CHECK(h.sources.size() >= 2);
    CHECK_FALSE(h.confidence.empty());
    // Fit uses the driver's total, never more than the physical memory.
    CHECK(h.memory.in(byte) <= h.memory_advertised.in(byte));
  }
}

TEST_CASE("GeForce and workstation cards hold their cited bandwidth, memory and dense fp16 peak",
          "[specs][hardware][nvidia-cards]") {
  // GA106 RTX 3060: 28 SMs x 1.777 GHz x 512 = 25.5 TFLOP/s with FP32 accumulate; 192-bit 15 Gbps
  // GDDR6 = 360 GB/s; nvidia-smi 12288 MiB.
  auto h = specs::load_hardware("rtx-3060");
  CHECK(h.bandwidth.in(byte_per_s) == 360e9);
  CHECK(h.memory.in(MiB) == 12288.0);
  CHECK(h.fp16->in(flop_per_s) == 25.5e12);
  CHECK(h.int8->in(flop_per_s) == 101.9e12);
  // Ada whitepaper appendix, RTX 4080 16GB: FP16 with FP32 acc 97.5, FP8 with FP32 acc 194.9;
  // 22.4 Gbps x 256 bit = 716.8 GB/s; nvidia-smi 16376 MiB.
  h = specs::load_hardware("rtx-4080");
  CHECK(h.bandwidth.in(byte_per_s) == 716.8e9);
  CHECK(h.memory.in(MiB) == 16376.0);
  CHECK(h.fp16->in(flop_per_s) == 97.5e12);
  CHECK(h.fp8->in(flop_per_s) == 194.9e12);
  // RTX 5090: 32 GB GDDR7 512-bit 28 Gbps = 1792 GB/s; 170 SMs x 2.407 GHz x 512 = 209.5; the
  // "3352 AI TOPS" is sparse FP4, so dense FP4 is 1676; nvidia-smi 32607 MiB.
  h = specs::load_hardware("rtx-5090");
  CHECK(h.bandwidth.in(byte_per_s) == 1792e9);
  CHECK(h.memory_advertised.in(GiB) == 32.0);
  CHECK(h.memory.in(MiB) == 32607.0);
  CHECK(h.fp16->in(flop_per_s) == 209.5e12);
  CHECK(h.fp4->in(flop_per_s) == 1676e12);
  CHECK(*h.sm_count == 170.0);
  // RTX A6000 datasheet: 768 GB/s, 48 GB, 309.7 TFLOPS tensor (sparse) -> 154.8 dense, NVLink
  // bridge 112.5 GB/s both ways.
  h = specs::load_hardware("rtx-a6000");
  CHECK(h.bandwidth.in(byte_per_s) == 768e9);
  CHECK(h.memory_advertised.in(GiB) == 48.0);
  CHECK(h.fp16->in(flop_per_s) == 154.8e12);
  CHECK(h.interconnect_bidirectional->in(byte_per_s) == 112.5e9);
  // L40 datasheet: 864 GB/s, FP16 181.05 dense (half the L40S's 362.05); A10: 600 GB/s, 125.
  CHECK(specs::load_hardware("l40").fp16->in(flop_per_s) == 181.05e12);
  CHECK(specs::load_hardware("l40").bandwidth.in(byte_per_s) == 864e9);
  CHECK(specs::load_hardware("a10").fp16->in(flop_per_s) == 125e12);
  CHECK(specs::load_hardware("a10").bandwidth.in(byte_per_s) == 600e9);
}

TEST_CASE("Jetson AGX Orin: 204.8 GB/s shared LPDDR5, the datasheet's sparse tensor figures halved, CUDA's total as memory",
          "[specs][hardware][nvidia-cards]") {
  // Jetson AGX Orin Series datasheet DS-10662-001: 64GB GPU 85 sparse FP16 TFLOPS, 170 sparse INT8
  // TOPS; 32GB 54 and 108; 256-bit LPDDR5 at 204.8 GB/s.
  const auto orin = specs::load_hardware("jetson-agx-orin");
  CHECK(orin.bandwidth.in(byte_per_s) == 204.8e9);
  CHECK(orin.fp16->in(flop_per_s) == 42.5e12);
  CHECK(orin.int8->in(flop_per_s) == 85e12);
  CHECK(orin.memory_advertised.in(GiB) == 64.0);
  CHECK(orin.memory.in(byte) == 65893089280.0);  // deviceQuery: 62841 MBytes, the OS-visible pool
  CHECK_FALSE(orin.pcie_bidirectional.has_value());
  const auto small = specs::load_hardware("jetson-agx-orin-32gb");
  CHECK(small.bandwidth.in(byte_per_s) == 204.8e9);
  CHECK(small.fp16->in(flop_per_s) == 27e12);
  CHECK(small.memory.in(GiB) == 32.0);
}

TEST_CASE("GeForce presets keep the FP32-accumulate convention: FP16-accumulate twice fp16, Ada fp8 twice fp16, Blackwell fp4 eight times",
          "[specs][hardware][nvidia-cards]") {
  // fp8 on Ada/Blackwell GeForce with FP32 accumulate runs at the FP16-accumulate FP16 rate; fp4
  // is the AI TOPS figure halved, which is 8x the FP16 rate with FP32 accumulate. A preset that
  // took the datasheet's FP16-accumulate or sparse figure for fp16 would break these ratios.
  for (const char* name : {"rtx-4060", "rtx-4060-ti", "rtx-4070", "rtx-4070-super", "rtx-4070-ti", "rtx-4070-ti-super",
                           "rtx-4080", "rtx-4080-super", "rtx-5060-ti", "rtx-5070", "rtx-5070-ti", "rtx-5080",
                           "rtx-5090"}) {
    INFO(name);
    const auto h = specs::load_hardware(name);
    CHECK(h.fp8->in(flop_per_s) / h.fp16->in(flop_per_s) == Approx(2.0).epsilon(0.005));
    CHECK(h.int8->in(flop_per_s) / h.fp16->in(flop_per_s) == Approx(4.0).epsilon(0.005));
    CHECK(h.tf32->in(flop_per_s) / h.fp16->in(flop_per_s) == Approx(0.5).epsilon(0.005));
  }
  for (const char* name : {"rtx-5060-ti", "rtx-5070", "rtx-5070-ti", "rtx-5080", "rtx-5090"}) {
    INFO(name);
    const auto h = specs::load_hardware(name);
    CHECK(h.fp4->in(flop_per_s) / h.fp16->in(flop_per_s) == Approx(8.0).epsilon(0.005));
  }
  for (const char* name : {"rtx-3060", "rtx-3060-ti", "rtx-3070-ti", "rtx-3080-12gb", "rtx-3080-ti"}) {
    INFO(name);
    CHECK_FALSE(specs::load_hardware(name).fp8.has_value());  // Ampere has no FP8 tensor path
  }
}

TEST_CASE("the ridge points of the new cards are plausible: 60-100 FLOP/B on Ampere GeForce, 90-170 on Ada/Blackwell GeForce, ~200 on A10, A6000, L40 and Orin",
          "[specs][hardware][nvidia-cards]") {
  for (const char* name : {"rtx-3060", "rtx-3060-ti", "rtx-3070", "rtx-3070-ti", "rtx-3080", "rtx-3080-12gb",
                           "rtx-3080-ti", "rtx-3090-ti"}) {
    INFO(name);
    const double r = ridge(specs::load_hardware(name));
    CHECK(r > 60.0);
    CHECK(r < 100.0);
  }
  for (const char* name : {"rtx-4060", "rtx-4060-ti", "rtx-4070", "rtx-4070-ti-super", "rtx-4080", "rtx-5060-ti",
                           "rtx-5070", "rtx-5080", "rtx-5090"}) {
    INFO(name);
    const double r = ridge(specs::load_hardware(name));
    CHECK(r > 90.0);
    CHECK(r < 170.0);
  }
  CHECK(ridge(specs::load_hardware("rtx-3090-ti")) == Approx(80e12 / 1008e9));
  CHECK(ridge(specs::load_hardware("a10")) == Approx(208.3).epsilon(0.001));
  CHECK(ridge(specs::load_hardware("rtx-a6000")) == Approx(201.6).epsilon(0.001));
  CHECK(ridge(specs::load_hardware("l40")) == Approx(209.5).epsilon(0.001));
  CHECK(ridge(specs::load_hardware("jetson-agx-orin")) == Approx(207.5).epsilon(0.001));
  CHECK(ridge(specs::load_hardware("rtx-6000-ada")) == Approx(379.4).epsilon(0.001));
}

TEST_CASE("short names reach the new cards and say which part they chose", "[hardware][names][nvidia-cards]") {
  CHECK(specs::load_hardware("3060").name == "rtx-3060");
  CHECK(specs::load_hardware("3060").alias_note == "--hw 3060 read as rtx-3060, the 12 GB card");
  CHECK(specs::load_hardware("5090").name == "rtx-5090");
  CHECK(specs::load_hardware("4070-ti-super").name == "rtx-4070-ti-super");
  CHECK(specs::load_hardware("3080").alias_note ==
        "--hw 3080 read as rtx-3080, the 10 GB card; rtx-3080-12gb is the 12 GB one");
  CHECK(specs::load_hardware("A6000").name == "rtx-a6000");
  CHECK(specs::load_hardware("6000-ada").name == "rtx-6000-ada");
  CHECK(specs::load_hardware("orin").name == "jetson-agx-orin");
  CHECK(specs::load_hardware("RTX-4060-TI-16GB").name == "rtx-4060-ti-16gb");
  CHECK_THROWS_WITH(specs::load_hardware("rtx-4070-ti-supr"), Catch::Contains("did you mean 'rtx-4070-ti-super'?"));
}

TEST_CASE("serve and memory accept the new cards: an 8B bf16 model fits a 24 GiB 3090 Ti, not an 8 GB 4060", "[cli][hardware][nvidia-cards]") {
  using napkin_test::run_napkin;
  auto r = run_napkin("memory llama-3.1-8b --hw rtx-3090-ti --context 8Ki --require-fit");
  CHECK(r.code == 0);
  r = run_napkin("memory llama-3.1-8b --hw rtx-4060 --require-fit");
  CHECK(r.code == 1);
}
