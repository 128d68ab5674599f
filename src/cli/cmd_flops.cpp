// napkin flops matmul|ffn|attention|train: FLOP counts from shapes (course notes 7.3).
#include <memory>

#include "command.h"
#include "flag_checks.h"
#include "model_arg.h"
#include "model_flags.h"
#include "napkin/ground/error.h"
#include "napkin/model/flops.h"
#include "numeric_flags.h"
#include "output_flags.h"
#include "sweep_runner.h"

namespace napkin::cli {

namespace {

constexpr DimRt kCount = dim_rt<Count::dim>();

struct MatmulCmd {
  NumericFlags nf;
  std::size_t m = 0, k = 0, n = 0;
  bool fma_as_one = false;
  OutputOptions out;
};

void add_matmul(CommandApp* flops, int& exit_code) {
  auto* sub = flops->add_command("matmul", "FLOP of [m,k] @ [k,n]: 2·m·k·n");
  auto c = std::make_shared<MatmulCmd>();
  c->m = c->nf.add(sub, "--m", "m", kCount, Constraint::positive_integer, "Rows of A and of the output", "COUNT");
  c->k = c->nf.add(sub, "--k", "k", kCount, Constraint::positive_integer, "Columns of A, rows of B (the reduction)", "COUNT");
  c->n = c->nf.add(sub, "--n", "n", kCount, Constraint::positive_integer, "Columns of B and of the output", "COUNT");
  sub->get_option("--m")->required();
  sub->get_option("--k")->required();
  sub->get_option("--n")->required();
  sub->add_flag("--fma-as-one", c->fma_as_one, "Count a fused multiply-add as one operation (m·k·n)");
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin flops matmul --m 4096 --k 4096 --n 4096\n"
              "         napkin flops matmul --m 1..64:x2 --k 8 --n 8 --csv");
  sub->callback([c, sub, &exit_code] {
    exit_code = run_sweep(sub, c->nf, c->out, [&](const Point& p, ResultSet& rs) {
      matmul_flops(MatmulInput{p.get<Count>(c->m), p.get<Count>(c->k), p.get<Count>(c->n), c->fma_as_one}, rs);
    });
  });
}

struct FfnCmd {
  NumericFlags nf;
  std::size_t d = 0, f = 0, tokens = 0, layers = 0, batch = 0, seq = 0;
  bool gated = false;
  OutputOptions out;
};

void add_ffn(CommandApp* flops, int& exit_code) {
  auto* sub = flops->add_command("ffn", "FLOP of a D→F→D feed-forward block: 4·D·F per token (6·D·F gated)");
  auto c = std::make_shared<FfnCmd>();
  c->d = c->nf.add(sub, "--d", "d", kCount, Constraint::positive_integer, "Model width D", "COUNT");
  c->f = c->nf.add(sub, "--f", "f", kCount, Constraint::positive_integer, "FFN hidden width F", "COUNT");
  sub->get_option("--d")->required();
  sub->get_option("--f")->required();
  c->tokens = c->nf.add(sub, "--tokens", "tokens", dim_rt<Tokens::dim>(), Constraint::positive,
                        "Tokens through the block (default 1: FLOP per token)", "TOKENS", 1.0);
  c->batch = c->nf.add(sub, "--batch", "batch", kCount, Constraint::positive_integer,
                       "Sequences B, with --seq: B·T tokens (instead of --tokens)", "COUNT");
  c->seq = c->nf.add(sub, "--seq", "seq", kCount, Constraint::positive_integer,
                     "Tokens per sequence T, with --batch", "COUNT");
  c->layers = c->nf.add(sub, "--layers", "layers", kCount, Constraint::positive_integer,
                        "FFN blocks L of this shape: multiplies the FLOP (default 1)", "COUNT");
  sub->add_flag("--gated", c->gated, "Gated FFN (SwiGLU, GeGLU): three projections, 6·D·F");
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin flops ffn --d 4096 --f 14336 --gated --tokens 8k\n"
              "         napkin flops ffn --d 4096 --f 14336 --gated --batch 4 --seq 2048 --layers 32");
  sub->callback([c, sub, &exit_code] {
    reject_extras(sub);
    const auto& flags = c->nf.flags();
    check_tokens_or_batch_seq(flags[c->tokens], flags[c->batch], flags[c->seq]);
    exit_code = run_sweep(sub, c->nf, c->out, [&](const Point& p, ResultSet& rs) {
      FfnInput in{p.get<Count>(c->d), p.get<Count>(c->f), c->gated, p.get<Tokens>(c->tokens)};
      in.layers = p.maybe<Count>(c->layers);
      in.batch = p.maybe<Count>(c->batch);
      in.seq = p.maybe<Count>(c->seq);
      ffn_flops(in, rs);
    });
  });
}

struct AttentionCmd {
  NumericFlags nf;
  std::size_t batch = 0, seq = 0, d = 0, d_kv = 0, layers = 0;
  bool causal_skip = false;
  OutputOptions out;
};

void add_attention(CommandApp* flops, int& exit_code) {
  auto* sub = flops->add_command("attention", "FLOP of multi-head attention: 8·B·T·D² + 4·B·T²·D per layer");
  auto c = std::make_shared<AttentionCmd>();
  c->batch = c->nf.add(sub, "--batch", "batch", kCount, Constraint::positive_integer, "Sequences B", "COUNT");
  c->seq = c->nf.add(sub, "--seq", "seq", kCount, Constraint::positive_integer, "Tokens per sequence T", "COUNT");
  c->d = c->nf.add(sub, "--d", "d", kCount, Constraint::positive_integer, "Model width D (heads × head dim)", "COUNT");
  sub->get_option("--batch")->required();
  sub->get_option("--seq")->required();
  sub->get_option("--d")->required();
  c->d_kv = c->nf.add(sub, "--d-kv", "d_kv", kCount, Constraint::positive_integer,
                      "Width of the K and V projections (KV heads × head dim; default D, i.e. MHA)", "COUNT");
  c->layers = c->nf.add(sub, "--layers", "layers", kCount, Constraint::positive_integer, "Layers (default 1)",
                        "COUNT", 1.0);
  sub->add_flag("--causal-skip", c->causal_skip,
                "Halve the T² term: the kernel skips the masked upper triangle (kernel-dependent)");
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin flops attention --batch 1 --seq 8192 --d 4096 --d-kv 1024 --layers 32");
  sub->callback([c, sub, &exit_code] {
    exit_code = run_sweep(sub, c->nf, c->out, [&](const Point& p, ResultSet& rs) {
      AttentionInput in{p.get<Count>(c->batch), p.get<Count>(c->seq), p.get<Count>(c->d),
                        p.maybe<Count>(c->d_kv).value_or(Count{}), p.get<Count>(c->layers), c->causal_skip};
      attention_flops(in, rs);
    });
  });
}

// Replaces the assumption `key` of `rs`, in its place, with `t` under `new_key` (nothing when `rs`
// keeps no assumptions, or has none of that key).
template <class T>
void restate(ResultSet& rs, std::string_view key, std::string_view new_key, const T& t) {
  for (std::size_t i = 0; i < rs.assumptions.size(); ++i)
    if (rs.assumptions[i].key == key) {
      rs.assume(new_key, t);
      rs.assumptions[i] = rs.assumptions.back();
      rs.assumptions.pop_back();
      return;
    }
}

struct TrainCmd {
  std::string model;
  std::string as;  // --as FAMILY
  bool text_only = false;  // --text-only
  specs::ModelSpec spec;  // outlives the ResultSet, which points into it
  NumericFlags nf;
  std::size_t params = 0, tokens = 0, backward = 0, layers = 0, seq = 0, d_model = 0, vocab = 0;
  std::string recompute = "none", params_count;
  MadeUpModelFlags made_up;  // --hidden --heads ... (with --layers and --vocab): a made-up decoder
  OutputOptions out;
};

void add_train(CommandApp* flops, int& exit_code) {
  auto* sub = flops->add_command("train", "Dense training FLOP: C ≈ 6·P·D (2P forward + 4P backward per token)");
  auto c = std::make_shared<TrainCmd>();
  sub->add_option("MODEL", c->model, "A preset, config.json or model directory whose count is P (or --params P)")
      ->type_name("MODEL");
  add_as_option(sub, c->as, c->text_only);
  c->params = c->nf.add(sub, "--params", "params", dim_rt<Params::dim>(), Constraint::positive,
                        "Dense non-embedding parameters P (active ones for MoE) instead of MODEL, e.g. 8B", "PARAMS");
  sub->add_option("--params-count", c->params_count,
                  "Which of MODEL's counts is P: non-embedding (default, the course notes' 7.3) or total "
                  "(embeddings and head included); the active path for MoE")
      ->type_name("total|non-embedding");
  c->tokens = c->nf.add(sub, "--tokens", "tokens", dim_rt<Tokens::dim>(), Constraint::positive,
                        "Training tokens D, at least 1, e.g. 15T", "TOKENS");
  sub->get_option("--tokens")->required();
  c->backward = c->nf.add(sub, "--backward-factor", "backward_factor", kCount, Constraint::positive,
                          "Backward FLOP as a multiple of forward (default 2, giving 6PD)", "RATIO", 2.0);
  c->layers = c->nf.add(sub, "--layers", "layers", kCount, Constraint::positive_integer,
                        "Layers L (with --seq and --d-model: adds attention's T² term; with --hidden: the made-up "
                        "decoder's L)", "COUNT");
  c->seq = c->nf.add(sub, "--seq", "seq", kCount, Constraint::positive_integer,
                     "Training sequence length T (with --layers and --d-model, or a made-up decoder: adds attention's "
                     "T² term)", "COUNT");
  c->d_model = c->nf.add(sub, "--d-model", "d_model", kCount, Constraint::positive_integer,
                         "Model width D (not with --hidden)", "COUNT");
  c->vocab = c->nf.add(sub, "--vocab", "vocab", kCount, Constraint::positive_integer,
                       "Vocabulary V (with --d-model: adds the LM head's 2·V·D per token; with --hidden: the made-up "
                       "decoder's V)", "COUNT");
  // --hidden selects the made-up decoder; without it --layers and --vocab mean what they meant
  // before (the attention and head terms beside --params or MODEL).
  c->made_up.add(sub, c->nf, c->layers, c->vocab);
  sub->get_option("--hidden")->description("A made-up decoder instead of MODEL or --params (--hidden selects it): its "
                                           "hidden size D");
  sub->add_option("--recompute", c->recompute, "Activation recomputation: none (default), selective or full")
      ->type_name("none|selective|full");
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin flops train --params 8B --tokens 15T\n"
              "         napkin flops train llama-3.1-8b --tokens 15T --params-count total\n"
              "         napkin flops train --hidden 4096 --layers 32 --heads 32 --kv-heads 8 --ffn 14336 --vocab 128256 \\\n"
              "                --tokens 15T   (a made-up decoder: --hidden selects it)");
  sub->callback([c, sub, &exit_code] {
    reject_extras(sub);
    refuse_text_only_without_model(c->text_only, c->model);
    const Recompute rc = parse_recompute(c->recompute, "--recompute");
    const auto& flags = c->nf.flags();
    const bool has_params = !flags[c->params].raw.empty(), has_model = !c->model.empty();
    const bool made_up = sub->get_option("--hidden")->count() > 0;
    if (made_up) {
      if (has_model) c->made_up.refuse_with(c->nf, "--hidden", "MODEL '" + c->model + "'");
      if (has_params) c->made_up.refuse_with(c->nf, "--hidden", "--params " + flags[c->params].raw);
      if (!flags[c->d_model].raw.empty())
        throw InputError("--d-model", flags[c->d_model].raw,
                         "no --d-model with --hidden (the made-up decoder's width D is --hidden; --seq adds "
                         "attention's T² term with its L and D)");
      c->made_up.check(c->as);
    } else if (const std::string f = c->made_up.first_given({"--layers", "--vocab"}); !f.empty()) {
      if (has_model) c->made_up.refuse_with(c->nf, f, "MODEL '" + c->model + "'");
      const std::string shown = c->made_up.shown(c->nf, f), value = shown == f ? "(given)" : shown.substr(f.size() + 1);
      throw InputError(f, value, "--hidden with it (flops train's made-up decoder is selected by --hidden; without it "
                                 "--layers and --vocab add the attention and head terms to --params or MODEL)");
    }
    // P comes from exactly one place: --params, or MODEL's count that --params-count picks.
    if (has_params && has_model)
      throw InputError("--params", flags[c->params].raw,
                       "either MODEL or --params, not both (MODEL '" + c->model +
                           "' is given, and its only use here is its parameter count)");
    std::optional<ParamsCount> which;
    if (!c->params_count.empty()) {
      which = parse_params_count(c->params_count, "--params-count");
      if (has_params)
        throw InputError("--params-count", c->params_count,
                         "either --params P or MODEL with --params-count, not both (--params gives P: there is "
                         "no count to choose)");
      if (!has_model && !made_up)
        throw InputError("--params-count", c->params_count, "MODEL (it picks one of MODEL's counts as P)");
    }
    if (!has_params && !has_model && !made_up)
      throw InputError("flops train: give MODEL (a preset, config.json or model directory), a made-up decoder "
                       "(--hidden --layers --heads --ffn --vocab) or --params P");
    if (!c->as.empty() && !has_model)
      throw InputError("--as", c->as, "a MODEL config.json with it (--params gives only a count)");
    if (has_model) c->spec = load_model(c->model, c->as, c->text_only);
    exit_code = run_sweep(sub, c->nf, c->out, [&](const Point& p, ResultSet& rs) {
      TrainingFlopsInput in;
      if (!has_model) in.params = p.get<Params>(c->params);
      in.tokens = p.get<Tokens>(c->tokens);
      in.backward_factor = p[c->backward];
      in.recompute = rc;
      in.layers = p.maybe<Count>(c->layers).value_or(Count{});
      in.seq = p.maybe<Count>(c->seq).value_or(Count{});
      in.d_model = p.maybe<Count>(c->d_model).value_or(Count{});
      in.vocab = p.maybe<Count>(c->vocab).value_or(Count{});
      if (made_up) {
        // The decoder's own L, D and V: --seq adds attention's T² term with them; its head is
        // counted in P (--params-count total), as a MODEL's is.
        c->made_up.build(p, c->spec);
        const bool seq = p.has(c->seq);
        in.layers = seq ? static_cast<double>(c->spec.layers) * units::one : Count{};
        in.d_model = seq ? static_cast<double>(c->spec.hidden) * units::one : Count{};
        in.vocab = Count{};
        training_flops(c->spec, which, in, rs);
        // The core's advice names --d-model and --vocab, which mean the decoder's shapes here.
        if (!seq)
          restate(rs, "attention_term", "attention_term",
                  text("attention's T² term left out (give --seq to add 4·L·T·D FLOP per token forward, with the "
                       "decoder's L and D)"));
        if (which == ParamsCount::total)
          restate(rs, "head_term", "made_up_head_term",
                  text("embedding and LM head counted in P (--params-count total), not as a separate 2·V·D term"));
        else
          restate(rs, "head_term", "made_up_head_term",
                  text("embedding lookup and LM head left out (P is non-embedding; --params-count total counts them "
                       "in P)"));
        c->made_up.describe(c->nf, p, rs);
      } else if (has_model) {
        training_flops(c->spec, which, in, rs);
      } else {
        training_flops(in, rs);
      }
    });
  });
}

}  // namespace

void add_flops_command(CLI::App& app, int& exit_code) {
  auto* flops = add_command(app, "flops", "FLOP counts from shapes: matmul, ffn, attention, train");
  flops->require_subcommand(1);
  add_matmul(flops, exit_code);
  add_ffn(flops, exit_code);
  add_attention(flops, exit_code);
  add_train(flops, exit_code);
}

}  // namespace napkin::cli
