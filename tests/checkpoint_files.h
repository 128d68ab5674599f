// Helpers for the checkpoint tests: a fresh temporary directory per test and little-endian
// byte builders for synthetic safetensors and GGUF files.
#pragma once

#include <initializer_list>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "napkin/ground/error.h"

namespace napkin::test {

/// A directory under the system temp dir, removed when the test ends.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("napkin-checkpoint-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// Little-endian bytes, appended field by field.
struct Bytes {
  std::string data;
  Bytes& raw(std::string_view s) {
    data += s;
    return *this;
  }
  Bytes& le(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) data += static_cast<char>((v >> (8 * i)) & 0xff);
    return *this;
  }
  Bytes& u8(std::uint8_t v) { return le(v, 1); }
  Bytes& u16(std::uint16_t v) { return le(v, 2); }
  Bytes& u32(std::uint32_t v) { return le(v, 4); }
  Bytes& u64(std::uint64_t v) { return le(v, 8); }
  Bytes& f32(float f) {
    std::uint32_t v = 0;
    std::memcpy(&v, &f, 4);
    return u32(v);
  }
  Bytes& f64(double f) {
    std::uint64_t v = 0;
    std::memcpy(&v, &f, 8);
    return u64(v);
  }
  Bytes& zeros(std::size_t n) {
    data.append(n, '\0');
    return *this;
  }
  /// GGUF string: u64 length, then the bytes.
  Bytes& str(std::string_view s) { return u64(s.size()).raw(s); }
  std::size_t size() const { return data.size(); }
};

inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

/// A safetensors file: the header's length, the header, then `data_bytes` zero bytes.
inline void write_safetensors(const std::filesystem::path& path, std::string_view header,
                              std::size_t data_bytes) {
  Bytes b;
  b.u64(header.size()).raw(header).zeros(data_bytes);
  write_file(path, b.data);
}

/// The message of the InputError `f` throws ("" when it throws none).
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const napkin::InputError& e) {
    return e.what();
  }
  return "";
}

// GGUF value types (ggml docs/gguf.md) and the ggml types the tests use (ggml.h).
namespace gguf_types {
enum : std::uint32_t { U8 = 0, I8, U16, I16, U32, I32, F32V, BOOL, STRING, ARRAY, U64, I64, F64V };
enum : std::uint32_t { F32 = 0, F16 = 1, Q4_0 = 2, Q8_0 = 8, Q4_K = 12, Q6_K = 14, IQ4_XS = 23 };
}  // namespace gguf_types

// Builds a GGUF file: key-values, tensor infos with offsets packed at 32-byte alignment, padding,
// then zero bytes for the data.
struct GgufBuilder {
  Bytes kvs, infos;
  std::uint64_t n_kv = 0, n_tensors = 0, next_offset = 0;

  Bytes& kv(std::string_view key, std::uint32_t type) {
    ++n_kv;
    return kvs.str(key).u32(type);
  }
  void tensor(std::string_view name, std::initializer_list<std::uint64_t> dims, std::uint32_t type,
              std::uint64_t bytes) {
    ++n_tensors;
    infos.str(name).u32(static_cast<std::uint32_t>(dims.size()));
    for (const std::uint64_t d : dims) infos.u64(d);
    infos.u32(type).u64(next_offset);
    next_offset += (bytes + 31) / 32 * 32;
  }
  std::string build(std::uint32_t version = 3) const {
    Bytes b;
    b.raw("GGUF").u32(version).u64(n_tensors).u64(n_kv).raw(kvs.data).raw(infos.data);
    b.zeros((32 - b.size() % 32) % 32).zeros(next_offset);
    return b.data;
  }
};

}  // namespace napkin::test
