// Fuzzes the safetensors header reader (include/napkin/specs/checkpoint.h, read_safetensors):
// the bytes are one .safetensors file. An accepted checkpoint's totals add up and every tensor
// fits in the file (checkpoint_invariants.h).
#include "checkpoint_invariants.h"
#include "napkin/ground/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace napkin;
  static const std::filesystem::path path = fuzz::scratch_file("model.safetensors");
  fuzz::write_file(path, fuzz::as_text(data, size));
  specs::Checkpoint c;
  try {
    c = specs::read_safetensors(path);
  } catch (const InputError&) {
    return 0;
  }
  NAPKIN_FUZZ_CHECK(c.format == "safetensors");
  fuzz::check_checkpoint(c, size);
  return 0;
}
