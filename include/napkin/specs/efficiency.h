// Serving efficiency profiles: per engine and class of hardware, the coefficients of the expected
// serving speed (napkin/plans/serve_expected.h), fitted by scripts/fit-efficiency on the published
// measurements in data/serving/measurements.csv. The profiles are data files,
// data/presets/efficiency/<engine>-<device class>.json, compiled into the binary; each says what it
// was fitted on and the residuals of the fit.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/plans/serve_expected.h"

namespace napkin::specs {

struct EfficiencyProfile {
  std::string name;          // the file's name: "llama.cpp-apple-silicon"
  std::string engine;        // none, llama.cpp, vllm
  std::vector<std::string> device_classes;  // the HardwareSpec::device_class values it covers
  double bandwidth = 1.0, compute = 1.0, prefill_half = 0.0;
  Seconds pass_overhead{}, layer_overhead{};  // per pass; per layer per pass
  std::string fitted_on;     // "27 decode and 12 prefill measurements, median error 6%, ..."
  /// The coefficients for a model of `layers` layers: pass overhead = pass + layers · per layer.
  Efficiency for_layers(double layers) const;
};

/// The profile of `engine` that covers `device_class`; nullopt when none does (no measurements of
/// that engine on that class of hardware: the CLI then shows the bound only).
std::optional<EfficiencyProfile> efficiency_profile(std::string_view engine, std::string_view device_class);
/// Every bundled profile, by name.
const std::vector<EfficiencyProfile>& efficiency_profiles();

}  // namespace napkin::specs
