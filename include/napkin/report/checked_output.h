// Checked writes to the output stream. Every byte napkin prints on stdout goes through
// write_checked (the renderers' buffers) or is checked by flush_checked at the end: a write
// that fails (a full disk, a closed pipe with SIGPIPE ignored, a closed stdout) throws
// OutputError at once, so a long sweep stops instead of computing rows nobody can read, and
// main reports "napkin: error: cannot write the output: <reason>" with exit 2.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

namespace napkin::report {

class OutputError : public std::runtime_error {
 public:
  /// `err`: the errno of the failed write (EIO when the stream gave none).
  explicit OutputError(int err);
  int error_code() const { return err_; }

 private:
  int err_;
};

/// Writes all of `s` to `f` and flushes `f`; throws OutputError when either fails.
void write_checked(std::FILE* f, std::string_view s);
/// Flushes `f` and checks its error flag; throws OutputError on a failure.
void flush_checked(std::FILE* f);

}  // namespace napkin::report
