// --expect KEY=VALUE[±TOL] and --digits N: the homework check and the CI budget (issue 16).
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "expect.h"
#include "napkin/ground/parse_quantity.h"
#include "run_napkin.h"

namespace {
using napkin_test::Run;
Run napkin_run(const std::string& args) { return napkin_test::run_napkin(args); }
}  // namespace

TEST_CASE("expect holds within the precision the value is written with: 137.4GFLOP is 137.44 GFLOP", "[expect]") {
  const Run r = napkin_run("flops matmul --m 4096 --k 4096 --n 4096 --expect flops=137.4GFLOP");
  CHECK(r.code == 0);
  CHECK(r.out.find("--expect") == std::string::npos);
}

TEST_CASE("expect misses exit 1 naming the key, both values and the relative difference", "[expect]") {
  const Run r = napkin_run("flops matmul --m 4096 --k 4096 --n 4096 --expect flops=68.7GFLOP");
  CHECK(r.code == 1);
  // The table is still printed; one stderr line per miss.
  CHECK(r.out.find("137.44 GFLOP (137438953472 FLOP)  C = 2·m·k·n") != std::string::npos);
  CHECK(r.out.find("napkin: --expect failed: flops: expected 68.7GFLOP ± 50.00 MFLOP, napkin computed 137.44 GFLOP "
                   "(137438953472 FLOP): +100.06%\n") != std::string::npos);
}

TEST_CASE("expect takes an absolute or relative tolerance, and verdicts as text", "[expect]") {
  CHECK(napkin_run("flops matmul --m 4096 --k 4096 --n 4096 --expect flops=137GFLOP±1GFLOP").code == 0);
  CHECK(napkin_run("flops matmul --m 4096 --k 4096 --n 4096 --expect flops=137GFLOP+-0.1GFLOP").code == 1);
  CHECK(napkin_run("flops matmul --m 4096 --k 4096 --n 4096 --expect flops=130GFLOP±6%").code == 0);
  CHECK(napkin_run("flops matmul --m 4096 --k 4096 --n 4096 --expect flops=130GFLOP±5%").code == 1);
  CHECK(napkin_run("roofline --peak 100TFLOP/s --bandwidth 1TB/s --intensity 10 --expect bound=memory "
                   "--expect attainable=10TFLOP/s")
            .code == 0);
  const Run r = napkin_run("roofline --peak 100TFLOP/s --bandwidth 1TB/s --intensity 10 --expect bound=Compute");
  CHECK(r.code == 1);
  CHECK(r.out.find("--expect failed: bound: expected Compute, napkin computed memory") != std::string::npos);
}

TEST_CASE("every expectation is checked and each miss has its line", "[expect]") {
  const Run r = napkin_run("energy --flops 1e18 --throughput 100TFLOP/s --power 1kW --pue 1.2 "
                           "--expect time=2.7778h --expect energy=2kWh --expect facility_energy=3.3333kWh "
                           "--expect facility_energy=3.4kWh");
  CHECK(r.code == 1);
  CHECK(r.out.find("--expect failed: time") == std::string::npos);
  CHECK(r.out.find("--expect failed: energy: expected 2kWh ± 500 Wh, napkin computed 2.78 kWh (10.00 MJ): +38.89%") !=
        std::string::npos);
  CHECK(r.out.find("--expect failed: facility_energy: expected 3.4kWh ± 50 Wh, napkin computed 3.33 kWh (12.00 MJ): -1.96%") != std::string::npos);
}

TEST_CASE("expect in a sweep checks every row and names the row that missed", "[expect]") {
  // m = 1024: 2.147483648 GFLOP, within 2.147 ± 0.0005; m = 2048: twice that.
  const Run r = napkin_run("flops matmul --m 1024,2048 --k 1024 --n 1024 --expect flops=2.147GFLOP --csv");
  CHECK(r.code == 1);
  CHECK(r.out.find("flops (m=2048): expected 2.147GFLOP ± 500.00 kFLOP, napkin computed 4.29 GFLOP") != std::string::npos);
  CHECK(r.out.find("(m=1024)") == std::string::npos);
  CHECK(r.out.find("m,k,n,fma_as_one,flops\n1024,1024,1024,false,2147483648\n2048,1024,1024,false,4294967296\nnapkin: --expect") != std::string::npos);
}

TEST_CASE("expect with --require-fit: both checks report, exit 1", "[expect]") {
  const Run r = napkin_run("memory llama-3.1-70b --hw l4 --require-fit --expect weights=1GB");
  CHECK(r.code == 1);
  CHECK(r.out.find("--require-fit failed") != std::string::npos);
  CHECK(r.out.find("--expect failed: weights") != std::string::npos);
}

TEST_CASE("expect on a comparison names the configuration", "[expect]") {
  const Run r = napkin_run("params llama-3.1-8b,qwen3-8b --expect total_params=8030261248");
  CHECK(r.code == 1);
  CHECK(r.out.find("total_params (qwen3-8b): expected 8030261248 ± 0.5 params, napkin computed 8.19B params") !=
        std::string::npos);
}

TEST_CASE("a key the command does not compute is exit 2 before anything is printed", "[expect]") {
  const Run r = napkin_run("flops matmul --m 8 --k 8 --n 8 --expect flop=1024");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --expect: 'flop=1024': expected a result key of flops matmul: flops\n");
}

TEST_CASE("the written precision is half a unit in the last digit, times the unit", "[expect]") {
  using napkin::cli::written_precision;
  const napkin::DimRt flop = napkin::dim_rt<napkin::Flops::dim>();
  const napkin::DimRt one{};
  CHECK(written_precision("137.4GFLOP", 137.4e9, flop) == Approx(0.05e9));
  CHECK(written_precision("137.4G", 137.4e9, flop) == Approx(0.05e9));
  CHECK(written_precision("8030261248", 8030261248.0, one) == 0.5);
  CHECK(written_precision("1e18", 1e18, flop) == Approx(0.5e18));
  CHECK(written_precision("1.25e18", 1.25e18, flop) == Approx(0.005e18));
  CHECK(written_precision("2.7778h", 2.7778 * 3600, napkin::dim_rt<napkin::Seconds::dim>()) == Approx(0.00005 * 3600));
  CHECK(written_precision("0GB", 0.0, napkin::dim_rt<napkin::Bytes::dim>()) == Approx(0.5e9));
  CHECK(written_precision("8Ki", 8192.0, one) == Approx(512.0));
}

TEST_CASE("digits 6 shows the chapter's 2.7778 h and 3.3333 kWh to six digits", "[expect][digits][seed]") {
  const Run r = napkin_run("energy --flops 1e18 --throughput 100TFLOP/s --power 1kW --pue 1.2 --digits 6");
  CHECK(r.code == 0);
  CHECK(r.out.find("time             2.77778 h (10000 s)  t = C / R = 1 EFLOP / 100 TFLOP/s") != std::string::npos);
  CHECK(r.out.find("facility_energy  3.33333 kWh (12 MJ)  E_fac = PUE · E = 1.2 · 2.77778 kWh") != std::string::npos);
}

TEST_CASE("digits applies to formulas in explain, and integers stay exact", "[expect][digits]") {
  const Run r = napkin_run("kernel grid --n 2070000 --block 1024 --explain --digits 8");
  CHECK(r.code == 0);
  CHECK(r.out.find("ceil(2070000 / 1024)") != std::string::npos);
  CHECK(r.out.find("2.07e6") == std::string::npos);
}

TEST_CASE("the README's homework block: every chapter exercise's check holds (exit 0)", "[expect][seed][readme]") {
  std::ifstream readme(std::string(NAPKIN_SOURCE_DIR) + "/README.md");
  REQUIRE(readme);
  std::string line;
  while (std::getline(readme, line) && line != "<!-- homework -->") {
  }
  REQUIRE(std::getline(readme, line));
  REQUIRE(line == "```sh");
  int commands = 0;
  while (std::getline(readme, line) && line != "```") {
    if (line.rfind("napkin ", 0) != 0) continue;
    INFO(line);
    // stderr into the capture, stdout dropped: a miss line or a warning fails the check.
    const Run r = napkin_test::run_shell(std::string(NAPKIN_BINARY) + " " + line.substr(7) + " 2>&1 >/dev/null");
    CHECK(r.code == 0);
    CHECK(r.out.empty());
    ++commands;
  }
  CHECK(commands >= 5);
}

TEST_CASE("value KEY prints one result bare, in base units, one line per row", "[value]") {
  Run r = napkin_test::run_shell(std::string(NAPKIN_BINARY) + " flops matmul --m 4096 --k 4096 --n 4096 --value flops");
  CHECK(r.code == 0);
  CHECK(r.out == "137438953472\n");
  r = napkin_test::run_shell(std::string(NAPKIN_BINARY) + " roofline --peak 100TFLOP/s --bandwidth 1TB/s --intensity 10,1000 --value bound");
  CHECK(r.out == "memory\ncompute\n");
  r = napkin_test::run_shell(std::string(NAPKIN_BINARY) + " memory llama-3.1-8b --hw h100-sxm,l4 --context 64Ki --value fits");
  CHECK(r.out == "true\nfalse\n");
  r = napkin_test::run_shell(std::string(NAPKIN_BINARY) + " roofline --peak 100TFLOP/s --bandwidth 1TB/s --op relu --dtype fp32 --value intensity");
  CHECK(r.out == "0.125\n");
}

TEST_CASE("value with an unknown key is exit 2 with nothing printed", "[value]") {
  const Run r = napkin_test::run_shell(std::string(NAPKIN_BINARY) + " flops matmul --m 8 --k 8 --n 8 --value flop 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --value: 'flop': expected a result key of flops matmul: flops\n");
}

TEST_CASE("NAPKIN_HW is --hw's value when --hw is not given, said in the assumption; --hw wins", "[env]") {
  Run r = napkin_test::run_shell("NAPKIN_HW=l4 " + std::string(NAPKIN_BINARY) + " memory llama-3.1-8b --json");
  CHECK(r.code == 0);
  CHECK(r.out.find("\"fits\":{\"value\":true") != std::string::npos);
  CHECK(r.out.find("l4 (NVIDIA L4) from NAPKIN_HW, the default for --hw") != std::string::npos);
  r = napkin_test::run_shell("NAPKIN_HW=l4 " + std::string(NAPKIN_BINARY) + " memory llama-3.1-8b --hw h100-sxm --json");
  CHECK(r.out.find("NAPKIN_HW") == std::string::npos);
  CHECK(r.out.find("h100-sxm (NVIDIA H100 SXM5 80GB)") != std::string::npos);
  r = napkin_test::run_shell("NAPKIN_HW= " + std::string(NAPKIN_BINARY) + " memory llama-3.1-8b --json");
  CHECK(r.out.find("\"fits\"") == std::string::npos);  // set but empty: no hardware
  r = napkin_test::run_shell("NAPKIN_HW=h100-sxm6 " + std::string(NAPKIN_BINARY) + " memory llama-3.1-8b 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out.rfind("napkin: error: NAPKIN_HW (the default for --hw): unknown hardware preset 'h100-sxm6'", 0) == 0);
}

TEST_CASE("MODEL - reads a config.json or napkin model JSON from stdin", "[stdin]") {
  const std::string phi4 = std::string(NAPKIN_SOURCE_DIR) + "/tests/real-configs/phi-4/config.json";
  Run r = napkin_test::run_shell(std::string(NAPKIN_BINARY) + " params - --value total_params < " + phi4);
  CHECK(r.code == 0);
  CHECK(r.out == "14659507200\n");  // as `napkin params phi-4's config.json`
  r = napkin_test::run_shell(std::string(NAPKIN_BINARY) + " memory - --value kv_per_token < " + phi4);
  CHECK(r.out == "204800\n");  // 2 · 40 layers · 10 KV heads · 128 · 2 B
  r = napkin_test::run_shell(std::string(NAPKIN_BINARY) + " memory - 2>&1 < /dev/null");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: MODEL: '-': expected a config.json or napkin model JSON on stdin (stdin is empty)\n");
  r = napkin_test::run_shell("echo '{bad' | " + std::string(NAPKIN_BINARY) + " params - 2>&1");
  CHECK(r.code == 2);
  CHECK(r.out.rfind("napkin: error: (stdin): not valid JSON", 0) == 0);
}

TEST_CASE("on a terminal the fit verdict and warning: are coloured, not with NO_COLOR nor in a pipe", "[colour]") {
  // script(1) (bsdutils, essential in Debian) gives napkin a terminal.
  if (napkin_test::run_shell("command -v script >/dev/null").code != 0) {
    WARN("script(1) missing: colour not checked");
    return;
  }
  const std::string cmd = std::string(NAPKIN_BINARY) + " memory llama-3.1-8b --hw l4,h100-sxm --context 64Ki";
  Run r = napkin_test::run_shell("script -qec '" + cmd + "' /dev/null");
  CHECK(r.out.find("\x1b[31mno\x1b[0m") != std::string::npos);
  CHECK(r.out.find("\x1b[32myes\x1b[0m") != std::string::npos);
  r = napkin_test::run_shell("NO_COLOR=1 script -qec '" + cmd + "' /dev/null");
  CHECK(r.out.find('\x1b') == std::string::npos);
  r = napkin_test::run_shell(cmd);  // a pipe
  CHECK(r.out.find('\x1b') == std::string::npos);
  r = napkin_test::run_shell("script -qec '" + std::string(NAPKIN_BINARY) + " memory llama-3.1-8b --context 1e7' /dev/null");
  CHECK(r.out.find("napkin: \x1b[33mwarning:\x1b[0m --context 10000000") != std::string::npos);
  // The coloured column is as wide as the plain one: the padding ignores the codes.
  r = napkin_test::run_shell("script -qec '" + cmd + "' /dev/null");
  CHECK(r.out.find("  fits                    \x1b[31mno\x1b[0m        \x1b[32myes\x1b[0m") != std::string::npos);
}
