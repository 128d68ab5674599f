// What every calculator returns: a ResultSet of named items (value with unit, the symbolic
// formula and the formula with numbers substituted), the assumptions it used and the inputs it
// resolved. One ResultSet feeds every renderer (table, JSON, JSONL, CSV, explain).
//
// Nothing here formats a string. Labels, formulas and assumption texts are static patterns
// with `{}` holes; the numbers that fill them are stored as typed operands and are formatted
// only when a renderer shows them. A sweep that writes CSV therefore pays a few number
// conversions per row, not a dozen string formats. Patterns and text values are string_views:
// they must outlive the ResultSet (string literals, argv, or storage the caller keeps).
#pragma once

#include <array>
#include <deque>
#include <tuple>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "napkin/ground/units.h"

namespace napkin {

/// A number with its dimension, or a piece of text, as it fills a hole in a pattern.
struct Operand {
  double num = 0.0;
  DimRt dim{};
  std::string_view text{};
  bool is_text = false;
};

template <class D>
constexpr Operand op(Quantity<D> q) {
  return Operand{q.in_base_units(), dim_rt<D>(), {}, false};
}
constexpr Operand op(double plain) { return Operand{plain, DimRt{}, {}, false}; }
constexpr Operand op(std::string_view s) { return Operand{0.0, DimRt{}, s, true}; }
constexpr Operand op(const char* s) { return op(std::string_view(s)); }

inline constexpr std::size_t kMaxOperands = 10;

/// A pattern with `{}` holes and the operands that fill them, in order. Built by hand where the
/// number of operands varies at run time; otherwise use text().
struct Text {
  std::string_view pattern{};
  std::array<Operand, kMaxOperands> ops{};
  std::uint8_t n = 0;
};

/// A pattern and its typed arguments, not yet converted: what text() returns. A ResultSet
/// converts the arguments into operands only when it keeps details (not for CSV).
template <class... A>
struct TextArgs {
  std::string_view pattern;
  std::tuple<A...> args;
};

template <class... A>
constexpr TextArgs<A...> text(std::string_view pattern, A... args) {
  static_assert(sizeof...(A) <= kMaxOperands, "too many operands for one pattern");
  return TextArgs<A...>{pattern, std::tuple<A...>(args...)};
}

/// A filled pattern as a ResultSet stores it: the pattern and a span of its operand pool.
struct TextRef {
  std::string_view pattern{};
  std::uint32_t first = 0;
  std::uint8_t n = 0;
};

/// A filled pattern ready to format (see report::append_text).
struct TextView {
  std::string_view pattern{};
  const Operand* ops = nullptr;
  std::uint8_t n = 0;
};

/// A result value: a number in the base unit of `dim`, a verdict string, a boolean, or a list of
/// numbers (in the ResultSet's number pool, `first` and `count`).
struct Value {
  enum class Kind : std::uint8_t { number, text, boolean, list, none };
  Kind kind = Kind::number;
  DimRt dim{};
  double num = 0.0;
  bool flag = false;
  std::string_view str{};
  std::uint32_t first = 0, count = 0;
};

template <class D>
constexpr Value value(Quantity<D> q) {
  return Value{Value::Kind::number, dim_rt<D>(), q.in_base_units(), false, {}};
}
constexpr Value value(double plain) { return Value{Value::Kind::number, DimRt{}, plain, false, {}}; }
constexpr Value verdict(std::string_view s) { return Value{Value::Kind::text, DimRt{}, 0.0, false, s}; }
constexpr Value boolean(bool b) { return Value{Value::Kind::boolean, DimRt{}, 0.0, b, {}}; }
/// No value (a solver that found none, a figure not published): JSON null with the unit of the
/// value it stands for (`d`), an empty CSV cell, and in a table and --explain `shown` ("none"
/// when empty), such as "never" or "not published".
constexpr Value no_value(std::string_view shown = {}, DimRt d = {}) {
  return Value{Value::Kind::none, d, 0.0, false, shown};
}

/// A small table that belongs to a result (online softmax's per-block trace): named columns,
/// rows of values. JSON writes it as an array of objects under its key.
struct Series {
  std::string_view key;
  std::string_view label;
  std::vector<std::string_view> columns;
  std::vector<Value> cells;  // row-major, columns.size() per row
  std::size_t rows() const { return columns.empty() ? 0 : cells.size() / columns.size(); }
};

/// A named input as the calculator resolved it (defaults included).
/// Input and Item have constructors (not aggregates) so that a vector's emplace_back() sets
/// their fields one store each: value-initialising an aggregate this size zeroes it with a
/// `rep stos` first (GCC's generic tuning), which a sweep row pays two dozen times.
struct Input {
  Input() {}  // not `= default`: emplace_back() would value-initialise (zero) it again
  Input(std::string_view n, Value v, double scale = 1.0, std::string_view unit = {})
      : name(n), value(v), echo_scale(scale), echo_unit(unit) {}
  std::string_view name;
  Value value;
  /// Scale from base units to the unit this input is echoed in (1 for base units). Used for
  /// inputs whose natural unit is not a base unit, such as a price per kWh.
  double echo_scale = 1.0;
  std::string_view echo_unit{};
};

struct Item {
  Item() {}  // not `= default`: see Input
  std::string_view key;       // stable result key (interface.md)
  std::string_view label;     // human label
  Value value;
  std::string_view symbolic;  // "C = 2·m·k·n"
  TextRef substituted;        // "2 · {} · {} · {}" with the numbers
  bool is_total = false;      // a ledger total: drawn after a rule
};

struct Assumption {
  std::string_view key;     // stable: "fma_counting"
  TextRef text;             // one line stating the value used
  std::string_view flag{};  // the flag that changes it; filled by the CLI from its key table
};

/// The inputs, items, assumptions, warnings and explain-only notes of one evaluation.
/// clear() keeps the capacity, so a sweep reuses one ResultSet without allocating. With
/// `details` off (CSV output), formulas' operands, assumptions and notes are not recorded.
class ResultSet {
 public:
  std::string_view command;
  std::vector<Input> inputs;
  std::vector<Item> items;
  std::vector<Assumption> assumptions;
  std::vector<TextRef> warnings;
  std::vector<TextRef> notes;    // shown by --explain only
  std::vector<TextRef> remarks;  // notes every format shows (JSON "notes"): errata, caveats
  std::vector<Operand> operands;  // the pool every TextRef points into
  std::vector<double> numbers;    // the pool of list values
  std::vector<Series> series;
  bool details = true;

  void clear() {
    inputs.clear();
    items.clear();
    assumptions.clear();
    warnings.clear();
    notes.clear();
    remarks.clear();
    operands.clear();
    numbers.clear();
    series.clear();
    kept_.clear();
  }
  /// Keeps `s` until clear() and returns a view of it: text built at run time that an item,
  /// assumption or warning refers to (operands are views). Views stay valid as more are kept;
  /// they point into this ResultSet, not into a copy of it.
  std::string_view keep(std::string s) {
    kept_.push_back(std::move(s));
    return kept_.back();
  }
  /// A list value of plain numbers (dimension `d`), stored in the number pool.
  Value list(const std::vector<double>& v, DimRt d = {}) {
    Value r{Value::Kind::list, d, 0.0, false, {}};
    r.first = static_cast<std::uint32_t>(numbers.size());
    r.count = static_cast<std::uint32_t>(v.size());
    numbers.insert(numbers.end(), v.begin(), v.end());
    return r;
  }
  Series& add_series(std::string_view key, std::string_view label, std::vector<std::string_view> columns) {
    series.push_back(Series{key, label, std::move(columns), {}});
    return series.back();
  }
  // input() and item() are inlined and write their fields in place, a Value field by field
  // (append_with_value): a sweep row adds a dozen of each, and a whole-struct copy of a Value or Item
  // just built reads it back in 16-byte pieces that its narrower stores cannot forward to (a
  // stall of some 15 cycles each, most of a CSV row's time).
  [[gnu::always_inline]] void input(std::string_view name, const Value& v) { append_with_value(inputs, v).name = name; }

  template <class T>
  [[gnu::always_inline]] Item& item(std::string_view key, std::string_view label, const Value& v, std::string_view symbolic, const T& t) {
    Item& it = append_with_value(items, v);
    it.key = key;
    it.label = label;
    it.symbolic = symbolic;
    if (details) {
      it.substituted = intern(t);
    } else {  // field by field, as append_with_value: no TextRef temporary to copy
      it.substituted.pattern = t.pattern;
      it.substituted.first = 0;
      it.substituted.n = 0;
    }
    return it;
  }
  template <class T>
  void assume(std::string_view key, const T& t) {
    if (details) assumptions.push_back(Assumption{key, intern(t), {}});
  }
  template <class T>
  void warn(const T& t) {
    warnings.push_back(intern(t));  // warnings reach stderr whatever the output format
  }
  template <class T>
  void note(const T& t) {
    if (details) notes.push_back(intern(t));
  }
  /// A note the table, JSON ("notes") and --explain all show (not CSV).
  template <class T>
  void remark(const T& t) {
    if (details) remarks.push_back(intern(t));
  }

  TextView view(const TextRef& r) const { return TextView{r.pattern, operands.data() + r.first, r.n}; }

  const Item* find(std::string_view key) const {
    for (const auto& i : items)
      if (i.key == key) return &i;
    return nullptr;
  }
  const Input* find_input(std::string_view name) const {
    for (const auto& i : inputs)
      if (i.name == name) return &i;
    return nullptr;
  }

 private:
  // A new element of `vec` (inputs or items) holding `v`, which is read first: it may be an
  // element of `vec` itself, which emplace_back may move.
  template <class Vec>
  [[gnu::always_inline]] static typename Vec::value_type& append_with_value(Vec& vec, const Value& v) {
    const Value::Kind kind = v.kind;
    // The dimension byte by byte: a Value just built holds it as a zeroed block and one byte
    // store, which a single 8-byte load cannot forward from; bytes fold to one constant.
    DimRt dim;
    for (std::size_t i = 0; i < dim.e.size(); ++i) dim.e[i] = v.dim.e[i];
    const double num = v.num;
    const bool flag = v.flag;
    const std::string_view str = v.str;
    const std::uint32_t first = v.first, count = v.count;
    auto& e = vec.emplace_back();
    e.value.kind = kind;
    e.value.dim = dim;
    e.value.num = num;
    e.value.flag = flag;
    e.value.str = str;
    e.value.first = first;
    e.value.count = count;
    return e;
  }
  template <class... A>
  TextRef intern(const TextArgs<A...>& t) {
    const std::size_t first = operands.size();
    operands.resize(first + sizeof...(A));  // one capacity check, not one per operand
    Operand* out = operands.data() + first;
    std::apply([out](const A&... a) {
      [[maybe_unused]] std::size_t i = 0;
      (void)out;  // a pattern without operands uses neither (clang's -Wunused-lambda-capture)
      ((out[i++] = op(a)), ...);
    }, t.args);
    return TextRef{t.pattern, static_cast<std::uint32_t>(first), static_cast<std::uint8_t>(sizeof...(A))};
  }
  TextRef intern(const Text& t) {
    TextRef r{t.pattern, static_cast<std::uint32_t>(operands.size()), t.n};
    operands.insert(operands.end(), t.ops.begin(), t.ops.begin() + t.n);
    return r;
  }
  std::deque<std::string> kept_;
};

}  // namespace napkin
