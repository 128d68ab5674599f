// The tensors of a model, as its checkpoint names and shapes them: what an architecture table
// (data/architectures/*.json, docs/adding-a-family.md) evaluates to for one config. When a
// ModelSpec carries one, its parameter counts are the table's sums (napkin/model/params.h), tensor
// by tensor (params shows the spec's closed formulas where they give the same count).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace napkin::specs {

/// Where a tensor's parameters count (the groups of napkin/model/params.h ParamGroup, by index):
/// embedding, attention, mlp, experts, router, norm, head, other, ssm, vision.
enum class TensorGroup : std::uint8_t { embedding, attention, mlp, experts, router, norm, head, other, ssm, vision };

struct TableTensor {
  // As the checkpoint names it ({l} the layer, {e} the expert): a view of the bundled table's
  // text, which lives as long as the program.
  std::string_view name;
  std::vector<std::int64_t> shape;  // outermost first, as safetensors lists it
  std::int64_t layer = -1;          // the layer it belongs to; -1 outside the layers
  std::int64_t copies = 1;          // routed experts: one tensor per expert
  TensorGroup group = TensorGroup::other;
  bool routed = false;  // a routed expert's: a token passes through experts_per_token of the copies
  bool mtp = false;     // a multi-token-prediction layer's: stored, not part of the model's count
  /// Elements of one copy (the product of the shape; 1 for a scalar).
  std::int64_t elements() const {
    std::int64_t n = 1;
    for (std::int64_t d : shape) n *= d;
    return n;
  }
};

struct TensorTable {
  std::string family;  // the table's name (data/architectures/<family>.json)
  std::string source;  // the modeling file(s) it follows
  std::vector<TableTensor> tensors;
};

}  // namespace napkin::specs
