// Shared parts of the checkpoint readers: totals, directory lookup, dispatch, GGUF model facts
// and the tensor-name classifier; and the bounded file access of napkin/specs/files.h, which
// every reader of a user-named file shares (kept here so that the build's source list stays as
// it is).
#include "napkin/specs/checkpoint.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <mutex>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "checkpoint_detail.h"
#include "napkin/ground/error.h"
#include "napkin/specs/files.h"
#include "napkin/specs/hf_config.h"

namespace napkin::specs {

namespace fs = std::filesystem;

// ---- napkin/specs/files.h ------------------------------------------------------------------

namespace {

FileKind kind_of(mode_t mode) {
  if (S_ISREG(mode)) return FileKind::regular;
  if (S_ISDIR(mode)) return FileKind::directory;
  if (S_ISFIFO(mode)) return FileKind::fifo;
  if (S_ISCHR(mode)) return FileKind::character_device;
  if (S_ISBLK(mode)) return FileKind::block_device;
  if (S_ISSOCK(mode)) return FileKind::socket;
  return FileKind::other;
}

[[noreturn]] void refuse(const std::string& label, std::string_view what) {
  throw InputError(label + ": " + std::string(what));
}

constexpr std::size_t kBufferBytes = 64 * 1024;

// file_read(): process-wide, as the files a run reads are (a run is one process; the tests that
// call the readers in threads share it, which only adds entries).
struct ReadFiles {
  std::mutex mutex;
  std::vector<FileRead> files;
};
ReadFiles& read_files() {
  static ReadFiles r;
  return r;
}

void note_read(const struct stat& st, const fs::path& path) {
  ReadFiles& r = read_files();
  const std::lock_guard<std::mutex> lock(r.mutex);
  const auto dev = static_cast<std::uint64_t>(st.st_dev), ino = static_cast<std::uint64_t>(st.st_ino);
  for (const FileRead& f : r.files)
    if (f.device == dev && f.inode == ino) return;
  r.files.push_back({dev, ino, path.string()});
}

}  // namespace

std::optional<FileRead> file_read(std::uint64_t device, std::uint64_t inode) {
  ReadFiles& r = read_files();
  const std::lock_guard<std::mutex> lock(r.mutex);
  for (const FileRead& f : r.files)
    if (f.device == device && f.inode == inode) return f;
  return std::nullopt;
}

void forget_file_reads() {
  ReadFiles& r = read_files();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.files.clear();
}

FileStatus file_status(const fs::path& path) {
  FileStatus s;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    struct stat link {};
    if (err == ENOENT && ::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      s.kind = FileKind::dangling_link;
      std::array<char, 4096> target{};
      const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
      if (n > 0) s.link_target.assign(target.data(), static_cast<std::size_t>(n));
      return s;
    }
    if (err == ENOENT || err == ENOTDIR) s.kind = FileKind::missing;
    else if (err == ELOOP) s.kind = FileKind::symlink_loop;
    else {
      s.kind = FileKind::unreadable;
      s.error = std::strerror(err);
    }
    return s;
  }
  s.kind = kind_of(st.st_mode);
  if (s.kind == FileKind::regular) s.size = static_cast<std::uint64_t>(st.st_size);
  return s;
}

std::string describe(const FileStatus& s) {
  switch (s.kind) {
    case FileKind::missing: return "no such file or directory";
    case FileKind::regular: return "a regular file";
    case FileKind::directory: return "a directory, not a file";
    case FileKind::fifo: return "a FIFO, not a file";
    case FileKind::character_device: return "a character device, not a file";
    case FileKind::block_device: return "a block device, not a file";
    case FileKind::socket: return "a socket, not a file";
    case FileKind::symlink_loop: return "too many levels of symbolic links";
    case FileKind::dangling_link: {
      const std::string& target = s.link_target;
      // huggingface_hub's snapshot links point at ../../blobs/<sha256 or git sha1>.
      if (fs::path(s.link_target).parent_path().filename() == "blobs")
        return "a link to " + target + " which does not exist (the blob was not downloaded)";
      return "a symbolic link to " + target + " which does not exist";
    }
    case FileKind::other: return "not a regular file";
    case FileKind::unreadable: return "cannot be read: " + s.error;
  }
  return "not a regular file";
}

std::string binary_size_text(std::uint64_t bytes) {
  static constexpr std::array<std::string_view, 6> kUnits = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double v = static_cast<double>(bytes) / 1024.0;
  std::size_t u = 0;
  while (v >= 1024.0 && u + 1 < kUnits.size()) {
    v /= 1024.0;
    ++u;
  }
  const std::string one = fmt::format("{:.1f}", v);
  return fmt::format("{} {}", one.ends_with(".0") ? one.substr(0, one.size() - 2) : one, kUnits[u]);
}

std::string_view sniff_weights(std::string_view b, std::uint64_t file_size) {
  if (b.starts_with("GGUF")) return "a GGUF weights file";
  if (b.starts_with(std::string_view("PK\x03\x04", 4))) return "a PyTorch weights file";
  // pickle protocol 2-5 (torch.save before 1.6, and pickled state dicts).
  if (b.size() >= 2 && b[0] == '\x80' && b[1] >= 2 && b[1] <= 5) return "a PyTorch weights file";
  if (b.starts_with("\x93NUMPY")) return "a NumPy array file";
  if (b.starts_with(std::string_view("\x89HDF\r\n\x1a\n", 8))) return "an HDF5 file";
  if (b.size() >= 9 && b[8] == '{' && file_size >= 9) {
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(b[static_cast<std::size_t>(i)]);
    if (n >= 2 && n <= file_size - 8) return "a safetensors weights file";
  }
  return {};
}

std::string_view sniff_weights_file(const fs::path& path) {
  if (file_status(path).kind != FileKind::regular) return {};
  InputFile f(path, path.string());
  char head[16];
  const std::uint64_t n = std::min<std::uint64_t>(sizeof head, f.size());
  if (!f.read(head, n)) return {};
  return sniff_weights(std::string_view(head, n), f.size());
}

InputFile::InputFile(const fs::path& path, std::string label) : label_(std::move(label)) {
  const FileStatus s = file_status(path);
  if (s.kind == FileKind::dangling_link) refuse(path.string(), describe(s) + "; expected a file");
  if (s.kind != FileKind::regular) refuse(label_, describe(s));
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) refuse(label_, fmt::format("cannot be opened: {}", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    FileStatus now;
    now.kind = kind_of(st.st_mode);
    ::close(fd_);
    fd_ = -1;
    refuse(label_, describe(now));
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
  note_read(st, path);
  buffer_ = std::make_unique<char[]>(kBufferBytes);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool InputFile::fill() {
  buffer_begin_ = buffer_end_ = 0;
  const std::uint64_t want = std::min<std::uint64_t>(kBufferBytes, left());
  while (buffer_end_ < want) {
    const ssize_t got = ::read(fd_, buffer_.get() + buffer_end_, want - buffer_end_);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    buffer_end_ += static_cast<std::size_t>(got);
  }
  return buffer_end_ > 0;
}

bool InputFile::read(void* out, std::uint64_t n) {
  if (n > left()) return false;
  char* dst = static_cast<char*>(out);
  while (n > 0) {
    if (buffer_begin_ == buffer_end_) {
      if (n >= kBufferBytes) {
        // Large reads (a safetensors header, a whole JSON file) go straight to the caller.
        const ssize_t got = ::read(fd_, dst, static_cast<std::size_t>(std::min<std::uint64_t>(n, 1u << 30)));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        dst += got;
        n -= static_cast<std::uint64_t>(got);
        position_ += static_cast<std::uint64_t>(got);
        continue;
      }
      if (!fill()) return false;
    }
    const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n, buffer_end_ - buffer_begin_));
    std::memcpy(dst, buffer_.get() + buffer_begin_, take);
    buffer_begin_ += take;
    dst += take;
    n -= take;
    position_ += take;
  }
  return true;
}

bool InputFile::skip(std::uint64_t n) {
  if (n > left()) return false;
  const std::uint64_t buffered = buffer_end_ - buffer_begin_;
  if (n <= buffered) {
    buffer_begin_ += static_cast<std::size_t>(n);
    position_ += n;
    return true;
  }
  position_ += n;
  buffer_begin_ = buffer_end_ = 0;
  return ::lseek(fd_, static_cast<off_t>(position_), SEEK_SET) == static_cast<off_t>(position_);
}

std::string read_json_text(const fs::path& path, const std::string& label, std::string_view expected,
                           std::string_view hint, std::uint64_t max_bytes) {
  InputFile f(path, label);
  // The first bytes name a weights file before its size does: a 3 GiB pytorch_model.bin is
  // weights, whatever its size.
  char head[16];
  const std::uint64_t head_n = std::min<std::uint64_t>(sizeof head, f.size());
  if (!f.read(head, head_n)) refuse(label, "was cut short while being read");
  const std::string_view weights = sniff_weights(std::string_view(head, head_n), f.size());
  if (!weights.empty()) {
    std::string m = fmt::format("{} is {}, not {}", label, weights, expected);
    if (!hint.empty()) m += fmt::format("; {}", hint);
    throw InputError(m);
  }
  if (f.size() > max_bytes)
    refuse(label, fmt::format("{}; expected {} of at most {}", binary_size_text(f.size()), expected,
                              binary_size_text(max_bytes)));
  std::string text(static_cast<std::size_t>(f.size()), '\0');
  std::memcpy(text.data(), head, head_n);
  if (!f.read(text.data() + head_n, f.size() - head_n)) refuse(label, "was cut short while being read");
  return text;
}

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

void require_weights(const Checkpoint& checkpoint, const fs::path& path) {
  if (checkpoint.tensors.empty()) fail(path, "no tensors; expected a checkpoint with weights");
  if (checkpoint.total_elements == 0)
    fail(path, fmt::format("{} tensor(s), all empty (0 elements); expected a checkpoint with weights",
                           checkpoint.tensors.size()));
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
// A Mamba mixer's tensors (modeling_mamba.py, modeling_jamba.py, modeling_nemotron_h.py: under
// `mixer` or `mamba`; llama.cpp: ssm_in, ssm_conv1d, ssm_x, ssm_dt, ssm_a, ssm_d, ssm_out). Nemotron-H
// keeps its attention and MLP under `mixer` too: those keep their own groups.
constexpr std::array<std::string_view, 8> kSsmParts = {"in_proj", "conv1d", "x_proj", "dt_proj",
                                                       "out_proj", "a_log",  "d",      "dt_bias"};
constexpr std::array<std::string_view, 14> kMlpParts = {
    "mlp",       "feed_forward", "ffn",       "intermediate", "fc1",           "fc2",
    "gate_proj", "up_proj",      "down_proj", "gate_up_proj", "c_fc",          "dense_h_to_4h",
    "dense_4h_to_h", "densereludense"};

}  // namespace

double DtypeTotal::bits_per_weight() const { return bits_per(bytes, elements); }
double Checkpoint::bits_per_weight() const { return bits_per(total_bytes, total_elements); }

std::optional<fs::path> find_checkpoint(const fs::path& dir) {
  std::vector<fs::path> indexes, safetensors, ggufs, dangling;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::vector<fs::path>* list = ends_with(name, ".safetensors.index.json") ? &indexes
                                  : ends_with(name, ".safetensors")          ? &safetensors
                                  : ends_with(name, ".gguf")                 ? &ggufs
                                                                             : nullptr;
    if (list == nullptr) continue;
    const FileKind kind = file_status(it->path()).kind;
    if (kind == FileKind::regular) list->push_back(it->path());
    else if (kind == FileKind::dangling_link) dangling.push_back(it->path());
  }
  if (ec) throw InputError(dir.string() + ": cannot list the directory: " + ec.message());
  // A checkpoint file whose link dangles is part of the checkpoint that is not there: choosing
  // among the others would count a different set of weights.
  if (!dangling.empty()) {
    std::sort(dangling.begin(), dangling.end());
    const std::string more =
        dangling.size() > 1 ? " (" + std::to_string(dangling.size() - 1) + " more such link(s) beside it)" : "";
    throw InputError(dangling[0].string() + ": " + describe(file_status(dangling[0])) +
                     "; expected the checkpoint file it names" + more);
  }
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
  // A GGUF file under another name still starts with its magic.
  if (sniff_weights_file(path) == "a GGUF weights file") return read_gguf(path);
  return read_safetensors(path);
}

namespace {

// Tensor names quantizers write beside (or instead of) a weight: FP8 (weight_scale,
// weight_scale_inv, input_scale), MXFP4 (*_blocks, *_scales), AWQ/GPTQ (qweight, qzeros, scales),
// bitsandbytes (absmax, quant_state).
bool quantization_tensor(std::string_view name) {
  for (std::string_view tail : {"_scale", "_scale_inv", "_blocks", "_scales", ".qweight", ".qzeros", ".scales",
                                ".absmax", ".quant_state.bitsandbytes__nf4", ".quant_state.bitsandbytes__fp4"})
    if (ends_with(name, tail)) return true;
  return false;
}

}  // namespace

void check_stored_bits(const StoredWeights& w, std::int64_t declared_params, std::string_view source) {
  if (declared_params <= 0) return;
  const double bits = 8.0 * static_cast<double>(w.bytes) / static_cast<double>(declared_params);
  if (!(bits >= 1.0 && bits <= 64.0))
    throw InputError(fmt::format("{}: the checkpoint's {} B ({}) are {:.3g} bits for each of the {} parameters "
                                 "the config declares; expected 1 to 64 bits per parameter",
                                 source, w.bytes, w.detail, bits, declared_params));
}

std::optional<StoredWeights> stored_weights(const fs::path& path) {
  fs::path file = path;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const auto found = find_checkpoint(path);
    if (!found) return std::nullopt;
    file = *found;
  }
  StoredWeights w;
  if (ends_with(file.filename().string(), ".json")) {
    // An index: its shards may be absent (a clone without the LFS weights); then its total_size.
    const nlohmann::json index = parse_json_text(
        read_json_text(file, detail::file_label(file), "a *.safetensors.index.json"), detail::file_label(file));
    if (index.is_object() && index.contains("weight_map") && index.at("weight_map").is_object()) {
      bool any_shard = false;
      for (const auto& [tensor, shard] : index.at("weight_map").items()) {
        if (quantization_tensor(tensor)) w.quantized = true;
        if (!shard.is_string()) continue;
        const fs::path shard_path = file.parent_path() / shard.get<std::string>();
        const FileStatus status = file_status(shard_path);
        // A shard whose link dangles was downloaded once and lost its blob: not an absent shard
        // that metadata.total_size stands in for.
        if (status.kind == FileKind::dangling_link)
          throw InputError(shard_path.string() + ": " + describe(status) + "; expected the shard " +
                           file.filename().string() + " names");
        if (status.kind != FileKind::missing) any_shard = true;
      }
      if (!any_shard) {
        if (!index.contains("metadata") || !index.at("metadata").is_object() ||
            !index.at("metadata").contains("total_size"))
          return std::nullopt;
        // Validated as the index reader validates it (a float beyond 2^64 was an undefined cast).
        w.bytes = detail::index_total_size(file, index);
        w.detail = file.filename().string() + " metadata.total_size; shards not present";
        return w;
      }
    }
  }
  const Checkpoint c = read_checkpoint(file);
  w.bytes = c.total_bytes;
  w.format = c.format;
  w.quantized = false;
  if (!c.dtypes.empty()) w.main_dtype = c.dtypes.front().dtype;
  for (const DtypeTotal& d : c.dtypes) {
    w.detail += fmt::format("{}{} {} B", w.detail.empty() ? "" : ", ", d.dtype, d.bytes);
    if (d.elements > 0 && d.bits_per_weight() < 16.0) w.quantized = true;
  }
  return w;
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

  // A vision or audio tower and its projector (Qwen2.5-VL visual.*, LLaVA vision_tower.* and
  // multi_modal_projector.*, Gemma 3 vision_tower.*), whatever their inner names.
  if (any([](std::string_view p) {
        return p == "visual" || p.starts_with("vision_") || p == "multi_modal_projector" || p == "mm_projector" ||
               p.starts_with("audio_") || p == "vision";
      }))
    return "vision";

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

  if (any([](std::string_view p) { return p.starts_with("ssm_"); }) ||
      (any([](std::string_view p) { return p == "mixer" || p == "mamba"; }) &&
       any([](std::string_view p) { return one_of(p, kSsmParts); })))
    return "ssm";

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
