// See hardware_option.h.
#include "hardware_option.h"

#include <cstdlib>
#include <string>

#include "napkin/ground/error.h"

namespace napkin::cli {

void HardwareOption::load() {
  if (arg.empty()) return;
  if (!from_env()) {
    spec = specs::load_hardware(arg);
    return;
  }
  try {
    spec = specs::load_hardware(arg);
  } catch (const InputError& e) {  // say where the value came from: the user typed no --hw
    throw InputError(std::string("NAPKIN_HW (the default for --hw): ") + e.what());
  }
}

void HardwareOption::fill(NumericFlag& f, std::optional<double> base_value) const {
  if (has_figures() && f.raw.empty() && base_value) f.fallback = *base_value;
}

void HardwareOption::require_given(const NumericFlag& f, std::string_view flag, std::string_view what) const {
  if (spec && spec->is_class && f.raw.empty())
    throw InputError(std::string(flag), "(not given)",
                     "a value with --hw " + arg + ": a " + (spec->device_class == "cpu" ? "CPU" : spec->device_class) +
                         " preset is a class of devices and has no " + std::string(what) + " of its own");
}

void HardwareOption::assume(ResultSet& rs) const {
  if (spec && spec->is_class)
    rs.assume("hardware", text("{} ({}{}): a class of devices, no figures of its own: bandwidth, peak and memory "
                               "come from the flags given",
                               std::string_view(spec->name), std::string_view(spec->full_name),
                               std::string_view(from_env() ? ", from NAPKIN_HW, the default for --hw" : "")));
  else if (spec && from_env())
    rs.assume("hardware", text("{} ({}{}{}) from NAPKIN_HW, the default for --hw: datasheet figures for the hardware "
                               "flags not given (memory: the driver-reported total where known), sources in "
                               "data/presets/hardware",
                               std::string_view(spec->name), std::string_view(spec->full_name),
                               std::string_view(spec->alias_note.empty() ? "" : "; "),
                               std::string_view(spec->alias_note)));
  else if (spec && spec->gpu_memory_share)  // unified memory: the alias note states the size and the share
    rs.assume("hardware", text("{} ({}; {}): datasheet figures for the hardware flags not given (memory: the GPU's "
                               "default share of the unified memory), sources in data/presets/hardware",
                               std::string_view(spec->name), std::string_view(spec->full_name),
                               std::string_view(spec->alias_note)));
  else if (spec && !spec->alias_note.empty())
    rs.assume("hardware", text("{} ({}; {}): datasheet figures for the hardware flags not given (memory: the "
                               "driver-reported total where known), sources in data/presets/hardware",
                               std::string_view(spec->name), std::string_view(spec->full_name),
                               std::string_view(spec->alias_note)));
  else if (spec)
    rs.assume("hardware", text("{} ({}): datasheet figures for the hardware flags not given (memory: the "
                               "driver-reported total where known), sources in data/presets/hardware",
                               std::string_view(spec->name), std::string_view(spec->full_name)));
}

void add_hw_option(CommandApp* sub, HardwareOption& h) {
  CLI::Option* o = sub->add_option("--hw", h.arg, "A hardware preset (napkin presets hardware) or hardware JSON file; "
                                                  "its figures fill the hardware flags not given (default: "
                                                  "$NAPKIN_HW when set)")
                       ->type_name("HARDWARE")
                       ->group("Hardware");
  // NAPKIN_HW: the value --hw has when it is not given (a set but empty variable is no value).
  if (const char* env = std::getenv("NAPKIN_HW"); env != nullptr && *env != '\0') h.arg = env;
  h.option = o;
}

}  // namespace napkin::cli
