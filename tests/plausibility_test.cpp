// The plausibility table (src/cli/plausibility.cpp), through parse_axis and Sweep as the CLI
// uses them, and through the binary for where its warnings go.
#include <catch2/catch.hpp>

#include "run_napkin.h"

#include <array>
#include <cstdio>
#include <string>

#include "napkin/ground/error.h"
#include "plausibility.h"
#include "sweep.h"

using namespace napkin;
using namespace napkin::cli;

namespace {

constexpr double kPerKwh = 1.0 / 3.6e6;

NumericFlag flag(const char* name, DimRt dim, const char* raw, Constraint c = Constraint::positive,
                 double plain_scale = 1.0) {
  NumericFlag f;
  f.flag = name;
  f.name = std::string(name).substr(2);
  f.dim = dim;
  f.constraint = c;
  f.plain_scale = plain_scale;
  f.raw = raw;
  f.given = true;
  return f;
}
NumericFlag bytes(const char* name, const char* raw, Constraint c = Constraint::positive) {
  return flag(name, dim_rt<Bytes::dim>(), raw, c);
}
NumericFlag carbon(const char* raw) {
  return flag("--carbon-intensity", dim_rt<Co2PerJoule::dim>(), raw, Constraint::non_negative, kPerKwh);
}
NumericFlag pue(const char* raw) { return flag("--pue", dim_rt<Count::dim>(), raw, Constraint::pue); }
NumericFlag tokens(const char* raw) { return flag("--tokens", dim_rt<Tokens::dim>(), raw); }

std::string refusal(const NumericFlag& f) {
  try {
    parse_axis(f);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}
std::vector<std::string> warnings_of(const NumericFlag& f) {
  std::vector<std::string> w;
  parse_axis(f, &w);
  return w;
}

// stdout or stderr of the binary alone.
std::string stream_of(const std::string& args, bool err) {
  return napkin_test::run_shell(std::string(NAPKIN_BINARY) + " " + args + (err ? " 2>&1 >/dev/null" : " 2>/dev/null"))
      .out;
}

}  // namespace

TEST_CASE("a bare number under 1 MiB on --gpu-memory is refused with the likely unit", "[plausibility]") {
  CHECK(refusal(bytes("--gpu-memory", "80")) ==
        "--gpu-memory: '80' is 80 B, not a GPU's memory; expected a unit, such as 80GB or 80GiB");
  CHECK(refusal(bytes("--gpu-memory", "1048575")) ==
        "--gpu-memory: '1048575' is 1048575 B, not a GPU's memory; expected a unit, such as 80GB or 80GiB");
  // In a list, the item at fault is named.
  CHECK(refusal(bytes("--gpu-memory", "85899345920,40")) ==
        "--gpu-memory: '40' is 40 B, not a GPU's memory; expected a unit, such as 80GB or 80GiB");
}

TEST_CASE("a GPU memory with a unit, or a bare byte count of at least 1 MiB, is taken as typed", "[plausibility]") {
  CHECK(parse_axis(bytes("--gpu-memory", "80GiB")).at(0) == 80.0 * 1073741824.0);
  CHECK(parse_axis(bytes("--gpu-memory", "512KiB")).at(0) == 512.0 * 1024.0);  // odd, but the unit says so
  CHECK(parse_axis(bytes("--gpu-memory", "1048576")).at(0) == 1048576.0);
  CHECK(parse_axis(bytes("--gpu-memory", "85899345920")).at(0) == 85899345920.0);
  CHECK(warnings_of(bytes("--gpu-memory", "24GiB,80GiB")).empty());
}

TEST_CASE("a CUDA context of a bare 0 means none; a bare 512 is refused", "[plausibility]") {
  CHECK(parse_axis(bytes("--cuda-context", "0", Constraint::non_negative)).at(0) == 0.0);
  CHECK(refusal(bytes("--cuda-context", "512", Constraint::non_negative)) ==
        "--cuda-context: '512' is 512 B, not a CUDA context (hundreds of MiB); expected a unit, such as 512MiB, or "
        "0 for none");
  // In a list a bare 0 counts as bare (0,5us is as likely 0.5us): give it a unit.
  CHECK(refusal(bytes("--cuda-context", "0,512MiB", Constraint::non_negative)).find("mixes a bare number") !=
        std::string::npos);
  CHECK(parse_axis(bytes("--cuda-context", "0B,512MiB", Constraint::non_negative)).size() == 2);
}

TEST_CASE("shared memory and SRAM per SM take a bare byte count from 1 KiB", "[plausibility]") {
  CHECK(refusal(bytes("--smem-per-sm", "228")) ==
        "--smem-per-sm: '228' is 228 B, not an SM's on-chip memory (tens to hundreds of KiB); expected a unit, such "
        "as 228KiB");
  CHECK(refusal(bytes("--sram", "100")).starts_with("--sram: '100' is 100 B, not an SM's on-chip memory"));
  CHECK(parse_axis(bytes("--sram", "100000")).at(0) == 100000.0);  // the FlashAttention paper's M, in bytes
  CHECK(parse_axis(bytes("--sram", "100KiB")).at(0) == 102400.0);
}

TEST_CASE("a byte flag outside the table, such as roofline's --bytes, takes a bare small number", "[plausibility]") {
  CHECK(parse_axis(bytes("--bytes", "4096")).at(0) == 4096.0);
}

TEST_CASE("a bare carbon intensity is refused; one with a unit is read as typed", "[plausibility]") {
  CHECK(refusal(carbon("400")) ==
        "--carbon-intensity: '400' has no unit; expected a unit: 400gCO2e/kWh or 0.4kgCO2e/kWh");
  CHECK(refusal(carbon("0.4")) ==
        "--carbon-intensity: '0.4' has no unit; expected a unit: 400gCO2e/kWh or 0.4kgCO2e/kWh");
  CHECK(parse_axis(carbon("400gCO2e/kWh")).at(0) == Approx(0.4 * kPerKwh));
  CHECK(parse_axis(carbon("0.4kgCO2e/kWh")).at(0) == Approx(0.4 * kPerKwh));
  CHECK(parse_axis(carbon("0")).at(0) == 0.0);  // carbon-free: 0 in every unit
  CHECK(warnings_of(carbon("400gCO2e/kWh")).empty());
}

TEST_CASE("a carbon intensity above 2 kgCO2e/kWh warns once, however many items exceed it", "[plausibility]") {
  const auto w = warnings_of(carbon("2500gCO2e/kWh,400gCO2e/kWh,3kgCO2e/kWh"));
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "--carbon-intensity: '2500gCO2e/kWh' is above 2 kgCO2e/kWh; no grid is above ~1.2 kgCO2e/kWh "
                "(400gCO2e/kWh = 0.4kgCO2e/kWh)");
  CHECK(warnings_of(carbon("2kgCO2e/kWh")).empty());
}

TEST_CASE("a PUE above 3 warns; below 1 and above 10 are refused", "[plausibility]") {
  const auto w = warnings_of(pue("4"));
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "--pue: '4' is above 3; no data centre reports a PUE above ~2.5 (typical: 1.1 to 1.6)");
  CHECK(warnings_of(pue("1.1,1.5,3")).empty());
  CHECK(warnings_of(pue("1..5:+1")).size() == 1);  // a range: its end
  CHECK(refusal(pue("0.5")) == "--pue: '0.5': expected a PUE between 1 and 10 (1.0 = no facility overhead)");
  CHECK(refusal(pue("11")) == "--pue: '11': expected a PUE between 1 and 10 (1.0 = no facility overhead)");
}

TEST_CASE("an MFU above 1 is refused, in a list too", "[plausibility]") {
  const auto mfu = [](const char* raw) { return flag("--mfu", dim_rt<Count::dim>(), raw); };
  CHECK(refusal(mfu("1.5")) == "--mfu: '1.5': expected a fraction of the peak in (0, 1], e.g. 0.4");
  CHECK(refusal(mfu("0.3,0.5,1.2")) == "--mfu: '1.2': expected a fraction of the peak in (0, 1], e.g. 0.4");
  CHECK(parse_axis(mfu("1")).at(0) == 1.0);
  CHECK(parse_axis(mfu("0.3..0.6:+0.1")).size() == 4);
}

TEST_CASE("a token count below 1 is refused; fractions above 1 are taken", "[plausibility]") {
  CHECK(refusal(tokens("0.5")) == "--tokens: '0.5': expected a token count of at least 1");
  CHECK(refusal(tokens("0.0001")) == "--tokens: '0.0001': expected a token count of at least 1");
  CHECK(refusal(tokens("0.5..8:x2")) == "--tokens: '0.5': expected a token count of at least 1");
  CHECK(refusal(tokens("0")) == "--tokens: '0': expected a positive number");  // the constraint speaks first
  CHECK(parse_axis(tokens("1")).at(0) == 1.0);
  CHECK(parse_axis(tokens("1.5")).at(0) == 1.5);  // an average, e.g. tokens per expert
  CHECK(parse_axis(tokens("15.6T")).at(0) == 15.6e12);
}

TEST_CASE("a list mixing bare numbers and units is refused as a likely decimal comma", "[plausibility]") {
  const auto power = [](const char* raw) { return flag("--power", dim_rt<Watts::dim>(), raw); };
  CHECK(refusal(power("1,5kW")) ==
        "--power: '1,5kW' mixes a bare number with a unit; a decimal comma? write 1.5kW, or give every item a unit");
  CHECK(refusal(bytes("--gpu-memory", "80,40GiB")) ==
        "--gpu-memory: '80,40GiB' mixes a bare number with a unit; a decimal comma? write 80.40GiB, or give every "
        "item a unit");
  CHECK(refusal(power("700W,1,2")) == "--power: '700W,1,2' mixes a bare number with a unit; give every item a unit");
  CHECK(refusal(flag("--launch-overhead", dim_rt<Seconds::dim>(), "0,5us", Constraint::non_negative)) ==
        "--launch-overhead: '0,5us' mixes a bare number with a unit; a decimal comma? write 0.5us, or give every "
        "item a unit");
  CHECK(refusal(power("1,5")) == "--power: '1' has no unit; expected a power with its unit, such as 700W or 10.2kW");
  CHECK(parse_axis(power("1kW,5kW")).size() == 2);  // all with a unit
}

TEST_CASE("counts may mix bare numbers and suffixes: 512,1k,2k", "[plausibility]") {
  const NumericFlag context = flag("--context", dim_rt<Count::dim>(), "512,1k,2Ki", Constraint::positive_integer);
  CHECK(parse_axis(context).size() == 3);
  CHECK(parse_axis(tokens("500B,1T")).size() == 2);
  CHECK(parse_axis(tokens("8192,15T")).size() == 2);
}

TEST_CASE("a range mixing a bare end and a unit is refused, before it is counted", "[plausibility]") {
  CHECK(refusal(flag("--power", dim_rt<Watts::dim>(), "1..5kW")) ==
        "--power: '1..5kW' mixes a bare number with a unit; give both ends of the range a unit");
  // 80 B to 96 GiB in 1-byte steps would be 1e11 values: the unit is the problem to name.
  CHECK(refusal(bytes("--gpu-memory", "80..96GiB")).find("mixes a bare number with a unit") != std::string::npos);
  CHECK(parse_axis(bytes("--gpu-memory", "16GiB..80GiB:+16GiB")).size() == 5);
}

TEST_CASE("a range with three dots is refused with the two-dot form", "[plausibility]") {
  const auto intensity = [](const char* raw) {
    return flag("--intensity", dim_rt<Intensity::dim>(), raw, Constraint::non_negative);
  };
  CHECK(refusal(intensity("0.1...5")) ==
        "--intensity: '0.1...5' has three dots; a range is written a..b (two dots), such as 0.1..5");
  CHECK(refusal(intensity("1....8:x2")) ==
        "--intensity: '1....8:x2' has three dots; a range is written a..b (two dots), such as 1..8:x2");
  CHECK(refusal(flag("--m", dim_rt<Count::dim>(), "1...64:x2", Constraint::positive_integer))
            .starts_with("--m: '1...64:x2' has three dots"));
}

TEST_CASE("malformed ranges are refused before their parts are read as numbers", "[plausibility]") {
  const auto m = [](const char* raw) { return flag("--m", dim_rt<Count::dim>(), raw, Constraint::positive_integer); };
  CHECK(refusal(m("1..5..7")) ==
        "--m: '1..5..7': expected one range a..b (two dots, once), with an optional :+step or :xfactor");
  CHECK(refusal(m("1,2..5")) == "--m: '1,2..5': expected a list 1,2,4 or a range a..b, not both");
  CHECK(refusal(m("1..8:x2,4")) == "--m: '1..8:x2,4': expected a list 1,2,4 or a range a..b, not both");
  CHECK(refusal(m("..5")) == "--m: '..5': expected a range with both ends, such as 1..64:x2");
  CHECK(refusal(m("1..")) == "--m: '1..': expected a range with both ends, such as 1..64:x2");
  CHECK(refusal(m("1..5:")) == "--m: '1..5:': expected a step after ':' (a..b:+step or a..b:xfactor)");
  CHECK(parse_axis(m("1..5")).size() == 5);
}

TEST_CASE("a sweep gathers each flag's warnings once", "[plausibility]") {
  std::vector<NumericFlag> flags{pue("4,5,6"), carbon("3kgCO2e/kWh")};
  const Sweep s(flags, {0, 1});
  REQUIRE(s.warnings().size() == 2);
  CHECK(s.warnings()[0].starts_with("--pue: '4' is above 3"));
  CHECK(s.warnings()[1].starts_with("--carbon-intensity: '3kgCO2e/kWh' is above 2 kgCO2e/kWh"));
}

TEST_CASE("a plausibility warning goes to stderr once per run, never to stdout", "[plausibility][cli]") {
  const std::string args = "energy --flops 1e18 --throughput 100TFLOP/s --power 1kW --pue 4,5,6 --json";
  const std::string err = stream_of(args, true);
  CHECK(err == "napkin: warning: --pue: '4' is above 3; no data centre reports a PUE above ~2.5 (typical: 1.1 to "
               "1.6)\n");
  const std::string out = stream_of(args, false);
  CHECK(out.find("above 3") == std::string::npos);
  CHECK(out.front() == '[');
}
