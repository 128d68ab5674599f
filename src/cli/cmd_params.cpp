// napkin params MODEL: exact parameter counts (total, active, embedding, non-embedding) and the
// breakdown by tensor group and layer kind.
#include <memory>

#include "command.h"
#include "model_arg.h"
#include "napkin/params.h"

namespace napkin::cli {

namespace {

struct ParamsCmd {
  std::string model;
  specs::ModelSpec spec;  // outlives the ResultSet, which points into it
  NumericFlags nf;
  OutputOptions out;
};

}  // namespace

void add_params_command(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("params", "Exact parameter counts: total, active, embedding, by component");
  auto c = std::make_shared<ParamsCmd>();
  sub->add_option("MODEL", c->model,
                  "A preset (napkin presets models), a config.json, a model directory or napkin model JSON")
      ->required()
      ->type_name("MODEL")
      ->group("Model");
  add_output_flags(sub, c->out);
  sub->footer("Example: napkin params llama-3.1-8b\n"
              "         napkin params ./Llama-3.1-8B/config.json --json");
  sub->callback([c, sub, &exit_code] {
    c->spec = load_model(c->model);
    exit_code = run_sweep(sub, c->nf, c->out, [&](const Point&, ResultSet& rs) { count_params(c->spec, rs); });
  });
}

}  // namespace napkin::cli
