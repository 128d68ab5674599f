#include "napkin/specs/hardware.h"

#include <utility>

#include <cctype>

#include <algorithm>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/ground/suggest.h"
#include "napkin/specs/files.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"

namespace napkin::specs {

namespace {

using nlohmann::json;
using namespace units;

// ---- the format: every key a hardware JSON may hold, and what its value must be -----------------
//
// Every present field is checked, optional or not, before anything is read: a malformed optional
// field ("bf16": "312e12", "tdp_watts": -700) is an error naming the file, the JSON pointer, the
// value and what was expected, not a silently absent figure whose absence some later message
// blames on something else. An unknown key is refused too, with the closest known one: a typo
// ("memroy_bytes") silently ignored is the bug this check exists for. null means "not published"
// for every optional field (the presets use it). Numbers are plain JSON numbers in the unit the
// key names (bytes, bytes/s, FLOP/s, W): strings, with or without units, are refused.

enum class Kind {
  text,      // a string
  boolean,   // true or false
  positive,  // a positive finite number in the key's unit
  count,     // a positive integer below 2^53
  sources,   // an array of strings
  object,    // an object with its own keys
  positives, // a non-empty array of positive finite numbers in the key's unit
};

struct Field {
  std::string_view key;
  Kind kind;
  std::string_view unit{};             // positive: the unit the key names
  std::span<const Field> fields = {};  // object: its keys
  bool required = false;
};

constexpr Field kPeakFields[] = {
    {"fp64", Kind::positive, "FLOP/s"}, {"fp64_tensor", Kind::positive, "FLOP/s"},
    {"fp32", Kind::positive, "FLOP/s"}, {"fp32_matrix", Kind::positive, "FLOP/s"},
    {"tf32", Kind::positive, "FLOP/s"}, {"bf16", Kind::positive, "FLOP/s"},
    {"bf16_vector", Kind::positive, "FLOP/s"}, {"fp16", Kind::positive, "FLOP/s"},
    {"fp8", Kind::positive, "FLOP/s"}, {"fp6", Kind::positive, "FLOP/s"},
    {"fp4", Kind::positive, "FLOP/s"}, {"int8", Kind::positive, "op/s"},
    {"int4", Kind::positive, "op/s"},
};
constexpr Field kPowerFields[] = {
    {"min", Kind::positive, "watts"}, {"mean", Kind::positive, "watts"}, {"max", Kind::positive, "watts"}};
constexpr Field kInterconnectFields[] = {
    {"type", Kind::text},
    {"bandwidth_bytes_per_s_bidirectional", Kind::positive, "bytes/s"},
    {"bandwidth_bytes_per_s_per_link_one_way", Kind::positive, "bytes/s"},
    {"cpu_link", Kind::text},
};
constexpr Field kPcieFields[] = {
    {"gen", Kind::count},
    {"lanes", Kind::count},
    {"bandwidth_bytes_per_s_bidirectional", Kind::positive, "bytes/s"},
    {"bandwidth_bytes_per_s_one_way", Kind::positive, "bytes/s"},
};
constexpr Field kHardwareFields[] = {
    {"kind", Kind::text},
    {"id", Kind::text},
    {"name", Kind::text},
    {"vendor", Kind::text},
    {"architecture", Kind::text},
    {"form_factor", Kind::text},
    {"memory_type", Kind::text},
    {"memory_label", Kind::text},
    {"memory_bytes", Kind::positive, "bytes", {}, true},
    {"memory_physical_bytes", Kind::positive, "bytes"},
    {"memory_unit_note", Kind::text},
    // Unified memory (Apple silicon, GB10, Strix Halo): the sizes sold (physical, smallest first), and
    // for each the share the GPU may use by default (on Apple silicon Metal's
    // recommendedMaxWorkingSetSize / RAM); memory_bytes is the first size times its share,
    // memory_physical_bytes the first size. gpu_memory_share_basis: what sets the share, in a few
    // words for the hardware assumption (absent: Metal's recommendedMaxWorkingSetSize).
    {"memory_options_bytes", Kind::positives, "bytes"},
    {"gpu_memory_share", Kind::positives, "one (a fraction of the RAM)"},
    {"gpu_memory_share_source", Kind::text},
    {"gpu_memory_share_basis", Kind::text},
    {"variant_note", Kind::text},
    {"memory_reported_total_bytes", Kind::positive, "bytes"},
    {"memory_torch_total_bytes", Kind::positive, "bytes"},
    {"memory_torch_total_source", Kind::text},
    {"memory_bandwidth_bytes_per_s", Kind::positive, "bytes/s", {}, true},
    {"peak_flops_per_s", Kind::object, {}, kPeakFields},
    {"peak_flops_per_s_fp16_accumulate", Kind::object, {}, kPeakFields},
    {"dense_values_halved_from_sparse_sheet", Kind::boolean},
    {"dense_basis_note", Kind::text},
    {"sm_count", Kind::count},
    {"cu_count", Kind::count},
    {"gpu_cores", Kind::count},
    {"l2_bytes", Kind::positive, "bytes"},
    {"llc_bytes", Kind::positive, "bytes"},
    {"onchip_sram_bytes", Kind::positive, "bytes"},
    {"smem_per_sm_bytes", Kind::positive, "bytes"},
    {"tdp_watts", Kind::positive, "watts"},
    {"measured_power_watts", Kind::object, {}, kPowerFields},
    {"tdp_note", Kind::text},
    {"interconnect", Kind::object, {}, kInterconnectFields},
    {"pcie", Kind::object, {}, kPcieFields},
    {"source", Kind::sources},
    {"confidence", Kind::text},
    {"device_class", Kind::text},
    {"notes", Kind::text},
    {"preset", Kind::text},
    {"copied_from", Kind::text},
};

constexpr double kTwoTo53 = 9007199254740992.0;

// What sets the GPU's share of unified memory when a preset does not say: Apple silicon's.
constexpr std::string_view kMetalWorkingSet = "Metal's recommendedMaxWorkingSetSize";

// A JSON pointer token: '~' and '/' escaped (RFC 6901).
std::string pointer_token(const std::string& key) {
  std::string t;
  for (char ch : key) {
    if (ch == '~') t += "~0";
    else if (ch == '/') t += "~1";
    else t += ch;
  }
  return t;
}

// The value as the message quotes it: the JSON text, cut short when long.
std::string shown(const json& v) {
  std::string d = v.dump();
  if (d.size() > 60) d = d.substr(0, 57) + "...";
  return d;
}

std::string expectation(const Field& f) {
  switch (f.kind) {
    case Kind::text: return "a string";
    case Kind::boolean: return "true or false";
    case Kind::positive:
      return "a positive number of " + std::string(f.unit) + " (a JSON number; the key names the unit)";
    case Kind::count: return "a positive integer below 2^53";
    case Kind::sources: return "an array of strings (URLs or citations)";
    case Kind::object: return "an object";
    case Kind::positives:
      return "a non-empty array of positive numbers of " + std::string(f.unit) + " (JSON numbers)";
  }
  return "a value";
}

bool valid(const Field& f, const json& v) {
  switch (f.kind) {
    case Kind::text: return v.is_string();
    case Kind::boolean: return v.is_boolean();
    case Kind::positive: {
      if (!v.is_number()) return false;
      const double x = v.get<double>();
      return std::isfinite(x) && x > 0.0;
    }
    case Kind::count: {
      if (!v.is_number()) return false;
      const double x = v.get<double>();
      return std::isfinite(x) && x >= 1.0 && std::floor(x) == x && x < kTwoTo53;
    }
    case Kind::sources:
      if (!v.is_array()) return false;
      for (const auto& e : v)
        if (!e.is_string()) return false;
      return true;
    case Kind::object: return v.is_object();
    case Kind::positives:
      if (!v.is_array() || v.empty()) return false;
      for (const auto& e : v)
        if (!e.is_number() || !std::isfinite(e.get<double>()) || !(e.get<double>() > 0.0)) return false;
      return true;
  }
  return false;
}

// `class_only`: a class of devices (device_class "cpu"), whose required figures may be absent or null.
void validate(const json& obj, std::span<const Field> fields, const std::string& path, const std::string& file,
              bool class_only = false) {
  for (const auto& [key, v] : obj.items()) {
    const std::string here = path + "/" + pointer_token(key);
    const Field* f = nullptr;
    for (const Field& c : fields)
      if (c.key == key) f = &c;
    if (f == nullptr) {
      std::vector<std::string> known;
      for (const Field& c : fields) known.emplace_back(c.key);
      std::string expected = "one of the format's keys";
      if (const auto best = closest(key, known)) {
        expected += ": did you mean '" + *best + "'?";
      } else {
        expected += " here:";
        for (std::size_t i = 0; i < known.size(); ++i) expected += (i == 0 ? " " : ", ") + known[i];
      }
      throw InputError(file + ": " + here, key, expected, "is not a key of the hardware format");
    }
    if (v.is_null() && (!f->required || class_only)) continue;  // not published
    if (!valid(*f, v)) throw InputError(file + ": " + here, shown(v), expectation(*f) + (f->required ? "" : ", or null"));
    if (f->kind == Kind::object) validate(v, f->fields, here, file);
  }
  for (const Field& f : fields)
    if (f.required && !class_only && !obj.contains(std::string(f.key)))
      throw InputError(file + ": " + path + "/" + std::string(f.key), "(missing)", expectation(f));
}

double positive_number(const json& j, const char* key, const std::string& file) {
  if (!j.contains(key) || !j.at(key).is_number() || !(j.at(key).get<double>() > 0.0))
    throw InputError(file + ": /" + key, j.contains(key) ? j.at(key).dump() : "(missing)", "a positive number");
  return j.at(key).get<double>();
}

// After validate(): a present number is valid, anything else (null) is absent.
std::optional<double> optional_number(const json& j, const char* key) {
  if (!j.contains(key) || !j.at(key).is_number()) return std::nullopt;
  return j.at(key).get<double>();
}

// The unified memory configurations of an Apple silicon preset: memory_options_bytes and
// gpu_memory_share, one share per size, both or neither; memory_physical_bytes must be the first size
// and memory_bytes the first size times its share (whole bytes, rounded down), so the bare name and
// its smallest suffix ("apple-m1-8gb") load the same figures.
void read_memory_options(const json& j, HardwareSpec& h, const std::string& file) {
  const bool sizes = j.contains("memory_options_bytes") && j.at("memory_options_bytes").is_array();
  const bool shares = j.contains("gpu_memory_share") && j.at("gpu_memory_share").is_array();
  if (!sizes && !shares) return;
  if (sizes != shares)
    throw InputError(file + ": /" + (sizes ? "gpu_memory_share" : "memory_options_bytes"), "(missing)",
                     "memory_options_bytes and gpu_memory_share together (one share per size)");
  const json& o = j.at("memory_options_bytes");
  const json& s = j.at("gpu_memory_share");
  if (o.size() != s.size())
    throw InputError(file + ": /gpu_memory_share", shown(s),
                     "one share per entry of memory_options_bytes (" + std::to_string(o.size()) + ")");
  for (std::size_t i = 0; i < o.size(); ++i) {
    const double bytes = o.at(i).get<double>(), share = s.at(i).get<double>();
    if (i > 0 && !(bytes > o.at(i - 1).get<double>()))
      throw InputError(file + ": /memory_options_bytes/" + std::to_string(i), shown(o.at(i)),
                       "sizes in increasing order, each above the one before");
    if (share > 1.0)
      throw InputError(file + ": /gpu_memory_share/" + std::to_string(i), shown(s.at(i)), "a share of at most 1");
    h.memory_options.push_back({bytes * byte, share});
  }
  const auto physical = optional_number(j, "memory_physical_bytes");
  if (!physical || *physical != o.at(0).get<double>())
    throw InputError(file + ": /memory_physical_bytes", physical ? shown(j.at("memory_physical_bytes")) : "(missing)",
                     "the first of memory_options_bytes, " + o.at(0).dump() + " (the default configuration)");
  const double usable = std::floor(o.at(0).get<double>() * s.at(0).get<double>());
  if (j.at("memory_bytes").get<double>() != usable)
    throw InputError(file + ": /memory_bytes", shown(j.at("memory_bytes")),
                     "the GPU's share of the first size, floor(" + o.at(0).dump() + " · " + s.at(0).dump() +
                         ") = " + format_plain_number(usable));
}

HardwareSpec from_json(const json& j, const std::string& name, const std::string& file) {
  if (!j.is_object()) throw InputError(file, "(not an object)", "a hardware JSON object");
  // A class of devices ("cpu") has no memory, bandwidth or peak of its own: the commands take them
  // from flags and refuse without (HardwareOption::require_given).
  const bool class_only = j.contains("device_class") && j.at("device_class") == "cpu";
  validate(j, kHardwareFields, "", file, class_only);
  HardwareSpec h;
  h.name = name;
  h.full_name = j.contains("name") && j.at("name").is_string() ? j.at("name").get<std::string>() : name;
  h.is_class = class_only && !optional_number(j, "memory_bandwidth_bytes_per_s");
  if (h.is_class) {
    if (optional_number(j, "memory_bytes"))
      throw InputError(file + ": /memory_bytes", shown(j.at("memory_bytes")),
                       "null: a CPU class without a bandwidth has no memory of its own either (--gpu-memory gives it)");
    if (j.contains("device_class") && j.at("device_class").is_string())
      h.device_class = j.at("device_class").get<std::string>();
    if (j.contains("source") && j.at("source").is_array())
      for (const auto& s : j.at("source"))
        if (s.is_string()) h.sources.push_back(s.get<std::string>());
    return h;
  }
  h.memory_advertised = positive_number(j, "memory_bytes", file) * byte;
  // The fit verdict needs what the framework can allocate: the driver's total (after ECC and
  // firmware reservations) where the source recorded it.
  h.memory = optional_number(j, "memory_reported_total_bytes").value_or(h.memory_advertised.in(byte)) * byte;
  if (const auto t = optional_number(j, "memory_torch_total_bytes")) h.memory_torch_total = *t * byte;
  if (j.contains("memory_torch_total_source") && j.at("memory_torch_total_source").is_string())
    h.memory_torch_total_source = j.at("memory_torch_total_source").get<std::string>();
  // What a runtime reports is what is left of the memory after the driver's reservations: never
  // more than the memory itself (a total above it would be taken as the capacity and "fit").
  for (const char* key : {"memory_reported_total_bytes", "memory_torch_total_bytes"})
    if (const auto v = optional_number(j, key); v && *v > h.memory_advertised.in(byte))
      throw InputError(file + ": /" + key, shown(j.at(key)),
                       "at most memory_bytes (" + shown(j.at("memory_bytes")) +
                           "): the total a runtime reports is what the driver leaves of the memory");
  if (const auto p = optional_number(j, "memory_physical_bytes")) h.memory_physical = *p * byte;
  read_memory_options(j, h, file);
  if (!h.memory_options.empty()) {
    h.gpu_memory_share = h.memory_options.front().gpu_share;
    h.gpu_memory_share_basis = j.contains("gpu_memory_share_basis") && j.at("gpu_memory_share_basis").is_string()
                                   ? j.at("gpu_memory_share_basis").get<std::string>()
                                   : std::string(kMetalWorkingSet);
  } else if (j.contains("gpu_memory_share_basis") && j.at("gpu_memory_share_basis").is_string()) {
    throw InputError(file + ": /gpu_memory_share_basis", shown(j.at("gpu_memory_share_basis")),
                     "memory_options_bytes and gpu_memory_share with it (the basis of a share the preset gives)");
  }
  if (const auto v = optional_number(j, "gpu_cores")) h.gpu_cores = *v;
  if (j.contains("variant_note") && j.at("variant_note").is_string())
    h.variant_note = j.at("variant_note").get<std::string>();
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
  if (j.contains("device_class") && j.at("device_class").is_string())
    h.device_class = j.at("device_class").get<std::string>();
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

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Short names people type for a part sold in several forms, and the form each one means (the
// choice is stated with the hardware assumption). Keys are lower case.
struct Alias {
  std::string_view typed, preset, note;
};
constexpr Alias kAliases[] = {
    {"h100", "h100-sxm", "the SXM5 80 GB part; h100-pcie and h100-nvl are the others"},
    {"h100-sxm5", "h100-sxm", "the SXM5 80 GB part"},
    {"h100-80gb", "h100-sxm", "the SXM5 80 GB part; h100-pcie is the PCIe 80 GB one"},
    {"h200-sxm", "h200", "the SXM 141 GB part; h200-nvl is the NVL one"},
    {"a100", "a100-sxm-80gb", "the SXM4 80 GB part; a100-sxm-40gb, a100-pcie-80gb and a100-pcie-40gb are the others"},
    {"a100-80gb", "a100-sxm-80gb", "the SXM4 80 GB part; a100-pcie-80gb is the PCIe one"},
    {"a100-40gb", "a100-sxm-40gb", "the SXM4 40 GB part; a100-pcie-40gb is the PCIe one"},
    {"a100-sxm", "a100-sxm-80gb", "the SXM4 80 GB part; a100-sxm-40gb is the 40 GB one"},
    {"a100-pcie", "a100-pcie-80gb", "the PCIe 80 GB part; a100-pcie-40gb is the 40 GB one"},
    {"mi300", "mi300x", "the MI300X accelerator"},
    {"v100-32gb", "v100", "the SXM2 32 GB part"},
    {"rtx4090", "rtx-4090", ""},
    {"rtx3090", "rtx-3090", ""},
    {"4090", "rtx-4090", ""},
    {"3090", "rtx-3090", ""},
    {"3060", "rtx-3060", "the 12 GB card"},
    {"3060-ti", "rtx-3060-ti", ""},
    {"3070", "rtx-3070", ""},
    {"3070-ti", "rtx-3070-ti", ""},
    {"3080", "rtx-3080", "the 10 GB card; rtx-3080-12gb is the 12 GB one"},
    {"3080-ti", "rtx-3080-ti", ""},
    {"3090-ti", "rtx-3090-ti", ""},
    {"4060", "rtx-4060", ""},
    {"4060-ti", "rtx-4060-ti", "the 8 GB card; rtx-4060-ti-16gb is the 16 GB one"},
    {"4070", "rtx-4070", ""},
    {"4070-super", "rtx-4070-super", ""},
    {"4070-ti", "rtx-4070-ti", ""},
    {"4070-ti-super", "rtx-4070-ti-super", ""},
    {"4080", "rtx-4080", ""},
    {"4080-super", "rtx-4080-super", ""},
    {"5060-ti", "rtx-5060-ti", "the 16 GB card"},
    {"5070", "rtx-5070", ""},
    {"5070-ti", "rtx-5070-ti", ""},
    {"5080", "rtx-5080", ""},
    {"5090", "rtx-5090", ""},
    {"rtx5090", "rtx-5090", ""},
    {"a6000", "rtx-a6000", "the Ampere RTX A6000; rtx-6000-ada is the Ada one"},
    {"6000-ada", "rtx-6000-ada", ""},
    {"orin", "jetson-agx-orin", "the AGX Orin 64 GB module; jetson-agx-orin-32gb is the 32 GB one"},
    {"agx-orin", "jetson-agx-orin", "the AGX Orin 64 GB module; jetson-agx-orin-32gb is the 32 GB one"},
    // Unified-memory parts: the alias also takes a size ("strix-halo-128gb"), and the preset's
    // variant_note, not a note here, says what it was read as.
    {"gb10", "dgx-spark", ""},
    {"dgx-spark-gb10", "dgx-spark", ""},
    {"strix-halo", "ryzen-ai-max-395", ""},
    {"ryzen-ai-max-plus-395", "ryzen-ai-max-395", ""},
    {"ryzen-ai-max+-395", "ryzen-ai-max-395", ""},
    {"radeon-8060s", "ryzen-ai-max-395", ""},
};

// The preset a short name stands for, or nothing.
const Alias* alias_of(std::string_view typed) {
  for (const Alias& a : kAliases)
    if (a.typed == typed) return &a;
  return nullptr;
}

// The digit runs of a name ("a100-pcie-80gb": 100, 80), which tell parts and memory sizes apart.
std::vector<std::string> numbers_in(std::string_view s) {
  std::vector<std::string> out;
  std::string run;
  for (char c : s) {
    if (c >= '0' && c <= '9') run += c;
    else if (!run.empty()) out.push_back(std::exchange(run, {}));
  }
  if (!run.empty()) out.push_back(run);
  return out;
}

// "Did you mean": among the presets whose names hold every number the typed name holds (a typed
// "a100-pcie-80" is never offered the 40 GB part first), else among all of them.
std::optional<std::string> suggest_hardware(std::string_view typed) {
  const std::vector<std::string> all = hardware_preset_names();
  const std::vector<std::string> nums = numbers_in(typed);
  std::vector<std::string> same;
  for (const auto& name : all) {
    const std::vector<std::string> has = numbers_in(name);
    bool every = true;
    for (const auto& n : nums) every = every && std::find(has.begin(), has.end(), n) != has.end();
    if (every) same.push_back(name);
  }
  if (!nums.empty() && !same.empty())
    if (auto best = closest(typed, same)) return best;
  return closest(typed, all);
}

HardwareSpec load_preset(const ModelPresetText& p) {
  const std::string name(p.name);
  return from_json(parse_json_text(p.json, "preset " + name), name, "preset " + name);
}

// "36" for 36 GiB: the sizes Apple sells are whole GiB (its "GB").
std::string whole_gib(Bytes b) {
  return format_plain_number(std::round(b.in(byte) / 1073741824.0));
}

std::string gib_text(Bytes b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", b.in(byte) / 1073741824.0);
  return buf;
}

// "3/4" for the shares macOS uses, else a percentage ("95.07%").
std::string share_text(double share) {
  if (std::abs(share - 2.0 / 3.0) < 1e-9) return "2/3";
  if (std::abs(share - 0.75) < 1e-12) return "3/4";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g%%", share * 100.0);
  return buf;
}

// The name --hw takes for a preset at one of its memory sizes ("apple-m2-ultra-192gb").
std::string sized_name(std::string_view preset, const HardwareSpec::MemoryOption& o) {
  return std::string(preset) + "-" + whole_gib(o.physical) + "gb";
}

// A preset with unified memory configurations, set to configuration `i` (0: the bare name's), and the
// note the hardware assumption states: the variant, the size and the GPU's default share of it.
// `renamed`: typed is not the preset's own name (a size or a core count on it); `sized`: it names a size.
HardwareSpec with_configuration(HardwareSpec h, std::size_t i, const std::string& typed, const std::string& preset,
                                bool renamed, bool sized) {
  const HardwareSpec::MemoryOption& o = h.memory_options.at(i);
  h.memory_physical = o.physical;
  h.gpu_memory_share = o.gpu_share;
  h.memory = std::floor(o.physical.in(byte) * o.gpu_share) * byte;
  h.memory_advertised = o.physical;  // the size Apple sold; memory is the GPU's share of it
  std::string others;
  for (std::size_t k = 0; k < h.memory_options.size(); ++k)
    if (k != i) others += (others.empty() ? "" : ", ") + sized_name(preset, h.memory_options[k]);
  std::string note = "--hw " + typed + " read as " + (renamed ? preset + ", " : std::string()) + h.variant_note +
                     (h.variant_note.empty() ? "" : "; ") + "with " + whole_gib(o.physical) + " GB of unified memory" +
                     (sized || h.memory_options.size() == 1 ? "" : ", the smallest size sold") +
                     (others.empty() ? std::string(" (the only size sold)")
                                     : " (" + others + (others.find(',') == std::string::npos ? " is the other)"
                                                                                              : " are the others)")) +
                     ", of which the GPU may use " + gib_text(h.memory) + " by default (" + share_text(o.gpu_share) +
                     ", " + h.gpu_memory_share_basis + ")";
  h.alias_note = note;
  if (renamed) h.name = typed;
  return h;
}

// "apple-m3-max-40c": the bare preset named by its own GPU core count (the bare name is the largest
// GPU; the smaller ones have presets of their own, "apple-m3-max-30c"). The preset's name, or nothing.
std::optional<std::string> full_variant(const std::string& typed) {
  const std::size_t dash = typed.rfind('-');
  if (dash == std::string::npos || typed.size() < dash + 3 || typed.back() != 'c') return std::nullopt;
  const std::string digits = typed.substr(dash + 1, typed.size() - dash - 2);
  if (digits.size() > 3 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const std::string preset = typed.substr(0, dash);
  for (const auto& p : hardware_preset_texts())
    if (p.name == preset) {
      const HardwareSpec h = load_preset(p);
      if (h.gpu_cores && format_plain_number(*h.gpu_cores) == digits) return preset;
    }
  return std::nullopt;
}

// "apple-m2-ultra-192gb": a preset with memory configurations and a size it was sold with.
std::optional<HardwareSpec> load_sized(const std::string& arg, const std::string& typed) {
  const std::size_t dash = typed.rfind('-');
  if (dash == std::string::npos || typed.size() < dash + 4 || !typed.ends_with("gb")) return std::nullopt;
  const std::string digits = typed.substr(dash + 1, typed.size() - dash - 3);
  if (digits.empty() || digits.size() > 6 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  std::string named = typed.substr(0, dash);
  if (const Alias* a = alias_of(named)) named = std::string(a->preset);  // "strix-halo-128gb"
  const std::string preset = full_variant(named).value_or(named);
  for (const auto& p : hardware_preset_texts()) {
    if (p.name != preset) continue;
    HardwareSpec h = load_preset(p);
    std::string sold;
    for (const auto& o : h.memory_options) sold += (sold.empty() ? "" : ", ") + whole_gib(o.physical) + "gb";
    if (h.memory_options.empty())
      throw InputError("--hw", arg, "a preset name: " + preset + " has one memory size (" + gib_text(h.memory_advertised) +
                                         "); a -<N>gb suffix picks among the sizes a unified-memory chip was sold "
                                         "with (Apple silicon, DGX Spark, Strix Halo)");
    for (std::size_t i = 0; i < h.memory_options.size(); ++i)
      if (whole_gib(h.memory_options[i].physical) == digits) return with_configuration(h, i, arg, preset, true, true);
    // A smaller-GPU variant may have been sold with that size (the 96 GB M3 Max is the 30-core one).
    std::string sibling;
    for (const auto& v : hardware_preset_texts()) {
      if (!v.name.starts_with(preset + "-") || v.name.size() < preset.size() + 3 || v.name.back() != 'c') continue;
      const std::string_view cores = v.name.substr(preset.size() + 1, v.name.size() - preset.size() - 2);
      if (!std::all_of(cores.begin(), cores.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
      const HardwareSpec vh = load_preset(v);
      for (const auto& o : vh.memory_options)
        if (whole_gib(o.physical) == digits) sibling = sized_name(v.name, o);
    }
    throw InputError("--hw", arg, "a size " + preset + " was sold with: " + sold +
                                      (sibling.empty() ? "" : " (" + sibling + " is the smaller GPU with that size)"));
  }
  return std::nullopt;
}

}  // namespace

HardwareSpec load_hardware(const std::string& arg) {
  auto configured = [&](HardwareSpec h) {
    return h.memory_options.empty() ? h : with_configuration(h, 0, arg, h.name, false, false);
  };
  for (const auto& p : hardware_preset_texts())
    if (p.name == arg) return configured(load_preset(p));
  const FileStatus status = file_status(arg);
  if (status.kind == FileKind::regular)
    return configured(from_json(read_json_file(arg, "a hardware JSON", ""), arg, arg));
  if (status.kind != FileKind::missing && status.kind != FileKind::directory)
    throw InputError(arg + ": " + describe(status) + "; expected a hardware preset (napkin presets hardware) or "
                                                   "hardware JSON");
  // Preset names are matched without regard to case ("H100-SXM"), then the short names.
  const std::string typed = lower(arg);
  for (const auto& p : hardware_preset_texts())
    if (p.name == typed) return configured(load_preset(p));
  if (const Alias* a = alias_of(typed))
    for (const auto& p : hardware_preset_texts())
      if (p.name == a->preset) {
        HardwareSpec h = load_preset(p);
        if (!h.memory_options.empty()) {  // unified memory: the note states the size and the GPU's share
          h = with_configuration(h, 0, arg, std::string(a->preset), true, false);
          h.name = std::string(a->preset);
          return h;
        }
        h.alias_note = "--hw " + arg + " read as " + std::string(a->preset) + (a->note.empty() ? "" : ", ") +
                       std::string(a->note);
        return h;
      }
  if (const auto full = full_variant(typed))
    for (const auto& p : hardware_preset_texts())
      if (p.name == *full) return with_configuration(load_preset(p), 0, arg, *full, true, false);
  if (auto sized = load_sized(arg, typed)) return *sized;
  std::string msg = "unknown hardware preset '" + arg + "'";
  if (const auto best = suggest_hardware(typed)) msg += "; did you mean '" + *best + "'?";
  msg += " (napkin presets hardware)";
  throw InputError(msg);
}

std::vector<std::string> hardware_alias_names() {
  std::vector<std::string> names;
  for (const Alias& a : kAliases) names.emplace_back(a.typed);
  return names;
}

std::vector<std::string> hardware_sized_names() {
  std::vector<std::string> names;
  for (const auto& p : hardware_preset_texts()) {
    const HardwareSpec h = load_preset(p);
    for (const auto& o : h.memory_options) names.push_back(sized_name(p.name, o));
  }
  return names;
}

}  // namespace napkin::specs
