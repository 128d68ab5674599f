// napkin presets models: the bundled model presets with their repository and parameter counts.
#include <cstdio>
#include <memory>
#include <vector>

#include "assumption_flags.h"
#include "command.h"
#include "expect.h"
#include "safe_output.h"
#include "napkin/ground/error.h"
#include "napkin/model/params.h"
#include "napkin/specs/hardware.h"
#include "napkin/specs/systems.h"
#include "napkin/specs/presets.h"
#include "output_flags.h"

namespace napkin::cli {

namespace {

struct PresetsCmd {
  OutputOptions out;
};

// A preset list's output options: a sweep of one row per preset, in the format asked for.
report::RenderOptions list_options(const PresetsCmd& c) {
  if (!c.out.plot.empty()) throw InputError("--plot", c.out.plot, "a command with a chart (presets print a list)");
  report::RenderOptions ropt;
  ropt.format = output_format(c.out);
  ropt.value_key = c.out.value;
  ropt.colour = ropt.format == report::Format::table && use_colour(1);
  ropt.sweep = true;
  return ropt;
}

// One preset's row: its assumptions' flags, --expect and --value checked, rendered.
void emit_row(ResultSet& rs, const PresetsCmd& c, Expectations& expect, report::Renderer& renderer) {
  for (auto& a : rs.assumptions) a.flag = flag_for_assumption(a.key);
  expect.validate(rs);
  check_value_key(rs, c.out.value);
  renderer.row(rs);
  expect.check(rs, rs.inputs.front().value.str);
}

// napkin presets hardware: each accelerator with the figures the calculators use.
int run_presets_hardware(const PresetsCmd& c) {
  report::RenderOptions ropt = list_options(c);
  ropt.swept = {"hardware"};
  std::vector<specs::HardwareSpec> hw;
  for (const auto& name : specs::hardware_preset_names()) hw.push_back(specs::load_hardware(name));
  auto renderer = report::make_renderer(ropt, stdout);
  Expectations expect(c.out.expect);
  ResultSet rs;
  for (const auto& h : hw) {
    rs.clear();
    rs.command = "presets hardware";
    rs.input("hardware", verdict(h.name));
    if (h.is_class) {  // --hw cpu: a class of devices, no figures of its own
      rs.item("memory", "memory per device (usable)", no_value("—", dim_rt<Bytes::dim>()), "a class: --gpu-memory",
              text(""));
      rs.item("bandwidth", "memory bandwidth", no_value("—", dim_rt<Bandwidth::dim>()), "a class: --bandwidth",
              text(""));
    } else {
      rs.item("memory", "memory per device (usable)", value(h.memory), "driver-reported total where known, else the "
              "datasheet capacity", text("{}", h.memory));
      rs.item("bandwidth", "memory bandwidth", value(h.bandwidth), "datasheet peak", text("{}", h.bandwidth));
    }
    if (h.bf16)
      rs.item("peak_bf16", "dense bf16 peak", value(*h.bf16), "datasheet, dense", text("{}", *h.bf16));
    else
      rs.item("peak_bf16", "dense bf16 peak", no_value("—", dim_rt<FlopRate::dim>()), "not published",
              text(""));
    if (h.fp8)
      rs.item("peak_fp8", "dense fp8 peak", value(*h.fp8), "datasheet, dense", text("{}", *h.fp8));
    else
      rs.item("peak_fp8", "dense fp8 peak", no_value("—", dim_rt<FlopRate::dim>()),
              "not published or not supported", text(""));
    rs.assume("hardware_source", text("dense peaks (sparse datasheet figures halved), memory as the driver reports "
                                      "it (after ECC/firmware reservations) where known, peak bandwidth; — (null in "
                                      "JSON) where no dense figure is published for the type; each preset's sources "
                                      "are in data/presets/hardware/<name>.json"));
    emit_row(rs, c, expect, *renderer);
  }
  renderer->finish();
  return 0;
}

int run_presets_models(const PresetsCmd& c) {
  report::RenderOptions ropt = list_options(c);
  ropt.swept = {"model", "repo"};
  // The ResultSets point into these, so every preset stays loaded until the output is done.
  std::vector<specs::ModelSpec> specs;
  std::vector<specs::PresetSource> sources;
  for (const auto& name : specs::model_preset_names()) {
    specs.push_back(specs::load_model_preset(name));
    sources.push_back(specs::model_preset_source(name));
  }
  auto renderer = report::make_renderer(ropt, stdout);
  Expectations expect(c.out.expect);
  ResultSet rs;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const specs::ModelSpec& m = specs[i];
    const ParamCount n = count_params(m);
    rs.clear();
    rs.command = "presets models";
    rs.input("model", verdict(m.name));
    rs.input("repo", verdict(m.repo));
    const Params total = static_cast<double>(n.total) * units::param;
    const Params active = static_cast<double>(n.active) * units::param;
    rs.item("total_params", "total parameters", value(total), "napkin params MODEL", text("{}", total));
    rs.item("active_params", "active per token", value(active), "napkin params MODEL", text("{}", active));
    const char* check = !sources[i].total_params ? "unverified" : (*sources[i].total_params == n.total ? "matches" : "differs");
    rs.item("checkpoint_total", "against the checkpoint's own total", verdict(check),
            "data/presets/models/<name>.json total_params", text("{}", check));
    rs.assume("presets_source",
              text("counts from napkin's formula over each preset's config.json; \"matches\" compares with the "
                   "checkpoint total written, with its source, in data/presets/models/<name>.json"));
    emit_row(rs, c, expect, *renderer);
  }
  renderer->finish();
  return 0;
}

// napkin presets systems: how each system's GPUs are joined, every bandwidth per direction.
int run_presets_systems(const PresetsCmd& c) {
  report::RenderOptions ropt = list_options(c);
  ropt.swept = {"system", "gpu"};
  std::vector<specs::SystemSpec> systems;
  for (const auto& name : specs::system_preset_names()) systems.push_back(specs::load_system(name));
  auto renderer = report::make_renderer(ropt, stdout);
  Expectations expect(c.out.expect);
  ResultSet rs;
  const auto measured = [&](const char* key, const char* label, const std::optional<Bandwidth>& b, const char* what) {
    if (b)
      rs.item(key, label, value(*b), what, text("{}", *b));
    else
      rs.item(key, label, no_value("—", dim_rt<Bandwidth::dim>()), "none published", text(""));
  };
  for (const auto& s : systems) {
    rs.clear();
    rs.command = "presets systems";
    rs.input("system", verdict(s.name));
    rs.input("gpu", verdict(s.gpu));
    rs.item("gpus_per_node", "GPUs per node", value(s.gpus_per_node), "the node (or tray) of one host", text(""));
    rs.item("scale_up_domain", "GPUs in one scale-up domain", value(s.scale_up_domain),
            "NVLink/NVSwitch, Infinity Fabric or ICI domain", text(""));
    rs.item("scale_up_per_gpu", "scale-up per GPU, each way", value(s.scale_up_per_gpu), "datasheet, per direction",
            text("{}", s.scale_up_per_gpu));
    rs.item("scale_out_per_gpu", "scale-out per GPU, each way", value(s.scale_out_per_gpu),
            "the node's compute NICs / GPUs, per direction", text("{} per node", s.scale_out_per_node));
    measured("measured_all_reduce", "nccl all-reduce busbw in a node", s.measured_scale_up_all_reduce,
             "nccl-tests, large messages");
    measured("measured_nic", "achieved per NIC across nodes", s.measured_scale_out_per_nic, "nccl-tests");
    rs.assume("systems_source", text("vendor figures per direction (NVLink's '900 GB/s' is 450 each way), compute NICs "
                                     "only; measured figures where nccl-tests runs are published; each figure's "
                                     "source is in data/presets/systems/<name>.json"));
    emit_row(rs, c, expect, *renderer);
  }
  renderer->finish();
  return 0;
}

}  // namespace

void add_presets_command(CLI::App& app, int& exit_code) {
  auto* presets = add_command(app, "presets", "Bundled presets");
  presets->require_subcommand(1);
  auto* models = presets->add_command("models", "Model presets: repository, total and active parameters");
  auto c = std::make_shared<PresetsCmd>();
  add_output_flags(models, c->out);
  models->footer("Example: napkin presets models\n         napkin presets models --csv");
  models->callback([c, &exit_code] { exit_code = run_presets_models(*c); });
  auto* hardware = presets->add_command("hardware", "Hardware presets: memory, bandwidth, dense peaks (--hw NAME)");
  auto h = std::make_shared<PresetsCmd>();
  add_output_flags(hardware, h->out);
  hardware->footer("Example: napkin presets hardware\n         napkin presets hardware --json");
  hardware->callback([h, &exit_code] { exit_code = run_presets_hardware(*h); });
  auto* systems = presets->add_command("systems", "System presets: how the GPUs of a node or rack are joined "
                                                  "(scale-up and scale-out links, per direction)");
  auto sy = std::make_shared<PresetsCmd>();
  add_output_flags(systems, sy->out);
  systems->footer("Example: napkin presets systems\n         napkin presets systems --json");
  systems->callback([sy, &exit_code] { exit_code = run_presets_systems(*sy); });
}

}  // namespace napkin::cli
