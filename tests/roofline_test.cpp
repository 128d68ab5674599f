#include <catch2/catch.hpp>

#include "napkin/plans/roofline.h"
#include "napkin/report/human_units.h"
#include "napkin/report/render.h"

using namespace napkin;
using namespace napkin::units;

TEST_CASE("ridge point of 100 TFLOP/s over 1 TB/s is 100 FLOP/B", "[roofline][seed]") {
  const Roofline r = roofline({.peak = 100.0 * TFLOP_per_s, .bandwidth = 1.0 * TB_per_s, .intensity = 10.0 * flop_per_byte});
  CHECK(r.ridge.in(flop_per_byte) == 100.0);
}

TEST_CASE("at I = 10 FLOP/B the bandwidth roof gives 10 TFLOP/s: memory-bound", "[roofline][seed]") {
  const Roofline r = roofline({.peak = 100.0 * TFLOP_per_s, .bandwidth = 1.0 * TB_per_s, .intensity = 10.0 * flop_per_byte});
  CHECK(r.attainable.in(TFLOP_per_s) == 10.0);
  CHECK_FALSE(r.compute_bound);
}

TEST_CASE("at or above the ridge the compute roof holds", "[roofline]") {
  const Roofline at = roofline({.peak = 100.0 * TFLOP_per_s, .bandwidth = 1.0 * TB_per_s, .intensity = 100.0 * flop_per_byte});
  CHECK(at.compute_bound);
  CHECK(at.attainable.in(TFLOP_per_s) == 100.0);
  const Roofline above = roofline({.peak = 100.0 * TFLOP_per_s, .bandwidth = 1.0 * TB_per_s, .intensity = 500.0 * flop_per_byte});
  CHECK(above.attainable.in(TFLOP_per_s) == 100.0);
}

TEST_CASE("ReLU is 0.125 op/B in fp32 and 0.25 op/B in fp16, not 8 and 4", "[roofline][seed]") {
  const ElementwiseOp* relu = find_elementwise_op("relu");
  REQUIRE(relu != nullptr);
  const Roofline fp32 = roofline({.peak = 100.0 * TFLOP_per_s, .bandwidth = 1.0 * TB_per_s, .op = relu, .dtype = Dtype::fp32});
  const Roofline fp16 = roofline({.peak = 100.0 * TFLOP_per_s, .bandwidth = 1.0 * TB_per_s, .op = relu, .dtype = Dtype::fp16});
  CHECK(fp32.intensity.in(flop_per_byte) == 0.125);
  CHECK(fp16.intensity.in(flop_per_byte) == 0.25);
  ResultSet rs;
  roofline({.peak = 100.0 * TFLOP_per_s, .bandwidth = 1.0 * TB_per_s, .op = relu, .dtype = Dtype::fp32}, rs);
  CHECK(report::human_value(rs.find("intensity")->value) == "0.125 FLOP/B");
  bool erratum = false;
  // A remark, not an --explain-only note: the table and JSON's "notes" show it too.
  for (const auto& n : rs.remarks) erratum = erratum || report::expand(rs, n).find("erratum") != std::string::npos;
  CHECK(erratum);
  CHECK(report::render_to_string(rs, report::Format::table).find("erratum") != std::string::npos);
  CHECK(report::render_to_string(rs, report::Format::json).find("\"notes\":[\"erratum") != std::string::npos);
}

TEST_CASE("with FLOP and bytes the time is the larger of compute and memory time", "[roofline]") {
  const Roofline r = roofline({.peak = 100.0 * TFLOP_per_s, .bandwidth = 1.0 * TB_per_s,
                               .flops = 1e12 * flop, .bytes = 1e11 * byte});
  REQUIRE(r.time.has_value());
  CHECK(r.time->in(second) == 0.1);  // memory: 1e11 B / 1e12 B/s
  CHECK(r.intensity.in(flop_per_byte) == 10.0);
}

TEST_CASE("a kernel faster than its launch overhead is overhead-bound (notes 7.2)", "[roofline]") {
  ResultSet rs;
  roofline({.peak = 100.0 * TFLOP_per_s, .bandwidth = 1.0 * TB_per_s, .op = find_elementwise_op("relu"),
            .elements = 1024 * one, .launch_overhead = 5.0 * us},
           rs);
  REQUIRE(rs.find("bound") != nullptr);
  CHECK(rs.find("bound")->value.str == "overhead");
  CHECK(rs.find("time")->value.num == Approx(8192.0 / 1e12).epsilon(1e-12));
}

TEST_CASE("roofline needs exactly one way to the intensity", "[roofline]") {
  CHECK_THROWS_WITH(roofline({.peak = 1.0 * TFLOP_per_s, .bandwidth = 1.0 * TB_per_s}),
                    "intensity: '(none)': expected exactly one of --intensity, --flops with --bytes, or --op");
  CHECK_THROWS_WITH(roofline({.peak = 1.0 * TFLOP_per_s, .bandwidth = 0.0 * TB_per_s, .intensity = 1.0 * flop_per_byte}),
                    "bandwidth: '0': expected a positive finite number");
}
