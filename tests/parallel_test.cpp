#include <catch2/catch.hpp>

#include "napkin/ground/error.h"
#include "napkin/model/parallel.h"
#include "napkin/specs/presets.h"

using namespace napkin;
using namespace napkin::units;

TEST_CASE("one GPU holds every parameter of the model", "[parallel]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  const ParamCount c = count_params(m);
  const auto stages = shard_stages(m, c, 1 * one, 1 * one);
  REQUIRE(stages.size() == 1);
  CHECK(stages[0].params == 8030261248.0);
  CHECK(stages[0].kv_heads == 8.0);
}

TEST_CASE("TP splits everything but the norms: 2 ranks hold the total plus one copy of the norms", "[parallel]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  const ParamCount c = count_params(m);
  const auto one_gpu = shard_stages(m, c, 2 * one, 1 * one);
  const double norms = static_cast<double>(c.group(ParamGroup::norm));
  CHECK(2.0 * one_gpu[0].params == 8030261248.0 + norms);
  CHECK(one_gpu[0].kv_heads == 4.0);
}

TEST_CASE("with more TP ranks than KV heads each rank keeps one whole KV head", "[parallel]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");  // 8 KV heads of 128
  const ParamCount c = count_params(m);
  const auto s16 = shard_stages(m, c, 16 * one, 1 * one);
  CHECK(s16[0].kv_heads == 1.0);
  // Per layer, K and V keep 2·D·128 weights on each rank instead of 2·D·128·8/16.
  const auto s8 = shard_stages(m, c, 8 * one, 1 * one);
  const double kv_per_layer_8 = 2.0 * 4096 * 128;  // one KV head's K and V on each of 8 ranks
  CHECK(s16[0].params > s8[0].params / 2.0);
  CHECK(s16[0].params - (s8[0].params - 32 * kv_per_layer_8) / 2.0 ==
        Approx(32 * kv_per_layer_8 + (c.group(ParamGroup::norm)) / 2.0).epsilon(1e-12));
}

TEST_CASE("PP splits layers evenly, embedding first and head last", "[parallel]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  const ParamCount c = count_params(m);
  const auto s = shard_stages(m, c, 1 * one, 3 * one);
  REQUIRE(s.size() == 3);
  CHECK(s[0].layers == 11);
  CHECK(s[1].layers == 11);
  CHECK(s[2].layers == 10);
  CHECK(s[0].has_embedding);
  CHECK(s[2].has_head);
  CHECK(s[0].params + s[1].params + s[2].params == 8030261248.0);
}

TEST_CASE("a TP degree that does not divide the heads is refused, naming --tp", "[parallel]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  const ParamCount c = count_params(m);
  CHECK_THROWS_WITH(shard_stages(m, c, 3 * one, 1 * one),
                    "--tp: '3': expected a divisor of the model's 32 attention heads");
  CHECK_THROWS_WITH(shard_stages(m, c, 1 * one, 33 * one), "--pp: '33': expected at most the model's 32 layers");
}
