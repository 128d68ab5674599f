// System presets: data/presets/systems/*.json. See napkin/specs/systems.h.
#include "napkin/specs/systems.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <nlohmann/json.hpp>

#include "napkin/ground/error.h"
#include "napkin/ground/suggest.h"
#include "napkin/specs/hardware.h"
#include "napkin/specs/presets.h"

namespace napkin::specs {

using namespace units;
using nlohmann::json;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// A figure the preset must state: a positive, finite number at `object`/`key`.
double positive(const json& j, const char* object, const char* key, const std::string& file) {
  const json* o = object == nullptr ? &j : (j.contains(object) && j.at(object).is_object() ? &j.at(object) : nullptr);
  if (o == nullptr || !o->contains(key) || !o->at(key).is_number() || !(o->at(key).get<double>() > 0) ||
      !std::isfinite(o->at(key).get<double>()))
    throw InputError(file + ": /" + (object == nullptr ? "" : std::string(object) + "/") + key,
                     o != nullptr && o->contains(key) ? o->at(key).dump() : "(missing)", "a positive number");
  return o->at(key).get<double>();
}

// A measurement the preset may give: positive, or null / absent when none was published.
std::optional<Bandwidth> measured(const json& j, const char* object, const char* key, const std::string& file) {
  if (!j.contains(object) || !j.at(object).is_object()) return std::nullopt;
  const json& o = j.at(object);
  if (!o.contains(key) || o.at(key).is_null()) return std::nullopt;
  return positive(j, object, key, file) * byte_per_s;
}

std::string text(const json& j, const char* key) {
  return j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : std::string();
}

}  // namespace

std::vector<std::string> system_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : system_preset_texts()) names.emplace_back(p.name);
  return names;
}

SystemSpec load_system(const std::string& name) {
  const std::string key = lower(name);
  for (const auto& p : system_preset_texts()) {
    if (p.name != key) continue;
    const std::string file = "data/presets/systems/" + std::string(p.name) + ".json";
    const json j = json::parse(p.json);
    SystemSpec s;
    s.name = p.name;
    s.full_name = text(j, "name");
    s.kind = text(j, "kind");
    s.gpu = text(j, "gpu");
    if (s.gpu.empty()) throw InputError(file + ": /gpu", "(missing)", "the hardware preset of its accelerators");
    load_hardware(s.gpu);  // a system names a GPU napkin knows (InputError otherwise)
    s.gpus_per_node = positive(j, nullptr, "gpus_per_node", file);
    s.scale_up_domain = positive(j, nullptr, "scale_up_domain_gpus", file);
    s.scale_up_per_gpu = positive(j, "intra_node", "bandwidth_per_gpu_bytes_per_s_per_direction", file) * byte_per_s;
    s.scale_up_peer_to_peer =
        positive(j, "intra_node", "peer_to_peer_bandwidth_bytes_per_s_per_direction", file) * byte_per_s;
    s.scale_out_per_node = positive(j, "inter_node", "bandwidth_per_node_bytes_per_s_per_direction", file) * byte_per_s;
    s.scale_out_per_gpu = positive(j, "inter_node", "bandwidth_per_gpu_bytes_per_s_per_direction", file) * byte_per_s;
    if (j.contains("inter_node") && j.at("inter_node").contains("nics_per_node") &&
        j.at("inter_node").at("nics_per_node").is_number())
      s.nics_per_node = j.at("inter_node").at("nics_per_node").get<double>();
    s.measured_scale_up_all_reduce = measured(j, "measured_intra_node", "all_reduce_busbw_bytes_per_s", file);
    s.measured_scale_up_ring = measured(j, "measured_intra_node", "ring_busbw_bytes_per_s", file);
    s.measured_scale_out_per_nic = measured(j, "measured_inter_node", "per_nic_bytes_per_s", file);
    s.measured_scale_out_all_reduce = measured(j, "measured_inter_node", "all_reduce_busbw_bytes_per_s", file);
    if (j.contains("sources") && j.at("sources").is_array())
      for (const auto& src : j.at("sources"))
        if (src.is_string()) s.sources.push_back(src.get<std::string>());
    return s;
  }
  const std::vector<std::string> names = system_preset_names();
  std::string expected = "a system preset (napkin presets systems)";
  if (const auto best = closest(key, names)) expected += "; did you mean '" + *best + "'?";
  throw InputError("--system", name, expected);
}

}  // namespace napkin::specs

namespace napkin::specs {

Bandwidth SystemSpec::ring_bus() const {
  return measured_scale_up_ring.value_or(kRingEfficiency * scale_up_per_gpu);
}

Bandwidth SystemSpec::network_per_gpu() const {
  return measured_scale_out_per_nic && nics_per_node > 0.0 ? *measured_scale_out_per_nic * nics_per_node / gpus_per_node
                                                           : kNicEfficiency * scale_out_per_gpu;
}

std::optional<std::string> default_system_for(const std::string& hardware) {
  std::optional<std::string> cloud;
  for (const auto& p : system_preset_texts()) {
    const json j = json::parse(p.json);
    if (lower(text(j, "gpu")) != lower(hardware)) continue;
    const std::string kind = text(j, "kind");
    if (kind == "node" || kind == "rack" || kind == "tpu-pod") return std::string(p.name);
    if (!cloud) cloud = std::string(p.name);
  }
  return cloud;
}

}  // namespace napkin::specs
