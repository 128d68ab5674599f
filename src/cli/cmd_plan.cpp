// napkin plan train MODEL --hw H --gpus N --tokens D: every layout of the model on N GPUs, the
// fastest that fit first (napkin/plans/train_plan.h), each row the train command's result for that
// layout, with why it ranks where it does. train's flags are the run's recipe; a layout flag given
// (--tp, --pp, --cp, --ep, --virtual-stages, --zero, --recompute, --micro-batch) fixes that dimension.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "flag_checks.h"
#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/plans/train_plan.h"
#include "napkin/report/human_units.h"
#include "check_failure.h"
#include "sweep_runner.h"
#include "train_cmd.h"

namespace napkin::cli {

namespace {

constexpr DimRt kCount = dim_rt<Count::dim>();

struct PlanCmd {
  TrainCmd t;
  std::size_t top = 0, max_tp = 0, max_pp = 0, max_cp = 0, max_mb = 0;
};

std::string describe(const TrainLayout& l) {
  std::string s = "tp " + std::to_string(l.tp) + " × pp " + std::to_string(l.pp);
  if (l.cp > 1) s += " × cp " + std::to_string(l.cp);
  s += " × dp " + std::to_string(l.dp);
  if (l.ep > 1) s += " (ep " + std::to_string(l.ep) + ")";
  if (l.vp > 1) s += ", " + std::to_string(l.vp) + " virtual stages";
  s += ", ZeRO-" + std::to_string(l.zero) + ", recompute " +
       (l.recompute == Recompute::full ? "full" : l.recompute == Recompute::selective ? "selective" : "none") +
       ", micro-batch " + std::to_string(l.micro_batch);
  return s;
}

// Why layout `b` is slower than the best `a`: its step terms that grew most, largest first.
std::string why_slower(const PlannedLayout& a, const PlannedLayout& b) {
  const TrainStep &x = a.step, &y = b.step;
  const double m1 = x.micro_batches, m2 = y.micro_batches;
  const std::vector<std::pair<std::string, double>> terms = {
      {"compute", (m2 * (y.stage.forward + y.stage.backward) - m1 * (x.stage.forward + x.stage.backward)).in(units::second)},
      {"recomputation", (m2 * y.stage.recompute - m1 * x.stage.recompute).in(units::second)},
      {"TP traffic", (m2 * y.stage.tp_comm - m1 * x.stage.tp_comm).in(units::second)},
      {"EP all-to-all", (m2 * y.stage.ep_comm - m1 * x.stage.ep_comm).in(units::second)},
      {"CP ring", (m2 * y.stage.cp_comm - m1 * x.stage.cp_comm).in(units::second)},
      {"pipeline sends", (m2 * y.stage.p2p - m1 * x.stage.p2p).in(units::second)},
      {"pipeline bubble", (y.bubble - x.bubble).in(units::second)},
      {"exposed DP traffic", (y.dp_exposed - x.dp_exposed).in(units::second)},
      {"optimizer", (y.optimizer - x.optimizer).in(units::second)}};
  std::vector<std::pair<std::string, double>> worse;
  for (const auto& t : terms)
    if (t.second > 1e-4 * x.step.in(units::second)) worse.push_back(t);
  std::sort(worse.begin(), worse.end(), [](const auto& p, const auto& q) { return p.second > q.second; });
  std::string s;
  for (std::size_t i = 0; i < std::min<std::size_t>(2, worse.size()); ++i)
    s += (s.empty() ? "" : ", ") + ("+" + report::compact(worse[i].second, dim_rt<Seconds::dim>()) + " " + worse[i].first);
  if (s.empty()) s = "nothing: a tie within 0.01%, ranked by memory headroom, then by the simpler layout";
  return s;
}

int run_plan(CommandApp* sub, PlanCmd& c) {
  TrainChoices ch;
  reject_extras(sub);
  if (sub->get_option("--dp")->count() > 0)
    throw InputError("--dp", c.t.nf.flags()[c.t.dp].raw, "no --dp in plan train (dp = gpus / (tp·pp·cp) of each layout)");
  // The planner sets these itself: sequence parallelism with every tp > 1, the recomputation it
  // searches (whole policies, not --recompute-layers), layouts without saved-input distribution.
  for (const char* f : {"--sequence-parallel", "--recompute-layers", "--distribute-saved-activations"})
    if (sub->get_option(f)->count() > 0)
      throw InputError(f, "(given)", "no such flag in plan train (it sets sequence parallelism with every tp > 1 and "
                                     "searches --recompute none, selective and full; give it to train with a layout)");
  for (const auto& [max, fixed] : {std::pair{"--max-tp", "--tp"}, {"--max-pp", "--pp"}, {"--max-cp", "--cp"},
                                   {"--max-micro-batch", "--micro-batch"}})
    if (sub->get_option(max)->count() > 0 && sub->get_option(fixed)->count() > 0)
      throw InputError(max, "(with " + std::string(fixed) + ")", "one of the two: " + std::string(fixed) +
                                                                     " fixes what " + max + " bounds");
  prepare_train(sub, c.t, ch);
  if (ch.bare)
    throw InputError("--params", c.t.nf.flags()[c.t.params].raw,
                     "MODEL or a made-up decoder (--layers --hidden --heads --ffn --vocab) with it: plan train's "
                     "search needs layers to split");
  if (!c.t.speed.unavailable.empty())
    throw InputError("--hw", c.t.hw.arg.empty() ? "(missing)" : c.t.hw.arg,
                     "a GPU the step model can time (" + c.t.speed.unavailable + ")");
  std::optional<std::vector<double>> memo_key;
  TrainPlanInput pi;
  TrainPlan found;
  FitTally tally;
  auto& flags = c.t.nf.flags();
  const auto compute = [&](const Point& p, std::size_t row, ResultSet& rs) {
    std::vector<double> key;
    for (std::size_t i = 0; i < flags.size(); ++i) key.push_back(p.has(i) ? p[i] : -1.0);
    if (!memo_key || *memo_key != key) {
      if (!ch.made_up.empty()) c.t.made_up.build(p, c.t.spec);
      const TrainInput run = train_input(c.t, ch, p);
      if (!run.speed)
        throw InputError("--system", "(none)", "links for a multi-GPU plan: no system preset holds " + c.t.hw.spec->name +
                                                   " (give --system, or --intra-node-bandwidth and --inter-node-bandwidth)");
      pi = plan_constraints(sub, c.t, run, p);
      if (p.has(c.max_tp)) pi.max_tp = static_cast<std::int64_t>(p[c.max_tp]);
      if (p.has(c.max_pp)) pi.max_pp = static_cast<std::int64_t>(p[c.max_pp]);
      if (p.has(c.max_cp)) pi.max_cp = static_cast<std::int64_t>(p[c.max_cp]);
      if (p.has(c.max_mb)) pi.max_micro_batch = static_cast<std::int64_t>(p[c.max_mb]);
      pi.keep = static_cast<std::size_t>(p[c.top]);
      precheck_run(c.t.spec, pi.run);
      found = plan_train(c.t.spec, pi);
      if (found.evaluated == 0) {
        const bool batch = !flags[c.t.speed.global_batch].raw.empty();
        throw InputError(batch ? "--global-batch" : "--gpus",
                         batch ? flags[c.t.speed.global_batch].raw : flags[c.t.gpus].raw,
                         batch ? "a multiple of dp × micro-batch for some layout of the GPUs and the flags given "
                                 "(none admits it)"
                               : "a GPU count some layout of the flags given can use (none admits it)");
      }
      memo_key = key;
    }
    const PlannedLayout* l = row < found.ranked.size() ? &found.ranked[row]
                             : row == 0 && found.fastest_unfit ? &*found.fastest_unfit
                                                               : nullptr;
    if (l == nullptr) return false;
    TrainInput in = planned_input(pi, l->layout);
    train_row(c.t, ch, p, in, rs, tally);
    rs.input("rank", value(static_cast<double>(row + 1)));
    if (found.ranked.empty()) {
      rs.remark(text("{}", rs.keep("no layout fits: " + std::to_string(found.evaluated) + " evaluated; this is the fastest, " +
                        describe(l->layout))));
    } else if (row == 0) {
      std::string s = "#1 of " + std::to_string(found.evaluated) + " layouts timed (" + std::to_string(found.ledgers) +
                      " memory ledgers needed): " + describe(l->layout);
      if (found.fastest_unfit && found.fastest_unfit->tokens_per_second > l->tokens_per_second)
        s += "; faster but not fitting: " + describe(found.fastest_unfit->layout) + " (" +
             report::compact(found.fastest_unfit->per_gpu.in_base_units(), dim_rt<Bytes::dim>()) + " per GPU)";
      rs.remark(text("{}", rs.keep(s)));
    } else {
      rs.remark(text("{}", rs.keep("#" + std::to_string(row + 1) + ": " + describe(l->layout) + "; behind #1 by " +
                        why_slower(found.ranked.front(), *l))));
    }
    return true;
  };
  const RowColumns columns{{"rank", "tp", "pp", "cp", "dp", "ep", "virtual_stages", "zero", "recompute", "micro_batch"},
                           {"expected_tokens_per_second", "expected_mfu", "expected_step_time", "step_bubble",
                            "step_tp_comm", "step_dp_comm", "per_gpu", "headroom", "time"}};
  int exit_code = run_sweep_rows(sub, c.t.nf, c.t.out, compute, true, &columns);
  if (!tally.all_fit && exit_code == 0) {
    report_check_failure("plan train", "no layout fits; the fastest: " + tally.first_miss);
    exit_code = 1;
  }
  return exit_code;
}

}  // namespace

void add_plan_command(CLI::App& app, int& exit_code) {
  auto* plan = add_command(app, "plan", "Search the layouts: the fastest training layout that fits");
  plan->require_subcommand(1);
  auto* sub = plan->add_command("train", "Every training layout of MODEL on --gpus, the fastest that fit first");
  auto c = std::make_shared<PlanCmd>();
  add_train_options(sub, c->t);
  sub->get_option("--gpus")->required()->description("GPUs to lay out (every layout uses them all)");
  sub->get_option("--dp")->description("Refused: each layout's dp is gpus / (tp·pp·cp)");
  c->top = c->t.nf.add(sub, "--top", "top", kCount, Constraint::positive_integer, "Layouts shown, best first (default 5)",
                       "COUNT", 5.0);
  c->max_tp = c->t.nf.add(sub, "--max-tp", "max_tp", kCount, Constraint::positive_integer,
                          "Largest TP degree searched (default: the scale-up domain)", "COUNT");
  c->max_pp = c->t.nf.add(sub, "--max-pp", "max_pp", kCount, Constraint::positive_integer,
                          "Largest pipeline degree searched (default: the layers)", "COUNT");
  c->max_cp = c->t.nf.add(sub, "--max-cp", "max_cp", kCount, Constraint::positive_integer,
                          "Largest context-parallel degree searched (default 16)", "COUNT");
  c->max_mb = c->t.nf.add(sub, "--max-micro-batch", "max_micro_batch", kCount, Constraint::positive_integer,
                          "Largest micro-batch searched (default 16)", "COUNT");
  for (const char* f : {"--top", "--max-tp", "--max-pp", "--max-cp", "--max-micro-batch"}) sub->get_option(f)->group("Search");
  add_output_flags(sub, c->t.out);
  sub->footer(
      "Example: napkin plan train llama-3.1-8b --hw h100-sxm --gpus 8 --tokens 1T\n"
      "         napkin plan train llama-3.1-405b --hw h100-sxm --gpus 16384 --tokens 15.6T --seq 8192\n"
      "         napkin plan train llama-3.1-70b --hw h100-sxm --gpus 64 --tokens 2T --tp 8 --top 10 --json");
  sub->callback([c, sub, &exit_code] { exit_code = run_plan(sub, *c); });
}

}  // namespace napkin::cli
