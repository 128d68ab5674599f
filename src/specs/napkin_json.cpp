#include "napkin/specs/napkin_json.h"

#include <optional>
#include <string>

#include "json_fields.h"
#include "napkin/ground/error.h"
#include "napkin/model/params.h"
#include "napkin/model/tensor_table.h"
#include "rope_scaling.h"

namespace napkin::specs {

namespace {

using json = nlohmann::json;
using i64 = std::int64_t;

using Reader = JsonFields;

constexpr i64 kNone = 0;

}  // namespace

bool is_napkin_model_json(const json& j) { return j.is_object() && j.contains("napkin_model"); }

ModelSpec from_napkin_json(const json& j, std::string_view file) {
  const std::string f(file);
  if (!j.is_object()) throw InputError(f + ": expected a JSON object (napkin model JSON)");
  const Reader r(j, f, "");
  if (r.integer("napkin_model", "1 (the format version)", 1, std::nullopt) != 1)
    throw InputError(r.where("napkin_model") + ": expected 1 (the format version), got " + j.at("napkin_model").dump());
  ModelSpec m;
  m.name = r.str_or("name", f);
  m.repo = r.str_or("repo", "");
  m.family = r.str_or("family", "custom");
  m.model_type = m.family;
  m.hidden = r.integer("hidden", "a positive integer (hidden size D)", 1, std::nullopt);
  m.layers = r.integer("layers", "a positive integer (number of layers L)", 1, std::nullopt);
  m.heads = r.integer("heads", "a positive integer (attention heads H)", 1, std::nullopt);
  m.kv_heads = r.integer("kv_heads", "a positive integer (key/value heads)", 1, m.heads);
  m.head_dim = r.integer("head_dim", "a positive integer (d_head)", 1, m.hidden / m.heads);
  m.vocab = r.integer("vocab", "a positive integer (vocabulary size V)", 1, std::nullopt);
  m.ffn_kind = r.choice("ffn_kind", FfnKind::gated, {{"gated", FfnKind::gated}, {"plain", FfnKind::plain}});
  m.tied_embeddings = r.bool_or("tied_embeddings", false);
  m.positions = r.choice("positions", PositionKind::rotary,
                         {{"rotary", PositionKind::rotary}, {"learned", PositionKind::learned}, {"none", PositionKind::none}});
  m.max_context = r.integer("max_context", "a non-negative integer", 0, kNone);
  m.position_offset = r.integer("position_offset", "a non-negative integer", 0, kNone);
  m.position_table = r.integer("position_table", "a non-negative integer", 0,
                               m.positions == PositionKind::learned ? m.max_context + m.position_offset : 0);
  read_rope_scaling(r, m);  // "rope_scaling" and "model_max_length", as config.json spells them
  m.sliding_window = r.integer("sliding_window", "a non-negative integer", 0, kNone);
  m.sliding_every = r.integer("sliding_every", "a non-negative integer", 0, kNone);
  m.attention_chunk = r.integer("attention_chunk", "a non-negative integer", 0, kNone);
  if (r.has("layer_attention")) {
    // One kind per layer: full, sliding (sliding_window keys), chunked (attention_chunk keys) or
    // none (no attention: no KV cache).
    const json& a = r.raw("layer_attention");
    const std::string what =
        "an array of " + std::to_string(m.layers) + " layer kinds (\"full\", \"sliding\", \"chunked\" or \"none\")";
    if (!a.is_array() || static_cast<i64>(a.size()) != m.layers) r.bad("layer_attention", what.c_str());
    for (const json& v : a) {
      const std::string k = v.is_string() ? v.get<std::string>() : std::string();
      if (k == "full") m.layer_kinds.push_back(LayerAttention::full);
      else if (k == "sliding") m.layer_kinds.push_back(LayerAttention::sliding);
      else if (k == "chunked") m.layer_kinds.push_back(LayerAttention::chunked);
      else if (k == "none") m.layer_kinds.push_back(LayerAttention::none);
      else r.bad("layer_attention", what.c_str());
    }
  }
  m.attention_sinks = r.bool_or("attention_sinks", false);
  m.attention_dropout = r.probability_or("attention_dropout", 0.0);
  m.hidden_dropout = r.probability_or("hidden_dropout", 0.0);
  m.norm = r.choice("norm", NormKind::rmsnorm, {{"rmsnorm", NormKind::rmsnorm}, {"layernorm", NormKind::layernorm}});
  const i64 norms = r.integer("norms_per_layer", "a non-negative integer", 0, 2);
  if (norms > 16) r.bad("norms_per_layer", "an integer from 0 to 16 (norms per layer)");
  m.norms_per_layer = static_cast<int>(norms);
  m.qk_norm = r.bool_or("qk_norm", false);
  m.qk_norm_full_width = r.bool_or("qk_norm_full_width", false);
  m.qk_norm_per_head = r.bool_or("qk_norm_per_head", false);
  m.norm_bias = r.bool_or("norm_bias", true);
  m.final_norm = r.bool_or("final_norm", true);
  const Reader b = r.sub("bias");
  m.qkv_bias = b.bool_or("qkv", false);
  m.o_bias = b.bool_or("o", false);
  m.mlp_bias = b.bool_or("mlp", false);
  m.lm_head_bias = b.bool_or("lm_head", false);
  const Reader mla = r.sub("mla");
  m.mla.q_lora_rank = mla.integer("q_lora_rank", "a non-negative integer", 0, kNone);
  m.mla.kv_lora_rank = mla.integer("kv_lora_rank", "a non-negative integer", 0, kNone);
  m.mla.qk_rope_head_dim = mla.integer("qk_rope_head_dim", "a non-negative integer", 0, kNone);
  m.mla.qk_nope_head_dim = mla.integer("qk_nope_head_dim", "a non-negative integer", 0, kNone);
  m.mla.v_head_dim = mla.integer("v_head_dim", "a non-negative integer", 0, kNone);
  const AttentionKind by_heads =
      m.kv_heads == m.heads ? AttentionKind::mha : (m.kv_heads == 1 ? AttentionKind::mqa : AttentionKind::gqa);
  m.attention = r.choice("attention", m.mla.kv_lora_rank > 0 ? AttentionKind::mla : by_heads,
                         {{"mha", AttentionKind::mha}, {"gqa", AttentionKind::gqa}, {"mqa", AttentionKind::mqa},
                          {"mla", AttentionKind::mla}});
  const Reader moe = r.sub("moe");
  m.moe.n_experts = moe.integer("experts", "a non-negative integer", 0, kNone);
  m.moe.experts_per_token = moe.integer("experts_per_token", "a non-negative integer", 0, kNone);
  m.moe.n_shared_experts = moe.integer("shared_experts", "a non-negative integer", 0, kNone);
  m.moe.shared_ffn = moe.integer("shared_ffn", "a non-negative integer", 0, kNone);
  m.moe.shared_expert_gate = moe.bool_or("shared_expert_gate", false);
  m.moe.first_k_dense = moe.integer("first_k_dense", "a non-negative integer", 0, kNone);
  m.moe.layer_freq = moe.integer("layer_freq", "a positive integer", 1, 1);
  m.moe.expert_ffn = moe.integer("expert_ffn", "a non-negative integer", 0, kNone);
  m.moe.router_bias = moe.bool_or("router_bias", false);
  m.moe.expert_bias = moe.bool_or("expert_bias", false);
  const bool all_moe = m.moe.n_experts > 0 && m.moe.first_k_dense == 0 && m.moe.layer_freq == 1;
  m.ffn = all_moe ? r.integer("ffn", "a non-negative integer (MLP width F; 0: no dense MLP)", 0, 0)
                 : r.integer("ffn", "a positive integer (MLP width F)", 1, std::nullopt);
  m.embed_proj_dim = r.integer("embed_proj_dim", "a non-negative integer", 0, kNone);
  m.encoder_only = r.bool_or("encoder_only", false);
  m.type_vocab = r.integer("type_vocab", "a non-negative integer", 0, kNone);
  m.pooler = r.bool_or("pooler", false);
  m.embedding_norm = r.bool_or("embedding_norm", false);
  m.mtp_layers = r.integer("mtp_layers", "a non-negative integer", 0, kNone);
  m.stored_dtype = r.str_or("dtype", "");
  return m;
}

json to_napkin_json(const ModelSpec& m) {
  // What the format does not carry is refused, never dropped: the JSON would count another model.
  if (m.has_mamba())
    throw InputError((m.name.empty() ? std::string("model") : m.name) +
                     ": napkin model JSON does not carry Mamba (state-space) layers; expected an attention-only model");
  if (m.encoder_decoder)
    throw InputError((m.name.empty() ? std::string("model") : m.name) +
                     ": napkin model JSON does not carry an encoder-decoder's two stacks; expected a decoder-only or "
                     "encoder-only model");
  // A table family whose spec fields say all its tensors do (formulas_reproduce_tensors) is
  // carried by them; any other needs its tensor table, which the format does not hold.
  if (m.tower || !formulas_reproduce_tensors(m))
    throw InputError((m.name.empty() ? std::string("model") : m.name) + ": napkin model JSON does not carry the " +
                     "tensor table of " + (m.tower ? m.tower->family : m.tensors->family) +
                     " (data/architectures); expected a model whose spec fields give its tensors (keep its config.json)");
  json j;
  j["napkin_model"] = 1;
  j["name"] = m.name;
  if (!m.repo.empty()) j["repo"] = m.repo;
  j["family"] = m.family;
  j["hidden"] = m.hidden;
  j["layers"] = m.layers;
  j["heads"] = m.heads;
  j["kv_heads"] = m.kv_heads;
  j["head_dim"] = m.head_dim;
  j["ffn"] = m.ffn;
  j["ffn_kind"] = std::string(to_string(m.ffn_kind));
  j["vocab"] = m.vocab;
  j["tied_embeddings"] = m.tied_embeddings;
  j["attention"] = std::string(to_string(m.attention));
  j["positions"] = std::string(to_string(m.positions));
  j["position_table"] = m.position_table;
  j["position_offset"] = m.position_offset;
  j["max_context"] = m.max_context;
  if (!m.rope_type.empty()) {
    json rope = {{"rope_type", m.rope_type}, {"factor", m.rope_factor}};
    if (m.rope_original_context > 0) rope["original_max_position_embeddings"] = m.rope_original_context;
    j["rope_scaling"] = rope;
  }
  if (m.model_max_length > 0) j["model_max_length"] = m.model_max_length;
  j["sliding_window"] = m.sliding_window;
  j["sliding_every"] = m.sliding_every;
  if (m.attention_chunk > 0) j["attention_chunk"] = m.attention_chunk;
  if (!m.layer_kinds.empty()) {
    json kinds = json::array();
    for (LayerAttention k : m.layer_kinds) kinds.push_back(std::string(to_string(k)));
    j["layer_attention"] = kinds;
  }
  j["attention_sinks"] = m.attention_sinks;
  j["attention_dropout"] = m.attention_dropout;
  j["hidden_dropout"] = m.hidden_dropout;
  j["norm"] = std::string(to_string(m.norm));
  j["norms_per_layer"] = m.norms_per_layer;
  j["qk_norm"] = m.qk_norm;
  j["qk_norm_full_width"] = m.qk_norm_full_width;
  j["qk_norm_per_head"] = m.qk_norm_per_head;
  j["norm_bias"] = m.norm_bias;
  j["final_norm"] = m.final_norm;
  j["bias"] = {{"qkv", m.qkv_bias}, {"o", m.o_bias}, {"mlp", m.mlp_bias}, {"lm_head", m.lm_head_bias}};
  if (m.attention == AttentionKind::mla)
    j["mla"] = {{"q_lora_rank", m.mla.q_lora_rank}, {"kv_lora_rank", m.mla.kv_lora_rank},
                {"qk_rope_head_dim", m.mla.qk_rope_head_dim}, {"qk_nope_head_dim", m.mla.qk_nope_head_dim},
                {"v_head_dim", m.mla.v_head_dim}};
  if (m.moe.is_moe())
    j["moe"] = {{"experts", m.moe.n_experts}, {"experts_per_token", m.moe.experts_per_token},
                {"shared_experts", m.moe.n_shared_experts}, {"shared_ffn", m.moe.shared_ffn},
                {"shared_expert_gate", m.moe.shared_expert_gate}, {"first_k_dense", m.moe.first_k_dense},
                {"layer_freq", m.moe.layer_freq}, {"expert_ffn", m.moe.expert_ffn},
                {"router_bias", m.moe.router_bias}, {"expert_bias", m.moe.expert_bias}};
  j["embed_proj_dim"] = m.embed_proj_dim;
  j["encoder_only"] = m.encoder_only;
  j["type_vocab"] = m.type_vocab;
  j["pooler"] = m.pooler;
  j["embedding_norm"] = m.embedding_norm;
  j["mtp_layers"] = m.mtp_layers;
  if (!m.stored_dtype.empty()) j["dtype"] = m.stored_dtype;
  return j;
}

}  // namespace napkin::specs
