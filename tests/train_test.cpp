#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <string>

#include "assumption_flags.h"
#include "napkin/ground/error.h"
#include "napkin/model/params.h"
#include "napkin/plans/train.h"
#include "napkin/report/human_units.h"
#include "napkin/specs/hf_config.h"
#include "napkin/specs/presets.h"
#include "run_napkin.h"

using namespace napkin;
using namespace napkin::units;
using Catch::Matchers::WithinRel;
using napkin_test::run_napkin;

namespace {

// GPT-3 175B on Narayanan et al. 2021's numbers (§5.1: 1024 A100s at 140 TFLOP/s, s = 2048); the
// layout t = 8, p = 8 is ours (their table 1 has no 175B row).
TrainInput gpt3_run() {
  TrainInput in;
  in.tokens = 300e9 * token;
  in.gpus = 1024.0 * one;
  in.memory.tp = 8.0 * one;
  in.memory.pp = 8.0 * one;
  in.memory.seq = 2048.0 * one;
  in.memory.recompute = Recompute::full;
  in.achieved = 140.0 * TFLOP_per_s;
  return in;
}

std::string all_assumptions(const ResultSet& rs) {
  std::string all;
  for (const auto& a : rs.assumptions) all += report::expand(rs, a.text) + "\n";
  return all;
}

}  // namespace

TEST_CASE("GPT-3 175B on 300B tokens, 1024 A100 at 140 TFLOP/s, megatron with full recompute: about 34 days",
          "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("gpt3-175b");
  TrainInput in = gpt3_run();
  in.formula = FlopsFormula::megatron;
  const TrainEstimate r = train(m, in);
  // Narayanan et al. 2021, §5.1: "we estimate ... 34 days"; eq. 3 with V = 51200 gives 34.7.
  CHECK(r.time.in(day) > 33.5);
  CHECK(r.time.in(day) < 35.0);
  CHECK(r.dp.in(one) == 16.0);
  // Eq. 3 per iteration, summed over 300B tokens: 96·D·l·h²·(1 + s/6h + V/16lh).
  const double l = 96, h = 12288, s = 2048, v = 51200;
  const double eq3 = 96.0 * 300e9 * l * h * h * (1.0 + s / (6.0 * h) + v / (16.0 * l * h));
  CHECK_THAT(r.flops.total().in(flop), WithinRel(eq3, 1e-12));
}

TEST_CASE("the 8TP rule (6pd with full recompute, P = 175B) gives 8·300e9·175e9/(1024·140e12) s = 33.9 days",
          "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("gpt3-175b");
  TrainInput in = gpt3_run();
  in.params = 175e9 * param;
  const TrainEstimate r = train(m, in);
  CHECK_THAT(r.flops.total().in(flop), WithinRel(8.0 * 300e9 * 175e9, 1e-12));
  CHECK_THAT(r.time.in(second), WithinRel(8.0 * 300e9 * 175e9 / (1024.0 * 140e12), 1e-12));
  CHECK_THAT(r.time.in(day), WithinRel(33.91, 1e-3));
}

TEST_CASE("6PD of GPT-3 175B on 300B tokens is 3.15e23 FLOP", "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("gpt3-175b");
  TrainInput in = gpt3_run();
  in.memory.recompute = Recompute::none;
  in.params = 175e9 * param;
  CHECK_THAT(train(m, in).flops.total().in(flop), WithinRel(3.15e23, 1e-12));
  // The preset's own total count (174.6B: the paper's 175.0B is nominal) lands within 0.3%.
  in.params.reset();
  in.params_count = ParamsCount::total;
  CHECK_THAT(train(m, in).flops.total().in(flop), WithinRel(3.15e23, 3e-3));
  // The default, the course notes' non-embedding P, leaves out (50257 + 2048)·12288 embeddings.
  in.params_count.reset();
  const ParamCount pc = count_params(m);
  CHECK(pc.embedding == (50257 + 2048) * 12288);
  CHECK(train(m, in).flops.total().in(flop) == 6.0 * static_cast<double>(pc.total - pc.embedding) * 300e9);
}

TEST_CASE("6PD of Llama 3.1 405B on 15.6T tokens is 3.8e25 FLOP, as the Llama 3 paper states", "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-405b");
  CHECK(count_params(m).total == 405853388800);
  TrainInput in;
  in.tokens = 15.6e12 * token;
  in.memory.seq = 8192.0 * one;
  in.memory.tp = 8.0 * one;
  in.memory.pp = 16.0 * one;
  in.gpus = 16384.0 * one;
  in.peak = 989.0 * TFLOP_per_s;
  in.params_count = ParamsCount::total;  // the paper's "405B" is the total count
  const TrainEstimate r = train(m, in);
  CHECK_THAT(r.flops.total().in(flop), WithinRel(6.0 * 405853388800.0 * 15.6e12, 1e-12));
  CHECK_THAT(r.flops.total().in(flop), WithinRel(3.8e25, 0.01));
  // The non-embedding default (401.65B) gives 3.76e25: the same 3.8e25 to two figures.
  in.params_count.reset();
  const double ne = train(m, in).flops.total().in(flop);
  CHECK(ne == 6.0 * (405853388800.0 - 2.0 * 128256 * 16384) * 15.6e12);
  CHECK(std::round(ne / 1e24) == 38.0);
}

TEST_CASE("palm adds 12·L·H·Q·T FLOP per token to 6PD", "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainInput in;
  in.tokens = 1e9 * token;
  in.memory.seq = 8192.0 * one;
  in.peak = 989.0 * TFLOP_per_s;
  in.params_count = ParamsCount::total;
  const double six_pd = train(m, in).flops.total().in(flop);
  in.formula = FlopsFormula::palm;
  const double palm = train(m, in).flops.total().in(flop);
  CHECK_THAT(palm - six_pd, WithinRel(12.0 * 32 * 32 * 128 * 8192 * 1e9, 1e-9));
  // palm's default N is the total count (PaLM's), 6pd's P the non-embedding one (the notes').
  in.params_count.reset();
  CHECK(train(m, in).flops.total().in(flop) == palm);
  in.formula = FlopsFormula::six_pd;
  const ParamCount pc = count_params(m);
  CHECK(train(m, in).flops.total().in(flop) == 6.0 * static_cast<double>(pc.total - pc.embedding) * 1e9);
}

TEST_CASE("MFU counts model FLOP: full recomputation does not change the time at a given MFU", "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainInput in;
  in.tokens = 1e12 * token;
  in.gpus = 64.0 * one;
  in.peak = 989.0 * TFLOP_per_s;
  in.mfu = 0.5;
  in.memory.seq = 4096.0 * one;
  const TrainEstimate plain = train(m, in);
  in.memory.recompute = Recompute::full;
  const TrainEstimate rc = train(m, in);
  CHECK(rc.time == plain.time);
  CHECK_THAT(rc.flops.total().in(flop), WithinRel(plain.flops.total().in(flop) * 8.0 / 6.0, 1e-12));
  // t = 6·P·D / (N · peak · MFU)
  const ParamCount pc = count_params(m);
  const double p = static_cast<double>(pc.active - pc.embedding);  // the non-embedding default
  CHECK_THAT(plain.time.in(second), WithinRel(6.0 * p * 1e12 / (64.0 * 989e12 * 0.5), 1e-12));
  CHECK_THAT(plain.gpu_hours, WithinRel(64.0 * plain.time.in(hour), 1e-12));
}

TEST_CASE("energy is GPUs · power · time, facility energy · PUE, cost on GPU-hours and facility kWh", "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainInput in;
  in.tokens = 1e12 * token;
  in.gpus = 64.0 * one;
  in.achieved = 400.0 * TFLOP_per_s;
  in.memory.seq = 4096.0 * one;
  in.gpu_power = 700.0 * watt;
  in.pue = 1.2;
  in.price_per_gpu_hour = 2.0 * usd / hour;
  in.price_per_kwh = 0.1 * usd / kWh;
  in.carbon_intensity = 0.4 * kg_co2e / kWh;
  const TrainEstimate r = train(m, in);
  const double t = r.time.in(hour);
  CHECK_THAT(r.energy->in(kWh), WithinRel(64 * 0.7 * t, 1e-12));
  CHECK_THAT(r.facility_energy->in(kWh), WithinRel(1.2 * 64 * 0.7 * t, 1e-12));
  CHECK_THAT(r.rental_cost->in(usd), WithinRel(2.0 * 64 * t, 1e-12));
  CHECK_THAT(r.electricity_cost->in(usd), WithinRel(0.1 * 1.2 * 64 * 0.7 * t, 1e-12));
  CHECK_THAT(r.cost->in(usd), WithinRel(2.0 * 64 * t + 0.1 * 1.2 * 64 * 0.7 * t, 1e-12));
  CHECK_THAT(r.co2->in(kg_co2e), WithinRel(0.4 * 1.2 * 64 * 0.7 * t, 1e-12));
  SECTION("whole-node power counts nodes, rounded up") {
    in.gpu_power.reset();
    in.node_power = 10.0 * kW;
    in.gpus = 60.0 * one;
    const TrainEstimate n = train(m, in);
    CHECK(n.it_power->in(kW) == 80.0);  // ⌈60 / 8⌉ = 8 nodes
  }
}

TEST_CASE("only --gpus given: dp = gpus / (tp·pp), and the memory ledger is sharded over it", "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-70b");
  TrainInput in;
  in.tokens = 1e12 * token;
  in.gpus = 256.0 * one;
  in.memory.tp = 8.0 * one;
  in.memory.pp = 4.0 * one;
  in.memory.seq = 4096.0 * one;
  in.memory.states.zero_stage = 1;
  in.memory.capacity = 80.0 * GiB;
  in.peak = 989.0 * TFLOP_per_s;
  const TrainEstimate r = train(m, in);
  CHECK(r.dp.in(one) == 8.0);
  TrainingMemoryInput mi = in.memory;
  mi.states.dp = 8.0 * one;
  CHECK(r.memory.per_gpu() == training_memory(m, mi).per_gpu());
  CHECK(r.memory.fits.has_value());
}

TEST_CASE("the report lists memory, compute, time, GPU-hours and energy, and every assumption has a flag", "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("gpt3-175b");
  for (FlopsFormula f : {FlopsFormula::six_pd, FlopsFormula::palm, FlopsFormula::megatron})
    for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
      TrainInput in = gpt3_run();
      in.formula = f;
      in.memory.recompute = rc;
      in.peak = 312.0 * TFLOP_per_s;
      in.gpu_power = 400.0 * watt;
      in.price_per_gpu_hour = 1.0 * usd / hour;
      in.price_per_kwh = 0.1 * usd / kWh;
      in.carbon_intensity = 0.4 * kg_co2e / kWh;
      in.memory.capacity = 80.0 * GiB;
      ResultSet rs;
      train(m, in, rs);
      CHECK(rs.command == "train");
      for (const char* key : {"per_gpu", "fits", "training_flops", "time", "gpu_hours", "energy", "facility_energy",
                              "cost", "co2"}) {
        INFO(key);
        CHECK(rs.find(key) != nullptr);
      }
      for (const auto& a : rs.assumptions) {
        INFO(a.key);
        CHECK_NOTHROW(cli::flag_for_assumption(a.key));
      }
    }
}

TEST_CASE("the megatron formula says when the model is not the GPT layer it assumes", "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainInput in;
  in.tokens = 1e9 * token;
  in.memory.seq = 4096.0 * one;
  in.peak = 989.0 * TFLOP_per_s;
  in.formula = FlopsFormula::megatron;
  ResultSet rs;
  train(m, in, rs);
  CHECK(all_assumptions(rs).find("eq. 3 assumes a GPT layer (MHA, plain 4h MLP)") != std::string::npos);
  CHECK(all_assumptions(rs).find("V = 128256: the vocabulary 128256 padded to a multiple of 128·tp") !=
        std::string::npos);
}

TEST_CASE("train GPT-3 on the command line prints 34.73 d and the memory per GPU", "[train][cli]") {
  const auto r = run_napkin("train gpt3-175b --tokens 300B --hw a100-sxm-80gb --gpus 1024 --tp 8 --pp 8 "
                            "--achieved 140TFLOP/s --flops-formula megatron --recompute full --seq 2048");
  CHECK(r.code == 0);
  CHECK(r.out.find("34.73 d") != std::string::npos);
  CHECK(r.out.find("per_gpu") != std::string::npos);
  CHECK(r.out.find("--flops-formula") != std::string::npos);
}

TEST_CASE("bad train input is exit 2 with one line naming the flag, the value and what was expected", "[train][cli]") {
  SECTION("an MFU above 1") {
    const auto r = run_napkin("train llama-3.1-8b --tokens 1T --hw h100-sxm --mfu 1.5");
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: --mfu: '1.5': expected a fraction of the peak in (0, 1], e.g. 0.4\n");
  }
  SECTION("GPUs that tp·pp does not divide") {
    const auto r = run_napkin("train llama-3.1-8b --tokens 1T --hw h100-sxm --gpus 7 --tp 8");
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: --gpus: '7': expected a multiple of tp·pp = 8·1 = 8 (dp = gpus / (tp·pp) "
                   "must be whole)\n");
  }
  SECTION("GPUs that disagree with tp·pp·dp") {
    const auto r = run_napkin("train llama-3.1-8b --tokens 1T --hw h100-sxm --gpus 16 --tp 8 --dp 4");
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: --gpus: '16': expected tp·pp·dp = 8·1·4 = 32 (or leave out --dp: dp = gpus / "
                   "(tp·pp))\n");
  }
  SECTION("an unknown formula") {
    const auto r = run_napkin("train llama-3.1-8b --tokens 1T --hw h100-sxm --flops-formula 8pd");
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: --flops-formula: '8pd': expected 6pd, palm or megatron\n");
  }
  SECTION("no peak and no achieved rate") {
    const auto r = run_napkin("train llama-3.1-8b --tokens 1T");
    CHECK(r.code == 2);
    CHECK(r.out.rfind("napkin: error: --peak: '(missing)': expected a per-GPU peak FLOP/s", 0) == 0);
  }
  SECTION("--mfu with --achieved") {
    const auto r = run_napkin("train llama-3.1-8b --tokens 1T --hw h100-sxm --mfu 0.4 --achieved 400TFLOP/s");
    CHECK(r.code == 2);
    CHECK(r.out == "napkin: error: --achieved (given with --mfu): expected one of --mfu, --achieved, "
                   "--tokens-per-second, --gpu-hours or --time (how fast the run goes, or what it took), not two\n");
  }
  SECTION("--mfu with --time") {
    const auto r = run_napkin("train llama-3.1-8b --tokens 1T --hw h100-sxm --mfu 0.4 --time 30d");
    CHECK(r.code == 2);
    CHECK(r.out.rfind("napkin: error: --time (given with --mfu): expected one of --mfu", 0) == 0);
  }
  SECTION("GPU-hours with a unit") {
    const auto r = run_napkin("train llama-3.1-8b --tokens 1T --hw h100-sxm --gpu-hours 1h");
    CHECK(r.code == 2);
    CHECK(r.out.rfind("napkin: error: --gpu-hours: '1h'", 0) == 0);
  }
  SECTION("a run faster than the peak") {
    const auto r = run_napkin("train llama-3.1-8b --tokens 1T --hw h100-sxm --gpus 8 --time 1h");
    CHECK(r.code == 2);
    CHECK(r.out.rfind("napkin: error: --time: '3600 s': expected a run no faster than the peak: it implies", 0) == 0);
  }
}

namespace {

// PaLM 540B (Chowdhery et al. 2022, table 1 and appendix B): 118 layers, d_model 18432, 48 heads of
// 256, multi-query, SwiGLU 4·d_model, 256k shared vocabulary, trained at 2048 tokens; N = 540.35B
// as appendix B counts it.
specs::ModelSpec palm_540b() {
  const auto j = nlohmann::json::parse(R"({"model_type": "llama", "num_hidden_layers": 118, "hidden_size": 18432,
    "num_attention_heads": 48, "num_key_value_heads": 1, "head_dim": 256, "intermediate_size": 73728,
    "vocab_size": 256000, "tie_word_embeddings": true, "max_position_embeddings": 2048})");
  return specs::from_hf_config(j, "config.json");
}

}  // namespace

TEST_CASE("PaLM 540B at 238.3k tokens/s on 6144 TPU v4 chips: MFU 45.7% with 6N, 46.2% with attention", "[train]") {
  // Chowdhery et al. 2022, appendix B: 238.3K tokens/s, 6144 TPU v4 chips of 275 TFLOP/s bf16,
  // "45.7% without the attention term" (6N), 46.2% with 6N + 12·L·H·Q·T (table 3).
  const specs::ModelSpec m = palm_540b();
  TrainInput in;
  in.tokens = 780e9 * token;  // §3: 780B training tokens
  in.params = 540.35e9 * param;
  in.gpus = 6144.0 * one;
  in.memory.seq = 2048.0 * one;
  in.peak = 275.0 * TFLOP_per_s;
  in.tokens_per_second = 238.3e3 * token / second;
  const TrainEstimate six = train(m, in);
  CHECK(std::round(six.mfu * 1000.0) == 457.0);
  CHECK_THAT(six.mfu, WithinRel(6.0 * 540.35e9 * 238.3e3 / (6144.0 * 275e12), 1e-12));
  CHECK_THAT(six.time.in(second), WithinRel(780e9 / 238.3e3, 1e-12));
  CHECK(six.hfu == six.mfu);  // no recomputation: every FLOP is a model FLOP
  in.formula = FlopsFormula::palm;
  const TrainEstimate palm = train(m, in);
  CHECK(std::round(palm.mfu * 1000.0) == 462.0);
  CHECK_THAT(palm.mfu, WithinRel((6.0 * 540.35e9 + 12.0 * 118 * 48 * 256 * 2048) * 238.3e3 / (6144.0 * 275e12), 1e-12));
  // The achieved rate per GPU is MFU · peak without recomputation: 127.1 TFLOP/s.
  CHECK_THAT(palm.achieved.in(TFLOP_per_s), WithinRel(palm.mfu * 275.0, 1e-12));
  // Full recomputation adds a forward pass: HFU grows by 8/6 on the 6N part, MFU stays.
  in.memory.recompute = Recompute::full;
  const TrainEstimate full = train(m, in);
  CHECK_THAT(full.mfu, WithinRel(palm.mfu, 1e-12));
  CHECK_THAT(full.hfu, WithinRel((8.0 * 540.35e9 + 16.0 * 118 * 48 * 256 * 2048) * 238.3e3 / (6144.0 * 275e12), 1e-12));
}

TEST_CASE("Llama 3.1 405B: 30.84M H100-hours for 15.6T tokens implies MFU 34.6%", "[train]") {
  // Llama 3.1 model card (github.com/meta-llama/llama-models, models/llama3_1/MODEL_CARD.md): 30.84M
  // H100-80GB GPU-hours for 405B; 15.6T tokens (Llama 3 paper, §3.3: 3.8e25 FLOP); H100 SXM dense
  // bf16 peak 989 TFLOP/s (the h100-sxm preset's 989.5).
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-405b");
  TrainInput in;
  in.tokens = 15.6e12 * token;
  in.gpus = 16384.0 * one;
  in.memory.tp = 8.0 * one;
  in.memory.pp = 16.0 * one;
  in.memory.seq = 8192.0 * one;
  in.params_count = ParamsCount::total;  // 405.85B: 6 · 405.85B · 15.6T = 3.80e25, the paper's figure
  in.gpu_hours = 30.84e6;
  for (double peak : {989.0, 989.5}) {
    in.peak = peak * TFLOP_per_s;
    const TrainEstimate r = train(m, in);
    CHECK(std::round(r.mfu * 1000.0) == 346.0);
    CHECK_THAT(r.mfu, WithinRel(6.0 * 405853388800.0 * 15.6e12 / (30.84e6 * 3600.0 * peak * 1e12), 1e-12));
    CHECK_THAT(r.gpu_hours, WithinRel(30.84e6, 1e-12));
    CHECK_THAT(r.time.in(day), WithinRel(30.84e6 / 16384.0 / 24.0, 1e-12));
  }
  // The same run as a time: 30.84M GPU-hours on 16384 GPUs is 78.4 days.
  in.gpu_hours.reset();
  in.time = (30.84e6 / 16384.0) * hour;
  CHECK(std::round(train(m, in).mfu * 1000.0) == 346.0);
}

TEST_CASE("train --gpu-hours reports mfu, achieved and the rows' formulas; no peak gives the achieved rate only",
          "[train][cli]") {
  const auto r = napkin_test::run_shell(std::string(NAPKIN_BINARY) +
                                        " train llama-3.1-405b --tokens 15.6T --hw h100-sxm --gpus 16384 --tp 8 --pp 16 "
                                        "--seq 8192 --zero 1 --sequence-parallel --first-stage-layers 7 --last-stage-layers 7 --gpu-hours 30.84M "
                                        "--params-count total --json 2>/dev/null");
  REQUIRE(r.code == 0);
  const auto j = specs::parse_json_text(r.out, "output");
  const auto& res = j.at("results");
  CHECK(std::round(res.at("mfu").at("value").get<double>() * 1000.0) == 346.0);
  CHECK(res.at("achieved").at("unit") == "FLOP/s");
  CHECK(res.at("time").at("formula").get<std::string>().rfind("t = GPU-hours / N_gpu", 0) == 0);
  CHECK(!res.contains("hfu"));
  CHECK(j.at("inputs").at("gpu_hours").get<double>() == 30.84e6);
  // stdout only: the layouts below do not fit and say so on stderr.
  const auto bare = napkin_test::run_shell(std::string(NAPKIN_BINARY) +
                                           " train --params 175B --tokens 300B --gpus 1024 --time 34d --json 2>/dev/null");
  REQUIRE(bare.code == 0);
  const auto b = specs::parse_json_text(bare.out, "output").at("results");
  CHECK(!b.contains("mfu"));
  CHECK_THAT(b.at("achieved").at("value").get<double>(), WithinRel(6.0 * 175e9 * 300e9 / (34.0 * 86400.0 * 1024.0), 1e-12));
  const auto tps = napkin_test::run_shell(std::string(NAPKIN_BINARY) +
                                          " train llama-3.1-8b --tokens 1T --hw h100-sxm --gpus 8 --recompute full "
                                          "--tokens-per-second 30k --json 2>/dev/null");
  REQUIRE(tps.code == 0);
  const auto t = specs::parse_json_text(tps.out, "output").at("results");
  CHECK(t.contains("hfu"));
  CHECK_THAT(t.at("hfu").at("value").get<double>() / t.at("mfu").at("value").get<double>(), WithinRel(8.0 / 6.0, 1e-12));
}

TEST_CASE("a swept --gpus gives one result set per GPU count, time halving as GPUs double", "[train][cli]") {
  const auto r =
      run_napkin("train llama-3.1-8b --tokens 1T --hw h100-sxm --gpus 64,128 --tp 1 --zero 3 --recompute full --mfu 0.4 --json");
  REQUIRE(r.code == 0);
  const auto j = specs::parse_json_text(r.out, "output");
  REQUIRE(j.is_array());
  REQUIRE(j.size() == 2);
  const double t64 = j[0].at("results").at("time").at("value").get<double>();
  const double t128 = j[1].at("results").at("time").at("value").get<double>();
  CHECK_THAT(t64 / t128, WithinRel(2.0, 1e-12));
  CHECK(j[1].at("inputs").at("dp").get<double>() == 128.0);
  CHECK(j[1].at("results").at("fits").at("value").get<bool>());
}

TEST_CASE("a given layout that does not fit gets no time, exit 1 and the flags that help on stderr", "[train][cli]") {
  // tp 1 × dp 8 without ZeRO: 161 GB per GPU on an 80 GB H100.
  const auto r = run_napkin("train llama-3.1-8b --tokens 1T --hw h100-sxm --gpus 8 --tp 1 --json");
  CHECK(r.code == 1);
  CHECK(r.out.find("napkin: warning: the ledger needs ") != std::string::npos);
  CHECK(r.out.find("raise --zero, --tp or --pp, use --recompute") != std::string::npos);
  CHECK(r.out.find("napkin: fit failed: per GPU ") != std::string::npos);
  CHECK(r.out.find("\"time\"") == std::string::npos);
  CHECK(r.out.find("\"fits\":{\"value\":false") != std::string::npos);
  // Nor an MFU, a step model or a price among the assumptions: they would describe a time not given.
  CHECK(r.out.find("\"utilization\"") == std::string::npos);
  CHECK(r.out.find("\"step_model\"") == std::string::npos);
}

TEST_CASE("train without a layout takes the fastest layout that fits and says so", "[train][cli]") {
  // Issue 30's case: 8B on 8 H100s, where the default tp 1 × dp 8 without ZeRO needs 161 GB per GPU.
  const auto r = run_napkin("train llama-3.1-8b --tokens 1T --hw h100 --gpus 8 --json");
  REQUIRE(r.code == 0);
  const auto j = specs::parse_json_text(r.out, "output");
  CHECK(j.at("results").at("fits").at("value").get<bool>());
  CHECK(j.at("results").contains("expected_step_time"));
  CHECK(j.at("results").contains("time"));
  bool said = false;
  for (const auto& a : j.at("assumptions"))
    if (a.at("key") == "layout") said = a.at("text").get<std::string>().find("the fastest layout that fits") != std::string::npos;
  CHECK(said);
  // The time is the step model's: tokens / expected tokens per second.
  CHECK_THAT(j.at("results").at("tokens_per_second").at("value").get<double>(),
             WithinRel(j.at("results").at("expected_tokens_per_second").at("value").get<double>(), 1e-9));
}

TEST_CASE("recomputation adds a forward pass: palm 8·N + 16·L·H·Q·T, megatron selective + 4·s·l·h per token",
          "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("gpt3-175b");
  TrainInput in = gpt3_run();
  const double tok = 300e9, l = 96, h = 12288, s = 2048;
  const double n = static_cast<double>(count_params(m).active);
  in.formula = FlopsFormula::palm;
  CHECK_THAT(train(m, in).flops.total().in(flop), WithinRel((8.0 * n + 16.0 * l * h * s) * tok, 1e-12));
  in.memory.recompute = Recompute::selective;
  CHECK_THAT(train(m, in).flops.total().in(flop), WithinRel((6.0 * n + 16.0 * l * h * s) * tok, 1e-12));
  in.formula = FlopsFormula::megatron;
  in.vocab = 51200.0 * one;
  const double none = 72.0 * tok * l * h * h * (1.0 + s / (6.0 * h) + 51200.0 / (12.0 * l * h));
  CHECK_THAT(train(m, in).flops.total().in(flop), WithinRel(none + 4.0 * tok * s * l * h, 1e-12));
  in.memory.recompute = Recompute::none;
  CHECK_THAT(train(m, in).flops.total().in(flop), WithinRel(none, 1e-12));
}

TEST_CASE("the overview lists train", "[train][cli]") {
  const auto r = run_napkin("--help");
  CHECK(r.out.find("\n  train            time, GPU-hours, kWh, cost, memory  napkin train ") != std::string::npos);
}

TEST_CASE("a bare --params count trains by 6PD with a model-states ledger", "[train]") {
  TrainInput in;
  in.params = 70e9 * param;
  in.tokens = 2e12 * token;
  in.gpus = 1024.0 * one;
  in.memory.tp = 8.0 * one;
  in.memory.states.zero_stage = 1;
  in.peak = 989.0 * TFLOP_per_s;
  in.mfu = 0.5;
  const TrainEstimate r = train_params(in);
  CHECK_THAT(r.flops.total().in(flop), WithinRel(6.0 * 70e9 * 2e12, 1e-12));
  CHECK_THAT(r.time.in(second), WithinRel(6.0 * 70e9 * 2e12 / (1024.0 * 989e12 * 0.5), 1e-12));
  // 70e9 / 8 params per GPU: bf16 weights and gradients, fp32 master and Adam sharded over dp = 128,
  // then the same runtime reserve as a model's ledger (512 MiB CUDA context + 5% fragmentation).
  const double states = 70e9 / 8 * (2 + 2 + 12.0 / 128);
  CHECK_THAT((r.memory.weights + r.memory.gradients + r.memory.master_weights + r.memory.optimizer_states).in(byte),
             WithinRel(states, 1e-12));
  CHECK(r.memory.runtime_reserve.in(byte) == std::ceil(512.0 * 1048576 + 0.05 * states));
  CHECK(r.memory.activations.in(byte) == 0.0);
  ResultSet rs;
  train_params(in, rs);
  CHECK(rs.find("per_gpu") != nullptr);
  CHECK(rs.find("time") != nullptr);
  for (const auto& a : rs.assumptions) CHECK_NOTHROW(cli::flag_for_assumption(a.key));
  in.formula = FlopsFormula::palm;
  CHECK_THROWS_WITH(train_params(in), "flops_formula: 'palm': expected 6pd for a bare --params (palm and megatron "
                                      "read layers and widths from a MODEL)");
}

// ---- which P (issue 11) ----------------------------------------------------------------------------

TEST_CASE("6pd's P is the non-embedding count by default: Llama 3.1 8B on 15T is 6.28e23, 7.23e23 with the total",
          "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  const ParamCount pc = count_params(m);
  CHECK(pc.total == 8030261248);
  CHECK(pc.embedding == 2 * 128256 * 4096);
  TrainInput in;
  in.tokens = 15e12 * token;
  in.gpus = 1024.0 * one;
  in.memory.seq = 4096.0 * one;
  in.peak = 989.5 * TFLOP_per_s;
  ResultSet rs;
  train(m, in, rs);
  const double ne = 6.0 * static_cast<double>(pc.total - pc.embedding) * 15e12;
  CHECK(rs.find("training_flops")->value.num == ne);
  CHECK_THAT(ne, WithinRel(6.282e23, 1e-3));
  const std::string a = all_assumptions(rs);
  CHECK(a.find("P = 6.98B params, the non-embedding count (total 8.03B params − 1.05B params embeddings and head): "
               "the default, the course notes' P (7.3: \"P = main non-embedding dense parameters\")") !=
        std::string::npos);
  // The last note (the memory ledger's saved-tensor table comes first).
  REQUIRE(!rs.notes.empty());
  const std::string note = report::expand(rs, rs.notes.back());
  CHECK(note.find("with the total count, P = 8.03B params") != std::string::npos);
  CHECK(note.find("C = 722.72 ZFLOP") != std::string::npos);
  CHECK(note.find("3.8e25") != std::string::npos);
  // --params-count total: the other way round.
  in.params_count = ParamsCount::total;
  ResultSet t;
  train(m, in, t);
  CHECK(t.find("training_flops")->value.num == 6.0 * 8030261248.0 * 15e12);
  CHECK(all_assumptions(t).find("P = 8.03B params, the total count, embeddings and head (1.05B params) included: "
                                "--params-count total") != std::string::npos);
  CHECK(report::expand(t, t.notes.back()).find("with the non-embedding count, P = 6.98B params") != std::string::npos);
}

TEST_CASE("MoE: P is the active path's non-embedding part (active − embedding), or the active total", "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("mixtral-8x7b");
  const ParamCount pc = count_params(m);
  TrainInput in;
  in.tokens = 1e12 * token;
  in.memory.seq = 4096.0 * one;
  in.peak = 989.5 * TFLOP_per_s;
  ResultSet rs;
  train(m, in, rs);
  CHECK(rs.find("training_flops")->value.num == 6.0 * static_cast<double>(pc.active - pc.embedding) * 1e12);
  CHECK(all_assumptions(rs).find("the active non-embedding count (active 12.88B params − 262.14M params embeddings "
                                 "and head; MoE") != std::string::npos);
  in.params_count = ParamsCount::total;
  CHECK(train(m, in).flops.total().in(flop) == 6.0 * static_cast<double>(pc.active) * 1e12);
}

TEST_CASE("P given by --params leaves --params-count nothing to choose; megatron counts its own", "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainInput in;
  in.tokens = 1e12 * token;
  in.memory.seq = 4096.0 * one;
  in.peak = 989.5 * TFLOP_per_s;
  in.params = 8e9 * param;
  in.params_count = ParamsCount::total;
  CHECK_THROWS_WITH(train(m, in), "params_count: 'total': expected either --params P or --params-count, not both "
                                  "(--params gives P: there is no count to choose)");
  CHECK_THROWS_AS(train_params(in), InputError);
  in.params.reset();
  in.formula = FlopsFormula::megatron;
  CHECK_THROWS_WITH(train(m, in), Catch::Matchers::StartsWith("params_count: 'total': expected --flops-formula 6pd "
                                                              "or palm"));
  CHECK(parse_params_count("non-embedding", "x") == ParamsCount::non_embedding);
  CHECK_THROWS_AS(parse_params_count("embedding", "x"), InputError);
}

TEST_CASE("train --params-count on the command line: the input, the flag and the refusals", "[train][cli]") {
  auto r = run_napkin("train llama-3.1-8b --tokens 15T --hw h100-sxm --gpus 1024 --json");
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  CHECK(j["inputs"]["params_count"] == "non-embedding");
  CHECK(j["results"]["training_flops"]["value"].get<double>() == 6.0 * (8030261248.0 - 2.0 * 128256 * 4096) * 15e12);
  bool flagged = false;
  for (const auto& a : j["assumptions"])
    if (a["key"] == "params_count") flagged = a["flag"] == "--params-count";
  CHECK(flagged);
  r = run_napkin("train llama-3.1-8b --tokens 15T --hw h100-sxm --params 8B --params-count total");
  CHECK(r.code == 2);
  CHECK(r.out.rfind("napkin: error: --params-count: 'total': expected either --params P or --params-count", 0) == 0);
}

// ---- the run's shape (issue 11) ---------------------------------------------------------------------

TEST_CASE("a run's shape: a rank without a sequence is refused, a run shorter than a step warned about", "[train]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-8b");
  TrainInput in;
  in.tokens = 15e12 * token;
  in.memory.seq = 4096.0 * one;
  in.peak = 989.5 * TFLOP_per_s;
  in.tokens = 0.5 * token;
  CHECK_THROWS_WITH(train(m, in), Catch::Matchers::StartsWith("tokens: '0.5': expected at least 1 token"));
  in.tokens = 100.0 * token;
  CHECK_THROWS_WITH(train(m, in), "tokens: '100': expected at least one sequence of seq = 4096 tokens (--seq for "
                                  "shorter ones)");
  // 1M tokens are 244 whole sequences of 4096: at most 244 data-parallel ranks.
  in.tokens = 1e6 * token;
  in.gpus = 245.0 * one;
  CHECK_THROWS_WITH(train(m, in), Catch::Matchers::StartsWith("gpus: '245': expected at most 244 GPUs"));
  in.gpus = 244.0 * one;
  ResultSet ok;
  CHECK_NOTHROW(train(m, in, ok));
  CHECK(ok.warnings.empty());  // 244 · 4096 = 999,424 ≤ 1M: one full step
  in.gpus.reset();
  in.dp = 245.0 * one;
  CHECK_THROWS_WITH(train(m, in), Catch::Matchers::StartsWith("dp: '245': expected at most 244 ranks"));
  // 200 ranks of 2 sequences: 1.64M tokens a step, more than the run.
  in.dp = 200.0 * one;
  in.memory.micro_batch = 2.0 * one;
  ResultSet rs;
  train(m, in, rs);
  REQUIRE(rs.warnings.size() >= 1);
  CHECK(report::expand(rs, rs.warnings[0]).rfind("the run is shorter than one optimizer step: 1.00M tokens < dp · "
                                                 "micro-batch · seq = 200 · 2 · 4096 = 1.64M tokens per step",
                                                 0) == 0);
}

TEST_CASE("warnings: ZeRO over one rank (bare --params), sequence parallelism at tp 1, a cluster beyond any built",
          "[train]") {
  TrainInput in;
  in.tokens = 1e12 * token;
  in.memory.seq = 4096.0 * one;
  in.peak = 989.5 * TFLOP_per_s;
  in.params = 8e9 * param;
  in.memory.states.zero_stage = 1;
  in.memory.sequence_parallel = true;
  ResultSet rs;
  train_params(in, rs);
  std::string w;
  for (const auto& t : rs.warnings) w += report::expand(rs, t) + "\n";
  CHECK(w.find("--zero 1 with --dp 1 shards over one rank: nothing is saved") != std::string::npos);
  CHECK(w.find("--sequence-parallel at --tp 1 splits nothing") != std::string::npos);
  in.tokens = 1e30 * token;
  in.gpus = 2e6 * one;
  ResultSet big;
  train_params(in, big);
  w.clear();
  for (const auto& t : big.warnings) w += report::expand(big, t) + "\n";
  CHECK(w.find("more GPUs than any cluster built") != std::string::npos);
  CHECK(w.find("--zero 1 with --dp 1") == std::string::npos);  // dp = 2e6 now
}
