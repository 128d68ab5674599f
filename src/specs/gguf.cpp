// GGUF headers. Layout (ggml docs/gguf.md, "File Structure"; versions 2 and 3 share it, v3 only
// adds big-endian files, which napkin refuses): magic "GGUF", u32 version, u64 tensor_count,
// u64 kv_count, then kv_count key-values (string key, u32 value type, value), then tensor_count
// tensor infos (string name, u32 n_dims, n_dims × u64 dims, u32 ggml type, u64 offset), then
// padding to general.alignment (default 32) and the data section. Strings are a u64 length and
// that many bytes. All integers are little-endian.
//
// Every length and count read from the file is checked against the bytes left in it before
// anything is allocated or looped over: a count of 2^60 tensors fails at once instead of
// allocating.
#include <algorithm>
#include <array>
#include <bit>
#include <optional>
#include <utility>
#include <set>

#include <fmt/format.h>

#include "checkpoint_detail.h"
#include "napkin/ground/error.h"
#include "napkin/ground/sanitize.h"
#include "napkin/model/ggml_types.h"
#include "napkin/specs/checkpoint.h"
#include "napkin/specs/files.h"

namespace napkin::specs {

namespace fs = std::filesystem;
using detail::fail;

namespace {

// docs/gguf.md `enum gguf_metadata_value_type`, with the sizes of the fixed-size ones.
enum ValueType : std::uint32_t {
  kU8 = 0, kI8, kU16, kI16, kU32, kI32, kF32, kBool, kString, kArray, kU64, kI64, kF64,
};
constexpr std::array<std::string_view, 13> kValueTypeNames = {
    "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};
constexpr std::array<std::uint64_t, 13> kValueTypeSizes = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
// Fewest bytes one value of a type can take: a string is at least its u64 length, an array at
// least its u32 element type and u64 count.
constexpr std::uint64_t min_value_bytes(std::uint32_t type) {
  return type == kString ? 8 : type == kArray ? 12 : kValueTypeSizes[type];
}

// docs/gguf.md: "keys ... must be at most 2^16-1 bytes long". Tensor names get the same bound;
// ggml itself allows 63 B (GGML_MAX_NAME).
constexpr std::uint64_t kMaxNameBytes = 65535;
// Longer string values are summarised rather than kept (chat templates run to a few kB).
constexpr std::uint64_t kMaxKeptString = 4096;
// Array elements shown in a metadata summary.
constexpr std::uint64_t kShownElements = 4;
// Nested arrays recurse; real files nest at most once.
constexpr int kMaxArrayDepth = 8;
// ggml/include/ggml.h: GGML_MAX_DIMS.
constexpr std::uint32_t kMaxDims = 4;
// docs/gguf.md: GGUF_DEFAULT_ALIGNMENT.
constexpr std::uint64_t kDefaultAlignment = 32;
// Fewest bytes a key-value can take (u64 key length, u32 type, a u8 value) and a tensor info
// (u64 name length, u32 n_dims, u32 type, u64 offset).
constexpr std::uint64_t kMinKvBytes = 8 + 4 + 1;
constexpr std::uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;

// Sequential little-endian reads that know how many bytes are left and say which field ran out.
class Reader {
 public:
  explicit Reader(const fs::path& path) : path_(path), in_(path, detail::file_label(path)) {}

  std::uint64_t position() const { return in_.position(); }
  std::uint64_t left() const { return in_.left(); }
  std::uint64_t size() const { return in_.size(); }

  void need(std::uint64_t n, std::string_view field) const {
    if (n > left())
      fail(path_, fmt::format("file ends inside {} (at byte {}: needs {} B, {} B left)", field,
                              position(), n, left()));
  }

  void read(void* out, std::uint64_t n, std::string_view field) {
    need(n, field);
    const std::uint64_t at = position();
    if (!in_.read(out, n)) fail(path_, fmt::format("cannot read {} at byte {}", field, at));
  }

  template <class T>
  T integer(std::string_view field) {
    unsigned char b[sizeof(T)];
    read(b, sizeof(T), field);
    std::uint64_t v = 0;
    for (int i = static_cast<int>(sizeof(T)) - 1; i >= 0; --i) v = (v << 8) | b[i];
    return static_cast<T>(v);
  }

  void skip(std::uint64_t n, std::string_view field) {
    need(n, field);
    const std::uint64_t at = position();
    if (!in_.skip(n)) fail(path_, fmt::format("cannot skip {} at byte {}", field, at));
  }

  /// A u64 length checked against the bytes left, and against `max` when given.
  std::uint64_t length(std::string_view field, std::uint64_t max = UINT64_MAX) {
    const auto n = integer<std::uint64_t>(fmt::format("{} length", field));
    if (n > left())
      fail(path_, fmt::format("{} length {} exceeds the {} B left in the file", field, n, left()));
    if (n > max) fail(path_, fmt::format("{} length {} exceeds GGUF's limit of {} B", field, n, max));
    return n;
  }

  std::string string(std::string_view field, std::uint64_t max = UINT64_MAX) {
    const std::uint64_t n = length(field, max);
    std::string s(static_cast<std::size_t>(n), '\0');
    read(s.data(), n, field);
    return s;
  }

  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  InputFile in_;
};

std::string scalar_text(Reader& r, std::uint32_t type, std::string_view field) {
  switch (type) {
    case kU8: return std::to_string(r.integer<std::uint8_t>(field));
    case kI8: return std::to_string(r.integer<std::int8_t>(field));
    case kU16: return std::to_string(r.integer<std::uint16_t>(field));
    case kI16: return std::to_string(r.integer<std::int16_t>(field));
    case kU32: return std::to_string(r.integer<std::uint32_t>(field));
    case kI32: return std::to_string(r.integer<std::int32_t>(field));
    case kU64: return std::to_string(r.integer<std::uint64_t>(field));
    case kI64: return std::to_string(r.integer<std::int64_t>(field));
    case kF32: return fmt::format("{}", std::bit_cast<float>(r.integer<std::uint32_t>(field)));
    case kF64: return fmt::format("{}", std::bit_cast<double>(r.integer<std::uint64_t>(field)));
    case kBool: return r.integer<std::uint8_t>(field) != 0 ? "true" : "false";
    default: break;
  }
  fail(r.path(), fmt::format("{}: value type {} is not a scalar", field, type));
}

std::uint32_t value_type(Reader& r, std::string_view field) {
  const auto type = r.integer<std::uint32_t>(field);
  if (type >= kValueTypeNames.size())
    fail(r.path(), fmt::format("{} is {}; expected a GGUF value type 0-12", field, type));
  return type;
}

MetadataValue read_value(Reader& r, std::uint32_t type, const std::string& field, int depth) {
  if (type == kString) {
    const std::uint64_t n = r.length(field);
    if (n > kMaxKeptString) {
      r.skip(n, field);
      return {"string", fmt::format("<string of {} B>", n), 0};
    }
    std::string s(static_cast<std::size_t>(n), '\0');
    r.read(s.data(), n, field);
    return {"string", std::move(s), 0};
  }
  if (type != kArray) return {std::string(kValueTypeNames[type]), scalar_text(r, type, field), 0};

  if (depth >= kMaxArrayDepth)
    fail(r.path(), fmt::format("{} nests arrays deeper than {} levels", field, kMaxArrayDepth));
  const std::uint32_t element_type = value_type(r, field + " element type");
  const auto count = r.integer<std::uint64_t>(field + " count");
  const std::uint64_t min_bytes = min_value_bytes(element_type);
  if (count > r.left() / min_bytes)
    fail(r.path(), fmt::format("{} count {} exceeds what the {} B left in the file can hold "
                               "({} B per {})",
                               field, count, r.left(), min_bytes, kValueTypeNames[element_type]));

  MetadataValue v;
  v.type = fmt::format("array[{}]", kValueTypeNames[element_type]);
  v.array_length = count;
  std::vector<std::string> shown;
  const std::uint64_t fixed = kValueTypeSizes[element_type];
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::string element = fmt::format("{}[{}]", field, i);
    if (i >= kShownElements && fixed > 0) {
      r.skip((count - i) * fixed, element);  // count ≤ left / fixed: no overflow
      break;
    }
    if (i >= kShownElements && element_type == kString) {
      r.skip(r.length(element), element);
      continue;
    }
    MetadataValue e = read_value(r, element_type, element, depth + 1);
    if (i < kShownElements) shown.push_back(element_type == kString ? "\"" + e.text + "\"" : e.text);
  }
  std::string text(1, '[');
  for (std::size_t i = 0; i < shown.size(); ++i) {
    if (i > 0) text += ", ";
    text += shown[i];
  }
  if (count > shown.size()) text += fmt::format(", … {} items", count);
  text += ']';
  v.text = std::move(text);
  return v;
}

// ---- what the metadata's values must be -------------------------------------------------------
// llama.cpp reads a hyperparameter with the type the converter writes (gguf-py, llama.cpp
// src/llama-model-loader.cpp get_key: a key of another type is an error there). napkin takes a
// hyperparameter of any integer type that holds a non-negative value (a u64 for a u32 is the same
// number), and refuses one of another type, a negative one, a zero where a model needs one or
// more, and a per-layer array whose length is not block_count (get_key_or_arr: "key %s has wrong
// array length"). Before, `params` read past such values silently (gguf_model_facts skips them).

bool is_integer_type(std::string_view type) {
  return type == "u8" || type == "i8" || type == "u16" || type == "i16" || type == "u32" || type == "i32" ||
         type == "u64" || type == "i64";
}

// Integer hyperparameters under `<arch>.` (docs/gguf.md "LLM"; llama.cpp src/llama-arch.cpp
// LLM_KV_NAMES): whether llama.cpp takes a per-layer array for it (get_key_or_arr), and whether it
// must be at least 1.
struct IntegerKey {
  std::string_view key;
  bool per_layer;
  bool positive;
};
constexpr IntegerKey kIntegerKeys[] = {
    {"block_count", false, true},
    {"context_length", false, true},
    {"embedding_length", false, true},
    {"feed_forward_length", true, false},
    {"attention.head_count", true, false},     // 0 in SSM files (mamba)
    {"attention.head_count_kv", true, false},
    {"attention.key_length", false, false},
    {"attention.value_length", false, false},
    {"attention.sliding_window", false, false},
    {"expert_count", false, false},
    {"expert_used_count", false, false},
    {"expert_feed_forward_length", false, false},
    {"expert_shared_feed_forward_length", false, false},
    {"expert_shared_count", false, false},
    {"leading_dense_block_count", false, false},
    {"rope.dimension_count", false, false},
    {"vocab_size", false, true},
};

// A string value or key that is not UTF-8 (docs/gguf.md: "gguf_string_t ... UTF-8").
bool is_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string shown(const MetadataValue& v) {
  return fmt::format("'{}' ({})", detail::printable(v.text.substr(0, 80)), v.type);
}

void check_metadata(const Checkpoint& c, const fs::path& path) {
  const auto& meta = c.metadata;
  const auto find = [&meta](const std::string& key) -> const MetadataValue* {
    const auto it = meta.find(key);
    return it == meta.end() ? nullptr : &it->second;
  };
  for (const auto& [key, value] : meta) {
    if (!is_utf8(key)) fail(path, fmt::format("key '{}' is not UTF-8; expected a UTF-8 key", detail::printable(key)));
    if (value.type == "string" && !is_utf8(value.text))
      fail(path, fmt::format("{} is '{}', which is not UTF-8; expected a UTF-8 string", key,
                             detail::printable(value.text.substr(0, 80))));
  }
  const MetadataValue* arch = find("general.architecture");
  if (arch != nullptr && arch->type != "string")
    fail(path, fmt::format("general.architecture is {}; expected a string such as 'llama'", shown(*arch)));
  for (std::string_view key : {"general.file_type", "general.quantization_version"})
    if (const MetadataValue* v = find(std::string(key)); v != nullptr && !is_integer_type(v->type))
      fail(path, fmt::format("{} is {}; expected an integer (u32)", key, shown(*v)));

  // The tokenizer's arrays: one entry per token.
  const MetadataValue* tokens = find("tokenizer.ggml.tokens");
  if (tokens != nullptr && tokens->type != "array[string]")
    fail(path, fmt::format("tokenizer.ggml.tokens is {}; expected an array of strings (one per token)", tokens->type));
  for (const auto& [key, element] : {std::pair<std::string_view, std::string_view>{"tokenizer.ggml.scores", "f32"},
                                     {"tokenizer.ggml.token_type", "i32"}}) {
    const MetadataValue* v = find(std::string(key));
    if (v == nullptr) continue;
    if (v->type != fmt::format("array[{}]", element))
      fail(path, fmt::format("{} is {}; expected an array of {} (one per token)", key, v->type, element));
    if (tokens != nullptr && v->array_length != tokens->array_length)
      fail(path, fmt::format("{} has {} entries for the {} of tokenizer.ggml.tokens; expected one per token", key,
                             v->array_length, tokens->array_length));
  }
  if (const MetadataValue* v = find("tokenizer.ggml.merges"); v != nullptr && v->type != "array[string]")
    fail(path, fmt::format("tokenizer.ggml.merges is {}; expected an array of strings", v->type));
  for (std::string_view id : {"bos", "eos", "unknown", "separator", "padding", "eot", "eom"}) {
    const std::string key = fmt::format("tokenizer.ggml.{}_token_id", id);
    const MetadataValue* v = find(key);
    if (v == nullptr) continue;
    if (!is_integer_type(v->type) || v->text.starts_with('-'))
      fail(path, fmt::format("{} is {}; expected a token id (u32)", key, shown(*v)));
    if (tokens != nullptr && std::stoull(v->text) >= tokens->array_length)
      fail(path, fmt::format("{} is {}, past the {} tokens of tokenizer.ggml.tokens; expected a token id below {}",
                             key, v->text, tokens->array_length, tokens->array_length));
  }

  if (arch == nullptr) return;
  const std::string a = arch->text;
  // An architecture's hyperparameters are `<arch>.*`: a file that states an architecture and none
  // of them was written for another name (a LoRA adapter, general.type "adapter", has none).
  const MetadataValue* type = find("general.type");
  const bool adapter = type != nullptr && type->text == "adapter";
  bool any = false;
  for (const auto& [key, value] : meta) any = any || (key.size() > a.size() && key.starts_with(a + "."));
  if (!any && !adapter)
    fail(path, fmt::format("general.architecture is '{}' but no '{}.' key is present; expected the architecture's "
                           "hyperparameters ({}.block_count, {}.embedding_length, ...)",
                           detail::printable(a), detail::printable(a), detail::printable(a), detail::printable(a)));

  std::optional<std::uint64_t> layers;
  for (const IntegerKey& k : kIntegerKeys) {
    const std::string key = a + "." + std::string(k.key);
    const MetadataValue* v = find(key);
    if (v == nullptr) continue;
    const std::string name = detail::printable(key);
    if (v->type.starts_with("array")) {
      if (!k.per_layer) fail(path, fmt::format("{} is an {}; expected one integer", name, v->type));
      if (!is_integer_type(std::string_view(v->type).substr(6, v->type.size() - 7)))
        fail(path, fmt::format("{} is an {}; expected one integer, or an array of integers (one per layer)", name,
                               v->type));
      if (layers && v->array_length != *layers)
        fail(path, fmt::format("{} has {} entries for {} layers ({}.block_count); expected one per layer", name,
                               v->array_length, *layers, detail::printable(a)));
      continue;
    }
    if (!is_integer_type(v->type) || v->text.starts_with('-'))
      fail(path, fmt::format("{} is {}; expected a non-negative integer", name, shown(*v)));
    if (k.positive && v->text == "0") fail(path, fmt::format("{} is 0; expected at least 1", name));
    if (k.key == "block_count") layers = std::stoull(v->text);
  }
  // A query head shares its K and V with others, never the reverse (llama.cpp: n_gqa = n_head / n_head_kv).
  const MetadataValue* heads = find(a + ".attention.head_count");
  const MetadataValue* kv = find(a + ".attention.head_count_kv");
  if (heads != nullptr && kv != nullptr && heads->array_length == 0 && kv->array_length == 0 &&
      std::stoull(heads->text) > 0 && std::stoull(kv->text) > std::stoull(heads->text))
    fail(path, fmt::format("{0}.attention.head_count_kv is {1}, more than {0}.attention.head_count {2}; expected at "
                           "most as many KV heads as query heads",
                           detail::printable(a), kv->text, heads->text));
}

struct Located {
  TensorInfo info;
  std::uint64_t offset = 0;
};

Located read_tensor_info(Reader& r, std::uint64_t i) {
  const std::string where = fmt::format("tensor[{}]", i);
  std::string name = r.string(where + " name", kMaxNameBytes);
  const std::string label = fmt::format("tensor '{}'", detail::printable(name));
  const auto n_dims = r.integer<std::uint32_t>(label + " n_dims");
  if (n_dims > kMaxDims)
    fail(r.path(), fmt::format("{}: n_dims {} exceeds ggml's limit of {} (GGML_MAX_DIMS)", label,
                               n_dims, kMaxDims));
  std::vector<std::uint64_t> dims;
  for (std::uint32_t d = 0; d < n_dims; ++d) {
    const auto dim = r.integer<std::int64_t>(fmt::format("{} dimension {}", label, d));
    if (dim < 0)
      fail(r.path(), fmt::format("{}: dimension {} is {}; expected a size >= 0", label, d, dim));
    dims.push_back(static_cast<std::uint64_t>(dim));
  }
  const auto type_id = r.integer<std::uint32_t>(label + " type");
  const GgmlType* type = find_ggml_type(type_id);
  if (type == nullptr)
    fail(r.path(), fmt::format("{}: ggml type {} is not one napkin knows (0-3, 6-39)", label,
                               type_id));
  const auto offset = r.integer<std::uint64_t>(label + " offset");

  const auto elements = detail::element_count(dims);
  if (!elements)
    fail(r.path(), fmt::format("{}: shape {} has more elements than 64 bits count", label,
                               detail::shape_text(dims)));
  // ggml stores whole blocks along the first dimension (gguf.cpp checks the same).
  const std::uint64_t row = dims.empty() ? 1 : dims[0];
  if (row % type->block != 0)
    fail(r.path(), fmt::format("{}: first dimension {} is not a multiple of the {} block size {}",
                               label, row, type->name, type->block));
  const auto bytes = detail::checked_mul(*elements / type->block, type->bytes);
  if (!bytes)
    fail(r.path(), fmt::format("{}: shape {} of {} takes more bytes than 64 bits count", label,
                               detail::shape_text(dims), type->name));
  Located t;
  t.info = TensorInfo{std::move(name), std::string(type->name), std::move(dims), *elements, *bytes};
  t.offset = offset;
  return t;
}

}  // namespace

Checkpoint read_gguf(const fs::path& path) {
  Reader r(path);
  char magic[4];
  r.read(magic, 4, "the magic");
  if (std::string_view(magic, 4) != "GGUF")
    fail(path, fmt::format("magic is '{}'; expected 'GGUF'",
                           detail::printable(std::string_view(magic, 4))));
  const auto version = r.integer<std::uint32_t>("version");
  if (version != 2 && version != 3) {
    const bool swapped = version == 0x02000000u || version == 0x03000000u;
    fail(path, fmt::format("version {} is not supported{}; expected 2 or 3", version,
                           swapped ? " (a big-endian file?)" : ""));
  }
  const auto tensor_count = r.integer<std::uint64_t>("tensor_count");
  const auto kv_count = r.integer<std::uint64_t>("kv_count");
  if (kv_count > r.left() / kMinKvBytes)
    fail(path, fmt::format("kv_count {} exceeds what the {} B left in the file can hold ({} B "
                           "per key-value at least)",
                           kv_count, r.left(), kMinKvBytes));

  Checkpoint c;
  c.format = "gguf";
  c.files.push_back(path);
  std::uint64_t alignment = kDefaultAlignment;
  for (std::uint64_t i = 0; i < kv_count; ++i) {
    const std::string where = fmt::format("kv[{}]", i);
    std::string key = r.string(where + " key", kMaxNameBytes);
    const std::string label = fmt::format("{} ('{}')", where, detail::printable(key));
    if (c.metadata.contains(key))
      fail(path, fmt::format("{}: key '{}' appears twice", where, detail::printable(key)));
    const std::uint32_t type = value_type(r, label + " type");
    MetadataValue value = read_value(r, type, label + " value", 0);
    if (key == "general.alignment") {
      // gguf.cpp requires a u32 power of two; docs/gguf.md: "it must be a multiple of 8".
      if (value.type != "u32")
        fail(path, fmt::format("general.alignment has type {}; expected u32", value.type));
      alignment = std::stoull(value.text);
      if (!std::has_single_bit(alignment))
        fail(path, fmt::format("general.alignment is {}; expected a power of two", alignment));
      if (alignment < 8) fail(path, fmt::format("general.alignment is {}; expected a multiple of 8", alignment));
    }
    c.metadata.emplace(std::move(key), std::move(value));
  }

  if (tensor_count > r.left() / kMinTensorInfoBytes)
    fail(path, fmt::format("tensor_count {} exceeds what the {} B left in the file can hold ({} "
                           "B per tensor info at least)",
                           tensor_count, r.left(), kMinTensorInfoBytes));
  std::vector<Located> tensors;
  std::set<std::string> names;
  for (std::uint64_t i = 0; i < tensor_count; ++i) {
    Located t = read_tensor_info(r, i);
    if (!names.insert(t.info.name).second)
      fail(path, fmt::format("tensor '{}' appears twice", detail::printable(t.info.name)));
    tensors.push_back(std::move(t));
  }

  // The data section starts at the next multiple of the alignment after the tensor infos.
  const std::uint64_t data_start = (r.position() + alignment - 1) / alignment * alignment;
  const std::uint64_t data_bytes = data_start <= r.size() ? r.size() - data_start : 0;
  for (const Located& t : tensors) {
    const std::string label = fmt::format("tensor '{}'", detail::printable(t.info.name));
    if (t.offset % alignment != 0)
      fail(path, fmt::format("{}: offset {} is not a multiple of the alignment {}", label,
                             t.offset, alignment));
    const auto end = detail::checked_add(t.offset, t.info.bytes);
    if (!end || *end > data_bytes)
      fail(path, fmt::format("{}: {} B at offset {} end past the data section ({} B from byte "
                             "{}); the file is truncated or the offset is wrong",
                             label, t.info.bytes, t.offset, data_bytes, data_start));
  }
  std::vector<const Located*> by_offset;
  for (const Located& t : tensors)
    if (t.info.bytes > 0) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const Located* a, const Located* b) { return a->offset < b->offset; });
  // `reach` is the tensor that ends last so far; every end is within the file, so no overflow.
  const Located* reach = nullptr;
  for (const Located* t : by_offset) {
    if (reach != nullptr && t->offset < reach->offset + reach->info.bytes)
      fail(path, fmt::format("tensors '{}' (offset {}, {} B) and '{}' (offset {}) overlap",
                             detail::printable(reach->info.name), reach->offset,
                             reach->info.bytes, detail::printable(t->info.name), t->offset));
    if (reach == nullptr || t->offset + t->info.bytes > reach->offset + reach->info.bytes)
      reach = t;
  }

  for (Located& t : tensors) c.tensors.push_back(std::move(t.info));
  detail::tally(c, path);
  detail::require_weights(c, path);
  check_metadata(c, path);
  // A token uses k of the E experts (llama.cpp: n_expert_used <= n_expert); a file that says
  // otherwise would count more parameters active than there are.
  const GgufModelFacts facts = gguf_model_facts(c);
  if (facts.expert_used_count && facts.expert_count) {
    const std::string a = facts.architecture;
    if (*facts.expert_used_count > *facts.expert_count)
      fail(path, fmt::format("{}.expert_used_count is {}, more than {}.expert_count {}; expected at most "
                             "as many experts per token as there are",
                             detail::printable(a), *facts.expert_used_count, detail::printable(a),
                             *facts.expert_count));
    if (*facts.expert_used_count == 0 && *facts.expert_count > 0)
      fail(path, fmt::format("{}.expert_used_count is 0 with {}.expert_count {}; expected at least one "
                             "expert per token",
                             detail::printable(a), detail::printable(a), *facts.expert_count));
  }
  const auto split = c.metadata.find("split.count");
  if (split != c.metadata.end() && split->second.text != "0" && split->second.text != "1")
    c.warnings.push_back(fmt::format("{}: one file of a GGUF split into {}; only its tensors are "
                                     "counted",
                                     detail::file_label(path), split->second.text));
  return c;
}

}  // namespace napkin::specs
