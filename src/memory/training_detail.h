// The training ledger's numbers, shared by training.cpp (which computes them) and
// training_report.cpp (which turns them into the command's items); internal to the memory layer.
#pragma once

#include "napkin/ground/units.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/model_spec.h"
#include "napkin/model/parallel.h"

namespace napkin::training_detail {

/// The most loaded stage's ledger and the terms its rows are written from.
struct TrainingParts {
  TrainingMemory mem;
  StageShard stage;
  ModelStatesInput states;          // the trainable parameters outside the routed experts
  ModelStatesInput expert_states;   // the routed experts' (params 0 without EP/MoE)
  Bytes frozen{};  // LoRA: the frozen base weights of the shown stage
  Bytes per_layer{};
  Bytes per_layer_full{};  // --recompute-layers: a fully recomputed layer's activations
  Bytes output_tensor{};   // one micro-batch's stage output (pipeline_buffers)
  double in_flight = 1;
  Bytes logits{};
  Bytes per_layer_none{};  // the layer's whole inventory (what a recomputed layer rebuilds from)
  double largest_module = 0;  // parameters of the largest module per GPU (ZeRO-3 gather)
  double fsdp_trainable = 0;  // trainable parameters of the FSDP unit per GPU
  ActivationInput act;
};

/// The ledger of every pipeline stage, the most loaded one kept, with the total over all GPUs and
/// whether it fits `in.capacity`. Throws InputError on a flag the model or the layout refuses.
TrainingParts compute_training(const specs::ModelSpec& m, const TrainingMemoryInput& in);

}  // namespace napkin::training_detail
