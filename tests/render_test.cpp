#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "napkin/energy.h"
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
