// --jsonl --compact (issue 18): a header line, then values only. Each test runs the binary twice,
// with --jsonl and with --jsonl --compact, parses both and rebuilds every full row from the
// compact lines: values, units, labels, formulas, assumptions, notes, warnings and series agree.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_napkin.h"

using napkin_test::run_shell;
using nlohmann::json;

namespace {

std::vector<json> lines_of(const std::string& args) {
  const auto r = run_shell(std::string(NAPKIN_BINARY) + " " + args + " 2>/dev/null");
  REQUIRE(r.code == 0);
  std::vector<json> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

struct Compact {
  std::vector<json> rows;  // each row rebuilt in the full form (formula: the header's symbolic one)
  int headers = 0;
};

// The full form's rows as the compact lines describe them.
Compact rebuild(const std::vector<json>& lines) {
  Compact c;
  json header;
  for (const json& line : lines) {
    if (line.contains("schema_version")) {
      CHECK(line.at("compact") == "header");
      header = line;
      ++c.headers;
      continue;
    }
    REQUIRE(!header.is_null());  // a row comes after a header
    json row;
    row["schema_version"] = header.at("schema_version");
    row["command"] = header.at("command");
    const json& names = header.at("inputs");
    REQUIRE(line.at("inputs").size() == names.size());
    row["inputs"] = json::object();
    for (std::size_t i = 0; i < names.size(); ++i) row["inputs"][names[i].get<std::string>()] = line["inputs"][i];
    const json& results = header.at("results");
    REQUIRE(line.at("results").size() == results.size());
    row["results"] = json::object();
    for (std::size_t i = 0; i < results.size(); ++i) {
      json r = results[i];
      r["value"] = line["results"][i];
      row["results"][r.at("key").get<std::string>()] = r;
    }
    row["assumptions"] = header.at("assumptions");
    for (json& a : row["assumptions"]) {
      const std::string key = a.at("key");
      if (line.contains("assumptions") && line["assumptions"].contains(key)) a["text"] = line["assumptions"][key];
    }
    row["notes"] = header.at("notes");
    row["warnings"] = line.contains("warnings") ? line["warnings"] : json::array();
    for (const auto& [key, v] : line.items())
      if (key != "inputs" && key != "results" && key != "assumptions" && key != "warnings") row[key] = v;
    c.rows.push_back(row);
  }
  return c;
}

// A full row and a rebuilt one say the same: every field equal, the formula the full form's
// symbolic part (before " = " and the numbers).
void check_same(const json& full, json rebuilt) {
  CHECK(rebuilt.size() == full.size());
  for (auto& [key, r] : rebuilt["results"].items()) {
    REQUIRE(full["results"].contains(key));
    const std::string f = full["results"][key]["formula"], symbolic = r["formula"];
    CHECK((f == symbolic || f.rfind(symbolic + " = ", 0) == 0));
    r["formula"] = f;
    r.erase("key");
  }
  CHECK(rebuilt == full);
}

// `headers`: how many header lines the compact output has (-1: not checked).
void check_agree(const std::string& args, int headers) {
  INFO(args);
  const std::vector<json> full = lines_of(args + " --jsonl");
  const Compact compact = rebuild(lines_of(args + " --jsonl --compact"));
  if (headers >= 0) CHECK(compact.headers == headers);
  REQUIRE(compact.rows.size() == full.size());
  for (std::size_t i = 0; i < full.size(); ++i) check_same(full[i], compact.rows[i]);
}

}  // namespace

TEST_CASE("compact JSON lines rebuild every row of a memory sweep, under one header", "[cli][compact]") {
  check_agree("memory llama-3.1-8b --batch 1,8,64 --context 1Ki..4Ki:x2 --hw h100-sxm", 1);
}

TEST_CASE("compact JSON lines carry a row's assumption only where its text differs from the header's",
          "[cli][compact]") {
  const std::vector<json> lines = lines_of("memory llama-3.1-8b --batch 1,2 --jsonl --compact");
  REQUIRE(lines.size() == 3);
  CHECK(!lines[1].contains("assumptions"));  // the header's texts are the first row's
  REQUIRE(lines[2].contains("assumptions"));
  CHECK(lines[2]["assumptions"].contains("batch_context"));
  CHECK(!lines[2]["assumptions"].contains("weights_dtype"));
}

TEST_CASE("compact JSON lines keep serve's per-op tables and its warnings per row", "[cli][compact]") {
  check_agree("serve llama-3.1-8b --hw h100-sxm --batch 1,256 --prompt 512 --per-op", 1);
  check_agree("flops matmul --m 1,2,4 --k 8 --n 8", 1);
}

TEST_CASE("compact JSON lines start a new header where a comparison's rows change shape", "[cli][compact]") {
  // gpt-oss-20b states its declared quantization (one more assumption): a header of its own.
  check_agree("memory llama-3.1-8b,gpt-oss-20b --batch 1,2 --hw h100-sxm", 2);
  // Same shape, one header: a dense model and an MoE one with the same ledger rows.
  check_agree("memory llama-3.1-8b,qwen3-30b-a3b --batch 1,2 --hw h100-sxm", 1);
  check_agree("presets hardware", -1);  // GPUs publish different figures: several headers
}

TEST_CASE("a compact flag without --jsonl is refused naming --compact", "[cli][compact]") {
  for (const char* other : {"", " --json", " --csv", " --explain", " --value per_gpu"}) {
    const auto r = run_shell(std::string(NAPKIN_BINARY) + " memory llama-3.1-8b --compact" + other + " 2>&1");
    CHECK(r.code == 2);
    CHECK(r.out.rfind("napkin: error: --compact: ", 0) == 0);
  }
}

TEST_CASE("a chart drawn beside compact JSON lines is the chart drawn without them", "[cli][compact]") {
  // The chart states the command line without its output flags: --compact is one of them.
  const auto r = run_shell("d=$(mktemp -d) && " + std::string(NAPKIN_BINARY) +
                           " memory llama-3.1-8b --batch 1,2,4 --jsonl --compact --plot $d/a.svg > /dev/null && " +
                           NAPKIN_BINARY + " memory llama-3.1-8b --batch 1,2,4 --plot $d/b.svg > /dev/null && " +
                           "cmp -s $d/a.svg $d/b.svg; s=$?; rm -rf $d; exit $s");
  CHECK(r.code == 0);
}
