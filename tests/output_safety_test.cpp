// Safe output (issue 12): napkin never destroys a file and never loses output silently. Each
// case reproduces a defect of the in-place --plot writer or of the unchecked standard streams,
// through the real binary under sh -c (redirections, closed fds, pipes, signals), in a fresh
// temporary directory.
#include <catch2/catch.hpp>

#include "run_napkin.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "napkin/ground/error.h"
#include "safe_output.h"

namespace {

namespace fs = std::filesystem;

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

const std::string kNapkin = quote(NAPKIN_BINARY);

struct Sh {
  int code;         // the script's exit status; 128 + N when a signal N ended it
  std::string out;  // what the script printed on its stdout
};

// Runs `script` under sh -c in `dir`; the script chooses every redirection itself.
Sh sh(const fs::path& dir, const std::string& script) {
  const napkin_test::Run r = napkin_test::run_shell("cd " + quote(dir.string()) + " && sh -c " + quote(script));
  return {r.code, r.out};
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// The names in `dir`, sorted, dot files included (a leftover temporary file shows here).
std::vector<std::string> names(const fs::path& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

struct Dir {
  fs::path path;
  Dir() {
    std::string tmpl = (fs::temp_directory_path() / "napkin_output_XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path operator/(const std::string& name) const { return path / name; }
};

// A plot that a run makes at its end, and the same run made to fail at its first row.
const std::string kSweep = " flops matmul --m 1,2 --k 4 --n 4";
const std::string kFailsAtFirstRow = kSweep + " --plot-y nope";

// A small Hugging Face config (GPT-2 small) for MODEL files.
const std::string kConfig =
    R"({"n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024, "vocab_size": 50257})";

}  // namespace

// ---- the --plot file: written beside the target, renamed over it only on success ------------

TEST_CASE("a failed run leaves an existing --plot file byte-identical and no temporary file", "[output]") {
  Dir d;
  spit(d / "a.svg", "keep\n");
  Sh r = sh(d.path, kNapkin + kFailsAtFirstRow + " --plot a.svg 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot-y: 'nope': expected a numeric result key: flops\n");
  CHECK(slurp(d / "a.svg") == "keep\n");  // before: the failed run deleted it
  CHECK(names(d.path) == std::vector<std::string>{"a.svg"});
  r = sh(d.path, kNapkin + " flops matmul --m -4,1 --k 4 --n 4 --plot a.svg 2>&1");
  CHECK(r.code == 2);
  CHECK(slurp(d / "a.svg") == "keep\n");
  CHECK(names(d.path) == std::vector<std::string>{"a.svg"});
}

TEST_CASE("a successful run replaces the --plot file whole and keeps its permission bits", "[output]") {
  Dir d;
  spit(d / "a.svg", "keep\n");
  REQUIRE(chmod((d / "a.svg").c_str(), 0640) == 0);
  const Sh r = sh(d.path, kNapkin + kSweep + " --plot a.svg >/dev/null 2>&1");
  CHECK(r.code == 0);
  const std::string svg = slurp(d / "a.svg");
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  struct stat st {};
  REQUIRE(stat((d / "a.svg").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  CHECK(names(d.path) == std::vector<std::string>{"a.svg"});
}

TEST_CASE("a symbolic link as --plot is refused: its target is never written through", "[output]") {
  Dir d;
  spit(d / "t.txt", "keep\n");
  fs::create_symlink("t.txt", d / "l.svg");
  fs::create_symlink("missing.txt", d / "dangling.svg");
  Sh r = sh(d.path, kNapkin + kSweep + " --plot l.svg 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: 'l.svg': is a symbolic link; expected a regular file or a new file name "
                 "(napkin replaces the file it writes and never writes through a link)\n");
  // before: a failed run emptied t.txt through the link and removed the link
  r = sh(d.path, kNapkin + kFailsAtFirstRow + " --plot l.svg 2>&1");
  CHECK(r.code == 2);
  r = sh(d.path, kNapkin + kSweep + " --plot dangling.svg 2>&1");
  CHECK(r.code == 2);
  CHECK(slurp(d / "t.txt") == "keep\n");
  CHECK(fs::is_symlink(d / "l.svg"));
  CHECK(!fs::exists(d / "missing.txt"));
  CHECK(names(d.path) == std::vector<std::string>{"dangling.svg", "l.svg", "t.txt"});
}

TEST_CASE("a --plot naming a file the command reads is refused and the file is unchanged", "[output]") {
  Dir d;
  spit(d / "m.json", kConfig);
  fs::create_directory(d / "md");
  spit(d / "md" / "config.json", kConfig);
  fs::create_hard_link(d / "m.json", d / "other-name.svg");
  spit(d / "hw.json", slurp(fs::path(NAPKIN_SOURCE_DIR) / "data/presets/hardware/h100-sxm.json"));
  const std::string hw = slurp(d / "hw.json");
  REQUIRE(sh(d.path, kNapkin + " memory m.json >/dev/null 2>&1").code == 0);
  // before: the chart overwrote the model it had read
  Sh r = sh(d.path, kNapkin + " memory m.json --plot m.json 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: 'm.json': is the input file 'm.json'; expected another file name\n");
  r = sh(d.path, kNapkin + " memory ./m.json --plot other-name.svg 2>&1");  // the same inode by another name
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: 'other-name.svg': is the input file './m.json'; expected another file name\n");
  r = sh(d.path, kNapkin + " memory md --plot md/config.json 2>&1");  // a model directory's config.json
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: 'md/config.json': is a file of the model input 'md'; expected another file "
                 "name\n");
  r = sh(d.path, kNapkin + " roofline --hw hw.json --intensity 1,10 --plot hw.json 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: 'hw.json': is the input file 'hw.json'; expected another file name\n");
  CHECK(slurp(d / "m.json") == kConfig);
  CHECK(slurp(d / "md" / "config.json") == kConfig);
  CHECK(slurp(d / "hw.json") == hw);
  // A new file in the model directory is fine.
  r = sh(d.path, kNapkin + " memory md --plot md/memory.svg >/dev/null 2>&1");
  CHECK(r.code == 0);
  CHECK(slurp(d / "md" / "memory.svg").rfind("<svg", 0) == 0);
}

// Issue 35: the files a run reads through links or the environment are inputs too. Before, each
// of these runs replaced the file with the chart, exit 0 (checked with main at 2d06da6).
TEST_CASE("a --plot naming a Hugging Face cache blob the run read through its snapshot link is refused",
          "[output][hf_cache]") {
  Dir d;
  const std::string hash = "0123456789abcdef0123456789abcdef01234567";
  const fs::path repo = d / "hub" / "models--acme--tiny";
  fs::create_directories(repo / "refs");
  fs::create_directories(repo / "blobs");
  fs::create_directories(repo / "snapshots" / hash);
  spit(repo / "refs" / "main", hash);
  const fs::path blob = repo / "blobs" / "a3f1c9e0d2b4";
  spit(blob, kConfig);
  fs::create_symlink("../../blobs/a3f1c9e0d2b4", repo / "snapshots" / hash / "config.json");
  const std::string env = "HF_HUB_CACHE=" + quote((d / "hub").string()) + " ";
  REQUIRE(sh(d.path, env + kNapkin + " memory acme/tiny --batch 1,2 --context 512 >/dev/null 2>&1").code == 0);
  const Sh r =
      sh(d.path, env + kNapkin + " memory acme/tiny --batch 1,2 --context 512 --plot " + quote(blob.string()) + " 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: '" + blob.string() + "': is the input file '" +
                     (repo / "snapshots" / hash / "config.json").string() + "'; expected another file name\n");
  CHECK(slurp(blob) == kConfig);
  CHECK(names(repo / "blobs") == std::vector<std::string>{"a3f1c9e0d2b4"});
}

TEST_CASE("a --plot naming the file a model directory's config.json links to is refused", "[output]") {
  Dir d;
  spit(d / "real.json", kConfig);
  fs::create_directory(d / "md");
  fs::create_symlink("../real.json", d / "md" / "config.json");
  const Sh r = sh(d.path, kNapkin + " memory md --batch 1,2 --context 512 --plot real.json 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: 'real.json': is the input file 'md/config.json'; expected another file "
                 "name\n");
  CHECK(slurp(d / "real.json") == kConfig);
  CHECK(fs::is_symlink(d / "md" / "config.json"));
}

TEST_CASE("a --plot naming the hardware file NAPKIN_HW names is refused", "[output]") {
  Dir d;
  spit(d / "hw.json", slurp(fs::path(NAPKIN_SOURCE_DIR) / "data/presets/hardware/h100-sxm.json"));
  const std::string hw = slurp(d / "hw.json");
  Sh r = sh(d.path, "NAPKIN_HW=hw.json " + kNapkin + " memory llama-3.1-8b --batch 1,2 --plot hw.json 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: 'hw.json': is the input file 'hw.json'; expected another file name\n");
  r = sh(d.path, "NAPKIN_HW=./hw.json " + kNapkin + " roofline --intensity 1,10 --plot hw.json 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: 'hw.json': is the input file './hw.json'; expected another file name\n");
  CHECK(slurp(d / "hw.json") == hw);
  CHECK(names(d.path) == std::vector<std::string>{"hw.json"});
}

TEST_CASE("a --plot path that is not a regular file, or an empty one, is refused before anything is printed", "[output]") {
  Dir d;
  REQUIRE(mkfifo((d / "fifo.svg").c_str(), 0600) == 0);
  fs::create_directory(d / "dir.svg");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/dev/null", "is a character device; expected a regular file or a new file name"},
      {"fifo.svg", "is a FIFO; expected a regular file or a new file name"},
      {"dir.svg", "is a directory; expected a file name (FILE.svg)"},
      {"dir.svg/", "expected a file name (FILE.svg), not a directory"},
      {"", "expected a file name (FILE.svg)"},
      {"no-such-dir/a.svg", "cannot create a file in 'no-such-dir': No such file or directory"},
  };
  for (const auto& [path, why] : cases) {
    INFO(path);
    // stdout and stderr apart: nothing may reach stdout
    const Sh r = sh(d.path, kNapkin + kSweep + " --plot " + quote(path) + " 2>err; echo \"[$?]\"; cat err");
    CHECK(r.out == "[2]\nnapkin: error: --plot: '" + path + "': " + why + "\n");
  }
  struct stat st {};
  REQUIRE(stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(names(d.path) == std::vector<std::string>{"dir.svg", "err", "fifo.svg"});
  CHECK(fs::is_empty(d / "dir.svg"));
}

TEST_CASE("a --plot naming the file stdout goes to is refused", "[output]") {
  Dir d;
  const Sh r = sh(d.path, kNapkin + kSweep + " --plot out.svg >out.svg 2>err; echo \"[$?]\"; cat err");
  CHECK(r.out == "[2]\nnapkin: error: --plot: 'out.svg': is the standard output; expected another file name\n");
}

TEST_CASE("an existing read-only --plot file is not replaced", "[output]") {
  if (geteuid() == 0) return;  // root may write anything: nothing to check
  Dir d;
  spit(d / "ro.svg", "keep\n");
  REQUIRE(chmod((d / "ro.svg").c_str(), 0444) == 0);
  const Sh r = sh(d.path, kNapkin + kSweep + " --plot ro.svg 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: 'ro.svg': cannot write: Permission denied\n");
  CHECK(slurp(d / "ro.svg") == "keep\n");
}

// ---- signals -----------------------------------------------------------------------------------

TEST_CASE("a run ended by SIGPIPE leaves the old --plot file intact and no temporary file", "[output]") {
  Dir d;
  spit(d / "x.svg", "keep\n");
  const std::string sweep = kNapkin + " flops matmul --m 1..100000:+1 --k 8 --n 8 --csv --plot x.svg";
  // before: a run killed by SIGPIPE left an empty x.svg
  Sh r = sh(d.path, sweep + " 2>/dev/null | head -c 10");
  CHECK(r.out == "m,k,n,fma_");
  CHECK(slurp(d / "x.svg") == "keep\n");
  CHECK(names(d.path) == std::vector<std::string>{"x.svg"});
  // SIGPIPE ignored: the write fails with EPIPE, which is an error, not a silent exit 0
  r = sh(d.path, "trap '' PIPE; { " + sweep + " 2>err; echo $? >code; } | head -c 10 >/dev/null; cat code err");
  CHECK(r.out == "2\nnapkin: error: cannot write the output: Broken pipe\n");
  CHECK(slurp(d / "x.svg") == "keep\n");
  CHECK(names(d.path) == std::vector<std::string>{"code", "err", "x.svg"});
}

TEST_CASE("with SIGPIPE ignored a billion-row sweep into head stops at the failed write", "[output]") {
  Dir d;
  // 4e9 rows (past the default row cap, raised): computing them all would take far past the
  // timeout (exit 124); checking each axis' values first is only 2000 + 2000 + 1000 rows.
  const Sh r = sh(d.path, "trap '' PIPE; { timeout 60 " + kNapkin +
                              " flops matmul --m 1..2000 --k 1..2000 --n 1..1000 --max-rows 4e9 --csv 2>err; "
                              "echo $? >code; } | head -1; cat code err");
  CHECK(r.out == "m,k,n,fma_as_one,flops\n2\nnapkin: error: cannot write the output: Broken pipe\n");
}

TEST_CASE("a run ended by SIGTERM leaves the old --plot file intact and no temporary file", "[output]") {
  Dir d;
  spit(d / "x.svg", "keep\n");
  // A sweep of many seconds, ended after one.
  const Sh r = sh(d.path, "timeout -s TERM 1 " + kNapkin +
                              " serve llama-3.1-8b --hw h100-sxm --batch 1..100000:+1 --max-rows 100000 --csv --plot x.svg "
                              ">/dev/null 2>&1; "
                              "echo $?");
  CHECK(r.out == "124\n");
  CHECK(slurp(d / "x.svg") == "keep\n");
  CHECK(names(d.path) == std::vector<std::string>{"x.svg"});
}

// ---- stdout and stderr -------------------------------------------------------------------------

TEST_CASE("a failed stdout write is exit 2 with the reason, never exit 0 with nothing written", "[output]") {
  Dir d;
  for (const std::string args : {" memory llama-3.1-8b --json", " memory llama-3.1-8b --batch 1..5000:+1 --csv",
                                 " --version", "", " memory --help", " presets models"}) {
    INFO(args);
    const Sh r = sh(d.path, kNapkin + args + " 2>&1 >/dev/full");
    CHECK(r.code == 2);  // before: 0 (the output was lost)
    CHECK(r.out == "napkin: error: cannot write the output: No space left on device\n");
  }
}

TEST_CASE("a closed stdout is a write error, and the --plot file gets only the chart", "[output]") {
  Dir d;
  spit(d / "x.svg", "keep\n");
  // before: exit 0, and the table went into the SVG file (the file had become fd 1)
  Sh r = sh(d.path, kNapkin + kSweep + " --plot x.svg 2>&1 >&-");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: cannot write the output: stdout is closed (Bad file descriptor)\n");
  CHECK(slurp(d / "x.svg") == "keep\n");
  r = sh(d.path, kNapkin + kSweep + " --plot new.svg 2>&1 >&-");
  CHECK(r.code == 2);
  CHECK(!fs::exists(d / "new.svg"));
  CHECK(names(d.path) == std::vector<std::string>{"x.svg"});
}

TEST_CASE("a closed or full stderr never aborts: errors stay exit 2, warnings exit 0", "[output]") {
  Dir d;
  for (const std::string redirect : {" 2>&-", " 2>/dev/full"}) {
    INFO(redirect);
    // before: 134 (the error message threw inside the error handler)
    Sh r = sh(d.path, kNapkin + " flops matmul --m -4 --k 4 --n 4" + redirect);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    r = sh(d.path, kNapkin + " memory llama-3.1-8b --train --zero 2 --hw h100-sxm --json" + redirect);
    CHECK(r.code == 0);
    CHECK(r.out.find("\"per_gpu\"") != std::string::npos);
    r = sh(d.path, kNapkin + " memory --params 8B --gpu-memory 8GB --require-fit" + redirect + " >/dev/null");
    CHECK(r.code == 1);
    r = sh(d.path, kNapkin + " flopz" + redirect);
    CHECK(r.code == 2);
  }
  // A closed stdin is harmless.
  const Sh r = sh(d.path, kNapkin + " flops matmul --m 4 --k 4 --n 4 --csv <&-");
  CHECK(r.code == 0);
  CHECK(r.out.rfind("m,k,n", 0) == 0);
}

// ---- ReplaceFile itself ------------------------------------------------------------------------

TEST_CASE("ReplaceFile replaces the target only on commit and removes only its own file", "[output]") {
  Dir d;
  spit(d / "a.svg", "old");
  {
    napkin::cli::ReplaceFile f("--plot", (d / "a.svg").string(), {});
    CHECK(names(d.path).size() == 2);  // the target and a temporary file beside it
    CHECK(slurp(d / "a.svg") == "old");
  }
  CHECK(names(d.path) == std::vector<std::string>{"a.svg"});
  CHECK(slurp(d / "a.svg") == "old");
  {
    napkin::cli::ReplaceFile f("--plot", (d / "a.svg").string(), {});
    f.commit("new");
    CHECK_THROWS_AS(f.commit("again"), napkin::InputError);
  }
  CHECK(names(d.path) == std::vector<std::string>{"a.svg"});
  CHECK(slurp(d / "a.svg") == "new");
  CHECK_THROWS_WITH(napkin::cli::ReplaceFile("--plot", (d / "a.svg").string(), {(d / "a.svg").string()}),
                    "--plot: '" + (d / "a.svg").string() + "': is the input file '" + (d / "a.svg").string() +
                        "'; expected another file name");
}

// Issue 35: --plot spellings no one means as a chart's file. Before (main at 7c75241) '-',
// 'chart', 'chart.png', '.svg', 'x.svg ' and ' x.svg' were each written as a file of that name,
// exit 0, and '~/x.svg' said only "cannot create a file in '~'".
TEST_CASE("a --plot path spelled as no chart's file is refused and nothing is written", "[output]") {
  Dir d;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"-", "expected a file name (FILE.svg): the chart goes to a file, never to stdout, which carries the table"},
      {"chart", "expected a file name ending in .svg, such as chart.svg (napkin writes SVG only)"},
      {"chart.png", "expected a file name ending in .svg, such as chart.svg (napkin writes SVG only)"},
      {".svg", "expected a name before the extension, such as chart.svg"},
      {"sub/.SVG", "expected a name before the extension, such as chart.svg"},
      {"x.svg ", "ends with white space; expected a file name without white space around it (FILE.svg)"},
      {" x.svg", "starts with white space; expected a file name without white space around it (FILE.svg)"},
      {"~/x.svg", "starts with a '~' the shell did not expand (inside quotes, or after --plot=); expected the path "
                  "written out, such as $HOME/x.svg"},
      {"out/", "expected a file name (FILE.svg), not a directory"},
  };
  for (const auto& [path, why] : cases) {
    INFO(path);
    const Sh r = sh(d.path, kNapkin + kSweep + " --plot " + quote(path) + " 2>err; echo \"[$?]\"; cat err");
    const std::string sep = why.starts_with("expected") ? "': " : "' ";
    CHECK(r.out == "[2]\nnapkin: error: --plot: '" + path + sep + why + "\n");
  }
  CHECK(names(d.path) == std::vector<std::string>{"err"});
  // A file the run reads is named as such, whatever its name (the .svg check comes after).
  spit(d / "m.json", kConfig);
  const Sh r = sh(d.path, kNapkin + " memory m.json --batch 1,2 --plot m.json 2>&1");
  CHECK(r.out == "napkin: error: --plot: 'm.json': is the input file 'm.json'; expected another file name\n");
}

TEST_CASE("a --plot name ending in .svg in any case is written", "[output]") {
  Dir d;
  for (const char* name : {"A.SVG", "b.Svg", "c.svg"}) {
    INFO(name);
    CHECK(sh(d.path, kNapkin + kSweep + " --plot " + name + " >/dev/null 2>&1").code == 0);
    CHECK(slurp(d / name).rfind("<svg", 0) == 0);
  }
}
