// Text echoed from input, made safe for a terminal line, a JSON string and a CSV cell
// (include/napkin/ground/sanitize.h), and where the CLI applies it.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "napkin/ground/result.h"
#include "napkin/ground/sanitize.h"
#include "napkin/report/render.h"
#include "run_napkin.h"

using namespace napkin;

TEST_CASE("control characters become visible escapes", "[sanitize]") {
  CHECK(visible("plain text, · and µ") == "plain text, · and µ");
  CHECK(visible("a\nb\rc\td") == "a\\nb\\rc\\td");
  CHECK(visible("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m");
  CHECK(visible(std::string("nul\0byte", 8)) == "nul\\x00byte");
  CHECK(visible("del\x7f") == "del\\x7f");
  // C1 controls (U+009B is a CSI), bidirectional overrides and line separators.
  CHECK(visible("\xc2\x9b" "31m") == "\\u009b31m");
  CHECK(visible("abc\xe2\x80\xae" "def") == "abc\\u202edef");
  CHECK(visible("x\xe2\x80\xa8y") == "x\\u2028y");
}

TEST_CASE("bytes that are not UTF-8 are shown as \\xNN", "[sanitize]") {
  CHECK(visible("caf\xe9") == "caf\\xe9");                 // Latin-1
  CHECK(visible("\xc0\xaf") == "\\xc0\\xaf");              // overlong '/'
  CHECK(visible("\xed\xa0\x80") == "\\xed\\xa0\\x80");     // a surrogate
  CHECK(visible("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  CHECK(visible("cut \xe2\x82") == "cut \\xe2\\x82");      // a sequence cut short
  CHECK(visible("\xf0\x9f\x98\x80 ok") == "\xf0\x9f\x98\x80 ok");
  CHECK(utf8_sequence("\xce\xbc", 0) == 2);
  CHECK(utf8_sequence("\x80", 0) == 0);
}

TEST_CASE("a long echo keeps its start and end around its length", "[sanitize]") {
  const std::string name = "model.layers.0." + std::string(10000, 'x') + ".weight";
  const std::string e = echo(name);
  CHECK(e.size() < 260);
  CHECK(e.rfind("model.layers.0.xxx", 0) == 0);
  CHECK(e.find("…(10022 bytes)…") != std::string::npos);
  CHECK(e.ends_with("xxx.weight"));
  CHECK(echo("short") == "short");
  // Cut on a character boundary: no half a µ.
  const std::string mus = [] {
    std::string s;
    for (int i = 0; i < 300; ++i) s += "µ";
    return s;
  }();
  const std::string m = echo(mus);
  CHECK(visible(m) == m);  // still valid UTF-8: nothing to escape
}

TEST_CASE("a message line stays one bounded line", "[sanitize]") {
  CHECK(sanitize_message("--m: 'a\nb': expected a count") == "--m: 'a\\nb': expected a count");
  const std::string huge = "--m: '" + std::string(90'000'000, 'a') + "': expected a count";
  const std::string s = sanitize_message(huge);
  CHECK(s.size() < 300);
  CHECK(s.find("…(90000000 bytes)…") != std::string::npos);
  CHECK(s.ends_with("aaaa': expected a count"));
  // Many short words: the whole line is capped.
  std::string words;
  for (int i = 0; i < 10000; ++i) words += "word ";
  const std::string w = sanitize_message(words);
  CHECK(w.size() < kMaxMessageBytes + 40);
  CHECK(w.ends_with("…(50000 bytes)"));
  // napkin's own long messages (a list of a format's keys, ~700 bytes) pass whole.
  const std::string keys(700, 'k');
  CHECK(sanitize_message(std::string(150, 'x') + " " + keys.substr(0, 150)) ==
        std::string(150, 'x') + " " + keys.substr(0, 150));
}

TEST_CASE("CSV text cells that a spreadsheet would run are quoted with an apostrophe", "[sanitize]") {
  for (const char* f : {"=1+2", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"}) CHECK(csv_formula_like(f));
  for (const char* f : {"", "-", "+", "llama", "1e-3", "a=b"}) CHECK_FALSE(csv_formula_like(f));
}

TEST_CASE("JSON strings are valid UTF-8 whatever the bytes", "[sanitize][report]") {
  std::string out;
  report::append_json_string(out, "caf\xe9 \x1b[1m \xc2\x9b \xe2\x80\xae ok µ");
  CHECK(out == "\"caf\\ufffd \\u001b[1m \\u009b \\u202e ok µ\"");
  CHECK(nlohmann::json::parse(out).get<std::string>() == "caf\xef\xbf\xbd \x1b[1m \xc2\x9b \xe2\x80\xae ok µ");
}

TEST_CASE("a CSV text cell is guarded; a negative number is not", "[sanitize][report]") {
  ResultSet rs;
  rs.command = "t";
  rs.input("name", verdict("=HYPERLINK(\"x\")"));
  rs.input("note", verdict("a\x1b[2Jb"));
  rs.item("delta", "delta", value(-3.0), "d", text("-3"));
  const std::string csv = report::render_to_string(rs, report::Format::csv);
  CHECK(csv == "name,note,delta\n\"'=HYPERLINK(\"\"x\"\")\",a\\x1b[2Jb,-3\n");
}

TEST_CASE("the CLI's error line escapes what the user typed", "[sanitize][cli]") {
  using napkin_test::run_napkin;
  // A newline and an escape sequence in a flag value: one line, nothing for the terminal.
  // (popen's /bin/sh: printf, not $'...')
  auto r = run_napkin("flops matmul --m \"$(printf '4\\n\\033[31m8')\" --k 8 --n 8");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --m: '4\\n\\x1b[31m8' has an unknown unit '\\n\\x1b[31m8'; expected a count such as "
                 "4096, 8k or 8Ki\n");
  // A 100 kB value is echoed in part.
  r = run_napkin("flops matmul --m 4$(printf 'x%.0s' $(seq 100000)) --k 8 --n 8");
  CHECK(r.code == 2);
  CHECK(r.out.size() < 1000);
  CHECK(r.out.find("…(100001 bytes)…") != std::string::npos);
  // A path that is not UTF-8.
  r = run_napkin("params \"$(printf 'caf\\351.json')\"");
  CHECK(r.code == 2);
  CHECK(r.out.find("caf\\xe9.json") != std::string::npos);
}
