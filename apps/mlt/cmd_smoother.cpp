// mlt smoother fit | predict | score | cv: the kernel smoother (Nadaraya–Watson) and
// its plug-in classifier (mlt/smoother.hpp).
//
// Its own command rather than a mode of knn: its parameters (a bandwidth and a
// window) share nothing with knn's (k, weights, metric, search), its prediction has a
// rule of its own (an empty window predicts the mean of Y, counted), and its cv has a
// closed-form leave-one-out over h; as a knn mode every one of those would be a
// parameter that applies in one mode only.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "cv_command.hpp"
#include "data_options.hpp"
#include "fit_verb.hpp"
#include "model_io.hpp"
#include "output.hpp"
#include "mlt/core/error.hpp"
#include "mlt/smoother.hpp"

namespace mlt::app {
namespace {

struct ApplyOptions {
  std::string model;
  DataOptions data;
  std::string output = "-";
  bool proba = false;
  bool json = false;
};

// "smoother: 3 of 50 rows had no training row in their window ..." on stderr.
void note_empty(std::size_t n_empty, std::size_t n_rows, bool classification) {
  if (n_empty == 0) return;
  note("smoother: " + std::to_string(n_empty) + " of " + std::to_string(n_rows) +
       " rows had no training row with a positive weight in their window (the weights sum to 0); predicted " +
       (classification ? "the training class frequencies" : "the training mean") + " there");
}

std::pair<LoadedModel, Smoother> load(const std::string& path) {
  LoadedModel loaded = read_model(path, Smoother::kind);
  Smoother model = Smoother::load(loaded.reader);
  if (model.is_classification() && loaded.schema.classes.size() != model.n_classes())
    loaded.reader.fail("class names do not match n_outputs");
  return {std::move(loaded), std::move(model)};
}

void run_predict(const ApplyOptions& opt) {
  refuse_overwrite(opt.output, {opt.data.path, opt.model});
  const auto [loaded, model] = load(opt.model);
  if (opt.proba && !model.is_classification())
    throw UsageError("--proba needs a classifier; this model is a regression");
  const DataSchema& schema = loaded.schema;
  const io::Table data = read_data_for(schema, opt.data);
  std::size_t n_empty = 0;
  const arma::mat P = model.predict_values(data.X, &n_empty);
  if (model.is_classification()) {
    const std::vector<std::string> labels = LabelEncoder(schema.classes).decode(Smoother::classes_of(P));
    write_csv(opt.output, {{schema.target}, {&labels}, opt.proba ? schema.classes : Names{}, opt.proba ? &P : nullptr});
  } else {
    write_csv(opt.output, {{}, {}, schema.targets.empty() ? Names{schema.target} : schema.targets, &P});
  }
  note_empty(n_empty, data.n_rows(), model.is_classification());
}

void run_score(const ApplyOptions& opt) {
  const auto [loaded, model] = load(opt.model);
  const DataSchema& schema = loaded.schema;
  const Names targets = schema.targets.empty() ? Names{schema.target} : schema.targets;
  const io::Table data = read_data_for(schema, opt.data, targets);
  std::size_t n_empty = 0;
  const arma::mat P = model.predict_values(data.X, &n_empty);
  const nlohmann::json extra = {{"n_samples", data.n_rows()}, {"n_empty_windows", n_empty}};
  if (model.is_classification())
    print_classification_scores(class_truth(data, schema), Smoother::classes_of(P), &P, schema.classes, opt.json,
                                extra);
  else
    print_scores(regression_scores(regression_truth(data, schema), P), opt.json, extra);
  note_empty(n_empty, data.n_rows(), model.is_classification());
}

// cv --loo: every grid point's leave-one-out predictions in closed form
// (Smoother::loo_predict: one pass over the pairwise distances per point, no refit),
// then each one-row split scored from them. Not with --standardize: a refit without
// row i standardizes with the other rows' statistics, which the closed form does not.
template <class Target>
std::optional<FastPath> loo_path(const FastPathInput<Smoother, Target>& in) {
  if (!cv::is_leave_one_out(in.folds) || in.base.standardize) return std::nullopt;
  Smoother all(in.base);
  all.fit(in.X, in.y);
  auto loo = std::make_shared<std::vector<arma::mat>>(in.grid.size());
  for (std::size_t p = 0; p < in.grid.size(); ++p) {
    Smoother::Params q = in.base;
    in.apply(q, in.grid.point(p));
    (*loo)[p] = all.loo_predict(q.bandwidth, q.window);
  }
  FastPath fast;
  fast.group = [](std::size_t) { return std::size_t{0}; };
  fast.scorer = [loo, &y = in.y, metric = in.metric](const cv::Split& split, const std::vector<std::size_t>& points) {
    const Target y_test = cv::take_rows(y, split.test);
    std::vector<double> out;
    for (std::size_t p : points) {
      const arma::mat P = (*loo)[p].rows(split.test);
      if constexpr (std::is_same_v<Target, Labels>)
        out.push_back(metrics::classification_score(metric, y_test, Smoother::classes_of(P), &P));
      else
        out.push_back(metrics::regression_score(metric, y_test, P));
    }
    return out;
  };
  return fast;
}

}  // namespace

void setup_smoother(CLI::App& app) {
  auto* cmd = app.add_subcommand("smoother", "Kernel smoother (Nadaraya-Watson) regression and plug-in classification");
  cmd->require_subcommand(1);
  cmd->footer(
      "Examples:\n"
      "  mlt smoother fit data/diabetes.csv --standardize --bandwidth 2 -o diabetes.smoother\n"
      "  mlt smoother predict diabetes.smoother data/diabetes.csv > predictions.csv\n"
      "  mlt smoother score diabetes.smoother data/diabetes.csv --json\n"
      "  mlt smoother cv data/diabetes.csv --bandwidth 5:200:12 --window box,epanechnikov,gaussian --loo\n"
      "  mlt smoother fit data/iris.csv --classification --window epanechnikov --bandwidth 1 -o iris.smoother\n"
      "  mlt smoother predict iris.smoother data/iris.csv --proba");

  add_fit_verb<Smoother>(cmd, CvTask::regression, "Keep the training set of DATA (and the window) as a model",
                         {.summary = [](const Smoother& m, const FitData&) {
                            return "smoother: " + std::to_string(m.n_train()) + " training rows, " +
                                   std::to_string(m.n_features()) + " features, " + name_of(m.params().window) +
                                   " window";
                          },
                          .task = [](const Smoother::Params& p) {
                            return p.classification ? CvTask::classification : CvTask::regression;
                          }});

  const std::string model_help = "Model file from mlt smoother fit";
  auto pr_opt = std::make_shared<ApplyOptions>();
  auto* pr = cmd->add_subcommand("predict", "Predict the target (or class) of each row of DATA");
  pr->add_option("model", pr_opt->model, model_help)->required();
  add_data_options(pr, pr_opt->data);
  pr->add_option("-o,--output", pr_opt->output, "CSV file to write (default: standard output)");
  pr->add_flag("--proba", pr_opt->proba,
               "Add one column per class: its weighted frequency in the window (classification models)");
  pr->callback([pr_opt] { run_predict(*pr_opt); });

  auto sc_opt = std::make_shared<ApplyOptions>();
  auto* sc = cmd->add_subcommand(
      "score", "mse, rmse, mae, r2 (or accuracy, balanced accuracy, F1, log loss, confusion matrix) on DATA");
  sc->add_option("model", sc_opt->model, model_help)->required();
  add_data_options(sc, sc_opt->data);
  sc->add_flag("--json", sc_opt->json, "One JSON object instead of lines (with n_empty_windows)");
  sc->callback([sc_opt] { run_score(*sc_opt); });

  auto& cv = add_cv_command<Smoother>(cmd, CvTask::regression,
                                      "Cross-validate the smoother over grids of the bandwidth and window (--loo: "
                                      "leave-one-out in closed form)");
  cv.task_flag("--classification", CvTask::classification,
               "The plug-in classifier: class labels, scored by accuracy (default), balanced_accuracy, f1_macro or "
               "log_loss",
               [](Smoother::Params& p) { p.classification = true; });
  cv.declared_params();
  cv.metrics(regression_metrics<Smoother>(), "mse");
  cv.fast_path<arma::mat>(loo_path<arma::mat>);
  cv.metrics(classification_metrics<Smoother>(), "accuracy");
  cv.fast_path<Labels>(loo_path<Labels>);
}

}  // namespace mlt::app
