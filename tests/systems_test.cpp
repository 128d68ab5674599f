// System presets (data/presets/systems/*.json, src/specs/systems.cpp): how a node's GPUs are joined.
#include <catch2/catch.hpp>

#include <cmath>

#include "napkin/ground/error.h"
#include "napkin/specs/hardware.h"
#include "napkin/specs/systems.h"
#include "run_napkin.h"

using namespace napkin;
using namespace napkin::units;

// NVIDIA DGX H100: 18 NVLink 4 links, 900 GB/s bidirectional per GPU (450 each way); 8 ConnectX-7
// NDR 400 Gb/s compute NICs (400 GB/s per node, 50 per GPU, each way); nccl-tests all-reduce busbw
// ~480 GB/s in a node with NVLS and ~47 GB/s per NIC across nodes (NVIDIA/nccl-tests#212), as the
// preset cites.
TEST_CASE("the dgx-h100 system: 450 GB/s NVLink and 50 GB/s of InfiniBand per GPU each way, measured beside them",
          "[systems]") {
  const specs::SystemSpec s = specs::load_system("DGX-H100");
  CHECK(s.name == "dgx-h100");
  CHECK(s.gpu == "h100-sxm");
  CHECK(s.gpus_per_node == 8);
  CHECK(s.scale_up_domain == 8);
  CHECK(s.scale_up_per_gpu.in(byte_per_s) == 450e9);
  CHECK(s.scale_out_per_gpu.in(byte_per_s) == 50e9);
  CHECK(s.scale_out_per_node.in(byte_per_s) == 400e9);
  REQUIRE(s.measured_scale_up_all_reduce);
  CHECK(s.measured_scale_up_all_reduce->in(byte_per_s) == 480e9);
  REQUIRE(s.measured_scale_out_per_nic);
  CHECK(s.measured_scale_out_per_nic->in(byte_per_s) == 47e9);
  CHECK(!s.sources.empty());
}

TEST_CASE("every system names a GPU preset, shares its node's NICs evenly and agrees with the GPU's link",
          "[systems]") {
  const auto names = specs::system_preset_names();
  REQUIRE(names.size() >= 14);
  for (const auto& name : names) {
    INFO(name);
    const specs::SystemSpec s = specs::load_system(name);
    const specs::HardwareSpec hw = specs::load_hardware(s.gpu);
    CHECK(s.scale_out_per_gpu.in(byte_per_s) * s.gpus_per_node ==
          Approx(s.scale_out_per_node.in(byte_per_s)).epsilon(1e-9));
    CHECK(s.scale_up_domain >= s.gpus_per_node);
    CHECK(s.scale_up_peer_to_peer <= s.scale_up_per_gpu);
    // The GPU preset's NVLink figure (half its bidirectional interconnect) is the system's.
    if (const auto link = hw.link_bandwidth_per_direction())
      CHECK(link->in(byte_per_s) == Approx(s.scale_up_per_gpu.in(byte_per_s)).epsilon(1e-9));
  }
}

TEST_CASE("an unknown system is refused with the closest name", "[systems]") {
  CHECK_THROWS_WITH(specs::load_system("dgx-h10"), Catch::StartsWith("--system: 'dgx-h10': expected a system preset"));
  CHECK_THROWS_WITH(specs::load_system("dgx-h10"), Catch::Contains("did you mean 'dgx-h100'?"));
}

TEST_CASE("presets systems lists every system with its links per direction", "[systems][cli]") {
  const auto r = napkin_test::run_napkin("presets systems --csv");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("dgx-h100,h100-sxm,8,8,450000000000,50000000000,480000000000,47000000000") != std::string::npos);
  CHECK(napkin_test::run_napkin("presets systems --value scale_up_per_gpu").code == 0);
}
