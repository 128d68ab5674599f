// train --cp (issue 30: the layouts published runs use): context parallelism splits each sequence
// over cp GPUs of a model replica (Megatron-LM --context-parallel-size), as memory --train does.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "run_napkin.h"

namespace {
// The JSON on stdout (the ledger's fit warning, on stderr, may come first in the captured text).
nlohmann::json doc(const std::string& out) { return nlohmann::json::parse(out.substr(out.find('{'))); }
double result(const std::string& out, const char* key) { return doc(out)["results"][key]["value"].get<double>(); }
}  // namespace

TEST_CASE("train --cp 2 keeps half of each sequence's activations per GPU and takes dp = gpus / (tp·pp·cp)",
          "[train][cp]") {
  // --mfu: the same rate for both (the step model would time them differently); --gpu-memory: both
  // ledgers fit, so both have a time.
  const std::string base =
      "train llama-3.1-70b --hw h100-sxm --tokens 1T --gpus 64 --tp 8 --seq 32768 --zero 1 --mfu 0.4 --gpu-memory 400GB "
      "--json";
  const auto one = napkin_test::run_napkin(base);
  const auto two = napkin_test::run_napkin(base + " --cp 2");
  REQUIRE(one.code == 0);
  REQUIRE(two.code == 0);
  CHECK(result(two.out, "activations") == Approx(result(one.out, "activations") / 2.0).epsilon(1e-9));
  // The FLOPs and the time at the same MFU do not change: the same work on the same GPUs.
  CHECK(result(two.out, "training_flops") == result(one.out, "training_flops"));
  CHECK(result(two.out, "time") == result(one.out, "time"));
  CHECK(doc(two.out)["inputs"]["dp"].get<double>() == 4.0);  // 64 / (8 · 1 · 2)
  // The same as memory --train with --cp 2 and the same layout.
  const auto mem = napkin_test::run_napkin(
      "memory llama-3.1-70b --train --hw h100-sxm --tp 8 --dp 4 --cp 2 --seq 32768 --zero 1 --gpu-memory 400GB --json");
  REQUIRE(mem.code == 0);
  CHECK(result(mem.out, "per_gpu") == Approx(result(two.out, "per_gpu")).epsilon(1e-12));
}
