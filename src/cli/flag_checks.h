// Refusals of flags before a command computes anything: an unknown flag or word, a flag given
// where it means nothing, a value missing, or flags given together that exclude each other.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "command_app.h"
#include "sweep.h"

namespace napkin::cli {

/// The value as typed, for messages: "(given)" for a switch (a flag without a value), which
/// InputError shows as no value at all (never CLI11's "true").
std::string given_value(const CLI::Option* o);

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

/// Throws InputError naming `f` when it has neither a value nor a default (e.g. from --hw).
void require_value(const NumericFlag& f, std::string_view what);

/// An FFN's tokens come from one place: --tokens, or --batch with --seq (B·T). Throws InputError
/// naming --tokens given beside --batch or --seq, or one of --batch and --seq without the other.
void check_tokens_or_batch_seq(const NumericFlag& tokens, const NumericFlag& batch, const NumericFlag& seq);

/// An unknown flag or word stops the command before it checks anything else (main reports it
/// with the closest name). run_sweep calls it; callbacks that validate first call it themselves.
void reject_extras(CommandApp* sub);

}  // namespace napkin::cli
