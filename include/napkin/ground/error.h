// The one error type of napkin's input checks. The CLI turns it into a one-line message on
// stderr and exit code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace napkin {

/// Bad input: `field` is the flag or JSON pointer, `value` what was given ("(given)" for a switch,
/// "(with ...)" for a flag refused beside another), `expected` what would have been accepted. what() is the one-line message, without the "napkin: error: "
/// prefix.
class InputError : public std::runtime_error {
 public:
  InputError(std::string field, std::string value, std::string expected)
      : std::runtime_error(compose(field, value, expected)),
        field_(std::move(field)), value_(std::move(value)), expected_(std::move(expected)) {}
  /// "FIELD: 'VALUE' PROBLEM; expected EXPECTED", for a value that parsed as the wrong thing.
  InputError(std::string field, std::string value, std::string expected, const std::string& problem)
      : std::runtime_error(field + ": '" + value + "' " + problem + "; expected " + expected),
        field_(std::move(field)), value_(std::move(value)), expected_(std::move(expected)) {}
  /// A message that does not follow the field/value/expected shape.
  explicit InputError(const std::string& message) : std::runtime_error(message) {}

  const std::string& field() const { return field_; }
  const std::string& value() const { return value_; }
  const std::string& expected() const { return expected_; }

 private:
  // A switch has no value to quote: "(given)" reads "FIELD: expected ...", and a flag refused
  // beside another ("(with --zero 2)") reads "FIELD (with --zero 2): expected ...".
  static std::string compose(const std::string& f, const std::string& v, const std::string& e) {
    if (v == "(given)") return f + ": expected " + e;
    if ((v.rfind("(with ", 0) == 0 || v.rfind("(given with ", 0) == 0) && v.back() == ')')
      return f + " " + v + ": expected " + e;
    return f + ": '" + v + "': expected " + e;
  }
  std::string field_, value_, expected_;
};

}  // namespace napkin
