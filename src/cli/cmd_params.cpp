// napkin params MODEL: exact parameter counts (total, active, embedding, non-embedding) and the
// breakdown by tensor group and layer kind; from checkpoint headers when MODEL has weights.
#include <memory>

#include "checkpoint_params.h"
#include "choice_axes.h"
#include "command.h"
#include "flag_checks.h"
#include "model_arg.h"
#include "model_flags.h"
#include "napkin/ground/error.h"
#include "napkin/model/params.h"
#include "numeric_flags.h"
#include "output_flags.h"
#include "sweep_runner.h"

namespace napkin::cli {

namespace {

struct ParamsCmd {
  std::string model;
  std::string as;  // --as FAMILY
  bool text_only = false;  // --text-only
  specs::ModelSpec spec;  // outlives the ResultSet, which points into it
  bool has_spec = false;
  CheckpointCount weights;
  bool has_weights = false;
  std::string unknown_family;  // config.json beside the weights names a family napkin does not count
  NumericFlags nf;
  MadeUpModelFlags made_up;  // --layers --hidden ...: a made-up decoder instead of MODEL
  OutputOptions out;
};

void load(ParamsCmd& c) {
  ModelFiles f = resolve_model_files(c.model, c.as);
  if (!c.as.empty() && !f.spec)
    throw InputError("--as", c.as, "a config.json with an unknown model_type beside " + c.model +
                                       " (checkpoint weights alone are counted tensor by tensor)");
  if (f.spec) {
    apply_text_only(*f.spec, c.text_only, c.model);
    warn_analogy(*f.spec);
    c.spec = std::move(*f.spec);
    c.has_spec = true;
  }
  c.unknown_family = f.unknown_family;
  if (c.text_only && !f.spec)
    throw InputError("--text-only", "(given)", "a MODEL whose config.json napkin reads (its tower is counted from it)");
  if (f.checkpoint) {
    c.weights.checkpoint = specs::read_checkpoint(*f.checkpoint);
    for (const auto& d : c.weights.checkpoint.dtypes) {
      c.weights.dtype_keys.push_back("dtype_" + d.dtype);
      c.weights.dtype_labels.push_back(d.dtype + " tensors");
    }
    c.has_weights = true;
  }
}

}  // namespace

void add_params_command(CLI::App& app, int& exit_code) {
  auto* sub = add_command(app, "params", "Exact parameter counts: total, active, embedding, by component");
  auto c = std::make_shared<ParamsCmd>();
  sub->add_option("MODEL", c->model,
                  "A preset (napkin presets models), a config.json, a model directory, a .safetensors file or "
                  "index, a .gguf file, or napkin model JSON (or a made-up decoder: --layers --hidden ...)")
      ->type_name("MODEL")
      ->group("Model");
  add_as_option(sub, c->as, c->text_only);
  c->made_up.add(sub, c->nf);
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin params llama-3.1-8b\n"
              "         napkin params ./Llama-3.1-8B/config.json --json\n"
              "         napkin params ./Llama-3.1-8B/   (safetensors headers, checked against config.json)\n"
              "         napkin params --layers 32 --hidden 4096 --heads 32 --kv-heads 8 --ffn 14336 --vocab 128256");
  sub->callback([c, sub, &exit_code] {
    // A comma list of models, GPUs, dtypes or engines compares them: one configuration at a time
    // from the state the command line gave (run_choices).
    const ParamsCmd saved = *c;
    const std::vector<ChoiceAxis> axes = {{"model", "MODEL", &c->model}};
    exit_code = run_choices(axes, c->out, [&] { *c = saved; }, [&]() -> int {
      int exit_code = 0;
      reject_extras(sub);
      refuse_text_only_without_model(c->text_only, c->model);
      const std::string made_up = c->made_up.select(c->nf, c->model, c->as);
      if (made_up.empty() && c->model.empty())
        throw InputError("params: give MODEL (a preset, config.json, model directory or checkpoint) or " +
                         std::string(kMadeUpHint));
      if (made_up.empty()) load(*c);
      exit_code = run_sweep(sub, c->nf, c->out, [&](const Point& p, ResultSet& rs) {
        if (!made_up.empty()) {
          c->made_up.build(p, c->spec);
          count_params(c->spec, rs);
          c->made_up.describe(c->nf, p, rs);
        } else if (c->has_weights) {
          checkpoint_params(c->model, c->weights, c->has_spec ? &c->spec : nullptr, rs);
          if (!c->unknown_family.empty())
            rs.assume("unknown_family", text("{} is not a family napkin counts: the weights are counted from the "
                                             "checkpoint's headers alone, tensor by tensor; memory, serve and train "
                                             "need the family",
                                             std::string_view(c->unknown_family)));
        }
        else
          count_params(c->spec, rs);
      });
      return exit_code;
    });
  });
}

}  // namespace napkin::cli
