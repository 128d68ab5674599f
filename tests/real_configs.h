// The family tests' two helpers: a config from tests/real-configs/<name>/ (where its checkpoint
// total and provenance are, in SOURCE.md), and the whole-model KV cache of one sequence of 32Ki
// tokens in bf16 (windowed and chunked layers capped; an encoder-decoder's 32768 tokens into the
// encoder and 32768 generated), which each test compares with a hand computation.
#pragma once

#include <string>

#include "napkin/memory/ledgers.h"
#include "napkin/specs/hf_config.h"

namespace napkin_test {

inline napkin::specs::ModelSpec real_config(const std::string& name) {
  return napkin::specs::read_hf_config(std::string(NAPKIN_SOURCE_DIR) + "/tests/real-configs/" + name + "/config.json");
}

inline double kv_32k(const napkin::specs::ModelSpec& m) {
  using namespace napkin::units;
  return napkin::kv_cache(m, napkin::KvCacheInput{.batch = 1.0 * one, .context = 32768.0 * one,
                                                  .kv_dtype = napkin::Dtype::bf16})
      .in(byte);
}

}  // namespace napkin_test
