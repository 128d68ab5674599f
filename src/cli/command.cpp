#include "command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <utility>

#include "napkin/ground/error.h"
#include "napkin/ground/parse_quantity.h"
#include "napkin/model/gguf_quant.h"
#include "napkin/report/human_units.h"
#include "napkin/report/output.h"
#include "napkin/specs/checkpoint.h"
#include "napkin/specs/files.h"
#include "napkin/specs/hf_cache.h"
#include "napkin/specs/hf_config.h"
#include "completions.h"
#include "expect.h"
#include "model_arg.h"
#include "output.h"
#include "plot.h"

namespace napkin::cli {

void add_output_flags(CommandApp* sub, OutputOptions& o) {
  sub->add_flag("--json", o.json, "One JSON object (a JSON array for a sweep), values in base units")
      ->group("Output");
  sub->add_flag("--jsonl", o.jsonl, "One JSON object per line (sweeps stream)")->group("Output");
  sub->add_flag("--compact", o.compact, "With --jsonl: a header line (formulas, assumptions, keys) once, then "
                                        "each row's values only")
      ->group("Output");
  sub->add_flag("--csv", o.csv, "A header, then one row per result set, values in base units")
      ->group("Output");
  sub->add_flag("--explain", o.explain, "The derivation step by step, units first")->group("Output");
  o.plot_option = sub->add_option("--plot", o.plot, "Also write a chart as SVG: the roofline, the memory ledger per GPU, or a "
                                   "sweep's first swept flag against --plot-y")
      ->type_name("FILE.svg")
      ->group("Output");
  sub->add_option("--plot-y", o.plot_y, "The result key a sweep's chart shows (default per command: per_gpu, "
                                       "flops, wave_efficiency, ...)")
      ->type_name("KEY")
      ->group("Output");
  sub->add_option("--expect", o.expect, "Check a result: exit 1 when KEY differs from VALUE by more than TOL "
                                        "(default: the precision VALUE is written with), e.g. flops=137.4GFLOP, "
                                        "per_gpu=40GiB±5%, bound=compute; repeatable")
      ->type_name("KEY=VALUE[±TOL]")
      ->allow_extra_args(false)  // one value per --expect: a MODEL after it stays MODEL
      ->group("Checks");
  sub->add_option("--value", o.value, "Print only KEY's value, bare and in base units, one line per row (for "
                                      "shell scripts: $(napkin memory MODEL --value per_gpu))")
      ->type_name("KEY")
      ->group("Output");
  sub->add_option("--digits", o.digits, "Significant digits of the figures in the table and --explain, formulas "
                                        "included (default: 2 decimals or 3-4 digits; integers are always exact)")
      ->type_name("N")
      ->group("Output");
}

report::Format output_format(const OutputOptions& o) {
  const int n = int(o.json) + int(o.jsonl) + int(o.csv) + int(o.explain) + int(!o.value.empty());
  if (n > 1) throw InputError("--json/--jsonl/--csv/--explain/--value", "(several)", "at most one output format");
  if (o.compact && !o.jsonl)
    throw InputError("--compact", "(given)", "--jsonl with it (the compact form is JSON lines: a header, then values)");
  if (o.plot.empty() && o.plot_option != nullptr && o.plot_option->count() > 0)
    throw InputError("--plot", "", "a file name (FILE.svg)");
  if (!o.plot_y.empty() && o.plot.empty())
    throw InputError("--plot-y", o.plot_y, "--plot FILE.svg with it (the key a chart shows)");
  int digits = 0;
  if (!o.digits.empty()) {
    const auto& d = o.digits;
    if (d.size() > 2 || !std::all_of(d.begin(), d.end(), [](char ch) { return ch >= '0' && ch <= '9'; }) ||
        std::stoi(d) < 1 || std::stoi(d) > 17)
      throw InputError("--digits", d, "a whole number of significant digits from 1 to 17");
    digits = std::stoi(d);
    if (o.json || o.jsonl || o.csv)
      throw InputError("--digits", d, "the table or --explain with it (JSON and CSV carry every value exactly)");
  }
  report::set_display_digits(digits);
  if (!o.value.empty()) {
    if (!o.digits.empty()) throw InputError("--digits", o.digits, "the table or --explain with it (--value prints base units)");
    return report::Format::value;
  }
  if (o.json) return report::Format::json;
  if (o.jsonl) return o.compact ? report::Format::jsonl_compact : report::Format::jsonl;
  if (o.csv) return report::Format::csv;
  if (o.explain) return report::Format::explain;
  return report::Format::table;
}

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
  else if (spec && spec->gpu_memory_share)  // Apple silicon: the alias note states the size and the share
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

namespace {

// The calculator commands, in the order of the help: add_all_commands adds them all,
// add_command_named the one typed.
using AddCommand = void (*)(CLI::App&, int&);
constexpr std::pair<std::string_view, AddCommand> kCommands[] = {
    {"flops", add_flops_command},   {"roofline", add_roofline_command}, {"energy", add_energy_command},
    {"memory", add_memory_command}, {"params", add_params_command},     {"presets", add_presets_command},
    {"kernel", add_kernel_command}, {"serve", add_serve_command},       {"train", add_train_command}};

}  // namespace

void add_all_commands(CLI::App& app, int& exit_code) {
  for (const auto& [name, add] : kCommands) add(app, exit_code);
  // Generated from the commands above (completions.h): keep them last.
  add_help_command(app, exit_code);
  add_completions_command(app, exit_code);
  add_man_command(app, exit_code);
}

namespace {

AddCommand command_named(std::string_view name) {
  for (const auto& [n, add] : kCommands)
    if (n == name) return add;
  return nullptr;
}

}  // namespace

bool is_command_name(std::string_view name) { return command_named(name) != nullptr; }

bool add_command_named(CLI::App& app, int& exit_code, std::string_view name) {
  const AddCommand add = command_named(name);
  if (add != nullptr) add(app, exit_code);
  return add != nullptr;
}

void add_as_option(CommandApp* sub, std::string& as) {
  // The families' list is built only where the option is (help, or --as typed).
  sub->add_option("--as", as,
                  sub->adds("--as") ? "Read a config.json whose model_type napkin does not know by analogy with "
                                      "FAMILY (" + specs::family_names() +
                                          "); the count is then not exact, and every run says so on stderr"
                                    : std::string())
      ->type_name("FAMILY")
      ->group("Model");
}

EnergyPriceFlags add_energy_price_flags(CommandApp* sub, NumericFlags& nf) {
  constexpr double kPerKwh = 1.0 / 3.6e6;  // a plain number per kWh, in per-joule base units
  EnergyPriceFlags e;
  e.pue = nf.add(sub, "--pue", "pue", dim_rt<Count::dim>(), Constraint::pue,
                 "Power usage effectiveness: facility / IT energy (default 1)", "RATIO", 1.0);
  e.price_kwh = nf.add(sub, "--price-per-kwh", "price_per_kwh", dim_rt<UsdPerJoule::dim>(), Constraint::non_negative,
                       "Electricity price in USD/kWh, applied to facility energy", "USD/kWh", std::nullopt, kPerKwh);
  e.carbon = nf.add(sub, "--carbon-intensity", "carbon_intensity", dim_rt<Co2PerJoule::dim>(), Constraint::non_negative,
                    "Grid carbon intensity, with its unit: 400gCO2e/kWh or 0.4kgCO2e/kWh (a bare number "
                    "other than 0 is refused)", "gCO2e/kWh", std::nullopt, kPerKwh);
  return e;
}

namespace {

// The value as typed, for messages ("(given)" for a flag without a value).
std::string given_value(const CLI::Option* o) {
  const auto& r = o->results();
  if (r.empty() || o->get_expected_min() == 0) return "(given)";
  return r.front();
}

}  // namespace

void check_flag_needs(CommandApp* sub, std::initializer_list<FlagRule> rules, bool architecture, bool train) {
  for (const FlagRule& r : rules) {
    const CLI::Option* o = sub->get_option_no_throw(r.flag);
    if (o == nullptr) throw std::logic_error(std::string("flag rule for an unknown flag ") + r.flag);
    if (o->count() == 0) continue;
    const std::string flag = r.flag, v = given_value(o);
    const std::string shown = v == "(given)" ? flag : flag + " " + v;
    if ((r.needs & kNeedsArchitecture) && !architecture)
      throw InputError(shown + " needs a model architecture (a preset, config.json or checkpoint); --params gives "
                               "only a count");
    if ((r.needs & kNeedsTrain) && !train)
      throw InputError(shown + " is a training-ledger option; expected --train with it");
    if ((r.needs & kNeedsInference) && train)
      throw InputError(shown + " is an inference-ledger option, not used by --train; expected it without --train");
  }
}

std::string fit_failure(const ResultSet& rs) {
  const Item* per = rs.find("per_gpu");
  const Item* head = rs.find("headroom");
  if (per == nullptr || head == nullptr) return "the ledger does not fit";
  const DimRt b = per->value.dim;
  const Item* largest = nullptr;
  for (const Item& it : rs.items) {
    if (it.is_total) break;
    if (it.value.kind == Value::Kind::number && it.value.dim == b && (largest == nullptr || it.value.num > largest->value.num))
      largest = &it;
  }
  std::string s = "per GPU " + report::compact(per->value.num, b) + " > capacity " +
                  report::compact(per->value.num + head->value.num, b) + " (short by " +
                  report::compact(-head->value.num, b) + ")";
  if (largest != nullptr)
    s += "; largest item: " + std::string(largest->key) + " " + report::compact(largest->value.num, b);
  return s;
}

int parse_zero_stage(const std::string& text) {
  if (text.size() != 1 || text[0] < '0' || text[0] > '3') throw InputError("--zero", text, "a ZeRO stage 0, 1, 2 or 3");
  return text[0] - '0';
}

void report_check_failure(std::string_view check, const std::string& why) {
  std::fflush(stdout);  // unchecked: main checks stdout once more before it exits
  print_stderr(fmt::format("napkin: {} failed: {}\n", check, why));
}

namespace {

// The checkpoint MODEL names beside its config: a model directory, or a checkpoint file.
// A repository id is its snapshot in the Hugging Face cache, when one is there.
std::optional<specs::StoredWeights> checkpoint_in(const std::string& model_arg) {
  const specs::FileStatus status = specs::file_status(model_arg);
  if (status.kind == specs::FileKind::directory ||
      (status.kind == specs::FileKind::regular && is_checkpoint_path(model_arg)))
    return specs::stored_weights(model_arg);
  if (status.kind == specs::FileKind::missing)
    if (const auto ref = specs::parse_repo_id(model_arg))
      if (const auto found = specs::find_in_hub_cache(*ref, specs::HubEnv::from_environment()); found.snapshot)
        return specs::stored_weights(*found.snapshot);
  return std::nullopt;
}

}  // namespace

Dtype parse_weights_dtype(const std::string& text) {
  if (is_gguf_weights(text)) return Dtype::bf16;
  try {
    return parse_dtype(text, "--weights-dtype");
  } catch (const InputError& e) {
    throw InputError("--weights-dtype", text, e.expected() + ", or a llama.cpp GGUF type: " + gguf_file_type_names());
  }
}

bool is_gguf_weights(const std::string& text) { return gguf_file_type(text).has_value(); }

void refuse_gguf_weights(const std::string& text, std::string_view what) {
  if (is_gguf_weights(text))
    throw InputError("--weights-dtype", text,
                     fmt::format("MODEL (a preset or config.json) with a GGUF type: llama-quantize's per-tensor types "
                                 "need the model's tensors, which {} does not name",
                                 what));
}

namespace {

// --weights-dtype as a llama-quantize file type: the bytes of the GGUF it would write.
WeightStorage gguf_storage(CommandApp* sub, const std::string& weights_dtype, const specs::ModelSpec& m,
                           const NumericFlag& group) {
  const GgufFileType t = *gguf_file_type(weights_dtype);
  const std::string expected = "no {} with --weights-dtype " + weights_dtype +
                               " (a GGUF type: llama-quantize's blocks carry their own scales, and it quantizes "
                               "what llama.cpp's rules say)";
  if (!group.raw.empty()) throw InputError("--group-size", group.raw, fmt::format(fmt::runtime(expected), "--group-size"));
  for (const char* flag : {"--zero-points", "--quantize-all"})
    if (const CLI::Option* o = sub->get_option_no_throw(flag); o != nullptr && o->count() > 0)
      throw InputError(flag, "(given)", fmt::format(fmt::runtime(expected), flag));
  const GgufQuantMix mix = gguf_quant_mix(m, t);
  WeightStorage w;
  w.dtype = Dtype::bf16;  // the matmuls dequantize to 16 bits
  w.stored = static_cast<double>(mix.bytes) * units::byte;
  const char* imatrix = mix.imatrix                     ? " with an importance matrix, which this type needs"
                        : gguf_imatrix_changes_mix(t) ? " without an importance matrix, its default"
                                                      : "";
  w.stored_source = fmt::format("llama.cpp {} (llama-quantize's per-tensor types{}; llama.cpp {}; GGUF metadata "
                                "not counted)",
                                gguf_file_type_name(t), imatrix, kLlamaCppQuantCommit.substr(0, 12));
  w.stored_detail = mix.detail();
  return w;
}

}  // namespace

WeightStorage weight_storage(CommandApp* sub, const std::string& weights_dtype, const std::string& model_arg,
                             const specs::ModelSpec& m, NumericFlag& group) {
  WeightStorage w;
  if (sub->get_option("--weights-dtype")->count() > 0 && is_gguf_weights(weights_dtype))
    return gguf_storage(sub, weights_dtype, m, group);
  w.dtype = parse_weights_dtype(weights_dtype);
  if (sub->get_option("--weights-dtype")->count() > 0) return w;
  // A bf16 or fp32 checkpoint is served in bf16, as without one; a quantized one as it is stored.
  // A GGUF's tensors are what llama.cpp loads: always their bytes, whatever their types.
  if (const auto stored = checkpoint_in(model_arg);
      stored && (stored->quantized || !m.quant_method.empty() || stored->format == "gguf")) {
    w.stored = static_cast<double>(stored->bytes) * units::byte;
    w.stored_source = model_arg;
    w.stored_detail = stored->detail;
    w.stored_fp8 = stored->main_dtype.starts_with("F8_");
    return w;
  }
  if (m.quant_method.empty()) return w;
  if (m.quant_dtype.empty()) {
    print_warning(m.quant_note + " (quantization_config): the weights are counted in bf16; give --weights-dtype "
                                 "for their storage");
    return w;
  }
  w.dtype = parse_dtype(m.quant_dtype, "quantization_config");
  w.scale_dtype = parse_dtype(m.quant_scale_dtype, "quantization_config");
  if (group.raw.empty()) {
    group.fallback = static_cast<double>(m.quant_group);
    w.zero_points = m.quant_zero_points;
  }
  w.experts_only = m.quant_experts_only;
  w.declared = true;
  return w;
}

void assume_declared_quantization(const specs::ModelSpec& m, ResultSet& rs) {
  rs.assume("declared_quantization", text("weights stored as the checkpoint's quantization_config declares: {}",
                                          std::string_view(m.quant_note)));
}

std::size_t add_activation_flags(CommandApp* sub, NumericFlags& nf, ActivationFlags& a) {
  const std::size_t dropout =
      nf.add(sub, "--dropout", "dropout", dim_rt<Count::dim>(), Constraint::non_negative,
             "Dropout probability in training (default: the model config's attention_dropout and hidden dropout; 0 "
             "when it has none); any p > 0 stores Korthikanti's masks",
             "P");
  sub->get_option("--dropout")->group("Training");
  sub->add_flag("--no-dropout", a.no_dropout, "Same as --dropout 0")->group("Training");
  sub->add_option("--attention", a.attention, "Training attention kernel: flash (default: fused, scores never stored) "
                                              "or eager (stores the a·s/h scores, Korthikanti 2022)")
      ->type_name("flash|eager")
      ->group("Training");
  sub->add_flag("--flash-attention", a.flash_attention, "Same as --attention flash (the default)")->group("Training");
  return dropout;
}

bool parse_attention_flags(const std::string& attention, bool flash_attention_flag) {
  if (attention.empty() || attention == "flash") return true;
  if (attention != "eager") throw InputError("--attention", attention, "flash or eager");
  if (flash_attention_flag)
    throw InputError("--flash-attention", "(with --attention eager)", "one attention kernel (it means --attention flash)");
  return false;
}

void check_dropout_flags(const NumericFlag& dropout, bool no_dropout) {
  if (no_dropout && !dropout.raw.empty())
    throw InputError("--no-dropout", "(with --dropout " + dropout.raw + ")", "one of them (it means --dropout 0)");
}

void require_value(const NumericFlag& f, std::string_view what) {
  if (f.raw.empty() && !f.fallback)
    throw InputError(f.flag, "(missing)", std::string(what) + " (or --hw with a hardware preset)");
}

void check_tokens_or_batch_seq(const NumericFlag& tokens, const NumericFlag& batch, const NumericFlag& seq) {
  if (!tokens.raw.empty() && (!batch.raw.empty() || !seq.raw.empty()))
    throw InputError(tokens.flag, tokens.raw, "either --tokens or --batch with --seq, not both (tokens = B·T)");
  if (!batch.raw.empty() && seq.raw.empty())
    throw InputError(batch.flag, batch.raw, "--seq with --batch (tokens = B·T)");
  if (!seq.raw.empty() && batch.raw.empty())
    throw InputError(seq.flag, seq.raw, "--batch with --seq (tokens = B·T)");
}

namespace {

// A numeric flag given more than once is refused by name (CLI11 would say "At Most 1 required
// but received 2"); keeping the last value would silently drop the first.
[[noreturn]] void given_twice(const std::string& flag, const CLI::results_t& r) {
  std::string values, list;
  bool listable = true;
  for (const auto& v : r) {
    values += (values.empty() ? "'" : ", '") + v + "'";
    list += (list.empty() ? "" : ",") + v;
    listable = listable && v.find("..") == std::string::npos && !v.empty();
  }
  const std::string times = r.size() == 2 ? "twice" : std::to_string(r.size()) + " times";
  throw InputError(flag + ": given " + times + " (" + values + "); expected one value, or " +
                   (listable ? "a list " + list + " to sweep" : "one list or range to sweep"));
}

// A one-value option bound to `target`, refusing a repeat by name. Nothing is built for an
// option a run does not add (CommandApp::stand_in_for).
CLI::Option* add_single_option(CommandApp* sub, std::string_view names, std::string* target, std::string_view help) {
  if (CLI::Option* stand_in = sub->stand_in_for(names)) return stand_in;
  CLI::Option* opt = sub->add_option(
      std::string(names),
      [target, shown = std::string(names.substr(0, names.find(',')))](const CLI::results_t& r) {
        if (r.size() > 1) given_twice(shown, r);
        *target = r.empty() ? std::string() : r.front();
        return true;
      },
      std::string(help));
  opt->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);  // every value reaches the callback
  return opt;
}

}  // namespace

std::size_t NumericFlags::add(CommandApp* sub, std::string_view flag, std::string_view name, DimRt dim,
                              Constraint c, std::string_view help, std::string_view type_name,
                              std::optional<double> fallback, double plain_scale) {
  if (flags_.size() >= kMax) throw std::logic_error("too many numeric flags on one command");
  if (flags_.empty()) {
    // Every command that sweeps has numeric flags: the first one brings --max-rows.
    CLI::Option* max_rows = add_single_option(sub, "--max-rows", &max_rows_, "");
    if (sub->added(max_rows))
      max_rows->description(fmt::format("At most N rows in a sweep (default {:.0f}); a larger sweep is refused",
                                        kDefaultMaxRows))
          ->type_name("N")
          ->group("Output");
  }
  NumericFlag f;
  f.flag = flag.substr(0, flag.find(','));  // "--gpu-memory,--memory": messages use the first name
  f.name = name;
  f.dim = dim;
  f.constraint = c;
  f.plain_scale = plain_scale;
  f.fallback = fallback;
  flags_.push_back(std::move(f));
  // reserve() above keeps this pointer valid while flags are added.
  CLI::Option* opt = add_single_option(sub, flag, &flags_.back().raw, help);
  if (sub->added(opt)) opt->type_name(std::string(type_name));
  options_.push_back(opt);
  return flags_.size() - 1;
}

double NumericFlags::max_rows() const {
  if (max_rows_.empty()) return kDefaultMaxRows;
  NumericFlag f;
  f.flag = "--max-rows";
  f.dim = dim_rt<Count::dim>();
  f.constraint = Constraint::positive_integer;
  f.raw = max_rows_;
  const double n = parse_quantity(max_rows_, f.dim, f.flag);
  check_value(f, n, true);
  return n;
}

std::vector<std::size_t> NumericFlags::resolve(CommandApp* sub) {
  for (std::size_t i = 0; i < flags_.size(); ++i) flags_[i].given = options_[i]->count() > 0;
  std::vector<std::size_t> order;
  for (const CLI::Option* o : sub->parse_order()) {
    const auto it = std::find(options_.begin(), options_.end(), o);
    if (it == options_.end()) continue;
    const auto i = static_cast<std::size_t>(it - options_.begin());
    if (std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);
  }
  return order;
}

void reject_extras(CommandApp* sub) {
  CLI::App* root = sub;
  while (root->get_parent() != nullptr) root = root->get_parent();
  if (!root->remaining(true).empty()) throw CLI::ExtrasError(root->remaining(true));
}

namespace {

// Before a sweep prints anything: every value of every swept flag, the others at their first
// value, computed into a scratch result set and thrown away (Sweep::probe: the sum of the
// flags' value counts, not their product). A value that is wrong on its own (--tp 3 with 32
// heads, a result that overflows) stops the sweep here, with stdout empty. What only a
// combination of values gets wrong can still stop it midway: the error line follows what
// was printed, and exit 2 says the output is incomplete.
void probe_sweep(const Sweep& sweep, NumericFlags& nf, const Compute& compute, bool details) {
  if (sweep.rows() <= 1) return;  // the one row is computed before anything is printed
  ResultSet scratch;
  scratch.details = details;
  sweep.probe([&](const Point& p) {
    scratch.clear();
    compute(p, scratch);
    require_finite(scratch, nf.flags(), p);
  });
}

}  // namespace

namespace {

// The comparison run_choices is in (nullptr outside one): run_sweep validates into it while
// `probing`, then renders every combination's rows through its one renderer.
struct ChoiceSession {
  bool probing = true;
  std::vector<std::pair<std::string, std::string>> current;  // (input name, value) of this combination
  std::size_t rows = 0;                                      // numeric rows per combination
  std::vector<std::string> numeric_swept;
  std::vector<std::string> inputs, items;  // union over the combinations, first seen first
  report::Renderer* renderer = nullptr;
  std::set<std::string> warned;  // warning lines already printed (print_warning, warn_analogy)
};
ChoiceSession* g_choices = nullptr;

void add_unique(std::vector<std::string>& names, std::string_view name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
}

// The combination's values as inputs of a row that does not already echo them.
void add_choice_inputs(ResultSet& rs, const ChoiceSession& s) {
  for (const auto& [name, value] : s.current)
    if (rs.find_input(name) == nullptr) rs.input(name, verdict(value));
}

// Formulas, assumptions and notes are recorded only for the formats that show them.
bool details_needed(report::Format f) { return f != report::Format::csv && f != report::Format::value; }

// Which row a failed --expect is about: the comparison's configuration and the swept inputs.
std::string row_label(const ResultSet& rs, const std::string& configuration, const std::vector<std::string>& swept) {
  // "(a, b) " -> "a, b"
  std::string where = configuration.size() > 3 ? configuration.substr(1, configuration.size() - 3) : "";
  for (const auto& name : swept)
    if (const Input* in = rs.find_input(name)) {
      if (!where.empty()) where += ", ";
      where += name + "=" + report::human_value(in->value);
    }
  return where;
}

}  // namespace

int run_sweep(CommandApp* sub, NumericFlags& nf, const OutputOptions& out, const Compute& compute) {
  reject_extras(sub);
  const report::Format format = output_format(out);
  const std::vector<std::size_t> order = nf.resolve(sub);
  Sweep sweep(nf.flags(), order, nf.max_rows());
  if (g_choices != nullptr && g_choices->probing) {
    // Validating one combination of a comparison: every value of every swept flag (at least the
    // first row), and the names of what its rows hold.
    if (!out.plot.empty())
      throw InputError("--plot", out.plot, "a numeric sweep: a list of models, GPUs or dtypes is compared in the "
                                           "table, JSON or CSV, not charted");
    ResultSet scratch;
    scratch.details = details_needed(format);
    Expectations expect(out.expect);
    sweep.probe([&](const Point& p) {
      scratch.clear();
      compute(p, scratch);
      require_finite(scratch, nf.flags(), p);
      expect.validate(scratch);
      check_value_key(scratch, out.value);
      add_choice_inputs(scratch, *g_choices);
      for (const auto& in : scratch.inputs) add_unique(g_choices->inputs, in.name);
      for (const auto& it : scratch.items) add_unique(g_choices->items, it.key);
    });
    g_choices->rows = sweep.rows();
    g_choices->numeric_swept = sweep.swept_names();
    return 0;
  }
  probe_sweep(sweep, nf, compute, details_needed(format));
  std::unique_ptr<Plot> plot;  // checked before anything is printed
  if (!out.plot.empty()) plot = std::make_unique<Plot>(sub, out.plot, out.plot_y, nf.flags(), sweep);
  report::RenderOptions ropt;
  ropt.format = format;
  ropt.value_key = out.value;
  ropt.colour = format == report::Format::table && use_colour(1);
  ropt.sweep = sweep.rows() > 1;
  ropt.swept = sweep.swept_names();
  std::unique_ptr<report::Renderer> own;
  report::Renderer* renderer = g_choices != nullptr ? g_choices->renderer : nullptr;
  if (renderer == nullptr) {
    own = report::make_renderer(ropt, stdout);
    renderer = own.get();
  }
  const bool needs_flags = details_needed(format);
  // Warnings go to stderr, once per run: the flags' (plausibility.h) when the first row is
  // computed, so that an input error in it stays the only line; each result warning pattern
  // the first time a row has it. A failed stdout write (the renderer's, or the flush before a
  // warning) throws report::OutputError and stops the sweep at once; a failed stderr write is
  // ignored. In a comparison a line already printed for another configuration is not repeated
  // (set_warning_dedupe).
  // In a comparison each warning names the configuration it is about.
  std::string label;
  if (g_choices != nullptr)
    for (const auto& [name, value] : g_choices->current) label += (label.empty() ? "(" : ", ") + value;
  if (!label.empty()) label += ") ";
  const auto warn = [&label](const std::string& w) { print_warning(label + w); };
  bool first_row = true;
  std::set<const char*> warned;
  Expectations expect(out.expect);
  bool first_row_value = true;
  const std::vector<std::string> swept = sweep.swept_names();
  ResultSet rs;
  rs.details = details_needed(format);  // CSV and --value show neither formulas nor assumptions
  std::vector<std::pair<std::string, std::string_view>> flag_cache;  // (assumption key, its flag) by place
  sweep.run([&](const Point& p) {
    rs.clear();
    compute(p, rs);
    require_finite(rs, nf.flags(), p);  // NaN or infinite: an error naming the flags, never output
    if (g_choices != nullptr) add_choice_inputs(rs, *g_choices);
    if (needs_flags)
      for (std::size_t i = 0; i < rs.assumptions.size(); ++i) {
        // Rows state the same assumptions in the same order: the last row's key at this place
        // is checked first, then the table is scanned.
        Assumption& a = rs.assumptions[i];
        if (i < flag_cache.size() && flag_cache[i].first == a.key) {
          a.flag = flag_cache[i].second;
          continue;
        }
        a.flag = flag_for_assumption(a.key);
        if (i >= flag_cache.size()) flag_cache.resize(i + 1);
        flag_cache[i] = {std::string(a.key), a.flag};
      }
    if (first_row)
      for (const std::string& w : sweep.warnings()) warn(w);
    first_row = false;
    for (const auto& w : rs.warnings)
      if (warned.insert(w.pattern.data()).second) warn(report::expand(rs, w));
    if (plot) plot->add(p, rs);
    if (first_row_value) check_value_key(rs, out.value);  // before the first row is printed
    first_row_value = false;
    if (!expect.empty()) {
      expect.validate(rs);  // a key or unit error stops the run before its first row is printed
      renderer->row(rs);
      expect.check(rs, row_label(rs, label, swept));
    } else {
      renderer->row(rs);
    }
  });
  if (own) own->finish();  // checked: the output is written before the plot replaces its file
  if (plot) plot->finish();
  return 0;
}

namespace {

// A flag's comma list; a value naming an existing path is one value (a file may hold a comma).
std::vector<std::string> choice_values(const ChoiceAxis& a) {
  const std::string& text = *a.value;
  if (text.find(',') == std::string::npos || specs::file_status(text).kind != specs::FileKind::missing) return {text};
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(',', begin);
    std::string v = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    // The whole message here: MODEL is not a flag that main would spell "--MODEL".
    if (v.empty()) throw InputError(a.flag + ": '" + text + "': expected a comma list without empty entries");
    out.push_back(std::move(v));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return out;
}

// Clears the session on every way out of run_choices.
struct SessionGuard {
  explicit SessionGuard(ChoiceSession& s) {
    g_choices = &s;
    set_warning_dedupe(&s.warned);
  }
  ~SessionGuard() {
    g_choices = nullptr;
    set_warning_dedupe(nullptr);
  }
  SessionGuard(const SessionGuard&) = delete;
  SessionGuard& operator=(const SessionGuard&) = delete;
};

}  // namespace

int run_choices(const std::vector<ChoiceAxis>& axes, const OutputOptions& out, const std::function<void()>& reset,
                const std::function<int()>& body) {
  // Each configuration loads its model and hardware: a comparison is bounded, like a sweep.
  constexpr std::size_t kMaxConfigurations = 10000;
  std::vector<std::vector<std::string>> values;
  std::size_t combos = 1;
  for (const ChoiceAxis& a : axes) {
    values.push_back(choice_values(a));
    combos *= values.back().size();
    if (combos > kMaxConfigurations)
      throw InputError(a.flag + ": '" + *a.value + "': expected at most " + std::to_string(kMaxConfigurations) +
                       " configurations in one comparison (the lists' product)");
  }
  if (combos == 1) return body();
  const report::Format format = output_format(out);
  ChoiceSession session;
  SessionGuard guard(session);
  // Combination k: each axis's index, the first axis slowest.
  auto select = [&](std::size_t k) {
    reset();
    session.current.clear();
    for (std::size_t a = axes.size(); a-- > 0;) {
      const std::string& v = values[a][k % values[a].size()];
      k /= values[a].size();
      *axes[a].value = v;
      if (values[a].size() > 1) session.current.emplace_back(axes[a].name, v);
    }
    std::reverse(session.current.begin(), session.current.end());
  };
  // Every combination is validated before anything is printed.
  std::size_t rows = 0;
  for (std::size_t k = 0; k < combos; ++k) {
    select(k);
    body();
    rows += session.rows;
  }
  report::RenderOptions ropt;
  ropt.format = format;
  ropt.value_key = out.value;
  ropt.colour = format == report::Format::table && use_colour(1);
  ropt.sweep = true;
  for (const auto& [name, value] : session.current) ropt.swept.push_back(name);
  for (const auto& n : session.numeric_swept) ropt.swept.push_back(n);
  ropt.inputs = session.inputs;
  ropt.items = session.items;
  ropt.compare = format == report::Format::table && rows <= 6;
  auto renderer = report::make_renderer(ropt, stdout);
  session.renderer = renderer.get();
  session.probing = false;
  int code = 0;
  for (std::size_t k = 0; k < combos; ++k) {
    select(k);
    code = std::max(code, body());
  }
  renderer->finish();
  return code;
}

}  // namespace napkin::cli
