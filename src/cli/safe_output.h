// Safe output: the standard streams and the files napkin writes.
//
//  - fds 0-2 are kept occupied (occupy_standard_fds, first thing in main), so a file napkin
//    opens can never become stdin, stdout or stderr: a closed stdout would otherwise receive
//    the table inside the --plot file.
//  - stderr lines (errors, warnings, failed checks) go through print_stderr, which never throws
//    and never aborts: a closed or full stderr loses the line, the exit code still tells.
//  - stdout writes are checked (napkin/report/checked_output.h).
//  - an output file (--plot) is a ReplaceFile: written to a temporary file beside the target and
//    renamed over it only when the run succeeded; napkin never truncates, unlinks or writes
//    through a file it did not create.
#pragma once

#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace napkin::cli {

/// Opens /dev/null on any of fds 0, 1, 2 that is closed. fd 0 and fd 2 get /dev/null as a
/// harmless input and sink. fd 1 gets /dev/null opened read-only: the fd is taken, and every
/// write to stdout fails with EBADF just as it would on the closed fd, so a run that prints
/// (every command does) stops with "cannot write the output: stdout is closed" (exit 2)
/// instead of succeeding with its output silently lost.
void occupy_standard_fds() noexcept;

/// Whether to colour what goes to `fd` (1 or 2): a terminal, and NO_COLOR unset or empty
/// (https://no-color.org). The table's fit verdict and stderr's "warning:" use it.
bool use_colour(int fd) noexcept;

/// Writes `text` to stderr as is; a failure is ignored (nothing to report it on).
void print_stderr(std::string_view text) noexcept;
/// "napkin: warning: <w>" on stderr, after flushing what stdout holds (checked: throws
/// report::OutputError when stdout has failed).
void print_warning(std::string_view w);
/// Warnings wait while held: from the start of a run until its first row is printed
/// (release_warnings, which prints them in order and stops holding) or the run fails
/// (drop_warnings: an exit-2 run prints its error line alone).
void hold_warnings();
void release_warnings();
void drop_warnings() noexcept;
/// While `seen` is set (run_choices: one output for several configurations), a warning already
/// printed is not printed again: print_warning and warn_analogy ask first_warning first.
void set_warning_dedupe(std::set<std::string>* seen);
/// False when the dedupe set is on and already holds `w` (which it then keeps); else true.
bool first_warning(std::string_view w);

/// An output file given by `flag` (--plot): the target path is checked when it is constructed,
/// and a temporary file is created in the target's directory (".NAME.napkin-XXXXXX", same file
/// system); commit() writes the content and renames the temporary file over the target.
/// Destroyed without commit() (a failed run), it removes only its temporary file. On SIGINT,
/// SIGTERM, SIGHUP and SIGPIPE (unless ignored) the temporary file is removed before the
/// signal takes its default action; after SIGKILL one may remain, the target never changes.
///
/// Refused with InputError ("--plot: 'PATH': ..."), before anything is computed:
///   - an empty path, or one that names no file ("dir/");
///   - a directory, or an existing path that is not a regular file (a device such as
///     /dev/null, a FIFO, a socket);
///   - a symbolic link: napkin would have to write through it into another file or replace
///     the link the user made; it does neither;
///   - a file the command reads (`inputs`: MODEL, --hw FILE; for a model directory or a
///     checkpoint file, the config.json and checkpoint files in its directory), by device and
///     inode, so another name for the same file is caught too;
///   - any other file the run has read (specs::file_read: every file opened through
///     InputFile), by device and inode, however it was reached: a Hugging Face cache's blob
///     behind a snapshot link, a model directory's config.json that links elsewhere, the file
///     NAPKIN_HW names; checked again just before the rename;
///   - an existing file that is not writable (read-only: it is not replaced either);
///   - a target directory where no file can be created (missing, not writable: the reason).
/// An existing file keeps its permission bits; a new one gets 0666 less the umask.
class ReplaceFile {
 public:
  ReplaceFile(std::string flag, std::string path, const std::vector<std::string>& inputs);
  ~ReplaceFile();
  ReplaceFile(const ReplaceFile&) = delete;
  ReplaceFile& operator=(const ReplaceFile&) = delete;

  /// Writes `content` and replaces the target with it. Throws InputError naming the flag when
  /// the write or the rename fails (the temporary file is removed, the target unchanged).
  void commit(std::string_view content);
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  void discard() noexcept;
  std::string flag_, path_, tmp_;
  int fd_ = -1;
  int slot_ = -1;  // the signal handler's record of tmp_
};

}  // namespace napkin::cli
