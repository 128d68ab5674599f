// Activations one layer keeps for backward, tensor by tensor (Korthikanti et al. 2022's inventory
// and the tensors current kernels keep beside it), under each recomputation policy; the logits and
// loss conventions of the last stage. See napkin/memory/ledgers.h.
#include <cmath>
#include <string>
#include <vector>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/memory/ledgers.h"

namespace napkin {

using namespace units;

std::string_view to_string(ActivationAccounting a) {
  return a == ActivationAccounting::korthikanti ? "korthikanti" : "tensors";
}

ActivationAccounting parse_activation_accounting(std::string_view text, std::string_view field) {
  if (text == "korthikanti") return ActivationAccounting::korthikanti;
  if (text == "tensors") return ActivationAccounting::tensors;
  throw InputError(std::string(field), std::string(text), "korthikanti or tensors");
}

std::string_view to_string(LossKind k) {
  switch (k) {
    case LossKind::full: return "full";
    case LossKind::fused: return "fused";
    case LossKind::chunked: return "chunked";
  }
  return "full";
}

LossKind parse_loss(std::string_view text, std::string_view field) {
  if (text == "full") return LossKind::full;
  if (text == "fused") return LossKind::fused;
  if (text == "chunked") return LossKind::chunked;
  throw InputError(std::string(field), std::string(text), "full, fused or chunked");
}

namespace {

// Which policies keep a tensor of the inventory (full keeps the layer input only).
constexpr unsigned kNone = 1, kSelective = 2, kOpSac = 4;

struct Inventoried {
  SavedTensor t;
  unsigned kept = 0;
};

// The layer's widths, per token, checked.
struct Widths {
  double h = 0, q = 0, k = 0, v = 0, f = 0, a = 0, s = 0;
  double stats = 0;   // fp32 norm statistics per token (tensors)
  double latent = 0;  // MLA latents (tensors)
  double topk = 0, experts = 0;
  bool tensors = false;
};

Widths widths_of(const ActivationInput& in) {
  require_positive_integer(in.hidden, "hidden");
  require_positive_integer(in.heads, "heads");
  require_non_negative(in.kv_width, "kv_width");
  require_non_negative(in.ffn_width, "ffn_width");
  require_non_negative(in.q_width, "q_width");
  require_non_negative(in.v_width, "v_width");
  require_non_negative(in.latent_width, "latent_width");
  require_non_negative(in.moe_topk, "moe_topk");
  require_non_negative(in.moe_experts, "moe_experts");
  Widths w;
  w.tensors = in.accounting == ActivationAccounting::tensors;
  w.h = in.hidden.in(one);
  w.a = in.heads.in(one);
  w.s = in.seq.in(one);
  w.k = in.kv_width.in(one) > 0.0 ? in.kv_width.in(one) : w.h;
  w.f = in.ffn_width.in(one) > 0.0 ? in.ffn_width.in(one) : 4.0 * w.h;
  // Korthikanti's Q and attention output are h wide; the tensors accounting takes H·d_head.
  w.q = w.tensors && in.q_width.in(one) > 0.0 ? in.q_width.in(one) : w.h;
  w.v = w.tensors && in.v_width.in(one) > 0.0 ? in.v_width.in(one) : w.k;
  if (w.tensors) {
    // RMSNorm saves 1/rms per token, LayerNorm its mean and 1/σ, in fp32 (PyTorch's native and
    // Apex/Transformer Engine fused norms alike).
    w.stats = in.rmsnorm ? 4.0 : 8.0;
    w.latent = in.latent_width.in(one);
    w.topk = in.moe_topk.in(one);
    w.experts = in.moe_experts.in(one);
  }
  return w;
}

// The whole inventory of one layer in forward order, each tensor with the policies that keep it.
// op-sac: torchtitan's policy counts aten.mm calls within the layer and saves the odd-numbered
// ones (q 1, k 2, v 3, o 4, gate 5, up 6, down 7; plain MLP: fc1 5, fc2 6), plus fused attention
// (torchtitan 9dec370, torchtitan/parallelisms/parallelize_llama.py, _save_list and
// _custom_policy; the same rule at b5bcd76, torchtitan/distributed/activation_checkpoint.py).
std::vector<Inventoried> inventory(const ActivationInput& in, const Widths& w) {
  const unsigned all = kNone | kSelective;
  const bool sp_tp = in.sequence_parallel && in.tp.in(one) > 1.0;
  std::vector<Inventoried> v;
  auto add = [&](std::string_view key, std::string_view what, double bytes, TensorSplit split, unsigned kept,
                 bool scores = false) {
    if (bytes > 0.0) v.push_back(Inventoried{SavedTensor{key, what, bytes, split, scores}, kept});
  };
  using enum TensorSplit;
  add("layer_input", "the layer's input, the attention norm's input (op-sac: the checkpoint's argument)", 2.0 * w.h,
      sequence, all | kOpSac);
  add("attn_norm_stats", "attention norm statistics, fp32 per token", w.stats, sequence, all);
  add("attn_norm_out", "attention norm output, the input of the q, k, v projections", 2.0 * w.h, sequence, all);
  add("mla_latents", "MLA latents: the compressed q and kv (with the RoPE key), inputs of their up-projections",
      2.0 * w.latent, sequence, all);
  add("q", "query projection output (matmul 1)", 2.0 * w.q, tensor, all | kOpSac);
  add("k", "key projection output (matmul 2)", 2.0 * w.k, tensor, all);
  add("v", "value projection output (matmul 3)", 2.0 * w.v, tensor, all | kOpSac);
  if (!in.flash_attention)
    add("attn_probs",
        in.attention_dropout ? "attention probabilities: softmax output 2 B, dropout mask 1 B and output 2 B per score"
                             : "attention probabilities: softmax output, 2 B per score",
        (in.attention_dropout ? 5.0 : 2.0) * w.a * w.s, tensor, kNone, true);
  add("attn_out", "attention output, the o projection's input (fused attention keeps it too)", 2.0 * w.q, tensor,
      all | kOpSac);
  if (in.flash_attention && w.tensors)
    add("attn_lse", "fused attention's log-sum-exp, fp32 per head", 4.0 * w.a, tensor, all | kOpSac);
  if (sp_tp) add("attn_rs", "reduce-scatter of the o projection's partial sums (op-sac saves it)", 2.0 * w.h, sequence, kOpSac);
  if (in.dropout) add("attn_dropout_mask", "dropout mask after attention, 1 B", w.h, sequence, all);
  add("mlp_norm_in", "MLP norm input, the residual stream after attention", 2.0 * w.h, sequence, all);
  add("mlp_norm_stats", "MLP norm statistics, fp32 per token", w.stats, sequence, all);
  add("mlp_norm_out", "MLP norm output, the input of the first projections", 2.0 * w.h, sequence, all);
  if (w.topk > 0.0) {
    add("router_probs", "router probabilities, fp32 per routed expert", 4.0 * w.experts, sequence, all);
    add("moe_dispatch", "dispatched token copies, the inputs of the k routed experts", 2.0 * w.h * w.topk, sequence, all);
  }
  if (in.gated) {
    add("mlp_gate", "gate projection output (matmul 5)", 2.0 * w.f, tensor, all | kOpSac);
    add("mlp_up", "up projection output (matmul 6)", 2.0 * w.f, tensor, all);
    add("mlp_act", "activation(gate) · up, the down projection's input", 2.0 * w.f, tensor, all);
    add("mlp_down", "down projection output (matmul 7), at full width on every TP rank before its reduction",
        2.0 * w.h, whole, kOpSac);
  } else {
    add("mlp_fc1", "fc1 output, the activation's input (matmul 5)", 2.0 * w.f, tensor, all | kOpSac);
    add("mlp_act", "activation output, fc2's input", 2.0 * w.f, tensor, all);
  }
  if (sp_tp) add("mlp_rs", "reduce-scatter of the down projection's partial sums (op-sac saves it)", 2.0 * w.h, sequence, kOpSac);
  if (w.topk > 0.0)
    add("moe_combine", "expert outputs before the weighted combine", 2.0 * w.h * w.topk, sequence, all);
  if (in.dropout) add("mlp_dropout_mask", "dropout mask after the MLP, 1 B", w.h, sequence, all);
  return v;
}

void check_policy(const ActivationInput& in) {
  if (in.recompute != Recompute::op_sac) return;
  if (!in.flash_attention)
    throw InputError("--recompute", "op-sac",
                     "fused attention with it (torchtitan's policy saves the fused attention kernel's outputs; "
                     "--attention eager is not modelled)");
  if (in.latent_width.in(one) > 0.0 || in.moe_topk.in(one) > 0.0)
    throw InputError("--recompute", "op-sac",
                     "a model without MLA or experts (op-sac's every-other-matmul rule is modelled for Llama-style "
                     "q, k, v, o and MLP layers)");
}

double divisor(TensorSplit split, const ActivationInput& in) {
  const double t = in.tp.in(one);
  switch (split) {
    case TensorSplit::sequence: return in.sequence_parallel ? t : 1.0;
    case TensorSplit::tensor: return t;
    case TensorSplit::whole: return 1.0;
  }
  return 1.0;
}

}  // namespace

std::vector<SavedTensor> saved_tensors(const ActivationInput& in) {
  const Widths w = widths_of(in);
  check_policy(in);
  if (in.recompute == Recompute::full) {
    // Megatron-LM checkpoints the layer's input: [s/t, b, h] under sequence parallelism, and split
    // over the TP ranks by --distribute-saved-activations without it (tensor_parallel/random.py,
    // CheckpointFunction; Korthikanti et al. 2022, §5, table 2: 2·s·b·h).
    return {SavedTensor{"layer_input", "the layer's input, the checkpoint's argument", 2.0 * w.h,
                        in.distribute_saved && !in.sequence_parallel ? TensorSplit::tensor : TensorSplit::sequence,
                        false}};
  }
  const unsigned mask = in.recompute == Recompute::op_sac  ? kOpSac
                        : in.recompute == Recompute::selective ? kSelective
                                                               : kNone;
  std::vector<SavedTensor> kept;
  for (const Inventoried& i : inventory(in, w))
    if ((i.kept & mask) != 0) kept.push_back(i.t);
  return kept;
}

ActivationTerms activation_terms(const ActivationInput& in) {
  const double h = in.hidden.in(one);
  ActivationTerms c;
  for (const SavedTensor& t : saved_tensors(in)) {
    if (t.scores) c.scores += t.bytes_per_token / (in.heads.in(one) * in.seq.in(one));
    else if (t.split == TensorSplit::sequence) c.outside += t.bytes_per_token / h;
    else if (t.split == TensorSplit::tensor) c.inside += t.bytes_per_token / h;
    else c.whole += t.bytes_per_token / h;
  }
  return c;
}

Bytes activations_per_layer(const ActivationInput& in) {
  require_positive_integer(in.seq, "seq");
  require_positive_integer(in.micro_batch, "micro_batch");
  require_positive_integer(in.tp, "tp");
  const double sb = in.seq.in(one) * in.micro_batch.in(one);
  // Summed by split, then divided: s·b·(Σ sequence / t_SP + Σ tensor / t + Σ whole).
  double seq = 0, tensor = 0, whole = 0;
  for (const SavedTensor& t : saved_tensors(in)) {
    if (t.split == TensorSplit::sequence) seq += t.bytes_per_token;
    else if (t.split == TensorSplit::tensor) tensor += t.bytes_per_token;
    else whole += t.bytes_per_token;
  }
  const double t = in.tp.in(one);
  return sb * (seq / (in.sequence_parallel ? t : 1.0) + tensor / t + whole) * byte;
}

double op_sac_rerun_flop_per_token(const ActivationInput& in) {
  const Widths w = widths_of(in);
  // k (h → h_kv) and o (h_q → h), then up (gated) or fc2 (plain): 2 FLOP per multiply-add.
  return 2.0 * (w.h * w.k + w.q * w.h + w.h * w.f);
}

void activations_per_layer(const ActivationInput& in, ResultSet& out) {
  const Bytes a = activations_per_layer(in);
  const ActivationTerms c = activation_terms(in);
  const bool keep_scores = c.scores > 0.0;
  const double all = c.outside + c.inside;
  const bool tensors = in.accounting == ActivationAccounting::tensors;
  // c_s · a · s / h, the attention-score multiple before the TP split.
  const double score_term = c.scores * in.heads.in(one) * in.seq.in(one) / in.hidden.in(one);
  if (in.recompute == Recompute::full && (in.sequence_parallel || in.distribute_saved))
    out.item("activations_per_layer", "activations per layer (detail)", value(a),
             in.sequence_parallel ? "2·s·b·h/t (full recompute; sequence parallel: the input is split)"
                                  : "2·s·b·h/t (full recompute; input distributed over TP)",
             text("2 · {} · {} · {} / {}", in.seq, in.micro_batch, in.hidden, in.tp));
  else if (in.recompute == Recompute::full)
    out.item("activations_per_layer", "activations per layer (detail)", value(a), "2·s·b·h (full recompute)",
             text("2 · {} · {} · {}", in.seq, in.micro_batch, in.hidden));
  else if (c.whole > 0.0 && in.sequence_parallel)
    out.item("activations_per_layer", "activations per layer (detail)", value(a), "s·b·h·(c/t + c_w)",
             text("{} · {} · {} · ({}/{} + {})", in.seq, in.micro_batch, in.hidden, all, in.tp, c.whole));
  else if (c.whole > 0.0)
    out.item("activations_per_layer", "activations per layer (detail)", value(a), "s·b·h·(c_o + c_i/t + c_w)",
             text("{} · {} · {} · ({} + {}/{} + {})", in.seq, in.micro_batch, in.hidden, c.outside, c.inside, in.tp,
                  c.whole));
  else if (in.sequence_parallel && keep_scores)
    out.item("activations_per_layer", "activations per layer (detail)", value(a), "s·b·h·(c/t + c_s·a·s/(h·t))",
             text("{} · {} · {} · ({}/{} + {}/{})", in.seq, in.micro_batch, in.hidden, all, in.tp, score_term, in.tp));
  else if (in.sequence_parallel)
    out.item("activations_per_layer", "activations per layer (detail)", value(a), "s·b·h·c/t",
             text("{} · {} · {} · {}/{}", in.seq, in.micro_batch, in.hidden, all, in.tp));
  else if (keep_scores)
    out.item("activations_per_layer", "activations per layer (detail)", value(a), "s·b·h·(c_o + c_i/t + c_s·a·s/(h·t))",
             text("{} · {} · {} · ({} + {}/{} + {}/{})", in.seq, in.micro_batch, in.hidden, c.outside, c.inside, in.tp,
                  score_term, in.tp));
  else
    out.item("activations_per_layer", "activations per layer (detail)", value(a), "s·b·h·(c_o + c_i/t)",
             text("{} · {} · {} · ({} + {}/{})", in.seq, in.micro_batch, in.hidden, c.outside, c.inside, in.tp));
  // The inventory's coefficients before any recomputation: what the policy chooses from.
  ActivationInput every = in;
  every.recompute = Recompute::none;
  ActivationTerms e = activation_terms(every);
  every.flash_attention = false;  // c_s: what eager attention would keep per score
  e.scores = activation_terms(every).scores;
  if (tensors)
    out.assume("activation_model",
               text("saved tensors counted one by one at the layer's widths (--explain lists them; "
                    "--activation-accounting korthikanti for the paper's coefficients): before recomputation c_o = {} "
                    "outside TP, c_i = {} inside ({} MLP), c_s = {} per a·s/h",
                    e.outside, e.inside, in.gated ? "gated" : "plain", e.scores));
  else
    out.assume("activation_model",
               text("Korthikanti et al. 2022 §4.1, 16-bit activations: c_o = {} outside TP, c_i = {} inside ({} MLP), "
                    "c_s = {} per a·s/h (a GPT layer: 10, 24, 5)",
                    e.outside, e.inside, in.gated ? "gated" : "GeLU", e.scores));
  if (in.recompute == Recompute::none && in.flash_attention)
    out.assume("flash_attention", text("fused attention (FlashAttention, cuDNN/SDPA; the default of current training "
                                       "stacks): the a·s/h scores are never stored, only the output and softmax "
                                       "statistics"));
  else if (in.recompute == Recompute::none)
    out.assume("flash_attention", text("eager attention (Korthikanti 2022): the softmax output{} of every a·s/h score "
                                       "is stored",
                                       in.attention_dropout ? " and its dropout mask and output" : ""));
}

void saved_tensor_notes(const ActivationInput& in, ResultSet& out) {
  const double sb = in.seq.in(one) * in.micro_batch.in(one);
  out.note(text("saved tensors of one layer ({}, per GPU, one micro-batch of {} × {} tokens):",
                to_string(in.accounting), in.micro_batch, in.seq));
  for (const SavedTensor& t : saved_tensors(in)) {
    const double d = divisor(t.split, in);
    const Bytes per_layer = sb * t.bytes_per_token / d * byte;
    const std::string_view split = t.split == TensorSplit::tensor     ? "split over TP"
                                   : t.split == TensorSplit::whole    ? "whole on every TP rank"
                                   : in.sequence_parallel             ? "split by sequence parallelism"
                                                                      : "replicated over TP";
    out.note(text("  {}: {}; {} B per token, {} (÷ {}): {}", t.key, t.what, t.bytes_per_token, split, d, per_layer));
  }
}

}  // namespace napkin
