// rope_scaling and model_max_length (rope_scaling.h).
#include "rope_scaling.h"

namespace napkin::specs {

void read_rope_scaling(const JsonFields& f, ModelSpec& m) {
  constexpr const char* kCount = "a non-negative integer";
  m.model_max_length = f.int_or("model_max_length", 0, kCount);
  const char* key = f.has("rope_scaling") && !f.raw("rope_scaling").is_null() ? "rope_scaling"
                    : f.has("rope_parameters") && !f.raw("rope_parameters").is_null() ? "rope_parameters"
                                                                                        : nullptr;
  if (key == nullptr) return;
  const JsonFields r = f.sub(key);
  m.rope_type = r.has("rope_type") ? r.str_or("rope_type", "") : r.str_or("type", "");
  if (m.rope_type.empty()) m.rope_type = "default";
  m.rope_factor = r.positive_number_or("factor", 1.0, "a positive number (the RoPE scaling factor)");
  m.rope_original_context = r.int_or("original_max_position_embeddings", 0, kCount);
}

}  // namespace napkin::specs
