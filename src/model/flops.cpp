#include "napkin/model/flops.h"

#include <cmath>
#include <optional>
#include <string>

#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/model/params.h"

namespace napkin {

using namespace units;

// ---- matmul ---------------------------------------------------------------------------------

Flops matmul_flops(const MatmulInput& in) {
  require_positive_integer(in.m, "m");
  require_positive_integer(in.k, "k");
  require_positive_integer(in.n, "n");
  // Each of the m·n outputs takes k multiplies and k−1 adds; 2k is the usual rounding.
  const double per_mac = in.fma_as_one ? 1.0 : 2.0;
  return per_mac * in.m.in(one) * in.k.in(one) * in.n.in(one) * flop;
}

void matmul_flops(const MatmulInput& in, ResultSet& out) {
  const Flops c = matmul_flops(in);
  out.command = "flops matmul";
  out.input("m", value(in.m));
  out.input("k", value(in.k));
  out.input("n", value(in.n));
  out.input("fma_as_one", boolean(in.fma_as_one));
  if (in.fma_as_one) {
    out.item("flops", "matmul FLOP", value(c), "C = m·k·n",
             text("{} · {} · {}", in.m, in.k, in.n));
    out.assume("fma_counting",
               text("a fused multiply-add counts as 1 operation (C = m·k·n, half the usual 2·m·k·n)"));
  } else {
    out.item("flops", "matmul FLOP", value(c), "C = 2·m·k·n",
             text("2 · {} · {} · {}", in.m, in.k, in.n));
    out.assume("fma_counting",
               text("a multiply and an add count as 2 FLOP (k multiplies + k−1 adds ≈ 2k per output)"));
  }
  out.note(text("[{},{}] @ [{},{}] -> [{},{}]: {} outputs, each a dot product of length {}", in.m,
                in.k, in.k, in.n, in.m, in.n, in.m.in(one) * in.n.in(one), in.k));
}

// ---- FFN ------------------------------------------------------------------------------------

FlopsPerToken ffn_flops_per_token(const FfnInput& in) {
  require_positive_integer(in.d, "d");
  require_positive_integer(in.f, "f");
  // Two matmuls D→F and F→D at 2 FLOP per multiply-add; a gated FFN has a third (the gate).
  const double projections = in.gated ? 3.0 : 2.0;
  return 2.0 * projections * in.d.in(one) * in.f.in(one) * (flop / token);
}

Tokens ffn_tokens(const FfnInput& in) {
  if (in.batch.has_value() != in.seq.has_value()) {
    if (in.batch)
      throw InputError("batch", format_plain_number(in.batch->in(one)), "--seq with --batch (tokens = B·T)");
    throw InputError("seq", format_plain_number(in.seq->in(one)), "--batch with --seq (tokens = B·T)");
  }
  if (!in.batch) {
    require_positive(in.tokens, "tokens");
    return in.tokens;
  }
  require_positive_integer(*in.batch, "batch");
  require_positive_integer(*in.seq, "seq");
  // B·T replaces the token count: another count beside it would be ignored.
  if (in.tokens != 1.0 * token)
    throw InputError("tokens", format_plain_number(in.tokens.in(token)),
                     "either --tokens or --batch with --seq, not both (tokens = B·T)");
  return in.batch->in(one) * in.seq->in(one) * token;
}

Flops ffn_flops(const FfnInput& in) {
  const FlopsPerToken per_token = ffn_flops_per_token(in);
  const Tokens tokens = ffn_tokens(in);
  if (in.layers) require_positive_integer(*in.layers, "layers");
  return per_token * tokens * (in.layers ? in.layers->in(one) : 1.0);
}

void ffn_flops(const FfnInput& in, ResultSet& out) {
  const FlopsPerToken per_token = ffn_flops_per_token(in);
  const Flops total = ffn_flops(in);
  const Tokens tokens = ffn_tokens(in);
  out.command = "flops ffn";
  out.input("d", value(in.d));
  out.input("f", value(in.f));
  out.input("gated", boolean(in.gated));
  out.input("tokens", value(tokens));
  if (in.batch) {
    out.input("batch", value(*in.batch));
    out.input("seq", value(*in.seq));
  }
  if (in.layers) out.input("layers", value(*in.layers));
  const std::string_view per_token_label = in.layers ? "FLOP per token per layer" : "FLOP per token";
  if (in.gated)
    out.item("flops_per_token", per_token_label, value(per_token), "6·D·F", text("6 · {} · {}", in.d, in.f));
  else
    out.item("flops_per_token", per_token_label, value(per_token), "4·D·F", text("4 · {} · {}", in.d, in.f));
  if (in.batch && in.layers)
    out.item("flops", "FFN FLOP", value(total), "C = FLOP/token · B · T · L",
             text("{} · {} · {} · {}", per_token, *in.batch, *in.seq, *in.layers));
  else if (in.batch)
    out.item("flops", "FFN FLOP", value(total), "C = FLOP/token · B · T",
             text("{} · {} · {}", per_token, *in.batch, *in.seq));
  else if (in.layers)
    out.item("flops", "FFN FLOP", value(total), "C = FLOP/token · tokens · L",
             text("{} · {} · {}", per_token, tokens, *in.layers));
  else
    out.item("flops", "FFN FLOP", value(total), "C = FLOP/token · tokens", text("{} · {}", per_token, tokens));
  assume_ffn_counting(in.gated, out);
  if (in.batch)
    out.assume("ffn_batch_seq", text("{} sequences of {} tokens: {} through the FFN", *in.batch, *in.seq, tokens));
  else
    out.assume("tokens", text("{} through the FFN (FLOP per token when 1)", tokens));
  if (in.layers) out.assume("layers", text("{} layers, each an FFN block of this shape", *in.layers));
}

void assume_ffn_counting(bool gated, ResultSet& out) {
  if (gated)
    out.assume("ffn_gated", text("gated FFN (SwiGLU/GeGLU): three D×F projections, 6·D·F per token"));
  else
    out.assume("ffn_gated", text("plain FFN: two D×F projections, 4·D·F per token (SwiGLU needs --gated)"));
  out.assume("ffn_activation", text("activation function, biases and elementwise gate product not counted"));
}

// ---- attention ------------------------------------------------------------------------------

AttentionFlops attention_flops(const AttentionInput& in) {
  require_positive_integer(in.batch, "batch");
  require_positive_integer(in.seq, "seq");
  require_positive_integer(in.d, "d");
  require_positive_integer(in.layers, "layers");
  if (in.d_kv.in(one) != 0.0) require_positive_integer(in.d_kv, "d_kv");
  // KV heads are at most the query heads: D_kv = H_kv·d_head ≤ H·d_head = D.
  if (in.d_kv.in(one) > in.d.in(one))
    throw InputError("d_kv", format_plain_number(in.d_kv.in(one)),
                     "at most --d " + format_plain_number(in.d.in(one)) + " (KV heads × head dim ≤ heads × head dim)");
  const double b = in.batch.in(one), t = in.seq.in(one), d = in.d.in(one), l = in.layers.in(one);
  const double dkv = in.d_kv.in(one) == 0.0 ? d : in.d_kv.in(one);
  // Q and O are D×D, K and V are D×D_kv; each costs 2 FLOP per multiply-add over B·T rows.
  const Flops proj = 2.0 * b * t * d * (2.0 * d + 2.0 * dkv) * l * flop;
  // QKᵀ: B·T·T outputs of length D; A·V: B·T·D outputs of length T. 2·B·T²·D each.
  const double mask = in.causal_skip ? 0.5 : 1.0;
  const Flops att = mask * 4.0 * b * t * t * d * l * flop;
  return {proj, att};
}

void attention_flops(const AttentionInput& in, ResultSet& out) {
  const AttentionFlops a = attention_flops(in);
  const bool mha = in.d_kv.in(one) == 0.0 || in.d_kv == in.d;
  out.command = "flops attention";
  out.input("batch", value(in.batch));
  out.input("seq", value(in.seq));
  out.input("d", value(in.d));
  out.input("d_kv", value(mha ? in.d : in.d_kv));
  out.input("layers", value(in.layers));
  out.input("causal_skip", boolean(in.causal_skip));
  if (mha)
    out.item("projection_flops", "Q/K/V/O projections", value(a.projection), "8·B·T·D²·L",
             text("8 · {} · {} · {}² · {}", in.batch, in.seq, in.d, in.layers));
  else
    out.item("projection_flops", "Q/K/V/O projections", value(a.projection),
             "2·B·T·D·(2·D + 2·D_kv)·L",
             text("2 · {} · {} · {} · (2 · {} + 2 · {}) · {}", in.batch, in.seq, in.d, in.d,
                  in.d_kv, in.layers));
  if (in.causal_skip)
    out.item("attention_flops", "QKᵀ and A·V", value(a.attention), "½ · 4·B·T²·D·L",
             text("0.5 · 4 · {} · {}² · {} · {}", in.batch, in.seq, in.d, in.layers));
  else
    out.item("attention_flops", "QKᵀ and A·V", value(a.attention), "4·B·T²·D·L",
             text("4 · {} · {}² · {} · {}", in.batch, in.seq, in.d, in.layers));
  out.item("flops", "attention FLOP", value(a.total()), "projections + scores",
           text("{} + {}", a.projection, a.attention));
  assume_causal_skip(in.causal_skip, out);
  if (mha)
    out.assume("d_kv", text("multi-head attention: K and V projections are D×D (GQA/MQA: give --d-kv)"));
  else
    out.assume("d_kv", text("K and V projections are D×{} (grouped/multi-query attention)", in.d_kv));
  out.assume("attention_extras", text("softmax, scaling, masking and biases not counted"));
  out.assume("layers", text("{} layer(s)", in.layers));
  const double ratio = a.attention / a.projection;
  out.note(text("T² term / projection term = {} (≈ T / 2D for MHA: the T² term dominates once T > 2D)",
                ratio));
}

void assume_causal_skip(bool causal_skip, ResultSet& out) {
  if (causal_skip)
    out.assume("causal_skip",
               text("causal mask halves the T² term: holds only if the kernel skips the masked "
                    "upper triangle (kernel-dependent)"));
  else
    out.assume("causal_skip",
               text("full T×T scores computed (no causal skipping; most kernels that skip it "
                    "save up to half the T² term)"));
}

// ---- training -------------------------------------------------------------------------------

Recompute parse_recompute(std::string_view text, std::string_view field) {
  if (text == "none") return Recompute::none;
  if (text == "selective") return Recompute::selective;
  if (text == "full") return Recompute::full;
  if (text == "op-sac") return Recompute::op_sac;
  throw InputError(std::string(field), std::string(text), "none, selective, full or op-sac");
}

namespace {
bool given(Count c) { return c.in(one) != 0.0; }

// op-sac reruns particular matmuls of each layer (napkin/memory/ledgers.h): a count of P and T has no
// matmul shapes to rerun. train MODEL counts them (op_sac_recompute_flops).
void refuse_op_sac(Recompute r) {
  if (r == Recompute::op_sac)
    throw InputError("--recompute", "op-sac",
                     "none, selective or full here (op-sac reruns particular matmuls of each layer: napkin train "
                     "MODEL counts them)");
}
}  // namespace

namespace {

// A training run sees whole tokens: below one is a unit slip (15 instead of 15T), not a run.
// Shared by train (train.cpp checks the run's shape first, with the layout in its message).
void require_training_tokens(Tokens tokens) {
  require_positive(tokens, "tokens");
  if (tokens.in(token) < 1.0)
    throw InputError("tokens", format_plain_number(tokens.in(token)),
                     "at least 1 token (a training run sees whole tokens; 15T = 1.5e13)");
}

// The optional terms of training_flops, checked as a set: a part of a term changes nothing, so it
// is refused rather than ignored; a term over fewer tokens than one sequence has no sequence of
// length T to count.
void check_terms(const TrainingFlopsInput& in) {
  const bool l = given(in.layers), t = given(in.seq), d = given(in.d_model), v = given(in.vocab);
  if (t && in.tokens.in(token) < in.seq.in(one))
    throw InputError("tokens", format_plain_number(in.tokens.in(token)),
                     "at least one sequence of --seq " + format_plain_number(in.seq.in(one)) +
                         " tokens (attention's T² term counts whole sequences of T tokens)");
  if (l && !(t && d))
    throw InputError("layers", format_plain_number(in.layers.in(one)),
                     "--seq and --d-model with --layers (attention's T² term, 4·L·T·D, needs all three)");
  if (t && !(l && d))
    throw InputError("seq", format_plain_number(in.seq.in(one)),
                     "--layers and --d-model with --seq (attention's T² term, 4·L·T·D, needs all three)");
  if (v && !d)
    throw InputError("vocab", format_plain_number(in.vocab.in(one)),
                     "--d-model with --vocab (the LM head's 2·V·D needs D)");
  if (d && !l && !v)
    throw InputError("d_model", format_plain_number(in.d_model.in(one)),
                     "--layers and --seq (attention's T² term) or --vocab (the LM head) with --d-model: alone it "
                     "enters no term");
}

}  // namespace

TrainingFlops training_flops(const TrainingFlopsInput& in) {
  require_positive(in.params, "params");
  require_training_tokens(in.tokens);
  refuse_op_sac(in.recompute);
  check_terms(in);
  if (!(in.backward_factor > 0.0) || !std::isfinite(in.backward_factor))
    throw InputError("backward_factor", std::to_string(in.backward_factor), "a positive ratio");
  // Forward: one multiply-add (2 FLOP) per parameter per token.
  constexpr auto kForwardFlopPerParamToken = 2.0 * flop / (param * token);  // notes 7.3
  Flops fwd = kForwardFlopPerParamToken * in.params * in.tokens;
  const double tok = in.tokens.in(token);
  Flops att{};
  if (given(in.layers) && given(in.seq) && given(in.d_model)) {
    // Per layer and token: QKᵀ and A·V are 2·T·D each (non-causal, PaLM's convention).
    att = 4.0 * in.layers.in(one) * in.seq.in(one) * in.d_model.in(one) * tok * flop;
    fwd += att;
  }
  if (given(in.vocab) && given(in.d_model))
    fwd += 2.0 * in.vocab.in(one) * in.d_model.in(one) * tok * flop;
  TrainingFlops r;
  r.forward = fwd;
  r.backward = in.backward_factor * fwd;
  switch (in.recompute) {
    case Recompute::none: break;
    case Recompute::full: r.recompute = fwd; break;
    case Recompute::selective: r.recompute = att; break;
    case Recompute::op_sac: break;  // refused above
  }
  return r;
}

TrainingFlops partial_recompute(const TrainingFlops& rest, const TrainingFlops& full, double fraction) {
  if (!(fraction >= 0.0 && fraction <= 1.0))
    throw InputError("recompute_layers", format_plain_number(fraction), "a share of the layers in [0, 1]");
  TrainingFlops r = rest;
  r.recompute = fraction * full.recompute + (1.0 - fraction) * rest.recompute;
  return r;
}

TrainingFlops megatron_training_flops(const MegatronFlopsInput& in) {
  require_positive_integer(in.layers, "layers");
  require_positive_integer(in.hidden, "hidden");
  require_positive_integer(in.seq, "seq");
  require_positive_integer(in.vocab, "vocab");
  require_training_tokens(in.tokens);
  refuse_op_sac(in.recompute);
  const double l = in.layers.in(one), h = in.hidden.in(one), s = in.seq.in(one), v = in.vocab.in(one);
  const double tok = in.tokens.in(token);
  // Forward per token (Narayanan et al. 2021, §5.1): Q/K/V/O 8h², MLP 16h² (h→4h→h), scores and
  // weighted sum 4·s·h, per layer, at 2 FLOP per multiply-add; the logit layer 2·h·V once.
  const Flops layers_fwd = (24.0 * l * h * h + 4.0 * s * l * h) * tok * flop;
  const Flops logits_fwd = 2.0 * h * v * tok * flop;
  TrainingFlops r;
  r.forward = layers_fwd + logits_fwd;
  r.backward = 2.0 * r.forward;
  switch (in.recompute) {
    case Recompute::none: break;
    case Recompute::full: r.recompute = layers_fwd; break;  // eq. 3: 96 = 72 + 24, logits not rerun
    case Recompute::selective: r.recompute = 4.0 * s * l * h * tok * flop; break;
    case Recompute::op_sac: break;  // refused above
  }
  return r;
}

namespace {

// P as flops train reports it: given (--params), or a model's count (flops train MODEL).
struct PSource {
  const ModelP* model = nullptr;  // null: P as given
  ParamsCount which = ParamsCount::non_embedding;
  bool chosen = false;  // --params-count given
};

void report_training_flops(const TrainingFlopsInput& in, const PSource& src, ResultSet& out) {
  const TrainingFlops r = training_flops(in);
  const bool has_att = given(in.layers) && given(in.seq) && given(in.d_model);
  const bool has_head = given(in.vocab) && given(in.d_model);
  out.command = "flops train";
  out.input("params", value(in.params));
  out.input("tokens", value(in.tokens));
  out.input("backward_factor", value(in.backward_factor));
  if (has_att) {
    out.input("layers", value(in.layers));
    out.input("seq", value(in.seq));
  }
  if (has_att || has_head) out.input("d_model", value(in.d_model));
  if (has_head) out.input("vocab", value(in.vocab));

  if (has_att && has_head)
    out.item("forward_flops", "forward", value(r.forward), "2·P·D_tok + 4·L·T·D·D_tok + 2·V·D·D_tok",
             text("2 · {} · {} + 4 · {} · {} · {} · {} + 2 · {} · {} · {}", in.params, in.tokens,
                  in.layers, in.seq, in.d_model, in.tokens, in.vocab, in.d_model, in.tokens));
  else if (has_att)
    out.item("forward_flops", "forward", value(r.forward), "2·P·D_tok + 4·L·T·D·D_tok",
             text("2 · {} · {} + 4 · {} · {} · {} · {}", in.params, in.tokens, in.layers, in.seq,
                  in.d_model, in.tokens));
  else if (has_head)
    out.item("forward_flops", "forward", value(r.forward), "2·P·D_tok + 2·V·D·D_tok",
             text("2 · {} · {} + 2 · {} · {} · {}", in.params, in.tokens, in.vocab, in.d_model,
                  in.tokens));
  else
    out.item("forward_flops", "forward", value(r.forward), "2·P·D_tok",
             text("2 · {} · {}", in.params, in.tokens));
  out.item("backward_flops", "backward", value(r.backward), "k_bwd · forward",
           text("{} · {}", in.backward_factor, r.forward));
  if (in.recompute == Recompute::full)
    out.item("recompute_flops", "recomputed forward", value(r.recompute), "forward (full checkpointing)",
             text("{}", r.recompute));
  else if (in.recompute == Recompute::selective)
    out.item("recompute_flops", "recomputed attention", value(r.recompute),
             "attention score forward (selective)", text("{}", r.recompute));
  if (in.recompute == Recompute::none)
    out.item("training_flops", "training FLOP", value(r.total()), "C = forward + backward",
             text("{} + {}", r.forward, r.backward));
  else
    out.item("training_flops", "training FLOP", value(r.total()), "C = forward + backward + recompute",
             text("{} + {} + {}", r.forward, r.backward, r.recompute));
  out.items.back().is_total = true;
  // GPT-3's unit (Brown et al. 2020, appendix D, table D.1): 1 petaflop/s-day = 1e15 FLOP/s ·
  // 86400 s = 8.64e19 FLOP; its 175B on 300B tokens, 3.14e23 FLOP, is 3640 PF-days.
  constexpr Flops kPetaflopSDay = PFLOP_per_s * day;
  out.item("petaflop_s_days", "petaflop/s-days", value(r.total() / kPetaflopSDay), "C / (1e15 FLOP/s · 86400 s)",
           text("{} / {}", r.total(), kPetaflopSDay));

  out.assume("backward_factor",
             text("backward = {} × forward (gradients w.r.t. inputs and weights; 2 gives 6PD)",
                  in.backward_factor));
  if (src.model == nullptr) {
    out.assume("params",
               text("P = {} as given: the course notes' P (7.3) counts dense non-embedding parameters, "
                    "the active ones for MoE (give MODEL to count them)",
                    in.params));
  } else {
    TrainingFlopsInput alt = in;
    alt.params = src.model->pick(other(src.which));
    describe_params_count(*src.model, src.which,
                          src.chosen ? std::string_view{} : kParamsCountNotesDefault,
                          training_flops(alt).total(), out);
  }
  if (!has_att)
    out.assume("attention_term",
               text("attention's T² term left out (give --layers, --seq, --d-model to add "
                    "4·L·T·D FLOP per token forward)"));
  else
    out.assume("attention_term",
               text("attention T² term counted without causal skipping (PaLM convention)"));
  if (!has_head)
    out.assume("head_term",
               text("embedding lookup and LM head left out (give --vocab and --d-model to add "
                    "2·V·D FLOP per token forward)"));
  switch (in.recompute) {
    case Recompute::none:
      out.assume("recompute", text("no activation recomputation"));
      break;
    case Recompute::full:
      out.assume("recompute", text("full activation checkpointing reruns the forward pass once (8PD)"));
      break;
    case Recompute::selective:
      out.assume("recompute",
                 text("selective recomputation reruns only the attention score term (Korthikanti "
                      "et al. 2022)"));
      break;
    case Recompute::op_sac: break;  // refused by training_flops
  }
  out.assume("training_extras",
             text("MoE routing, optimizer step, communication and data pipeline not counted"));
}

}  // namespace

void training_flops(const TrainingFlopsInput& in, ResultSet& out) { report_training_flops(in, {}, out); }

// ---- which P ------------------------------------------------------------------------------------

ParamsCount parse_params_count(std::string_view text, std::string_view field) {
  if (text == "non-embedding" || text == "non_embedding") return ParamsCount::non_embedding;
  if (text == "total") return ParamsCount::total;
  throw InputError(std::string(field), std::string(text),
                   "total (every parameter on the active path) or non-embedding (without token embeddings, "
                   "learned positions and an untied head)");
}

std::string_view to_string(ParamsCount c) { return c == ParamsCount::total ? "total" : "non-embedding"; }

ModelP model_p(const specs::ModelSpec& m) {
  const ParamCount pc = count_params(m);
  ModelP p;
  p.total = static_cast<double>(pc.active) * param;
  p.embedding = static_cast<double>(pc.embedding) * param;
  p.non_embedding = static_cast<double>(pc.active - pc.embedding) * param;
  p.moe = m.moe.is_moe();
  return p;
}

void describe_params_count(const ModelP& p, ParamsCount used, std::string_view why_default, Flops other_flops,
                           ResultSet& out) {
  // The assumption names the P used, its value and where the convention comes from; the note gives
  // the answer under the other convention, so a figure quoted from a paper can be matched.
  const std::string_view why = !why_default.empty()            ? why_default
                               : used == ParamsCount::total ? std::string_view("--params-count total")
                                                            : std::string_view("--params-count non-embedding");
  const std::string_view active = p.moe ? std::string_view(" active") : std::string_view("");
  if (used == ParamsCount::non_embedding) {
    if (p.moe)
      out.assume("params_count",
                 text("P = {}, the active non-embedding count (active {} − {} embeddings and head; MoE: compute follows the "
                      "active path, memory holds all experts): {}",
                      p.non_embedding, p.total, p.embedding, why));
    else
      out.assume("params_count", text("P = {}, the non-embedding count (total {} − {} embeddings and head): {}, as Kaplan et al. "
                                      "2020 count N",
                                      p.non_embedding, p.total, p.embedding, why));
    out.note(text("with the total{} count, P = {} (embeddings and head included, as papers quote a run from its headline size: "
                  "the Llama 3 paper's 3.8e25 FLOP for 405B is 6 × 405B × 15.6T): C = {}",
                  active, p.total, other_flops));
  } else {
    if (p.moe)
      out.assume("params_count", text("P = {}, the active count, embeddings and head ({}) included (MoE: compute follows the "
                                      "active path, memory holds all experts): {}",
                                      p.total, p.embedding, why));
    else
      out.assume("params_count",
                 text("P = {}, the total count, embeddings and head ({}) included: {}", p.total, p.embedding, why));
    out.note(text("with the{} non-embedding count, P = {} (the course notes' P, 7.3, and Kaplan et al. 2020's N): C = {}",
                  active, p.non_embedding, other_flops));
  }
}

void training_flops(const specs::ModelSpec& m, std::optional<ParamsCount> which, const TrainingFlopsInput& in,
                    ResultSet& out) {
  specs::refuse_encoder_decoder(m, "flops train");
  const ModelP p = model_p(m);
  const ParamsCount used = which.value_or(ParamsCount::non_embedding);
  TrainingFlopsInput mi = in;
  mi.params = p.pick(used);
  out.input("model", verdict(m.name));
  out.input("params_count", verdict(to_string(used)));
  report_training_flops(mi, PSource{&p, used, which.has_value()}, out);
  if (m.has_mamba())
    out.note(text("6·P·D counts the Mamba mixers' projections with the rest of P; their selective scan and "
                  "convolution (a few FLOP per state element per token) are not in it"));
  if (m.has_recurrent())
    out.note(text("6·P·D counts the {} layers' projections with the rest of P; their recurrence over the state (a "
                  "few FLOP per state element per token) is not in it",
                  std::string_view(m.recurrent.kind)));
  if (m.indexer.heads > 0)
    out.note(text("6·P·D counts the sparse-attention indexer's projections with the rest of P; its scoring of every "
                  "earlier token ({} heads · {} dims per key, per layer) and the attention over the top {} keys are "
                  "not in it",
                  static_cast<double>(m.indexer.heads), static_cast<double>(m.indexer.head_dim),
                  static_cast<double>(m.indexer.top_k)));
}

}  // namespace napkin
