// A check the user asked for that failed (--expect, --require-fit, ...): its stderr line, and
// why a memory ledger does not fit.
#pragma once

#include <string>
#include <string_view>

#include "napkin/ground/result.h"

namespace napkin::cli {

/// Why a ledger row does not fit, in one line: the per-GPU total, the capacity, the shortfall
/// and the largest item ("per GPU 64.61 GB > capacity 24.00 GB (short by 40.61 GB); largest item:
/// activations 42.86 GB"). `rs` holds per_gpu and headroom.
std::string fit_failure(const ResultSet& rs);
/// The stderr line of a check the user asked for that failed (exit 1 follows):
/// "napkin: --require-fit failed: <why>".
void report_check_failure(std::string_view check, const std::string& why);

}  // namespace napkin::cli
