// safetensors headers. Format (huggingface/safetensors, README "Format"): an unsigned 64-bit
// little-endian header length N, N bytes of JSON mapping each tensor name to {dtype, shape,
// data_offsets: [begin, end)} relative to the data section after the header, and an optional
// "__metadata__" object of strings. Sharded checkpoints add an index JSON whose weight_map names
// the shard of each tensor (transformers, modeling_utils.py, SAFE_WEIGHTS_INDEX_NAME).
//
// Only the 8-byte length and the header are read. The length is checked against the file size
// before anything is allocated, so a hostile length costs nothing.
#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checkpoint_detail.h"
#include "napkin/error.h"
#include "napkin/specs/checkpoint.h"

namespace napkin::specs {

namespace fs = std::filesystem;
using nlohmann::json;
using detail::fail;

namespace {

// safetensors/src/tensor.rs: `const MAX_HEADER_SIZE: usize = 100_000_000;`
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;
// An index is JSON of a few MB at most (DeepSeek-V3's, with 91k tensors, is about 9 MB).
constexpr std::uint64_t kMaxIndexBytes = 100'000'000;
// Headers nest three levels deep; the limit only keeps a hostile file from nesting millions.
constexpr int kMaxJsonDepth = 16;

struct SafetensorsDtype {
  std::string_view name;
  unsigned bits;
};

// safetensors/src/tensor.rs, `enum Dtype` and `Dtype::bitsize()` (v0.6): sub-byte types (F4,
// F6_*) pack several elements per byte, so sizes are counted in bits.
constexpr std::array<SafetensorsDtype, 20> kDtypes = {{
    {"BOOL", 8},    {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},
    {"I8", 8},      {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"I16", 16},
    {"U16", 16},    {"F16", 16},    {"BF16", 16},   {"I32", 32},    {"U32", 32},
    {"F32", 32},    {"C64", 64},    {"F64", 64},    {"I64", 64},    {"U64", 64},
}};

const SafetensorsDtype* find_dtype(std::string_view name) {
  for (const auto& d : kDtypes)
    if (d.name == name) return &d;
  return nullptr;
}

std::string dtype_list() {
  std::string s;
  for (const auto& d : kDtypes) {
    if (!s.empty()) s += ", ";
    s += d.name;
  }
  return s;
}

struct Located {
  TensorInfo info;
  std::uint64_t begin = 0, end = 0;
};

struct Shard {
  std::vector<Located> tensors;  // by data offset
  std::map<std::string, MetadataValue> metadata;
};

struct TooDeep {};

json parse_json(const fs::path& path, const std::string& text, std::string_view what) {
  try {
    return json::parse(text, [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxJsonDepth) throw TooDeep{};
      return true;
    });
  } catch (const json::parse_error& e) {
    fail(path, fmt::format("{} is not JSON (syntax error at byte {})", what, e.byte));
  } catch (const json::out_of_range&) {
    fail(path, fmt::format("{} holds a number out of range (beyond 1.8e308); expected JSON numbers a double holds",
                           what));
  } catch (const TooDeep&) {
    fail(path, fmt::format("{} nests JSON deeper than {} levels", what, kMaxJsonDepth));
  }
}

std::string read_exactly(std::ifstream& in, const fs::path& path, std::uint64_t n,
                         std::string_view what) {
  std::string bytes(static_cast<std::size_t>(n), '\0');
  if (!in.read(bytes.data(), static_cast<std::streamsize>(n)))
    fail(path, fmt::format("cannot read the {} ({} B)", what, n));
  return bytes;
}

std::uint64_t unsigned_at(const json& j) { return j.get<std::uint64_t>(); }

[[noreturn]] void fail_tensor(const fs::path& path, const std::string& name, std::string_view what) {
  fail(path, fmt::format("tensor '{}': {}", detail::printable(name), what));
}

Located parse_tensor(const fs::path& path, const std::string& name, const json& entry,
                     std::uint64_t data_bytes) {
  if (!entry.is_object())
    fail_tensor(path, name, fmt::format("is a JSON {}; expected an object with dtype, shape and data_offsets",
                    entry.type_name()));
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!entry.contains(key)) fail_tensor(path, name, fmt::format("has no {}", key));

  const json& dtype = entry.at("dtype");
  if (!dtype.is_string()) fail_tensor(path, name, fmt::format("dtype is a JSON {}; expected a string", dtype.type_name()));
  const std::string dtype_name = dtype.get<std::string>();
  const SafetensorsDtype* d = find_dtype(dtype_name);
  if (d == nullptr)
    fail_tensor(path, name, fmt::format("dtype '{}' is not a safetensors dtype ({})", detail::printable(dtype_name),
                    dtype_list()));

  const json& shape = entry.at("shape");
  if (!shape.is_array() ||
      !std::all_of(shape.begin(), shape.end(), [](const json& x) { return x.is_number_unsigned(); }))
    fail_tensor(path, name, "shape is not an array of non-negative integers");
  std::vector<std::uint64_t> dims;
  for (const json& x : shape) dims.push_back(unsigned_at(x));

  const json& offsets = entry.at("data_offsets");
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned() || unsigned_at(offsets[0]) > unsigned_at(offsets[1]))
    fail_tensor(path, name, "data_offsets is not [begin, end] with 0 <= begin <= end");
  const std::uint64_t begin = unsigned_at(offsets[0]), end = unsigned_at(offsets[1]);

  const auto elements = detail::element_count(dims);
  if (!elements) fail_tensor(path, name, fmt::format("shape {} has more elements than 64 bits count", detail::shape_text(dims)));
  const auto bits = detail::checked_mul(*elements, d->bits);
  if (!bits) fail_tensor(path, name, fmt::format("shape {} of {} takes more bytes than 64 bits count", detail::shape_text(dims), d->name));
  if (*bits % 8 != 0)
    fail_tensor(path, name, fmt::format("shape {} of {} ({} bits each) does not fill whole bytes",
                    detail::shape_text(dims), d->name, d->bits));
  const std::uint64_t bytes = *bits / 8;
  if (end - begin != bytes)
    fail_tensor(path, name, fmt::format("data_offsets [{}, {}] hold {} B, but shape {} of {} takes {} B", begin, end,
                    end - begin, detail::shape_text(dims), d->name, bytes));
  if (end > data_bytes)
    fail_tensor(path, name, fmt::format("data_offsets [{}, {}] end past the data section ({} B)", begin, end,
                    data_bytes));

  Located t;
  t.info = TensorInfo{name, std::string(d->name), std::move(dims), *elements, bytes};
  t.begin = begin;
  t.end = end;
  return t;
}

Shard read_shard(const fs::path& path) {
  const std::uint64_t size = detail::regular_file_size(path);
  if (size < 8)
    fail(path, fmt::format("file is {} B, too short for the 8-byte header length", size));
  std::ifstream in = detail::open_binary(path);
  const std::string length_bytes = read_exactly(in, path, 8, "header length");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(length_bytes[i]);
  if (n > size - 8) fail(path, fmt::format("header length {} exceeds the file size ({} B)", n, size));
  if (n > kMaxHeaderBytes)
    fail(path, fmt::format("header length {} exceeds safetensors' limit of {} B", n,
                           kMaxHeaderBytes));

  const json header = parse_json(path, read_exactly(in, path, n, "header"), "header");
  if (!header.is_object())
    fail(path, fmt::format("header is a JSON {}; expected an object", header.type_name()));

  const std::uint64_t data_bytes = size - 8 - n;
  Shard shard;
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      if (!value.is_object())
        fail(path, fmt::format("__metadata__ is a JSON {}; expected an object", value.type_name()));
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string())
          fail(path, fmt::format("__metadata__ '{}' is a JSON {}; expected a string", k,
                                 v.type_name()));
        shard.metadata[k] = MetadataValue{"string", v.get<std::string>(), 0};
      }
      continue;
    }
    shard.tensors.push_back(parse_tensor(path, key, value, data_bytes));
  }

  std::sort(shard.tensors.begin(), shard.tensors.end(), [](const Located& a, const Located& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  // Empty tensors take no bytes and may share an offset with anything.
  const Located* previous = nullptr;
  for (const Located& t : shard.tensors) {
    if (t.begin == t.end) continue;
    if (previous != nullptr && t.begin < previous->end) {
      fail(path, fmt::format("tensors '{}' [{}, {}] and '{}' [{}, {}] overlap", previous->info.name,
                             previous->begin, previous->end, t.info.name, t.begin, t.end));
    }
    if (previous == nullptr || t.end > previous->end) previous = &t;
  }
  return shard;
}

Checkpoint from_file(const fs::path& path) {
  Shard shard = read_shard(path);
  Checkpoint c;
  c.format = "safetensors";
  for (Located& t : shard.tensors) c.tensors.push_back(std::move(t.info));
  c.metadata = std::move(shard.metadata);
  c.files.push_back(path);
  detail::tally(c, path);
  return c;
}

std::uint64_t index_total_size(const fs::path& path, const json& index) {
  const json& size = index.at("metadata").at("total_size");
  if (size.is_number_unsigned()) return size.get<std::uint64_t>();
  // Some converters write the size as a float ("total_size": 16060522496.0).
  if (size.is_number_float()) {
    const double v = size.get<double>();
    if (v >= 0 && v < 18446744073709551616.0 && std::floor(v) == v)
      return static_cast<std::uint64_t>(v);
  }
  fail(path, "metadata.total_size is not a non-negative integer");
}

Checkpoint from_index(const fs::path& path) {
  const std::uint64_t size = detail::regular_file_size(path);
  if (size > kMaxIndexBytes)
    fail(path, fmt::format("index is {} B, more than the {} B napkin reads", size, kMaxIndexBytes));
  std::ifstream in = detail::open_binary(path);
  const json index = parse_json(path, read_exactly(in, path, size, "index"), "index");
  if (!index.is_object())
    fail(path, fmt::format("index is a JSON {}; expected an object", index.type_name()));
  if (!index.contains("weight_map") || !index.at("weight_map").is_object())
    fail(path, "index has no weight_map object");
  const json& weight_map = index.at("weight_map");
  if (weight_map.empty()) fail(path, "weight_map is empty");

  // shard file name -> the tensors the index puts there
  std::map<std::string, std::set<std::string>> shards;
  for (const auto& [tensor, file] : weight_map.items()) {
    if (!file.is_string())
      fail(path, fmt::format("weight_map '{}' is a JSON {}; expected a file name", tensor,
                             file.type_name()));
    const std::string name = file.get<std::string>();
    // Shards live beside the index; a path elsewhere is refused rather than followed.
    const fs::path p(name);
    if (name.empty() || p.has_parent_path() || p.is_absolute() || name == "." || name == "..")
      fail(path, fmt::format("weight_map '{}' names '{}', which is not a file beside the index",
                             tensor, detail::printable(name)));
    shards[name].insert(tensor);
  }

  Checkpoint c;
  c.format = "safetensors";
  c.files.push_back(path);
  if (index.contains("metadata") && index.at("metadata").is_object() &&
      index.at("metadata").contains("total_size"))
    c.index_total_size = index_total_size(path, index);

  std::map<std::string, std::string> shard_of;  // tensor -> shard, to catch a tensor in two
  const fs::path dir = path.parent_path();
  for (const auto& [name, expected] : shards) {
    const fs::path shard_path = dir / name;
    Shard shard = read_shard(shard_path);
    std::set<std::string> present;
    std::uint64_t unlisted = 0;
    for (Located& t : shard.tensors) {
      const auto [it, inserted] = shard_of.emplace(t.info.name, name);
      if (!inserted)
        fail(path, fmt::format("tensor '{}' is in both {} and {}", t.info.name, it->second, name));
      present.insert(t.info.name);
      if (!expected.contains(t.info.name)) ++unlisted;
      c.tensors.push_back(std::move(t.info));
    }
    for (const std::string& tensor : expected)
      if (!present.contains(tensor))
        fail(path, fmt::format("weight_map puts '{}' in {}, whose header does not list it", tensor,
                               name));
    if (unlisted > 0)
      c.warnings.push_back(fmt::format(
          "{}: {} tensor(s) not in the index's weight_map; counted anyway", name, unlisted));
    for (auto& [k, v] : shard.metadata) c.metadata.emplace(k, std::move(v));
    c.files.push_back(shard_path);
  }
  detail::tally(c, path);
  if (c.index_total_size && *c.index_total_size != c.total_bytes)
    c.warnings.push_back(fmt::format(
        "{}: metadata.total_size is {} B, but the shards' tensors hold {} B",
        detail::file_label(path), *c.index_total_size, c.total_bytes));
  return c;
}

}  // namespace

Checkpoint read_safetensors(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const auto file = find_checkpoint(path);
    const std::string name = file ? file->filename().string() : "";
    if (!file || !(name.ends_with(".safetensors") || name.ends_with(".safetensors.index.json")))
      throw InputError(path.string() +
                       ": holds no *.safetensors.index.json or .safetensors file");
    return read_safetensors(*file);
  }
  if (path.filename().string().ends_with(".json")) return from_index(path);
  return from_file(path);
}

}  // namespace napkin::specs
