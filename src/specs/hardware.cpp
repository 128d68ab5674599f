#include "napkin/specs/hardware.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "napkin/error.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"
#include "napkin/suggest.h"

namespace napkin::specs {

namespace {

using nlohmann::json;
using namespace units;

double positive_number(const json& j, const char* key, const std::string& file) {
  if (!j.contains(key) || !j.at(key).is_number() || !(j.at(key).get<double>() > 0.0))
    throw InputError(file + ": /" + key, j.contains(key) ? j.at(key).dump() : "(missing)", "a positive number");
  return j.at(key).get<double>();
}

std::optional<double> optional_number(const json& j, const char* key) {
  if (!j.contains(key) || !j.at(key).is_number()) return std::nullopt;
  const double v = j.at(key).get<double>();
  if (!(v > 0.0)) return std::nullopt;
  return v;
}

HardwareSpec from_json(const json& j, const std::string& name, const std::string& file) {
  if (!j.is_object()) throw InputError(file, "(not an object)", "a hardware JSON object");
  HardwareSpec h;
  h.name = name;
  h.full_name = j.contains("name") && j.at("name").is_string() ? j.at("name").get<std::string>() : name;
  h.memory_advertised = positive_number(j, "memory_bytes", file) * byte;
  // The fit verdict needs what the framework can allocate: the driver's total (after ECC and
  // firmware reservations) where the source recorded it.
  h.memory = optional_number(j, "memory_reported_total_bytes").value_or(h.memory_advertised.in(byte)) * byte;
  h.bandwidth = positive_number(j, "memory_bandwidth_bytes_per_s", file) * byte_per_s;
  if (j.contains("peak_flops_per_s") && j.at("peak_flops_per_s").is_object()) {
    const json& p = j.at("peak_flops_per_s");
    auto rate = [&](const char* k) -> std::optional<FlopRate> {
      if (const auto v = optional_number(p, k)) return *v * flop_per_s;
      return std::nullopt;
    };
    h.fp64 = rate("fp64");
    h.fp32 = rate("fp32");
    h.tf32 = rate("tf32");
    h.bf16 = rate("bf16");
    h.fp16 = rate("fp16");
    h.fp8 = rate("fp8");
    h.int8 = rate("int8");
    h.fp4 = rate("fp4");
  }
  if (const auto v = optional_number(j, "sm_count")) h.sm_count = *v;
  else if (const auto cu = optional_number(j, "cu_count")) h.sm_count = *cu;
  if (const auto v = optional_number(j, "smem_per_sm_bytes")) h.smem_per_sm = *v * byte;
  if (const auto v = optional_number(j, "tdp_watts")) h.tdp = *v * watt;
  if (const auto v = optional_number(j, "l2_bytes")) h.l2 = *v * byte;
  if (j.contains("interconnect") && j.at("interconnect").is_object()) {
    const json& ic = j.at("interconnect");
    if (const auto v = optional_number(ic, "bandwidth_bytes_per_s_bidirectional"))
      h.interconnect_bidirectional = *v * byte_per_s;
    if (ic.contains("type") && ic.at("type").is_string()) h.interconnect_type = ic.at("type").get<std::string>();
  }
  if (j.contains("pcie") && j.at("pcie").is_object())
    if (const auto v = optional_number(j.at("pcie"), "bandwidth_bytes_per_s_bidirectional"))
      h.pcie_bidirectional = *v * byte_per_s;
  if (j.contains("source") && j.at("source").is_array())
    for (const auto& s : j.at("source"))
      if (s.is_string()) h.sources.push_back(s.get<std::string>());
  if (j.contains("confidence") && j.at("confidence").is_string()) h.confidence = j.at("confidence").get<std::string>();
  return h;
}

}  // namespace

std::optional<FlopRate> HardwareSpec::peak(Dtype d) const {
  switch (d) {
    case Dtype::fp64: return fp64;
    case Dtype::fp32: return fp32;
    case Dtype::tf32: return tf32;
    case Dtype::bf16: return bf16;
    case Dtype::fp16: return fp16;
    case Dtype::fp8: return fp8;
    case Dtype::int8: return int8;
    case Dtype::int4: return std::nullopt;
    case Dtype::nf4: return std::nullopt;
    case Dtype::fp4: return fp4;
  }
  return std::nullopt;
}

std::optional<Bandwidth> HardwareSpec::link_bandwidth_per_direction() const {
  if (interconnect_bidirectional) return *interconnect_bidirectional / 2.0;
  if (pcie_bidirectional) return *pcie_bidirectional / 2.0;
  return std::nullopt;
}

std::vector<std::string> hardware_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : hardware_preset_texts()) names.emplace_back(p.name);
  return names;
}

HardwareSpec load_hardware(const std::string& arg) {
  for (const auto& p : hardware_preset_texts())
    if (p.name == arg) return from_json(parse_json_text(p.json, "preset " + arg), arg, "preset " + arg);
  if (std::filesystem::is_regular_file(arg)) return from_json(read_json_file(arg), arg, arg);
  std::string msg = "unknown hardware preset '" + arg + "'";
  if (const auto best = closest(arg, hardware_preset_names())) msg += "; did you mean '" + *best + "'?";
  msg += " (napkin presets hardware)";
  throw InputError(msg);
}

}  // namespace napkin::specs
