// The expression language of the architecture tables (data/architectures/*.json,
// docs/adding-a-family.md): a tensor's shape, a layer's kind or a class default written over the
// keys of a config.json. Internal to the specs layer; pure (no I/O).
//
//   $hidden_size                 a config key (null when absent); $block_configs[l].ffn.ffn_mult
//   $head_dim ?? D / H           the left side unless it is null
//   l < first_dense ? 'dense' : 'moe'
//   round_up(int(2 * mult * D / 3), 256)
//
// Values: null, booleans, exact 64-bit integers, doubles, strings, and JSON arrays and objects of
// the config. Integer arithmetic is exact and checked (overflow is an error); `/` of two integers
// is an integer when it divides, else a double; `//` floors. Operators, loosest first: `?:`,
// `??`, `||`, `&&`, comparisons, `+ -`, `* / // %`, unary `! -`, then `[i]` and `.key`.
// Functions: min max ceil floor int round_up(x, m) len(x) count(list, v) contains(list, v)
// has(x) (not null) sum(list) any(list, v) (contains) is_list(x) is_number(x) given('key') (the
// config names the key, even as null: absent and null differ where a class defaults them apart).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace napkin::specs::arch {

using json = nlohmann::json;

struct Value {
  enum class Kind { null, boolean, integer, real, string, list } kind = Kind::null;
  bool b = false;
  std::int64_t i = 0;
  double d = 0.0;
  std::string s;
  const json* j = nullptr;  // arrays and objects of the config (alive while evaluating)

  static Value of_json(const json& v);
  bool is_null() const { return kind == Kind::null; }
  bool is_number() const { return kind == Kind::integer || kind == Kind::real; }
  double number() const { return kind == Kind::integer ? static_cast<double>(i) : d; }
  std::string show() const;  // for messages: 4096, 0.5, 'full_attention', true, null, [..]
};

/// An evaluation error; the caller adds where (the family, the variable or tensor).
struct ExprError {
  std::string what;
};

class Env {
 public:
  virtual ~Env() = default;
  /// The config object `$key` reads from.
  virtual const json& config() const = 0;
  /// A named variable (the table's vars, and l for the layer); throws ExprError when unknown.
  virtual Value var(std::string_view name) const = 0;
};

class Expr {
 public:
  struct Node;
  Expr() = default;
  /// Parses `text`; throws ExprError naming the position of a syntax error.
  static Expr parse(std::string_view text);
  Value eval(const Env& env) const;
  const std::string& text() const { return text_; }
  /// The top-level config keys the expression reads ($key), wherever they appear.
  const std::vector<std::string>& config_keys() const { return keys_; }
  /// The variables it names (for dependency checks).
  const std::vector<std::string>& variables() const { return vars_; }

 private:
  std::shared_ptr<const Node> root_;
  std::string text_;
  std::vector<std::string> keys_, vars_;
};

}  // namespace napkin::specs::arch
