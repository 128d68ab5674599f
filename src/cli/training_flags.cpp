// See training_flags.h.
#include "training_flags.h"

#include <optional>

#include "napkin/ground/error.h"

namespace napkin::cli {

namespace {

// One whole number ≥ 1 as typed ("7"); InputError naming the flag otherwise (a sweep list too).
std::optional<Count> positive_count(const std::string& text, const char* flag) {
  if (text.empty()) return std::nullopt;
  bool digits = text.size() <= 9;
  for (const char ch : text) digits = digits && ch >= '0' && ch <= '9';
  if (!digits || std::stoll(text) < 1)
    throw InputError(flag, text, "a positive integer (one value: this flag takes no sweep list)");
  return static_cast<double>(std::stoll(text)) * units::one;
}

}  // namespace

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
  sub->add_option("--first-stage-layers,--decoder-first-pipeline-num-layers", f.first_stage_layers,
                  "Layers on the first pipeline stage, the rest split evenly over the stages after it (Megatron-LM's "
                  "uneven pipeline; Llama 3 405B: 7 of 126 at --pp 16, with --last-stage-layers 7)")
      ->type_name("N")
      ->group("Parallelism");
  sub->add_option("--last-stage-layers,--decoder-last-pipeline-num-layers", f.last_stage_layers,
                  "Layers on the last pipeline stage, the rest split evenly over the stages before it")
      ->type_name("N")
      ->group("Parallelism");
  sub->add_option("--etp,--expert-tensor-parallel-size", f.etp,
                  "Expert tensor parallelism: ranks each routed expert's matrices split over (default: --tp); the "
                  "--ep × --etp expert ranks are laid over the tp·cp·dp ranks, which they must divide")
      ->type_name("N")
      ->group("Parallelism");
}

void apply_training_memory_flags(const TrainingMemoryFlags& f, TrainingMemoryInput& in) {
  if (!f.accounting.empty()) in.accounting = parse_activation_accounting(f.accounting, "--activation-accounting");
  in.loss = parse_loss(f.loss, "--loss");
  in.distribute_saved_activations = f.distribute_saved;
  in.etp = positive_count(f.etp, "--etp");
  in.first_stage_layers = positive_count(f.first_stage_layers, "--first-stage-layers");
  in.last_stage_layers = positive_count(f.last_stage_layers, "--last-stage-layers");
}

int parse_zero_stage(const std::string& text) {
  if (text.size() != 1 || text[0] < '0' || text[0] > '3') throw InputError("--zero", text, "a ZeRO stage 0, 1, 2 or 3");
  return text[0] - '0';
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

}  // namespace napkin::cli
