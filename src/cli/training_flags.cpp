// See training_flags.h.
#include "training_flags.h"

namespace napkin::cli {

void add_training_memory_flags(CommandApp* sub, TrainingMemoryFlags& f) {
  sub->add_option("--activation-accounting", f.accounting,
                  "How a layer's saved tensors are counted: korthikanti (Korthikanti et al. 2022's coefficients; the "
                  "default for GPT layers) or tensors (tensor by tensor at the layer's widths; the default otherwise)")
      ->type_name("korthikanti|tensors")
      ->group("Training");
  sub->add_option("--loss", f.loss,
                  "The loss at the last stage: full (default: cross_entropy on fp32-upcast logits, 12 B per logit), "
                  "fused (Megatron-LM's vocab-parallel cross entropy, 6 B) or chunked (8 chunks of tokens)")
      ->type_name("full|fused|chunked")
      ->group("Training");
  sub->add_flag("--distribute-saved-activations", f.distribute_saved,
                "Megatron-LM: split fully recomputed layers' inputs over the TP ranks (TP without sequence "
                "parallelism, with --recompute full or --recompute-layers)")
      ->group("Training");
}

void apply_training_memory_flags(const TrainingMemoryFlags& f, TrainingMemoryInput& in) {
  if (!f.accounting.empty()) in.accounting = parse_activation_accounting(f.accounting, "--activation-accounting");
  in.loss = parse_loss(f.loss, "--loss");
  in.distribute_saved_activations = f.distribute_saved;
}

}  // namespace napkin::cli
