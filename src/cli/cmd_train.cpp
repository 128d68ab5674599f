// napkin train MODEL: how long, how many GPU-hours, how much energy and money a training run
// takes, and whether its parallel layout fits in memory. See napkin/plans/train.h for the formulas,
// napkin/plans/train_step.h for the expected step time; train_cmd.h holds the flags.
#include <memory>
#include <optional>
#include <string>

#include "check_failure.h"
#include "choice_axes.h"
#include "command.h"
#include "flag_checks.h"
#include "napkin/ground/check.h"
#include "napkin/ground/error.h"
#include "napkin/plans/train_plan.h"
#include "sweep_runner.h"
#include "train_cmd.h"

namespace napkin::cli {

namespace {

// Train without a layout: no parallel degree given (--tp, --pp, --dp, --cp, --ep, --etp,
// --virtual-stages, the stage flags, --recompute-layers, --sequence-parallel,
// --distribute-saved-activations), a model architecture and the step model with a capacity.
bool layout_given(CommandApp* sub) {
  for (const char* f : {"--tp", "--pp", "--dp", "--cp", "--ep", "--virtual-stages", "--recompute-layers",
                        "--sequence-parallel", "--distribute-saved-activations", "--etp", "--first-stage-layers",
                        "--last-stage-layers"})
    if (sub->get_option(f)->count() > 0) return true;
  return false;
}

// The best layout that fits, by the planner, with the flags given as constraints (--zero,
// --recompute, --micro-batch: no parallel degree is given here); nullopt when nothing fits.
std::optional<TrainLayout> best_layout(CommandApp* sub, const TrainCmd& c, const TrainInput& in, const Point& p,
                                       std::int64_t& tried) {
  TrainPlanInput pi = plan_constraints(sub, c, in, p);
  pi.keep = 1;
  const TrainPlan plan = plan_train(c.spec, pi);
  tried = plan.evaluated;
  if (plan.ranked.empty()) return std::nullopt;
  return plan.ranked.front().layout;
}

// One configuration: its checks, then its sweep; the exit code. A layout that does not fit gets
// no time (the ledger shows why) and exit 1 with the remedy.
int run_train(CommandApp* sub, TrainCmd& c) {
  TrainChoices plan;
  reject_extras(sub);
  prepare_train(sub, c, plan);
  const bool search = !layout_given(sub) && !plan.bare;
  FitTally tally;
  std::string remedy;
  int exit_code = run_sweep(sub, c.nf, c.out, [&](const Point& p, ResultSet& rs) {
    TrainInput in = train_input(c, plan, p);
    if (search && in.speed && in.peak && in.memory.capacity) {
      if (!plan.made_up.empty()) c.made_up.build(p, c.spec);
      precheck_run(c.spec, in);
      std::int64_t tried = 0;
      TrainPlanInput pi;
      pi.run = in;
      if (const auto best = best_layout(sub, c, in, p, tried)) {
        in = planned_input(pi, *best);
        if (!pi.run.global_batch) in.global_batch = std::nullopt;  // the default rule, as the plan applied it
        in.searched_layouts = tried;
      } else if (remedy.empty()) {
        remedy = "no layout of " + format_plain_number(in.gpus ? in.gpus->in(units::one) : 1.0) + " GPU(s) fits (" +
                 std::to_string(tried) + " tried): more GPUs (napkin memory MODEL --train --min-gpus --zero 3), "
                 "a smaller --seq, or LoRA";
      }
    }
    train_row(c, plan, p, in, rs, tally);
    if (!p.probing() && remedy.empty() && !tally.all_fit)
      remedy = "napkin plan train with the same flags, less the layout's, ranks the layouts that fit";
  });
  if (!tally.all_fit && exit_code == 0) {
    if (plan.bare) remedy = "give MODEL (or a made-up decoder) for the layout search, or a layout that fits";
    report_check_failure("fit", tally.first_miss + "; " + remedy);
    exit_code = 1;
  }
  return exit_code;
}

// The callback: a comma list of models, GPUs, dtypes or engines compares them, one configuration
// at a time from the state the command line gave (run_choices).
int run_train_choices(CommandApp* sub, TrainCmd& c) {
  const TrainCmd saved = c;
  const std::vector<ChoiceAxis> axes = {{"model", "MODEL", &c.model},
                                        {"hw", "--hw", &c.hw.arg},
                                        {"recompute", "--recompute", &c.recompute},
                                        {"loss", "--loss", &c.tm.loss},
                                        {"activation_accounting", "--activation-accounting", &c.tm.accounting},
                                        {"zero", "--zero", &c.zero_text}};
  return run_choices(axes, c.out, [&] { c = saved; }, [&] { return run_train(sub, c); });
}

}  // namespace

void add_train_command(CLI::App& app, int& exit_code) {
  auto* sub = add_command(app, "train", "A training run: FLOP, time, GPU-hours, energy, cost, CO2 and memory per GPU");
  auto c = std::make_shared<TrainCmd>();
  add_train_options(sub, *c);
  add_output_flags(sub, c->out);
  sub->footer(
      "Example: napkin train llama-3.1-8b --tokens 1T --hw h100-sxm --gpus 8   (the fastest layout that fits)\n"
      "         napkin train llama-3.1-8b --tokens 15T --hw h100-sxm --gpus 1024 --mfu 0.4 --zero 1\n"
      "         napkin train gpt3-175b --tokens 300B --hw a100-sxm-80gb --gpus 1024 --tp 8 --pp 8 \\\n"
      "                --achieved 140TFLOP/s --flops-formula megatron --recompute full --seq 2048\n"
      "         napkin train --params 70B --tokens 2T --hw h100-sxm --gpus 1024 --tp 8 --zero 1\n"
      "         napkin train llama-3.1-405b --tokens 15.6T --hw h100-sxm --gpu-hours 30.84M --params-count total\n"
      "         napkin train llama-3.1-70b --tokens 2T --hw h100-sxm --gpus 512,1024,2048 --tp 8 --zero 1 \\\n"
      "                --price-per-gpu-hour 2.5 --pue 1.2 --carbon-intensity 400gCO2e/kWh\n"
      "         napkin train --layers 32 --hidden 4096 --heads 32 --kv-heads 8 --ffn 14336 --vocab 128256 \\\n"
      "                --tokens 1T --hw h100-sxm --gpus 64 --zero 1");
  sub->callback([c, sub, &exit_code] { exit_code = run_train_choices(sub, *c); });
}

}  // namespace napkin::cli
