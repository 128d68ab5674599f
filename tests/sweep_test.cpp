#include <catch2/catch.hpp>

#include "napkin/ground/error.h"
#include "sweep.h"

using namespace napkin;
using namespace napkin::cli;

namespace {
NumericFlag count_flag(const char* raw, Constraint c = Constraint::positive_integer) {
  NumericFlag f;
  f.flag = "--m";
  f.name = "m";
  f.dim = dim_rt<Count::dim>();
  f.constraint = c;
  f.raw = raw;
  f.given = true;
  return f;
}
std::vector<double> values(const Axis& a) {
  std::vector<double> v;
  for (std::size_t i = 0; i < a.size(); ++i) v.push_back(a.at(i));
  return v;
}
}  // namespace

TEST_CASE("a geometric range 1..64:x2 has 7 values", "[cli][sweep]") {
  CHECK(values(parse_axis(count_flag("1..64:x2"))) == std::vector<double>{1, 2, 4, 8, 16, 32, 64});
}

TEST_CASE("a linear range 1024..8192:+1024 has 8 values", "[cli][sweep]") {
  const Axis a = parse_axis(count_flag("1024..8192:+1024"));
  CHECK(a.size() == 8);
  CHECK(a.at(7) == 8192.0);
}

TEST_CASE("a list keeps its order and units apply per element", "[cli][sweep]") {
  NumericFlag f = count_flag("8Ki,1k,3");
  CHECK(values(parse_axis(f)) == std::vector<double>{8192, 1000, 3});
  NumericFlag b;
  b.flag = "--memory";
  b.name = "memory";
  b.dim = dim_rt<Bytes::dim>();
  b.raw = "1GiB..4GiB:x2";
  b.given = true;
  CHECK(values(parse_axis(b)) == std::vector<double>{1073741824.0, 2147483648.0, 4294967296.0});
}

TEST_CASE("a range with a fractional step on an integer flag is refused", "[cli][sweep]") {
  CHECK_THROWS_WITH(parse_axis(count_flag("1..64:x1.5")), "--m: '1..64:x1.5': expected an integer factor for an integer flag");
  CHECK_THROWS_WITH(parse_axis(count_flag("64..1:x2")),
                    "--m: '64..1:x2': expected a range whose end is not below its start (a..b:+step or a..b:xfactor)");
  CHECK_THROWS_WITH(parse_axis(count_flag("1..8:/2")),
                    "--m: '1..8:/2': expected a step ':+N' (linear) or a factor ':xN' (geometric) after the range");
}

TEST_CASE("a list element that breaks the constraint names its value", "[cli][sweep]") {
  CHECK_THROWS_WITH(parse_axis(count_flag("1,2,-3")), "--m: '-3': expected a positive integer");
}

TEST_CASE("several swept flags give the cartesian product, first flag slowest", "[cli][sweep]") {
  std::vector<NumericFlag> flags{count_flag("1,2"), count_flag("10,20,30")};
  flags[1].flag = "--k";
  flags[1].name = "k";
  Sweep s(flags, {0, 1});
  CHECK(s.rows() == 6);
  std::vector<std::pair<double, double>> seen;
  s.run([&](const Point& p) { seen.emplace_back(p[0], p[1]); });
  CHECK(seen == std::vector<std::pair<double, double>>{{1, 10}, {1, 20}, {1, 30}, {2, 10}, {2, 20}, {2, 30}});
}

TEST_CASE("the sweep order follows the command line, not the declaration", "[cli][sweep]") {
  std::vector<NumericFlag> flags{count_flag("1,2"), count_flag("10,20")};
  flags[1].name = "k";
  Sweep s(flags, {1, 0});
  std::vector<std::pair<double, double>> seen;
  s.run([&](const Point& p) { seen.emplace_back(p[0], p[1]); });
  CHECK(seen == std::vector<std::pair<double, double>>{{1, 10}, {2, 10}, {1, 20}, {2, 20}});
  CHECK(s.swept_names() == std::vector<std::string>{"k", "m"});
}

TEST_CASE("a sweep of more rows than --max-rows allows is refused, naming the rows and the flag", "[cli][sweep]") {
  CHECK_THROWS_WITH(parse_axis(count_flag("1..1e9")),
                    "--m: '1..1e9' gives 1000000000 rows; expected at most 4000000 (raise with --max-rows)");
  CHECK_NOTHROW(parse_axis(count_flag("1..4000000")));
  CHECK_THROWS_WITH(parse_axis(count_flag("1..1e300")),
                    "--m: '1..1e300' gives 1e+300 rows; expected at most 4000000 (raise with --max-rows)");
  CHECK_THROWS_WITH(parse_axis(count_flag("1,2,3"), nullptr, 2),
                    "--m: '1,2,3' gives 3 rows; expected at most 2 (raise with --max-rows)");
  // Each flag within the limit, their product not: all of them named.
  std::vector<NumericFlag> flags{count_flag("1..3000"), count_flag("1..3000"), count_flag("1,2")};
  flags[1].flag = "--k";
  flags[2].flag = "--n";
  CHECK_THROWS_WITH(Sweep(flags, {0, 1, 2}),
                    "--m: '1..3000' with --k '1..3000', --n '1,2' gives 18000000 rows; expected at most 4000000 "
                    "(raise with --max-rows)");
  CHECK(Sweep(flags, {0, 1, 2}, 2e7).rows() == 18000000);
}

TEST_CASE("probe visits every value of every swept flag once, in sweep order", "[cli][sweep]") {
  std::vector<NumericFlag> flags{count_flag("1,2,3"), count_flag("10,20"), count_flag("7")};
  flags[1].name = "k";
  flags[2].name = "n";
  Sweep s(flags, {0, 1, 2});
  std::vector<std::pair<double, double>> seen;
  bool probing = true;
  s.probe([&](const Point& p) {
    seen.emplace_back(p[0], p[1]);
    probing = probing && p.probing();
  });
  // The sum of the value counts (3 + 2 - 1), not their product (6): the fastest flag first.
  CHECK(s.probes() == 4);
  CHECK(seen == std::vector<std::pair<double, double>>{{1, 10}, {1, 20}, {2, 10}, {3, 10}});
  CHECK(probing);
  s.run([&](const Point& p) { CHECK_FALSE(p.probing()); });
}

// ---- issue 35: the list and range grammar refuses what no one writes on purpose ---------------
// Before (main at 7c75241), each of these was read: ' 1, 2' as 1,2; '+1' as 1; '1..8:x+2' as
// 1..8:x2; '1..10:+2' as 1,3,5,7,9 (its end left out); '1,2,2' as three rows, two the same.

TEST_CASE("a value with white space around it, in a list or a range, is refused", "[cli][sweep]") {
  const auto refused = [](const char* raw, const std::string& around) {
    INFO(raw);
    CHECK_THROWS_WITH(parse_axis(count_flag(raw)),
                      std::string("--m: '") + raw + "' has white space around '" + around +
                          "'; expected no spaces around a value: a list 1,2,4 or a range 1..64:x2");
  };
  refused(" 1, 2", "1");
  refused("1, 2", "2");
  refused("1 ,2", "1");
  refused(" 4", "4");
  refused("4\t", "4");
  refused("1 .. 4", "1");
  refused("1..4 :+1", "4");
  refused("1..4:+ 1", "1");
  refused("1..4:x 2", "2");
}

TEST_CASE("a space between a number and its unit is still read", "[cli][sweep]") {
  NumericFlag b = count_flag("80 GiB,96 GiB");
  b.dim = dim_rt<Bytes::dim>();
  b.constraint = Constraint::positive;
  CHECK(values(parse_axis(b)) == std::vector<double>{80.0 * 1073741824.0, 96.0 * 1073741824.0});
}

TEST_CASE("a '+' sign on a value, a step or a factor is refused", "[cli][sweep]") {
  CHECK_THROWS_WITH(parse_axis(count_flag("+1")),
                    "--m: '+1' has a '+' sign; expected a number without a sign, such as 1");
  CHECK_THROWS_WITH(parse_axis(count_flag("1,+2")),
                    "--m: '1,+2' has a '+' sign; expected a number without a sign, such as 2");
  CHECK_THROWS_WITH(parse_axis(count_flag("1..8:x+2")),
                    "--m: '1..8:x+2' has a '+' sign; expected a number without a sign, such as 2");
  CHECK_THROWS_WITH(parse_axis(count_flag("1..8:++2")),
                    "--m: '1..8:++2' has a '+' sign; expected a number without a sign, such as 2");
}

TEST_CASE("a list with an empty item is refused naming the whole list", "[cli][sweep]") {
  for (const char* raw : {"1,,2", "1,", ",1", ","}) {
    INFO(raw);
    CHECK_THROWS_WITH(parse_axis(count_flag(raw)),
                      std::string("--m: '") + raw + "' has an empty item; expected a list such as 1,2,4");
  }
  CHECK_THROWS_WITH(parse_axis(count_flag("")), Catch::StartsWith("--m: '' is empty"));
}

TEST_CASE("a list that gives one value twice is refused", "[cli][sweep]") {
  CHECK_THROWS_WITH(parse_axis(count_flag("1,2,2")), "--m: '1,2,2' lists 2 twice; expected each value once");
  CHECK_THROWS_WITH(parse_axis(count_flag("1k,1000")),
                    "--m: '1k,1000' lists one value twice ('1k' and '1000'); expected each value once");
  // A descending list is the order the user chose.
  CHECK(values(parse_axis(count_flag("8,4,2"))) == std::vector<double>{8, 4, 2});
}

TEST_CASE("a range whose step or factor does not reach its end is refused", "[cli][sweep]") {
  CHECK_THROWS_WITH(parse_axis(count_flag("1..10:+2")),
                    "--m: '1..10:+2' stops at 9, short of its end 10; expected an end the step reaches: a..b:+step "
                    "with b - a a multiple of the step");
  CHECK_THROWS_WITH(parse_axis(count_flag("1..1000:x2")),
                    "--m: '1..1000:x2' stops at 512, short of its end 1000; expected an end the factor reaches: "
                    "a..b:xfactor with b = a · factor^k");
  CHECK_THROWS_WITH(parse_axis(count_flag("1..4:+1k")),
                    Catch::StartsWith("--m: '1..4:+1k' stops at 1, short of its end 4"));
  // Ends the steps reach, fractional ones included.
  CHECK(values(parse_axis(count_flag("1..10:+3"))) == std::vector<double>{1, 4, 7, 10});
  CHECK(parse_axis(count_flag("1..1024:x2")).size() == 11);
  NumericFlag r = count_flag("0.1..1:+0.1", Constraint::positive);
  CHECK(parse_axis(r).size() == 10);
  r.raw = "0.1..1000:x10";
  CHECK(parse_axis(r).size() == 5);
  r.raw = "4..4";
  CHECK(parse_axis(r).size() == 1);
}

TEST_CASE("a factor of 1, a step of 0 and a descending range stay refused", "[cli][sweep]") {
  CHECK_THROWS_WITH(parse_axis(count_flag("1..64:x1")),
                    "--m: '1..64:x1': expected a plain factor above 1 after ':x' (a..b:x2)");
  CHECK_THROWS_WITH(parse_axis(count_flag("1..8:+0")),
                    "--m: '1..8:+0': expected a positive step after ':+' (a..b:+step)");
  CHECK_THROWS_WITH(parse_axis(count_flag("8..1")),
                    Catch::StartsWith("--m: '8..1': expected a range whose end is not below"));
}
