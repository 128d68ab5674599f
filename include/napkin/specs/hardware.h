// Accelerator specs: what the calculators take from a hardware preset or file. Every number is a
// datasheet figure with its source (data/presets/hardware/<name>.json, copied from
// shared/reference/hardware.json): dense peaks (sparse datasheet figures halved), memory in
// binary GiB as the devices report it, decimal bandwidth.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/ground/dtype.h"
#include "napkin/ground/units.h"

namespace napkin::specs {

struct HardwareSpec {
  std::string name;       // preset name ("h100-sxm") or file
  std::string full_name;  // "NVIDIA H100 SXM5 80GB"
  Bytes memory{};             // per device, what the driver reports as total (nvidia-smi) when known
  Bytes memory_advertised{};  // the vendor's capacity, binary GiB as the devices report it
  // The total torch.cuda.mem_get_info() reports (vLLM's total_gpu_memory), a little below the
  // driver's total; absent: unknown (memory_torch_total_source in the JSON names the log).
  std::optional<Bytes> memory_torch_total{};
  std::string memory_torch_total_source;  // where that total was measured (a log, a deviceQuery dump)
  Bandwidth bandwidth{};  // memory bandwidth, peak
  // The installed memory (memory_physical_bytes) where the preset states it. On a part whose CPU and
  // GPU share one pool (Apple silicon, DGX Spark's GB10, AMD's Strix Halo) memory is what the GPU
  // may use by default, memory_physical the RAM of the configuration chosen, and gpu_memory_share
  // their ratio; memory_options the configurations sold, smallest first (the bare preset name is
  // the first; "--hw apple-m2-ultra-192gb" picks another). gpu_memory_share_basis says what sets
  // the share: Metal's recommendedMaxWorkingSetSize on Apple silicon (the default when a preset
  // names none), the OS's MemTotal on a GB10, the Linux TTM page limit on Strix Halo.
  struct MemoryOption {
    Bytes physical{};
    double gpu_share = 1.0;  // the share of `physical` the GPU may use by default
  };
  std::optional<Bytes> memory_physical;
  std::optional<double> gpu_memory_share;
  std::vector<MemoryOption> memory_options;
  std::string gpu_memory_share_basis;  // "Metal's recommendedMaxWorkingSetSize"; set with memory_options
  std::string variant_note;  // "the 40-core GPU M3 Max, the largest; apple-m3-max-30c is the 30-core one"
  std::optional<double> gpu_cores;  // Apple GPU cores ("apple-m3-max-40c" names the bare preset by them)
  // A class of devices (--hw cpu), not a part: no memory, bandwidth or peak of its own (memory and
  // bandwidth stay zero, every peak absent). HardwareOption::fill leaves the flags alone and the
  // commands refuse without --bandwidth/--peak (HardwareOption::require_given).
  bool is_class = false;
  // Dense peak rates per dtype; fp32 is the non-tensor rate. Absent: not published/supported.
  std::optional<FlopRate> fp64, fp32, tf32, bf16, fp16, fp8, int8, fp4;
  std::optional<double> sm_count;        // SMs (NVIDIA) or CUs (AMD)
  std::optional<Bytes> smem_per_sm;      // max shared memory (LDS) per SM
  std::optional<Watts> tdp;
  std::optional<Bytes> l2;               // L2 cache (last-level on-chip cache)
  // Scale-up link between devices (NVLink, Infinity Fabric, ICI) and the host link (PCIe), each
  // as the datasheet's bidirectional aggregate; one direction carries half. A device without a
  // scale-up link talks over PCIe.
  std::optional<Bandwidth> interconnect_bidirectional;
  std::string interconnect_type;         // "NVLink 4 (18 links)"
  std::optional<Bandwidth> pcie_bidirectional;
  /// Bandwidth one device sends at in one direction to its peers: half the bidirectional scale-up
  /// figure, else half the PCIe figure; nullopt when neither is known.
  std::optional<Bandwidth> link_bandwidth_per_direction() const;
  std::vector<std::string> sources;
  std::string confidence;
  // What kind of device, for the serving efficiency model (data/efficiency.json): one of
  // datacenter-gpu, workstation-gpu, consumer-gpu, embedded-gpu, apple-silicon, cpu, tpu, gaudi;
  // empty when the preset or file does not say.
  std::string device_class;
  /// Non-empty when a short name chose the preset ("--hw h100 read as h100-sxm, the SXM5 80 GB
  /// part; ..."): stated with the hardware assumption.
  std::string alias_note;

  /// The dense peak for `d` (bf16 and fp16 tensor rates, fp32 non-tensor, int8 as op/s).
  std::optional<FlopRate> peak(Dtype d) const;
};

/// Hardware presets compiled into the binary, by name.
std::vector<std::string> hardware_preset_names();
/// The short names load_hardware also takes ("h100", "a100", "mi300", "4090", ...), for shell
/// completion.
std::vector<std::string> hardware_alias_names();
/// Every size a preset with memory configurations was sold with, as --hw takes it
/// ("apple-m2-ultra-192gb"): for shell completion.
std::vector<std::string> hardware_sized_names();

/// A preset name (matched without regard to case), a preset with unified memory and a size it was sold
/// with ("apple-m2-ultra-192gb": 192 GiB of RAM, the GPU's default share of it; a size not sold is an
/// InputError naming --hw, the value and the sizes sold), a common short name of one ("h100" is
/// h100-sxm, "a100" a100-sxm-80gb, "mi300" mi300x: alias_note says so) or a hardware JSON file
/// (the format of data/presets/hardware/*.json). Unknown names get the closest preset, one of the
/// same memory size first: "unknown hardware preset 'a100-pcie-80'; did you mean
/// 'a100-pcie-80gb'? (napkin presets hardware)". Missing required fields name the file and JSON
/// pointer.
HardwareSpec load_hardware(const std::string& arg);

}  // namespace napkin::specs
