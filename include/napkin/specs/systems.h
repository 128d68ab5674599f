// Systems: how a preset's GPUs are joined (data/presets/systems/*.json, each figure with its
// source; the format is data/presets/systems/README.md). A node or rack of one GPU type: its
// scale-up link (NVLink/NVSwitch, Infinity Fabric, TPU ICI) per GPU and its scale-out network per
// node, every bandwidth per direction, beside what nccl-tests measured on it where published.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "napkin/ground/units.h"

namespace napkin::specs {

struct SystemSpec {
  std::string name;       // the preset name ("dgx-h100")
  std::string full_name;  // "NVIDIA DGX H100 (8x H100 SXM5 80GB)"
  std::string kind;       // node, rack, cloud-instance, tpu-pod
  std::string gpu;        // the hardware preset of its accelerators
  double gpus_per_node = 0;
  double scale_up_domain = 0;  // GPUs one scale-up fabric joins (8 in a DGX, 72 in an NVL72)
  Bandwidth scale_up_per_gpu{};             // each way, the GPU's whole scale-up bandwidth
  Bandwidth scale_up_peer_to_peer{};        // each way, between two GPUs (below the total on a mesh)
  Bandwidth scale_out_per_node{};           // each way, the node's compute NICs together
  Bandwidth scale_out_per_gpu{};            // each way, one GPU's share of them
  double nics_per_node = 0;                 // compute NICs of a node (0: not stated, TPU pods)
  std::optional<Bandwidth> measured_scale_up_all_reduce{};   // nccl-tests all-reduce busbw in a node
  std::optional<Bandwidth> measured_scale_up_ring{};         // ring (non-all-reduce) busbw in a node
  std::optional<Bandwidth> measured_scale_out_per_nic{};     // a NIC's achieved rate across nodes
  std::optional<Bandwidth> measured_scale_out_all_reduce{};  // all-reduce busbw across nodes
  std::vector<std::string> sources;
  /// What a ring collective achieves per GPU inside the scale-up domain: the nccl-tests ring busbw
  /// where measured, else 82% of the line rate (NCCL's protocol overhead).
  Bandwidth ring_bus() const;
  /// One GPU's achieved share of the network: the NICs at their measured NCCL rate where measured,
  /// else 94% of their line rate.
  Bandwidth network_per_gpu() const;
};

/// NCCL reaches about 82% of the NVLink line rate in ring collectives (NVIDIA, nccl-tests issue
/// #212, sjeaugey 2024-05-06: "450GB/s is the line rate. With the protocol overhead (~20%) NCCL can
/// get an effective NVLink bandwidth of 370GB/s").
inline constexpr double kRingEfficiency = 370.0 / 450.0;
/// And 94% of a NIC's line rate across nodes (nccl-tests issue #290, AddyLaddy 2025-03-03: "For NDR
/// @ 400Gbps you should see 46-48GB/s per NIC", of 50 GB/s).
inline constexpr double kNicEfficiency = 47.0 / 50.0;

/// The system preset a hardware preset's GPUs come in by default: the vendor's own node or rack
/// (kind "node" or "rack") built of `hardware`, else a cloud instance of it; nullopt when no
/// bundled system has that GPU.
std::optional<std::string> default_system_for(const std::string& hardware);

/// Every system preset's name, sorted.
std::vector<std::string> system_preset_names();
/// A system preset by name (case-insensitive). InputError naming --system for an unknown one (with
/// the closest name) or a preset whose figures are missing or not positive.
SystemSpec load_system(const std::string& name);

}  // namespace napkin::specs
