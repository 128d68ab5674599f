#include "napkin/specs/efficiency.h"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "napkin/ground/error.h"
#include "napkin/specs/presets.h"
#include "json_fields.h"

namespace napkin::specs {

using json = nlohmann::json;
using namespace units;

namespace {

// The bundled files are checked by the test suite; a broken one is a build defect, reported
// with the file and JSON pointer (json_fields.h).
double non_negative(const JsonFields& f, const char* key, std::optional<double> fallback = std::nullopt) {
  if (!f.has(key)) {
    if (fallback) return *fallback;
    f.missing(key, "a number ≥ 0");
  }
  const auto& v = f.raw(key);
  if (!v.is_number() || !(v.get<double>() >= 0.0)) f.bad(key, "a number ≥ 0");
  return v.get<double>();
}

std::string text(const JsonFields& f, const char* key) {
  if (!f.has(key)) f.missing(key, "a string");
  return f.str_or(key, "");
}

std::vector<EfficiencyProfile> parse_all() {
  std::vector<EfficiencyProfile> out;
  for (const ModelPresetText& t : efficiency_profile_texts()) {
    const json j = json::parse(t.json);
    const JsonFields f(j, "data/presets/efficiency/" + std::string(t.name) + ".json", "");
    EfficiencyProfile p;
    p.name = std::string(t.name);
    p.engine = text(f, "engine");
    if (!f.nonempty_array("device_classes")) f.missing("device_classes", "a non-empty array of device classes");
    for (const json& c : f.raw("device_classes")) {
      if (!c.is_string()) f.bad("device_classes", "an array of device class names");
      p.device_classes.push_back(c.get<std::string>());
    }
    p.bandwidth = non_negative(f, "bandwidth_efficiency");
    p.compute = non_negative(f, "compute_efficiency");
    p.prefill_half = non_negative(f, "prefill_half_tokens");
    p.pass_overhead = non_negative(f, "pass_overhead_s", 0.0) * second;
    p.layer_overhead = non_negative(f, "layer_overhead_s", 0.0) * second;
    p.fitted_on = text(f, "fitted_on");
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
