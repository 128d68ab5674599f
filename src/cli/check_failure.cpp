// See check_failure.h.
#include "check_failure.h"

#include <fmt/format.h>

#include <cstdio>

#include "napkin/report/human_units.h"
#include "safe_output.h"

namespace napkin::cli {

std::string fit_failure(const ResultSet& rs) {
  const Item* per = rs.find("per_gpu");
  const Item* head = rs.find("headroom");
  if (per == nullptr || head == nullptr) return "the ledger does not fit";
  const DimRt b = per->value.dim;
  const Item* largest = nullptr;
  for (const Item& it : rs.items) {
    if (it.is_total) break;
    if (it.value.kind == Value::Kind::number && it.value.dim == b && (largest == nullptr || it.value.num > largest->value.num))
      largest = &it;
  }
  std::string s = "per GPU " + report::compact(per->value.num, b) + " > capacity " +
                  report::compact(per->value.num + head->value.num, b) + " (short by " +
                  report::compact(-head->value.num, b) + ")";
  if (largest != nullptr)
    s += "; largest item: " + std::string(largest->key) + " " + report::compact(largest->value.num, b);
  return s;
}

void report_check_failure(std::string_view check, const std::string& why) {
  std::fflush(stdout);  // unchecked: main checks stdout once more before it exits
  print_stderr(fmt::format("napkin: {} failed: {}\n", check, why));
}

}  // namespace napkin::cli
