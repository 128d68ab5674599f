// Every tests/real-configs/<model>/ with an expect.json: napkin's count of its config.json equals
// the checkpoint total SOURCE.md cites (issue 28). Keys of expect.json:
//   total_params        the checkpoint's parameters (towers included where it ships one; buffers,
//                       tied copies and multi-token-prediction layers excluded, as SOURCE.md says)
//   text_only_params    the count with --text-only (a multimodal checkpoint)
//   active_params       parameters one token passes through (a mixture of experts)
//   mtp_params          multi-token-prediction layers the checkpoint stores beside the model
//   refused             instead of the counts: the error napkin must give (a substring); with
//                       text_only_params, a tower napkin cannot count beside an exact language model
// Adding a family (docs/adding-a-family.md) adds a folder here; this test needs no edit.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "napkin/ground/error.h"
#include "napkin/model/parallel.h"
#include "napkin/model/params.h"
#include "napkin/specs/hf_config.h"

namespace fs = std::filesystem;

TEST_CASE("every real config with an expect.json counts to its checkpoint's total", "[real-configs]") {
  const fs::path root = fs::path(NAPKIN_SOURCE_DIR) / "tests" / "real-configs";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(root)) {
    const fs::path expect_file = entry.path() / "expect.json";
    if (!fs::exists(expect_file)) continue;
    std::ifstream in(expect_file);
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json e = nlohmann::json::parse(text.str());
    const std::string config = (entry.path() / "config.json").string();
    INFO(entry.path().filename().string());
    ++checked;
    if (e.contains("refused")) {
      // Refused when read, or (a tower napkin cannot count) when counted; --text-only may still
      // count the language model alone (text_only_params).
      const std::string why = e.at("refused").get<std::string>();
      napkin::specs::ModelSpec m;
      try {
        m = napkin::specs::read_hf_config(config);
      } catch (const napkin::InputError& err) {
        CHECK_THAT(err.what(), Catch::Contains(why));
        CHECK_FALSE(e.contains("text_only_params"));
        continue;
      }
      CHECK_THROWS_WITH(napkin::count_params(m), Catch::Contains(why));
      if (e.contains("text_only_params")) {
        REQUIRE_FALSE(m.tower_refusal.empty());
        m.tower_refusal.clear();
        CHECK(napkin::count_params(m).total == e.at("text_only_params").get<std::int64_t>());
      }
      continue;
    }
    napkin::specs::ModelSpec m;
    REQUIRE_NOTHROW(m = napkin::specs::read_hf_config(config));
    const napkin::ParamCount c = napkin::count_params(m);
    CHECK(c.total == e.at("total_params").get<std::int64_t>());
    if (e.contains("active_params")) CHECK(c.active == e.at("active_params").get<std::int64_t>());
    if (e.contains("mtp_params")) CHECK(c.mtp == e.at("mtp_params").get<std::int64_t>());
    // The ledgers hold what params counts: one GPU's shard is the whole model (tower included).
    if (m.ledger_refusal.empty()) {
      using napkin::units::one;
      const auto stages = napkin::shard_stages(m, c, 1.0 * one, 1.0 * one, 1.0 * one);
      CHECK(stages.front().params == static_cast<double>(c.total));
    }
    if (e.contains("text_only_params")) {
      REQUIRE(m.tower);
      m.tower.reset();
      CHECK(napkin::count_params(m).total == e.at("text_only_params").get<std::int64_t>());
    }
  }
  CHECK(checked >= 1);
}
