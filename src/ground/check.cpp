#include "napkin/ground/check.h"

#include <fmt/format.h>

namespace napkin {

std::string format_plain_number(double v) { return fmt::format("{}", v); }

void throw_check_failed(std::string_view name, double v, const char* expected) {
  throw InputError(std::string(name), format_plain_number(v), expected);
}

}  // namespace napkin
