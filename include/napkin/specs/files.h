// Reading model files safely: what a path is before anything opens it, bounded reads, and what a
// file's first bytes say it holds. Every reader of a user-named file (config.json, napkin model
// JSON, hardware JSON, safetensors, GGUF) goes through here, so that:
//   - a FIFO, a device, a socket or a symbolic-link loop is named as what it is, and never opened
//     in a way that blocks (stat first; the open is O_NONBLOCK and checked again with fstat);
//   - a symbolic link whose target does not exist (a Hugging Face cache snapshot's link to a blob
//     that was never downloaded or was deleted) is named as that, with its target, and is never
//     taken for an absent file;
//   - a JSON file is read once, up to a cap (64 MiB), and a bigger one is refused with its size
//     before a byte is read;
//   - a weights file given where JSON is expected (pytorch_model.bin, a .safetensors or .gguf
//     under another name) is named as such from its first bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace napkin::specs {

/// What stat(2) finds at a path, following symbolic links.
enum class FileKind {
  missing,           // ENOENT, ENOTDIR
  regular,
  directory,
  fifo,
  character_device,  // /dev/zero, /dev/tty
  block_device,
  socket,
  symlink_loop,      // ELOOP
  dangling_link,     // a symbolic link at the path itself whose target does not exist: see `link_target`
  other,             // a type stat reports that none of the above is
  unreadable,        // stat failed otherwise (EACCES, ENAMETOOLONG, ...): see `error`
};

struct FileStatus {
  FileKind kind = FileKind::missing;
  std::uint64_t size = 0;  // of a regular file
  std::string error;       // strerror text when kind is unreadable
  std::string link_target; // what the link holds (readlink(2)), when kind is dangling_link
};

/// stat(2) of `path`; when that finds nothing (ENOENT) but lstat(2) finds a symbolic link at the
/// path itself, dangling_link with the link's text. A path whose missing part is a directory above
/// it (a/b when a is a dangling link) is `missing`: the caller that looks at `a` names it.
FileStatus file_status(const std::filesystem::path& path);

/// What a status is, for a message after "<path>: ": "a FIFO, not a file", "a character device,
/// not a file", "a block device, not a file", "a socket, not a file", "too many levels of symbolic
/// links", "no such file or directory", "a directory, not a file", "cannot be read: Permission
/// denied"; "a regular file" for one. A dangling link: "a link to ../../blobs/<sha> which does not
/// exist (the blob was not downloaded)" when the target names a file in a `blobs` directory (a
/// Hugging Face cache), else "a symbolic link to <target> which does not exist" (the target as
/// readlink(2) gives it).
std::string describe(const FileStatus& status);

/// The most bytes a config, model or hardware JSON may hold. Real config.json files are a few kB
/// (the largest, with per-layer lists, some hundred kB).
inline constexpr std::uint64_t kMaxJsonFileBytes = std::uint64_t{64} << 20;

/// A byte count in binary units for messages: "512 B", "70.0 MiB", "3.2 GiB".
std::string binary_size_text(std::uint64_t bytes);

/// What a file's first bytes (16 are enough) say it holds, when it is weights or another binary
/// format rather than JSON: "a safetensors weights file" (an 8-byte little-endian header length
/// that fits in `file_size`, then '{'), "a GGUF weights file" ("GGUF"), "a PyTorch weights file"
/// (a zip archive "PK\x03\x04", as torch.save writes since 1.6, or a pickle "\x80\x02".."\x80\x05"),
/// "a NumPy array file", "an HDF5 file". Empty for anything else.
std::string_view sniff_weights(std::string_view first_bytes, std::uint64_t file_size);

/// sniff_weights on the first bytes of the file at `path` (a regular file; empty otherwise).
std::string_view sniff_weights_file(const std::filesystem::path& path);

/// A file this process opened for reading (InputFile), by the device and inode of the open file:
/// a name reached through symbolic links or another hard link is the same file.
struct FileRead {
  std::uint64_t device = 0, inode = 0;
  std::string path;  // as InputFile was given it (a snapshot's link, not the blob it names)
};
/// The file at `device` and `inode` when this process has opened it through InputFile; nullopt
/// when it has not. Every reader of a file goes through InputFile, so this is what the run has
/// read, whatever named it: a config.json and the index and shards beside it, a GGUF, a Hugging
/// Face cache's refs and the blobs its snapshot links point to, hardware and model JSON from a
/// flag or from NAPKIN_HW. An output file (--plot) that is one of them is refused (issue 35).
/// Thread-safe.
std::optional<FileRead> file_read(std::uint64_t device, std::uint64_t inode);

/// Forgets every file file_read() knows. For a long-running caller that reads files it then
/// deletes (the fuzz harness of the Hugging Face cache resolver), whose inodes would otherwise
/// pile up; a run of the CLI never calls it.
void forget_file_reads();

/// A regular file open for buffered reading. The constructor refuses anything else (InputError
/// "<label>: a FIFO, not a file"), first by stat and then on the open descriptor, which is opened
/// O_NONBLOCK so that a FIFO swapped in between cannot block. A dangling link is refused naming
/// its full path rather than `label` ("<dir>/model-00001-of-00002.safetensors: a link to
/// ../../blobs/<sha> which does not exist (the blob was not downloaded); expected a file"): which
/// directory holds it is what the user has to fix.
class InputFile {
 public:
  /// `label` starts every message about the file ("model.safetensors", "./config.json"). The
  /// opened file is one file_read() finds.
  InputFile(const std::filesystem::path& path, std::string label);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  /// The size when opened; reads never go past it, even when the file grows.
  std::uint64_t size() const { return size_; }
  std::uint64_t position() const { return position_; }
  std::uint64_t left() const { return size_ - position_; }
  const std::string& label() const { return label_; }

  /// Reads exactly `n` bytes; false when the file ends first (it was cut while being read) or
  /// `n` runs past size().
  bool read(void* out, std::uint64_t n);
  /// Skips `n` bytes; false when that runs past size().
  bool skip(std::uint64_t n);

 private:
  bool fill();

  std::string label_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::uint64_t position_ = 0;  // of the next byte the caller gets
  std::unique_ptr<char[]> buffer_;
  std::size_t buffer_begin_ = 0, buffer_end_ = 0;  // unread bytes in buffer_
};

/// The whole of a JSON file, read once into one string. Refuses, naming the file by `label`:
/// anything but a regular file (what it is), a weights file ("pytorch_model.bin is a PyTorch
/// weights file, not a config JSON; give the model directory or its config.json", from its first
/// bytes) and a file above `max_bytes` ("config.json: 3.2 GiB; expected a config JSON of at most
/// 64 MiB"), before reading it. `expected` names what the file should be ("a config JSON");
/// `hint`, when not empty, follows the weights message after "; ".
std::string read_json_text(const std::filesystem::path& path, const std::string& label,
                           std::string_view expected, std::string_view hint = {},
                           std::uint64_t max_bytes = kMaxJsonFileBytes);

}  // namespace napkin::specs
