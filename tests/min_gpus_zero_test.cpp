// memory --train --min-gpus under ZeRO (issue 30): the search answers a ZeRO run, dp of 2 or more;
// at dp 1 ZeRO shards nothing (the ledger warned so for the tensor-parallel answer it gave before).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "run_napkin.h"

TEST_CASE("memory --train --min-gpus --zero 3 answers an FSDP layout: Llama-3.1-8B on three H100s at tp 1",
          "[solve][zero]") {
  const auto r = napkin_test::run_napkin("memory llama-3.1-8b --train --hw h100-sxm --min-gpus --zero 3 --json");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  CHECK(j["results"]["tp"]["value"] == 1.0);
  CHECK(j["results"]["pp"]["value"] == 1.0);
  CHECK(j["results"]["dp"]["value"] == 3.0);
  CHECK(j["results"]["min_gpus"]["value"] == 3.0);
  CHECK(r.out.find("nothing is saved") == std::string::npos);  // no ZeRO-at-dp-1 warning
  // Two FSDP ranks do not hold it: 16 B per parameter over 2 plus the activations exceed 80 GB.
  const auto two = napkin_test::run_napkin("memory llama-3.1-8b --train --hw h100-sxm --zero 3 --dp 2 --value fits");
  CHECK(two.out.find("false") != std::string::npos);
}
