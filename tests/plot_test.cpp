// --plot FILE.svg: the charts are well-formed SVG and carry the series they claim (read back from
// the data- attributes every drawn datum carries), and the CLI refuses what it cannot plot.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "napkin/report/svg.h"
#include "plot.h"
#include "run_napkin.h"

namespace {

using napkin::report::append_xml_escaped;
using napkin_test::Run;

// A small XML checker: balanced tags, quoted attributes, text and attribute values with no raw
// '<' and only known entities after '&', comments skipped, one root <svg> with a viewBox and the
// SVG namespace. Returns "" when the document passes, else what is wrong.
std::string xml_problem(const std::string& doc) {
  auto entity_ok = [&](std::size_t amp) {
    static const std::vector<std::string> kEntities{"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
    for (const auto& e : kEntities)
      if (doc.compare(amp, e.size(), e) == 0) return true;
    return doc.compare(amp, 2, "&#") == 0 && doc.find(';', amp) != std::string::npos;
  };
  std::vector<std::string> stack;
  int roots = 0;
  std::size_t i = 0;
  while (i < doc.size()) {
    const char ch = doc[i];
    if (ch != '<') {
      if (ch == '&' && !entity_ok(i)) return "bad entity at " + std::to_string(i);
      if (stack.empty() && !std::isspace(static_cast<unsigned char>(ch))) return "text outside the root";
      ++i;
      continue;
    }
    if (doc.compare(i, 4, "<!--") == 0) {
      const auto end = doc.find("-->", i);
      if (end == std::string::npos) return "unclosed comment";
      i = end + 3;
      continue;
    }
    // Find the end of the tag, skipping quoted attribute values.
    std::size_t j = i + 1;
    char quote = 0;
    for (; j < doc.size(); ++j) {
      const char c = doc[j];
      if (quote) {
        if (c == quote) quote = 0;
        else if (c == '<') return "raw '<' in an attribute";
        else if (c == '&' && !entity_ok(j)) return "bad entity in an attribute";
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '>') {
        break;
      }
    }
    if (j >= doc.size()) return "unclosed tag";
    std::string tag = doc.substr(i + 1, j - i - 1);
    i = j + 1;
    if (tag.empty()) return "empty tag";
    if (tag[0] == '/') {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name) return "mismatched </" + name + ">";
      stack.pop_back();
      continue;
    }
    const bool self_closing = tag.back() == '/';
    const std::string name = tag.substr(0, tag.find_first_of(" \t\n/"));
    if (stack.empty()) {
      ++roots;
      if (name != "svg") return "root is <" + name + ">";
      if (tag.find("viewBox=\"") == std::string::npos) return "root without viewBox";
      if (tag.find("xmlns=\"http://www.w3.org/2000/svg\"") == std::string::npos) return "root without xmlns";
    }
    if (roots > 1) return "more than one root";
    if (!self_closing) stack.push_back(name);
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (roots != 1) return "no root";
  return "";
}

// The values of attribute `attr` in every tag that contains `marker` (e.g. class="point").
std::vector<std::string> attrs(const std::string& svg, const std::string& marker, const std::string& attr) {
  std::vector<std::string> out;
  const std::regex tag("<[^>]*>");
  const std::regex value(attr + "=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator(); ++it) {
    const std::string t = it->str();
    if (t.find(marker) == std::string::npos) continue;
    std::smatch m;
    if (std::regex_search(t, m, value)) out.push_back(m[1]);
  }
  return out;
}

std::vector<double> numbers(const std::string& svg, const std::string& marker, const std::string& attr) {
  std::vector<double> out;
  for (const auto& s : attrs(svg, marker, attr)) out.push_back(std::stod(s));
  return out;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh directory for one test's files, removed at the end.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "napkin_plot_XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

}  // namespace

// ---- the SVG writer ---------------------------------------------------------------------------

TEST_CASE("the XML checker catches what it is for", "[plot]") {
  CHECK(xml_problem("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1 1\"><g></g></svg>").empty());
  CHECK_FALSE(xml_problem("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1 1\"><g></svg>").empty());
  CHECK_FALSE(xml_problem("<svg xmlns=\"http://www.w3.org/2000/svg\"><g/></svg>").empty());
  CHECK_FALSE(xml_problem("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1 1\">a & b</svg>").empty());
  CHECK_FALSE(xml_problem("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1 1\"/><svg/>").empty());
}

TEST_CASE("text is escaped for XML", "[plot]") {
  std::string out;
  append_xml_escaped(out, "a<b & \"c\" 'd'>\t");
  CHECK(out == "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt; ");
}

TEST_CASE("ticks fall on round numbers", "[plot]") {
  using napkin::report::nice_ticks;
  CHECK(nice_ticks(0, 87, false) == std::vector<double>{0, 20, 40, 60, 80});
  const auto unit = nice_ticks(0, 1, false);
  REQUIRE(unit.size() == 6);
  for (std::size_t i = 0; i < unit.size(); ++i) CHECK(unit[i] == Approx(0.2 * static_cast<double>(i)));
  CHECK(nice_ticks(0, 609, false).size() == 7);  // steps of 100
  CHECK(nice_ticks(1, 1e4, true) == std::vector<double>{1, 10, 100, 1000, 10000});
  CHECK(nice_ticks(1, 64, true) == std::vector<double>{1, 2, 5, 10, 20, 50});
}

TEST_CASE("axes show readable units", "[plot]") {
  using napkin::report::axis_unit;
  CHECK(axis_unit(napkin::dim_rt<napkin::Bytes::dim>(), 80e9).unit == "GiB");
  CHECK(axis_unit(napkin::dim_rt<napkin::FlopRate::dim>(), 989e12).unit == "TFLOP/s");
  CHECK(axis_unit(napkin::dim_rt<napkin::Bandwidth::dim>(), 3.35e12).unit == "TB/s");
  CHECK(axis_unit(napkin::dim_rt<napkin::Seconds::dim>(), 0.0025).unit == "ms");
  CHECK(axis_unit(napkin::dim_rt<napkin::Intensity::dim>(), 300).unit == "FLOP/B");
  CHECK(axis_unit(napkin::dim_rt<napkin::Count::dim>(), 4096).unit.empty());
}

TEST_CASE("a roofline chart marks the ridge at peak over bandwidth and every point", "[plot]") {
  napkin::report::RooflineChart c;
  c.title = "napkin roofline <test> & more";
  c.roofs = {{"", 989e12, 3.35e12}};
  c.points = {{"decode", 1.0, 3.35e12, 0}, {"prefill", 500.0, 989e12, 0}, {"<odd> & 'label'", 60.0, 2e14, 0}};
  const std::string svg = napkin::report::roofline_svg(c);
  INFO(svg);
  CHECK(xml_problem(svg).empty());
  CHECK(svg.find("data-chart=\"roofline\"") != std::string::npos);
  const auto ridge = numbers(svg, "class=\"ridge\"", "data-intensity");
  REQUIRE(ridge.size() == 1);
  CHECK(ridge[0] == Approx(989.0 / 3.35));
  CHECK(numbers(svg, "class=\"point\"", "data-intensity") == std::vector<double>{1.0, 500.0, 60.0});
  CHECK(svg.find("&lt;odd&gt; &amp; &apos;label&apos;") != std::string::npos);
  CHECK(svg.find("arithmetic intensity (FLOP/B)") != std::string::npos);
  CHECK(svg.find("attainable rate (TFLOP/s)") != std::string::npos);
}

TEST_CASE("a per-op series becomes roofline points at flops over time", "[plot]") {
  napkin::ResultSet rs;
  auto& s = rs.add_series("ops", "Per op", {"op", "flops", "bytes", "intensity", "time"});
  using napkin::value;
  using napkin::verdict;
  s.cells = {verdict("qkv"), value(2e12), value(1e10), value(200.0), value(0.004),
             verdict("attention"), value(1e11), value(1e10), value(10.0), value(0.01)};
  const auto pts = napkin::report::roofline_points(s, napkin::report::Roof{"", 989e12, 3.35e12});
  REQUIRE(pts.size() == 2);
  CHECK(pts[0].label == "qkv");
  CHECK(pts[0].rate_flop_per_s == Approx(5e14));
  CHECK(pts[1].label == "attention");
  CHECK(pts[1].intensity_flop_per_byte == 10.0);
}

TEST_CASE("ledger bars stack to their totals under a capacity line", "[plot]") {
  napkin::report::LedgerChart c;
  c.title = "ledger";
  c.bars = {{"a", {{"weights", 16e9}, {"kv_cache", 4e9}, {"activations", 1e9}}, 80e9},
            {"b", {{"weights", 16e9}, {"kv_cache", 70e9}}, 80e9}};
  const std::string svg = napkin::report::ledger_svg(c);
  INFO(svg);
  CHECK(xml_problem(svg).empty());
  CHECK(numbers(svg, "class=\"bar\"", "data-total") == std::vector<double>{21e9, 86e9});
  CHECK(numbers(svg, "class=\"segment\"", "data-bytes") == std::vector<double>{16e9, 4e9, 1e9, 16e9, 70e9});
  CHECK(numbers(svg, "class=\"capacity\"", "data-bytes") == std::vector<double>{80e9});
  CHECK(svg.find("memory per GPU (GiB)") != std::string::npos);
  CHECK(svg.find("fill=\"#C00000\">80.1 GiB") != std::string::npos);  // the bar over capacity
}

TEST_CASE("a line chart has one series per line and one point per value", "[plot]") {
  napkin::report::LineChart c;
  c.title = "sweep";
  c.x_label = "batch";
  c.x_dim = napkin::dim_rt<napkin::Count::dim>();
  c.x_log = true;
  c.y_label = "per GPU";
  c.y_key = "per_gpu";
  c.y_dim = napkin::dim_rt<napkin::Bytes::dim>();
  c.series = {{"context 2048", {1, 2, 4}, {1e9, 2e9, 4e9}}, {"context 8192", {1, 2, 4}, {3e9, 6e9, std::nan("")}}};
  const std::string svg = napkin::report::line_svg(c);
  INFO(svg);
  CHECK(xml_problem(svg).empty());
  CHECK(attrs(svg, "class=\"series\"", "data-name") == std::vector<std::string>{"context 2048", "context 8192"});
  CHECK(count(svg, "class=\"point\"") == 5);  // the non-finite point is left out
  CHECK(svg.find("per GPU (GiB)") != std::string::npos);
}

// ---- the CLI ----------------------------------------------------------------------------------

TEST_CASE("roofline --plot writes the chart and leaves stdout as it was", "[plot]") {
  TempDir d;
  const std::string args = "roofline --peak 100TFLOP/s --bandwidth 1TB/s --intensity 1,10,100,1000";
  const Run plain = napkin_test::run_napkin(args);
  const Run plotted = napkin_test::run_napkin(args + " --plot " + d.file("r.svg"));
  CHECK(plotted.code == 0);
  CHECK(plotted.out == plain.out);
  const std::string svg = read(d.file("r.svg"));
  INFO(svg);
  CHECK(xml_problem(svg).empty());
  CHECK(numbers(svg, "class=\"ridge\"", "data-intensity") == std::vector<double>{100});
  CHECK(numbers(svg, "class=\"point\"", "data-rate") == std::vector<double>{1e12, 1e13, 1e14, 1e14});
  CHECK(svg.find("<title>napkin roofline --peak 100TFLOP/s --bandwidth 1TB/s --intensity 1,10,100,1000</title>") !=
        std::string::npos);
}

TEST_CASE("a sweep over 7 values plots 7 points of the default key", "[plot]") {
  TempDir d;
  const Run r = napkin_test::run_napkin("flops matmul --m 1..64:x2 --k 4096 --n 4096 --csv --plot " + d.file("m.svg"));
  CHECK(r.code == 0);
  const std::string svg = read(d.file("m.svg"));
  INFO(svg);
  CHECK(xml_problem(svg).empty());
  CHECK(svg.find("data-chart=\"line\"") != std::string::npos);
  CHECK(attrs(svg, "class=\"series\"", "data-key") == std::vector<std::string>{"flops"});
  CHECK(numbers(svg, "class=\"point\"", "data-x") == std::vector<double>{1, 2, 4, 8, 16, 32, 64});
  CHECK(numbers(svg, "class=\"point\"", "data-y")[6] == 2.0 * 64 * 4096 * 4096);
}

TEST_CASE("a second swept flag gives one line per value", "[plot]") {
  TempDir d;
  const Run r = napkin_test::run_napkin("flops matmul --m 1..8:x2 --k 16,32,64 --n 4096 --plot-y flops --jsonl --plot " +
                                        d.file("m.svg"));
  CHECK(r.code == 0);
  const std::string svg = read(d.file("m.svg"));
  INFO(svg);
  CHECK(xml_problem(svg).empty());
  CHECK(attrs(svg, "class=\"series\"", "data-name") == std::vector<std::string>{"k 16", "k 32", "k 64"});
  CHECK(attrs(svg, "class=\"series\"", "data-points") == std::vector<std::string>{"4", "4", "4"});
}

TEST_CASE("memory --plot stacks the ledger per GPU to per_gpu under the capacity", "[plot]") {
  TempDir d;
  const Run r = napkin_test::run_napkin("memory llama-3.1-8b --batch 8 --context 8Ki --gpu-memory 80GiB --json --plot " +
                                        d.file("mem.svg"));
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const double per_gpu = j["results"]["per_gpu"]["value"].get<double>();
  const std::string svg = read(d.file("mem.svg"));
  INFO(svg);
  CHECK(xml_problem(svg).empty());
  CHECK(svg.find("data-chart=\"ledger\"") != std::string::npos);
  double sum = 0;
  for (double b : numbers(svg, "class=\"segment\"", "data-bytes")) sum += b;
  CHECK(sum == Approx(per_gpu).epsilon(1e-12));
  CHECK(attrs(svg, "class=\"segment\"", "data-key").front() == "weights");
  CHECK(numbers(svg, "class=\"capacity\"", "data-bytes") == std::vector<double>{80.0 * (1 << 30)});
}

TEST_CASE("a memory sweep draws one ledger bar per result set", "[plot]") {
  TempDir d;
  const Run r = napkin_test::run_napkin("memory llama-3.1-8b --batch 1,8,32 --context 8Ki --csv --plot " +
                                        d.file("mem.svg"));
  REQUIRE(r.code == 0);
  const std::string svg = read(d.file("mem.svg"));
  INFO(svg);
  CHECK(xml_problem(svg).empty());
  CHECK(attrs(svg, "class=\"bar\"", "data-label") == std::vector<std::string>{"batch 1", "batch 8", "batch 32"});
}

TEST_CASE("kernel waves --scan plots wave efficiency against the size", "[plot]") {
  TempDir d;
  const Run r = napkin_test::run_napkin("kernel waves --scan 1024..4096:+256 --tile 256x128 --sms 132 --csv --plot " +
                                        d.file("w.svg"));
  REQUIRE(r.code == 0);
  const std::string svg = read(d.file("w.svg"));
  INFO(svg);
  CHECK(xml_problem(svg).empty());
  CHECK(attrs(svg, "class=\"series\"", "data-key") == std::vector<std::string>{"wave_efficiency"});
  CHECK(count(svg, "class=\"point\"") == 13);
  // The cliffs the CSV reports are ringed.
  const std::size_t cliffs = count(r.out, ",true\n");
  CHECK(cliffs > 0);
  CHECK(count(svg, "class=\"mark\"") == cliffs);
  CHECK(svg.find(">wave cliff</text>") != std::string::npos);
}

TEST_CASE("a memory sweep too long for bars is a line of per_gpu under the capacity", "[plot]") {
  TempDir d;
  const Run r = napkin_test::run_napkin("memory llama-3.1-8b --batch 1..40:+1 --context 8Ki --hw h100-sxm --csv --plot " +
                                        d.file("mem.svg"));
  REQUIRE(r.code == 0);
  const std::string svg = read(d.file("mem.svg"));
  INFO(svg);
  CHECK(xml_problem(svg).empty());
  CHECK(svg.find("data-chart=\"line\"") != std::string::npos);
  CHECK(attrs(svg, "class=\"series\"", "data-key") == std::vector<std::string>{"per_gpu"});
  CHECK(count(svg, "class=\"point\"") == 40);
  CHECK(count(svg, "class=\"reference\"") == 1);
}

TEST_CASE("serve --per-op --plot puts the prefill and decode ops under the roofline", "[plot]") {
  TempDir d;
  const Run r = napkin_test::run_napkin(
      "serve llama-3.1-8b --hw h100-sxm --batch 8 --prompt 2048 --generate 256 --per-op --json --plot " + d.file("s.svg"));
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  const std::string svg = read(d.file("s.svg"));
  INFO(svg);
  CHECK(xml_problem(svg).empty());
  CHECK(svg.find("data-chart=\"roofline\"") != std::string::npos);
  CHECK(svg.find("<title>napkin serve llama-3.1-8b --hw h100-sxm --batch 8 --prompt 2048 --generate 256 --per-op</title>") !=
        std::string::npos);  // flags without their value, output flags left out
  const double ridge = j["inputs"]["peak"].get<double>() / j["inputs"]["bandwidth"].get<double>();
  CHECK(numbers(svg, "class=\"ridge\"", "data-intensity") == std::vector<double>{ridge});
  // Every op that does arithmetic is a point of its phase, at flops / time.
  const auto groups = attrs(svg, "class=\"point\"", "data-group");
  const auto rates = numbers(svg, "class=\"point\"", "data-rate");
  std::size_t k = 0;
  for (const char* phase : {"prefill_ops", "decode_ops"}) {
    for (const auto& op : j[phase]) {
      if (!(op["intensity"].get<double>() > 0)) continue;
      REQUIRE(k < rates.size());
      CHECK(groups[k] == phase);
      CHECK(rates[k] == Approx(op["flops"].get<double>() / op["time"].get<double>()));
      ++k;
    }
  }
  CHECK(k == rates.size());
}

TEST_CASE("an unwritable --plot path is exit 2 naming the flag and the path", "[plot]") {
  const Run r = napkin_test::run_napkin(
      "roofline --peak 100TFLOP/s --bandwidth 1TB/s --intensity 10 --plot /nonexistent-dir/r.svg");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: '/nonexistent-dir/r.svg': cannot create a file in '/nonexistent-dir': No "
                 "such file or directory\n");
}

TEST_CASE("an unknown --plot-y key is exit 2 listing the numeric keys", "[plot]") {
  TempDir d;
  const Run r = napkin_test::run_napkin("flops matmul --m 1,2 --k 8 --n 8 --plot-y flop --plot " + d.file("m.svg"));
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot-y: 'flop': expected a numeric result key: flops\n");
  CHECK_FALSE(std::filesystem::exists(d.file("m.svg")));
}

TEST_CASE("a --plot without a sweep on a command without a chart is exit 2 saying what can be plotted", "[plot]") {
  TempDir d;
  Run r = napkin_test::run_napkin("flops matmul --m 8 --k 8 --n 8 --plot " + d.file("m.svg"));
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: '" + d.file("m.svg") +
                     "': expected a sweep (a list or range on a numeric flag), or roofline, memory, serve --per-op "
                     "or kernel waves --scan\n");
  r = napkin_test::run_napkin("flops matmul --m 8 --k 8 --n 8 --plot-y flops --plot " + d.file("m.svg"));
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot-y: 'flops': expected a sweep to plot it against (a list 1,2,4 or a range "
                 "1..64:x2 on a numeric flag)\n");
}

TEST_CASE("presets refuse --plot: they print lists", "[plot]") {
  const Run r = napkin_test::run_napkin("presets models --plot /tmp/never-written.svg");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: '/tmp/never-written.svg': expected a command with a chart (presets print a list)\n");
}

TEST_CASE("a sweep too large to plot is refused before anything is printed", "[plot]") {
  TempDir d;
  const Run r = napkin_test::run_napkin("flops matmul --m 1..200000:+1 --k 8 --n 8 --csv --plot " + d.file("m.svg"));
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --plot: '" + d.file("m.svg") +
                     "': expected a sweep of at most 100000 points to plot (200000 here)\n");
}

TEST_CASE("default plot keys exist for the commands that sweep", "[plot]") {
  CHECK(napkin::cli::default_plot_key("memory") == "per_gpu");
  CHECK(napkin::cli::default_plot_key("kernel waves") == "wave_efficiency");
  CHECK(napkin::cli::default_plot_key("no such command").empty());
}

// Issue 35: a log axis ticked every decade: a roofline over 600 decades printed 603 labels under
// its x axis (main at 7c75241).
TEST_CASE("a log axis over hundreds of decades has at most 12 ticks, at decades a round step apart", "[plot]") {
  using napkin::report::kMaxLogTicks;
  using napkin::report::nice_ticks;
  for (const auto& [lo, hi] : std::vector<std::pair<double, double>>{
           {1e-301, 1e302}, {1e-300, 1e-288}, {1, 1e11}, {1, 1e12}, {1e-5, 1e30}, {3e-308, 1e308}}) {
    INFO(lo << " .. " << hi);
    const auto t = nice_ticks(lo, hi, true);
    CHECK(t.size() >= 2);
    CHECK(static_cast<int>(t.size()) <= kMaxLogTicks);
    for (double v : t) {
      CHECK(v >= lo * (1 - 1e-9));
      CHECK(v <= hi * (1 + 1e-9));
    }
    // Evenly spaced decades.
    for (std::size_t i = 2; i < t.size(); ++i)
      CHECK(std::round(std::log10(t[i] / t[i - 1])) == std::round(std::log10(t[1] / t[0])));
  }
  // Up to 12 decades: every one, as before.
  CHECK(nice_ticks(1, 1e11, true).size() == 12);
  CHECK(nice_ticks(1, 1e12, true) == std::vector<double>{1, 1e2, 1e4, 1e6, 1e8, 1e10, 1e12});
  CHECK(nice_ticks(1e-7, 1e5, true) == std::vector<double>{1e-6, 1e-4, 1e-2, 1, 1e2, 1e4});
}

TEST_CASE("a roofline over 600 decades labels at most 12 ticks on each axis", "[plot]") {
  TempDir d;
  const Run r = napkin_test::run_napkin("roofline --peak 1e-300TFLOP/s --bandwidth 1TB/s --intensity 1e300 --plot " +
                                        d.file("r.svg"));
  REQUIRE(r.code == 0);
  const std::string svg = read(d.file("r.svg"));
  CHECK(xml_problem(svg).empty());
  for (const std::string axis : {"x-ticks", "y-ticks"}) {
    const std::size_t from = svg.find("class=\"" + axis + "\"");
    REQUIRE(from != std::string::npos);
    const std::string group = svg.substr(from, svg.find("</g>", from) - from);
    INFO(axis << "\n" << group);
    CHECK(count(group, "<text") >= 2);
    CHECK(count(group, "<text") <= 12);
  }
}
