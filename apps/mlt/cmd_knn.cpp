// mlt knn fit | predict | score | cv
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "commands.hpp"
#include "data_options.hpp"
#include "model_io.hpp"
#include "output.hpp"
#include "cv_command.hpp"
#include "fit_verb.hpp"
#include "mlt/core/error.hpp"
#include "mlt/io/file.hpp"
#include "mlt/knn.hpp"

namespace mlt::app {
namespace {

struct PredictOptions {
  std::string model;
  DataOptions data;
  std::string output = "-";
  bool proba = false;
  bool neighbors = false;
};

struct ScoreOptions {
  std::string model;
  DataOptions data;
  bool json = false;
};

void run_predict(const PredictOptions& opt) {
  refuse_overwrite(opt.output, {opt.data.path, opt.model});
  const LoadedModel loaded = read_model(opt.model, Knn::kind);
  const Knn model = Knn::load(loaded.reader);
  const io::Table data = read_data_for(loaded.schema, opt.data);
  if (opt.proba && model.is_regression()) throw UsageError("--proba needs a classifier; this model is a regressor");
  const Knn::Neighbors nb = model.kneighbors(data.X);

  CsvColumns out;
  std::vector<std::string> labels;
  arma::mat values;
  if (model.is_regression()) {
    values = model.average(nb);
    out.names = loaded.schema.targets.empty() ? Names{loaded.schema.target} : loaded.schema.targets;
  } else {
    arma::mat proba;
    labels = LabelEncoder(loaded.schema.classes).decode(model.vote(nb, 0, opt.proba ? &proba : nullptr));
    out.text_names = {loaded.schema.target};
    out.text = {&labels};
    if (opt.proba) {
      values = proba;
      out.names = loaded.schema.classes;
    }
  }
  if (opt.neighbors) {
    const arma::uword k = nb.index.n_cols;
    // 1-based row numbers among the training data rows, then the distances.
    arma::mat extra = arma::join_rows(arma::conv_to<arma::mat>::from(nb.index) + 1.0, nb.distance);
    for (arma::uword j = 1; j <= k; ++j) out.names.push_back("neighbor" + std::to_string(j));
    for (arma::uword j = 1; j <= k; ++j) out.names.push_back("distance" + std::to_string(j));
    values = values.is_empty() ? extra : arma::mat(arma::join_rows(values, extra));
  }
  if (!out.names.empty()) out.values = &values;
  write_csv(opt.output, out);
}

void run_score(const ScoreOptions& opt) {
  const LoadedModel loaded = read_model(opt.model, Knn::kind);
  const Knn model = Knn::load(loaded.reader);
  const auto& schema = loaded.schema;
  const Names targets = schema.targets.empty() ? Names{schema.target} : schema.targets;
  const io::Table data = read_data_for(schema, opt.data, targets);
  const Knn::Neighbors nb = model.kneighbors(data.X);
  if (model.is_regression()) {
    print_scores(regression_scores(regression_truth(data, schema), model.average(nb)), opt.json,
                 {{"n_samples", data.n_rows()}});
    return;
  }
  const Labels truth = class_truth(data, schema);
  arma::mat proba;
  const Labels prediction = model.vote(nb, 0, &proba);
  print_classification_scores(truth, prediction, &proba, schema.classes, opt.json);
}

// cv fast path: every k of the grid from one neighbour search per split. The points
// that differ only in k share one fit with the largest of their k; kneighbors lists
// the neighbours nearest first (ties: lower training row first), so its first k
// columns are the neighbours a fit with that k finds, and vote() (classes) or
// average() (--regression) on them predicts what that fit predicts.
template <class Target>
std::optional<FastPath> knn_k_path(const FastPathInput<Knn, Target>& in) {
  const std::optional<std::size_t> axis = axis_index(in.grid, "k");
  if (!axis || in.grid.axes()[*axis].values.size() < 2) return std::nullopt;
  const std::size_t a = *axis;
  FastPath fast;
  fast.group = [&grid = in.grid, a](std::size_t point) { return point_without_axis(grid, point, a); };
  fast.scorer = [&grid = in.grid, base = in.base, &apply = in.apply, &X = in.X, &y = in.y, metric = in.metric,
                 a](const cv::Split& split, const std::vector<std::size_t>& points) {
    Knn::Params params = base;
    apply(params, grid.point(points.at(0)));  // the settings the group shares
    std::vector<std::size_t> ks;
    for (std::size_t p : points) ks.push_back(static_cast<std::size_t>(grid.point(p)[a].number));
    params.k = *std::max_element(ks.begin(), ks.end());
    const Knn fitted = cv::fit_on_rows<Knn>(params, X, y, split.train());
    const Knn::Neighbors nb = fitted.kneighbors(X.rows(split.test), params.k);
    const Target y_test = cv::take_rows(y, split.test);
    std::vector<double> out;
    for (std::size_t k : ks) {
      if constexpr (std::is_same_v<Target, Labels>) {
        arma::mat proba;
        const Labels pred = fitted.vote(nb, k, metric == "log_loss" ? &proba : nullptr);
        out.push_back(metrics::classification_score(metric, y_test, pred, &proba));
      } else {
        out.push_back(metrics::regression_score(metric, y_test, fitted.average(nb, k)));
      }
    }
    return out;
  };
  return fast;
}

}  // namespace

void setup_knn(CLI::App& app) {
  auto* knn = app.add_subcommand("knn", "k-nearest-neighbour classification and regression");
  knn->require_subcommand(1);
  knn->footer(
      "Examples:\n"
      "  mlt knn fit data/iris.csv --target species -k 5 --standardize -o iris.knn\n"
      "  mlt knn predict iris.knn data/iris.csv --proba > predictions.csv\n"
      "  mlt knn predict iris.knn data/iris.csv --neighbors\n"
      "  mlt knn score iris.knn data/iris.csv\n"
      "  mlt knn fit data/diabetes.csv --regression -k 10 --weights distance -o diabetes.knn\n"
      "  mlt knn cv data/iris.csv --target species --standardize -k 1:31:2 --weights uniform,distance\n"
      "  mlt knn cv data/diabetes.csv --regression -k 1:30 --score mae");

  add_fit_verb<Knn>(knn, CvTask::classification, "Keep the training set of DATA (and the search settings) as a model",
                    {.summary = [](const Knn& m, const FitData&) {
                       return "knn: " + std::to_string(m.n_train()) + " training samples, " +
                              std::to_string(m.n_features()) + " features, " + name_of(m.algorithm()) + " search";
                     },
                     .task = [](const Knn::Params& p) {
                       return p.regression ? CvTask::regression : CvTask::classification;
                     }});

  auto pr_opt = std::make_shared<PredictOptions>();
  auto* pr = knn->add_subcommand("predict", "Predict the target of each row of DATA from its nearest neighbours");
  pr->add_option("model", pr_opt->model, "Model file from mlt knn fit")->required();
  add_data_options(pr, pr_opt->data);
  pr->add_option("-o,--output", pr_opt->output, "CSV file to write (default: standard output)");
  pr->add_flag("--proba", pr_opt->proba,
               "Add one column per class: its share of the (weighted) vote among the neighbours");
  pr->add_flag("--neighbors", pr_opt->neighbors,
               "Add the k neighbours' training row numbers (1-based data rows) and their distances");
  pr->callback([pr_opt] { run_predict(*pr_opt); });

  auto sc_opt = std::make_shared<ScoreOptions>();
  auto* sc = knn->add_subcommand(
      "score", "Accuracy, balanced accuracy, F1, log loss and confusion matrix (or mse, rmse, mae, r2) on DATA");
  sc->add_option("model", sc_opt->model, "Model file from mlt knn fit")->required();
  add_data_options(sc, sc_opt->data);
  sc->add_flag("--json", sc_opt->json, "One JSON object instead of lines");
  sc->callback([sc_opt] { run_score(*sc_opt); });

  // cv: classification (stratified folds by default) or, with --regression, regression
  // (plain k-fold); each fold's training rows are the neighbours (and fit the
  // Standardizer).
  auto& cv = add_cv_command<Knn>(knn, CvTask::classification,
                                 "Cross-validate k-nearest-neighbour classification or regression over a grid of k "
                                 "(and weights, distances)");
  cv.task_flag("--regression", CvTask::regression,
               "Regression: the neighbours' mean numeric target(s), scored by mse (default), rmse, mae or r2",
               [](Knn::Params& p) { p.regression = true; });
  cv.declared_params();
  cv.metrics(classification_metrics<Knn>(), "accuracy");
  cv.fast_path<Labels>(knn_k_path<Labels>);
  cv.metrics(regression_metrics<Knn>(), "mse");
  cv.fast_path<arma::mat>(knn_k_path<arma::mat>);
}

}  // namespace mlt::app
