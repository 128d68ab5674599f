// The training ledger of a model: ZeRO-sharded model states, LoRA/QLoRA, offload, the ZeRO-3
// gathered working set and Korthikanti's activations per pipeline stage. See napkin/memory/ledgers.h;
// training_report.cpp turns the numbers into the command's items.
#include "napkin/memory/ledgers.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/memory/deepspeed.h"
#include "napkin/model/parallel.h"
#include "napkin/model/params.h"
#include "training_detail.h"

// ---- the training ledger of a model -----------------------------------------------------------

namespace napkin {

using namespace units;

namespace {

// QLoRA stores the frozen base in 4-bit NF4 with one 8-bit scale per 64 weights plus one fp32
// constant per 256 scales: 4 + 0.127 bits per parameter (Dettmers et al. 2023, "QLoRA", §3,
// Double Quantization: "from 0.5 bits per parameter to 0.127 bits").
constexpr double kQloraBitsPerParam = 4.0 + 0.127;

std::int64_t lora_layer_params(const specs::ModelSpec& m, std::int64_t r, bool all_linear, bool moe_layer) {
  const std::int64_t d = m.hidden, q = m.heads * m.head_dim, kv = m.kv_heads * m.head_dim;
  std::int64_t p = r * ((d + q) + (d + kv) + (d + kv) + (q + d));  // q, k, v, o
  if (all_linear && !moe_layer && m.ffn > 0) {
    const std::int64_t mats = m.ffn_kind == specs::FfnKind::gated ? 3 : 2;  // gate, up, down
    p += r * mats * (d + m.ffn);
  }
  return p;
}

// FSDP2 reduces gradients in fp32 under mixed precision (torchtitan's mixed_precision_reduce
// default "float32", MixedPrecisionPolicy(reduce_dtype=...)), and in the gradients' own type
// otherwise.
double reduce_bytes(const ModelStatesInput& s) {
  return s.precision == Precision::mixed ? 4.0 : state_bytes(s).gradients.in(byte / param);
}

// The widest single module (one weight matrix, as DeepSpeed walks modules) one GPU gathers
// under ZeRO-3: the embedding or head, an attention projection, an MLP or expert matrix (a routed
// expert's split over te, the expert tensor-parallel ranks; te = t unless --etp says).
double largest_module_params(const specs::ModelSpec& m, double t, double te) {
  const double d = static_cast<double>(m.hidden);
  double widest = std::max({static_cast<double>(m.vocab) * d,
                            static_cast<double>(m.heads * m.head_dim) * d,
                            static_cast<double>(m.ffn) * d});
  if (m.moe.is_moe()) widest = std::max(widest, static_cast<double>(m.moe.shared_ffn) * d);
  // max(⌈a/t⌉, ⌈b/te⌉) is ⌈max(a, b)/t⌉ when te = t.
  const double expert = m.moe.is_moe() ? std::ceil(static_cast<double>(m.moe.expert_ffn) * d / te) : 0.0;
  return std::max(std::ceil(widest / t), expert);
}

ShardLayout shard_layout(const TrainingMemoryInput& in) { return training_shard_layout(in); }

// The expert tensor-parallel degree: --etp, else tp.
double expert_tp(const TrainingMemoryInput& in) { return in.etp ? in.etp->in(one) : in.tp.in(one); }

// Korthikanti et al. 2022 wrote their inventory for a GPT layer: LayerNorm, a plain MLP,
// multi-head attention at width h, no experts. The ledger counts that layer their way (their
// table 2 to the byte) and every other layer tensor by tensor, unless told.
bool korthikanti_layer(const specs::ModelSpec& m) {
  return m.norm == specs::NormKind::layernorm && m.ffn_kind == specs::FfnKind::plain &&
         m.attention != specs::AttentionKind::mla && m.kv_heads == m.heads && m.heads * m.head_dim == m.hidden &&
         !m.moe.is_moe();
}

ActivationAccounting accounting_of(const specs::ModelSpec& m, const TrainingMemoryInput& in) {
  if (in.accounting) return *in.accounting;
  return korthikanti_layer(m) ? ActivationAccounting::korthikanti : ActivationAccounting::tensors;
}

// The activation shape of a model's layer: K/V width, the MLP intermediates one token passes
// through (for MoE: its k routed experts and the shared ones), gated or not.
ActivationInput activation_input(const specs::ModelSpec& m, const TrainingMemoryInput& in) {
  double ffn = static_cast<double>(m.ffn);
  if (m.moe.is_moe())
    ffn = std::max(ffn, static_cast<double>(m.moe.expert_ffn) *
                            static_cast<double>(m.moe.experts_per_token + m.moe.n_shared_experts) +
                        static_cast<double>(m.moe.shared_ffn));
  const double kv = m.attention == specs::AttentionKind::mla
                        ? static_cast<double>(m.heads * m.head_dim)
                        : static_cast<double>(m.kv_heads * m.head_dim);
  const bool mla = m.attention == specs::AttentionKind::mla;
  const double q = static_cast<double>(m.heads * m.head_dim);
  return ActivationInput{.seq = in.seq, .micro_batch = in.micro_batch, .hidden = static_cast<double>(m.hidden) * one,
                         .heads = static_cast<double>(m.heads) * one, .tp = in.tp,
                         .sequence_parallel = in.sequence_parallel, .recompute = in.recompute,
                         .flash_attention = in.flash_attention, .kv_width = kv * one, .ffn_width = ffn * one,
                         .gated = m.ffn_kind == specs::FfnKind::gated,
                         .dropout = in.dropout ? *in.dropout > 0.0 : m.hidden_dropout > 0.0,
                         .attention_dropout = in.dropout ? *in.dropout > 0.0 : m.attention_dropout > 0.0,
                         .accounting = accounting_of(m, in),
                         .q_width = q * one,
                         .v_width = mla && m.mla.v_head_dim > 0 ? static_cast<double>(m.heads * m.mla.v_head_dim) * one
                                                                : Count{},
                         .rmsnorm = m.norm == specs::NormKind::rmsnorm,
                         .latent_width = mla ? static_cast<double>(m.mla.q_lora_rank + m.mla.kv_lora_rank +
                                                                   m.mla.qk_rope_head_dim) * one
                                             : Count{},
                         .moe_topk = m.moe.is_moe() ? static_cast<double>(m.moe.experts_per_token) * one : Count{},
                         .moe_experts = m.moe.is_moe() ? static_cast<double>(m.moe.n_experts) * one : Count{},
                         .distribute_saved = in.distribute_saved_activations};
}

// The loss at the last stage, per token a GPU holds (memory/ledgers.h, LossKind): the loss buffers over
// the GPU's V/t logits, the final norm's input and the head's input (2·h each, split under
// sequence parallelism as Megatron-LM keeps them), and for chunked the fp32 gradient buffer of
// the head input.
struct LossTerms {
  double per_logit = 0;     // bytes per token per vocabulary entry held (one chunk's share for chunked)
  double per_hidden = 0;    // bytes per token per hidden unit, before the sequence-parallel split
};

LossTerms loss_terms(LossKind k) {
  switch (k) {
    case LossKind::full: return {12.0, 4.0};
    case LossKind::fused: return {6.0, 4.0};
    case LossKind::chunked: return {12.0 / kLossChunks, 4.0 + 4.0};
  }
  return {12.0, 4.0};
}

// ---- pipeline schedule, partial recomputation, context parallelism ----------------------------

// Micro-batches in flight on stage i of p, in units of the stage's whole layer set. Plain 1F1B:
// stage i holds p − i (Narayanan et al. 2021, §2.2.1). Interleaved 1F1B with M chunks per stage:
// Megatron-LM's warm-up runs (p − i − 1)·2 + (M − 1)·p chunk forwards before the steady state,
// plus the one in progress (megatron/core/pipeline_parallel/schedules.py,
// forward_backward_pipelining_with_interleaving), each chunk L_stage / M layers; on stage 0 that is
// p·(1 + (p − 1)/(p·M)) stages' worth, Korthikanti et al. 2022, §4.2.3.
double in_flight_micro_batches(double pp, double i, double virtual_stages) {
  if (virtual_stages <= 1.0) return pp - i;
  return ((pp - i - 1.0) * 2.0 + (virtual_stages - 1.0) * pp + 1.0) / virtual_stages;
}

// The layers whose activations stage i holds at the peak of the interleaved warm-up when its chunks
// are uneven (chunk_layers): the chunk forwards of the warm-up in Megatron-LM's order, micro-batches
// in groups of p per chunk (schedules.py, get_model_chunk_id: (k mod p·M) / p), each its chunk's
// layers. With equal chunks this is in_flight_micro_batches · L_stage.
double in_flight_layers(double pp, double i, const std::vector<std::int64_t>& chunks) {
  const auto p = static_cast<std::int64_t>(pp), v = static_cast<std::int64_t>(chunks.size());
  const std::int64_t forwards = (p - static_cast<std::int64_t>(i) - 1) * 2 + (v - 1) * p + 1;
  double layers = 0;
  for (std::int64_t k = 0; k < forwards; ++k) layers += static_cast<double>(chunks[static_cast<std::size_t>((k % (p * v)) / p)]);
  return layers;
}

// The flags of this block, checked against the model and its stages.
void check_schedule_flags(const specs::ModelSpec& m, const TrainingMemoryInput& in, const std::vector<StageShard>& stages) {
  require_positive_integer(in.virtual_stages, "virtual_stages");
  require_positive_integer(in.cp, "cp");
  require_non_negative(in.recompute_layers, "recompute_layers");
  const double vs = in.virtual_stages.in(one), cp = in.cp.in(one), k = in.recompute_layers.in(one);
  if (k != std::floor(k))
    throw InputError("--recompute-layers", format_plain_number(k), "a whole number of layers per stage");
  const bool bare = m.count_only();
  if (bare && (vs > 1.0 || cp > 1.0 || k > 0.0))
    throw InputError(vs > 1.0 ? "--virtual-stages" : cp > 1.0 ? "--cp" : "--recompute-layers",
                     format_plain_number(vs > 1.0 ? vs : cp > 1.0 ? cp : k),
                     "a MODEL architecture (they change activations; a bare --params has none)");
  if (vs > 1.0) {
    if (in.pp.in(one) < 2.0)
      throw InputError("--virtual-stages", format_plain_number(vs), "1 without pipelining (interleaving needs --pp 2 or more)");
    for (const StageShard& st : stages) {
      (void)chunk_layers(st, static_cast<std::int64_t>(vs));  // refuses a chunk without a layer
      if (k > 0.0 && st.layers % static_cast<std::int64_t>(vs) != 0)
        throw InputError("--recompute-layers", format_plain_number(k),
                         "equal model chunks (--virtual-stages " + format_plain_number(vs) + " splits a stage of " +
                             std::to_string(st.layers) +
                             " layers unevenly; which chunks' layers are recomputed is not modelled)");
    }
  }
  if (k > 0.0) {
    if (in.recompute == Recompute::full)
      throw InputError("--recompute-layers", format_plain_number(k),
                       "--recompute none, selective or op-sac (full already recomputes every layer)");
    std::int64_t widest = 0;
    for (const StageShard& st : stages) widest = std::max(widest, st.layers);
    if (k > static_cast<double>(widest))
      throw InputError("--recompute-layers", format_plain_number(k),
                       "at most the layers of a stage, " + std::to_string(widest));
  }
  if (cp > 1.0) {
    if (std::fmod(in.seq.in(one), 2.0 * cp) != 0.0)
      throw InputError("--cp", format_plain_number(cp),
                       "a degree whose 2·cp chunks divide --seq " + format_plain_number(in.seq.in(one)) +
                           " (Megatron-LM splits each sequence into 2·cp load-balanced chunks)");
    if (!in.flash_attention)
      throw InputError("--cp", format_plain_number(cp),
                       "fused attention (context parallelism runs ring attention in Transformer Engine's fused "
                       "kernels; --attention eager is not supported)");
  }
  if (in.distribute_saved_activations) {
    if (in.sequence_parallel)
      throw InputError("--distribute-saved-activations", "(with --sequence-parallel)",
                       "no --sequence-parallel with it (the layer input is split over TP already; Megatron-LM turns "
                       "distribute_saved_activations off under sequence parallelism)");
    if (in.tp.in(one) < 2.0)
      throw InputError("--distribute-saved-activations", "(at --tp " + format_plain_number(in.tp.in(one)) + ")",
                       "--tp 2 or more (it splits the saved input over the TP ranks)");
    if (in.recompute != Recompute::full && k == 0.0)
      throw InputError("--distribute-saved-activations", "(given)",
                       "--recompute full or --recompute-layers with it (it splits fully recomputed layers' inputs)");
  }
}

// Activations of one stage: K layers fully recomputed (their input only), the rest at per_layer.
Bytes stage_activations(const StageShard& st, double recompute_layers, Bytes per_layer, Bytes per_layer_full) {
  const double full = std::min(recompute_layers, static_cast<double>(st.layers));
  return full * per_layer_full + (static_cast<double>(st.layers) - full) * per_layer;
}

// Megatron-Core lays the ep · etp ranks of the expert grid over the tp · cp · dp ranks of a
// pipeline stage: world_size = tp·pp·cp·dp must divide by etp·ep·pp (NVIDIA/Megatron-LM d98e8a6,
// megatron/core/parallel_state.py initialize_model_parallel, lines 874-885). With etp = tp that
// is ep dividing cp · dp, and without --cp ep dividing dp, napkin's rule before --etp.
void check_expert_ranks(const TrainingMemoryInput& in) {
  const double dp = in.states.dp.in(one), ep = in.ep.in(one), cp = in.cp.in(one), t = in.tp.in(one);
  const double ranks = t * cp * dp, te = expert_tp(in);
  if (std::fmod(ranks, ep * te) == 0.0) return;
  if (in.etp)
    throw InputError("--etp", format_plain_number(te),
                     "a degree with --ep " + format_plain_number(ep) + " · --etp " + format_plain_number(te) +
                         " dividing --tp · --cp · --dp = " + format_plain_number(ranks) +
                         " (Megatron-Core lays the expert ranks over a stage's tensor-, context- and data-parallel "
                         "ranks)");
  if (cp == 1.0)
    throw InputError("--ep", format_plain_number(ep),
                     "a divisor of --dp " + format_plain_number(dp) + " (expert-parallel ranks are data-parallel ranks)");
  throw InputError("--ep", format_plain_number(ep),
                   "a divisor of --dp · --cp = " + format_plain_number(dp * cp) +
                       " (with --etp at --tp, expert-parallel ranks are data- and context-parallel ranks)");
}

// The flags of the ledger itself, checked against the model (the schedule's are
// check_schedule_flags', once the stages are known).
void check_training_flags(const specs::ModelSpec& m, const TrainingMemoryInput& in) {
  specs::refuse_encoder_decoder(m, "memory --train");
  specs::refuse_mamba_layers(m, "the training ledger's activations (Korthikanti et al.) are those of attention "
                                "and MLP layers, not of a Mamba mixer");
  specs::refuse_unmodelled_layers(m, "the training ledger's activations (Korthikanti et al.) are those of dense attention and MLP layers");
  const bool lora = in.lora_rank.in(one) > 0.0;
  if (lora && m.count_only())
    throw InputError("--lora-rank", format_plain_number(in.lora_rank.in(one)),
                     "a MODEL architecture (adapter sizes come from the matrix shapes; --params gives only a count)");
  if (lora) require_positive_integer(in.lora_rank, "lora_rank");
  if (lora && in.lora_rank.in(one) > static_cast<double>(m.hidden))
    throw InputError("--lora-rank", format_plain_number(in.lora_rank.in(one)),
                     "a rank at most the hidden size " + std::to_string(m.hidden) + " (a low-rank adapter)");
  if (in.qlora && !lora) throw InputError("--qlora", "(given)", "--lora-rank (QLoRA trains LoRA adapters)");
  if (lora && m.attention == specs::AttentionKind::mla)
    throw InputError("--lora-rank", format_plain_number(in.lora_rank.in(one)),
                     "a model without MLA attention (LoRA on MLA projections is not modelled yet)");
  if (!m.count_only()) {  // a bare count keeps no activations: no sequence to size
    require_positive_integer(in.micro_batch, "micro_batch");
    require_positive_integer(in.seq, "seq");
  }
  require_positive_integer(in.states.dp, "dp");
  require_non_negative(in.cuda_context, "cuda_context");
  if (!(in.fragmentation >= 0.0 && in.fragmentation < 1.0))
    throw InputError("fragmentation", format_plain_number(in.fragmentation), "a fraction in [0, 1)");
  if (in.dropout && !(*in.dropout >= 0.0 && *in.dropout < 1.0))
    throw InputError("dropout", format_plain_number(*in.dropout), "a dropout probability in [0, 1)");
  check_expert_layout(m, shard_layout(in));
  require_positive_integer(in.cp, "cp");
  check_expert_ranks(in);
  if (in.offload_params && in.states.zero_stage != 3)
    throw InputError("--offload-params", "(with --zero " + std::to_string(in.states.zero_stage) + ")",
                     "--zero 3 (parameter offload partitions the weights)");
}

// One stage's ledger, and what the report reads of it when it is the stage shown.
struct StageLedger {
  TrainingMemory r;
  ModelStatesInput s;   // the trainable parameters outside the routed experts
  ModelStatesInput se;  // the routed experts' (params 0 without EP/MoE)
  Bytes frozen{};       // LoRA: the frozen base weights
  double in_flight = 1;
  double fsdp_trainable = 0;  // trainable parameters of the FSDP unit (the largest layer) per GPU
};

// A training ledger being built: the constructor checks the flags, shards the model into stages
// and computes the terms every stage shares, in that order; stage() builds one stage's ledger
// from them, and compute_training keeps the most loaded.
struct TrainingLedger {
  const specs::ModelSpec& m;
  const TrainingMemoryInput& in;
  double t = 1, pp = 1, dp = 1, ep = 1;
  double edp = 1;  // the routed experts' data-parallel size: tp · cp · dp / (ep · etp)
  bool lora = false;
  bool offload_states = false;  // ZeRO-Offload or ZeRO-Infinity
  std::vector<StageShard> own_stages;             // the split, when the caller kept none
  const std::vector<StageShard>* split = nullptr;  // in.stages or own_stages
  const std::vector<StageShard>& stages() const { return *split; }
  double cp = 1, vs = 1, k_full = 0;  // context parallelism, virtual stages, --recompute-layers
  ActivationInput act;
  Bytes per_layer{};
  Bytes per_layer_full{};  // --recompute-layers: a fully recomputed layer's activations
  Bytes per_layer_none{};  // the layer's whole inventory (what a recomputed layer rebuilds from)
  Bytes transient{};       // one recomputed layer's backward
  Bytes logits{};          // the loss's buffers at the last stage
  Bytes output_tensor{};   // one micro-batch's stage output (pipeline_buffers)
  double largest = 0;      // parameters of the largest module per GPU (ZeRO-3 gather)

  TrainingLedger(const specs::ModelSpec& model, const TrainingMemoryInput& i);
  void layer_terms();
  StageLedger stage(std::size_t i) const;
  void stage_states(const StageShard& st, StageLedger& g) const;
  void zero3_buffers(const StageShard& st, StageLedger& g) const;
  void offload(TrainingMemory& r) const;
};

TrainingLedger::TrainingLedger(const specs::ModelSpec& model, const TrainingMemoryInput& i) : m(model), in(i) {
  check_training_flags(m, in);
  t = in.tp.in(one);
  pp = in.pp.in(one);
  dp = in.states.dp.in(one);
  ep = in.ep.in(one);
  lora = in.lora_rank.in(one) > 0.0;
  offload_states = in.offload_optimizer || in.offload_params;
  const ParamCount counted = in.counts != nullptr ? ParamCount{} : count_params(m);
  const ParamCount& c = in.counts != nullptr ? *in.counts : counted;
  if (in.stages == nullptr) own_stages = shard_stages(m, c, shard_layout(in));
  split = in.stages != nullptr ? in.stages : &own_stages;
  check_schedule_flags(m, in, stages());
  cp = in.cp.in(one);
  edp = t * cp * dp / (ep * expert_tp(in));
  vs = in.virtual_stages.in(one);
  k_full = in.recompute_layers.in(one);
  layer_terms();
}

// One micro-batch's activations per layer (kept, fully recomputed, the whole inventory), the
// loss's buffers, a stage's output tensor and the largest module: the same on every stage.
void TrainingLedger::layer_terms() {
  // A bare parameter count has no layers to keep activations of (the CLI refuses the flags).
  act = m.count_only() ? ActivationInput{} : activation_input(m, in);
  act.seq = act.seq / cp;  // context parallelism: each GPU keeps the activations of s / cp tokens
  per_layer = m.count_only() ? Bytes{} : activations_per_layer(act);
  ActivationInput act_full = act;
  act_full.recompute = Recompute::full;
  per_layer_full = m.count_only() || k_full == 0.0 ? Bytes{} : activations_per_layer(act_full);
  // One recomputed layer's backward rebuilds what its policy dropped: the inventory minus the kept.
  ActivationInput act_none = act;
  act_none.recompute = Recompute::none;
  per_layer_none = m.count_only() ? Bytes{} : activations_per_layer(act_none);
  transient = std::max(per_layer_none - per_layer, k_full > 0.0 ? per_layer_none - per_layer_full : Bytes{});
  // The loss at the last stage: its buffers over the V/t logits a GPU holds (vocab-parallel under
  // TP) and the final norm's and head's inputs (memory/ledgers.h, LossKind).
  const LossTerms lt = loss_terms(in.loss);
  const double tokens = in.seq.in(one) / cp * in.micro_batch.in(one);
  logits =
      m.count_only() ? Bytes{}
                     : tokens * (lt.per_logit * std::ceil(static_cast<double>(m.vocab) / t) +
                                 lt.per_hidden * static_cast<double>(m.hidden) / (in.sequence_parallel ? t : 1.0)) *
                           byte;
  // A stage's output tensor: one s·b·h hidden state at 2 B, split over TP under sequence parallelism.
  output_tensor = m.count_only() ? Bytes{}
                                 : in.seq.in(one) / cp * in.micro_batch.in(one) * static_cast<double>(m.hidden) * 2.0 /
                                       (in.sequence_parallel ? t : 1.0) * byte;
  largest = largest_module_params(m, t, expert_tp(in));
}

// Stage i's ledger: model states, ZeRO-3's buffers, activations and the loss, offload, the reserve.
StageLedger TrainingLedger::stage(std::size_t i) const {
  const StageShard& st = stages()[i];
  StageLedger g;
  stage_states(st, g);
  const ModelStatesInput& s = g.s;
  const ModelStatesInput& se = g.se;
  ModelStates ms = s.params.in(param) > 0.0 ? model_states(s) : ModelStates{};
  if (se.params.in(param) > 0.0) {
    const ModelStates mse = model_states(se);
    ms.weights += mse.weights;
    ms.gradients += mse.gradients;
    ms.master_weights += mse.master_weights;
    ms.optimizer_states += mse.optimizer_states;
  }
  TrainingMemory& r = g.r;
  r.weights = ms.weights + g.frozen;
  r.gradients = ms.gradients;
  r.master_weights = ms.master_weights;
  r.optimizer_states = ms.optimizer_states;
  zero3_buffers(st, g);
  const double in_flight = in_flight_micro_batches(pp, static_cast<double>(i), vs);  // 1F1B warm-up depth of stage i
  g.in_flight = in_flight;
  r.activations = in_flight * stage_activations(st, k_full, per_layer, per_layer_full);
  if (vs > 1.0 && st.layers % static_cast<std::int64_t>(vs) != 0) {
    // Uneven chunks (no --recompute-layers with them): the layers of the chunk forwards in flight.
    g.in_flight = in_flight_layers(pp, static_cast<double>(i), chunk_layers(st, static_cast<std::int64_t>(vs))) /
                  static_cast<double>(st.layers);
    r.activations = g.in_flight * stage_activations(st, k_full, per_layer, per_layer_full);
  }
  if (st.has_head) r.logits = logits;
  if (st.layers > 0) r.recompute_transient = transient;
  if (pp > 1.0) r.pipeline_buffers = in_flight * output_tensor;
  if (offload_states) offload(r);
  const Bytes rows = r.weights + r.gradients + r.master_weights + r.optimizer_states + r.gathered_params +
                     r.fsdp_buffers() + r.activations + r.peak_transient();
  r.runtime_reserve = std::ceil((in.cuda_context + in.fragmentation * rows).in(byte)) * byte;
  r.stage = static_cast<std::int64_t>(i);
  return g;
}

// The stage's trainable parameters, dense and routed experts, sharded as ZeRO shards them; with
// LoRA the adapters instead, and the frozen base's bytes.
void TrainingLedger::stage_states(const StageShard& st, StageLedger& g) const {
  ModelStatesInput& s = g.s;
  ModelStatesInput& se = g.se;
  s = in.states;
  s.dp = dp * cp * one;  // the distributed optimizer shards over dp · cp (Megatron-LM)
  // Routed experts: ZeRO (Megatron's distributed optimizer) shards them over the expert
  // data-parallel group, tp · cp · dp / (ep · etp) ranks (parallel_state.py line 880,
  // expert_data_parallel_size); dp / ep when etp = tp and cp = 1.
  se = in.states;
  se.dp = edp * one;
  s.params = std::ceil(st.params - st.expert_params) * param;
  se.params = std::ceil(st.expert_params) * param;
  if (!lora) return;
  // Adapters are the trainable parameters; the base is frozen weights only.
  double adapters = 0;
  for (std::int64_t l = st.first_layer; l < st.first_layer + st.layers; ++l)
    adapters += static_cast<double>(lora_layer_params(m, static_cast<std::int64_t>(in.lora_rank.in(one)),
                                                      in.lora_all_linear, m.is_moe_layer(l)));
  s.params = std::ceil(adapters / t) * param;
  se.params = Params{};
  const double base_bytes = in.qlora ? 0.0 : state_bytes(in.states).weights.in(byte / param);
  const double frozen_bytes = in.qlora ? (std::ceil(st.params) - std::ceil(st.kept_params)) * kQloraBitsPerParam / 8.0 +
                                             std::ceil(st.kept_params) * 2.0
                                       : std::ceil(st.params) * base_bytes;
  g.frozen = std::ceil(in.states.zero_stage >= 3 ? frozen_bytes / (dp * cp) : frozen_bytes) * byte;
}

// ZeRO-3 over more than one rank: FSDP2's per-layer units without offload, DeepSpeed's gathered
// working set with it.
void TrainingLedger::zero3_buffers(const StageShard& st, StageLedger& g) const {
  TrainingMemory& r = g.r;
  const ModelStatesInput& s = g.s;
  if (in.states.zero_stage == 3 && dp * cp > 1.0 && !offload_states) {
    // FSDP2's per-layer units: two layers' 16-bit parameters (in flight, prefetched), one
    // layer's gradients and their reduce-scatter input (napkin/memory/ledgers.h, TrainingMemory).
    const double layer = std::ceil(st.largest_layer);
    const double trainable = lora ? std::ceil(s.params.in(param) / std::max<double>(1.0, static_cast<double>(st.layers)))
                                  : layer;
    const StateBytes b = state_bytes(in.states);
    const double w_bytes = in.qlora ? kQloraBitsPerParam / 8.0 : b.weights.in(byte / param);
    r.unsharded_params = std::ceil(2.0 * layer * w_bytes) * byte;
    r.unsharded_grads = trainable * b.gradients.in(byte / param) * byte;
    r.reduce_scatter = trainable * reduce_bytes(in.states) * byte;
    g.fsdp_trainable = trainable;
    if (pp > 1.0) {
      // Under PyTorch's pipelining FSDP keeps the stage unsharded across micro-batches and
      // accumulates its gradients unsharded, in the reduce dtype, until the last one
      // (torch/distributed/pipelining/stage.py, backward_maybe_with_nosync: reshard_after_backward
      // and requires_gradient_sync False; torchtitan 9dec370 apply_fsdp: reshard_after_forward
      // False under PP).
      const double stage_trainable = lora ? s.params.in(param) : std::ceil(st.params);
      r.unsharded_params = std::ceil(std::ceil(st.params) * w_bytes) * byte;
      r.unsharded_grads = stage_trainable * reduce_bytes(in.states) * byte;
    }
  } else if (in.states.zero_stage == 3 && dp * cp > 1.0) {
    r.gathered_params = 4.0 * largest * byte;
  }
}

// ZeRO-Offload (Ren et al. 2021, §4.1): gradients, fp32 master weights and optimizer states go to
// CPU memory and the update runs there; ZeRO-Infinity parameter offload moves the 16-bit weights
// as well, leaving the gathered working set on the GPU.
void TrainingLedger::offload(TrainingMemory& r) const {
  r.cpu_memory = r.gradients + r.master_weights + r.optimizer_states + (in.offload_params ? r.weights : Bytes{});
  r.gradients = Bytes{};
  r.master_weights = Bytes{};
  r.optimizer_states = Bytes{};
  if (in.offload_params) {
    r.weights = Bytes{};
    r.gathered_params = 4.0 * largest * byte;
  }
}

}  // namespace

namespace training_detail {

TrainingParts compute_training(const specs::ModelSpec& m, const TrainingMemoryInput& in) {
  const TrainingLedger ledger(m, in);
  TrainingParts best;
  Bytes total{};
  for (std::size_t i = 0; i < ledger.stages().size(); ++i) {
    const StageLedger g = ledger.stage(i);
    total += ledger.t * ledger.dp * ledger.cp * g.r.per_gpu();
    if (i == 0 || g.r.per_gpu() > best.mem.per_gpu()) {
      best.mem = g.r;
      best.stage = ledger.stages()[i];
      best.states = g.s;
      best.expert_states = g.se;
      best.frozen = g.frozen;
      best.in_flight = g.in_flight;
      best.fsdp_trainable = g.fsdp_trainable;
    }
  }
  best.per_layer = ledger.per_layer;
  best.per_layer_full = ledger.per_layer_full;
  best.output_tensor = ledger.output_tensor;
  best.logits = best.stage.has_head ? ledger.logits : Bytes{};
  best.per_layer_none = ledger.per_layer_none;
  best.largest_module = ledger.largest;
  best.act = ledger.act;
  best.mem.total = total;
  if (in.capacity) best.mem.fits = best.mem.per_gpu() <= *in.capacity;
  return best;
}

}  // namespace training_detail

ShardLayout training_shard_layout(const TrainingMemoryInput& in) {
  return ShardLayout{.tp = in.tp, .pp = in.pp, .ep = in.ep, .etp = in.etp,
                     .first_stage_layers = in.first_stage_layers, .last_stage_layers = in.last_stage_layers};
}

TrainingMemory training_memory(const specs::ModelSpec& m, const TrainingMemoryInput& in) {
  return training_detail::compute_training(m, in).mem;
}

Flops op_sac_recompute_flops(const specs::ModelSpec& m, const TrainingMemoryInput& in, Tokens tokens) {
  ActivationInput a = activation_input(m, in);
  a.recompute = Recompute::op_sac;
  (void)saved_tensors(a);  // refuses the layers op-sac is not modelled for
  return tokens.in(token) * static_cast<double>(m.layers) * op_sac_rerun_flop_per_token(a) * flop;
}

double recompute_layers_fraction(const specs::ModelSpec& m, const TrainingMemoryInput& in) {
  if (in.recompute == Recompute::full) return 1.0;
  const double k = in.recompute_layers.in(one);
  if (k <= 0.0 || m.count_only() || m.layers <= 0) return 0.0;
  const ParamCount c = in.counts != nullptr ? *in.counts : count_params(m);
  const std::vector<StageShard> stages = shard_stages(m, c, shard_layout(in));
  check_schedule_flags(m, in, stages);
  double full = 0;
  for (const StageShard& st : stages) full += std::min(k, static_cast<double>(st.layers));
  return full / static_cast<double>(m.layers);
}

std::int64_t lora_params(const specs::ModelSpec& m, std::int64_t rank, bool all_linear) {
  std::int64_t p = 0;
  for (std::int64_t l = 0; l < m.layers; ++l) p += lora_layer_params(m, rank, all_linear, m.is_moe_layer(l));
  return p;
}

}  // namespace napkin

namespace napkin {

std::int64_t zero3_largest_module_params(const specs::ModelSpec& m) {
  return static_cast<std::int64_t>(largest_module_params(m, 1.0, 1.0));
}

}  // namespace napkin
