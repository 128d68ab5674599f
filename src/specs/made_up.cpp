#include "napkin/specs/made_up.h"

#include <nlohmann/json.hpp>

#include <string>

#include "napkin/ground/error.h"
#include "napkin/specs/napkin_json.h"

namespace napkin::specs {

namespace {

using i64 = std::int64_t;

// count_params's bounds (src/model/params.cpp: kMaxWidth, kMaxCount, kMaxRows), checked here first so
// that the message names the flag rather than the spec's field.
constexpr i64 kMaxWidth = i64{1} << 20;
constexpr i64 kMaxCount = i64{1} << 16;
constexpr i64 kMaxRows = i64{1} << 32;

void in_range(const char* flag, i64 v, i64 max, const char* what) {
  if (v < 1 || v > max)
    throw InputError(flag, std::to_string(v), std::string(what) + " from 1 to " + std::to_string(max));
}

void required(const char* flag, i64 v, const char* what) {
  if (v == 0) throw InputError(flag, "(missing)", std::string(what) + " (a made-up decoder needs --layers, --hidden, "
                                                                     "--heads, --ffn and --vocab)");
}

void check(const DecoderShape& s) {
  required("--layers", s.layers, "the number of layers L, e.g. --layers 32");
  required("--hidden", s.hidden, "the hidden size D, e.g. --hidden 4096");
  required("--heads", s.heads, "the number of attention heads H, e.g. --heads 32");
  required("--vocab", s.vocab, "the vocabulary size V, e.g. --vocab 128256");
  in_range("--layers", s.layers, kMaxCount, "a number of layers L");
  in_range("--hidden", s.hidden, kMaxWidth, "a hidden size D");
  in_range("--heads", s.heads, kMaxCount, "a number of attention heads H");
  in_range("--vocab", s.vocab, kMaxRows, "a vocabulary size V");
  if (s.kv_heads != 0 && (s.kv_heads < 1 || s.heads % s.kv_heads != 0))
    throw InputError("--kv-heads", std::to_string(s.kv_heads),
                     "a divisor of --heads " + std::to_string(s.heads) + " (each key/value head serves H / H_kv query heads)");
  if (s.head_dim != 0) in_range("--head-dim", s.head_dim, kMaxWidth, "a head dimension d_head");
  else if (s.hidden % s.heads != 0)
    throw InputError("--heads", std::to_string(s.heads),
                     "a divisor of --hidden " + std::to_string(s.hidden) + " (d_head = D / H must be an integer), or "
                     "--head-dim with it");
  if (!s.is_moe()) {
    if (s.moe_top_k != 0)
      throw InputError("--moe-top-k", std::to_string(s.moe_top_k), "--moe-experts with it (the routed experts it picks from)");
    if (s.moe_ffn != 0)
      throw InputError("--moe-ffn", std::to_string(s.moe_ffn), "--moe-experts with it (the width of each expert)");
    required("--ffn", s.ffn, "the MLP width F, e.g. --ffn 14336");
    in_range("--ffn", s.ffn, kMaxWidth, "an MLP width F");
    return;
  }
  in_range("--moe-experts", s.moe_experts, kMaxCount, "a number of routed experts E");
  if (s.moe_top_k == 0)
    throw InputError("--moe-top-k", "(missing)", "the experts each token is routed to, with --moe-experts (e.g. "
                                                 "--moe-top-k 2)");
  if (s.moe_top_k < 1 || s.moe_top_k > s.moe_experts)
    throw InputError("--moe-top-k", std::to_string(s.moe_top_k),
                     "between 1 and --moe-experts " + std::to_string(s.moe_experts));
  if (s.ffn != 0 && s.moe_ffn != 0)
    throw InputError("--ffn", std::to_string(s.ffn),
                     "either --ffn or --moe-ffn with --moe-experts (every layer is MoE: the experts' width " +
                         std::to_string(s.moe_ffn) + " is the only MLP width)");
  if (s.ffn == 0 && s.moe_ffn == 0)
    throw InputError("--ffn", "(missing)", "the experts' width, --ffn or --moe-ffn, with --moe-experts (e.g. --ffn 14336)");
  in_range(s.moe_ffn != 0 ? "--moe-ffn" : "--ffn", s.moe_ffn != 0 ? s.moe_ffn : s.ffn, kMaxWidth, "an expert MLP width");
}

}  // namespace

std::string decoder_name(const DecoderShape& s) {
  const auto n = [](i64 v) { return std::to_string(v); };
  std::string name = "decoder(L=" + n(s.layers) + ", D=" + n(s.hidden) + ", H=" + n(s.heads) +
                     ", H_kv=" + n(s.kv_heads != 0 ? s.kv_heads : s.heads);
  if (s.head_dim != 0) name += ", d_head=" + n(s.head_dim);
  if (!s.is_moe()) name += ", F=" + n(s.ffn);
  name += ", V=" + n(s.vocab);
  if (s.is_moe())
    name += ", E=" + n(s.moe_experts) + ", k=" + n(s.moe_top_k) + ", F_e=" + n(s.moe_ffn != 0 ? s.moe_ffn : s.ffn);
  if (s.tied) name += ", tied";
  if (!s.gated) name += ", plain MLP";
  return name + ")";
}

ModelSpec made_up_decoder(const DecoderShape& s) {
  check(s);
  // napkin model JSON with these fields: its reader supplies every other field's default (the
  // conventions in the header), so the two ways of writing a model cannot drift apart.
  nlohmann::json j = {{"napkin_model", 1},
                      {"name", decoder_name(s)},
                      {"family", "made-up"},
                      {"layers", s.layers},
                      {"hidden", s.hidden},
                      {"heads", s.heads},
                      {"kv_heads", s.kv_heads != 0 ? s.kv_heads : s.heads},
                      {"head_dim", s.head_dim != 0 ? s.head_dim : s.hidden / s.heads},
                      {"vocab", s.vocab},
                      {"tied_embeddings", s.tied},
                      {"ffn_kind", s.gated ? "gated" : "plain"},
                      {"norm", "rmsnorm"},
                      {"positions", "rotary"}};
  if (s.is_moe())
    j["moe"] = {{"experts", s.moe_experts}, {"experts_per_token", s.moe_top_k},
                {"expert_ffn", s.moe_ffn != 0 ? s.moe_ffn : s.ffn}};
  else
    j["ffn"] = s.ffn;
  return from_napkin_json(j, "made-up decoder");
}

}  // namespace napkin::specs
