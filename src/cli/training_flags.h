// The flags memory --train and train share for how activations and the loss are counted:
// --activation-accounting korthikanti|tensors, --loss full|fused|chunked and
// --distribute-saved-activations (napkin/memory/ledgers.h); --dropout, --no-dropout, --attention
// and --flash-attention; and --zero's stage. Group "Training". And the layouts of published runs
// (group "Parallelism"): --first-stage-layers and --last-stage-layers (Megatron-LM's uneven
// pipeline, aliases --decoder-first-pipeline-num-layers and --decoder-last-pipeline-num-layers)
// and --etp (Megatron-Core's expert tensor parallelism, alias --expert-tensor-parallel-size).
// These take one whole number each, not a sweep list.
#pragma once

#include <cstddef>
#include <string>

#include "command_app.h"
#include "napkin/memory/ledgers.h"
#include "numeric_flags.h"
#include "sweep.h"

namespace napkin::cli {

struct TrainingMemoryFlags {
  std::string accounting;  // empty: korthikanti for GPT layers, tensors otherwise
  std::string loss = "full";
  bool distribute_saved = false;
  // As typed; empty: not given (ETP = TP; the balanced stage split).
  std::string etp, first_stage_layers, last_stage_layers;
};

void add_training_memory_flags(CommandApp* sub, TrainingMemoryFlags& f);
/// Parses the names (InputError naming the flag) into `in`.
void apply_training_memory_flags(const TrainingMemoryFlags& f, TrainingMemoryInput& in);

/// --zero's text (one stage, or one of a comparison's list): 0, 1, 2 or 3, else InputError
/// naming --zero.
int parse_zero_stage(const std::string& text);

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

}  // namespace napkin::cli
