// The context limit and the check shared by every command (napkin/model/context_limit.h).
#include "napkin/model/context_limit.h"

#include "napkin/ground/check.h"

namespace napkin {

ContextLimit context_limit(const specs::ModelSpec& m) {
  ContextLimit r;
  if (m.max_context <= 0) return r;  // vLLM: no length in the config, any max_model_len is taken
  double derived = static_cast<double>(m.max_context);
  r.source = "max_position_embeddings " + std::to_string(m.max_context);
  const bool scaled = !m.rope_type.empty() && m.model_type.find("gemma3") == std::string::npos &&
                      m.rope_type != "su" && m.rope_type != "longrope" && m.rope_type != "llama3";
  const bool yarn = m.rope_type == "yarn" && m.rope_original_context > 0;
  if (scaled && (m.rope_factor != 1.0 || yarn)) {
    if (yarn) {
      derived = static_cast<double>(m.rope_original_context);
      r.source = "original_max_position_embeddings " + std::to_string(m.rope_original_context);
    }
    derived *= m.rope_factor;
    r.source += " × rope_scaling factor " + format_plain_number(m.rope_factor) + " (" + m.rope_type + ")";
  }
  r.tokens = derived >= 9.2e18 ? std::int64_t{9'200'000'000'000'000'000} : static_cast<std::int64_t>(derived);
  return r;
}

void check_trained_context(const specs::ModelSpec& m, double tokens, std::string_view flag, ResultSet& out) {
  const ContextLimit limit = context_limit(m);
  if (limit.tokens <= 0 || tokens <= static_cast<double>(limit.tokens)) return;
  if (m.positions == specs::PositionKind::learned)
    out.warn(text("{} {} is past the model's {} learned positions: its position table has no row for the tokens "
                  "past them, so no engine runs this length; the figures are arithmetic",
                  flag, tokens, static_cast<double>(m.max_context)));
  else
    out.warn(text("{} {} is past the model's maximum context {} ({}): the figures are arithmetic, the model was not "
                  "trained for it",
                  flag, tokens, static_cast<double>(limit.tokens), out.keep(limit.source)));
}

}  // namespace napkin
