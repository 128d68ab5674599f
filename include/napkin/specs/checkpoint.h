// Checkpoint headers: the tensor inventory of a safetensors checkpoint (one file, or shards
// through a model.safetensors.index.json) or of a GGUF file, read from the headers alone. No
// weight byte is read: safetensors headers are the 8-byte length and the JSON after it; GGUF
// headers are the key-values and tensor infos before the data section.
//
// Every count is an exact 64-bit integer; a shape whose element count or byte size does not fit
// in 64 bits is an error, never a wrap. Every problem with a file is a napkin::InputError whose
// message starts with the file's name and says what is wrong:
//   model.safetensors: header length 9223372036854775807 exceeds the file size (1234 B)
//   model.gguf: file ends inside kv[3] ('llama.block_count') value (at byte 181: needs 4 B, 2 B left)
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace napkin::specs {

/// One tensor as a header describes it.
struct TensorInfo {
  std::string name;
  /// Storage type as the format names it: safetensors "BF16", "F8_E4M3", ...; GGUF "Q4_K",
  /// "F16", ... (ggml's type names, upper case).
  std::string dtype;
  /// As the file lists it: safetensors outermost first (row-major), GGUF ggml's ne[0] first
  /// (innermost first). The element count does not depend on the order.
  std::vector<std::uint64_t> shape;
  std::uint64_t elements = 0;  // product of shape (1 for a scalar)
  std::uint64_t bytes = 0;     // bytes the tensor's data takes in the file
};

/// Totals for one storage type.
struct DtypeTotal {
  std::string dtype;
  std::uint64_t tensors = 0;
  std::uint64_t elements = 0;
  std::uint64_t bytes = 0;
  /// 8 · bytes / elements: 16 for BF16, 4.5 for Q4_0 (18 B per 32 weights); 0 when empty (check
  /// elements before showing it).
  double bits_per_weight() const;
};

/// One metadata entry. safetensors `__metadata__` values are strings; GGUF values have a type.
struct MetadataValue {
  /// "string", "u32", "f32", "bool", ...; arrays "array[string]", "array[array]".
  std::string type;
  /// The value as text: integers exact, floats in shortest round-trip form, strings as they are
  /// (when 4096 B or shorter; a longer one reads "<string of N B>"). An array shows its first
  /// elements: `["<unk>", "<s>", "</s>", "<0x00>", … 32000 items]`.
  std::string text;
  std::uint64_t array_length = 0;  // elements of an array; 0 for a scalar
};

struct Checkpoint {
  std::string format;  // "safetensors" or "gguf"
  /// In file order. safetensors: shard by shard (in file-name order), each by data offset;
  /// GGUF: in tensor-info order.
  std::vector<TensorInfo> tensors;
  /// One row per storage type, most bytes first (ties by name).
  std::vector<DtypeTotal> dtypes;
  std::uint64_t total_elements = 0;  // the parameter count as stored
  std::uint64_t total_bytes = 0;     // tensor data bytes, headers and padding excluded
  /// GGUF key-values, or safetensors `__metadata__` (of every shard; the first shard wins on a
  /// repeated key), by key.
  std::map<std::string, MetadataValue> metadata;
  /// safetensors index `metadata.total_size`, when the index states one.
  std::optional<std::uint64_t> index_total_size;
  /// The files read: the index first, then each shard; or the one file.
  std::vector<std::filesystem::path> files;
  /// Things that are odd but do not stop the count, one line each (for example an index
  /// total_size that differs from the shards' byte sum).
  std::vector<std::string> warnings;

  /// 8 · total_bytes / total_elements. The readers refuse a checkpoint of 0 elements; 0 for an
  /// empty one built by hand.
  double bits_per_weight() const;
};

/// Reads a `.safetensors` file, a `*.safetensors.index.json` (every shard its weight_map names,
/// found beside the index), or a directory holding either (the index when there is one, else
/// the one .safetensors file). Reads headers only. Throws InputError on any malformed input.
/// Refuses a checkpoint with no weights ("no tensors; expected a checkpoint with weights"), so
/// that no count is 0 and no bits-per-weight is 0/0.
Checkpoint read_safetensors(const std::filesystem::path& path);

/// The tensors of one safetensors header already in memory (the JSON after the 8-byte length),
/// with `data_bytes` bytes of data after it; `path` names the file in messages. Linear time in the
/// header's length, whatever the number of tensors (read_safetensors reads files through it).
Checkpoint parse_safetensors_header(std::string_view header, std::uint64_t data_bytes,
                                    const std::filesystem::path& path);

/// Reads the header of a GGUF v2 or v3 file: all key-values and tensor infos. Tensor bytes come
/// from ggml's block sizes (src/specs/gguf.cpp cites the table). Throws InputError on any
/// malformed input, on a file without weights and on `<arch>.expert_used_count` above
/// `<arch>.expert_count`.
Checkpoint read_gguf(const std::filesystem::path& path);

/// The checkpoint file `dir` holds: a `*.safetensors.index.json`, else the one `.safetensors`
/// file, else the one `.gguf` file; nothing when it holds none of these. Throws InputError when
/// the choice is ambiguous (two indexes, or several .safetensors files and no index).
std::optional<std::filesystem::path> find_checkpoint(const std::filesystem::path& dir);

/// Reads `path` by its kind: a directory through find_checkpoint, `.gguf` (or a file that starts
/// with "GGUF") through read_gguf, anything else through read_safetensors.
Checkpoint read_checkpoint(const std::filesystem::path& path);

/// The bytes a checkpoint's weights take as stored: what the memory and serve ledgers hold for a
/// quantized checkpoint instead of a dtype's arithmetic.
struct StoredWeights {
  std::uint64_t bytes = 0;
  /// How they were read, one line: the headers' storage types, most bytes first
  /// ("F8_E4M3 9216 B, BF16 8384 B, F32 24 B"), or "model.safetensors.index.json
  /// metadata.total_size; shards not present" when only the index is there.
  std::string detail;
  /// Some tensor is stored below 16 bits per element (FP8, U8/I8 blocks, GGUF block types), or,
  /// from an index alone, its weight_map names quantization tensors (`*_scale`, `*_scale_inv`,
  /// `*_blocks`, `*_scales`, `qweight`, `qzeros`, `absmax`).
  bool quantized = false;
  /// The storage type holding the most bytes ("F8_E4M3"); empty from an index alone.
  std::string main_dtype;
  /// "safetensors" or "gguf" (Checkpoint::format); "safetensors" from an index alone.
  std::string format = "safetensors";
};

/// The checkpoint at `path` (a file, an index, or a directory through find_checkpoint), read
/// through read_checkpoint when every file is there; an index whose shards are all absent (a
/// repository cloned without its LFS weights) gives its metadata.total_size. Nothing when a
/// directory holds no checkpoint, or when the shards are absent and the index states no
/// total_size. Throws InputError as the readers do.
std::optional<StoredWeights> stored_weights(const std::filesystem::path& path);

/// The one range check on a checkpoint's stored bytes, whoever reads them (the index's
/// metadata.total_size with its shards absent, the shards' headers, a GGUF's tensors): between 1
/// and 64 bits for each of the `declared_params` the config declares, or these are not its
/// weights (a total_size of 5 was a 5-byte model). InputError naming `source` otherwise; nothing
/// to check when declared_params is 0.
void check_stored_bits(const StoredWeights& w, std::int64_t declared_params, std::string_view source);

/// Architecture facts a GGUF file states in its metadata, under llama.cpp's key names
/// (ggml docs/gguf.md, "LLM"): `<arch>.block_count` and so on, with `<arch>` the value of
/// general.architecture. A key the file lacks, or holds as anything but one non-negative
/// integer (some models store per-layer arrays), stays empty.
struct GgufModelFacts {
  std::string architecture;                          // general.architecture
  std::optional<std::uint64_t> block_count;          // layers
  std::optional<std::uint64_t> embedding_length;     // D
  std::optional<std::uint64_t> feed_forward_length;  // F
  std::optional<std::uint64_t> context_length;       // trained context
  std::optional<std::uint64_t> head_count;           // H
  std::optional<std::uint64_t> head_count_kv;        // H_kv
  std::optional<std::uint64_t> key_length;           // attention.key_length (d_head of K)
  std::optional<std::uint64_t> value_length;         // attention.value_length
  std::optional<std::uint64_t> expert_count;
  std::optional<std::uint64_t> expert_used_count;
  /// Length of tokenizer.ggml.tokens, else `<arch>.vocab_size`.
  std::optional<std::uint64_t> vocab_size;
};

GgufModelFacts gguf_model_facts(const Checkpoint& checkpoint);

/// The component a tensor belongs to, from its name alone: one of "embedding", "attention",
/// "mlp", "experts", "router", "norm", "head", "other". Knows Hugging Face names (Llama,
/// Mistral, Mixtral, Qwen, Qwen-MoE, Gemma, Phi-3, GPT-2, GPT-NeoX, OPT, Falcon, BERT,
/// DeepSeek-V2/V3 with MLA) and llama.cpp's GGUF names (token_embd, blk.N.attn_q, ...).
/// Conventions, so that a count from a config can be compared group by group:
///  - every norm is "norm", wherever it sits (q_norm/k_norm inside attention, q_a_layernorm and
///    kv_a_layernorm of MLA, BERT's embedding LayerNorm);
///  - learned position tables and token-type tables are "embedding";
///  - shared experts (`shared_expert(s)`, GGUF `*_shexp`) are "experts";
///  - the router is the expert-choosing linear (`mlp.gate`, `block_sparse_moe.gate`,
///    `ffn_gate_inp`), its bias (`e_score_correction_bias`, `exp_probs_b`) and Qwen-MoE's
///    `shared_expert_gate` (`ffn_gate_inp_shexp`);
///  - "head" is the output projection (`lm_head`, NeoX `embed_out`, GGUF `output`) and BERT's
///    `cls.*` prediction head; BERT's pooler is "other";
///  - buffers stored beside parameters (`rotary_emb.inv_freq`, GPT-2 `attn.bias` and
///    `attn.masked_bias`, `position_ids`, GGUF `rope_freqs`) are "other";
///  - a vision or audio tower and its projector (`visual.*`, `vision_tower.*`, `vision_model.*`,
///    `multi_modal_projector.*`, `audio_tower.*`) are "vision", whatever their inner names.
std::string_view tensor_group(std::string_view tensor_name);

}  // namespace napkin::specs
