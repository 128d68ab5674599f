// Parameter counts of a family described as data (data/architectures, napkin/model/tensor_table.h):
// the sums of its tensor table, and the params rows that show them. Internal to the model layer;
// params.cpp dispatches here when a ModelSpec carries a table.
#pragma once

#include <cstdint>

#include "napkin/ground/result.h"
#include "napkin/model/model_spec.h"
#include "napkin/model/params.h"

namespace napkin::detail {

/// The counts of `m`'s tensor table (precondition: m.tensors).
ParamCount count_table(const specs::ModelSpec& m);
/// The parameters of layer `l` in table `t`, by group.
LayerParams table_layer(const specs::TensorTable& t, std::int64_t l);
/// The params rows of a table family: one per non-empty group, tensors summed by name.
void table_items(const specs::ModelSpec& m, const ParamCount& c, ResultSet& out);
/// The tower's row and assumption, and the multi-token-prediction layers' note (any family).
void extra_items(const specs::ModelSpec& m, const ParamCount& c, ResultSet& out);

}  // namespace napkin::detail
