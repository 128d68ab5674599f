#include <catch2/catch.hpp>

#include "napkin/ground/error.h"
#include "napkin/model/flops.h"
#include "napkin/report/human_units.h"
#include "napkin/specs/presets.h"

using namespace napkin;
using namespace napkin::units;

TEST_CASE("a 4096³ matmul is 2·4096³ = 137,438,953,472 FLOP, shown exactly", "[flops][seed]") {
  const Flops c = matmul_flops({.m = 4096 * one, .k = 4096 * one, .n = 4096 * one});
  CHECK(c.in(flop) == 137438953472.0);
  ResultSet rs;
  matmul_flops({.m = 4096 * one, .k = 4096 * one, .n = 4096 * one}, rs);
  REQUIRE(rs.find("flops") != nullptr);
  CHECK(report::human_value(rs.find("flops")->value) == "137.44 GFLOP (137438953472 FLOP)");
  CHECK(report::expand(rs, rs.find("flops")->substituted) == "2 · 4096 · 4096 · 4096");
}

TEST_CASE("counting a fused multiply-add as one halves the matmul count and says so", "[flops]") {
  ResultSet rs;
  matmul_flops({.m = 4096 * one, .k = 4096 * one, .n = 4096 * one, .fma_as_one = true}, rs);
  CHECK(rs.find("flops")->value.num == 68719476736.0);
  REQUIRE(rs.assumptions.size() == 1);
  CHECK(rs.assumptions[0].key == "fma_counting");
  CHECK(report::expand(rs, rs.assumptions[0].text).find("counts as 1 operation") != std::string::npos);
}

TEST_CASE("a plain FFN is 4·D·F per token and a gated one 6·D·F", "[flops][seed]") {
  CHECK(ffn_flops_per_token({.d = 4096 * one, .f = 14336 * one}).in(flop / token) == 4.0 * 4096 * 14336);
  CHECK(ffn_flops_per_token({.d = 4096 * one, .f = 14336 * one, .gated = true}).in(flop / token) ==
        6.0 * 4096 * 14336);
  CHECK(ffn_flops({.d = 4096 * one, .f = 14336 * one, .gated = true, .tokens = 8192 * token}).in(flop) ==
        6.0 * 4096 * 14336 * 8192);
}

TEST_CASE("attention is 8·B·T·D² for projections plus 4·B·T²·D for scores", "[flops][seed]") {
  const AttentionFlops a = attention_flops({.batch = 2 * one, .seq = 1024 * one, .d = 512 * one});
  CHECK(a.projection.in(flop) == 8.0 * 2 * 1024 * 512 * 512);
  CHECK(a.attention.in(flop) == 4.0 * 2 * 1024 * 1024 * 512);
  CHECK(a.total().in(flop) == a.projection.in(flop) + a.attention.in(flop));
}

TEST_CASE("causal skipping halves only the T² term and is stated as kernel-dependent", "[flops]") {
  ResultSet rs;
  attention_flops({.batch = 1 * one, .seq = 4096 * one, .d = 4096 * one, .causal_skip = true}, rs);
  CHECK(rs.find("attention_flops")->value.num == 0.5 * 4.0 * 4096.0 * 4096 * 4096);
  CHECK(rs.find("projection_flops")->value.num == 8.0 * 4096.0 * 4096 * 4096);
  bool stated = false;
  for (const auto& a : rs.assumptions)
    if (a.key == "causal_skip") stated = report::expand(rs, a.text).find("kernel-dependent") != std::string::npos;
  CHECK(stated);
}

TEST_CASE("grouped-query attention shrinks the K and V projections", "[flops]") {
  // Llama-3.1-8B shape: D = 4096, 8 KV heads of 128 -> D_kv = 1024.
  const AttentionFlops a = attention_flops({.batch = 1 * one, .seq = 1 * one, .d = 4096 * one, .d_kv = 1024 * one});
  CHECK(a.projection.in(flop) == 2.0 * 4096 * (2.0 * 4096 + 2.0 * 1024));
}

TEST_CASE("6PD: 8e9 params on 15e12 tokens is 7.2e23 FLOP, 2P forward and 4P backward", "[flops][seed]") {
  const TrainingFlops t = training_flops({.params = 8e9 * param, .tokens = 15e12 * token});
  CHECK(t.forward.in(flop) == 2.0 * 8e9 * 15e12);
  CHECK(t.backward.in(flop) == 4.0 * 8e9 * 15e12);
  CHECK(t.total().in(flop) == 7.2e23);
}

TEST_CASE("6PD names what it leaves out", "[flops][seed]") {
  ResultSet rs;
  training_flops({.params = 8e9 * param, .tokens = 15e12 * token}, rs);
  std::string all;
  for (const auto& a : rs.assumptions) all += report::expand(rs, a.text) + "\n";
  CHECK(all.find("attention's T² term left out") != std::string::npos);
  CHECK(all.find("LM head left out") != std::string::npos);
  CHECK(all.find("no activation recomputation") != std::string::npos);
  CHECK(all.find("MoE routing") != std::string::npos);
}

TEST_CASE("full recomputation adds one forward pass: 8PD", "[flops]") {
  const TrainingFlops t =
      training_flops({.params = 1e9 * param, .tokens = 1e9 * token, .recompute = Recompute::full});
  CHECK(t.total().in(flop) == 8e18);
}

TEST_CASE("the attention term adds 12·L·T·D per token over a training step (PaLM appendix B)", "[flops]") {
  // GPT-3 175B shape: L = 96, D = 12288, T = 2048.
  // One sequence of T = 2048 tokens (fewer tokens than a sequence are refused).
  const TrainingFlops t = training_flops({.params = 1.0 * param, .tokens = 2048.0 * token,
                                          .layers = 96 * one, .seq = 2048 * one, .d_model = 12288 * one});
  CHECK(t.total().in(flop) == 2048.0 * (6.0 + 12.0 * 96 * 2048 * 12288));
}

TEST_CASE("training tokens: at least 1, at least one sequence with the attention term; a part of a term is refused",
          "[flops]") {
  CHECK_THROWS_WITH(training_flops({.params = 8e9 * param, .tokens = 1e-4 * token}),
                    "tokens: '0.0001': expected at least 1 token (a training run sees whole tokens; 15T = 1.5e13)");
  CHECK_THROWS_WITH(megatron_training_flops({.layers = 96 * one, .hidden = 12288 * one, .seq = 2048 * one,
                                             .vocab = 51200 * one, .tokens = 0.5 * token}),
                    Catch::Matchers::StartsWith("tokens: '0.5': expected at least 1 token"));
  CHECK_THROWS_WITH(training_flops({.params = 8e9 * param, .tokens = 100.0 * token, .layers = 32 * one,
                                    .seq = 8192 * one, .d_model = 4096 * one}),
                    Catch::Matchers::StartsWith("tokens: '100': expected at least one sequence of --seq 8192 tokens"));
  CHECK_THROWS_WITH(training_flops({.params = 8e9 * param, .tokens = 1e12 * token, .seq = 8192 * one}),
                    Catch::Matchers::StartsWith("seq: '8192': expected --layers and --d-model with --seq"));
  CHECK_THROWS_WITH(training_flops({.params = 8e9 * param, .tokens = 1e12 * token, .layers = 32 * one}),
                    Catch::Matchers::StartsWith("layers: '32': expected --seq and --d-model"));
  CHECK_THROWS_WITH(training_flops({.params = 8e9 * param, .tokens = 1e12 * token, .vocab = 128256 * one}),
                    Catch::Matchers::StartsWith("vocab: '128256': expected --d-model with --vocab"));
  CHECK_THROWS_WITH(training_flops({.params = 8e9 * param, .tokens = 1e12 * token, .d_model = 4096 * one}),
                    Catch::Matchers::StartsWith("d_model: '4096': expected --layers and --seq"));
  // The head term alone is a whole term.
  CHECK(training_flops({.params = 1.0 * param, .tokens = 1.0 * token, .d_model = 4096 * one, .vocab = 10 * one})
            .total()
            .in(flop) == 6.0 + 3.0 * 2.0 * 10 * 4096);
}

TEST_CASE("flops train MODEL: P is the non-embedding count by default, the note gives the total's FLOP", "[flops]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  const ModelP p = model_p(m);
  CHECK(p.total.in(param) == 8030261248.0);
  CHECK(p.embedding.in(param) == 2.0 * 128256 * 4096);
  CHECK(p.non_embedding.in(param) == 8030261248.0 - 2.0 * 128256 * 4096);
  ResultSet rs;
  training_flops(m, std::nullopt, {.tokens = 15e12 * token}, rs);
  CHECK(rs.find("training_flops")->value.num == 6.0 * p.non_embedding.in(param) * 15e12);
  CHECK(rs.find_input("params_count")->value.str == "non-embedding");
  bool found = false;
  for (const auto& a : rs.assumptions)
    if (a.key == "params_count")
      found = report::expand(rs, a.text).find("the course notes' P (7.3") != std::string::npos;
  CHECK(found);
  REQUIRE(rs.notes.size() == 1);
  CHECK(report::expand(rs, rs.notes[0]).find("C = 722.72 ZFLOP") != std::string::npos);
  ResultSet t;
  training_flops(m, ParamsCount::total, {.tokens = 15e12 * token}, t);
  CHECK(t.find("training_flops")->value.num == 6.0 * 8030261248.0 * 15e12);
  CHECK(report::expand(t, t.notes[0]).find("C = 628.16 ZFLOP") != std::string::npos);
}

TEST_CASE("a zero or negative size is an input error naming the input", "[flops]") {
  CHECK_THROWS_WITH(matmul_flops({.m = 0 * one, .k = 1 * one, .n = 1 * one}), "m: '0': expected a positive integer");
  CHECK_THROWS_WITH(training_flops({.params = -1.0 * param, .tokens = 1.0 * token}),
                    "params: '-1': expected a positive finite number");
}

TEST_CASE("flops train in petaflop/s-days: GPT-3 175B on 300B tokens is 3.14e23 FLOP = 3640 PF-days", "[flops]") {
  // Brown et al. 2020, appendix D, table D.1: GPT-3 175B (174,600M params, 300B tokens), total
  // train compute 3.14E+23 FLOP = 3.64E+03 PF-days; 1 PF-day = 1e15 FLOP/s · 86400 s = 8.64e19 FLOP.
  ResultSet rs;
  training_flops({.params = 174.6e9 * param, .tokens = 300e9 * token}, rs);
  const double c = rs.find("training_flops")->value.num;
  CHECK(std::round(c / 1e21) == 314.0);
  const Item* pf = rs.find("petaflop_s_days");
  REQUIRE(pf != nullptr);
  CHECK(pf->value.num == c / 8.64e19);
  CHECK(std::round(pf->value.num / 10.0) == 364.0);
  CHECK(pf->value.dim == DimRt{});
}
