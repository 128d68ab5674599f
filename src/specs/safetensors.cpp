// safetensors headers. Format (huggingface/safetensors, README "Format"): an unsigned 64-bit
// little-endian header length N, N bytes of JSON mapping each tensor name to {dtype, shape,
// data_offsets: [begin, end)} relative to the data section after the header, and an optional
// "__metadata__" object of strings. Sharded checkpoints add an index JSON whose weight_map names
// the shard of each tensor (transformers, modeling_utils.py, SAFE_WEIGHTS_INDEX_NAME).
//
// Only the 8-byte length and the header are read. The length is checked against the file size
// (and safetensors' own 100 MB cap) before anything is allocated, so a hostile length costs
// nothing. Headers parse in linear time through a SAX handler that hands each tensor over as it
// ends (BoundedBuilder), so tens of thousands of MoE expert tensors cost milliseconds.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <set>
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checkpoint_detail.h"
#include "napkin/ground/error.h"
#include "napkin/specs/checkpoint.h"
#include "napkin/specs/files.h"

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

// Builds JSON values from SAX events, in time linear in the text, refusing nesting deeper than
// kMaxJsonDepth. With a sink, each member of the top-level object goes to the sink as soon as it
// is complete and is not kept: a header of a million tensors never exists as one JSON value.
//
// (nlohmann::json::parse with a callback, which this replaces, rescans the parent object for
// discarded values each time a child object ends: quadratic in the number of tensors, 7 s for
// 40k tensors.)
class BoundedBuilder final : public nlohmann::json_sax<json> {
 public:
  using Sink = std::function<void(std::string& key, json& value)>;

  explicit BoundedBuilder(Sink sink = {}) : sink_(std::move(sink)) {}

  json root;
  bool too_deep = false;

  bool null() override { return put(json(nullptr)); }
  bool boolean(bool v) override { return put(json(v)); }
  bool number_integer(number_integer_t v) override { return put(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return put(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return put(json(v)); }
  bool string(string_t& v) override { return put(json(std::move(v))); }
  bool binary(binary_t& v) override { return put(json::binary(std::move(v))); }
  bool start_object(std::size_t) override { return open(json::object()); }
  bool start_array(std::size_t) override { return open(json::array()); }
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    error_position = position;
    error_id = e.id;
    if (const auto* pe = dynamic_cast<const json::parse_error*>(&e)) error_position = pe->byte;
    return false;
  }

  std::size_t error_position = 0;
  int error_id = 0;

 private:
  // Members of the top-level object go to the sink instead of into root.
  bool streaming() const { return sink_ && stack_.size() == 1 && root.is_object(); }

  // Where the next value goes; null when it is the root or a streamed member.
  json* place(json&& v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    json& parent = *stack_.back();
    if (streaming()) {
      member_key_ = std::move(key_);
      member_ = std::move(v);
      return &member_;
    }
    if (parent.is_object()) return &(parent[key_] = std::move(v));
    parent.push_back(std::move(v));
    return &parent.back();
  }

  bool put(json&& v) {
    const bool member = streaming();
    place(std::move(v));
    if (member) sink_(member_key_, member_);
    return true;
  }

  bool open(json&& v) {
    if (stack_.size() >= static_cast<std::size_t>(kMaxJsonDepth)) {
      too_deep = true;
      return false;
    }
    stack_.push_back(place(std::move(v)));
    return true;
  }

  bool close() {
    const bool member_done = stack_.size() == 2 && stack_.back() == &member_;
    stack_.pop_back();
    if (member_done) sink_(member_key_, member_);
    return true;
  }

  Sink sink_;
  std::vector<json*> stack_;  // the open containers, outermost first
  std::string key_;           // the key of the next value in an object
  std::string member_key_;    // the top-level member being built, when streaming
  json member_;
};

// Parses `text`; members of a top-level object go to `sink` when one is given.
json parse_json(const fs::path& path, std::string_view text, std::string_view what,
                BoundedBuilder::Sink sink = {}) {
  BoundedBuilder builder(std::move(sink));
  if (json::sax_parse(text, &builder)) return std::move(builder.root);
  if (builder.too_deep) fail(path, fmt::format("{} nests JSON deeper than {} levels", what, kMaxJsonDepth));
  if (builder.error_id == 406)
    fail(path, fmt::format("{} holds a number out of range (beyond 1.8e308); expected JSON numbers a double holds",
                           what));
  fail(path, fmt::format("{} is not JSON (syntax error at byte {})", what, builder.error_position));
}

std::string read_exactly(InputFile& in, const fs::path& path, std::uint64_t n, std::string_view what) {
  std::string bytes(static_cast<std::size_t>(n), '\0');
  if (!in.read(bytes.data(), n)) fail(path, fmt::format("cannot read the {} ({} B)", what, n));
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

Shard parse_header(const fs::path& path, std::string_view text, std::uint64_t data_bytes) {
  Shard shard;
  bool seen_metadata = false;
  const json header = parse_json(path, text, "header", [&](std::string& key, json& value) {
    if (key == "__metadata__") {
      if (seen_metadata) fail(path, "__metadata__ appears twice");
      seen_metadata = true;
      if (!value.is_object())
        fail(path, fmt::format("__metadata__ is a JSON {}; expected an object", value.type_name()));
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string())
          fail(path, fmt::format("__metadata__ '{}' is a JSON {}; expected a string", k, v.type_name()));
        shard.metadata[k] = MetadataValue{"string", v.get<std::string>(), 0};
      }
      return;
    }
    shard.tensors.push_back(parse_tensor(path, key, value, data_bytes));
  });
  if (!header.is_object())
    fail(path, fmt::format("header is a JSON {}; expected an object", header.type_name()));

  // A name twice would count one tensor twice (or, read as JSON, keep only the last).
  {
    std::unordered_set<std::string_view> names;
    names.reserve(shard.tensors.size());
    for (const Located& t : shard.tensors)
      if (!names.insert(t.info.name).second)
        fail(path, fmt::format("tensor '{}' appears twice in the header", detail::printable(t.info.name)));
  }

  std::sort(shard.tensors.begin(), shard.tensors.end(), [](const Located& a, const Located& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    if (a.end != b.end) return a.end < b.end;
    return a.info.name < b.info.name;
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

Shard read_shard(const fs::path& path) {
  InputFile in(path, detail::file_label(path));
  const std::uint64_t size = in.size();
  if (size < 8)
    fail(path, fmt::format("file is {} B, too short for the 8-byte header length", size));
  const std::string length_bytes = read_exactly(in, path, 8, "header length");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(length_bytes[i]);
  if (n > size - 8) fail(path, fmt::format("header length {} exceeds the file size ({} B)", n, size));
  if (n > kMaxHeaderBytes)
    fail(path, fmt::format("header length {} exceeds safetensors' limit of {} B", n,
                           kMaxHeaderBytes));
  // Only the header is read, never the weights after it.
  return parse_header(path, read_exactly(in, path, n, "header"), size - 8 - n);
}

Checkpoint checkpoint_of(const fs::path& path, Shard shard) {
  Checkpoint c;
  c.format = "safetensors";
  c.tensors.reserve(shard.tensors.size());
  for (Located& t : shard.tensors) c.tensors.push_back(std::move(t.info));
  c.metadata = std::move(shard.metadata);
  c.files.push_back(path);
  detail::tally(c, path);
  detail::require_weights(c, path);
  return c;
}

Checkpoint from_file(const fs::path& path) { return checkpoint_of(path, read_shard(path)); }


Checkpoint from_index(const fs::path& path) {
  InputFile in(path, detail::file_label(path));
  const std::uint64_t size = in.size();
  if (size > kMaxIndexBytes)
    fail(path, fmt::format("index is {} B, more than the {} B napkin reads", size, kMaxIndexBytes));
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
    c.index_total_size = detail::index_total_size(path, index);

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
  detail::require_weights(c, path);
  if (c.index_total_size && *c.index_total_size != c.total_bytes)
    c.warnings.push_back(fmt::format(
        "{}: metadata.total_size is {} B, but the shards' tensors hold {} B",
        detail::file_label(path), *c.index_total_size, c.total_bytes));
  return c;
}

}  // namespace

Checkpoint parse_safetensors_header(std::string_view header, std::uint64_t data_bytes,
                                    const fs::path& path) {
  return checkpoint_of(path, parse_header(path, header, data_bytes));
}

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

std::uint64_t detail::index_total_size(const fs::path& path, const json& index) {
  const json& size = index.at("metadata").at("total_size");
  if (size.is_number_unsigned()) return size.get<std::uint64_t>();
  // Some converters write the size as a float ("total_size": 16060522496.0).
  if (size.is_number_float()) {
    const double v = size.get<double>();
    if (v >= 0 && v < 18446744073709551616.0 && std::floor(v) == v)
      return static_cast<std::uint64_t>(v);
  }
  detail::fail(path, fmt::format("metadata.total_size is {}; expected a non-negative integer below 2^64 (bytes)",
                                 detail::printable(size.dump().substr(0, 40))));
}

}  // namespace napkin::specs
