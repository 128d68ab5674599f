// The layouts published training runs use (issue 30): Megatron-LM's uneven pipeline stages
// (--first-stage-layers / --last-stage-layers) and Megatron-Core's expert tensor parallelism
// (--etp), in shard_stages and the training ledger.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/parallel.h"
#include "napkin/specs/presets.h"
#include "run_napkin.h"

using namespace napkin;
using namespace napkin::units;

namespace {
// The JSON on stdout, between the warnings on stderr the capture may hold before and after it.
nlohmann::json doc(const std::string& out) {
  const auto first = out.find('{');
  return nlohmann::json::parse(out.substr(first, out.rfind('}') - first + 1));
}
double result(const std::string& out, const char* key) { return doc(out)["results"][key]["value"].get<double>(); }
// plan train's JSON list on stdout.
nlohmann::json plans(const std::string& out) {
  const auto first = out.find('[');
  return nlohmann::json::parse(out.substr(first, out.rfind(']') - first + 1));
}
}  // namespace

// ---- uneven pipeline stages -------------------------------------------------------------------

TEST_CASE("Llama 3 405B's pipeline: 126 layers over 16 stages, 7 on the first and last, 8 on each of the 14 between",
          "[layouts][pipeline]") {
  // Llama 3 paper (Dubey et al. 2024), §3.3.2: one layer fewer on the first and last stages.
  std::vector<std::int64_t> expected(16, 8);
  expected.front() = 7;
  expected.back() = 7;
  CHECK(stage_layer_counts(126, 16, 7, 7) == expected);

  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-405b");
  REQUIRE(m.layers == 126);
  const ParamCount c = count_params(m);
  const auto stages = shard_stages(m, c, ShardLayout{.pp = 16 * one, .first_stage_layers = 7 * one,
                                                     .last_stage_layers = 7 * one});
  REQUIRE(stages.size() == 16);
  double params = 0;
  std::int64_t next = 0;
  for (std::size_t s = 0; s < stages.size(); ++s) {
    CHECK(stages[s].layers == expected[s]);
    CHECK(stages[s].first_layer == next);
    next += stages[s].layers;
    params += stages[s].params;
  }
  CHECK(next == 126);
  CHECK(params == static_cast<double>(c.total));  // at TP 1 every parameter sits on one stage
  CHECK(stages.front().has_embedding);
  CHECK(stages.back().has_head);
}

TEST_CASE("uneven stages: one end given, the stages left share the layers left evenly", "[layouts][pipeline]") {
  CHECK(stage_layer_counts(32, 4, std::nullopt, 5) == std::vector<std::int64_t>{9, 9, 9, 5});
  CHECK(stage_layer_counts(32, 4, 2, std::nullopt) == std::vector<std::int64_t>{2, 10, 10, 10});
  // --pp 2 with both ends: no stage between, so they must hold every layer (Megatron's "Mismatch").
  CHECK(stage_layer_counts(32, 2, 15, 17) == std::vector<std::int64_t>{15, 17});
  // Neither: the balanced split, unchanged (the first L mod pp stages one more).
  CHECK(stage_layer_counts(126, 16) == std::vector<std::int64_t>{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7, 7});
}

TEST_CASE("uneven stages Megatron-LM refuses are refused, naming the flag", "[layouts][pipeline]") {
  // 126 − 8 − 8 = 110 layers do not split over 14 stages.
  CHECK_THROWS_WITH(stage_layer_counts(126, 16, 8, 8),
                    "--first-stage-layers: '8': expected a count with --last-stage-layers 8 that leaves the 14 other "
                    "stage(s) an equal whole share, at least one layer each, of the model's 126 layers (110 left; "
                    "Megatron-LM's uneven split divides the layers left by the stages left)");
  // Layers left with no stage between the two ends, and more layers given than the model has.
  CHECK_THROWS_WITH(stage_layer_counts(32, 2, 15, 15),
                    "--first-stage-layers: '15': expected the model's 32 layers between the first and last stages "
                    "with --last-stage-layers 15 (--pp 2 has no stage between them; Megatron-LM: layers left need "
                    "stages left)");
  CHECK_THROWS_AS(stage_layer_counts(32, 4, 30, 30), InputError);
  CHECK_THROWS_AS(stage_layer_counts(32, 4, std::nullopt, 30), InputError);  // 2 left for 3 stages
  CHECK_THROWS_WITH(stage_layer_counts(32, 1, 32, std::nullopt),
                    "--first-stage-layers: '32': expected --pp 2 or more with it (a pipeline's first stage; --pp is 1)");
  CHECK_THROWS_WITH(stage_layer_counts(32, 4, std::nullopt, 0), "--last-stage-layers: '0': expected a positive integer");

  const specs::ModelSpec bare = specs::bare_model(8'000'000'000);
  CHECK_THROWS_WITH(shard_stages(bare, count_params(bare), ShardLayout{.pp = 2 * one, .first_stage_layers = 1 * one}),
                    "--first-stage-layers: '1': expected a MODEL architecture (a bare --params has no layers to place)");
}

namespace {
// Llama 3.1 405B at PP 16, 8Ki tokens, with the first and last stages' layers given (or not).
TrainingMemoryInput llama405_pp16(std::optional<double> first, std::optional<double> last) {
  TrainingMemoryInput in;
  in.seq = 8192.0 * one;
  in.pp = 16.0 * one;
  if (first) in.first_stage_layers = *first * one;
  if (last) in.last_stage_layers = *last * one;
  return in;
}
}  // namespace

TEST_CASE("interleaving with uneven stages: chunks of ⌈L/M⌉ and ⌊L/M⌋ layers, the embedding's first and the loss's last "
          "the lighter, a chunk without a layer refused elsewhere",
          "[layouts][pipeline]") {
  StageShard first, middle, last;
  first.layers = last.layers = 7;
  first.has_embedding = true;
  last.has_head = true;
  middle.layers = 8;
  // Megatron-Bridge's accounting for Llama 3.1 405B at pp 16 × vp 8: the embedding's chunk and the
  // loss's hold no layer, every other chunk one.
  CHECK(chunk_layers(first, 8) == std::vector<std::int64_t>{0, 1, 1, 1, 1, 1, 1, 1});
  CHECK(chunk_layers(last, 8) == std::vector<std::int64_t>{1, 1, 1, 1, 1, 1, 1, 0});
  CHECK(chunk_layers(middle, 8) == std::vector<std::int64_t>(8, 1));
  CHECK(chunk_layers(first, 2) == std::vector<std::int64_t>{3, 4});
  CHECK(chunk_layers(last, 2) == std::vector<std::int64_t>{4, 3});
  middle.layers = 6;
  CHECK_FALSE(chunkable(middle, 8));
  CHECK_THROWS_WITH(chunk_layers(middle, 8), Catch::Contains("--virtual-stages: '8': expected at most a stage's "
                                                             "layers (a stage holds 6"));
  first.layers = 6;  // two chunks without a layer: only one slot is the embedding's
  CHECK_FALSE(chunkable(first, 8));

  // The ledger counts the in-flight chunks' layers one by one. 126 layers over pp 4 as the
  // accounting splits them, 31 + 32 + 32 + 31, vp 4: stage 0's chunks 7, 8, 8, 8. Its warm-up
  // holds (4 − 0 − 1)·2 + (4 − 1)·4 + 1 = 19 chunk forwards in Megatron-LM's order (groups of p
  // per chunk): 4 of chunk 0, 4 each of chunks 1-3, then 3 of chunk 0 again = 7·7 + 12·8 = 145
  // layers. Without interleaving (32, 32, 31, 31) stage 0 holds 4 micro-batches of 32 = 128.
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-405b");
  TrainingMemoryInput in;
  in.seq = 8192.0 * one;
  in.pp = 4.0 * one;
  in.tp = 8.0 * one;
  in.sequence_parallel = true;
  const TrainingMemory plain = training_memory(m, in);
  in.first_stage_layers = 31.0 * one;
  in.last_stage_layers = 31.0 * one;
  in.virtual_stages = 4.0 * one;
  const TrainingMemory interleaved = training_memory(m, in);
  REQUIRE(plain.stage == 0);
  REQUIRE(interleaved.stage == 0);
  CHECK(interleaved.activations.in(byte) == Approx(plain.activations.in(byte) * 145.0 / 128.0).epsilon(1e-12));
  // Partial recomputation picks layers per chunk, which uneven chunks leave open: refused.
  in.recompute_layers = 2.0 * one;
  CHECK_THROWS_WITH(training_memory(m, in), Catch::Contains("--recompute-layers: '2': expected equal model chunks"));
}

TEST_CASE("plan train splits 126 layers over pp 16 as Megatron-Bridge accounts the embedding and the loss, 7 + 14 × 8 "
          "+ 7, and interleaves it",
          "[layouts][pipeline][cli]") {
  const auto plan = napkin_test::run_napkin(
      "plan train llama-3.1-405b --hw h100-sxm --gpus 16384 --tokens 1T --seq 8192 --global-batch 2048 --tp 8 "
      "--pp 16 --cp 1 --top 1 --json");
  REQUIRE(plan.code == 0);
  const nlohmann::json d = plans(plan.out);
  CHECK(d[0]["inputs"]["first_stage_layers"].get<double>() == 7.0);
  CHECK(d[0]["inputs"]["last_stage_layers"].get<double>() == 7.0);
  CHECK(d[0]["inputs"]["virtual_stages"].get<double>() == 8.0);
}

TEST_CASE("Llama 3 405B's split moves the fullest stage: stage 0 holds 16 micro-batches of 7 layers, not 8",
          "[layouts][pipeline]") {
  const specs::ModelSpec m = specs::load_model_preset("llama-3.1-405b");
  TrainingMemoryInput in = llama405_pp16(std::nullopt, std::nullopt);
  in.tp = 8.0 * one;
  in.sequence_parallel = true;
  in.states.zero_stage = 1;
  in.states.dp = 8.0 * one;
  const TrainingMemory balanced = training_memory(m, in);
  in.first_stage_layers = 7.0 * one;
  in.last_stage_layers = 7.0 * one;
  const TrainingMemory uneven = training_memory(m, in);
  // Balanced, stage 0 holds 8 layers and the embedding with 16 micro-batches in flight; uneven,
  // stage 0 has 7 and stage 1 (8 layers, 15 in flight) is the fullest.
  CHECK(balanced.stage == 0);
  CHECK(uneven.stage == 1);
  CHECK(uneven.per_gpu() < balanced.per_gpu());
  CHECK(uneven.activations.in(byte) == Approx(balanced.activations.in(byte) * 15.0 / 16.0).epsilon(1e-12));
}

// ---- expert tensor parallelism ----------------------------------------------------------------

// Qwen3-235B-A22B: 94 MoE layers of 128 routed experts, each a gated MLP of 3 · 4096 · 1536
// weights (config.json: hidden_size 4096, moe_intermediate_size 1536, num_experts 128). Routed
// parameters: 94 · 128 · 3 · 4096 · 1536 = 227,096,395,776.
//   EP 32, ETP 1: 227,096,395,776 / 32      = 7,096,762,368 per GPU
//   EP 32, ETP 2: 227,096,395,776 / (32 · 2) = 3,548,381,184 per GPU (ETP = TP 2, napkin's rule before --etp)
constexpr double kQwen3Routed = 94.0 * 128.0 * 3.0 * 4096.0 * 1536.0;

TEST_CASE("ETP splits each routed expert over etp ranks: Qwen3-235B-A22B at TP 2, EP 32 holds 7.10B expert params "
          "per GPU at ETP 1 and 3.55B at ETP = TP",
          "[layouts][etp]") {
  const specs::ModelSpec m = specs::load_model_preset("qwen3-235b-a22b");
  REQUIRE(kQwen3Routed == 227096395776.0);
  const ParamCount c = count_params(m);
  const auto etp1 = shard_stages(m, c, ShardLayout{.tp = 2 * one, .ep = 32 * one, .etp = 1 * one});
  const auto etp2 = shard_stages(m, c, ShardLayout{.tp = 2 * one, .ep = 32 * one, .etp = 2 * one});
  const auto old = shard_stages(m, c, 2 * one, 1 * one, 32 * one);
  CHECK(etp1[0].expert_params == 7096762368.0);
  CHECK(etp2[0].expert_params == 3548381184.0);
  CHECK(old[0].expert_params == etp2[0].expert_params);  // ETP defaults to TP
  CHECK(old[0].params == etp2[0].params);
  // The rest (attention, norms, router, embedding, head) still splits over TP 2.
  CHECK(etp1[0].params - etp1[0].expert_params == etp2[0].params - etp2[0].expert_params);
  // --etp on a dense model is refused.
  const specs::ModelSpec dense = specs::load_model_preset("llama-3.1-8b");
  CHECK_THROWS_WITH(shard_stages(dense, count_params(dense), ShardLayout{.etp = 1 * one}),
                    "--etp: '1': expected a mixture-of-experts model with it (expert tensor parallelism splits routed "
                    "experts; llama-3.1-8b has none)");
}

namespace {
TrainingMemoryInput qwen3_run(double dp, std::optional<double> etp) {
  TrainingMemoryInput in;
  in.seq = 4096.0 * one;
  in.tp = 2.0 * one;
  in.sequence_parallel = true;
  in.recompute = Recompute::full;
  in.ep = 32.0 * one;
  if (etp) in.etp = *etp * one;
  in.states.zero_stage = 1;
  in.states.dp = dp * one;
  return in;
}
}  // namespace

TEST_CASE("ETP lays EP × ETP over tp·cp·dp: Qwen3-235B-A22B at TP 2, EP 32, ETP 1, DP 16 (32 GPUs) is a layout; "
          "without --etp EP 32 must divide DP",
          "[layouts][etp]") {
  const specs::ModelSpec m = specs::load_model_preset("qwen3-235b-a22b");
  // 2 · 1 · 16 = 32 ranks per stage = EP 32 × ETP 1: expert data-parallel size 1.
  const TrainingMemory r = training_memory(m, qwen3_run(16, 1.0));
  // Expert optimizer states unsharded (8 B · 7,096,762,368), the rest over dp 16.
  const auto st = shard_stages(m, count_params(m), ShardLayout{.tp = 2 * one, .ep = 32 * one, .etp = 1 * one});
  const double dense = std::ceil(st[0].params - st[0].expert_params);
  CHECK(r.optimizer_states.in(byte) == std::ceil(8.0 * dense / 16.0) + 8.0 * 7096762368.0);
  CHECK_THROWS_WITH(training_memory(m, qwen3_run(16, std::nullopt)),
                    "--ep: '32': expected a divisor of --dp 16 (expert-parallel ranks are data-parallel ranks)");
  CHECK_THROWS_WITH(training_memory(m, qwen3_run(16, 2.0)),
                    "--etp: '2': expected a degree with --ep 32 · --etp 2 dividing --tp · --cp · --dp = 32 "
                    "(Megatron-Core lays the expert ranks over a stage's tensor-, context- and data-parallel ranks)");
}

TEST_CASE("expert ZeRO shards over tp·cp·dp / (ep·etp): at DP 32 ETP 1 halves the expert states ETP 2 keeps whole",
          "[layouts][etp]") {
  const specs::ModelSpec m = specs::load_model_preset("qwen3-235b-a22b");
  // DP 32: 64 ranks per stage. ETP 1: 7,096,762,368 expert params per GPU, states over 64 / 32 = 2;
  // ETP 2: 3,548,381,184 per GPU, states over 64 / 64 = 1. Either way the optimizer holds
  // 8 B · 227,096,395,776 / 64 = 28,387,049,472 B of expert states; the 16-bit weights differ by
  // 2 B · (7,096,762,368 − 3,548,381,184) = 7,096,762,368 B.
  const TrainingMemory etp1 = training_memory(m, qwen3_run(32, 1.0));
  const TrainingMemory etp2 = training_memory(m, qwen3_run(32, 2.0));
  const TrainingMemory old = training_memory(m, qwen3_run(32, std::nullopt));
  CHECK(etp1.optimizer_states == etp2.optimizer_states);
  CHECK(etp1.weights.in(byte) - etp2.weights.in(byte) == 7096762368.0);
  const auto st = shard_stages(m, count_params(m), ShardLayout{.tp = 2 * one, .ep = 32 * one, .etp = 1 * one});
  const double dense = std::ceil(st[0].params - st[0].expert_params);
  CHECK(etp1.optimizer_states.in(byte) == std::ceil(8.0 * dense / 32.0) + 28387049472.0);
  // --etp equal to --tp is today's ledger to the byte.
  CHECK(old.per_gpu() == etp2.per_gpu());
  CHECK(old.total == etp2.total);
}

TEST_CASE("context parallelism with EP: the expert ranks span data- and context-parallel ranks (ep divides cp·dp at ETP = TP)",
          "[layouts][etp][cp]") {
  const specs::ModelSpec m = specs::load_model_preset("mixtral-8x7b");
  TrainingMemoryInput in;
  in.seq = 8192.0 * one;
  in.ep = 8.0 * one;
  in.cp = 2.0 * one;
  in.states.zero_stage = 1;
  in.states.dp = 4.0 * one;  // 8 | 2 · 4: expert data-parallel size 1
  const TrainingMemory r = training_memory(m, in);
  in.cp = 1.0 * one;
  in.states.dp = 8.0 * one;  // the same 8 ranks as data parallelism: the same model states
  const TrainingMemory dp8 = training_memory(m, in);
  CHECK(r.optimizer_states == dp8.optimizer_states);
  CHECK(r.activations.in(byte) == Approx(dp8.activations.in(byte) / 2.0).epsilon(1e-12));
  in.cp = 2.0 * one;
  in.states.dp = 2.0 * one;  // 8 does not divide 2 · 2
  CHECK_THROWS_WITH(training_memory(m, in), "--ep: '8': expected a divisor of --dp · --cp = 4 (with --etp at --tp, "
                                            "expert-parallel ranks are data- and context-parallel ranks)");
}

TEST_CASE("memory --train and train take --etp and the stage flags: the Qwen3 layout refused before runs",
          "[layouts][cli]") {
  const std::string layout = " --tp 2 --ep 32 --seq 4096 --zero 1 --recompute full --sequence-parallel --json";
  const auto refused = napkin_test::run_napkin("memory qwen3-235b-a22b --train --dp 16" + layout);
  CHECK(refused.code == 2);
  CHECK_THAT(refused.out, Catch::Contains("--ep: '32': expected a divisor of --dp 16"));
  const auto mem = napkin_test::run_napkin("memory qwen3-235b-a22b --train --dp 16 --etp 1" + layout);
  REQUIRE(mem.code <= 1);
  CHECK(doc(mem.out)["inputs"]["etp"].get<double>() == 1.0);
  const auto alias =
      napkin_test::run_napkin("memory qwen3-235b-a22b --train --dp 16 --expert-tensor-parallel-size 1" + layout);
  CHECK(alias.out == mem.out);
  // train: 32 GPUs = tp 2 · pp 1 · cp 1 · dp 16.
  const auto run = napkin_test::run_napkin("train qwen3-235b-a22b --tokens 1T --hw h100-sxm --gpus 32 --etp 1" + layout);
  REQUIRE(run.code <= 1);
  CHECK(doc(run.out)["inputs"]["dp"].get<double>() == 16.0);
  CHECK(result(run.out, "per_gpu") == result(mem.out, "per_gpu"));

  const auto llama = napkin_test::run_napkin(
      "memory llama-3.1-405b --train --tp 8 --pp 16 --dp 8 --seq 8192 --sequence-parallel --zero 1 "
      "--first-stage-layers 7 --decoder-last-pipeline-num-layers 7 --json");
  REQUIRE(llama.code <= 1);
  CHECK(doc(llama.out)["inputs"]["first_stage_layers"].get<double>() == 7.0);
  CHECK(doc(llama.out)["inputs"]["last_stage_layers"].get<double>() == 7.0);
  const auto inference = napkin_test::run_napkin("memory llama-3.1-405b --pp 16 --first-stage-layers 7");
  CHECK(inference.code == 2);
  CHECK_THAT(inference.out, Catch::Contains("--first-stage-layers 7 is a training-ledger option"));
}

TEST_CASE("plan train with --etp lays EP over tp·cp·dp: DeepSeek-V3 at TP 2 × PP 16 × DP 32 takes EP 64 at ETP 1, "
          "which EP-over-DP refuses",
          "[layouts][cli]") {
  const std::string run =
      "plan train deepseek-v3 --hw h100-sxm --gpus 1024 --tokens 1T --seq 4096 --global-batch 8192 --tp 2 --pp 16 "
      "--ep 64 --micro-batch 1 --recompute full --top 1 --json";
  const auto refused = napkin_test::run_napkin(run);
  CHECK(refused.code == 2);
  const auto plan = napkin_test::run_napkin(run + " --etp 1");
  REQUIRE(plan.code == 0);
  const nlohmann::json d = plans(plan.out);
  CHECK(d[0]["inputs"]["ep"].get<double>() == 64.0);
  CHECK(d[0]["inputs"]["etp"].get<double>() == 1.0);
  CHECK(d[0]["inputs"]["dp"].get<double>() == 32.0);
}
