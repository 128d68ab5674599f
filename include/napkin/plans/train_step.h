// The expected step time of a training run on a parallel layout: a performance model beside the
// FLOP count (train.h), never instead of it. Per micro-batch on one GPU of the slowest pipeline stage:
//
//   compute   the forward pass of serve's per-op model (serve.h, training_forward_pass) at the
//             GPU's tokens b·s/cp, each op at max(C / (η_c(n)·R), Q / (η_bw·BW)) with serve's
//             calibrated efficiency (serve_expected.h: η_c(n) = η_c · n / (n + n½), n the op's rows:
//             tokens, or tokens·k·ep/E per routed expert); backward = 2× the GEMMs' FLOP and every
//             op's bytes, 2.5× fused attention's FLOP (FlashAttention-2's backward runs five
//             matmuls to the forward's two: Dao 2023, §3.1); recompute reruns what its policy drops
//             (full: the layers' forward; selective: core attention; op-sac: its matmuls).
//   TP        per layer, 2 collectives forward and 2 backward (+2 per recomputed forward) of
//             tokens·h·2 B: all-reduce, or all-gather + reduce-scatter under sequence parallelism,
//             both 2(t−1)/t · bytes / B_ring over the scale-up link (Megatron-LM, Narayanan et al.
//             2021 §3.3; Korthikanti et al. 2022 §4.2.2); with --tp-comm-overlap, that share of a
//             pass's traffic is pipelined behind the pass's dense GEMMs, up to their time.
//   EP        per MoE layer, dispatch and combine all-to-alls forward and backward of
//             tokens·k·h·2 B, (ep−1)/ep of it leaving the GPU: over the scale-up link for the
//             ranks in the GPU's domain, over the NIC for the rest (the slower part sets the time);
//             EP ranks tp · cp apart, or etp apart under expert tensor parallelism.
//   CP        ring attention: per attention layer, (cp−1)·tokens·(K+V width)·2 B sent forward and
//             twice that backward (dK, dV), hidden behind the attention op up to its time.
//   PP        1F1B: step = (m + (p−1)/v) · τ, τ the slowest stage's micro-batch time, m the
//             micro-batches of a step, v the virtual stages (Narayanan et al. 2021, §2.2.2: bubble
//             (p−1)/(v·m); uneven chunks, napkin/model/parallel.h chunk_layers: the largest chunk's
//             share of τ instead of 1/v); each micro-batch sends its activations forward and their gradient back
//             over every stage boundary, v times with interleaving.
//   DP        gradients reduced over the dp·cp ranks (experts over dp·cp/ep) in the reduce dtype,
//             the parameters gathered back in 2 B: all-reduce 2(n−1)/n·P·g (ZeRO 0), reduce-scatter
//             + all-gather (n−1)/n·P·(g + 2) (ZeRO 1; ZeRO 2 reduce-scatters every micro-batch), per
//             micro-batch two all-gathers and a reduce-scatter (ZeRO 3 / FSDP); hidden behind the
//             backward of the last micro-batch
//             (the gather behind the first forward; FSDP behind each micro-batch) up to
//             --dp-comm-overlap of it. Bus bandwidth: the scale-up link when the group is inside
//             one domain, else min(B_ring, n_local · B_nic), n_local the group's ranks per domain
//             (every GPU's own NIC carries its ring: nccl-tests' busbw across DGX nodes is 8 × the
//             per-NIC rate).
//   overlap   traffic hidden behind compute is not free: the compute beside it runs slower by
//             κ = kOverlapSlowdown of the hidden time (TP, CP and DP alike).
//   optimizer the update reads and writes each owned parameter's states, at η_bw·BW.
//
// Results per step: time, tokens/s = B·s / step, MFU = C_model / (step · N_gpu · R) with the
// train command's model FLOP. Every term is itemized (TrainStep) with what it assumed.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "napkin/ground/units.h"
#include "napkin/memory/ledgers.h"
#include "napkin/model/flops.h"
#include "napkin/model/model_spec.h"
#include "napkin/model/parallel.h"
#include "napkin/model/params.h"
#include "napkin/plans/serve.h"
#include "napkin/plans/serve_expected.h"

namespace napkin {

/// What a training step's GEMMs and attention reach of serve's calibrated η_c: fitted on the published
/// runs of data/training/runs.csv (scripts/validate-training, docs/training-validation.md: over 0.75-0.90
/// the median |error| moves between 7% and 10%, the 80th percentile from 23% at 0.80 to 33% at 0.88).
/// Training's GEMMs run transposed operands for the two backward products and accumulate weight
/// gradients in fp32, and a step runs kernels serve's prefill has no counterpart for (loss, casts,
/// gradient clipping); the fit puts them in this one share.
inline constexpr double kTrainingComputeShare = 0.80;

// A collective running beside compute slows it: the SMs its kernels hold, the HBM bandwidth they use.
// Over GPT and Llama training on A100, H100, MI250 and MI210, overlapped compute ran 18.9% slower on
// average than alone (Lee et al. 2025, "Characterizing Compute-Communication Overlap in
// GPU-Accelerated Distributed Deep Learning", arXiv:2507.03114, abstract: "an average computational
// slowdown of 18.9%, with a maximum of 40.0%"). Each second of traffic hidden behind compute costs
// this much compute time.
inline constexpr double kOverlapSlowdown = 0.189;

/// How a run's GPUs are joined, as collectives see it: bus bandwidths per GPU, each way.
struct TrainLinks {
  double domain = 8;          // GPUs one scale-up fabric joins (a node's NVLink, an NVL72 rack)
  Bandwidth scale_up{};       // ring collectives' bus bandwidth inside the domain
  Bandwidth scale_out{};      // one GPU's achieved share of the network across domains
};

/// A layout and its batch: what the step model and the planner's search vary.
struct TrainLayout {
  std::int64_t tp = 1, pp = 1, dp = 1, cp = 1, ep = 1, vp = 1;  // vp: virtual stages per rank
  int zero = 0;
  bool sp = false;  // sequence parallelism
  Recompute recompute = Recompute::none;
  std::int64_t recompute_layers = 0;
  std::int64_t micro_batch = 1;
  std::int64_t global_batch = 1;  // sequences per optimizer step
  std::int64_t seq = 4096;
  // The planner's uneven pipeline split (0: the default or the run's own): the first and last
  // stages' layers, as --first-stage-layers and --last-stage-layers give them.
  std::int64_t first_stage_layers = 0, last_stage_layers = 0;
  // Expert tensor parallelism (Megatron-Core's --expert-tensor-parallel-size): 0 is tp, the EP
  // ranks data-parallel ranks, tp · cp apart; given, the ep · etp expert ranks are laid over the
  // stage's tp · cp · dp ranks, EP ranks etp apart.
  std::int64_t etp = 0;
  std::int64_t gpus() const { return tp * pp * cp * dp; }
  bool operator==(const TrainLayout&) const = default;
};

struct TrainStepInput {
  TrainLayout layout{};
  FlopRate peak{};             // dense peak at the training dtype
  Bandwidth bandwidth{};       // HBM
  TrainLinks links{};
  Efficiency efficiency{};     // serve's calibrated per-op efficiency for the GPU (serve_expected.h)
  Seconds layer_overhead{};    // serve's per-layer overhead of a pass (launches), beside efficiency.pass_overhead
  // FP8 training runs its GEMMs at `peak` (the FP8 one) and attention at this one (bf16: Transformer
  // Engine's fused attention computes in bf16); nullopt: attention at `peak` too.
  std::optional<FlopRate> attention_peak{};
  // Eager attention (no FlashAttention): the b·a·s² scores are written and read through HBM, and the
  // causal half is computed, not skipped.
  bool flash_attention = true;
  double tp_comm_overlap = 0.0;  // share of TP collectives hidden behind GEMMs
  double dp_comm_overlap = 1.0;  // share of the backward (forward) that can hide DP traffic
  ModelStatesInput states{};     // precision (reduce dtype) and optimizer (its update's traffic)
  // Fine-tuning: LoRA adapters (frozen base: backward computes input gradients only), QLoRA's
  // 4-bit base dequantized before every GEMM.
  std::int64_t lora_rank = 0;
  bool lora_all_linear = false, qlora = false;
  Flops op_sac_flops_per_micro_batch{};  // recompute op-sac: what it reruns per micro-batch per GPU (whole model)
  double full_recompute_fraction = 0.0;  // --recompute-layers: share of layers fully recomputed
  // shard_stages(m, c, tp, pp, ep) of the layout, kept by a caller that evaluates many layouts;
  // nullptr: split on each call. Must be the split of this model and layout.
  const std::vector<StageShard>* stages = nullptr;
  // distinct_stages of those stages, kept the same way (nullptr: found on each call).
  const std::vector<std::size_t>* stage_kinds = nullptr;
};

/// One micro-batch on one stage, the parts of its time.
struct StageTime {
  Seconds forward{}, backward{}, recompute{};
  Seconds tp_comm{}, ep_comm{}, cp_comm{}, p2p{};  // exposed
  Seconds dequantize{};                            // QLoRA
  Seconds contention{};  // compute slowed by the TP and CP traffic hidden behind it (kOverlapSlowdown)
  Seconds total() const {
    return forward + backward + recompute + tp_comm + ep_comm + cp_comm + p2p + dequantize + contention;
  }
};

struct TrainStep {
  double micro_batches = 0;   // m per pipeline per step
  std::int64_t slowest_stage = 0;
  StageTime stage{};          // the slowest stage, one micro-batch
  Seconds pipeline{};         // m · τ
  Seconds bubble{};           // (p − 1)/v · τ
  Seconds dp_comm{}, dp_exposed{};
  Seconds dp_contention{};    // compute slowed by the DP traffic hidden behind it
  Seconds optimizer{};
  Seconds step{};
  Tokens tokens_per_step{};
  double dp_bus_local = 1;    // DP ranks per scale-up domain
  Bandwidth dp_bus{}, tp_bus{}, ep_bus{}, cp_bus{}, pp_bus{};
};

/// The stages the step model costs: the first of each run of consecutive stages alike (the same
/// layers, kinds of layer, ends and parameters); a balanced pipeline has at most four.
std::vector<std::size_t> distinct_stages(const specs::ModelSpec& m, const std::vector<StageShard>& stages);

/// The step of `in.layout`. The forward pass is serve's per-op model (throws its InputError on a
/// model it does not cost: Mamba layers, encoder-decoders). Preconditions: a model architecture,
/// positive peak and bandwidth, links with positive bandwidths when the layout needs them, the
/// global batch a multiple of dp · micro_batch.
TrainStep train_step(const specs::ModelSpec& m, const ParamCount& c, const TrainStepInput& in);

/// One micro-batch's forward, backward and policy recompute over every layer (train_step's pieces).
struct LayerTimes {
  Seconds fwd{}, bwd{}, attention_fwd{}, attention_bwd{}, selective{};
  Seconds gemm_fwd{}, gemm_bwd{};  // the dense GEMMs' share of fwd and bwd (what TP overlap hides behind)
  Flops gemm_flops{};
  double tp_collectives = 0;  // per forward over every layer
};

/// What the search evaluates many times: the forward pass's per-op costs for one (tp, micro-batch,
/// seq) shape. train_step builds it on each call; a planner keeps it between layouts (one thread, the
/// same rates: train_step keeps the layers' times in it by cp, ep, attention kernel and LoRA rank).
struct ForwardCost {
  std::int64_t tp = 0, micro_batch = 0, seq = 0;
  std::vector<OpCost> layer_ops;  // summed over every layer
  std::vector<OpCost> outer_ops;  // embedding, final norm, LM head
  Bytes tp_bytes_per_layer{};     // one TP collective's payload (tokens·h·2 B)
  double attending_layers = 0;    // layers with attention (the CP ring runs in each)
  mutable std::vector<std::pair<std::array<std::int64_t, 4>, LayerTimes>> times;  // train_step's cache
};
ForwardCost forward_cost(const specs::ModelSpec& m, const TrainStepInput& in);
TrainStep train_step(const specs::ModelSpec& m, const ParamCount& c, const TrainStepInput& in, const ForwardCost& f);

}  // namespace napkin
