// A made-up decoder by flags, wherever a MODEL is taken (params, memory, serve, train, flops
// train): --layers --hidden --heads --kv-heads --head-dim --ffn --vocab, --tied, --no-gated,
// --moe-experts --moe-top-k --moe-ffn, in the help group "Made-up model". The conventions are
// specs::made_up_decoder's (napkin/specs/made_up.h); each is stated as an assumption line naming
// the flag that changes it.
//
// The sizes are numeric flags of the command: each takes a count (4096, 4Ki, 128k), a list
// (--layers 32,40) or a range (--hidden 2048..8192:x2) and sweeps like any other, one row per
// combination; the spec is rebuilt for each combination (only when its shapes change).
//
// Exactly one model source: MODEL, or the made-up decoder, or (memory, train, flops train) a bare
// --params count. The command decides which flags select the made-up decoder: every one of them,
// except where a flag of the same name had a meaning before (train's --vocab: megatron's V;
// flops train's --layers and --vocab: the attention and head terms beside --params or MODEL).
//
// Also --as FAMILY (add_as_option, group "Model"): how MODEL's config.json is read when napkin
// does not know its model_type (select refuses it beside the made-up decoder).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "command_app.h"
#include "napkin/ground/result.h"
#include "napkin/model/model_spec.h"
#include "napkin/specs/made_up.h"
#include "numeric_flags.h"
#include "sweep.h"

namespace napkin::cli {

class MadeUpModelFlags {
 public:
  /// Adds the flags to `sub`. `layers` and `vocab`: the index in `nf` of a --layers / --vocab the
  /// command already has (flops train; train's --vocab), which the made-up decoder reads instead
  /// of adding its own.
  void add(CommandApp* sub, NumericFlags& nf, std::optional<std::size_t> layers = {},
           std::optional<std::size_t> vocab = {});

  /// The first flag of the made-up decoder given ("" when none), in the order of the help,
  /// leaving out those in `except` (flags whose meaning stays the command's own).
  std::string first_given(std::initializer_list<std::string_view> except = {}) const;
  /// The flag as typed for a message: "--layers 32", or "--tied".
  std::string shown(const NumericFlags& nf, std::string_view flag) const;

  /// MODEL (or another model source, `other`, such as "--params 8B") together with the flag
  /// `flag` of the made-up decoder: InputError naming the flag.
  [[noreturn]] void refuse_with(const NumericFlags& nf, std::string_view flag, const std::string& other) const;

  /// Which model source a command runs on: the first flag of the made-up decoder given (as
  /// first_given), "" when none. With one, a model given another way is refused naming that flag
  /// (MODEL when `model` is not empty, then `other`, such as "--params 8B", when not empty), and
  /// check(as) runs. Whether a command without any model source is an error is the caller's.
  std::string select(const NumericFlags& nf, const std::string& model, const std::string& as,
                     std::initializer_list<std::string_view> except = {}, const std::string& other = {}) const;

  /// The check before a sweep: --as is refused (it reads a config file). Which flags are there and
  /// their values are checked for each row by build (specs::made_up_decoder), before any row is
  /// printed (run_sweep's probe).
  void check(const std::string& as) const;

  /// The decoder at sweep point `p` into `spec`; false when `spec` already holds it (the same
  /// shapes as the last call), true when it was rebuilt (then a caller recounts what it derives).
  bool build(const Point& p, specs::ModelSpec& spec);

  /// The assumption lines of the decoder's conventions (each with the flag that changes it), and
  /// the value of every swept size as an input of the row.
  void describe(const NumericFlags& nf, const Point& p, ResultSet& rs) const;

 private:
  specs::DecoderShape shape_at(const Point& p) const;
  CommandApp* sub_ = nullptr;
  std::size_t layers_ = 0, hidden_ = 0, heads_ = 0, kv_heads_ = 0, head_dim_ = 0, ffn_ = 0, vocab_ = 0,
              moe_experts_ = 0, moe_top_k_ = 0, moe_ffn_ = 0;
  bool tied_ = false, no_gated_ = false;
  std::optional<specs::DecoderShape> built_;  // the shapes `spec` holds after build
};

/// --as FAMILY: read MODEL's config.json, whose model_type napkin does not know, by analogy.
void add_as_option(CommandApp* sub, std::string& as, bool& text_only);

/// The hint of "give MODEL or ..." messages.
inline constexpr std::string_view kMadeUpHint = "a made-up decoder (--layers --hidden --heads --ffn --vocab)";

}  // namespace napkin::cli
