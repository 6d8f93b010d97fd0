// The predict and score verbs of a regression command, the same for every regressor E
// (static load(ModelReader), predict(X) -> n x n_targets, kind): predictions are written
// in columns named after the targets; scores are the registry's regression metrics
// (mlt/metrics.hpp: mse, rmse, mae and r2).
#pragma once

#include <memory>
#include <string>

#include "apply_verb.hpp"
#include "data_options.hpp"
#include "model_io.hpp"
#include "output.hpp"
#include "mlt/metrics.hpp"

namespace mlt::app {

template <typename E>
void add_regression_verbs(CLI::App* command) {
  struct Options {
    std::string model;
    DataOptions data;
    std::string output = "-";
    bool json = false;
  };
  const std::string model_help = std::string("Model file from mlt ") + E::kind + " fit";

  auto pr_opt = std::make_shared<Options>();
  auto* pr = command->add_subcommand("predict", "Predict the target(s) of DATA with MODEL");
  pr->add_option("model", pr_opt->model, model_help)->required();
  add_data_options(pr, pr_opt->data);
  add_keep_option(pr, pr_opt->data);
  pr->add_option("-o,--output", pr_opt->output, "CSV file to write (default: standard output)");
  pr->callback([pr_opt] {
    const Options& opt = *pr_opt;
    refuse_overwrite(opt.output, {opt.data.path, opt.model});
    const LoadedModel model = read_model(opt.model, E::kind);
    const E estimator = E::load(model.reader);
    predict_chunks(model.schema, opt.data, opt.output, [&](const io::Table& data, CsvStream& out) {
      const arma::mat P = estimator.predict(data.X);
      const KeptColumns kept = kept_columns(data, opt.data);
      out.write(kept.before({{}, {}, model.schema.targets, &P}));
    });
  });
  distribute(pr);

  auto sc_opt = std::make_shared<Options>();
  const Names metric_names = metrics::names(metrics::Task::regression);
  std::string listed;  // "mse, rmse, mae and r2"
  for (std::size_t i = 0; i < metric_names.size(); ++i)
    listed += (i == 0 ? "" : i + 1 == metric_names.size() ? " and " : ", ") + metric_names[i];
  auto* sc = command->add_subcommand("score", listed + " of MODEL on DATA (which has the target), per target too");
  sc->add_option("model", sc_opt->model, model_help)->required();
  add_data_options(sc, sc_opt->data);
  sc->add_flag("--json", sc_opt->json, "One JSON object instead of lines");
  sc->callback([sc_opt] {
    const Options& opt = *sc_opt;
    const LoadedModel model = read_model(opt.model, E::kind);
    const E estimator = E::load(model.reader);
    const io::Table data = read_data_for(model.schema, opt.data, model.schema.targets);
    const arma::mat Y = regression_truth(data, model.schema);
    const Names targets = model.schema.targets.empty() ? Names{model.schema.target} : model.schema.targets;
    print_regression_scores(Y, estimator.predict(data.X), targets, opt.json, {{"n_samples", data.n_rows()}});
  });
}

}  // namespace mlt::app
