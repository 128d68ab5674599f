// The training ledger of a model: ZeRO-sharded model states, LoRA/QLoRA, offload, the ZeRO-3
// gathered working set and Korthikanti's activations per pipeline stage. See napkin/memory/ledgers.h.
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

struct TrainingParts {
  TrainingMemory mem;
  StageShard stage;
  ModelStatesInput states;          // the trainable parameters outside the routed experts
  ModelStatesInput expert_states;   // the routed experts' (params 0 without EP/MoE)
  Bytes frozen{};  // LoRA: the frozen base weights of the shown stage
  Bytes per_layer{};
  Bytes per_layer_full{};  // --recompute-layers: a fully recomputed layer's activations
  Bytes output_tensor{};   // one micro-batch's stage output (pipeline_buffers)
  double in_flight = 1;
  Bytes logits{};
  Bytes per_layer_none{};  // the layer's whole inventory (what a recomputed layer rebuilds from)
  double largest_module = 0;  // parameters of the largest module per GPU (ZeRO-3 gather)
  double fsdp_trainable = 0;  // trainable parameters of the FSDP unit per GPU
  ActivationInput act;
};

// FSDP2 reduces gradients in fp32 under mixed precision (torchtitan's mixed_precision_reduce
// default "float32", MixedPrecisionPolicy(reduce_dtype=...)), and in the gradients' own type
// otherwise.
double reduce_bytes(const ModelStatesInput& s) {
  return s.precision == Precision::mixed ? 4.0 : state_bytes(s).gradients.in(byte / param);
}

// The widest single module (one weight matrix, as DeepSpeed walks modules) one GPU gathers
// under ZeRO-3: the embedding or head, an attention projection, an MLP or expert matrix.
double largest_module_params(const specs::ModelSpec& m, double t) {
  const double d = static_cast<double>(m.hidden);
  double widest = std::max({static_cast<double>(m.vocab) * d,
                            static_cast<double>(m.heads * m.head_dim) * d,
                            static_cast<double>(m.ffn) * d});
  if (m.moe.is_moe())
    widest = std::max({widest, static_cast<double>(m.moe.expert_ffn) * d, static_cast<double>(m.moe.shared_ffn) * d});
  return std::ceil(widest / t);
}

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
    for (const StageShard& st : stages)
      if (std::fmod(static_cast<double>(st.layers), vs) != 0.0)
        throw InputError("--virtual-stages", format_plain_number(vs),
                         "a divisor of every stage's layers (a stage holds " + std::to_string(st.layers) +
                             "; Megatron-LM splits each stage into equal chunks)");
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
    if (in.ep.in(one) > 1.0)
      throw InputError("--cp", format_plain_number(cp), "1 with --ep (experts over context-parallel ranks are not modelled)");
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

TrainingParts compute_training(const specs::ModelSpec& m, const TrainingMemoryInput& in) {
  specs::refuse_encoder_decoder(m, "memory --train");
  specs::refuse_mamba_layers(m, "the training ledger's activations (Korthikanti et al.) are those of attention "
                                "and MLP layers, not of a Mamba mixer");
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
  require_positive_integer(in.ep, "ep");
  require_positive_integer(in.states.dp, "dp");
  require_non_negative(in.cuda_context, "cuda_context");
  if (!(in.fragmentation >= 0.0 && in.fragmentation < 1.0))
    throw InputError("fragmentation", format_plain_number(in.fragmentation), "a fraction in [0, 1)");
  if (in.dropout && !(*in.dropout >= 0.0 && *in.dropout < 1.0))
    throw InputError("dropout", format_plain_number(*in.dropout), "a dropout probability in [0, 1)");
  const double t = in.tp.in(one), pp = in.pp.in(one), dp = in.states.dp.in(one), ep = in.ep.in(one);
  if (ep > 1.0 && !m.moe.is_moe())
    throw InputError("--ep", format_plain_number(ep), "1 (expert parallelism needs a mixture-of-experts model)");
  if (std::fmod(dp, ep) != 0.0)
    throw InputError("--ep", format_plain_number(ep),
                     "a divisor of --dp " + format_plain_number(dp) + " (expert-parallel ranks are data-parallel ranks)");
  if (in.offload_params && in.states.zero_stage != 3)
    throw InputError("--offload-params", "(with --zero " + std::to_string(in.states.zero_stage) + ")",
                     "--zero 3 (parameter offload partitions the weights)");
  const bool offload_states = in.offload_optimizer || in.offload_params;
  const ParamCount counted = in.counts != nullptr ? ParamCount{} : count_params(m);
  const ParamCount& c = in.counts != nullptr ? *in.counts : counted;
  const std::vector<StageShard> stages = shard_stages(m, c, in.tp, in.pp, in.ep);
  check_schedule_flags(m, in, stages);
  const double cp = in.cp.in(one), vs = in.virtual_stages.in(one), k_full = in.recompute_layers.in(one);
  // A bare parameter count has no layers to keep activations of (the CLI refuses the flags).
  ActivationInput act = m.count_only() ? ActivationInput{} : activation_input(m, in);
  act.seq = act.seq / cp;  // context parallelism: each GPU keeps the activations of s / cp tokens
  const Bytes per_layer = m.count_only() ? Bytes{} : activations_per_layer(act);
  ActivationInput act_full = act;
  act_full.recompute = Recompute::full;
  const Bytes per_layer_full = m.count_only() || k_full == 0.0 ? Bytes{} : activations_per_layer(act_full);
  // One recomputed layer's backward rebuilds what its policy dropped: the inventory minus the kept.
  ActivationInput act_none = act;
  act_none.recompute = Recompute::none;
  const Bytes per_layer_none = m.count_only() ? Bytes{} : activations_per_layer(act_none);
  const Bytes transient = std::max(per_layer_none - per_layer, k_full > 0.0 ? per_layer_none - per_layer_full : Bytes{});
  // The loss at the last stage: its buffers over the V/t logits a GPU holds (vocab-parallel under
  // TP) and the final norm's and head's inputs (memory/ledgers.h, LossKind).
  const LossTerms lt = loss_terms(in.loss);
  const double tokens = in.seq.in(one) / cp * in.micro_batch.in(one);
  const Bytes logits =
      m.count_only() ? Bytes{}
                     : tokens * (lt.per_logit * std::ceil(static_cast<double>(m.vocab) / t) +
                                 lt.per_hidden * static_cast<double>(m.hidden) / (in.sequence_parallel ? t : 1.0)) *
                           byte;
  // A stage's output tensor: one s·b·h hidden state at 2 B, split over TP under sequence parallelism.
  const Bytes output_tensor = m.count_only() ? Bytes{}
                                             : in.seq.in(one) / cp * in.micro_batch.in(one) * static_cast<double>(m.hidden) *
                                                   2.0 / (in.sequence_parallel ? t : 1.0) * byte;
  const double largest = largest_module_params(m, t);

  TrainingParts best;
  Bytes total{};
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const StageShard& st = stages[i];
    ModelStatesInput s = in.states;
    s.dp = dp * cp * one;  // the distributed optimizer shards over dp · cp (Megatron-LM)
    ModelStatesInput se = in.states;  // routed experts: ZeRO shards them over the dp / ep ranks holding them
    se.dp = dp / ep * one;
    s.params = std::ceil(st.params - st.expert_params) * param;
    se.params = std::ceil(st.expert_params) * param;
    Bytes frozen{};
    if (lora) {
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
      frozen = std::ceil(in.states.zero_stage >= 3 ? frozen_bytes / (dp * cp) : frozen_bytes) * byte;
    }
    ModelStates ms = s.params.in(param) > 0.0 ? model_states(s) : ModelStates{};
    if (se.params.in(param) > 0.0) {
      const ModelStates mse = model_states(se);
      ms.weights += mse.weights;
      ms.gradients += mse.gradients;
      ms.master_weights += mse.master_weights;
      ms.optimizer_states += mse.optimizer_states;
    }
    TrainingMemory r;
    r.weights = ms.weights + frozen;
    r.gradients = ms.gradients;
    r.master_weights = ms.master_weights;
    r.optimizer_states = ms.optimizer_states;
    double fsdp_trainable = 0;  // trainable parameters of the FSDP unit (the largest layer) per GPU
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
      fsdp_trainable = trainable;
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
    const double in_flight = in_flight_micro_batches(pp, static_cast<double>(i), vs);  // 1F1B warm-up depth of stage i
    r.activations = in_flight * stage_activations(st, k_full, per_layer, per_layer_full);
    if (st.has_head) r.logits = logits;
    if (st.layers > 0) r.recompute_transient = transient;
    if (pp > 1.0) r.pipeline_buffers = in_flight * output_tensor;
    if (offload_states) {
      // ZeRO-Offload (Ren et al. 2021, §4.1): gradients, fp32 master weights and optimizer states
      // go to CPU memory and the update runs there; ZeRO-Infinity parameter offload moves the
      // 16-bit weights as well, leaving the gathered working set on the GPU.
      r.cpu_memory = r.gradients + r.master_weights + r.optimizer_states + (in.offload_params ? r.weights : Bytes{});
      r.gradients = Bytes{};
      r.master_weights = Bytes{};
      r.optimizer_states = Bytes{};
      if (in.offload_params) {
        r.weights = Bytes{};
        r.gathered_params = 4.0 * largest * byte;
      }
    }
    const Bytes rows = r.weights + r.gradients + r.master_weights + r.optimizer_states + r.gathered_params +
                       r.fsdp_buffers() + r.activations + r.peak_transient();
    r.runtime_reserve = std::ceil((in.cuda_context + in.fragmentation * rows).in(byte)) * byte;
    r.stage = static_cast<std::int64_t>(i);
    total += t * dp * cp * r.per_gpu();
    if (i == 0 || r.per_gpu() > best.mem.per_gpu()) {
      best.mem = r;
      best.stage = st;
      best.states = s;
      best.expert_states = se;
      best.frozen = frozen;
      best.in_flight = in_flight;
      best.fsdp_trainable = fsdp_trainable;
    }
  }
  best.per_layer = per_layer;
  best.per_layer_full = per_layer_full;
  best.output_tensor = output_tensor;
  best.logits = best.stage.has_head ? logits : Bytes{};
  best.per_layer_none = per_layer_none;
  best.largest_module = largest;
  best.act = act;
  best.mem.total = total;
  if (in.capacity) best.mem.fits = best.mem.per_gpu() <= *in.capacity;
  return best;
}

}  // namespace

TrainingMemory training_memory(const specs::ModelSpec& m, const TrainingMemoryInput& in) {
  return compute_training(m, in).mem;
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
  const std::vector<StageShard> stages = shard_stages(m, c, in.tp, in.pp, in.ep);
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

// Adds the routed experts' share to the model-state rows model_states() wrote for the rest: under
// EP their states shard over dp / ep ranks, not dp.
void add_expert_states(const ModelStatesInput& experts, ResultSet& out) {
  const ModelStates e = model_states(experts);
  const std::pair<const char*, Bytes> rows[] = {{"weights", e.weights}, {"gradients", e.gradients},
                                                {"master_weights", e.master_weights},
                                                {"optimizer_states", e.optimizer_states}};
  for (const auto& [key, extra] : rows)
    for (std::size_t i = 0; i < out.items.size(); ++i)
      if (out.items[i].key == key) {
        const Item old = out.items[i];
        const Bytes rest = old.value.num * byte;
        out.item(old.key, old.label, value(rest + extra), "dense part + routed experts' part (dp/ep shards)",
                 text("{} + {} (routed experts: {} per GPU, ZeRO over dp/ep = {})", rest, extra, experts.params, experts.dp));
        out.items[i] = out.items.back();
        out.items.pop_back();
        break;
      }
}

// ---- pipeline schedule, partial recomputation, context parallelism: the rows -----------------

void schedule_activations_item(const TrainingMemoryInput& in, const TrainingParts& p, ResultSet& out) {
  const double k = std::min(in.recompute_layers.in(one), static_cast<double>(p.stage.layers));
  const double rest = static_cast<double>(p.stage.layers) - k;
  out.item("activations", "activations saved for backward", value(p.mem.activations),
           "in-flight · (K · fully recomputed layer + (L_stage − K) · per layer)",
           text("{} · ({} · {} + {} · {})", p.in_flight, k, p.per_layer_full, rest, p.per_layer));
}

// The loss's row at the last stage (memory/ledgers.h, LossKind).
void logits_item(const specs::ModelSpec& m, const TrainingMemoryInput& in, const TrainingParts& p, ResultSet& out) {
  const double v = std::ceil(static_cast<double>(m.vocab) / in.tp.in(one));
  const Count tokens = in.seq / in.cp.in(one) * in.micro_batch.in(one);
  const double h_split = static_cast<double>(m.hidden) / (in.sequence_parallel ? in.tp.in(one) : 1.0);
  switch (in.loss) {
    case LossKind::full:
      out.item("logits", "loss buffers (last stage)", value(p.mem.logits), "s·b·(12 B · V/t + 4 B · h_SP)",
               text("{} · (12 B · {} + 4 B · {})", tokens, v, h_split));
      break;
    case LossKind::fused:
      out.item("logits", "loss buffers (last stage)", value(p.mem.logits), "s·b·(6 B · V/t + 4 B · h_SP)",
               text("{} · (6 B · {} + 4 B · {})", tokens, v, h_split));
      break;
    case LossKind::chunked:
      out.item("logits", "loss buffers (last stage)", value(p.mem.logits), "s·b·(12 B · V/t / chunks + 8 B · h_SP)",
               text("{} · (12 B · {} / {} + 8 B · {})", tokens, v, kLossChunks, h_split));
      break;
  }
}

void loss_assumption(const TrainingMemoryInput& in, ResultSet& out) {
  switch (in.loss) {
    case LossKind::full:
      out.assume("loss", text("loss full (the default): PyTorch's cross_entropy on fp32-upcast logits, as torchtitan and "
                              "Hugging Face run it; at its backward the fp32 log-probabilities, their gradient and the "
                              "upcast logits' gradient, 12 B per logit, vocab-parallel under TP; plus the final norm's "
                              "and the head's 16-bit inputs"));
      break;
    case LossKind::fused:
      out.assume("loss", text("loss fused: one fp32 softmax the gradient is written into (Megatron-LM's "
                              "_VocabParallelCrossEntropy) beside the 16-bit logits, 6 B per logit; plus the final "
                              "norm's and the head's 16-bit inputs"));
      break;
    case LossKind::chunked:
      out.assume("loss", text("loss chunked: head and loss over {} chunks of the tokens, one at a time (torchtitan's "
                              "ChunkedLossWrapper): one chunk's 12 B per logit, the head input and its fp32 gradient "
                              "buffer; the head's unsharded weight gradient not counted",
                              kLossChunks));
      break;
  }
}

void transient_item(const TrainingParts& p, ResultSet& out) {
  out.item("recompute_transient", "one recomputed layer in backward", value(p.mem.recompute_transient),
           "per layer without recomputation − per layer kept",
           text("{} − {}", p.per_layer_none, p.mem.recompute_transient == p.per_layer_none - p.per_layer
                                                  ? p.per_layer
                                                  : p.per_layer_full));
}

void schedule_buffers_item(const TrainingMemoryInput& in, const TrainingParts& p, ResultSet& out) {
  out.item("pipeline_buffers", "pipeline output tensors (freed after send; not in per GPU)",
           value(p.mem.pipeline_buffers),
           in.sequence_parallel ? "in-flight · 2 B · s·b·h / t" : "in-flight · 2 B · s·b·h",
           text("{} · {}", p.in_flight, p.output_tensor));
}

void schedule_assumptions(const TrainingMemoryInput& in, const TrainingParts& p, ResultSet& out) {
  if (in.virtual_stages.in(one) > 1.0)
    out.assume("pipeline_schedule",
               text("interleaved 1F1B, {} model chunks per stage: stage {} of {} holds {} stages' worth of "
                    "micro-batches, (2·(p − i − 1) + (M − 1)·p + 1) / M chunks (Megatron-LM's warm-up); on stage 0 "
                    "p·(1 + (p − 1)/(p·M)) (Korthikanti et al. 2022, §4.2.3)",
                    in.virtual_stages, static_cast<double>(p.mem.stage), in.pp, p.in_flight));
  else
    out.assume("pipeline_schedule", text("1F1B schedule: stage {} of {} holds {} micro-batch(es) in flight",
                                         static_cast<double>(p.mem.stage), in.pp, p.in_flight));
  if (in.recompute_layers.in(one) > 0.0)
    out.assume("recompute_layers",
               text("{} layer(s) of each stage fully recomputed (Megatron-LM --recompute-method block), only their "
                    "input kept; train counts their forward rerun on top of --recompute's", in.recompute_layers));
  if (in.cp.in(one) > 1.0)
    out.assume("cp", text("context parallelism {}: each GPU keeps activations and logits of {} of the {} tokens; "
                          "ZeRO and the distributed optimizer shard over dp · cp = {} ranks; ring attention's K/V "
                          "exchange buffers not counted",
                          in.cp, in.seq / in.cp, in.seq, in.states.dp * in.cp.in(one)));
}

// ZeRO-3 without offload as FSDP2 runs it: the per-layer units' buffers (napkin/memory/ledgers.h).
void fsdp_items(const TrainingMemoryInput& in, const TrainingParts& p, ResultSet& out) {
  const TrainingMemory& r = p.mem;
  const Params layer = std::ceil(p.stage.largest_layer) * param;
  const Params trainable = p.fsdp_trainable * param;
  if (in.pp.in(one) > 1.0) {
    const Params stage = std::ceil(p.stage.params) * param;
    out.item("unsharded_params", "FSDP under pipelining: the stage unsharded", value(r.unsharded_params),
             "the stage's params per GPU · weight bytes", text("{} · {}", stage, r.unsharded_params / stage));
    const Params stage_trainable = in.lora_rank.in(one) > 0.0 ? p.states.params : stage;
    out.item("unsharded_grads", "FSDP under pipelining: gradients accumulated unsharded", value(r.unsharded_grads),
             "the stage's trainable params per GPU · reduce bytes",
             text("{} · {}", stage_trainable, r.unsharded_grads / stage_trainable));
  } else {
    out.item("unsharded_params", "FSDP: layer in flight + prefetched, unsharded", value(r.unsharded_params),
             "2 · largest layer's params per GPU · weight bytes",
             text("2 · {} · {}", layer, r.unsharded_params / (2.0 * layer)));
    out.item("unsharded_grads", "FSDP: the layer's unsharded gradients", value(r.unsharded_grads),
             "trainable params of a layer per GPU · gradient bytes", text("{} · {}", trainable, r.unsharded_grads / trainable));
  }
  out.item("reduce_scatter", "FSDP: reduce-scatter input", value(r.reduce_scatter),
           in.states.precision == Precision::mixed ? "trainable params of a layer per GPU · 4 B (fp32 reduce)"
                                                   : "trainable params of a layer per GPU · gradient bytes",
           text("{} · {}", trainable, r.reduce_scatter / trainable));
}

void fsdp_assumption(const TrainingMemoryInput& in, const TrainingParts& p, ResultSet& out) {
  if (in.pp.in(one) > 1.0) {
    out.assume("fsdp_buffers",
               text("ZeRO-3 under pipelining as torchtitan runs it (FSDP2 in torch.distributed.pipelining): the stage's "
                    "parameters stay unsharded across micro-batches (reshard_after_forward and reshard_after_backward "
                    "off) and its gradients accumulate unsharded in {} until the last micro-batch, then each layer's "
                    "reduce-scatter",
                    in.states.precision == Precision::mixed ? "fp32 (mixed_precision_reduce)" : "the gradients' type"));
    return;
  }
  out.assume("fsdp_buffers",
             text("ZeRO-3 as FSDP2 runs it with one unit per transformer layer (torchtitan's apply_fsdp): the largest "
                  "layer, {} per GPU, unsharded in flight and prefetched, its gradients and their reduce-scatter "
                  "input in {}; the root unit (embeddings, final norm, head) is gathered when the step starts and "
                  "ends, away from the peak, and not counted",
                  std::ceil(p.stage.largest_layer) * param,
                  in.states.precision == Precision::mixed ? "fp32 (mixed_precision_reduce)" : "the gradients' type"));
}

// The per-GPU total of a ledger with an architecture: the rows, the larger of the loss's buffers
// and one recomputed layer's transient (the loss's are freed before the first layer's backward).
void per_gpu_item(const TrainingMemory& r, ResultSet& out) {
  // ZeRO-3's buffers: DeepSpeed's gathered working set, or FSDP's three rows, as one term.
  const Bytes zero3 = r.gathered_params + r.fsdp_buffers();
  const bool gathered = zero3.in(byte) > 0.0;
  const bool both = r.logits.in(byte) > 0.0 && r.recompute_transient.in(byte) > 0.0;
  const bool one_transient = !both && r.peak_transient().in(byte) > 0.0;
  const std::string_view both_symbolic =
      "sum of the rows above, the larger of logits and recompute_transient (the loss's buffers are freed before the "
      "first layer's backward)";
  Item* it = nullptr;
  if (both && gathered)
    it = &out.item("per_gpu", "per GPU", value(r.per_gpu()), both_symbolic,
                   text("{} + {} + {} + {} + {} + {} + max({}, {}) + {}", r.weights, r.gradients, r.master_weights,
                        r.optimizer_states, zero3, r.activations, r.logits, r.recompute_transient,
                        r.runtime_reserve));
  else if (both)
    it = &out.item("per_gpu", "per GPU", value(r.per_gpu()), both_symbolic,
                   text("{} + {} + {} + {} + {} + max({}, {}) + {}", r.weights, r.gradients, r.master_weights,
                        r.optimizer_states, r.activations, r.logits, r.recompute_transient, r.runtime_reserve));
  else if (one_transient && gathered)
    it = &out.item("per_gpu", "per GPU", value(r.per_gpu()), "sum of the rows above",
                   text("{} + {} + {} + {} + {} + {} + {} + {}", r.weights, r.gradients, r.master_weights,
                        r.optimizer_states, zero3, r.activations, r.peak_transient(), r.runtime_reserve));
  else if (one_transient)
    it = &out.item("per_gpu", "per GPU", value(r.per_gpu()), "sum of the rows above",
                   text("{} + {} + {} + {} + {} + {} + {}", r.weights, r.gradients, r.master_weights,
                        r.optimizer_states, r.activations, r.peak_transient(), r.runtime_reserve));
  else if (gathered)
    it = &out.item("per_gpu", "per GPU", value(r.per_gpu()), "sum of the rows above",
                   text("{} + {} + {} + {} + {} + {} + {}", r.weights, r.gradients, r.master_weights,
                        r.optimizer_states, zero3, r.activations, r.runtime_reserve));
  else
    it = &out.item("per_gpu", "per GPU", value(r.per_gpu()), "sum of the rows above",
                   text("{} + {} + {} + {} + {} + {}", r.weights, r.gradients, r.master_weights, r.optimizer_states,
                        r.activations, r.runtime_reserve));
  it->is_total = true;
}

void training_memory(const specs::ModelSpec& m, const TrainingMemoryInput& in, ResultSet& out) {
  const TrainingParts p = compute_training(m, in);
  const TrainingMemory& r = p.mem;
  const bool offload_states = in.offload_optimizer || in.offload_params;
  const bool bare = m.count_only();
  out.command = "memory";
  if (bare) {
    out.input("params", value(static_cast<double>(m.bare_params) * param));
  } else {
    out.input("model", verdict(m.name));
  }
  out.input("train", boolean(true));
  if (!bare) {
    out.input("micro_batch", value(in.micro_batch));
    out.input("seq", value(in.seq));
  }
  out.input("dp", value(in.states.dp));
  out.input("tp", value(in.tp));
  out.input("pp", value(in.pp));
  if (in.ep.in(one) > 1.0) out.input("ep", value(in.ep));
  out.input("cp", value(in.cp));
  out.input("virtual_stages", value(in.virtual_stages));
  out.input("recompute_layers", value(in.recompute_layers));
  out.input("zero", value(static_cast<double>(in.states.zero_stage)));
  const bool lora = in.lora_rank.in(one) > 0.0;
  if (lora) {
    out.input("lora_rank", value(in.lora_rank));
    out.input("qlora", boolean(in.qlora));
    const Params all = std::ceil(p.stage.params) * param, kept = std::ceil(p.stage.kept_params) * param;
    const Bytes adapter = r.weights - p.frozen;
    if (in.qlora)
      out.item("weights", "weights (frozen base + adapters)", value(r.weights),
               "(P − P_keep) · 4.127 bits/8 + P_keep · 2 B + adapters",
               text("({} − {}) · 4.127/8 + {} · 2 B + {}", all, kept, kept, adapter));
    else
      out.item("weights", "weights (frozen base + adapters)", value(r.weights), "P · bytes + adapters",
               text("{} · {} + {}", all, state_bytes(in.states).weights, adapter));
    // The gradient, master-weight and optimizer rows are the adapters' own model states.
    const std::size_t before = out.items.size();
    model_states(p.states, out);
    out.items.erase(out.items.begin() + static_cast<std::ptrdiff_t>(before));  // its weights row: shown above
  } else {
    model_states(p.states, out);
    if (p.expert_states.params.in(param) > 0.0) add_expert_states(p.expert_states, out);
  }
  if (r.gathered_params.in(byte) > 0.0)
    out.item("gathered_params", "ZeRO-3 gathered working set", value(r.gathered_params),
             "4 B · largest module's params per GPU", text("4 B · {}", p.largest_module * param));
  if (r.fsdp_buffers().in(byte) > 0.0) fsdp_items(in, p, out);
  if (bare) {
    // No activations row: they need an architecture (bare_params assumption below).
  } else if (in.recompute_layers.in(one) > 0.0)
    schedule_activations_item(in, p, out);
  else
    out.item("activations", "activations saved for backward", value(r.activations),
             "L_stage · in-flight micro-batches · per layer",
             text("{} · {} · {}", static_cast<double>(p.stage.layers), p.in_flight, p.per_layer));
  if (!bare && r.logits.in(byte) > 0.0) logits_item(m, in, p, out);
  if (!bare && r.recompute_transient.in(byte) > 0.0) transient_item(p, out);
  out.item("runtime_reserve", "runtime reserve", value(r.runtime_reserve), "CUDA context + fragmentation · rows above",
           text("{} + {} · {}", in.cuda_context, in.fragmentation,
                r.weights + r.gradients + r.master_weights + r.optimizer_states + r.gathered_params +
                    r.fsdp_buffers() + r.activations + r.peak_transient()));
  if (lora) {
    out.assume("lora", text("LoRA rank {} on {}: {} of trainable adapters per GPU; the base is frozen "
                            "(no gradients or optimizer states)",
                            in.lora_rank, in.lora_all_linear ? "every linear layer" : "q, k, v, o", p.states.params));
    if (in.qlora)
      out.assume("qlora", text("QLoRA: frozen base in NF4 with double-quantized scales, 4.127 bits per parameter "
                               "(Dettmers et al. 2023, §3); embeddings, head and norms in bf16"));
  }
  if (offload_states)
    for (Item& it : out.items)
      if (it.key == "gradients" || it.key == "master_weights" || it.key == "optimizer_states" ||
          (in.offload_params && it.key == "weights")) {
        it.value = value(Bytes{});
        it.symbolic = "offloaded to CPU memory (see cpu_memory)";
        it.substituted = TextRef{};
      }
  if (bare)
    out.item("per_gpu", "per GPU", value(r.per_gpu()), "sum of the rows above",
             text("{} + {} + {} + {} + {}", r.weights, r.gradients, r.master_weights, r.optimizer_states,
                  r.runtime_reserve))
        .is_total = true;
  else
    per_gpu_item(r, out);
  out.item("total", "all GPUs", value(r.total), "Σ over stages · tp · dp",
           text("{} GPU(s)", in.tp.in(one) * in.pp.in(one) * in.states.dp.in(one) * in.cp.in(one)));
  // Below the total: Megatron frees each output tensor once it is sent, so it is not in per GPU.
  if (r.pipeline_buffers.in(byte) > 0.0) schedule_buffers_item(in, p, out);
  if (offload_states)
    out.item("cpu_memory", "CPU memory per GPU rank (offloaded)", value(r.cpu_memory),
             in.offload_params ? "weights + gradients + master weights + optimizer states"
                               : "gradients + master weights + optimizer states",
             text("{} moved off the GPU", r.cpu_memory));
  if (in.capacity) fit_items(r.per_gpu(), *in.capacity, out);
  if (in.offload_params)
    out.assume("offload", text("ZeRO-Infinity parameter offload: 16-bit weights, gradients, fp32 master weights and "
                               "optimizer states in CPU memory; the GPU holds the gathered working set"));
  else if (in.offload_optimizer)
    out.assume("offload", text("ZeRO-Offload (Ren et al. 2021, §4.1): gradients, fp32 master weights and optimizer "
                               "states in CPU memory, the update runs on the CPU; gradient buckets in flight not "
                               "counted"));
  if (r.fsdp_buffers().in(byte) > 0.0) fsdp_assumption(in, p, out);
  if (r.gathered_params.in(byte) > 0.0)
    out.assume("zero3_gather", text("ZeRO-3 gathers a module's 16-bit weights and gradients in full: 4 B × the largest "
                                    "module, {} (DeepSpeed's ZeRO-3 estimator); prefetch not counted",
                                    p.largest_module * param));
  if (in.ep.in(one) > 1.0)
    out.assume("ep", text("EP {}: routed experts split over {} ranks taken from the {} data-parallel ranks, each "
                          "expert's matrices also split over TP; shared experts and routers replicated",
                          in.ep, in.ep, in.states.dp));
  if (in.states.zero_stage > 0 && in.states.dp.in(one) * in.cp.in(one) == 1.0)
    out.warn(text("--zero {} with --dp 1 shards over one rank: nothing is saved", static_cast<double>(in.states.zero_stage)));
  if (!bare && in.recompute == Recompute::selective && in.flash_attention)
    out.warn(text("--recompute selective recomputes the attention scores, which fused attention never stores: the "
                  "ledger is that of no recomputation (--attention eager stores them)"));
  if (in.sequence_parallel && in.tp.in(one) == 1.0)
    out.warn(text("--sequence-parallel at --tp 1 splits nothing: the ledger is that of no sequence parallelism"));
  out.assume("cuda_context", text("{} per GPU for the CUDA context, libraries and kernels", in.cuda_context));
  out.assume("fragmentation", text("allocator fragmentation {} of the rows above", in.fragmentation));
  if (bare) {
    if (in.tp.in(one) * in.pp.in(one) > 1.0)
      out.assume("tp", text("P split evenly over TP {} × PP {} GPUs (no architecture: replicated norms are not "
                            "modelled)", in.tp, in.pp));
    out.assume("bare_params",
               in.states.zero_stage == 3 && (in.states.dp.in(one) > 1.0 || in.offload_params)
                   ? text("a bare parameter count: activations, and ZeRO-3's gathered working set (the largest "
                          "module), need an architecture and are not computed (give MODEL)")
                   : text("a bare parameter count: activations need an architecture and are not computed (give "
                          "MODEL)"));
    return;
  }
  activations_per_layer(p.act, out);
  saved_tensor_notes(p.act, out);
  switch (in.recompute) {
    case Recompute::none: out.assume("recompute", text("no activation recomputation")); break;
    case Recompute::selective:
      out.assume("recompute", text("selective recomputation as Korthikanti et al. 2022 define it (§5): the attention "
                                   "scores (the a·s/h term) recomputed, not stored; the rest of the layer kept"));
      break;
    case Recompute::full:
      out.assume("recompute",
                 in.sequence_parallel && in.tp.in(one) > 1.0
                     ? text("full recomputation: only each layer's input is kept, [s/t, b, h] under sequence "
                            "parallelism (Megatron-LM's checkpoint input; torchtitan's too)")
                     : text("full recomputation: only each layer's input is kept"));
      break;
    case Recompute::op_sac:
      out.assume("recompute", text("op-sac: torchtitan's per-op selective checkpointing (torchtitan 9dec370, "
                                   "torchtitan/parallelisms/parallelize_llama.py _save_list; b5bcd76, "
                                   "torchtitan/distributed/activation_checkpoint.py): each layer keeps its input and the "
                                   "outputs of matmuls 1, 3, 5, 7 (q, v, gate or fc1, down), of fused attention and of "
                                   "reduce-scatters; the rest is rerun in backward"));
      break;
  }
  if (in.distribute_saved_activations)
    out.assume("distribute_saved", text("--distribute-saved-activations: each fully recomputed layer's input split over "
                                        "the {} TP ranks and all-gathered before its rerun (Megatron-LM)", in.tp));
  if (r.logits.in(byte) > 0.0) loss_assumption(in, out);
  if (in.dropout && *in.dropout > 0.0)
    out.assume("dropout", text("dropout {} (given): 1-byte masks after attention and MLP, and the mask and output of "
                               "the attention probabilities", *in.dropout));
  else if (in.dropout)
    out.assume("dropout", text("no dropout (given): no masks"));
  else if (p.act.dropout || p.act.attention_dropout)
    out.assume("dropout", text("dropout from the model's config: attention {}, hidden {} (1-byte masks and dropout "
                               "outputs, as in Korthikanti's GPT layers)",
                               m.attention_dropout, m.hidden_dropout));
  else
    out.assume("dropout", text("no dropout: the model's config has attention and hidden dropout 0 (or none), as "
                               "Llama, Qwen and Mistral configs do"));
  if (in.virtual_stages.in(one) > 1.0 || in.cp.in(one) > 1.0 || in.recompute_layers.in(one) > 0.0)
    schedule_assumptions(in, p, out);
  else
  out.assume("pipeline_schedule", text("1F1B schedule: stage {} of {} holds {} micro-batch(es) in flight",
                                       static_cast<double>(r.stage), in.pp, p.in_flight));
  const bool tensors = p.act.accounting == ActivationAccounting::tensors;
  out.assume("activation_shape",
             m.moe.is_moe() && tensors
                 ? text("MoE layers: each token's k routed and shared experts' intermediates, the router probabilities "
                        "and the k dispatched copies kept (dropless routing: capacity factor 1); embedding-dropout "
                        "activations and backward's activation gradients not counted")
             : m.moe.is_moe()
                 ? text("MoE layers: each token's k routed and shared experts' intermediates kept; token dispatch "
                        "buffers and router logits not counted; embedding-dropout activations not counted")
                 : text("embedding-dropout activations and backward's activation gradients not counted"));
}

}  // namespace napkin

namespace napkin {

std::int64_t zero3_largest_module_params(const specs::ModelSpec& m) {
  return static_cast<std::int64_t>(largest_module_params(m, 1.0));
}

}  // namespace napkin
