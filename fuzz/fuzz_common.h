// Shared helpers of the libFuzzer harnesses (fuzz/fuzz_*.cpp). Each harness defines
// LLVMFuzzerTestOneInput: napkin::InputError is the expected answer to bad input and is caught;
// anything else (another exception, a crash, a sanitizer report, a failed invariant) escapes so
// that libFuzzer, or the replay driver (fuzz/replay_main.cpp), reports it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include <unistd.h>

namespace napkin::fuzz {

/// Stops the run with a message when an invariant fails (libFuzzer saves the input).
#define NAPKIN_FUZZ_CHECK(cond)                                                      \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                  \
    }                                                                                \
  } while (0)

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A per-process scratch directory (in /dev/shm when there is one, so the readers that take a
/// path cost no disk I/O), created on first use and removed at exit.
inline const std::filesystem::path& scratch_dir() {
  struct Scratch {
    std::filesystem::path path;
    Scratch() {
      std::error_code ec;
      const bool shm = std::filesystem::is_directory("/dev/shm", ec);
      path = (shm ? std::filesystem::path("/dev/shm") : std::filesystem::temp_directory_path()) /
             ("napkin-fuzz-" + std::to_string(::getpid()));
      std::filesystem::create_directories(path);
    }
    ~Scratch() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Scratch scratch;
  return scratch.path;
}

/// A file in the scratch directory.
inline std::filesystem::path scratch_file(std::string_view name) { return scratch_dir() / name; }

/// Writes `bytes` to `path` (replacing it); aborts when it cannot, since the harness is then
/// testing nothing.
inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  NAPKIN_FUZZ_CHECK(f != nullptr);
  NAPKIN_FUZZ_CHECK(std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size());
  NAPKIN_FUZZ_CHECK(std::fclose(f) == 0);
}

}  // namespace napkin::fuzz
