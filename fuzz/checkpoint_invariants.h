// What every checkpoint a header reader accepts must satisfy (fuzz_safetensors, fuzz_gguf): the
// totals add up, per tensor and per storage type, no tensor holds more bytes than the file, and
// every tensor name has a group; and an accepted checkpoint holds at least one weight.
#pragma once

#include "fuzz_common.h"
#include "napkin/specs/checkpoint.h"

namespace napkin::fuzz {

inline void check_checkpoint(const specs::Checkpoint& c, std::size_t file_size) {
  std::uint64_t elements = 0, bytes = 0;
  for (const specs::TensorInfo& t : c.tensors) {
    elements += t.elements;
    bytes += t.bytes;
    NAPKIN_FUZZ_CHECK(t.bytes <= file_size);
    NAPKIN_FUZZ_CHECK(!specs::tensor_group(t.name).empty());
  }
  NAPKIN_FUZZ_CHECK(elements == c.total_elements && bytes == c.total_bytes);
  NAPKIN_FUZZ_CHECK(c.total_bytes <= file_size);
  std::uint64_t type_bytes = 0, type_tensors = 0;
  for (const specs::DtypeTotal& d : c.dtypes) {
    type_bytes += d.bytes;
    type_tensors += d.tensors;
  }
  NAPKIN_FUZZ_CHECK(type_bytes == c.total_bytes && type_tensors == c.tensors.size());
  // A checkpoint without weights is refused (no count of 0, no bits per weight of 0/0).
  NAPKIN_FUZZ_CHECK(!c.tensors.empty() && c.total_elements > 0);
}

}  // namespace napkin::fuzz
