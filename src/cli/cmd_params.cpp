// napkin params MODEL: exact parameter counts (total, active, embedding, non-embedding) and the
// breakdown by tensor group and layer kind; from checkpoint headers when MODEL has weights.
#include <memory>

#include "checkpoint_params.h"
#include "command.h"
#include "model_arg.h"
#include "napkin/error.h"
#include "napkin/params.h"

namespace napkin::cli {

namespace {

struct ParamsCmd {
  std::string model;
  std::string as;  // --as FAMILY
  specs::ModelSpec spec;  // outlives the ResultSet, which points into it
  bool has_spec = false;
  CheckpointCount weights;
  bool has_weights = false;
  NumericFlags nf;
  OutputOptions out;
};

void load(ParamsCmd& c) {
  ModelFiles f = resolve_model_files(c.model, c.as);
  if (!c.as.empty() && !f.spec)
    throw InputError("--as", c.as, "a config.json with an unknown model_type beside " + c.model +
                                       " (checkpoint weights alone are counted tensor by tensor)");
  if (f.spec) {
    warn_analogy(*f.spec);
    c.spec = std::move(*f.spec);
    c.has_spec = true;
  }
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
  auto* sub = app.add_subcommand("params", "Exact parameter counts: total, active, embedding, by component");
  auto c = std::make_shared<ParamsCmd>();
  sub->add_option("MODEL", c->model,
                  "A preset (napkin presets models), a config.json, a model directory, a .safetensors file or "
                  "index, a .gguf file, or napkin model JSON")
      ->required()
      ->type_name("MODEL")
      ->group("Model");
  add_as_option(sub, c->as);
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin params llama-3.1-8b\n"
              "         napkin params ./Llama-3.1-8B/config.json --json\n"
              "         napkin params ./Llama-3.1-8B/   (safetensors headers, checked against config.json)");
  sub->callback([c, sub, &exit_code] {
    // A comma list of models, GPUs, dtypes or engines compares them: one configuration at a time
    // from the state the command line gave (run_choices).
    const ParamsCmd saved = *c;
    const std::vector<ChoiceAxis> axes = {{"model", "MODEL", &c->model}};
    exit_code = run_choices(axes, c->out, [&] { *c = saved; }, [&]() -> int {
      int exit_code = 0;
      load(*c);
      exit_code = run_sweep(sub, c->nf, c->out, [&](const Point&, ResultSet& rs) {
        if (c->has_weights)
          checkpoint_params(c->model, c->weights, c->has_spec ? &c->spec : nullptr, rs);
        else
          count_params(c->spec, rs);
      });
      return exit_code;
    });
  });
}

}  // namespace napkin::cli
