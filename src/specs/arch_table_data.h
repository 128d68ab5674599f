// The architecture tables as parsed (arch_table.h): internal to arch_table.cpp, which evaluates a
// table over a config, and arch_table_parse.cpp, which parses data/architectures/*.json into them.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "arch_expr.h"
#include "napkin/model/tensor_table.h"

namespace napkin::specs::arch {

using json = nlohmann::json;
using i64 = std::int64_t;
constexpr i64 kMaxCount = i64{1} << 53;  // exact in a double, like every count napkin prints
constexpr i64 kMaxLayers = i64{1} << 16;  // 65,536, as count_params bounds a spec's layers

struct Var {
  Expr expr;
  std::string check;  // "", "positive", "count", "bool", "number"
  std::string what;   // for messages: "hidden size D"
  bool per_layer = false;  // depends on l
};

struct TensorDef {
  std::string name;
  TensorGroup group = TensorGroup::other;
  std::vector<Expr> shape;
  std::optional<Expr> layers;  // per layer where true; absent: once
  std::optional<Expr> when;    // "if"
  std::optional<Expr> experts;  // routed copies
  std::optional<Expr> mtp;      // multi-token-prediction layers: this many, at l = L, L + 1, ...
  // "stack": "decoder": an encoder-decoder's decoder block (T5): `layers` runs l over the
  // decoder's blocks (spec decoder_layers), stored at layer L + l after the encoder's L.
  bool decoder = false;
  // Whether its when, shape or experts depend on the layer (l, or a variable that does): if not,
  // it is evaluated once for every layer its `layers` selects.
  bool per_layer = true;
};

struct Table {
  std::string name, source, checked;
  bool tower = false;  // "kind": "tower": a vision/audio tower over the top-level config
  bool verified = true;  // "verified": false: no checkpoint total has confirmed the table yet
  // A tower's: the model_type of the text model its configuration class builds when the nested
  // text_config names none (Kimi-VL's KimiVLConfig builds a DeepseekV3Config).
  std::string text_model_type;
  std::vector<std::string> model_types, classes, unverified;
  std::map<std::string, Var, std::less<>> vars;
  Expr layers;
  std::vector<TensorDef> tensors;
  std::vector<std::pair<std::string, Expr>> spec;  // ModelSpec field ← expression
  std::set<std::string> keys;  // every $key named anywhere
  // "class_defaults": {"class": "configuration_x.py XConfig", "values": {key: value}}: filled in
  // where the config leaves a key out or null (save_pretrained omits a field equal to the class
  // default), and named in a note.
  std::string defaults_class;
  json defaults;
  // "notes": [text or {"if": condition, "text": text}]: what the count rests on, stated with it.
  std::vector<std::pair<std::optional<Expr>, std::string>> notes;
};

[[noreturn]] inline void defect(const std::string& table, const std::string& what) {
  // A table that does not parse is a build defect (tests/arch_table_test.cpp reads them all).
  throw std::logic_error("data/architectures/" + table + ".json: " + what);
}

/// Every bundled table, parsed once (arch_table_parse.cpp).
const std::vector<Table>& tables();

}  // namespace napkin::specs::arch
