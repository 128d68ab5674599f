// Fuzzes the GGUF header reader (include/napkin/specs/checkpoint.h, read_gguf) and what is read
// from it (gguf_model_facts): the bytes are one .gguf file. An accepted file's totals add up and
// every tensor fits in the file (checkpoint_invariants.h).
#include "checkpoint_invariants.h"
#include "napkin/ground/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace napkin;
  static const std::filesystem::path path = fuzz::scratch_file("model.gguf");
  fuzz::write_file(path, fuzz::as_text(data, size));
  specs::Checkpoint c;
  try {
    c = specs::read_gguf(path);
  } catch (const InputError&) {
    return 0;
  }
  NAPKIN_FUZZ_CHECK(c.format == "gguf");
  fuzz::check_checkpoint(c, size);
  const specs::GgufModelFacts facts = specs::gguf_model_facts(c);
  // A vocabulary counted from tokenizer.ggml.tokens has one element (of at least 1 B) per token.
  const auto tokens = c.metadata.find("tokenizer.ggml.tokens");
  if (tokens != c.metadata.end() && tokens->second.type.starts_with("array"))
    NAPKIN_FUZZ_CHECK(facts.vocab_size && *facts.vocab_size <= size);
  return 0;
}
