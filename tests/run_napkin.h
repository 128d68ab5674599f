// Runs the real napkin binary for CLI tests: exit code and stdout with stderr folded in.
#pragma once

#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace napkin_test {

struct Run {
  int code;
  std::string out;
};

/// Runs a shell command line: its exit code (128 + the signal when killed) and its stdout.
inline Run run_shell(const std::string& cmd) {
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1, out};
}

inline Run run_napkin(const std::string& args) { return run_shell(std::string(NAPKIN_BINARY) + " " + args + " 2>&1"); }

}  // namespace napkin_test
