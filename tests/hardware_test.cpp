#include <catch2/catch.hpp>

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

TEST_CASE("the h100-sxm preset holds its datasheet figures: dense bf16 989.5 TFLOP/s, 80 GiB (81,559 MiB usable), 3.35 TB/s", "[specs][hardware]") {
  const specs::HardwareSpec h = specs::load_hardware("h100-sxm");
  CHECK(h.bf16->in(flop_per_s) == 989.5e12);  // the datasheet's 1,979 with sparsity, halved
  CHECK(h.memory_advertised.in(GiB) == 80.0);
  CHECK(h.memory.in(MiB) == 81559.0);  // nvidia-smi memory.total
  CHECK(h.bandwidth.in(byte_per_s) == 3.35e12);
  CHECK(*h.sm_count == 132.0);
  CHECK(h.smem_per_sm->in(KiB) == 228.0);
  CHECK_FALSE(h.peak(Dtype::int4).has_value());
}

TEST_CASE("every hardware preset has memory, bandwidth and at least one source", "[specs][hardware]") {
  const auto names = specs::hardware_preset_names();
  CHECK(names.size() >= 20);
  for (const auto& n : names) {
    INFO(n);
    const specs::HardwareSpec h = specs::load_hardware(n);
    CHECK_FALSE(h.sources.empty());
    if (h.is_class) continue;  // cpu: a class of devices, no figures of its own (hardware_apple_test.cpp)
    CHECK(h.memory.in(byte) > 0.0);
    CHECK(h.bandwidth.in(byte_per_s) > 0.0);
    CHECK_FALSE(h.sources.empty());
  }
}

TEST_CASE("an unknown hardware preset names the closest one", "[specs][hardware]") {
  CHECK_THROWS_WITH(specs::load_hardware("h100-sxm6"),
                    "unknown hardware preset 'h100-sxm6'; did you mean 'h100-sxm'? (napkin presets hardware)");
}

TEST_CASE("a hardware preset fills the hardware flags a command was not given", "[cli][hardware]") {
  using napkin_test::run_napkin;
  // 989.5 TFLOP/s over 3.35 TB/s: the ridge at 295.37 FLOP/B.
  auto r = run_napkin("roofline --hw h100-sxm --intensity 10 --csv");
  REQUIRE(r.code == 0);
  CHECK(r.out.find(",295.3731343283582,") != std::string::npos);
  // A flag given on the command line wins over the preset.
  r = run_napkin("roofline --hw h100-sxm --peak 100TFLOP/s --intensity 10 --csv");
  CHECK(r.out.find(",29.850746268656717,") != std::string::npos);
  // 108 SMs on an A100: the notes' 1793² output needs two waves.
  r = run_napkin("kernel waves --m 1793 --n 1793 --tile 256x128 --hw a100-sxm-80gb --json");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\"waves\":{\"value\":2,") != std::string::npos);
  // A 256×256 fp32 tile pair (512 KiB) does not fit an H100 SM's 228 KiB of shared memory.
  r = run_napkin("kernel tiling --m 4096 --k 4096 --n 4096 --tile 256 --dtype fp32 --hw h100-sxm");
  CHECK(r.code == 2);
  CHECK(r.out.rfind("napkin: error: --tile: '256'", 0) == 0);
  // The memory of the preset is the capacity of the fit verdict.
  r = run_napkin("memory llama-3.1-8b --hw l4 --context 8Ki --require-fit");
  CHECK(r.code == 0);
  r = run_napkin("memory llama-3.1-70b --hw l4 --require-fit");
  CHECK(r.code == 1);
}

TEST_CASE("a preset's links: NVLink 4 at 900 GB/s both ways is 450 GB/s one way; a card without NVLink falls back to PCIe", "[specs][hardware]") {
  const specs::HardwareSpec h = specs::load_hardware("h100-sxm");
  CHECK(h.interconnect_bidirectional->in(byte_per_s) == 900e9);
  CHECK(h.link_bandwidth_per_direction()->in(byte_per_s) == 450e9);
  CHECK(h.pcie_bidirectional->in(byte_per_s) == 128e9);
  CHECK(h.l2->in(MiB) == 50.0);
  const specs::HardwareSpec l4 = specs::load_hardware("l4");
  CHECK_FALSE(l4.interconnect_bidirectional.has_value());
  CHECK(l4.link_bandwidth_per_direction()->in(byte_per_s) == 32e9);  // PCIe 4.0 x16, 64 GB/s both ways
}

TEST_CASE("energy --hw takes the board's TDP as the power, and --power overrides it", "[cli][hardware]") {
  using napkin_test::run_napkin;
  // 1e18 FLOP at 100 TFLOP/s is 10,000 s; at the A100 SXM's 400 W that is 4 MJ.
  auto r = run_napkin("energy --flops 1e18 --throughput 100TFLOP/s --hw a100-sxm-80gb --json");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\"energy\":{\"value\":4000000,") != std::string::npos);
  r = run_napkin("energy --flops 1e18 --throughput 100TFLOP/s --hw a100-sxm-80gb --power 250W --json");
  CHECK(r.out.find("\"energy\":{\"value\":2500000,") != std::string::npos);
  // The A100 PCIe 40GB: 40 GiB, 1,555 GB/s, 250 W (A100 datasheet, PCIe 40GB column).
  const specs::HardwareSpec h = specs::load_hardware("a100-pcie-40gb");
  CHECK(h.memory.in(GiB) == 40.0);
  CHECK(h.bandwidth.in(byte_per_s) == 1.555e12);
  CHECK(h.tdp->in(watt) == 250.0);
}

TEST_CASE("a --memory flag overrides the preset's capacity on memory, serve and train", "[cli][hardware]") {
  using napkin_test::run_napkin;
  // Llama-3.1-8B needs about 18 GB to serve at batch 1: it fits an H100's 80 GiB, not 10 GiB.
  auto r = run_napkin("memory llama-3.1-8b --hw h100-sxm --memory 10GiB --require-fit");
  CHECK(r.code == 1);
  r = run_napkin("memory llama-3.1-8b --hw h100-sxm --require-fit");
  CHECK(r.code == 0);
  r = run_napkin("serve llama-3.1-8b --hw h100-sxm --memory 10GiB --json");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("\"fits\":{\"value\":false") != std::string::npos);
  // train: no layout of 8 GPUs fits 10 GiB; the ledger is shown without a time, exit 1.
  r = run_napkin("train llama-3.1-8b --tokens 1T --hw h100-sxm --zero 3 --gpus 8 --recompute full --memory 10GiB --json");
  CHECK(r.code == 1);
  CHECK(r.out.find("\"fits\":{\"value\":false") != std::string::npos);
  CHECK(r.out.find("\"time\"") == std::string::npos);
}

// ---- every present field validated (issue 11) -------------------------------------------------------

namespace {

// The a10g preset with one change, written to a temporary file; returns its path.
std::string hw_file(const std::string& name, const std::function<void(nlohmann::json&)>& change) {
  const auto dir = std::filesystem::temp_directory_path() / "napkin-hardware-test";
  std::filesystem::create_directories(dir);
  nlohmann::json j;
  for (const auto& p : specs::hardware_preset_texts())
    if (p.name == "a10g") j = nlohmann::json::parse(p.json);
  REQUIRE(j.is_object());
  change(j);
  const std::string path = (dir / name).string();
  std::ofstream(path) << j.dump(1);
  return path;
}

}  // namespace

TEST_CASE("a malformed optional hardware field is an error naming the file, the JSON pointer and the value",
          "[specs][hardware]") {
  const std::string bf16 = hw_file("bf16.json", [](auto& j) { j["peak_flops_per_s"]["bf16"] = "312e12"; });
  CHECK_THROWS_WITH(specs::load_hardware(bf16),
                    bf16 + ": /peak_flops_per_s/bf16: '\"312e12\"': expected a positive number of FLOP/s (a JSON "
                           "number; the key names the unit), or null");
  const std::string tdp = hw_file("tdp.json", [](auto& j) { j["tdp_watts"] = -700; });
  CHECK_THROWS_WITH(specs::load_hardware(tdp), Catch::Matchers::StartsWith(tdp + ": /tdp_watts: '-700': expected a "
                                                                                 "positive number of watts"));
  const std::string zero = hw_file("zero.json", [](auto& j) { j["smem_per_sm_bytes"] = 0; });
  CHECK_THROWS_WITH(specs::load_hardware(zero), Catch::Matchers::StartsWith(zero + ": /smem_per_sm_bytes: '0'"));
  const std::string link = hw_file("link.json", [](auto& j) {
    j["interconnect"] = {{"type", "NVLink"}, {"bandwidth_bytes_per_s_bidirectional", "600GB/s"}};
  });
  CHECK_THROWS_WITH(specs::load_hardware(link),
                    Catch::Matchers::StartsWith(link + ": /interconnect/bandwidth_bytes_per_s_bidirectional: "
                                                       "'\"600GB/s\"': expected a positive number of bytes/s"));
  const std::string sms = hw_file("sms.json", [](auto& j) { j["sm_count"] = 80.5; });
  CHECK_THROWS_WITH(specs::load_hardware(sms), sms + ": /sm_count: '80.5': expected a positive integer below 2^53, "
                                                     "or null");
  const std::string name = hw_file("name.json", [](auto& j) { j["name"] = 42; });
  CHECK_THROWS_WITH(specs::load_hardware(name), name + ": /name: '42': expected a string, or null");
  const std::string src = hw_file("src.json", [](auto& j) { j["source"] = {"https://example.com", 7}; });
  CHECK_THROWS_WITH(specs::load_hardware(src), Catch::Matchers::StartsWith(src + ": /source: "));
  // Required fields take no null.
  const std::string mem = hw_file("mem.json", [](auto& j) { j["memory_bytes"] = nullptr; });
  CHECK_THROWS_WITH(specs::load_hardware(mem),
                    Catch::Matchers::StartsWith(mem + ": /memory_bytes: 'null': expected a positive number of bytes"));
}

TEST_CASE("an unknown hardware key is refused with the closest known one, at any depth", "[specs][hardware]") {
  const std::string typo = hw_file("typo.json", [](auto& j) {
    j["memroy_reported_total_bytes"] = 1;
  });
  CHECK_THROWS_WITH(specs::load_hardware(typo),
                    typo + ": /memroy_reported_total_bytes: 'memroy_reported_total_bytes' is not a key of the hardware "
                           "format; expected one of the format's keys: did you mean 'memory_reported_total_bytes'?");
  const std::string peak = hw_file("peak.json", [](auto& j) { j["peak_flops_per_s"]["bf61"] = 1e12; });
  CHECK_THROWS_WITH(specs::load_hardware(peak), Catch::Matchers::EndsWith("did you mean 'bf16'?"));
  const std::string far = hw_file("far.json", [](auto& j) { j["pcie"]["colour"] = "green"; });
  CHECK_THROWS_WITH(specs::load_hardware(far),
                    far + ": /pcie/colour: 'colour' is not a key of the hardware format; expected one of the "
                          "format's keys here: gen, lanes, bandwidth_bytes_per_s_bidirectional, "
                          "bandwidth_bytes_per_s_one_way");
}

TEST_CASE("null says a hardware figure is not published: it loads as absent", "[specs][hardware]") {
  const std::string f = hw_file("null.json", [](auto& j) {
    j["tdp_watts"] = nullptr;
    j["peak_flops_per_s"]["bf16"] = nullptr;
    j["interconnect"] = nullptr;
  });
  const specs::HardwareSpec h = specs::load_hardware(f);
  CHECK_FALSE(h.tdp.has_value());
  CHECK_FALSE(h.bf16.has_value());
  CHECK(h.fp32.has_value());
}

TEST_CASE("hardware presets match without regard to case and short names choose a stated part", "[hardware][names]") {
  CHECK(specs::load_hardware("H100-SXM").name == "h100-sxm");
  CHECK(specs::load_hardware("H100-SXM").alias_note.empty());
  const auto h100 = specs::load_hardware("h100");
  CHECK(h100.name == "h100-sxm");
  CHECK(h100.alias_note == "--hw h100 read as h100-sxm, the SXM5 80 GB part; h100-pcie and h100-nvl are the others");
  CHECK(specs::load_hardware("A100").name == "a100-sxm-80gb");
  CHECK(specs::load_hardware("mi300").name == "mi300x");
  CHECK(specs::load_hardware("a100-40gb").name == "a100-sxm-40gb");
}

TEST_CASE("did-you-mean offers a part of the typed memory size first", "[hardware][names]") {
  CHECK_THROWS_WITH(specs::load_hardware("a100-pcie-80"), Catch::Contains("did you mean 'a100-pcie-80gb'?"));
  CHECK_THROWS_WITH(specs::load_hardware("a100-sxm-40"), Catch::Contains("did you mean 'a100-sxm-40gb'?"));
  CHECK_THROWS_WITH(specs::load_hardware("h100-pcei"), Catch::Contains("did you mean 'h100-pcie'?"));
}
