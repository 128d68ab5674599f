// DeepSpeed's memory estimator for ZeRO-2 and ZeRO-3 model states (--zero-accounting deepspeed),
// and host memory per node for napkin's own offload ledger. DeepSpeed's convention differs from
// napkin's ledger (memory/ledgers.h): it counts model states only (no activations, no runtime reserve),
// multiplies host memory by a 1.5 buffer factor, and sizes host memory per node, not per GPU.
//
// Source: deepspeed/runtime/zero/stage_1_and_2.py, estimate_zero2_model_states_mem_needs, and
// deepspeed/runtime/zero/stage3.py, estimate_zero3_model_states_mem_needs (github
// deepspeedai/DeepSpeed at edaa7221, 2026-08-22); the ZeRO-2 non-offload GPU term is 2Ψ + 18Ψ/N
// since PR #5099 (commit f4cb866, 2024-06-04), 4Ψ + 16Ψ/N before it (the figures in
// docs/code-docs/source/memory.rst predate the change).
#pragma once

#include <cstdint>

#include "napkin/ground/result.h"
#include "napkin/ground/units.h"
#include "napkin/model/model_spec.h"

namespace napkin {

struct DeepSpeedInput {
  std::int64_t total_params = 0;
  // ZeRO-3: parameters of the largest module (DeepSpeed's model_to_params: a module's own
  // parameters, recurse=False); 4 B each are gathered (16-bit weights and gradients).
  std::int64_t largest_layer_params = 0;
  int zero_stage = 3;               // 2 or 3: the stages DeepSpeed's estimator covers
  std::int64_t gpus_per_node = 1;   // num_gpus_per_node
  std::int64_t nodes = 1;           // num_nodes
  bool offload_optimizer = false;   // cpu_offload
  bool offload_params = false;      // cpu_offload_params (ZeRO-3 only)
  bool zero_init = true;            // deepspeed.zero.Init (DeepSpeed's default)
  double buffer_factor = 1.5;       // additional_buffer_factor (DeepSpeed's default)
};

struct DeepSpeedMemory {
  Bytes weights{};          // ZeRO-2: 16-bit weights, replicated
  Bytes sharded_states{};   // the per-GPU shard of the states DeepSpeed divides by N
  Bytes gathered_params{};  // ZeRO-3: largest_layer_memory = 4 · largest layer
  Bytes per_gpu{};          // DeepSpeed's gpu_mem: the sum of the three
  Bytes cpu_per_node{};     // DeepSpeed's cpu_mem ("per CPU": one node's host memory)
};

/// DeepSpeed's estimate, to the byte (its int() truncations included). Throws InputError for a
/// stage other than 2 or 3, parameter offload below ZeRO-3, or non-positive counts.
DeepSpeedMemory deepspeed_memory(const DeepSpeedInput& in);
/// The same as ledger rows (weights, sharded_states, gathered_params, per_gpu, total,
/// cpu_memory_per_node, cpu_memory), each with its formula, and the convention's assumptions.
void deepspeed_memory(const DeepSpeedInput& in, ResultSet& out);

/// napkin's offload ledger on a node: cpu_memory (host memory per GPU rank) × the ranks on one
/// node, min(gpus_per_node, gpus). Appends the cpu_memory_per_node row.
void cpu_memory_per_node(Bytes cpu_memory, std::int64_t gpus_per_node, std::int64_t gpus, ResultSet& out);

/// The largest module's parameters, unsplit (ZeRO-3's gather; the same walk as the training
/// ledger's, at TP 1): the embedding or head, an attention projection, an MLP or expert matrix.
std::int64_t zero3_largest_module_params(const specs::ModelSpec& m);

}  // namespace napkin
