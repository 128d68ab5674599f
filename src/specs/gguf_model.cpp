// GGUF metadata → ModelSpec. llama.cpp names its hyperparameters `<arch>.<key>` (ggml
// docs/gguf.md, "LLM"; llama.cpp src/llama-arch.cpp LLM_KV_NAMES). Each known architecture is
// the Hugging Face family convert_hf_to_gguf.py wrote it from, so the file's hyperparameters are
// written out as that family's config.json fields and read by from_hf_config: one set of family
// conventions (biases, norms, tied heads, windows) for both formats. The result is then checked
// against the file itself: the spec's exact parameter count must equal the tensors' element
// count, or the file is refused.
#include "napkin/specs/gguf_model.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "napkin/ground/error.h"
#include "napkin/ground/sanitize.h"
#include "napkin/model/params.h"
#include "napkin/specs/hf_config.h"

namespace napkin::specs {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct ArchMap {
  std::string_view arch;        // general.architecture
  std::string_view model_type;  // config.json model_type read through from_hf_config
};

// llama.cpp's architecture names (src/llama-arch.cpp LLM_ARCH_NAMES) and the Hugging Face model
// types convert_hf_to_gguf.py writes them from. "llama" with experts is Mixtral (the converter
// writes Mixtral as llama with llama.expert_count).
constexpr ArchMap kArchs[] = {
    {"llama", "llama"},     {"qwen2", "qwen2"},         {"qwen2moe", "qwen2_moe"}, {"qwen3", "qwen3"},
    {"qwen3moe", "qwen3_moe"}, {"gemma", "gemma"},      {"gemma2", "gemma2"},      {"gemma3", "gemma3_text"},
};

// Tensors that are buffers, not parameters: RoPE frequency factors (Llama 3.1 rope_freqs,
// Phi-3 rope_factors_long/short).
bool is_buffer(std::string_view name) {
  return name.starts_with("rope_freqs") || name.find("rope_factors") != std::string_view::npos;
}

class Meta {
 public:
  Meta(const Checkpoint& c, const fs::path& path, std::string arch)
      : c_(c), file_(path.filename().string()), arch_(std::move(arch)) {}

  std::string key(std::string_view k) const { return arch_ + "." + std::string(k); }
  bool has(std::string_view k) const { return c_.metadata.contains(key(k)); }

  /// One non-negative integer under `<arch>.k`; nothing when absent. A per-layer array or another
  /// type is refused, naming the key.
  std::optional<std::uint64_t> integer(std::string_view k) const {
    const std::string full = key(k);
    const auto it = c_.metadata.find(full);
    if (it == c_.metadata.end()) return std::nullopt;
    const MetadataValue& v = it->second;
    if (v.array_length != 0 || v.type.starts_with("array"))
      throw InputError(file_ + ": " + sanitize_message(full) + " is a per-layer array (" + v.type +
                       "); napkin maps models with one value for every layer");
    std::uint64_t n = 0;
    const auto [end, err] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), n);
    if (v.type.empty() || (v.type[0] != 'u' && v.type[0] != 'i') || err != std::errc() ||
        end != v.text.data() + v.text.size())
      throw InputError(file_ + ": " + sanitize_message(full) + " is " + sanitize_message(v.text) + " (" + v.type +
                       "); expected a non-negative integer");
    return n;
  }
  std::uint64_t required(std::string_view k) const {
    const auto v = integer(k);
    if (!v) throw InputError(file_ + ": " + sanitize_message(key(k)) + " is missing; expected it in a " + arch_ + " GGUF");
    return *v;
  }
  bool tensor(std::string_view name) const {
    for (const TensorInfo& t : c_.tensors)
      if (t.name == name) return true;
    return false;
  }
  const std::string& file() const { return file_; }

 private:
  const Checkpoint& c_;
  std::string file_;
  std::string arch_;
};

}  // namespace

ModelSpec model_from_gguf(const Checkpoint& c, const fs::path& path) {
  const std::string file = path.filename().string();
  const auto arch_it = c.metadata.find("general.architecture");
  if (arch_it == c.metadata.end() || arch_it->second.type != "string")
    throw InputError(file + ": general.architecture is missing; expected the GGUF's architecture name");
  const std::string arch = arch_it->second.text;
  const ArchMap* map = nullptr;
  for (const ArchMap& a : kArchs)
    if (a.arch == arch) map = &a;
  if (map == nullptr) {
    std::string known;
    for (const ArchMap& a : kArchs) known += (known.empty() ? "" : ", ") + std::string(a.arch);
    throw InputError(file + ": general.architecture '" + sanitize_message(arch) +
                     "' is not one napkin maps from GGUF metadata; expected one of " + known +
                     " (napkin params reads any GGUF's tensors)");
  }
  const Meta meta(c, path, arch);

  json j;
  std::string model_type(map->model_type);
  j["hidden_size"] = meta.required("embedding_length");
  j["num_hidden_layers"] = meta.required("block_count");
  const std::uint64_t heads = meta.required("attention.head_count");
  j["num_attention_heads"] = heads;
  j["num_key_value_heads"] = meta.integer("attention.head_count_kv").value_or(heads);  // llama.cpp: n_head_kv = n_head when absent
  // llama.cpp: n_embd_head_k = key_length, else n_embd / n_head; V likewise (llama-model.cpp
  // load_hparams). napkin's ModelSpec has one head width for K and V.
  const auto k_len = meta.integer("attention.key_length");
  const auto v_len = meta.integer("attention.value_length");
  if (k_len && v_len && *k_len != *v_len)
    throw InputError(file + ": " + meta.key("attention.key_length") + " " + std::to_string(*k_len) + " differs from " +
                     meta.key("attention.value_length") + " " + std::to_string(*v_len) +
                     "; napkin maps models with one head width for K and V");
  if (k_len) j["head_dim"] = *k_len;
  else if (v_len) j["head_dim"] = *v_len;
  if (const auto ctx = meta.integer("context_length")) j["max_position_embeddings"] = *ctx;
  const auto tokens = c.metadata.find("tokenizer.ggml.tokens");
  if (tokens != c.metadata.end() && tokens->second.type.starts_with("array"))
    j["vocab_size"] = tokens->second.array_length;
  else if (const auto v = meta.integer("vocab_size"))
    j["vocab_size"] = *v;
  else
    throw InputError(file + ": tokenizer.ggml.tokens is missing; expected the vocabulary (or " +
                     meta.key("vocab_size") + ")");
  // What the tensors say: an output head of its own, biases on the projections.
  j["tie_word_embeddings"] = !meta.tensor("output.weight");
  if (meta.tensor("blk.0.attn_q.bias") || meta.tensor("blk.0.attn_qkv.bias")) {
    if (arch == "llama") j["attention_bias"] = true;
  }
  if (meta.tensor("blk.0.ffn_up.bias") && arch == "llama") j["mlp_bias"] = true;

  const std::uint64_t experts = meta.integer("expert_count").value_or(0);
  if (experts > 0) {
    const std::uint64_t used = meta.required("expert_used_count");
    if (arch == "llama") {
      model_type = "mixtral";  // every layer MoE, experts of width feed_forward_length
      j["num_local_experts"] = experts;
      j["num_experts_per_tok"] = used;
      j["intermediate_size"] = meta.required("feed_forward_length");
    } else if (arch == "qwen2moe" || arch == "qwen3moe") {
      j["num_experts"] = experts;
      j["num_experts_per_tok"] = used;
      j["moe_intermediate_size"] = meta.required("expert_feed_forward_length");
      if (const auto f = meta.integer("feed_forward_length")) j["intermediate_size"] = *f;
      if (arch == "qwen2moe")
        j["shared_expert_intermediate_size"] = meta.integer("expert_shared_feed_forward_length").value_or(0);
    } else {
      throw InputError(file + ": " + meta.key("expert_count") + " is " + std::to_string(experts) + "; napkin maps " +
                       arch + " GGUFs without experts");
    }
  } else {
    if (arch == "qwen2moe" || arch == "qwen3moe")
      throw InputError(file + ": " + meta.key("expert_count") + " is missing; expected it in a " + arch + " GGUF");
    j["intermediate_size"] = meta.required("feed_forward_length");
  }

  // Sliding windows: llama.cpp slides them on gemma2 (every other layer from layer 0) and gemma3
  // (five of every six) only (llama-model.cpp load_hparams: set_swa_pattern(2) and (6)). Another
  // architecture that states a window is refused: napkin would not know which layers slide.
  const auto window = meta.integer("attention.sliding_window");
  if (arch == "gemma2" || arch == "gemma3") {
    if (!window)
      throw InputError(file + ": " + meta.key("attention.sliding_window") + " is missing; expected the window of " +
                       arch + "'s sliding layers");
    j["sliding_window"] = *window;
    if (arch == "gemma3") {
      if (meta.has("attention.sliding_window_pattern"))
        throw InputError(file + ": " + meta.key("attention.sliding_window_pattern") +
                         " is given; napkin maps gemma3 GGUFs with llama.cpp's fixed pattern (5 sliding layers, then "
                         "1 global)");
      j["sliding_window_pattern"] = 6;
    }
  } else if (window && *window > 0) {
    throw InputError(file + ": " + meta.key("attention.sliding_window") + " is " + std::to_string(*window) +
                     "; napkin does not know which " + arch + " layers slide a window in llama.cpp");
  }
  j["model_type"] = model_type;

  ModelSpec m = from_hf_config(j, file);
  m.name = path.string();
  m.notes.push_back(fmt::format("architecture from the GGUF metadata: general.architecture {} read as Hugging Face "
                                "model_type {}", arch, model_type));

  // The check that makes the mapping exact or refused.
  std::uint64_t stored = 0, buffers = 0;
  for (const TensorInfo& t : c.tensors) (is_buffer(t.name) ? buffers : stored) += t.elements;
  const ParamCount counted = count_params(m);
  if (counted.total < 0 || static_cast<std::uint64_t>(counted.total) != stored)
    throw InputError(fmt::format("{}: general.architecture {} read as model_type {} counts {} parameters, but the "
                                 "file's tensors hold {}{}; napkin refuses a GGUF it cannot map exactly",
                                 file, arch, model_type, counted.total, stored,
                                 buffers > 0 ? fmt::format(" (buffers such as rope_freqs excluded: {})", buffers)
                                             : std::string()));
  return m;
}

}  // namespace napkin::specs
