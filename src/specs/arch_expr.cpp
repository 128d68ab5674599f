// The architecture tables' expression language (arch_expr.h): a recursive-descent parser to a
// small tree, evaluated against a config and the table's variables.
#include "arch_expr.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace napkin::specs::arch {

namespace {

using i64 = std::int64_t;

[[noreturn]] void fail(std::string what) { throw ExprError{std::move(what)}; }

}  // namespace

struct Expr::Node {
  enum class Op { literal, var, config, unary, binary, ternary, call, index, member } op = Op::literal;
  Value value;                                // literal
  std::string name;                           // var, config key, operator, function, member
  std::vector<std::shared_ptr<const Node>> kids;
};

Value Value::of_json(const json& v) {
  Value r;
  if (v.is_boolean()) {
    r.kind = Kind::boolean;
    r.b = v.get<bool>();
  } else if (v.is_number_integer() || v.is_number_unsigned()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<i64>::max()))
      fail("the integer " + v.dump() + " is beyond 2^63");
    r.kind = Kind::integer;
    r.i = v.get<i64>();
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    // An integral float (4096.0, written by some exporters) is that integer.
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9007199254740992.0) {
      r.kind = Kind::integer;
      r.i = static_cast<i64>(d);
    } else {
      r.kind = Kind::real;
      r.d = d;
    }
  } else if (v.is_string()) {
    r.kind = Kind::string;
    r.s = v.get<std::string>();
  } else if (v.is_array() || v.is_object()) {
    r.kind = Kind::list;
    r.j = &v;
  }
  return r;
}

std::string Value::show() const {
  switch (kind) {
    case Kind::null: return "null";
    case Kind::boolean: return b ? "true" : "false";
    case Kind::integer: return std::to_string(i);
    case Kind::real: return json(d).dump();
    case Kind::string: return "'" + s + "'";
    case Kind::list: {
      const std::string t = j->dump();
      return t.size() > 40 ? t.substr(0, 37) + "..." : t;
    }
  }
  return "?";
}

namespace {

using Node = Expr::Node;
using NodePtr = std::shared_ptr<const Node>;
using Op = Node::Op;

class Parser {
 public:
  Parser(std::string_view t, std::vector<std::string>& keys, std::vector<std::string>& vars)
      : t_(t), keys_(keys), vars_(vars) {}

  NodePtr parse() {
    NodePtr n = ternary();
    skip();
    if (p_ != t_.size()) error("unexpected '" + std::string(t_.substr(p_, 1)) + "'");
    return n;
  }

 private:
  std::string_view t_;
  std::size_t p_ = 0;
  std::vector<std::string>& keys_;
  std::vector<std::string>& vars_;

  [[noreturn]] void error(const std::string& what) const {
    fail("syntax: " + what + " at character " + std::to_string(p_ + 1) + " of '" + std::string(t_) + "'");
  }
  void skip() {
    while (p_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[p_]))) ++p_;
  }
  bool eat(std::string_view tok) {
    skip();
    if (t_.substr(p_, tok.size()) != tok) return false;
    p_ += tok.size();
    return true;
  }
  void expect(std::string_view tok) {
    if (!eat(tok)) error("expected '" + std::string(tok) + "'");
  }
  static NodePtr make(Op op, std::string name, std::vector<NodePtr> kids) {
    auto n = std::make_shared<Node>();
    n->op = op;
    n->name = std::move(name);
    n->kids = std::move(kids);
    return n;
  }

  NodePtr ternary() {
    NodePtr c = binary();
    if (eat("?")) {
      NodePtr a = ternary();
      expect(":");
      NodePtr b = ternary();
      return make(Op::ternary, "?:", {c, a, b});
    }
    return c;
  }
  // The left-associative binary levels, loosest first; within a level the longer spelling first
  // ("//" before "/", "<=" before "<"). A comparison takes one operator: a == b == c is an error.
  static constexpr std::size_t kLevels = 6;
  NodePtr binary(std::size_t level = 0) {
    static constexpr std::array<std::array<const char*, 6>, kLevels> kOps{{
        {"??"}, {"||"}, {"&&"}, {"==", "!=", "<=", ">=", "<", ">"}, {"+", "-"}, {"*", "//", "/", "%"}}};
    constexpr std::size_t kCompare = 3;
    if (level == kLevels) return unary();
    NodePtr l = binary(level + 1);
    for (bool more = true; more;) {
      more = false;
      for (const char* op : kOps[level])
        if (op != nullptr && eat(op)) {
          l = make(Op::binary, op, {l, binary(level + 1)});
          more = level != kCompare;
          break;
        }
    }
    return l;
  }
  NodePtr unary() {
    skip();
    // "!=" never starts an operand, so '!' here is negation.
    if (eat("!")) return make(Op::unary, "!", {unary()});
    if (eat("-")) return make(Op::unary, "-", {unary()});
    return postfix();
  }
  NodePtr postfix() {
    NodePtr n = primary();
    for (;;) {
      if (eat("[")) {
        NodePtr i = ternary();
        expect("]");
        n = make(Op::index, "[]", {n, i});
      } else if (eat(".")) {
        n = make(Op::member, ident(), {n});
      } else {
        return n;
      }
    }
  }
  std::string ident() {
    skip();
    const std::size_t b = p_;
    while (p_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[p_])) || t_[p_] == '_')) ++p_;
    if (b == p_) error("expected a name");
    return std::string(t_.substr(b, p_ - b));
  }
  NodePtr primary() {
    skip();
    if (p_ >= t_.size()) error("expected a value");
    const char c = t_[p_];
    if (c == '(') {
      ++p_;
      NodePtr n = ternary();
      expect(")");
      return n;
    }
    if (c == '$') {
      ++p_;
      std::string k = ident();
      keys_.push_back(k);
      return make(Op::config, std::move(k), {});
    }
    if (c == '\'') {
      const std::size_t e = t_.find('\'', p_ + 1);
      if (e == std::string_view::npos) error("unterminated string");
      auto n = std::make_shared<Node>();
      n->value.kind = Value::Kind::string;
      n->value.s = std::string(t_.substr(p_ + 1, e - p_ - 1));
      p_ = e + 1;
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t e = p_;
      bool real = false;
      while (e < t_.size() && (std::isdigit(static_cast<unsigned char>(t_[e])) || t_[e] == '.' || t_[e] == 'e')) {
        real = real || t_[e] == '.' || t_[e] == 'e';
        ++e;
      }
      auto n = std::make_shared<Node>();
      const std::string num(t_.substr(p_, e - p_));
      if (real) {
        n->value.kind = Value::Kind::real;
        n->value.d = std::stod(num);
      } else {
        n->value.kind = Value::Kind::integer;
        const auto r = std::from_chars(num.data(), num.data() + num.size(), n->value.i);
        if (r.ec != std::errc()) error("integer out of range");
      }
      p_ = e;
      return n;
    }
    std::string name = ident();
    if (name == "true" || name == "false" || name == "null") {
      auto n = std::make_shared<Node>();
      n->value.kind = name == "null" ? Value::Kind::null : Value::Kind::boolean;
      n->value.b = name == "true";
      return n;
    }
    if (eat("(")) {
      std::vector<NodePtr> args;
      if (!eat(")")) {
        do args.push_back(ternary());
        while (eat(","));
        expect(")");
      }
      return make(Op::call, std::move(name), std::move(args));
    }
    vars_.push_back(name);
    return make(Op::var, std::move(name), {});
  }
};

Value integer(i64 v) {
  Value r;
  r.kind = Value::Kind::integer;
  r.i = v;
  return r;
}
Value real(double v) {
  if (!std::isfinite(v)) fail("a result that is not finite");
  Value r;
  r.kind = Value::Kind::real;
  r.d = v;
  return r;
}
Value boolean(bool v) {
  Value r;
  r.kind = Value::Kind::boolean;
  r.b = v;
  return r;
}

double num(const Value& v, const char* op) {
  if (!v.is_number()) fail(std::string("'") + op + "' needs a number, got " + v.show());
  return v.number();
}
bool truth(const Value& v, const char* op) {
  if (v.kind != Value::Kind::boolean) fail(std::string("'") + op + "' needs true or false, got " + v.show());
  return v.b;
}
i64 whole(const Value& v, const char* op) {
  if (v.kind != Value::Kind::integer) fail(std::string("'") + op + "' needs an integer, got " + v.show());
  return v.i;
}
// A double that is a whole number within 2^53 as an integer, else the double.
Value number(double d) {
  if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9007199254740992.0) return integer(static_cast<i64>(d));
  return real(d);
}

bool equal(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number())
    return a.kind == Value::Kind::integer && b.kind == Value::Kind::integer ? a.i == b.i : a.number() == b.number();
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::Kind::null: return true;
    case Value::Kind::boolean: return a.b == b.b;
    case Value::Kind::string: return a.s == b.s;
    case Value::Kind::list: return *a.j == *b.j;
    default: return false;
  }
}

Value arith(const std::string& op, const Value& a, const Value& b) {
  if (a.kind == Value::Kind::integer && b.kind == Value::Kind::integer) {
    i64 r = 0;
    if (op == "+") {
      if (__builtin_add_overflow(a.i, b.i, &r)) fail("integer overflow in " + a.show() + " + " + b.show());
      return integer(r);
    }
    if (op == "-") {
      if (__builtin_sub_overflow(a.i, b.i, &r)) fail("integer overflow in " + a.show() + " - " + b.show());
      return integer(r);
    }
    if (op == "*") {
      if (__builtin_mul_overflow(a.i, b.i, &r)) fail("integer overflow in " + a.show() + " * " + b.show());
      return integer(r);
    }
    if (b.i == 0) fail("division by zero in " + a.show() + " " + op + " 0");
    if (op == "/") return a.i % b.i == 0 ? integer(a.i / b.i) : real(static_cast<double>(a.i) / static_cast<double>(b.i));
    if (op == "//") {
      i64 q = a.i / b.i;
      if ((a.i % b.i != 0) && ((a.i < 0) != (b.i < 0))) --q;
      return integer(q);
    }
    if (op == "%") {
      i64 m = a.i % b.i;
      if (m != 0 && ((m < 0) != (b.i < 0))) m += b.i;
      return integer(m);
    }
  }
  const double x = num(a, op.c_str()), y = num(b, op.c_str());
  if (op == "+") return real(x + y);
  if (op == "-") return real(x - y);
  if (op == "*") return real(x * y);
  if (y == 0.0) fail("division by zero in " + a.show() + " " + op + " " + b.show());
  if (op == "/") return real(x / y);
  if (op == "//") return number(std::floor(x / y));
  return real(std::fmod(x, y));
}

Value evaluate(const Node& n, const Env& env);

Value call(const Node& n, const Env& env) {
  const std::string& f = n.name;
  std::vector<Value> a;
  for (const auto& k : n.kids) a.push_back(evaluate(*k, env));
  auto arity = [&](std::size_t k) {
    if (a.size() != k) fail(f + "() takes " + std::to_string(k) + " argument" + (k == 1 ? "" : "s"));
  };
  if (f == "has") {
    arity(1);
    return boolean(!a[0].is_null());
  }
  if (f == "is_list" || f == "is_number") {
    arity(1);
    return boolean(f == "is_list" ? a[0].kind == Value::Kind::list && a[0].j->is_array() : a[0].is_number());
  }
  if (f == "given") {
    // given('key'): the config names the key, even as null (has($key) is false for both).
    arity(1);
    if (a[0].kind != Value::Kind::string) fail("given() needs a key name in quotes, got " + a[0].show());
    return boolean(env.config().is_object() && env.config().contains(a[0].s));
  }
  if (f == "min" || f == "max") {
    if (a.empty()) fail(f + "() takes at least one argument");
    Value best = a[0];
    num(best, f.c_str());
    for (const Value& v : a) {
      const bool better = f == "min" ? num(v, f.c_str()) < best.number() : num(v, f.c_str()) > best.number();
      if (better) best = v;
    }
    return best;
  }
  if (f == "ceil" || f == "floor" || f == "int") {
    arity(1);
    if (a[0].kind == Value::Kind::integer) return a[0];
    const double x = num(a[0], f.c_str());
    const double r = f == "ceil" ? std::ceil(x) : f == "floor" ? std::floor(x) : std::trunc(x);
    if (!(std::fabs(r) < 9007199254740992.0)) fail(f + "() of " + a[0].show() + " is beyond 2^53");
    return integer(static_cast<i64>(r));
  }
  if (f == "round_up") {
    arity(2);
    const i64 m = whole(a[1], "round_up");
    if (m <= 0) fail("round_up() needs a positive multiple, got " + a[1].show());
    const Value c = a[0].kind == Value::Kind::integer ? a[0] : number(std::ceil(num(a[0], "round_up")));
    const i64 x = whole(c, "round_up");
    return arith("*", arith("//", arith("+", integer(x), integer(m - 1)), integer(m)), integer(m));
  }
  if (f == "len") {
    arity(1);
    if (a[0].kind == Value::Kind::string) return integer(static_cast<i64>(a[0].s.size()));
    if (a[0].kind == Value::Kind::list) return integer(static_cast<i64>(a[0].j->size()));
    fail("len() needs a list or a string, got " + a[0].show());
  }
  if (f == "count" || f == "contains" || f == "any") {
    arity(2);
    i64 c = 0;
    if (a[0].kind == Value::Kind::string && a[1].kind == Value::Kind::string && a[1].s.size() == 1) {
      for (char ch : a[0].s) c += ch == a[1].s[0] ? 1 : 0;
    } else {
      if (a[0].kind != Value::Kind::list || !a[0].j->is_array()) fail(f + "() needs a list, got " + a[0].show());
      for (const json& x : *a[0].j) c += equal(Value::of_json(x), a[1]) ? 1 : 0;
    }
    return f == "count" ? integer(c) : boolean(c > 0);
  }
  if (f == "sum") {
    arity(1);
    if (a[0].kind != Value::Kind::list || !a[0].j->is_array()) fail("sum() needs a list, got " + a[0].show());
    Value s = integer(0);
    for (const json& x : *a[0].j) s = arith("+", s, Value::of_json(x));
    return s;
  }
  fail("unknown function " + f + "()");
}

Value evaluate(const Node& n, const Env& env) {
  switch (n.op) {
    case Op::literal: return n.value;
    case Op::var: return env.var(n.name);
    case Op::config: {
      const json& c = env.config();
      if (!c.is_object() || !c.contains(n.name)) return Value{};
      return Value::of_json(c.at(n.name));
    }
    case Op::unary: {
      const Value v = evaluate(*n.kids[0], env);
      if (n.name == "!") return boolean(!truth(v, "!"));
      if (v.kind == Value::Kind::integer) return arith("-", integer(0), v);
      return real(-num(v, "-"));
    }
    case Op::ternary: return truth(evaluate(*n.kids[0], env), "?:") ? evaluate(*n.kids[1], env) : evaluate(*n.kids[2], env);
    case Op::call: return call(n, env);
    case Op::index: {
      const Value c = evaluate(*n.kids[0], env);
      const Value i = evaluate(*n.kids[1], env);
      if (c.kind == Value::Kind::string) {
        const i64 k = whole(i, "[]");
        if (k < 0 || k >= static_cast<i64>(c.s.size()))
          fail("index " + std::to_string(k) + " beyond " + c.show() + " (" + std::to_string(c.s.size()) + " characters)");
        Value r;
        r.kind = Value::Kind::string;
        r.s = std::string(1, c.s[static_cast<std::size_t>(k)]);
        return r;
      }
      // "$layer_types[40]: ..." names the config key the list came from.
      const std::string of = n.kids[0]->op == Op::config ? "$" + n.kids[0]->name + "[" + std::to_string(i.i) + "]: " : "";
      if (c.kind != Value::Kind::list || !c.j->is_array()) fail(of + "[] needs a list, got " + c.show());
      const i64 k = whole(i, "[]");
      if (k < 0 || k >= static_cast<i64>(c.j->size()))
        fail(of + "index " + std::to_string(k) + " beyond a list of " + std::to_string(c.j->size()));
      return Value::of_json((*c.j)[static_cast<std::size_t>(k)]);
    }
    case Op::member: {
      const Value c = evaluate(*n.kids[0], env);
      if (c.is_null()) return Value{};
      if (c.kind != Value::Kind::list || !c.j->is_object()) fail("." + n.name + " needs an object, got " + c.show());
      if (!c.j->contains(n.name)) return Value{};
      return Value::of_json(c.j->at(n.name));
    }
    case Op::binary: {
      const std::string& op = n.name;
      if (op == "??") {
        const Value a = evaluate(*n.kids[0], env);
        return a.is_null() ? evaluate(*n.kids[1], env) : a;
      }
      if (op == "&&") return boolean(truth(evaluate(*n.kids[0], env), "&&") && truth(evaluate(*n.kids[1], env), "&&"));
      if (op == "||") return boolean(truth(evaluate(*n.kids[0], env), "||") || truth(evaluate(*n.kids[1], env), "||"));
      const Value a = evaluate(*n.kids[0], env), b = evaluate(*n.kids[1], env);
      if (op == "==") return boolean(equal(a, b));
      if (op == "!=") return boolean(!equal(a, b));
      if (op == "<" || op == "<=" || op == ">" || op == ">=") {
        const double x = num(a, op.c_str()), y = num(b, op.c_str());
        return boolean(op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : x >= y);
      }
      if (a.is_null() || b.is_null())
        fail("'" + op + "' of " + a.show() + " and " + b.show() + " (a config key missing?)");
      return arith(op, a, b);
    }
  }
  return Value{};
}

}  // namespace

Expr Expr::parse(std::string_view text) {
  Expr e;
  e.text_ = std::string(text);
  Parser p(e.text_, e.keys_, e.vars_);
  e.root_ = p.parse();
  return e;
}

Value Expr::eval(const Env& env) const {
  if (!root_) fail("an empty expression");
  return evaluate(*root_, env);
}

}  // namespace napkin::specs::arch
