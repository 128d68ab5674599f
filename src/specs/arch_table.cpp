// The architecture tables (arch_table.h): reading a config with one of them (parsed by
// arch_table_parse.cpp) into a ModelSpec and its tensor table, and the messages that name the
// config key a value came from.
#include "arch_table.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "arch_table_data.h"
#include "napkin/ground/error.h"
#include "rope_scaling.h"

namespace napkin::specs::arch {

namespace {

// The config keys expression `e` reads, directly or through the variables it names, in order.
void keys_behind(const Table& t, const Expr& e, std::vector<std::string>& out, std::set<std::string>& seen_vars) {
  for (const std::string& k : e.config_keys())
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  for (const std::string& n : e.variables())
    if (const auto it = t.vars.find(n); it != t.vars.end() && seen_vars.insert(n).second)
      keys_behind(t, it->second.expr, out, seen_vars);
}

// The config key to name for a value `v` of expression `e` that a check refused: one the config
// holds whose value is `v` (the offending entry), else the first the expression reads itself,
// else the last behind the variables it names (a guard over heads and key/value heads names the
// latter), model_type last; none when the config holds none.
std::optional<std::string> pick_key(const Table& t, const JsonFields& f, const Expr& e, const Value& v) {
  std::vector<std::string> behind;
  std::set<std::string> seen;
  keys_behind(t, e, behind, seen);
  auto set = [](const std::string& k) { return std::optional<std::string>(k); };
  for (const std::string& k : behind) {
    if (!f.has(k.c_str())) continue;
    const json& x = f.raw(k.c_str());
    if ((v.kind == Value::Kind::string && x.is_string() && x.get<std::string>() == v.s) ||
        (v.kind == Value::Kind::integer && x.is_number_integer() && x.get<std::int64_t>() == v.i) ||
        (v.kind == Value::Kind::boolean && x.is_boolean() && x.get<bool>() == v.b))
      return set(k);
  }
  for (const std::string& k : e.config_keys())
    if (k != "model_type" && f.has(k.c_str())) return set(k);
  for (auto it = behind.rbegin(); it != behind.rend(); ++it)
    if (*it != "model_type" && f.has(it->c_str())) return set(*it);
  if (f.has("model_type") && !behind.empty()) return set("model_type");
  return std::nullopt;
}

// Variables and the layer index over one config.
class TableEnv : public Env {
 public:
  TableEnv(const Table& t, const JsonFields& f) : t_(t), f_(f) {}
  const json& config() const override { return f_.object(); }
  void at_layer(std::optional<i64> l) { l_ = l; }
  Value var(std::string_view name) const override {
    if (name == "l") {
      if (!l_) throw ExprError{"l (the layer index) outside a per-layer expression"};
      Value v;
      v.kind = Value::Kind::integer;
      v.i = *l_;
      return v;
    }
    const auto it = t_.vars.find(name);
    if (it == t_.vars.end()) throw ExprError{"unknown variable " + std::string(name)};
    const Var& var = it->second;
    if (!var.per_layer) {
      if (const auto m = memo_.find(it->first); m != memo_.end()) return m->second;
    }
    if (busy_.count(it->first) != 0) throw ExprError{"variable " + it->first + " depends on itself"};
    busy_.insert(it->first);
    Value v;
    try {
      v = var.expr.eval(*this);
    } catch (const ExprError& e) {
      busy_.erase(it->first);
      // A config value the expression cannot take (an integer beyond int64, a list where a
      // number goes): named by its key when the variable is that key.
      if (const std::string* k = own_key(var); k != nullptr && f_.has(k->c_str()))
        throw InputError(f_.where(k->c_str()) + ": expected " + wanted(var, true) + ", got " +
                         f_.raw(k->c_str()).dump().substr(0, 80));
      throw;
    } catch (...) {
      busy_.erase(it->first);
      throw;
    }
    busy_.erase(it->first);
    checked(it->first, var, v);
    if (!var.per_layer) memo_.emplace(it->first, v);
    return v;
  }

  // What a variable's check asks for, with what the variable is; "below 2^53" where a number
  // beyond it was given.
  static std::string wanted(const Var& var, bool beyond) {
    std::string want = var.check == "positive" ? "a positive integer"
                       : var.check == "count"  ? "a non-negative integer"
                       : var.check == "bool"   ? "true or false"
                                               : "a number";
    want += " (" + var.what + ")";
    if (beyond && (var.check == "positive" || var.check == "count")) want += " below 2^53 = 9007199254740992";
    return want;
  }

  // The config key a variable is: `$key`, or `$key ?? fallback`; nullptr for any other expression.
  static const std::string* own_key(const Var& var) {
    const std::vector<std::string>& keys = var.expr.config_keys();
    if (keys.empty()) return nullptr;
    const std::string& e = var.expr.text();
    const std::string& k = keys.front();
    return e == "$" + k || e.rfind("$" + k + " ??", 0) == 0 ? &k : nullptr;
  }

  // A variable's value against its check. The message names the config key: the variable's own
  // (`$key ?? fallback`), else the first key its expression reads that the config holds, with
  // the expression and its value for a guard over several keys.
  void checked(const std::string& name, const Var& var, const Value& v) const {
    if (var.check.empty()) return;
    bool ok = false;
    if (var.check == "positive") {
      ok = v.kind == Value::Kind::integer && v.i >= 1 && v.i < kMaxCount;
    } else if (var.check == "count") {
      ok = v.kind == Value::Kind::integer && v.i >= 0 && v.i < kMaxCount;
    } else if (var.check == "bool") {
      ok = v.kind == Value::Kind::boolean;
    } else if (var.check == "number") {
      ok = v.is_number();
    }
    if (ok) return;
    const bool beyond = v.is_number() && (v.kind == Value::Kind::integer ? v.i >= kMaxCount : v.d >= static_cast<double>(kMaxCount));
    const std::string want = wanted(var, beyond);
    const std::vector<std::string>& keys = var.expr.config_keys();
    if (const std::string* k = own_key(var)) {
      if (v.is_null() && !f_.has(k->c_str())) {
        // `$a ?? $b`: every spelling looked for is named.
        std::string also;
        for (std::size_t i = 1; i < keys.size(); ++i) also += (also.empty() ? "" : ", ") + ("/" + keys[i]);
        if (also.empty() || var.expr.text() != "$" + *k + " ?? $" + keys[1]) f_.missing(k->c_str(), want.c_str());
        throw InputError(f_.where(k->c_str()) + ": missing (also looked for " + also + "); expected " + want);
      }
      if (f_.has(k->c_str())) f_.bad(k->c_str(), want.c_str());
    }
    // A guard (a value of null) over keys the config leaves out: the first of them is missing.
    std::vector<std::string> direct;
    for (const std::string& k : keys)
      if (k != "model_type") direct.push_back(k);
    if (v.is_null() && !direct.empty() &&
        std::none_of(direct.begin(), direct.end(), [this](const std::string& k) { return f_.has(k.c_str()); }))
      f_.missing(direct.front().c_str(), var.what.c_str());
    const std::string at = l_ && var.per_layer ? ", layer " + std::to_string(*l_) : "";
    if (const auto k = pick_key(t_, f_, var.expr, v))
      throw InputError(f_.where(k->c_str()) + ": " + f_.raw(k->c_str()).dump().substr(0, 80) + ": expected " + var.what +
                       " (" + t_.name + " " + name + " = " + var.expr.text() +
                       (v.is_null() ? "" : " is " + v.show() + ", not " + want.substr(0, want.find(" ("))) + at + ")");
    throw InputError(f_.file() + ": " + t_.name + " " + name + " = " + var.expr.text() + ": expected " + want +
                     ", got " + v.show());
  }

 private:
  const Table& t_;
  const JsonFields& f_;
  std::optional<i64> l_;
  mutable std::map<std::string, Value, std::less<>> memo_;
  mutable std::set<std::string, std::less<>> busy_;
};

[[noreturn]] void refuse(const JsonFields& f, const Table& t, const std::string& where, const std::string& what) {
  throw InputError(f.file() + ": " + t.name + " " + where + ": " + what);
}

// A value of expression `e` that `where` cannot take: named by the first config key behind it
// that the config holds (`config.json: /layer_types: ...`), with the table's expression.
[[noreturn]] void refuse_value(const JsonFields& f, const Table& t, const std::string& where, const Expr& e,
                               const Value& v, const std::string& what) {
  if (const auto k = pick_key(t, f, e, v))
    throw InputError(f.where(k->c_str()) + ": " + what + " (" + t.name + " " + where + " = " + e.text() + ")");
  refuse(f, t, where + " = " + e.text(), what);
}

Value eval(const Expr& e, TableEnv& env, const JsonFields& f, const Table& t, const std::string& where) {
  try {
    return e.eval(env);
  } catch (const ExprError& x) {
    refuse(f, t, where + " = " + e.text(), x.what);
  }
}

// The values integer() and truth() take.
bool counts(const Value& v, i64 min) { return v.kind == Value::Kind::integer && v.i >= min && v.i < kMaxCount; }

i64 integer(const Expr& e, TableEnv& env, const JsonFields& f, const Table& t, const std::string& where, i64 min) {
  const Value v = eval(e, env, f, t, where);
  if (!counts(v, min))
    refuse_value(f, t, where, e, v, "expected an integer of at least " + std::to_string(min) + " below 2^53, got " + v.show());
  return v.i;
}

bool truth(const Expr& e, TableEnv& env, const JsonFields& f, const Table& t, const std::string& where) {
  const Value v = eval(e, env, f, t, where);
  if (v.kind != Value::Kind::boolean) refuse_value(f, t, where, e, v, "expected true or false, got " + v.show());
  return v.b;
}

// integer() and truth() without the message: nullopt where the value would be refused (or the
// expression fails), so that the caller asks again with the message's place, built only then.
std::optional<i64> quick_integer(const Expr& e, TableEnv& env, i64 min) {
  try {
    const Value v = e.eval(env);
    if (counts(v, min)) return v.i;
  } catch (const ExprError&) {
  }
  return std::nullopt;
}

std::optional<bool> quick_truth(const Expr& e, TableEnv& env) {
  try {
    const Value v = e.eval(env);
    if (v.kind == Value::Kind::boolean) return v.b;
  } catch (const ExprError&) {
  }
  return std::nullopt;
}

std::string word(const Expr& e, TableEnv& env, const JsonFields& f, const Table& t, const std::string& where,
                 std::initializer_list<const char*> allowed) {
  const Value v = eval(e, env, f, t, where);
  std::string list;
  for (const char* a : allowed) {
    if (v.kind == Value::Kind::string && v.s == a) return v.s;
    list += std::string(list.empty() ? "" : ", ") + a;
  }
  refuse_value(f, t, where, e, v, "expected one of " + list + ", got " + v.show());
}

// The spec fields a table may set, each from its expression (per layer for the per-layer ones).
// The spec fields that take an integer of at least `min` or a boolean, and the ModelSpec member
// each sets (encoder_decoder, decoder_layers, relative_attention_buckets: T5's two stacks, `layers`
// the encoder's depth); the others are read one by one in set_spec.
struct IntField {
  std::string_view name;
  i64 min;
  i64& (*at)(ModelSpec&);
};
struct BoolField {
  std::string_view name;
  bool& (*at)(ModelSpec&);
};
const IntField kIntFields[] = {
    {"hidden", 1, [](ModelSpec& m) -> i64& { return m.hidden; }},
    {"layers", 1, [](ModelSpec& m) -> i64& { return m.layers; }},
    {"heads", 1, [](ModelSpec& m) -> i64& { return m.heads; }},
    {"kv_heads", 1, [](ModelSpec& m) -> i64& { return m.kv_heads; }},
    {"head_dim", 1, [](ModelSpec& m) -> i64& { return m.head_dim; }},
    {"ffn", 0, [](ModelSpec& m) -> i64& { return m.ffn; }},
    {"vocab", 1, [](ModelSpec& m) -> i64& { return m.vocab; }},
    {"max_context", 0, [](ModelSpec& m) -> i64& { return m.max_context; }},
    {"sliding_window", 0, [](ModelSpec& m) -> i64& { return m.sliding_window; }},
    {"attention_chunk", 0, [](ModelSpec& m) -> i64& { return m.attention_chunk; }},
    {"mtp_layers", 0, [](ModelSpec& m) -> i64& { return m.mtp_layers; }},
    {"position_table", 0, [](ModelSpec& m) -> i64& { return m.position_table; }},
    {"position_offset", 0, [](ModelSpec& m) -> i64& { return m.position_offset; }},
    {"embed_proj_dim", 0, [](ModelSpec& m) -> i64& { return m.embed_proj_dim; }},
    {"type_vocab", 0, [](ModelSpec& m) -> i64& { return m.type_vocab; }},
    {"decoder_layers", 1, [](ModelSpec& m) -> i64& { return m.decoder_layers; }},
    {"relative_attention_buckets", 0, [](ModelSpec& m) -> i64& { return m.relative_attention_buckets; }},
    {"moe_experts", 0, [](ModelSpec& m) -> i64& { return m.moe.n_experts; }},
    {"moe_top_k", 0, [](ModelSpec& m) -> i64& { return m.moe.experts_per_token; }},
    {"moe_expert_ffn", 0, [](ModelSpec& m) -> i64& { return m.moe.expert_ffn; }},
    {"moe_shared_experts", 0, [](ModelSpec& m) -> i64& { return m.moe.n_shared_experts; }},
    {"moe_shared_ffn", 0, [](ModelSpec& m) -> i64& { return m.moe.shared_ffn; }},
    {"moe_first_dense", 0, [](ModelSpec& m) -> i64& { return m.moe.first_k_dense; }},
    {"moe_layer_freq", 1, [](ModelSpec& m) -> i64& { return m.moe.layer_freq; }},
    {"mla_q_lora_rank", 0, [](ModelSpec& m) -> i64& { return m.mla.q_lora_rank; }},
    {"mla_kv_lora_rank", 0, [](ModelSpec& m) -> i64& { return m.mla.kv_lora_rank; }},
    {"mla_qk_rope_head_dim", 0, [](ModelSpec& m) -> i64& { return m.mla.qk_rope_head_dim; }},
    {"mla_qk_nope_head_dim", 0, [](ModelSpec& m) -> i64& { return m.mla.qk_nope_head_dim; }},
    {"mla_v_head_dim", 0, [](ModelSpec& m) -> i64& { return m.mla.v_head_dim; }},
    {"recurrent_conv_channels", 0, [](ModelSpec& m) -> i64& { return m.recurrent.conv_channels; }},
    {"recurrent_conv_kernel", 0, [](ModelSpec& m) -> i64& { return m.recurrent.conv_kernel; }},
    {"recurrent_state", 0, [](ModelSpec& m) -> i64& { return m.recurrent.state; }},
    {"recurrent_proj_width", 0, [](ModelSpec& m) -> i64& { return m.recurrent.proj_width; }},
    {"recurrent_tp_unit", 1, [](ModelSpec& m) -> i64& { return m.recurrent.tp_unit; }},
    {"mamba_d_inner", 1, [](ModelSpec& m) -> i64& { return m.mamba.d_inner; }},
    {"mamba_d_state", 1, [](ModelSpec& m) -> i64& { return m.mamba.d_state; }},
    {"mamba_conv_kernel", 1, [](ModelSpec& m) -> i64& { return m.mamba.conv_kernel; }},
    {"mamba_dt_rank", 0, [](ModelSpec& m) -> i64& { return m.mamba.dt_rank; }},
    {"mamba_groups", 0, [](ModelSpec& m) -> i64& { return m.mamba.groups; }},
    {"mamba_heads", 0, [](ModelSpec& m) -> i64& { return m.mamba.heads; }},
    {"indexer_heads", 0, [](ModelSpec& m) -> i64& { return m.indexer.heads; }},
    {"indexer_head_dim", 0, [](ModelSpec& m) -> i64& { return m.indexer.head_dim; }},
    {"indexer_top_k", 0, [](ModelSpec& m) -> i64& { return m.indexer.top_k; }},
};
const BoolField kBoolFields[] = {
    {"encoder_only", [](ModelSpec& m) -> bool& { return m.encoder_only; }},
    {"pooler", [](ModelSpec& m) -> bool& { return m.pooler; }},
    {"encoder_decoder", [](ModelSpec& m) -> bool& { return m.encoder_decoder; }},
    {"tied", [](ModelSpec& m) -> bool& { return m.tied_embeddings; }},
    {"qkv_bias", [](ModelSpec& m) -> bool& { return m.qkv_bias; }},
    {"o_bias", [](ModelSpec& m) -> bool& { return m.o_bias; }},
    {"mlp_bias", [](ModelSpec& m) -> bool& { return m.mlp_bias; }},
    {"qk_norm", [](ModelSpec& m) -> bool& { return m.qk_norm; }},
    {"moe_router_bias", [](ModelSpec& m) -> bool& { return m.moe.router_bias; }},
    {"moe_shared_expert_gate", [](ModelSpec& m) -> bool& { return m.moe.shared_expert_gate; }},
    {"moe_expert_bias", [](ModelSpec& m) -> bool& { return m.moe.expert_bias; }},
    {"attention_sinks", [](ModelSpec& m) -> bool& { return m.attention_sinks; }},
    {"norm_bias", [](ModelSpec& m) -> bool& { return m.norm_bias; }},
    {"final_norm", [](ModelSpec& m) -> bool& { return m.final_norm; }},
    {"qk_norm_full_width", [](ModelSpec& m) -> bool& { return m.qk_norm_full_width; }},
    {"qk_norm_per_head", [](ModelSpec& m) -> bool& { return m.qk_norm_per_head; }},
    {"lm_head_bias", [](ModelSpec& m) -> bool& { return m.lm_head_bias; }},
    {"embedding_norm", [](ModelSpec& m) -> bool& { return m.embedding_norm; }},
    {"recurrent_state_fp32", [](ModelSpec& m) -> bool& { return m.recurrent.state_fp32; }},
    {"mamba_proj_bias", [](ModelSpec& m) -> bool& { return m.mamba.proj_bias; }},
    {"mamba_conv_bias", [](ModelSpec& m) -> bool& { return m.mamba.conv_bias; }},
    {"mamba_inner_norms", [](ModelSpec& m) -> bool& { return m.mamba.inner_norms; }},
    {"mamba_state_fp32", [](ModelSpec& m) -> bool& { return m.mamba.ssm_state_fp32; }},
};

template <class Field, std::size_t N>
const Field* find_field(const Field (&fields)[N], std::string_view name) {
  for (const Field& x : fields)
    if (x.name == name) return &x;
  return nullptr;
}

// `beside`: per layer, whether layer_mixer said 'attention+recurrent' (Falcon-H1: attention and a
// recurrent mixer side by side, a KV cache and a state).
void set_spec(const Table& t, TableEnv& env, const JsonFields& f, ModelSpec& m, std::vector<bool>& beside) {
  // Dropout, unless the table says where its family keeps it: the names most configuration
  // classes use (attention_dropout; hidden_dropout or resid_pdrop), 0 when absent, refused out of
  // [0, 1). Training's activation memory reads them (dropout masks).
  m.attention_dropout = f.probability_or("attention_dropout", 0.0);
  m.hidden_dropout = f.probability_or("hidden_dropout", f.probability_or("resid_pdrop", 0.0));
  for (const auto& [field, e] : t.spec) {
    const std::string where = "spec/" + field;
    auto I = [&](i64 min) { return integer(e, env, f, t, where, min); };
    auto B = [&] { return truth(e, env, f, t, where); };
    auto P = [&] {  // a probability: a dropout rate
      const Value v = eval(e, env, f, t, where);
      if (!v.is_number() || !(v.number() >= 0.0 && v.number() <= 1.0))
        refuse(f, t, where + " = " + e.text(), "expected a probability from 0 to 1, got " + v.show());
      return v.number();
    };
    if (const IntField* x = find_field(kIntFields, field)) x->at(m) = I(x->min);
    else if (const BoolField* x = find_field(kBoolFields, field)) x->at(m) = B();
    else if (field == "norms_per_layer") m.norms_per_layer = static_cast<int>(I(0));
    else if (field == "positions") {
      const std::string k = word(e, env, f, t, where, {"rotary", "learned", "none"});
      m.positions = k == "rotary" ? PositionKind::rotary : k == "learned" ? PositionKind::learned : PositionKind::none;
    }
    else if (field == "ffn_kind")
      m.ffn_kind = word(e, env, f, t, where, {"gated", "plain"}) == "gated" ? FfnKind::gated : FfnKind::plain;
    else if (field == "norm")
      m.norm = word(e, env, f, t, where, {"rmsnorm", "layernorm"}) == "rmsnorm" ? NormKind::rmsnorm : NormKind::layernorm;
    else if (field == "attention_dropout") m.attention_dropout = P();
    else if (field == "hidden_dropout") m.hidden_dropout = P();
    else if (field == "recurrent_kind") {
      const Value v = eval(e, env, f, t, where);
      if (v.kind != Value::Kind::string || v.s.empty())
        refuse(f, t, where + " = " + e.text(), "expected the name of the recurrent mixer, got " + v.show());
      m.recurrent.kind = v.s;
    }
    else if (field == "mamba_version") {
      m.mamba.version = static_cast<int>(I(0));
      if (m.mamba.version > 2) refuse(f, t, where + " = " + e.text(), "expected 1 or 2 (Mamba-1 or Mamba-2)");
    }
    else if (field == "layer_attention" || field == "layer_ffn" || field == "layer_mixer" || field == "layer_kv_heads" ||
             field == "layer_head_dim" || field == "layer_kv_shared" || field == "ledger_refusal") {
      continue;  // per layer, below
    } else {
      defect(t.name, "spec/" + field + ": not a field the ledgers read");
    }
  }
  m.attention = m.mla.kv_lora_rank > 0 ? AttentionKind::mla
                : m.kv_heads == m.heads ? AttentionKind::mha
                : m.kv_heads == 1       ? AttentionKind::mqa
                                        : AttentionKind::gqa;
  for (const auto& [field, e] : t.spec) {
    if (field != "layer_attention" && field != "layer_ffn" && field != "layer_mixer" && field != "layer_kv_heads" &&
        field != "layer_head_dim" && field != "layer_kv_shared")
      continue;
    const std::string where = "spec/" + field;
    for (i64 l = 0; l < m.layers; ++l) {
      env.at_layer(l);
      const std::string at = where + " (layer " + std::to_string(l) + ")";
      if (field == "layer_kv_heads") {
        m.layer_kv_heads.push_back(integer(e, env, f, t, at, 1));
      } else if (field == "layer_head_dim") {
        m.layer_head_dims.push_back(integer(e, env, f, t, at, 1));
      } else if (field == "layer_kv_shared") {
        m.layer_kv_shared.push_back(truth(e, env, f, t, at));
      } else if (field == "layer_attention") {
        const std::string k = word(e, env, f, t, where + " (layer " + std::to_string(l) + ")",
                                   {"full", "sliding", "chunked", "none"});
        m.layer_kinds.push_back(k == "full"      ? LayerAttention::full
                                : k == "sliding" ? LayerAttention::sliding
                                : k == "chunked" ? LayerAttention::chunked
                                                 : LayerAttention::none);
      } else if (field == "layer_mixer") {
        const std::string k = word(e, env, f, t, where + " (layer " + std::to_string(l) + ")",
                                   {"attention", "recurrent", "attention+recurrent", "mamba", "none"});
        m.layer_mixers.push_back(k == "attention" ? LayerMixer::attention
                                 : k == "none"    ? LayerMixer::none
                                 : k == "mamba"   ? LayerMixer::mamba
                                                  : LayerMixer::recurrent);
        beside.push_back(k == "attention+recurrent");
      } else {
        const std::string k =
            word(e, env, f, t, where + " (layer " + std::to_string(l) + ")", {"dense", "moe", "none"});
        m.layer_ffns.push_back(k == "dense" ? LayerFfn::dense : k == "moe" ? LayerFfn::moe : LayerFfn::none);
      }
    }
    env.at_layer(std::nullopt);
  }
}

}  // namespace

const Table* table_by_model_type(std::string_view model_type) {
  for (const Table& t : tables())
    for (const std::string& mt : t.model_types)
      if (!t.tower && mt == model_type) return &t;
  return nullptr;
}

const Table* table_by_class(std::string_view cls) {
  for (const Table& t : tables())
    for (const std::string& c : t.classes)
      if (!t.tower && c == cls) return &t;
  return nullptr;
}

const Table* tower_by_model_type(std::string_view model_type) {
  for (const Table& t : tables())
    for (const std::string& mt : t.model_types)
      if (t.tower && mt == model_type) return &t;
  return nullptr;
}

std::string_view table_name(const Table& t) { return t.name; }

bool table_verified(const Table& t) { return t.verified; }

std::string_view tower_text_model_type(std::string_view top_model_type) {
  const Table* t = tower_by_model_type(top_model_type);
  return t != nullptr ? std::string_view(t->text_model_type) : std::string_view();
}

std::string model_type_of_class(const Table& t, std::string_view cls) {
  for (std::size_t i = 0; i < t.classes.size(); ++i)
    if (t.classes[i] == cls) return i < t.model_types.size() ? t.model_types[i] : t.model_types.front();
  return t.model_types.front();
}

bool table_reads(const Table& t, std::string_view key) { return t.keys.count(std::string(key)) != 0; }

std::vector<std::string> table_model_types() {
  std::vector<std::string> out;
  for (const Table& t : tables())
    if (!t.tower) out.insert(out.end(), t.model_types.begin(), t.model_types.end());
  return out;
}

namespace {

// `decoder_layers`: the decoder stack's blocks of an encoder-decoder (0 otherwise).
std::shared_ptr<const TensorTable> evaluate_tensors(const Table& t, TableEnv& env, const JsonFields& f, i64 layers,
                                                    i64 decoder_layers) {
  auto table = std::make_shared<TensorTable>();
  table->family = t.name;
  table->source = t.source;
  double total = 0.0;
  // The message's place, built only for a message (a 65,536-layer config evaluates millions).
  auto where_of = [&](const TensorDef& d, i64 layer) {
    return d.name + (layer < 0     ? std::string()
                     : d.decoder ? " (decoder layer " + std::to_string(layer - layers) + ")"
                                 : " (layer " + std::to_string(layer) + ")");
  };
  // One tensor of `d` at `layer` (its when, shape and experts evaluated there), or nullopt.
  auto make = [&](const TensorDef& d, i64 layer) -> std::optional<TableTensor> {
    if (d.when) {
      const std::optional<bool> w = quick_truth(*d.when, env);
      if (!(w ? *w : truth(*d.when, env, f, t, where_of(d, layer) + " if"))) return std::nullopt;
    }
    TableTensor x;
    x.name = d.name;
    x.group = d.group;
    for (const Expr& s : d.shape) {
      const std::optional<i64> v = quick_integer(s, env, 1);
      x.shape.push_back(v ? *v : integer(s, env, f, t, where_of(d, layer) + " shape", 1));
    }
    if (d.experts) {
      const std::optional<i64> v = quick_integer(*d.experts, env, 1);
      x.copies = v ? *v : integer(*d.experts, env, f, t, where_of(d, layer) + " experts", 1);
      x.routed = true;
    }
    x.mtp = d.mtp.has_value();
    return x;
  };
  auto add = [&](const TensorDef& d, TableTensor x, i64 layer) {
    x.layer = layer;
    double n = static_cast<double>(x.copies);
    for (i64 s : x.shape) n *= static_cast<double>(s);
    total += n;
    if (total >= static_cast<double>(kMaxCount)) {
      std::string shape;
      for (i64 v : x.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(v);
      refuse(f, t, where_of(d, layer),
             "the tensors sum past 2^53 = 9007199254740992 parameters at this one (shape [" + shape + "]" +
                 (x.copies > 1 ? " × " + std::to_string(x.copies) + " experts" : "") +
                 "); expected a model below 2^53 parameters, the largest exact count");
    }
    table->tensors.push_back(std::move(x));
  };
  for (const TensorDef& d : t.tensors) {
    if (d.mtp) {
      const i64 n = integer(*d.mtp, env, f, t, d.name + " mtp", 0);
      if (n > kMaxLayers) refuse(f, t, d.name + " mtp", "expected at most 65536 layers, got " + std::to_string(n));
      for (i64 i = 0; i < n; ++i) {
        env.at_layer(layers + i);
        if (auto x = make(d, -1)) add(d, std::move(*x), -1);
      }
      env.at_layer(std::nullopt);
      continue;
    }
    if (!d.layers) {
      if (auto x = make(d, -1)) add(d, std::move(*x), -1);
      continue;
    }
    // A decoder tensor: l counts the decoder's blocks, stored after the encoder's L layers. A
    // tensor whose when, shape and experts do not depend on the layer is evaluated once.
    const i64 n = d.decoder ? decoder_layers : layers, first = d.decoder ? layers : 0;
    std::optional<std::optional<TableTensor>> same;  // the layer-free tensor, once made
    for (i64 l = 0; l < n; ++l) {
      env.at_layer(l);
      const std::optional<bool> in = quick_truth(*d.layers, env);
      if (!(in ? *in
               : truth(*d.layers, env, f, t,
                       d.name + (d.decoder ? " (decoder layer " : " (layer ") + std::to_string(l) + ") layers")))
        continue;
      if (!d.per_layer) {
        if (!same) same = make(d, first + l);
        if (*same) add(d, **same, first + l);
      } else if (auto x = make(d, first + l)) {
        add(d, std::move(*x), first + l);
      }
    }
    env.at_layer(std::nullopt);
  }
  return table;
}

}  // namespace

ModelSpec read_with_table(const Table& t, const JsonFields& given, const std::string& model_type) {
  for (const std::string& k : t.keys) (void)given.has(k.c_str());  // what the table reads, it counts
  ModelSpec m;
  // The class defaults where the config leaves a key out: read in place of the config.
  json merged;
  std::string used;
  if (!t.defaults.empty()) {
    merged = given.object();
    for (const auto& [k, v] : t.defaults.items())
      if (!merged.contains(k) || merged.at(k).is_null()) {
        merged[k] = v;
        used += (used.empty() ? "" : ", ") + k + " " + v.dump();
      }
  }
  const JsonFields with_defaults(used.empty() ? given.object() : merged, given);
  const JsonFields& f = used.empty() ? given : with_defaults;
  if (!used.empty()) m.notes.push_back("absent from the config, the class defaults of " + t.defaults_class + ": " + used);
  m.model_type = model_type;
  m.family = model_type;
  TableEnv env(t, f);
  const i64 layers = integer(t.layers, env, f, t, "layers", 1);
  if (layers > kMaxLayers) {
    Value v;
    v.kind = Value::Kind::integer;
    v.i = layers;
    refuse_value(f, t, "layers", t.layers, v, "expected a number of layers L from 1 to 65536, got " + std::to_string(layers));
  }
  std::vector<bool> beside;
  set_spec(t, env, f, m, beside);
  if (m.layers != layers) defect(t.name, "spec/layers differs from layers");
  if (m.has_recurrent()) {
    // A recurrent layer keeps a state, not a KV cache: the table says both, and what the state is.
    const RecurrentSpec& r = m.recurrent;
    if (r.kind.empty() || (r.state <= 0 && (r.conv_channels <= 0 || r.conv_kernel <= 1)))
      defect(t.name, "spec: recurrent layers need recurrent_kind and a state or a convolution window");
    for (i64 l = 0; l < m.layers; ++l) {
      const bool attends = m.layer_attention(l) != LayerAttention::none;
      if (m.layer_mixer(l) == LayerMixer::recurrent && attends != beside[static_cast<std::size_t>(l)])
        defect(t.name, "spec: layer " + std::to_string(l) +
                           (attends ? " is 'recurrent' but attends (its layer_mixer is 'attention+recurrent')"
                                    : " is 'attention+recurrent' but its layer_attention is none"));
    }
  }
  // A Mamba mixer (MambaSpec, the ledgers' own state-space model: Mamba-1, Jamba, Nemotron-H) keeps
  // its state, not a KV cache; the table states the mixer whole.
  bool mamba_layers = false;
  for (i64 l = 0; l < m.layers; ++l)
    if (m.layer_mixer(l) == LayerMixer::mamba) {
      mamba_layers = true;
      if (m.layer_attention(l) != LayerAttention::none)
        defect(t.name, "spec: layer " + std::to_string(l) + " is 'mamba' but its layer_attention is not 'none'");
    }
  if (!mamba_layers) m.mamba = MambaSpec{};  // a hybrid whose config lists no Mamba block
  if ((mamba_layers && m.mamba.version == 0) ||
      (mamba_layers && (m.mamba.d_inner <= 0 || m.mamba.d_state <= 0 || m.mamba.conv_kernel <= 0 ||
                        (m.mamba.version == 1 ? m.mamba.dt_rank <= 0 : m.mamba.heads <= 0 || m.mamba.groups <= 0))))
    defect(t.name, "spec: 'mamba' layers need mamba_version with mamba_d_inner, mamba_d_state, mamba_conv_kernel and "
                   "mamba_dt_rank (Mamba-1) or mamba_heads and mamba_groups (Mamba-2)");
  if (m.has_layer_kv() && m.attention == AttentionKind::mla)
    defect(t.name, "spec: per-layer KV shapes (layer_kv_heads, layer_head_dim, layer_kv_shared) on an MLA model");
  if (m.indexer.heads > 0 && (m.indexer.head_dim <= 0 || m.indexer.top_k <= 0 || m.attention != AttentionKind::mla))
    defect(t.name, "spec: an indexer needs indexer_head_dim, indexer_top_k and MLA attention");
  // An encoder-decoder's decoder stack, bounded as the encoder's layers are.
  if (m.encoder_decoder && m.decoder_layers > kMaxLayers)
    for (const auto& [field, e] : t.spec)
      if (field == "decoder_layers") {
        Value v;
        v.kind = Value::Kind::integer;
        v.i = m.decoder_layers;
        refuse_value(f, t, "spec/decoder_layers", e, v,
                     "expected a number of decoder layers from 1 to 65536, got " + std::to_string(m.decoder_layers));
      }
  m.tensors = evaluate_tensors(t, env, f, layers, m.encoder_decoder ? m.decoder_layers : 0);
  for (const auto& [cond, text] : t.notes)
    if (!cond || truth(*cond, env, f, t, "notes/if")) m.notes.push_back(text);
  if (!t.verified || std::find(t.unverified.begin(), t.unverified.end(), model_type) != t.unverified.end()) {
    m.unverified = "model_type '" + model_type + "' is counted from " + t.source.substr(0, t.source.find(':')) +
                   "; no checkpoint total has confirmed it yet";
    m.notes.push_back(m.unverified);
  }
  for (const auto& [field, e] : t.spec)
    if (field == "ledger_refusal") {
      const Value v = eval(e, env, f, t, "spec/ledger_refusal");
      if (v.kind == Value::Kind::string) m.ledger_refusal = v.s;
    }
  return m;
}

std::shared_ptr<const TensorTable> read_tower(const Table& t, const JsonFields& top) {
  for (const std::string& k : t.keys) (void)top.has(k.c_str());
  TableEnv env(t, top);
  const i64 layers = integer(t.layers, env, top, t, "layers", 0);
  if (layers > kMaxLayers)
    refuse(top, t, "layers = " + t.layers.text(), "expected at most 65536 layers, got " + std::to_string(layers));
  return evaluate_tensors(t, env, top, layers, 0);
}


}  // namespace napkin::specs::arch
