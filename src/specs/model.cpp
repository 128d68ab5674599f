#include "napkin/specs/model.h"

namespace napkin::specs {

std::string_view to_string(FfnKind k) { return k == FfnKind::gated ? "gated" : "plain"; }

std::string_view to_string(PositionKind k) {
  switch (k) {
    case PositionKind::rotary: return "rotary";
    case PositionKind::learned: return "learned";
    case PositionKind::none: return "none";
  }
  return "none";
}

std::string_view to_string(NormKind k) { return k == NormKind::layernorm ? "layernorm" : "rmsnorm"; }

std::string_view to_string(AttentionKind k) {
  switch (k) {
    case AttentionKind::mha: return "mha";
    case AttentionKind::gqa: return "gqa";
    case AttentionKind::mqa: return "mqa";
    case AttentionKind::mla: return "mla";
  }
  return "mha";
}

}  // namespace napkin::specs
