// The flags memory --train and train share for how activations and the loss are counted:
// --activation-accounting korthikanti|tensors, --loss full|fused|chunked and
// --distribute-saved-activations (napkin/memory/ledgers.h). Group "Training".
#pragma once

#include <string>

#include "command_app.h"
#include "napkin/memory/ledgers.h"

namespace napkin::cli {

struct TrainingMemoryFlags {
  std::string accounting;  // empty: korthikanti for GPT layers, tensors otherwise
  std::string loss = "full";
  bool distribute_saved = false;
};

void add_training_memory_flags(CommandApp* sub, TrainingMemoryFlags& f);
/// Parses the names (InputError naming the flag) into `in`.
void apply_training_memory_flags(const TrainingMemoryFlags& f, TrainingMemoryInput& in);

}  // namespace napkin::cli
