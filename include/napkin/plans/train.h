// Training a model on a cluster, end to end: the FLOP count (three conventions), the time at a
// utilisation or an achieved rate, GPU-hours, energy, facility energy, cost, CO2, and the
// per-GPU memory ledger of the parallel layout (training_memory, memory/ledgers.h).
//
//   FLOP      6pd       C = 6·P·D_tok                      (course notes 7.3)
//             palm      C = (6·N + 12·L·H·Q·T)·D_tok       (Chowdhery et al. 2022, PaLM, app. B)
//             P and N are a MODEL's count on the active path (all of it for a dense model),
//             --params-count picks which: 6pd defaults to non-embedding, the course notes' P
//             ("P = main non-embedding dense parameters"); palm to total, PaLM's N (its 46.2%
//             MFU for 540B: 238.3k tokens/s · (6 · 540.35B + 12·118·48·256·2048) / (6144 chips ·
//             275 TFLOP/s) = 46.2% with the total 540.35B; the non-embedding 535.6B gives 45.8%).
//             megatron counts its own parameters from l, h and V (no choice to make).
//             megatron  C = 72·D_tok·l·h²·(1 + s/6h + V/12lh), 96·…·(1 + s/6h + V/16lh) with full
//                       recomputation (Narayanan et al. 2021, §5.1, eq. 3)
//             Full recomputation adds one forward pass (8PD: Narayanan et al. §5.1, "8TP").
//   time      t = C_model / (N_gpu · peak · MFU)    MFU counts model FLOP only (PaLM app. B), so
//                                                   recomputation lives inside the MFU figure;
//             t = C / (N_gpu · X)                   X an achieved per-GPU rate that counts every
//                                                   FLOP executed, recomputation included (as
//                                                   Narayanan et al.'s 140 TFLOP/s does).
//   inverse   what a run took instead of how fast it went (--tokens-per-second R, --gpu-hours H or
//             --time T): t = D_tok / R, t = H / N_gpu or t = T; then the achieved rate per GPU
//             X = C / (t · N_gpu) (every FLOP executed), MFU = C_model / (t · N_gpu · peak) (PaLM
//             app. B: PaLM 540B, 238.3k tokens/s on 6144 TPU v4 chips, is 45.7% with 6N and 46.2%
//             with the attention term; Llama 3 405B: 3.8e25 FLOP in 30.84M H100-hours is 34.6% of
//             989 TFLOP/s) and HFU = C / (t · N_gpu · peak) where recomputation adds work.
//   energy    E = P_IT · t, E_fac = PUE · E; cost = GPU-hours · price + E_fac · price/kWh;
//             CO2 = E_fac · carbon intensity (course notes 7.9, energy.h).
//
// Layout: gpus = tp · pp · dp. With gpus and no dp, dp = gpus / (tp · pp).
// Preconditions (InputError naming the input): tokens at least 1; 0 < mfu ≤ 1; mfu needs a peak;
// at most one of mfu, achieved, tokens_per_second, gpu_hours and time, each positive; an implied
// rate at most the peak; gpus consistent with tp · pp (· dp); power and node_power
// exclusive; prices and carbon intensity need a power figure; params and params_count exclusive,
// params_count not with megatron. The run's shape (train.cpp, check_run: one table of rules):
// every data-parallel rank gets at least one sequence (dp · seq ≤ tokens), else InputError;
// warnings for a run shorter than one optimizer step, more GPUs than any cluster built, ZeRO over
// one rank (bare --params), sequence parallelism at tp 1.
#pragma once

#include <optional>
#include <string_view>

#include "napkin/ground/result.h"
#include "napkin/ground/units.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/flops.h"
#include "napkin/model/model_spec.h"
#include "napkin/plans/train_step.h"

namespace napkin {

using TokenRate = Quantity<Dim<0, 0, -1, 0, 1, 0>>;            // tokens/s of the whole cluster

enum class FlopsFormula { six_pd, palm, megatron };

/// "6pd", "palm" or "megatron"; anything else is InputError naming `field`.
FlopsFormula parse_flops_formula(std::string_view text, std::string_view field);
std::string_view to_string(FlopsFormula f);

/// MFU used when neither an MFU nor an achieved rate is given. Large dense runs report 38-46%:
/// Llama 3 405B 38-43% (Llama 3 paper, §3.3.2, table 4), PaLM 540B 46.2% (PaLM, §4.1, table 3).
inline constexpr double kDefaultMfu = 0.4;

/// The default global batch when --global-batch is not given: max(4 Mi tokens, 1 Ki tokens per
/// GPU) per optimizer step, in whole sequences, rounded up to a multiple of dp × micro-batch.
/// Published runs: Llama 2 trained on 4M-token batches (Touvron et al. 2023, §2.2), Llama 3 405B on
/// 16M tokens over 16,384 GPUs (Llama 3 paper, §3.4.1 and table 4: 1 Ki tokens per GPU).
inline constexpr double kDefaultStepTokens = 4194304.0;
inline constexpr double kDefaultStepTokensPerGpu = 1024.0;

/// What the expected step time reads beyond the layout (train_step.h): the GPU's memory bandwidth,
/// serve's per-op efficiency for it, the links and how much of the traffic hides behind compute.
/// The texts say where each came from, for the assumptions, and outlive the ResultSet.
struct TrainSpeedModel {
  Bandwidth memory_bandwidth{};
  Efficiency efficiency{};
  Seconds layer_overhead{};            // serve's profile: per layer per pass
  std::optional<FlopRate> attention_peak{};  // FP8 runs: the bf16 peak attention computes at
  TrainLinks links{};
  double tp_comm_overlap = 0.0, dp_comm_overlap = 1.0;
  std::string_view efficiency_source{}, links_source{};
};

struct TrainInput {
  Tokens tokens{};
  FlopsFormula formula = FlopsFormula::six_pd;
  std::optional<Params> params{};  // P (6pd) or N (palm) instead of the model's count
  // Which of the model's counts is P or N (nullopt: the formula's default, see above).
  std::optional<ParamsCount> params_count{};
  std::optional<Count> vocab{};    // V of the megatron formula instead of the padded vocabulary
  std::optional<Count> gpus{};
  std::optional<Count> dp{};
  TrainingMemoryInput memory{};  // seq, micro-batch, tp, pp, ZeRO, precision, recompute, capacity
  std::optional<double> mfu{};
  std::optional<FlopRate> peak{};      // dense peak of one GPU at the training dtype
  std::optional<FlopRate> achieved{};  // per GPU, every FLOP executed
  // The inverse: what the run took, instead of mfu or achieved; MFU and the rate follow.
  std::optional<TokenRate> tokens_per_second{};  // training throughput of the whole cluster
  std::optional<double> gpu_hours{};             // N_gpu · t, in GPU-hours
  std::optional<Seconds> time{};                 // wall-clock time of the run
  std::string_view peak_dtype = "bf16";
  // The step model: expected_step_time and the rest beside the FLOP count; with no speed given
  // (mfu, achieved, the inverse) the time follows from it. nullopt: no step model (a bare count,
  // no hardware, no links for a multi-GPU layout); the default MFU then times the run.
  std::optional<TrainSpeedModel> speed{};
  std::optional<Count> global_batch{};  // sequences per optimizer step (default above)
  // The layout was chosen by the planner (train without a layout): the layouts it evaluated.
  std::int64_t searched_layouts = 0;
  std::optional<Watts> gpu_power{};   // average draw of one GPU
  std::optional<Watts> node_power{};  // average draw of one whole node
  Count gpus_per_node = 8.0 * units::one;
  double pue = 1.0;
  std::optional<UsdPerSecond> price_per_gpu_hour{};
  std::optional<UsdPerJoule> price_per_kwh{};
  std::optional<Co2PerJoule> carbon_intensity{};
  // Where the hardware figures came from, for the assumptions: the --hw name, or empty.
  std::string_view hardware{};
  bool peak_from_hw = false, power_from_hw = false;
};

struct TrainEstimate {
  TrainingFlops flops{};  // forward, backward and recomputation: every FLOP executed
  Flops model_flops{};    // forward + backward: what MFU counts
  Count gpus{}, dp{};
  double mfu = 0.0;       // used, or implied by an achieved rate (0 when no peak is known)
  double hfu = 0.0;       // every FLOP executed over time · peak (= mfu without recomputation)
  FlopRate achieved{};    // per GPU, every FLOP executed: C / (t · N_gpu)
  FlopRate rate{};        // the cluster rate the time divides by
  Seconds time{};
  double gpu_hours = 0.0;
  std::optional<Watts> it_power{};
  std::optional<Joules> energy{}, facility_energy{};
  std::optional<Usd> rental_cost{}, electricity_cost{}, cost{};
  std::optional<Co2> co2{};
  TrainingMemory memory{};
  double mfu_used = 0.0;  // the MFU the time divides by (given, default or expected)
  // The step model's answer (with in.speed and a peak):
  std::optional<TrainStep> step{};
  std::int64_t global_batch = 0;
  bool global_batch_default = false;
  double expected_mfu = 0.0;
  TokenRate expected_tokens_per_second{};
  bool time_from_step = false;  // no speed given: the time is the step model's
};

TrainEstimate train(const specs::ModelSpec& m, const TrainInput& in);
/// The memory ledger (training_memory's rows), then compute, time, GPU-hours, energy and cost.
/// The spec must outlive `out`.
void train(const specs::ModelSpec& m, const TrainInput& in, ResultSet& out);

/// A bare parameter count (in.params, required) instead of a model: 6pd only, and the memory
/// ledger holds the model states of P / (tp·pp) parameters per GPU (no activations).
TrainEstimate train_params(const TrainInput& in);
void train_params(const TrainInput& in, ResultSet& out);

}  // namespace napkin
