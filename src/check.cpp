#include "napkin/check.h"

#include <fmt/format.h>

namespace napkin {

std::string format_plain_number(double v) { return fmt::format("{}", v); }

}  // namespace napkin
