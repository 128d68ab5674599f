// See flag_checks.h.
#include "flag_checks.h"

#include <CLI/CLI.hpp>

#include <stdexcept>
#include <string>

#include "napkin/ground/error.h"

namespace napkin::cli {

std::string given_value(const CLI::Option* o) {
  const auto& r = o->results();
  if (r.empty() || o->get_expected_min() == 0) return "(given)";
  return r.front();
}

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

void reject_extras(CommandApp* sub) {
  CLI::App* root = sub;
  while (root->get_parent() != nullptr) root = root->get_parent();
  if (!root->remaining(true).empty()) throw CLI::ExtrasError(root->remaining(true));
}

}  // namespace napkin::cli
