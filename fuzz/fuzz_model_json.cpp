// Fuzzes MODEL files: the bytes are written as a config.json and resolved the way the CLI
// resolves a MODEL argument (src/cli/model_arg.h, load_model): Hugging Face config.json or
// napkin model JSON, then counted by count_params (napkin params). An accepted model has
// positive shapes and non-negative counts everywhere, and its parameter count adds up.
#include "fuzz_common.h"
#include "model_arg.h"
#include "napkin/ground/error.h"
#include "napkin/model/params.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace napkin;
  static const std::filesystem::path path = fuzz::scratch_file("config.json");
  fuzz::write_file(path, fuzz::as_text(data, size));
  specs::ModelSpec m;
  try {
    m = cli::load_model(path.string());
  } catch (const InputError&) {
    return 0;
  }
  NAPKIN_FUZZ_CHECK(m.hidden > 0 && m.layers > 0 && m.heads > 0 && m.kv_heads > 0);
  NAPKIN_FUZZ_CHECK(m.head_dim >= 0 && m.ffn >= 0 && m.vocab > 0);
  NAPKIN_FUZZ_CHECK(m.position_table >= 0 && m.position_offset >= 0 && m.max_context >= 0);
  NAPKIN_FUZZ_CHECK(m.sliding_window >= 0 && m.sliding_every >= 0 && m.norms_per_layer >= 0);
  NAPKIN_FUZZ_CHECK(m.embed_proj_dim >= 0 && m.type_vocab >= 0 && m.mtp_layers >= 0);
  NAPKIN_FUZZ_CHECK(m.moe.n_experts >= 0 && m.moe.experts_per_token >= 0 &&
                    m.moe.n_shared_experts >= 0 && m.moe.shared_ffn >= 0 &&
                    m.moe.first_k_dense >= 0 && m.moe.layer_freq >= 1 && m.moe.expert_ffn >= 0);
  NAPKIN_FUZZ_CHECK(m.mla.q_lora_rank >= 0 && m.mla.kv_lora_rank >= 0 &&
                    m.mla.qk_rope_head_dim >= 0 && m.mla.qk_nope_head_dim >= 0 &&
                    m.mla.v_head_dim >= 0);
  ParamCount p;
  try {
    p = count_params(m);
  } catch (const InputError&) {
    return 0;  // a model too large to count is refused, not wrapped
  }
  std::int64_t sum = 0;
  for (const std::int64_t g : p.groups) {
    NAPKIN_FUZZ_CHECK(g >= 0);
    sum += g;
  }
  NAPKIN_FUZZ_CHECK(sum == p.total);
  NAPKIN_FUZZ_CHECK(p.active >= 0 && p.active <= p.total);
  NAPKIN_FUZZ_CHECK(p.embedding >= 0 && p.non_embedding >= 0 && p.embedding + p.non_embedding == p.total);
  return 0;
}
