#include "safe_output.h"

#include "napkin/ground/sanitize.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "model_arg.h"
#include "napkin/ground/error.h"
#include "napkin/report/checked_output.h"
#include "napkin/specs/files.h"

namespace napkin::cli {

namespace fs = std::filesystem;

void occupy_standard_fds() noexcept {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // Lower fds are open by now, so open() returns `fd` itself; dup2 covers the odd case.
    const int got = open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
    if (got < 0 || got == fd) continue;
    dup2(got, fd);
    close(got);
  }
}

void print_stderr(std::string_view text) noexcept {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
  std::clearerr(stderr);
}

namespace {
std::set<std::string>* g_warning_seen = nullptr;
}  // namespace

void set_warning_dedupe(std::set<std::string>* seen) { g_warning_seen = seen; }

bool first_warning(std::string_view w) {
  return g_warning_seen == nullptr || g_warning_seen->insert(std::string(w)).second;
}

bool use_colour(int fd) noexcept {
  const char* no_colour = std::getenv("NO_COLOR");
  return (no_colour == nullptr || *no_colour == '\0') && isatty(fd) == 1;
}

namespace {
bool g_holding = false;
std::vector<std::string> g_held;
}  // namespace

void hold_warnings() {
  g_holding = true;
  g_held.clear();
}

void release_warnings() {
  if (!g_holding) return;
  g_holding = false;
  std::vector<std::string> held;
  held.swap(g_held);
  for (const std::string& w : held) print_warning(w);
}

void drop_warnings() noexcept {
  g_holding = false;
  g_held.clear();
}

void print_warning(std::string_view w) {
  if (g_holding) {
    g_held.emplace_back(w);  // deduplicated when printed
    return;
  }
  if (!first_warning(w)) return;
  report::flush_checked(stdout);  // the table so far comes before the warning
  print_stderr(fmt::format("napkin: {}warning:{} {}\n", use_colour(2) ? "\x1b[33m" : "",
                           use_colour(2) ? "\x1b[0m" : "", sanitize_message(w)));
}

namespace {

// ---- removing temporary files on a signal ------------------------------------------------------
// The handler may only make async-signal-safe calls: it unlinks the paths recorded here (plain
// char arrays, published by a volatile flag) and re-raises the signal with its default action.
constexpr int kSlots = 4;
constexpr std::size_t kPathMax = 4096;
char g_paths[kSlots][kPathMax];
volatile std::sig_atomic_t g_used[kSlots];
bool g_handlers_installed = false;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

extern "C" void remove_temporaries_and_reraise(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i]) unlink(g_paths[i]);
  signal(sig, SIG_DFL);
  raise(sig);  // blocked until the handler returns, then the default action (termination)
}

void install_handlers() {
  if (g_handlers_installed) return;
  g_handlers_installed = true;
  for (int sig : kSignals) {
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) != 0) continue;
    // An ignored signal stays ignored (SIGPIPE under `trap '' PIPE` makes writes fail with
    // EPIPE, which the checked writes report); a handler someone else set is left alone.
    if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = remove_temporaries_and_reraise;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
}

int take_slot(const std::string& path) {
  if (path.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    if (g_used[i]) continue;
    std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the path is complete before it is used
    g_used[i] = 1;
    install_handlers();
    return i;
  }
  return -1;
}

void release_slot(int& slot) {
  if (slot < 0) return;
  g_used[slot] = 0;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  slot = -1;
}

const char* kind_of(mode_t m) {
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// The refusal of a target that is a file the run read (specs::file_read).
std::string read_by_this_run(const specs::FileRead& read) {
  return "is the input file '" + read.path + "'; expected another file name";
}

mode_t new_file_mode() {
  const mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

}  // namespace

ReplaceFile::ReplaceFile(std::string flag, std::string path, const std::vector<std::string>& inputs)
    : flag_(std::move(flag)), path_(std::move(path)) {
  const fs::path target(path_);
  if (path_.empty() || !target.has_filename())
    fail(path_.empty() ? "expected a file name (FILE.svg)" : "expected a file name (FILE.svg), not a directory");
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  mode_t mode = new_file_mode();
  struct stat st {};
  if (lstat(path_.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode))
      fail("is a symbolic link; expected a regular file or a new file name (napkin replaces the file it "
           "writes and never writes through a link)");
    if (S_ISDIR(st.st_mode)) fail("is a directory; expected a file name (FILE.svg)");
    if (!S_ISREG(st.st_mode))
      fail(std::string("is ") + kind_of(st.st_mode) + "; expected a regular file or a new file name");
    static constexpr const char* kStd[] = {"standard input", "standard output", "standard error"};
    for (int fd = 0; fd <= 2; ++fd)
      if (struct stat s {}; fstat(fd, &s) == 0 && S_ISREG(s.st_mode) && same_file(s, st))
        fail(std::string("is the ") + kStd[fd] + "; expected another file name");
    struct stat dir_st {};
    const bool have_dir = stat(dir.c_str(), &dir_st) == 0;
    const std::string name = target.filename().string();
    const bool model_file_name = name == "config.json" || is_checkpoint_path(name);
    for (const std::string& in : inputs) {
      struct stat is {};
      if (in.empty() || stat(in.c_str(), &is) != 0) continue;  // a preset name, not a file
      if (S_ISREG(is.st_mode) && same_file(is, st))
        fail("is the input file '" + in + "'; expected another file name");
      // A model directory, or a checkpoint file, is read with the config.json and checkpoint
      // files beside it.
      if (!model_file_name || !have_dir) continue;
      struct stat in_dir {};
      const fs::path d = S_ISDIR(is.st_mode) ? fs::path(in) : fs::path(in).has_parent_path() ? fs::path(in).parent_path() : fs::path(".");
      if (stat(d.c_str(), &in_dir) == 0 && same_file(in_dir, dir_st))
        fail("is a file of the model input '" + in + "'; expected another file name");
    }
    // Any other file the run read, by whatever name it was reached: a Hugging Face cache's blob
    // behind a snapshot link, a model directory's linked config.json, NAPKIN_HW's file.
    if (const auto read = specs::file_read(st.st_dev, st.st_ino)) fail(read_by_this_run(*read));
    // A file its owner made read-only stays as it is, as it did when napkin wrote in place.
    if (access(path_.c_str(), W_OK) != 0) fail(std::string("cannot write: ") + std::strerror(errno));
    mode = st.st_mode & 07777;
  } else if (errno != ENOENT) {
    fail(std::string("cannot use the path: ") + std::strerror(errno));
  }
  // The temporary file: hidden, unique (mkstemp opens it O_EXCL, so it is never an existing
  // file or a link), in the target's directory so that rename() replaces the target at once.
  const std::string name = target.filename().string();
  tmp_ = (dir / ("." + name.substr(0, 64) + ".napkin-XXXXXX")).string();
  fd_ = mkstemp(tmp_.data());
  if (fd_ < 0) {
    const int err = errno;
    tmp_.clear();
    fail("cannot create a file in '" + dir.string() + "': " + std::strerror(err));
  }
  slot_ = take_slot(tmp_);
  fchmod(fd_, mode);  // best effort: mkstemp made it 0600
}

ReplaceFile::~ReplaceFile() { discard(); }

void ReplaceFile::discard() noexcept {
  release_slot(slot_);
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (!tmp_.empty()) unlink(tmp_.c_str());  // only the file this object created
  tmp_.clear();
}

void ReplaceFile::fail(const std::string& what) const {
  throw InputError(fmt::format("{}: '{}': {}", flag_, path_, what));
}

void ReplaceFile::commit(std::string_view content) {
  if (fd_ < 0) fail("cannot write: the file is already written");
  std::size_t off = 0;
  while (off < content.size()) {
    const ssize_t n = write(fd_, content.data() + off, content.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(std::string("cannot write: ") + std::strerror(n < 0 ? errno : EIO));
    off += static_cast<std::size_t>(n);
  }
  // On disk before it replaces the target: a crash leaves the old file or the new one whole.
  if (fsync(fd_) != 0 && errno != EINVAL && errno != EROFS) fail(std::string("cannot write: ") + std::strerror(errno));
  const int closed = close(fd_);
  fd_ = -1;
  if (closed != 0) fail(std::string("cannot write: ") + std::strerror(errno));
  // Checked again here: a file read after the target was checked (none today) is not replaced.
  if (struct stat now {}; lstat(path_.c_str(), &now) == 0 && S_ISREG(now.st_mode))
    if (const auto read = specs::file_read(now.st_dev, now.st_ino)) fail(read_by_this_run(*read));
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) fail(std::string("cannot replace the file: ") + std::strerror(errno));
  // A signal until here removes the temporary file; after the rename its unlink finds nothing.
  release_slot(slot_);
  tmp_.clear();
}

}  // namespace napkin::cli
