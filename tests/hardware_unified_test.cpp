// Unified-memory machines besides Apple silicon (issue 29, item 8): NVIDIA's DGX Spark (GB10) and
// AMD's Ryzen AI Max+ 395 (Strix Halo), where the OS and the engine draw on one pool and the preset
// states the share the GPU gets by default. Each pinned figure cites the source the preset's
// "source" and "gpu_memory_share_source" name.

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "napkin/ground/error.h"
#include "napkin/specs/hardware.h"
#include "napkin/specs/presets.h"
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

constexpr double kGiB = 1073741824.0;

// Strix Halo, 128 GB, BIOS carve-out 512 MB: amd-ttm's default "16469033 pages (62.82 GB)" of "125.65 GB"
// (ROCm's RDNA3.5 system-optimization page): the 2.35 GiB the OS does not see, taken at every size.
constexpr double kHaloTtmPages128 = 16469033.0;
constexpr double kHaloHidden = 128.0 * kGiB - 2.0 * kHaloTtmPages128 * 4096.0;

// A preset with one change, written to a temporary file; returns its path.
std::string preset_file(const std::string& preset, const std::string& name,
                        const std::function<void(nlohmann::json&)>& change) {
  const auto dir = std::filesystem::temp_directory_path() / "napkin-hardware-unified-test";
  std::filesystem::create_directories(dir);
  nlohmann::json j;
  for (const auto& p : specs::hardware_preset_texts())
    if (p.name == preset) j = nlohmann::json::parse(p.json);
  REQUIRE(j.is_object());
  change(j);
  const std::string path = (dir / name).string();
  std::ofstream(path) << j.dump(1);
  return path;
}

}  // namespace

TEST_CASE("dgx-spark: 128 GB LPDDR5x at 273 GB/s, of which CUDA reports 121.69 GiB (the OS's MemTotal)",
          "[hardware][unified][dgx-spark]") {
  const specs::HardwareSpec h = specs::load_hardware("dgx-spark");
  CHECK(h.name == "dgx-spark");
  CHECK(h.device_class == "embedded-gpu");
  CHECK(h.bandwidth.in(byte_per_s) == 273e9);  // NVIDIA: 256-bit LPDDR5x, 273 GB/s
  REQUIRE(h.memory_physical.has_value());
  CHECK(h.memory_physical->in(GiB) == 128.0);
  CHECK(h.memory_advertised.in(GiB) == 128.0);
  // torch.cuda.mem_get_info()[1] = MemTotal = 130663006208 B on DGX OS 7.5 / kernel 6.17 (unsloth PR #10486);
  // vLLM prints 121.69 GiB, llama.cpp "Total VRAM: 124610 MiB".
  CHECK(h.memory.in(byte) == 130663006208.0);
  CHECK(h.memory.in(GiB) == Approx(121.69).margin(0.005));
  CHECK(std::floor(h.memory.in(MiB)) == 124609.0);  // the two Sparks of PR #10486: 124609.95 and 124610.17 MiB
  REQUIRE(h.memory_torch_total.has_value());
  CHECK(h.memory_torch_total->in(byte) == 130663006208.0);
  CHECK(has(h.memory_torch_total_source, "unsloth/pull/10486"));
  REQUIRE(h.gpu_memory_share.has_value());
  CHECK(*h.gpu_memory_share == Approx(0.9507).margin(0.00005));
  REQUIRE(h.memory_options.size() == 1);  // the only size sold
  CHECK(has(h.gpu_memory_share_basis, "MemTotal"));
}

TEST_CASE("dgx-spark peaks: NVIDIA's 1 PFLOP sparse FP4 halved, FP8 and BF16 by Blackwell's ratios, FP32 31 TFLOP/s",
          "[hardware][unified][dgx-spark]") {
  const specs::HardwareSpec h = specs::load_hardware("dgx-spark");
  CHECK(h.fp4->in(flop_per_s) == 500e12);
  CHECK(h.fp8->in(flop_per_s) == 250e12);
  CHECK(h.bf16->in(flop_per_s) == 125e12);
  CHECK(h.fp16->in(flop_per_s) == 125e12);
  CHECK(h.fp32->in(flop_per_s) == 31e12);  // Hot Chips 2025
  // A measured 92.3 TFLOP/s BF16 matmul (huggingface/kernels PR #283) sits below the full-rate peak and
  // above the 62.5 a half-rate FP32-accumulate path would allow.
  CHECK(h.bf16->in(flop_per_s) > 92.3e12);
  CHECK_FALSE(h.int8.has_value());
  CHECK_FALSE(h.tf32.has_value());
  CHECK(*h.sm_count == 48.0);
  CHECK(h.l2->in(MiB) == 24.0);
  CHECK(h.smem_per_sm->in(byte) == 102400.0);
  CHECK(h.tdp->in(watt) == 140.0);
  CHECK(h.sources.size() >= 6);
  CHECK_FALSE(h.confidence.empty());
}

TEST_CASE("gb10 names the dgx-spark preset; a size suffix takes only the 128 GB it was sold with",
          "[hardware][unified][dgx-spark]") {
  const specs::HardwareSpec gb10 = specs::load_hardware("gb10");
  CHECK(gb10.name == "dgx-spark");
  CHECK(gb10.memory.in(byte) == 130663006208.0);
  CHECK(has(gb10.alias_note, "--hw gb10 read as dgx-spark"));
  CHECK(specs::load_hardware("dgx-spark-128gb").memory.in(byte) == 130663006208.0);
  CHECK(specs::load_hardware("GB10-128GB").memory.in(byte) == 130663006208.0);
  CHECK(error_of("dgx-spark-64gb") == "--hw: 'dgx-spark-64gb': expected a size dgx-spark was sold with: 128gb");
  // One size sold: the note does not call it the smallest.
  const specs::HardwareSpec h = specs::load_hardware("dgx-spark");
  CHECK(has(h.alias_note, "with 128 GB of unified memory (the only size sold)"));
  CHECK(has(h.alias_note, "121.69 GiB by default (95.07%"));
}

TEST_CASE("ryzen-ai-max-395 (Strix Halo): 40 CUs at 2.9 GHz, 256-bit LPDDR5X-8000 = 256 GB/s, WMMA 512 per CU per clock",
          "[hardware][unified][strix-halo]") {
  const specs::HardwareSpec h = specs::load_hardware("ryzen-ai-max-395");
  CHECK(h.device_class == "consumer-gpu");
  CHECK(h.bandwidth.in(byte_per_s) == 256e9);
  CHECK(h.bandwidth.in(byte_per_s) == 256.0 / 8.0 * 8000e6);
  CHECK(h.fp16->in(flop_per_s) == 40.0 * 512 * 2.9e9);
  CHECK(h.bf16->in(flop_per_s) == h.fp16->in(flop_per_s));
  CHECK(h.int8->in(flop_per_s) == 40.0 * 512 * 2.9e9);
  CHECK(h.fp32->in(flop_per_s) == 40.0 * 64 * 2 * 2 * 2.9e9);  // dual-issue counted, as AMD does for RDNA 3
  CHECK_FALSE(h.fp8.has_value());
  CHECK_FALSE(h.fp4.has_value());
  CHECK(*h.sm_count == 40.0);  // CUs
  CHECK(h.tdp->in(watt) == 55.0);
  CHECK(h.sources.size() >= 8);
}

TEST_CASE("Strix Halo's GPU gets Linux's default TTM limit: half the RAM the OS sees, 62.82 GiB of 128 GB",
          "[hardware][unified][strix-halo]") {
  // The bare name is the smallest size sold, 32 GB, as for Apple silicon.
  const specs::HardwareSpec bare = specs::load_hardware("ryzen-ai-max-395");
  CHECK(bare.memory_physical->in(GiB) == 32.0);
  CHECK(has(bare.alias_note, "the smallest size sold"));
  REQUIRE(bare.memory_options.size() == 4);
  const double sold[] = {32, 64, 96, 128};
  for (std::size_t i = 0; i < 4; ++i) CHECK(bare.memory_options[i].physical.in(GiB) == sold[i]);
  // 128 GB: amd-ttm's 16469033 pages of 4 KiB, which ROCm reports as the GPU's total (62.47 GiB on a box
  // whose OS sees 124.92 GiB, ROCm issue 6004).
  const specs::HardwareSpec big = specs::load_hardware("ryzen-ai-max-395-128gb");
  CHECK(big.memory.in(byte) == kHaloTtmPages128 * 4096.0);
  CHECK(big.memory.in(GiB) == Approx(62.82).margin(0.005));
  CHECK(*big.gpu_memory_share == Approx(0.4908).margin(0.00005));
  CHECK(has(big.alias_note, "62.82 GiB by default (49.08%, Linux's default TTM page limit"));
  // The other sizes: the same rule with the 128 GB box's 2.35 GiB hidden from the OS.
  for (const double gb : {32.0, 64.0, 96.0}) {
    INFO(gb);
    const specs::HardwareSpec h = specs::load_hardware("ryzen-ai-max-395-" + std::to_string(int(gb)) + "gb");
    CHECK(h.memory.in(byte) == std::floor((gb * kGiB - kHaloHidden) / 2.0));
    CHECK(h.memory_physical->in(GiB) == gb);
  }
  CHECK(kHaloHidden / kGiB == Approx(2.35).margin(0.005));
}

TEST_CASE("strix-halo names the Ryzen AI Max+ 395 and takes a size; sizes not sold are refused",
          "[hardware][unified][strix-halo]") {
  const specs::HardwareSpec h = specs::load_hardware("strix-halo");
  CHECK(h.name == "ryzen-ai-max-395");
  CHECK(h.memory_physical->in(GiB) == 32.0);
  CHECK(has(h.alias_note, "--hw strix-halo read as ryzen-ai-max-395, the Ryzen AI Max+ 395"));
  const specs::HardwareSpec sized = specs::load_hardware("strix-halo-96gb");
  CHECK(sized.name == "strix-halo-96gb");
  CHECK(sized.memory_physical->in(GiB) == 96.0);
  CHECK(specs::load_hardware("ryzen-ai-max+-395-128gb").memory.in(byte) == kHaloTtmPages128 * 4096.0);
  CHECK(specs::load_hardware("radeon-8060s").memory_physical->in(GiB) == 32.0);
  CHECK(error_of("strix-halo-48gb") ==
        "--hw: 'strix-halo-48gb': expected a size ryzen-ai-max-395 was sold with: 32gb, 64gb, 96gb, 128gb");
}

TEST_CASE("Apple silicon keeps Metal's recommendedMaxWorkingSetSize as the basis of its share",
          "[hardware][unified][apple]") {
  const specs::HardwareSpec h = specs::load_hardware("apple-m3-max");
  CHECK(h.gpu_memory_share_basis == "Metal's recommendedMaxWorkingSetSize");
  CHECK(has(h.alias_note, "36.00 GiB by default (3/4, Metal's recommendedMaxWorkingSetSize)"));
  CHECK(specs::load_hardware("apple-m2-ultra-192gb").memory.in(GiB) == 144.0);
  // A preset without memory configurations has no share and no basis.
  const specs::HardwareSpec card = specs::load_hardware("rtx-4090");
  CHECK_FALSE(card.gpu_memory_share.has_value());
  CHECK(card.gpu_memory_share_basis.empty());
}

TEST_CASE("a hardware file's share basis needs memory configurations; a file with them states its own basis",
          "[hardware][unified]") {
  const std::string lone = preset_file("rtx-4090", "lone-basis.json", [](auto& j) {
    j["gpu_memory_share_basis"] = "the TTM page limit";
  });
  CHECK(error_of(lone) == lone + ": /gpu_memory_share_basis: '\"the TTM page limit\"': expected "
                                 "memory_options_bytes and gpu_memory_share with it (the basis of a share the preset "
                                 "gives)");
  const std::string halved = preset_file("dgx-spark", "half.json", [](auto& j) {
    j["gpu_memory_share"] = {0.5};
    j["memory_bytes"] = 68719476736.0;
    j["memory_torch_total_bytes"] = nullptr;
    j["gpu_memory_share_basis"] = "a test's half";
  });
  const specs::HardwareSpec h = specs::load_hardware(halved);
  CHECK(h.memory.in(GiB) == 64.0);
  CHECK(has(h.alias_note, "64.00 GiB by default (50%, a test's half)"));
}

TEST_CASE("llama.cpp on a DGX Spark: 70B Q4_K_M fits the 121.69 GiB CUDA reports, and the share is stated",
          "[hardware][unified][dgx-spark][cli]") {
  using napkin_test::run_napkin;
  const auto r = run_napkin("memory llama-3.1-70b --engine llama.cpp --hw dgx-spark --weights-dtype q4_k_m");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "≤ 130.66 GB"));
  CHECK(has(r.out, "with 128 GB of unified memory (the only size sold), of which the GPU may use 121.69 GiB by "
                   "default (95.07%, CUDA's total on a GB10 is the kernel's MemTotal"));
  CHECK(has(r.out, "llama.cpp sizes its buffers from the GPU's total: dgx-spark's share of the unified memory the GPU "
                   "may use by default"));
  const auto json = run_napkin("memory llama-3.1-70b --engine llama.cpp --hw dgx-spark --weights-dtype q4_k_m --json");
  REQUIRE(json.code == 0);
  CHECK(has(json.out, "\"fits\":{\"value\":true"));
}

TEST_CASE("vLLM on a DGX Spark takes 0.9 of the 121.69 GiB: 70B in BF16 does not fit, in FP8 it does; both state the share",
          "[hardware][unified][dgx-spark][cli]") {
  using napkin_test::run_napkin;
  auto r = run_napkin("memory llama-3.1-70b --engine vllm --hw dgx-spark");
  CHECK(r.code == 1);  // vLLM refuses to start: the BF16 weights (141 GB) exceed the whole pool
  CHECK(has(r.out, "u · total_gpu_memory = 0.9 · 130.66 GB"));
  CHECK(has(r.out, "121.69 GiB by default (95.07%"));
  CHECK(has(r.out, "vLLM sizes its buffers from the GPU's total: dgx-spark's share of the unified memory"));
  CHECK(has(r.out, "does not fit"));
  r = run_napkin("memory llama-3.1-70b --engine vllm --hw dgx-spark --weights-dtype fp8");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "0.9 · 130.66 GB"));
  CHECK(has(r.out, "121.69 GiB by default (95.07%"));
  // The unified pool, not a card: the note says the OS and the page cache draw on it.
  CHECK(has(r.out, "the OS, the CPU side and the page cache draw on the same pool"));
}

TEST_CASE("llama.cpp on a 128 GB Strix Halo sizes from the default TTM limit, 62.82 GiB, and states it",
          "[hardware][unified][strix-halo][cli]") {
  using napkin_test::run_napkin;
  auto r = run_napkin("memory llama-3.1-70b --engine llama.cpp --hw strix-halo-128gb --weights-dtype q4_k_m");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "≤ 67.46 GB"));
  CHECK(has(r.out, "62.82 GiB by default (49.08%, Linux's default TTM page limit"));
  // A raised TTM limit is --gpu-memory.
  r = run_napkin("memory llama-3.1-70b --engine llama.cpp --hw strix-halo-128gb --weights-dtype q4_k_m "
                 "--gpu-memory 96GiB");
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "≤ 103.08 GB"));
}
