// Numeric edges (issue 7): counts stay exact where they must be, nothing overflows to infinity
// or wraps, and a result that is not finite is an error, never output.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "napkin/ground/error.h"
#include "napkin/ground/parse_quantity.h"
#include "napkin/kernel/gpu_kernel.h"
#include "napkin/model/flops.h"
#include "napkin/model/params.h"
#include "napkin/report/human_units.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"
#include "sweep.h"
#include "preset_config.h"

using namespace napkin;
using namespace napkin::units;

namespace {

constexpr double kTwo53 = 9007199254740992.0;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A Llama-style decoder from its shape alone.
specs::ModelSpec decoder(std::int64_t d, std::int64_t layers, std::int64_t heads, std::int64_t ffn,
                         std::int64_t vocab) {
  specs::ModelSpec m = napkin_test::spec_fields_only(specs::load_model_preset("llama-3.1-8b"));
  m.name = "custom";
  m.hidden = d;
  m.layers = layers;
  m.heads = heads;
  m.kv_heads = heads;
  m.head_dim = d / heads;
  m.ffn = ffn;
  m.vocab = vocab;
  return m;
}

cli::NumericFlag integer_flag(const char* raw) {
  cli::NumericFlag f;
  f.flag = "--m";
  f.name = "m";
  f.dim = dim_rt<Count::dim>();
  f.constraint = cli::Constraint::positive_integer;
  f.raw = raw;
  f.given = true;
  return f;
}

}  // namespace

TEST_CASE("a parameter count in the trillions is exact to the last parameter", "[numeric][params]") {
  // D = 65536, 512 heads, F = 262144, L = 1000, V = 1,000,000, untied head, RMSNorm:
  // embedding + head 2·V·D, per layer 4·D² (MHA) + 3·D·F + 2·D, final norm D.
  const std::int64_t d = 65536, l = 1000, f = 262144, v = 1000000;
  const ParamCount c = count_params(decoder(d, l, 512, f, v));
  const std::int64_t expected = 2 * v * d + l * (4 * d * d + 3 * d * f + 2 * d) + d;
  CHECK(c.total == expected);
  CHECK(c.total == 68850679873536);
  // Below 2^53 the double that JSON and the table print is the same integer.
  CHECK(static_cast<std::int64_t>(static_cast<double>(c.total)) == c.total);
}

TEST_CASE("a model whose total passes 2^53 parameters is refused, not wrapped", "[numeric][params]") {
  // Every field within its bound, 65536 layers of 2^20-wide MLPs: about 2.9e17 parameters.
  const std::string e = error_of([] { count_params(decoder(1 << 20, 1 << 16, 1 << 10, 1 << 20, 1000)); });
  CHECK(contains(e, "custom: about "));
  CHECK(contains(e, "expected a model below 2^53 = 9007199254740992 parameters"));
}

TEST_CASE("a model field beyond its bound is refused naming the model and the field", "[numeric][params]") {
  CHECK(error_of([] { count_params(decoder((1 << 20) + 64, 32, 32, 14336, 32000)); }) ==
        "custom: hidden: '1048640': expected a hidden size D from 1 to 1048576");
  CHECK(error_of([] { count_params(decoder(4096, 1000000000000, 32, 14336, 32000)); }) ==
        "custom: layers: '1000000000000': expected a number of layers L from 1 to 65536");
}

TEST_CASE("config.json integers beyond 2^53 or beyond int64 are refused with the value", "[numeric][specs]") {
  const auto config = [](const std::string& hidden) {
    return nlohmann::json::parse(R"({"model_type": "llama", "hidden_size": )" + hidden +
                                 R"(, "intermediate_size": 14336, "num_hidden_layers": 32,
                                     "num_attention_heads": 32, "vocab_size": 32000})");
  };
  const std::string below = "expected a positive integer (hidden size D) below 2^53 = 9007199254740992, got ";
  CHECK(error_of([&] { specs::from_hf_config(config("1e30"), "c.json"); }) == "c.json: /hidden_size: " + below + "1e+30");
  CHECK(error_of([&] { specs::from_hf_config(config("9223372036854775807"), "c.json"); }) ==
        "c.json: /hidden_size: " + below + "9223372036854775807");
  CHECK(error_of([&] { specs::from_hf_config(config("18446744073709551615"), "c.json"); }) ==
        "c.json: /hidden_size: " + below + "18446744073709551615");
  // An integral float is still an integer.
  CHECK(specs::from_hf_config(config("4096.0"), "c.json").hidden == 4096);
}

TEST_CASE("a JSON number beyond a double is an input error naming it", "[numeric][specs]") {
  CHECK(error_of([] { specs::parse_json_text(R"({"hidden_size": 1e999})", "c.json"); }) ==
        "c.json: number '1e999' is out of range; expected JSON numbers a double holds (magnitude below 1.8e308)");
}

TEST_CASE("JSON writes integer counts below 2^53 with every digit, and no NaN", "[numeric][report]") {
  std::string out;
  report::append_number(out, 9007199254740991.0);
  CHECK(out == "9007199254740991");
  out.clear();
  report::append_number(out, 405853388800.0);
  CHECK(out == "405853388800");
  out.clear();
  report::append_number(out, std::numeric_limits<double>::quiet_NaN());
  CHECK(out == "null");
}

TEST_CASE("FLOP counts of 1e30 parameters and 2^63 tokens stay finite", "[numeric][flops]") {
  TrainingFlopsInput in;
  in.params = 1e30 * param;
  in.tokens = 9223372036854775808.0 * token;
  const TrainingFlops t = training_flops(in);
  CHECK(std::isfinite(t.total().in_base_units()));
  CHECK(t.total().in_base_units() == Approx(6.0 * 1e30 * 9223372036854775808.0));
  // The largest exact counts cubed: 2·(2^53 − 1)³ ≈ 1.4e48 FLOP.
  const double big = kTwo53 - 1;
  const Flops f = matmul_flops(MatmulInput{big * one, big * one, big * one});
  CHECK(std::isfinite(f.in_base_units()));
  CHECK(f.in_base_units() == Approx(2.0 * big * big * big));
}

TEST_CASE("a count suffix that overflows a double is out of range, not infinite", "[numeric][parse]") {
  CHECK(error_of([] { parse_quantity("1e308T", dim_rt<Count::dim>(), "--m"); }) ==
        "--m: '1e308T' is out of range; expected a count such as 4096, 8k or 8Ki");
  CHECK(error_of([] { parse_quantity("1e300YFLOP", dim_rt<Flops::dim>(), "--flops"); }) ==
        "--flops: '1e300YFLOP' is out of range; expected a FLOP count such as 1e18 or 2.5PFLOP");
}

TEST_CASE("integer flags stop below 2^53, where a double holds every integer", "[numeric][sweep]") {
  CHECK_NOTHROW(cli::check_value(integer_flag("9007199254740991"), kTwo53 - 1, true));
  // 2^53 + 1 parses to 2^53: refused, rather than silently off by one.
  CHECK(error_of([] { cli::check_value(integer_flag("9007199254740993"), kTwo53, true); }) ==
        "--m: '9007199254740993': expected a positive integer below 2^53 = 9007199254740992 (counts stay exact)");
}

TEST_CASE("a result that is not finite is an error naming the flags given", "[numeric][sweep]") {
  std::vector<cli::NumericFlag> flags{integer_flag("8")};
  flags[0].axis = cli::parse_axis(flags[0]);
  cli::Point p(flags);
  ResultSet rs;
  rs.command = "flops";
  rs.item("flops", "FLOP", value(8.0 * flop), "C", text("{}", 8.0));
  CHECK_NOTHROW(cli::require_finite(rs, flags, p));
  rs.item("ratio", "ratio", value(std::numeric_limits<double>::infinity()), "r", text("{}", 1.0));
  CHECK(error_of([&] { cli::require_finite(rs, flags, p); }) ==
        "ratio: the result is not a finite number (it overflows a double, or is 0/0) for --m 8; expected inputs "
        "small enough that every result is finite");
  // A NaN inside a formula is caught too, though the value itself is finite.
  rs.clear();
  rs.item("x", "x", value(1.0), "x", text("{} / {}", std::nan(""), 1.0));
  CHECK(contains(error_of([&] { cli::require_finite(rs, flags, p); }), "x: the result is not a finite number"));
}

TEST_CASE("kernel counts are exact below 2^53 and refused above, never wrapped", "[numeric][kernel]") {
  // n = 2^52 + 1: ceil(n / 256) = 2^44 + 1 blocks, the last with one thread in range.
  const Grid g = launch_grid(GridInput{{4503599627370497.0 * one}, {256.0 * one}});
  CHECK(g.blocks.in(one) == 17592186044417.0);
  CHECK(g.idle_threads.in(one) == 255.0);
  // A warp wider than 2^53 once divided by zero after the cast to an integer.
  CHECK(contains(error_of([] { launch_grid(GridInput{{1000.0 * one}, {256.0 * one}, 1e30 * one}); }),
                 "warp_size: '1e+30': expected a positive integer below 2^53"));
  CHECK(contains(error_of([] { launch_grid(GridInput{{1e15 * one, 1e15 * one}, {16.0 * one, 16.0 * one}}); }),
                 "expected a grid of fewer than 2^53"));
}
