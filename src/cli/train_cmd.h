// What train and plan train share: the command's flags (TrainCmd), what one configuration resolves
// before its sweep (TrainChoices), and the steps from the command line to a TrainInput per sweep
// point. cmd_train.cpp runs the sweep; cmd_plan.cpp searches the layouts.
#pragma once

#include <optional>
#include <string>

#include "command_app.h"
#include "energy_price_flags.h"
#include "hardware_option.h"
#include "model_flags.h"
#include "napkin/ground/dtype.h"
#include "napkin/memory/ledgers.h"
#include "napkin/plans/train.h"
#include "napkin/plans/train_plan.h"
#include "numeric_flags.h"
#include "output_flags.h"
#include "sweep.h"
#include "train_speed_flags.h"
#include "training_flags.h"

namespace napkin::cli {

struct TrainCmd {
  std::string model;
  std::string as;  // --as FAMILY
  bool text_only = false;  // --text-only
  specs::ModelSpec spec;  // outlives the ResultSet, which points into it
  NumericFlags nf;
  std::size_t tokens = 0, params = 0, vocab = 0, gpus = 0, tp = 0, pp = 0, dp = 0, ep = 0, micro_batch = 0, seq = 0,
              cuda = 0, frag = 0, capacity = 0, mfu = 0, achieved = 0, tokens_per_second = 0,
              gpu_hours = 0, time = 0, peak = 0, power = 0, node_power = 0,
              gpus_per_node = 0, price_gpu_hour = 0, dropout = 0;
  std::size_t virtual_stages = 0, recompute_layers = 0;  // pipeline schedule, partial recomputation
  std::size_t cp = 0;                                    // context parallelism
  std::size_t lora_rank = 0;                             // --lora-rank (fine-tuning)
  std::string lora_targets = "attention";
  bool qlora = false;
  EnergyPriceFlags priced;
  std::string formula = "6pd", dtype = "bf16", precision = "mixed", optimizer = "adamw", recompute = "none",
              params_count;
  int zero = 0;
  std::string zero_text = "0";  // --zero as typed (a comma list compares stages)
  MadeUpModelFlags made_up;  // --layers --hidden ...: a made-up decoder instead of MODEL (--vocab: its V)
  bool sequence_parallel = false;
  ActivationFlags act;  // --dropout, --no-dropout, --attention, --flash-attention
  TrainingMemoryFlags tm;  // --activation-accounting, --loss, --distribute-saved-activations
  HardwareOption hw;
  TrainSpeedFlags speed;  // the step model's flags
  OutputOptions out;
};

// What one configuration (one run_choices turn) resolves before its sweep; the rows read it.
struct TrainChoices {
  FlopsFormula formula = FlopsFormula::six_pd;
  std::optional<ParamsCount> params_count;
  Recompute rc = Recompute::none;
  bool flash = false;
  Dtype dtype = Dtype::bf16;
  Precision precision = Precision::mixed;
  Optimizer optimizer = Optimizer::adamw;
  std::string made_up;  // the made-up decoder's flags as typed; empty with MODEL or --params
  bool peak_given = false, power_given = false;
  bool bare = false;  // --params P alone: a bare parameter count
};

// What the sweep's rows leave for the exit code.
struct FitTally {
  bool all_fit = true;
  std::string first_miss;  // why the first row that does not fit does not, for --require-fit
};


/// Every flag of train (model, compute, hardware, parallelism, training, energy and cost, the step
/// model), without the output flags.
void add_train_options(CommandApp* sub, TrainCmd& c);

/// One configuration's checks before its sweep, in the order a command line with two errors
/// reports the first one's: the names, the model choice, the hardware, the flags' needs, the
/// model, the step model.
void prepare_train(CommandApp* sub, TrainCmd& c, TrainChoices& plan);

/// The run's input at one sweep point: FLOP, layout, memory, speed, energy and cost.
TrainInput train_input(const TrainCmd& c, const TrainChoices& plan, const Point& p);

/// The run's own checks at the layout the flags give (the rest at 1), without the step model: an
/// error names a flag the user gave (--gpus, --tp, MODEL), not a layout a search would try.
void precheck_run(const specs::ModelSpec& m, TrainInput in);

/// The planner's input for the run `in` at point `p`: its GPUs, and each layout flag given (--tp,
/// --pp, --cp, --ep, --virtual-stages, --micro-batch, --zero, --recompute) as a fixed dimension.
TrainPlanInput plan_constraints(CommandApp* sub, const TrainCmd& c, const TrainInput& in, const Point& p);

/// One sweep row of `in` (the model's or a bare count's run), with the hardware, step-model and
/// made-up-decoder assumptions; the tally for --require-fit.
void train_row(TrainCmd& c, const TrainChoices& plan, const Point& p, const TrainInput& in, ResultSet& rs,
               FitTally& tally);

}  // namespace napkin::cli
