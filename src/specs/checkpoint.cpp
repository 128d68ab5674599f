// Shared parts of the checkpoint readers: totals, directory lookup, dispatch, GGUF model facts
// and the tensor-name classifier.
#include "napkin/specs/checkpoint.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <system_error>

#include "checkpoint_detail.h"
#include "napkin/error.h"

namespace napkin::specs {

namespace fs = std::filesystem;

namespace detail {

std::string file_label(const fs::path& path) {
  const std::string name = path.filename().string();
  return name.empty() ? path.string() : name;
}

void fail(const fs::path& path, std::string_view what) {
  std::string message = file_label(path);
  message += ": ";
  message += what;
  throw InputError(message);
}

std::uint64_t regular_file_size(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) fail(path, "no such file");
  if (!fs::is_regular_file(status)) fail(path, "not a regular file");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) fail(path, "cannot read its size: " + ec.message());
  return size;
}

std::ifstream open_binary(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open for reading");
  return in;
}

std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<std::uint64_t> element_count(const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = 1;
  for (const std::uint64_t d : shape) {
    const auto next = checked_mul(n, d);
    if (!next) return std::nullopt;
    n = *next;
  }
  return n;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  s += "]";
  return s;
}

std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '\\') {
      s += c;
    } else {
      s += "\\x";
      s += kHex[u >> 4];
      s += kHex[u & 0xf];
    }
  }
  return s;
}

void tally(Checkpoint& checkpoint, const fs::path& path) {
  std::map<std::string, DtypeTotal> by_dtype;
  std::uint64_t elements = 0, bytes = 0;
  for (const TensorInfo& t : checkpoint.tensors) {
    DtypeTotal& row = by_dtype[t.dtype];
    row.dtype = t.dtype;
    row.tensors += 1;
    const auto row_elements = checked_add(row.elements, t.elements);
    const auto row_bytes = checked_add(row.bytes, t.bytes);
    const auto all_elements = checked_add(elements, t.elements);
    const auto all_bytes = checked_add(bytes, t.bytes);
    if (!row_elements || !row_bytes || !all_elements || !all_bytes)
      fail(path, "total element or byte count does not fit in 64 bits");
    row.elements = *row_elements;
    row.bytes = *row_bytes;
    elements = *all_elements;
    bytes = *all_bytes;
  }
  checkpoint.dtypes.clear();
  for (auto& [name, row] : by_dtype) checkpoint.dtypes.push_back(row);
  std::stable_sort(checkpoint.dtypes.begin(), checkpoint.dtypes.end(),
                   [](const DtypeTotal& a, const DtypeTotal& b) { return a.bytes > b.bytes; });
  checkpoint.total_elements = elements;
  checkpoint.total_bytes = bytes;
}

}  // namespace detail

namespace {

double bits_per(std::uint64_t bytes, std::uint64_t elements) {
  // In double: 8 · bytes can pass 2^64 for a file of 2^61 B, and the ratio is a display value.
  return elements == 0 ? 0.0 : 8.0 * static_cast<double>(bytes) / static_cast<double>(elements);
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string_view> split_dots(std::string_view s) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = s.find('.', start);
    parts.push_back(s.substr(start, dot == std::string_view::npos ? std::string_view::npos
                                                                   : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

template <std::size_t N>
bool one_of(std::string_view part, const std::array<std::string_view, N>& names) {
  return std::find(names.begin(), names.end(), part) != names.end();
}

// Name parts of each group, lower case. Hugging Face modeling_*.py attribute names and llama.cpp's
// tensor names (gguf-py/gguf/constants.py, TENSOR_NAMES).
constexpr std::array<std::string_view, 5> kBufferParts = {"inv_freq", "position_ids",
                                                          "masked_bias", "rope_freqs",
                                                          "rope_factors_long"};
constexpr std::array<std::string_view, 5> kRouterParts = {
    "gate", "router", "exp_probs_b", "e_score_correction_bias", "shared_expert_gate"};
constexpr std::array<std::string_view, 4> kExpertParts = {"experts", "shared_expert",
                                                          "shared_experts", "block_sparse_moe"};
constexpr std::array<std::string_view, 15> kEmbeddingParts = {
    "embed_tokens", "wte",         "wpe",           "word_embeddings", "position_embeddings",
    "embed_positions", "embed_in", "tok_embeddings", "token_embd",     "position_embd",
    "token_types", "embeddings",  "embedding",     "embed",           "token_type_embeddings"};
constexpr std::array<std::string_view, 6> kHeadParts = {"lm_head", "embed_out", "cls",
                                                        "score",   "classifier", "shared_head"};
constexpr std::array<std::string_view, 15> kAttentionParts = {
    "self_attn", "attn",      "attention", "self_attention", "cross_attn",
    "encoder_attn", "q_proj", "k_proj",    "v_proj",         "o_proj",
    "qkv_proj",  "query_key_value", "c_attn", "kv_a_proj_with_mqa", "kv_b_proj"};
constexpr std::array<std::string_view, 14> kMlpParts = {
    "mlp",       "feed_forward", "ffn",       "intermediate", "fc1",           "fc2",
    "gate_proj", "up_proj",      "down_proj", "gate_up_proj", "c_fc",          "dense_h_to_4h",
    "dense_4h_to_h", "densereludense"};

}  // namespace

double DtypeTotal::bits_per_weight() const { return bits_per(bytes, elements); }
double Checkpoint::bits_per_weight() const { return bits_per(total_bytes, total_elements); }

std::optional<fs::path> find_checkpoint(const fs::path& dir) {
  std::vector<fs::path> indexes, safetensors, ggufs;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string name = it->path().filename().string();
    if (ends_with(name, ".safetensors.index.json")) indexes.push_back(it->path());
    else if (ends_with(name, ".safetensors")) safetensors.push_back(it->path());
    else if (ends_with(name, ".gguf")) ggufs.push_back(it->path());
  }
  if (ec) throw InputError(dir.string() + ": cannot list the directory: " + ec.message());
  std::sort(indexes.begin(), indexes.end());
  std::sort(safetensors.begin(), safetensors.end());
  std::sort(ggufs.begin(), ggufs.end());
  if (indexes.size() > 1) {
    throw InputError(dir.string() + ": " + std::to_string(indexes.size()) +
                     " *.safetensors.index.json files (" + indexes[0].filename().string() +
                     ", " + indexes[1].filename().string() + "); name one of them");
  }
  if (indexes.size() == 1) return indexes[0];
  if (safetensors.size() > 1) {
    throw InputError(dir.string() + ": " + std::to_string(safetensors.size()) +
                     " .safetensors files and no *.safetensors.index.json; name one file");
  }
  if (safetensors.size() == 1) return safetensors[0];
  if (ggufs.size() > 1) {
    throw InputError(dir.string() + ": " + std::to_string(ggufs.size()) +
                     " .gguf files; name one file");
  }
  if (ggufs.size() == 1) return ggufs[0];
  return std::nullopt;
}

Checkpoint read_checkpoint(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const auto file = find_checkpoint(path);
    if (!file) {
      throw InputError(path.string() +
                       ": holds no *.safetensors.index.json, .safetensors or .gguf file");
    }
    return read_checkpoint(*file);
  }
  if (path.extension() == ".gguf") return read_gguf(path);
  if (fs::is_regular_file(path, ec)) {
    // A GGUF file under another name still starts with its magic.
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    if (in.read(magic, 4) && std::string_view(magic, 4) == "GGUF") return read_gguf(path);
  }
  return read_safetensors(path);
}

GgufModelFacts gguf_model_facts(const Checkpoint& checkpoint) {
  const auto& meta = checkpoint.metadata;
  const auto integer = [&](const std::string& key) -> std::optional<std::uint64_t> {
    const auto it = meta.find(key);
    if (it == meta.end() || it->second.array_length != 0) return std::nullopt;
    const std::string& type = it->second.type;
    if (type.empty() || (type[0] != 'u' && type[0] != 'i')) return std::nullopt;
    std::uint64_t v = 0;
    const std::string& text = it->second.text;
    const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (err != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return v;
  };
  GgufModelFacts facts;
  const auto arch = meta.find("general.architecture");
  if (arch != meta.end() && arch->second.type == "string") facts.architecture = arch->second.text;
  const std::string a = facts.architecture + ".";
  facts.block_count = integer(a + "block_count");
  facts.embedding_length = integer(a + "embedding_length");
  facts.feed_forward_length = integer(a + "feed_forward_length");
  facts.context_length = integer(a + "context_length");
  facts.head_count = integer(a + "attention.head_count");
  facts.head_count_kv = integer(a + "attention.head_count_kv");
  facts.key_length = integer(a + "attention.key_length");
  facts.value_length = integer(a + "attention.value_length");
  facts.expert_count = integer(a + "expert_count");
  facts.expert_used_count = integer(a + "expert_used_count");
  const auto tokens = meta.find("tokenizer.ggml.tokens");
  if (tokens != meta.end() && tokens->second.type.starts_with("array"))
    facts.vocab_size = tokens->second.array_length;
  else
    facts.vocab_size = integer(a + "vocab_size");
  return facts;
}

std::string_view tensor_group(std::string_view tensor_name) {
  const std::string name = lower(tensor_name);
  const std::vector<std::string_view> parts = split_dots(name);
  const auto any = [&](auto&& pred) { return std::any_of(parts.begin(), parts.end(), pred); };
  const std::size_t n = parts.size();

  // Buffers first: they sit inside attention modules but are not parameters. GPT-2's and
  // GPT-NeoX's causal masks are `attn.bias` / `attention.bias`, a bias straight under the
  // module, where a real bias sits under a projection (`attn.c_attn.bias`).
  if (any([](std::string_view p) { return one_of(p, kBufferParts); })) return "other";
  if (n >= 2 && parts[n - 1] == "bias" && (parts[n - 2] == "attn" || parts[n - 2] == "attention"))
    return "other";

  // Norms wherever they sit: LayerNorm, RMSNorm, q_norm, GGUF attn_norm, GPT-2 ln_1/ln_f.
  if (any([](std::string_view p) {
        return p.find("norm") != std::string_view::npos || p.starts_with("ln_") || p == "ln";
      }))
    return "norm";

  // Router before experts: `mlp.gate` is the router, `shared_expert_gate` gates the shared
  // expert, GGUF ffn_gate_inp(_shexp) are both of these.
  if (any([](std::string_view p) {
        return one_of(p, kRouterParts) || p.find("gate_inp") != std::string_view::npos;
      }))
    return "router";

  if (any([](std::string_view p) {
        return one_of(p, kExpertParts) || ends_with(p, "_exps") || ends_with(p, "_shexp") ||
               ends_with(p, "_chexps");
      }))
    return "experts";

  if (any([](std::string_view p) {
        return one_of(p, kEmbeddingParts) || ends_with(p, "_embeddings");
      }))
    return "embedding";

  // The output projection: `lm_head`, or a top-level `output` (GGUF, Meta's consolidated files).
  if (any([](std::string_view p) { return one_of(p, kHeadParts); }) || parts[0] == "output")
    return "head";

  if (any([](std::string_view p) { return one_of(p, kAttentionParts) || p.starts_with("attn_"); }))
    return "attention";

  if (any([](std::string_view p) { return one_of(p, kMlpParts) || p.starts_with("ffn_"); }))
    return "mlp";
  // BERT's second MLP linear is `layer.N.output.dense` (its attention one is under `attention`).
  for (std::size_t i = 1; i + 1 < n; ++i)
    if (parts[i] == "output" && parts[i + 1] == "dense") return "mlp";
  return "other";
}

}  // namespace napkin::specs
