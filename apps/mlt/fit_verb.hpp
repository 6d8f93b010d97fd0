// `mlt <algo> fit`, written once: DATA, -o MODEL, --target for a supervised task,
// and every hyperparameter the estimator declares (param_flags.hpp). It reads the
// data as the task reads it, fits, and saves the model with its data schema; the
// algorithm adds only what `mlt info` shows beyond the parameters and the line it
// prints on stderr. `cv --refit` saves through the same save_model.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "cli_support.hpp"
#include "data_options.hpp"
#include "model_io.hpp"
#include "cv_command.hpp"
#include "param_flags.hpp"

namespace mlt::app {

// What a fit read: the table (features, provenance) and the schema it saves.
struct FitData {
  io::Table table;
  DataSchema schema;
  Labels y;      // classification: the class indices
  arma::mat Y;   // regression: the targets
};

// What an unsupervised fit with inputs of its own (FitHooks::fit) is given.
struct FitInput {
  const io::Table& data;     // DATA as read
  const DataOptions& data_options;  // how it was read (to read a companion file alike)
  const std::string& output; // the model file to be written (no input may be it)
};

template <class E>
struct FitHooks {
  // The header's "info": what `mlt info` shows of this model beyond its parameters
  // (null: nothing).
  std::function<nlohmann::json(const E&, const FitData&)> info = nullptr;
  // One line for stderr (not under -q): "logreg: 3 classes, 9 Newton iterations ...".
  std::function<std::string(const E&, const FitData&)> summary = nullptr;
  // For an estimator that is a classifier or a regressor by a parameter (knn's
  // `regression`): the task its parameters ask for. --target then takes several
  // columns, which only a regression may use.
  std::function<CvTask(const typename E::Params&)> task = nullptr;
  // For an unsupervised fit that takes more than DATA (k-means' --centroids):
  // `options` adds its flags (and may change parameter defaults), `fit` reads what
  // they name and fits in place of E(params).fit(X), and `detail` adds to the fit's
  // timing line (--timings).
  std::function<void(CLI::App* fit, typename E::Params& params)> options = nullptr;
  std::function<E(typename E::Params params, const FitInput& input)> fit = nullptr;
  std::function<std::string(const E&)> detail = nullptr;
};

// Adds `fit` under an algorithm's command. Classification: --target is one column
// of labels (the last by default); regression: one or several numeric columns;
// CvTask::none: every column is a feature (but --ignore).
template <class E>
CLI::App* add_fit_verb(CLI::App* command, CvTask task, const std::string& description, FitHooks<E> hooks = {}) {
  struct Options {
    DataOptions data;
    std::string output;
    Names targets;
    typename E::Params params;
  };
  auto opt = std::make_shared<Options>();
  auto* fit = command->add_subcommand("fit", description);
  add_data_options(fit, opt->data);
  fit->add_option("-o,--output", opt->output, "Model file to write")->required();
  if (task != CvTask::none) add_target_option(fit, opt->targets, task == CvTask::regression || hooks.task);
  const auto flags = add_param_flags(fit, opt->params, E::Params::table());
  if (hooks.options) hooks.options(fit, opt->params);
  fit->callback([opt, flags, declared_task = task, hooks] {
    flags.refuse_inapplicable(opt->params);
    const CvTask task = hooks.task ? hooks.task(opt->params) : declared_task;
    if (task == CvTask::classification && opt->targets.size() > 1)
      throw UsageError("a classifier takes one --target column");
    refuse_overwrite(opt->output, {opt->data.path});
    opt->data.structured = structured_input_of(opt->params);
    E model(opt->params);
    FitData d;
    const auto timed_fit = [&model, &hooks](const auto&... args) {
      PhaseTimer timer("fit");
      model.fit(args...);
      if (hooks.detail) timer.set_detail(hooks.detail(model));
    };
    if (task == CvTask::classification) {
      ClassificationData c = read_classification_data(opt->data, opt->targets.empty() ? "" : opt->targets[0]);
      if constexpr (requires(E& e, const arma::mat& X, const Labels& y) { e.fit(X, y, std::size_t{}); })
        timed_fit(c.table.X, c.y, c.encoder.n_classes());
      else if constexpr (requires(E& e, const arma::mat& X, const Labels& y) { e.fit(X, y); })
        timed_fit(c.table.X, c.y);
      else
        throw std::logic_error("add_fit_verb: the estimator does not fit class labels");
      d.schema = {c.table.feature_names, c.table.had_header, c.target, {}, c.encoder.classes(),
                  opt->data.structured};
      d.table = std::move(c.table);
      d.y = std::move(c.y);
    } else if (task == CvTask::regression) {
      RegressionData r = read_regression_data(opt->data, opt->targets);
      if constexpr (requires(E& e, const arma::mat& X, const arma::mat& Y) { e.fit(X, Y); })
        timed_fit(r.table.X, r.Y);
      else
        throw std::logic_error("add_fit_verb: the estimator does not fit numeric targets");
      d.schema = {r.table.feature_names, r.table.had_header, r.target_names[0], r.target_names, {},
                  opt->data.structured};
      d.table = std::move(r.table);
      d.Y = std::move(r.Y);
    } else {
      d.table = read_training_data(opt->data);
      if (hooks.fit) {
        PhaseTimer timer("fit");
        model = hooks.fit(opt->params, {d.table, opt->data, opt->output});
        if (hooks.detail) timer.set_detail(hooks.detail(model));
      } else if constexpr (requires(E& e, const arma::mat& X) { e.fit(X); })
        timed_fit(d.table.X);
      else
        throw std::logic_error("add_fit_verb: the estimator needs a target");
      d.schema = {d.table.feature_names, d.table.had_header, "", {}, {}, opt->data.structured};
    }
    save_model(model, opt->output, d.schema, d.table, [&](io::ModelWriter& w) {
      if (!hooks.info) return;
      nlohmann::json info = hooks.info(model, d);
      if (!info.is_null()) w.header()["info"] = std::move(info);
    });
    if (hooks.summary) note(hooks.summary(model, d));
  });
  return fit;
}

}  // namespace mlt::app
