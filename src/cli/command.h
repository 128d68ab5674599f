// What every CLI command shares: output-format flags, numeric flags that sweep, and the loop
// that runs a calculator once per combination and hands each ResultSet to the renderer.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/ground/dtype.h"
#include "napkin/ground/result.h"
#include "napkin/model/model_spec.h"
#include "napkin/report/render.h"
#include "napkin/specs/hardware.h"
#include "command_app.h"
#include "sweep.h"

namespace napkin::cli {

struct OutputOptions {
  bool json = false, jsonl = false, csv = false, explain = false;
  bool compact = false;  // --compact, with --jsonl only
  std::string plot, plot_y;  // --plot FILE.svg, --plot-y KEY (plot.h)
  std::vector<std::string> expect;  // --expect KEY=VALUE[±TOL] (expect.h)
  std::string digits;               // --digits N, as typed
  std::string value;                // --value KEY
  const CLI::Option* plot_option = nullptr;  // tells `--plot ''` (refused) from no --plot
};
void add_output_flags(CommandApp* sub, OutputOptions& o);
/// Throws InputError when more than one format flag is given, or --plot is given an empty name.
/// Applies --digits (report::set_display_digits) for the renderers.
report::Format output_format(const OutputOptions& o);

/// The numeric flags of one command, each parsed from its text only after CLI11 is done.
class NumericFlags {
 public:
  NumericFlags() { flags_.reserve(kMax); }
  /// Adds `--flag` to `sub`; returns its index for Point::get.
  std::size_t add(CommandApp* sub, std::string_view flag, std::string_view name, DimRt dim, Constraint c,
                  std::string_view help, std::string_view type_name, std::optional<double> fallback = {},
                  double plain_scale = 1.0);
  std::vector<NumericFlag>& flags() { return flags_; }
  const std::vector<NumericFlag>& flags() const { return flags_; }
  /// Marks given flags and returns their indices in command-line order.
  std::vector<std::size_t> resolve(CommandApp* sub);
  /// --max-rows N (added with the first numeric flag: every command that sweeps has it): the
  /// most rows a sweep may have, kDefaultMaxRows unless given. Throws InputError naming
  /// --max-rows for anything but a positive integer.
  double max_rows() const;

 private:
  static constexpr std::size_t kMax = 48;  // memory: 26 of its own, 10 of a made-up decoder
  std::vector<NumericFlag> flags_;
  std::vector<CLI::Option*> options_;
  std::string max_rows_;  // as typed
};

/// --hw NAME|FILE: a hardware preset or file whose datasheet figures fill the hardware flags the
/// user did not give (a flag given on the command line wins).
struct HardwareOption {
  std::string arg;
  std::optional<specs::HardwareSpec> spec;
  const CLI::Option* option = nullptr;  // --hw, to tell a typed value from NAPKIN_HW's
  /// True when arg came from the NAPKIN_HW environment variable (--hw not given).
  bool from_env() const { return option != nullptr && option->count() == 0 && !arg.empty(); }
  /// Loads the spec when --hw was given.
  void load();
  /// Sets `f`'s default from the spec (nothing when --hw is absent, the figure unknown or the preset a
  /// class of devices such as cpu, which has no figures of its own).
  void fill(NumericFlag& f, std::optional<double> base_value) const;
  /// For a class preset (--hw cpu), `flag` must be given: InputError naming it when `f` is empty
  /// ("a CPU preset has no memory bandwidth of its own"). Nothing for a part or without --hw.
  void require_given(const NumericFlag& f, std::string_view flag, std::string_view what) const;
  /// True when --hw names a part whose figures fill the flags (not absent, not a class such as cpu).
  bool has_figures() const { return spec && !spec->is_class; }
  /// States which hardware the figures came from (key "hardware", flag --hw).
  void assume(ResultSet& rs) const;
};
void add_hw_option(CommandApp* sub, HardwareOption& h);
/// --as FAMILY: read MODEL's config.json, whose model_type napkin does not know, by analogy.
void add_as_option(CommandApp* sub, std::string& as);
/// --pue, --price-per-kwh and --carbon-intensity, as energy and train take them (prices and
/// carbon per kWh of facility energy). Returns their indices in `nf`.
struct EnergyPriceFlags {
  std::size_t pue = 0, price_kwh = 0, carbon = 0;
};
EnergyPriceFlags add_energy_price_flags(CommandApp* sub, NumericFlags& nf);

/// What a flag needs to mean something: a model architecture (not a bare --params count), the
/// training ledger (--train) or the inference ledger (no --train). A flag given where its need is
/// not met is refused by name, never accepted and ignored.
enum FlagNeeds : unsigned { kNeedsArchitecture = 1, kNeedsTrain = 2, kNeedsInference = 4 };
struct FlagRule {
  const char* flag;
  unsigned needs;
};
/// Throws InputError for the first given flag (in `rules` order) whose needs are not met.
void check_flag_needs(CommandApp* sub, std::initializer_list<FlagRule> rules, bool architecture, bool train);

/// --zero's text (one stage, or one of a comparison's list): 0, 1, 2 or 3, else InputError
/// naming --zero.
int parse_zero_stage(const std::string& text);

/// Why a ledger row does not fit, in one line: the per-GPU total, the capacity, the shortfall
/// and the largest item ("per GPU 64.61 GB > capacity 24.00 GB (short by 40.61 GB); largest item:
/// activations 42.86 GB"). `rs` holds per_gpu and headroom.
std::string fit_failure(const ResultSet& rs);
/// The stderr line of a check the user asked for that failed (exit 1 follows):
/// "napkin: --require-fit failed: <why>".
void report_check_failure(std::string_view check, const std::string& why);

/// How a MODEL's weights are stored, for memory and serve: --weights-dtype when given, else the
/// checkpoint's declared quantization (quantization_config: its dtype, scale type and zero
/// points; its group becomes --group-size's default), else bf16. A declared method napkin does
/// not model prints a warning and stays bf16.
struct WeightStorage {
  Dtype dtype = Dtype::bf16;
  Dtype scale_dtype = Dtype::fp16;
  bool zero_points = false;
  bool declared = false;      // read from quantization_config
  bool experts_only = false;  // only the routed experts' matrices are quantized (MXFP4)
  // A quantized checkpoint in MODEL (a directory, or a checkpoint file with config.json beside
  // it): the bytes its tensors take, which replace the dtype arithmetic.
  std::optional<Bytes> stored;
  std::string stored_source, stored_detail;  // MODEL, and the dtypes read
  bool stored_fp8 = false;                   // the checkpoint's largest storage type is FP8
};
/// --weights-dtype when given (a GGUF type: the bytes llama-quantize would write for m, its types
/// per tensor as llama.cpp assigns them; --group-size, --zero-points and --quantize-all are refused
/// with it); else a quantized checkpoint's own bytes (specs::stored_weights of
/// MODEL: tensors below 16 bits, or any checkpoint of a config that declares quantization); else
/// the config's quantization_config; else bf16.
WeightStorage weight_storage(CommandApp* sub, const std::string& weights_dtype, const std::string& model_arg,
                             const specs::ModelSpec& m, NumericFlag& group);
/// --weights-dtype's value as a napkin dtype; a llama.cpp GGUF type (q4_k_m, iq4_xs, ...; see
/// gguf_quant.h) reads as bf16 here (the weights are then its stored bytes, weight_storage). Else
/// InputError naming --weights-dtype with both lists.
Dtype parse_weights_dtype(const std::string& text);
/// True when --weights-dtype names a llama.cpp GGUF type.
bool is_gguf_weights(const std::string& text);
/// A GGUF --weights-dtype where no architecture is known (--params, the made-up decoder): refused,
/// naming --weights-dtype (`what` says what was given instead of MODEL).
void refuse_gguf_weights(const std::string& text, std::string_view what);
/// The assumption naming a declared quantization (key declared_quantization).
void assume_declared_quantization(const specs::ModelSpec& m, ResultSet& rs);

/// The activation flags memory --train and train share: --dropout P, --no-dropout, --attention
/// flash|eager and --flash-attention, in group "Training". Returns --dropout's index in `nf`.
struct ActivationFlags {
  std::string attention;
  bool no_dropout = false, flash_attention = false;
};
std::size_t add_activation_flags(CommandApp* sub, NumericFlags& nf, ActivationFlags& a);

/// --attention flash|eager and its alias --flash-attention: true for fused attention (the
/// default). Throws InputError on another name or on --flash-attention with --attention eager.
bool parse_attention_flags(const std::string& attention, bool flash_attention_flag);
/// --dropout P and its alias --no-dropout: InputError when both are given.
void check_dropout_flags(const NumericFlag& dropout, bool no_dropout);

/// Throws InputError naming `f` when it has neither a value nor a default (e.g. from --hw).
void require_value(const NumericFlag& f, std::string_view what);

/// An FFN's tokens come from one place: --tokens, or --batch with --seq (B·T). Throws InputError
/// naming --tokens given beside --batch or --seq, or one of --batch and --seq without the other.
void check_tokens_or_batch_seq(const NumericFlag& tokens, const NumericFlag& batch, const NumericFlag& seq);

/// An unknown flag or word stops the command before it checks anything else (main reports it
/// with the closest name). run_sweep calls it; callbacks that validate first call it themselves.
void reject_extras(CommandApp* sub);

using Compute = std::function<void(const Point&, ResultSet&)>;

/// A string flag (or MODEL) that takes a comma list, each value one configuration of a
/// comparison: `napkin memory llama-3.1-8b,qwen2.5-7b --hw h100-sxm,l40s`.
struct ChoiceAxis {
  std::string name;    // the input it shows as ("model", "hw", "weights_dtype")
  std::string flag;    // for messages ("MODEL", "--hw")
  std::string* value;  // the command's string the flag is bound to
};

/// Runs `body` (a command's callback: it reads the strings `axes` point to and calls run_sweep)
/// once per combination of the axes' values, the first axis varying slowest, into one output:
/// every combination is validated first (nothing is printed if one fails), then each row carries
/// the combination's values as inputs. `reset` restores the command's state before each run. A
/// value that names an existing file or directory is never split. With one value per axis it is
/// just `body()`. Returns the largest exit code of the runs. A table of at most 6 rows with a
/// list compares them side by side (keys as rows) when that fits 100 columns.
int run_choices(const std::vector<ChoiceAxis>& axes, const OutputOptions& out, const std::function<void()>& reset,
                const std::function<int()>& body);

/// Parses the numeric flags, runs `compute` for each combination and renders. Returns the
/// exit code (0; checks the user asked for may return 1).
int run_sweep(CommandApp* sub, NumericFlags& nf, const OutputOptions& out, const Compute& compute);

/// The flag that changes an assumption, by the assumption's key ("" when no flag changes it).
/// Throws std::out_of_range for a key the table does not list.
std::string_view flag_for_assumption(std::string_view key);
/// Every key the table lists (for the test that checks the table covers every emitted key).
std::vector<std::string_view> assumption_keys();

/// Every command of the binary, as main builds them (the flag-walk test builds the same app).
void add_all_commands(CLI::App& app, int& exit_code);
/// Only the calculator command named `name` (flops, roofline, ..., train): a run that names one
/// builds the option tree of that one alone (the cold start). False, adding nothing, for any
/// other word: help, completions and man read the whole table (add_all_commands).
bool add_command_named(CLI::App& app, int& exit_code, std::string_view name);
/// True for the names add_command_named builds.
bool is_command_name(std::string_view name);

void add_flops_command(CLI::App& app, int& exit_code);
void add_roofline_command(CLI::App& app, int& exit_code);
void add_energy_command(CLI::App& app, int& exit_code);
void add_memory_command(CLI::App& app, int& exit_code);
void add_params_command(CLI::App& app, int& exit_code);
void add_presets_command(CLI::App& app, int& exit_code);
void add_kernel_command(CLI::App& app, int& exit_code);
void add_serve_command(CLI::App& app, int& exit_code);
void add_train_command(CLI::App& app, int& exit_code);

}  // namespace napkin::cli
