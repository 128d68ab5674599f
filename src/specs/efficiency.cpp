#include "napkin/specs/efficiency.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "napkin/error.h"
#include "napkin/specs/presets.h"

namespace napkin::specs {

using json = nlohmann::json;
using namespace units;

namespace {

// The bundled files are checked by the test suite; a broken one is a build defect, reported
// with the file and key.
double number(const json& j, const char* key, std::string_view file, bool required = true) {
  if (!j.contains(key)) {
    if (!required) return 0.0;
    throw InputError("data/presets/efficiency/" + std::string(file) + ".json: missing \"" + key + "\"");
  }
  const json& v = j.at(key);
  if (!v.is_number() || !(v.get<double>() >= 0.0))
    throw InputError("data/presets/efficiency/" + std::string(file) + ".json: \"" + key + "\" is " + v.dump() +
                     ", expected a number ≥ 0");
  return v.get<double>();
}

std::string string(const json& j, const char* key, std::string_view file) {
  if (!j.contains(key) || !j.at(key).is_string())
    throw InputError("data/presets/efficiency/" + std::string(file) + ".json: missing string \"" + key + "\"");
  return j.at(key).get<std::string>();
}

std::vector<EfficiencyProfile> parse_all() {
  std::vector<EfficiencyProfile> out;
  for (const ModelPresetText& t : efficiency_profile_texts()) {
    const json j = json::parse(t.json);
    EfficiencyProfile p;
    p.name = std::string(t.name);
    p.engine = string(j, "engine", t.name);
    if (!j.contains("device_classes") || !j.at("device_classes").is_array() || j.at("device_classes").empty())
      throw InputError("data/presets/efficiency/" + std::string(t.name) +
                       ".json: missing \"device_classes\", a non-empty array of device classes");
    for (const json& c : j.at("device_classes")) p.device_classes.push_back(c.get<std::string>());
    p.bandwidth = number(j, "bandwidth_efficiency", t.name);
    p.compute = number(j, "compute_efficiency", t.name);
    p.prefill_half = number(j, "prefill_half_tokens", t.name);
    p.pass_overhead = number(j, "pass_overhead_s", t.name, false) * second;
    p.layer_overhead = number(j, "layer_overhead_s", t.name, false) * second;
    p.fitted_on = string(j, "fitted_on", t.name);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

Efficiency EfficiencyProfile::for_layers(double layers) const {
  return Efficiency{bandwidth, compute, prefill_half, pass_overhead + layers * layer_overhead};
}

const std::vector<EfficiencyProfile>& efficiency_profiles() {
  static const std::vector<EfficiencyProfile> all = parse_all();
  return all;
}

std::optional<EfficiencyProfile> efficiency_profile(std::string_view engine, std::string_view device_class) {
  for (const EfficiencyProfile& p : efficiency_profiles())
    if (p.engine == engine &&
        std::find(p.device_classes.begin(), p.device_classes.end(), device_class) != p.device_classes.end())
      return p;
  return std::nullopt;
}

}  // namespace napkin::specs
