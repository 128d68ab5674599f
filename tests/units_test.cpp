#include <catch2/catch.hpp>

#include <type_traits>

#include "napkin/ground/units.h"

using namespace napkin;
using namespace napkin::units;

namespace {
template <class A, class B>
concept Addable = requires(A a, B b) { a + b; };
template <class A, class B>
concept Comparable = requires(A a, B b) { a < b; };
template <class Q>
concept FromDouble = requires(double d) { Q(d); };
template <class Q, class U>
concept ConvertibleIn = requires(Q q, U u) { q.in(u); };
}  // namespace

// The type rules, checked by the compiler.
static_assert(Addable<Bytes, Bytes>);
static_assert(!Addable<Flops, FlopRate>, "a FLOP count and a FLOP/s rate must not add");
static_assert(!Addable<Bytes, Bandwidth>, "bytes and bytes/s must not add");
static_assert(!Addable<Watts, Joules>, "watts and joules must not add");
static_assert(!Addable<Params, Tokens>, "parameters and tokens are different kinds");
static_assert(!Addable<Flops, double>, "a bare number is not a FLOP count");
static_assert(!Comparable<Seconds, Joules>);
static_assert(!FromDouble<Bytes>, "no constructor from a bare double");
static_assert(!ConvertibleIn<Bytes, Seconds>, "taking bytes out in seconds must not compile");
static_assert(std::is_same_v<decltype(flop / byte), Intensity>);
static_assert(std::is_same_v<decltype(Flops{} / FlopRate{}), Seconds>, "FLOP / (FLOP/s) is seconds");
static_assert(std::is_same_v<decltype(Watts{} * Seconds{}), Joules>);
static_assert(std::is_same_v<decltype(Intensity{} * Bandwidth{}), FlopRate>);
static_assert(std::is_same_v<decltype(Bytes{} / Bytes{}), double>, "same-dimension ratio is a number");
static_assert(std::is_same_v<decltype(6.0 * flop / (param * token) * Params{} * Tokens{}), Flops>,
              "6 FLOP/(param·token) × params × tokens is FLOP");

TEST_CASE("8e9 bytes is 7.45 GiB and 8 GB", "[units]") {
  const Bytes b = 8e9 * byte;
  CHECK(b.in(GB) == 8.0);
  CHECK_THAT(b.in(GiB), Catch::Matchers::WithinRel(7.450580596923828, 1e-15));
}

TEST_CASE("1e18 FLOP at 100 TFLOP/s takes 10,000 s", "[units][seed]") {
  const Seconds t = 1e18 * flop / (100.0 * TFLOP_per_s);
  CHECK(t.in(second) == 10000.0);
  CHECK_THAT(t.in(hour), Catch::Matchers::WithinRel(2.7777777777777777, 1e-15));
}

TEST_CASE("1 kWh is 3.6 MJ", "[units]") { CHECK(kWh.in(joule) == 3.6e6); }

TEST_CASE("integer byte counts below 2^53 stay exact through arithmetic", "[units]") {
  const Bytes w = 8030261248.0 * param * (2.0 * byte / param);
  CHECK(w.in(byte) == 16060522496.0);
}

TEST_CASE("FLOP counts up to 1e30 do not overflow", "[units]") {
  const Flops c = 6.0 * flop / (param * token) * (1e15 * param) * (1e15 * token);
  CHECK(c.in(flop) == 6e30);
}
