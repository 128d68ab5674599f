#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "napkin/plans/energy.h"
#include "napkin/report/human_units.h"
#include "napkin/report/render.h"

using namespace napkin;
using namespace napkin::units;
using report::Format;
using report::render_to_string;

namespace {
ResultSet seed_energy() {
  ResultSet rs;
  energy({.flops = 1e18 * flop, .throughput = 100.0 * TFLOP_per_s, .power = 1.0 * kW, .pue = 1.2}, rs);
  return rs;
}
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}
}  // namespace

TEST_CASE("table, JSON and CSV of one result set carry the same keys and values", "[report]") {
  const ResultSet rs = seed_energy();
  const std::string table = render_to_string(rs, Format::table);
  const std::string json = render_to_string(rs, Format::json);
  const std::vector<std::string> csv = split(render_to_string(rs, Format::csv), '\n');
  REQUIRE(csv.size() == 2);
  const auto header = split(csv[0], ',');
  const auto row = split(csv[1], ',');
  REQUIRE(header.size() == row.size());
  for (const auto& it : rs.items) {
    CHECK(table.find(std::string(it.key)) != std::string::npos);
    CHECK(table.find(report::human_value(it.value)) != std::string::npos);
    std::string exact;
    report::append_number(exact, it.value.num);
    CHECK(json.find("\"" + std::string(it.key) + "\":{\"value\":" + exact) != std::string::npos);
    bool in_csv = false;
    for (std::size_t c = 0; c < header.size(); ++c)
      if (header[c] == it.key) in_csv = row[c] == exact;
    CHECK(in_csv);
  }
}

TEST_CASE("the table lists every assumption with its flag", "[report]") {
  ResultSet rs = seed_energy();
  std::vector<std::string> flags;
  flags.reserve(rs.assumptions.size());
  for (auto& a : rs.assumptions) a.flag = flags.emplace_back("--" + std::string(a.key));
  const std::string table = render_to_string(rs, Format::table);
  CHECK(table.find("Assumptions") != std::string::npos);
  for (const auto& a : rs.assumptions) {
    CHECK(table.find(report::expand(rs, a.text)) != std::string::npos);
    CHECK(table.find(std::string(a.flag)) != std::string::npos);
  }
}

TEST_CASE("explain shows the givens, each formula, its substitution and the value", "[report]") {
  const std::string ex = render_to_string(seed_energy(), Format::explain);
  CHECK(ex.find("Given") != std::string::npos);
  CHECK(ex.find("flops = 1.00 EFLOP  [FLOP]") != std::string::npos);
  CHECK(ex.find("t = C / R\n   = 1.00 EFLOP / 100.00 TFLOP/s\n   = 2.78 h (10000 s)") != std::string::npos);
}

TEST_CASE("JSON strings escape quotes, backslashes and control characters", "[report]") {
  std::string s;
  report::append_json_string(s, "a\"b\\c\nd\x01");
  CHECK(s == "\"a\\\"b\\\\c\\nd\\u0001\"");
}

namespace {
// A sweep table of `n` rows, m = 1..n and one result `bytes(m)`, rendered; its lines.
template <class F>
std::vector<std::string> sweep_table(std::size_t n, F bytes) {
  std::FILE* tmp = std::tmpfile();
  REQUIRE(tmp != nullptr);
  {
    report::RenderOptions opt;
    opt.sweep = true;
    opt.swept = {"m"};
    auto r = report::make_renderer(opt, tmp);
    ResultSet rs;
    for (std::size_t i = 1; i <= n; ++i) {
      rs.clear();
      rs.input("m", value(static_cast<double>(i)));
      rs.item("size", "size", value(bytes(static_cast<double>(i)) * byte), "S", text("s"));
      r->row(rs);
    }
    r->finish();
  }
  std::string s;
  std::rewind(tmp);
  char chunk[4096];
  std::size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, tmp)) > 0) s.append(chunk, got);
  std::fclose(tmp);
  return split(s, '\n');
}
}  // namespace

TEST_CASE("a sweep table stays aligned past its first 256 rows", "[report]") {
  // As in napkin flops matmul --m 1..1000: the widest cells come last.
  const auto lines = sweep_table(1000, [](double m) { return m * 1000.0; });
  REQUIRE(lines.size() >= 1001);
  for (std::size_t i = 0; i <= 1000; ++i) CHECK(lines[i].size() == lines[0].size());
  CHECK(lines[0] == "     m       size");
  CHECK(lines[1] == "     1    1.00 kB");
  CHECK(lines[1000] == "  1000    1.00 MB");
}

TEST_CASE("past the rows held to size it, a wider cell widens its column under a new header", "[report]") {
  const std::size_t held = 10000;
  const auto lines = sweep_table(held + 2, [&](double m) { return m <= held ? 1.0 : 123.45e12; });
  CHECK(lines[0] == "      m  size");
  CHECK(lines[held] == "  10000   1 B");
  // Row 10001 has a wider cell: the header again, at the new widths, then the rows.
  CHECK(lines[held + 1] == "      m       size");
  CHECK(lines[held + 2] == "  10001  123.45 TB");
  CHECK(lines[held + 3] == "  10002  123.45 TB");
}

TEST_CASE("a missing value is JSON null with its unit, an empty CSV cell and its shown text in the table",
          "[report]") {
  ResultSet rs;
  rs.command = "test";
  rs.input("hardware", verdict("t4"));
  rs.item("peak_bf16", "dense bf16 peak", no_value("—", dim_rt<FlopRate::dim>()), "not published", text(""));
  rs.item("min_gpus", "fewest GPUs", no_value(), "nothing fits", text(""));
  const std::string json = render_to_string(rs, Format::json);
  CHECK(json.find("\"peak_bf16\":{\"value\":null,\"unit\":\"FLOP/s\",") != std::string::npos);
  CHECK(json.find("\"min_gpus\":{\"value\":null,\"unit\":\"1\",") != std::string::npos);
  CHECK(json.find("\"-\"") == std::string::npos);
  CHECK(split(render_to_string(rs, Format::csv), '\n').at(1) == "t4,,");
  const std::string table = render_to_string(rs, Format::table);
  CHECK(table.find("—") != std::string::npos);
  CHECK(table.find("none") != std::string::npos);  // no shown text: "none"
}

TEST_CASE("every JSON object starts with schema_version, and a flagless assumption has flag null", "[report]") {
  ResultSet rs = seed_energy();
  rs.assume("no_flag", text("a convention"));
  const std::string json = render_to_string(rs, Format::json);
  CHECK(json.rfind("{\n  \"schema_version\":" + std::to_string(report::kJsonSchemaVersion) + ",\n  \"command\":", 0) == 0);
  CHECK(json.find("{\"key\":\"no_flag\",\"text\":\"a convention\",\"flag\":null}") != std::string::npos);
  CHECK(render_to_string(rs, Format::jsonl).rfind("{\"schema_version\":1,\"command\":", 0) == 0);
}
