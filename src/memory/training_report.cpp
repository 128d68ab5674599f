// The memory --train command's result: the training ledger's numbers (training.cpp) as items,
// assumptions and warnings.
#include "napkin/memory/ledgers.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "napkin/model/context_limit.h"
#include "napkin/model/parallel.h"
#include "training_detail.h"

namespace napkin {

using namespace units;
using training_detail::TrainingParts;

namespace {

// Adds the routed experts' share to the model-state rows model_states() wrote for the rest: under
// EP their states shard over dp / ep ranks, not dp; with --etp or --cp over tp·cp·dp / (ep·etp),
// the expert data-parallel size (`expert_dp`).
void add_expert_states(const ModelStatesInput& experts, bool expert_dp, ResultSet& out) {
  const ModelStates e = model_states(experts);
  const std::pair<const char*, Bytes> rows[] = {{"weights", e.weights}, {"gradients", e.gradients},
                                                {"master_weights", e.master_weights},
                                                {"optimizer_states", e.optimizer_states}};
  for (const auto& [key, extra] : rows)
    for (std::size_t i = 0; i < out.items.size(); ++i)
      if (out.items[i].key == key) {
        const Item old = out.items[i];
        const Bytes rest = old.value.num * byte;
        if (expert_dp)
          out.item(old.key, old.label, value(rest + extra), "dense part + routed experts' part (expert-dp shards)",
                   text("{} + {} (routed experts: {} per GPU, ZeRO over tp·cp·dp/(ep·etp) = {})", rest, extra,
                        experts.params, experts.dp));
        else
          out.item(old.key, old.label, value(rest + extra), "dense part + routed experts' part (dp/ep shards)",
                   text("{} + {} (routed experts: {} per GPU, ZeRO over dp/ep = {})", rest, extra, experts.params,
                        experts.dp));
        out.items[i] = out.items.back();
        out.items.pop_back();
        break;
      }
}

// Megatron-Core's expert grid (--etp, or --ep with --cp): EP × ETP ranks laid over the tp·cp·dp
// ranks of a stage, the routed experts' states sharded over what is left of them.
void expert_grid_assumption(const TrainingMemoryInput& in, const TrainingParts& p, ResultSet& out) {
  const double te = in.etp ? in.etp->in(one) : in.tp.in(one);
  const Count ranks = in.tp * (in.cp.in(one) * in.states.dp.in(one));
  out.assume(in.etp ? "etp" : "ep",
             text("EP {} × ETP {}{}: routed experts split over {} expert-parallel ranks, each expert's matrices over "
                  "{} ETP rank(s); the expert grid is laid over the tp·cp·dp = {} ranks of a stage (Megatron-Core), "
                  "so the routed experts' states shard over {} expert data-parallel rank(s); shared experts and "
                  "routers split over TP as the dense layers are",
                  in.ep, te, in.etp ? "" : " (= TP)", in.ep, te, ranks, p.expert_states.dp));
}

// The stage split when --first-stage-layers or --last-stage-layers makes it uneven.
void stage_split_assumption(const specs::ModelSpec& m, const TrainingMemoryInput& in, const TrainingParts& p,
                            ResultSet& out) {
  auto whole = [](const std::optional<Count>& n) {
    return n ? std::optional<std::int64_t>(static_cast<std::int64_t>(n->in(one))) : std::nullopt;
  };
  const auto pp = static_cast<std::int64_t>(in.pp.in(one));
  const std::vector<std::int64_t> counts =
      stage_layer_counts(m.layers, pp, whole(in.first_stage_layers), whole(in.last_stage_layers));
  const std::int64_t middle = pp - (in.first_stage_layers ? 1 : 0) - (in.last_stage_layers ? 1 : 0);
  const double each = middle > 0 ? static_cast<double>(counts[in.first_stage_layers ? 1 : 0]) : 0.0;
  out.assume("stage_split",
             text("uneven pipeline (Megatron-LM --decoder-first/last-pipeline-num-layers): first stage {} layers, "
                  "last stage {}, the {} stage(s) between {} each; stage {} is shown",
                  static_cast<double>(counts.front()), static_cast<double>(counts.back()),
                  static_cast<double>(middle), each, static_cast<double>(p.mem.stage)));
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
                    "p·(1 + (p − 1)/(p·M)) (Korthikanti et al. 2022, §4.2.3){}",
                    in.virtual_stages, static_cast<double>(p.mem.stage), in.pp, p.in_flight,
                    out.keep(p.stage.layers % static_cast<std::int64_t>(in.virtual_stages.in(one)) != 0
                                 ? "; its " + std::to_string(p.stage.layers) +
                                       " layers in uneven chunks (⌈L/M⌉ and ⌊L/M⌋, the embedding's and the loss's "
                                       "chunks the lighter, as Megatron-Bridge accounts them), the in-flight chunks' "
                                       "layers counted one by one"
                                 : std::string())));
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

// The ledger of the shown stage as the command's result: each step below adds one part of it,
// in the order the renderers print it.
struct TrainingReport {
  const specs::ModelSpec& m;
  const TrainingMemoryInput& in;
  const TrainingParts& p;
  const TrainingMemory& r;  // the shown stage's ledger
  bool offload_states;      // ZeRO-Offload or ZeRO-Infinity
  bool bare;                // a bare parameter count: no activations
  bool lora;

  TrainingReport(const specs::ModelSpec& model, const TrainingMemoryInput& i, const TrainingParts& parts)
      : m(model), in(i), p(parts), r(parts.mem), offload_states(i.offload_optimizer || i.offload_params),
        bare(model.count_only()), lora(i.lora_rank.in(one) > 0.0) {}

  void inputs(ResultSet& out) const;
  void model_state_items(ResultSet& out) const;
  void ledger_rows(ResultSet& out) const;
  void lora_assumptions(ResultSet& out) const;
  void offloaded_rows(ResultSet& out) const;
  void total_items(ResultSet& out) const;
  void states_assumptions(ResultSet& out) const;
  void bare_assumptions(ResultSet& out) const;
  void recompute_assumptions(ResultSet& out) const;
  void layer_assumptions(ResultSet& out) const;
};

// The command's name and the ledger's inputs.
void TrainingReport::inputs(ResultSet& out) const {
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
  if (in.etp) out.input("etp", value(*in.etp));
  if (in.first_stage_layers) out.input("first_stage_layers", value(*in.first_stage_layers));
  if (in.last_stage_layers) out.input("last_stage_layers", value(*in.last_stage_layers));
  out.input("cp", value(in.cp));
  out.input("virtual_stages", value(in.virtual_stages));
  out.input("recompute_layers", value(in.recompute_layers));
  out.input("zero", value(static_cast<double>(in.states.zero_stage)));
  if (lora) {
    out.input("lora_rank", value(in.lora_rank));
    out.input("qlora", boolean(in.qlora));
  }
}

// The model states: the weights, gradients, master weights and optimizer states (with LoRA the
// frozen base and the adapters' own states; under EP the routed experts' share added).
void TrainingReport::model_state_items(ResultSet& out) const {
  if (lora) {
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
    if (p.expert_states.params.in(param) > 0.0)
      add_expert_states(p.expert_states, in.etp.has_value() || in.cp.in(one) > 1.0, out);
  }
}

// ZeRO-3's buffers, the activations, the loss's buffers, the recompute transient and the reserve.
void TrainingReport::ledger_rows(ResultSet& out) const {
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
}

// The adapters trained and, for QLoRA, how the frozen base is stored.
void TrainingReport::lora_assumptions(ResultSet& out) const {
  if (!lora) return;
  out.assume("lora", text("LoRA rank {} on {}: {} of trainable adapters per GPU; the base is frozen "
                          "(no gradients or optimizer states)",
                          in.lora_rank, in.lora_all_linear ? "every linear layer" : "q, k, v, o", p.states.params));
  if (in.qlora)
    out.assume("qlora", text("QLoRA: frozen base in NF4 with double-quantized scales, 4.127 bits per parameter "
                             "(Dettmers et al. 2023, §3); embeddings, head and norms in bf16"));
}

// Offload: the model-state rows that moved to CPU memory, shown as 0 on the GPU.
void TrainingReport::offloaded_rows(ResultSet& out) const {
  if (!offload_states) return;
  for (Item& it : out.items)
    if (it.key == "gradients" || it.key == "master_weights" || it.key == "optimizer_states" ||
        (in.offload_params && it.key == "weights")) {
      it.value = value(Bytes{});
      it.symbolic = "offloaded to CPU memory (see cpu_memory)";
      it.substituted = TextRef{};
    }
}

// Per GPU and all GPUs, then below the total what per GPU leaves out: the pipeline's output
// tensors and the offloaded states in CPU memory.
void TrainingReport::total_items(ResultSet& out) const {
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
}

// Where the model states live (offload, FSDP, ZeRO-3's gather, EP), the flags that change
// nothing, and the runtime reserve's terms.
void TrainingReport::states_assumptions(ResultSet& out) const {
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
  if (in.etp || (in.ep.in(one) > 1.0 && in.cp.in(one) > 1.0))
    expert_grid_assumption(in, p, out);
  else if (in.ep.in(one) > 1.0)
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
}

// A bare parameter count: the sharding, and what needs an architecture.
void TrainingReport::bare_assumptions(ResultSet& out) const {
  if (in.tp.in(one) * in.pp.in(one) > 1.0)
    out.assume("tp", text("P split evenly over TP {} × PP {} GPUs (no architecture: replicated norms are not "
                          "modelled)", in.tp, in.pp));
  out.assume("bare_params",
             in.states.zero_stage == 3 && (in.states.dp.in(one) > 1.0 || in.offload_params)
                 ? text("a bare parameter count: activations, and ZeRO-3's gathered working set (the largest "
                        "module), need an architecture and are not computed (give MODEL)")
                 : text("a bare parameter count: activations need an architecture and are not computed (give "
                        "MODEL)"));
}

// The activations per layer, the saved tensors and the recomputation.
void TrainingReport::recompute_assumptions(ResultSet& out) const {
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
}

// The loss, dropout, the pipeline schedule and the layer's shape.
void TrainingReport::layer_assumptions(ResultSet& out) const {
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
  if (in.first_stage_layers || in.last_stage_layers) stage_split_assumption(m, in, p, out);
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

}  // namespace

void training_memory(const specs::ModelSpec& m, const TrainingMemoryInput& in, ResultSet& out) {
  const TrainingParts p = training_detail::compute_training(m, in);
  const TrainingReport report(m, in, p);
  if (!m.count_only()) check_trained_context(m, in.seq.in(units::one), "--seq", out);
  report.inputs(out);
  report.model_state_items(out);
  report.ledger_rows(out);
  report.lora_assumptions(out);
  report.offloaded_rows(out);
  report.total_items(out);
  if (in.capacity) fit_items(p.mem.per_gpu(), *in.capacity, out);
  report.states_assumptions(out);
  if (report.bare) return report.bare_assumptions(out);
  report.recompute_assumptions(out);
  report.layer_assumptions(out);
}

}  // namespace napkin
