// Typed reads of one JSON object's fields for the spec readers (hf_config.cpp, napkin_json.cpp).
// Every error names the file and the JSON pointer, then the value or what is missing:
//   config.json: /num_hidden_layers: missing; expected a positive integer (number of layers L)
//   llama.json: /num_key_value_heads: expected a positive integer (key/value heads), got -8
// Reads go through j.at(), never operator[] (which would insert a missing key).
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "napkin/ground/error.h"

namespace napkin::specs {

class JsonFields {
 public:
  using json = nlohmann::json;
  using i64 = std::int64_t;

  JsonFields(const json& j, std::string file, std::string prefix)
      : j_(j), file_(std::move(file)), prefix_(std::move(prefix)), seen_(std::make_shared<std::set<std::string, std::less<>>>()) {}
  /// Another object read in place of `like`'s (a copy with class defaults filled in): same file,
  /// prefix and record of the keys looked at.
  JsonFields(const json& j, const JsonFields& like) : j_(j), file_(like.file_), prefix_(like.prefix_), seen_(like.seen_) {}

  /// Present and not null. Every key asked about is recorded (looked_at): a reader that never
  /// asks for a key does not count what it says.
  bool has(const char* key) const {
    seen_->emplace(key);
    return j_.contains(key) && !j_.at(key).is_null();
  }
  /// Whether a reader asked about `key` (through has(), which every typed read calls).
  bool looked_at(std::string_view key) const { return seen_->find(key) != seen_->end(); }
  /// The value itself (precondition: has(key)).
  const json& raw(const char* key) const { return j_.at(key); }
  /// The whole object, and where it sits (for a copy with a family's class defaults filled in).
  const json& object() const { return j_; }
  const std::string& file() const { return file_; }
  const std::string& prefix() const { return prefix_; }
  std::string where(const char* key) const { return file_ + ": " + prefix_ + "/" + key; }

  [[noreturn]] void missing(const char* key, const char* what) const {
    throw InputError(where(key) + ": missing; expected " + what);
  }
  /// A value that is not `what` (missing() when the key is absent: a class default out of range).
  [[noreturn]] void bad(const char* key, const char* what) const {
    if (!j_.contains(key)) missing(key, what);
    throw InputError(where(key) + ": expected " + what + ", got " + j_.at(key).dump());
  }
  /// Integer fields stay below 2^53: every integer up to there is a double (results are printed
  /// as doubles) and sums of two fields cannot overflow.
  static constexpr i64 kMaxInteger = i64{1} << 53;
  [[noreturn]] void too_large(const char* key, const char* what) const {
    throw InputError(where(key) + ": expected " + what + " below 2^53 = 9007199254740992, got " + j_.at(key).dump());
  }

  /// An integer of at least `min`; `fallback` when absent (missing() when there is none).
  /// Integral floats (4096.0, written by some exporters) are accepted.
  i64 integer(const char* key, const char* what, i64 min, std::optional<i64> fallback) const {
    if (!has(key)) {
      if (fallback) return *fallback;
      missing(key, what);
    }
    const json& v = j_.at(key);
    i64 n = 0;
    if (v.is_number_unsigned()) {
      if (v.get<std::uint64_t>() >= kMaxInteger) too_large(key, what);
      n = v.get<i64>();
    } else if (v.is_number_integer()) {
      n = v.get<i64>();
    } else if (v.is_number_float()) {
      // Range first: converting a double beyond 2^63 to an integer is undefined.
      const double d = v.get<double>();
      if (std::fabs(d) < static_cast<double>(kMaxInteger) && std::floor(d) == d) n = static_cast<i64>(d);
      else if (std::floor(d) == d && d > 0) too_large(key, what);
      else bad(key, what);
    } else {
      bad(key, what);
    }
    if (n < min) bad(key, what);
    if (n >= kMaxInteger) too_large(key, what);
    return n;
  }
  i64 positive(const char* key, const char* what) const { return integer(key, what, 1, std::nullopt); }
  i64 int_or(const char* key, i64 fallback, const char* what) const { return integer(key, what, 0, fallback); }

  /// The first present key of several spellings (hidden_size / n_embd / d_model).
  i64 positive_any(std::initializer_list<const char*> keys, const char* what) const {
    for (const char* k : keys)
      if (has(k)) return positive(k, what);
    std::string also;
    for (auto it = keys.begin() + 1; it != keys.end(); ++it)
      also += std::string(also.empty() ? "" : ", ") + prefix_ + "/" + *it;
    throw InputError(where(*keys.begin()) + ": missing (also looked for " + also + "); expected " + what);
  }

  bool bool_or(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!j_.at(key).is_boolean()) bad(key, "true or false");
    return j_.at(key).get<bool>();
  }
  /// A probability in [0, 1] (a dropout rate), `fallback` when absent.
  double probability_or(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const json& v = j_.at(key);
    if (!v.is_number() || !(v.get<double>() >= 0.0 && v.get<double>() <= 1.0)) bad(key, "a probability from 0 to 1");
    return v.get<double>();
  }
  /// A finite number above zero, `fallback` when absent.
  double positive_number_or(const char* key, double fallback, const char* what) const {
    if (!has(key)) return fallback;
    const json& v = j_.at(key);
    if (!v.is_number() || !(v.get<double>() > 0.0 && v.get<double>() < 1e300)) bad(key, what);
    return v.get<double>();
  }
  std::string str_or(const char* key, std::string fallback) const {
    if (!has(key)) return fallback;
    if (!j_.at(key).is_string()) bad(key, "a string");
    return j_.at(key).get<std::string>();
  }

  /// One of the named values.
  template <class E>
  E choice(const char* key, E fallback, std::initializer_list<std::pair<const char*, E>> options) const {
    if (!has(key)) return fallback;
    const std::string s = str_or(key, "");
    std::string names;
    for (const auto& [n, e] : options) {
      if (s == n) return e;
      names += std::string(names.empty() ? "" : ", ") + n;
    }
    throw InputError(where(key) + ": expected one of " + names + ", got \"" + s + "\"");
  }

  /// True when the field is an array with at least one element.
  bool nonempty_array(const char* key) const { return has(key) && j_.at(key).is_array() && !j_.at(key).empty(); }

  /// The fields of a nested object (an empty one when absent).
  JsonFields sub(const char* key) const {
    static const json kEmpty = json::object();
    if (!has(key)) return JsonFields(kEmpty, file_, prefix_ + "/" + key);
    if (!j_.at(key).is_object()) bad(key, "an object");
    return JsonFields(j_.at(key), file_, prefix_ + "/" + key);
  }

 private:
  const json& j_;
  std::string file_, prefix_;
  std::shared_ptr<std::set<std::string, std::less<>>> seen_;  // shared by copies and by (j, like)
};

}  // namespace napkin::specs
