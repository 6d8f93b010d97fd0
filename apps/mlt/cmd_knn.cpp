// mlt knn fit | predict | score | cv
#include "commands.hpp"
#include "cv_command.hpp"
#include "fit_verb.hpp"
#include "task_verbs.hpp"
#include "mlt/knn.hpp"

namespace mlt::app {

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
                    {.summary = [](const Knn& m, const FitData& d) {
                       // Counted as given: a structured kernel's encoded rows (a precomputed
                       // row's index column, a string's bytes) are not features.
                       const auto& k = m.params().kernel;
                       return "knn: " + std::to_string(m.n_train()) + " training samples, " +
                              input_description(d.schema, k ? name_of(k->type) : "") + ", " +
                              name_of(m.algorithm()) + " search";
                     },
                     .task = [](const Knn::Params& p) {
                       return p.regression ? CvTask::regression : CvTask::classification;
                     }});

  add_task_verbs<Knn>(
      knn, {.columns = TaskVerbs<Knn>::Columns{
                "--neighbors", "Add the k neighbours' training row numbers (1-based data rows) and their distances",
                [](const Knn& model, const arma::mat& X, TaskPrediction& prediction) {
                  const Knn::Neighbors nb = model.kneighbors(X);
                  prediction = model.predict_task(nb);
                  std::pair<Names, arma::mat> out;
                  for (arma::uword j = 1; j <= nb.index.n_cols; ++j) out.first.push_back("neighbor" + std::to_string(j));
                  for (arma::uword j = 1; j <= nb.index.n_cols; ++j) out.first.push_back("distance" + std::to_string(j));
                  out.second = arma::join_rows(arma::conv_to<arma::mat>::from(nb.index) + 1.0, nb.distance);
                  return out;
                }}});

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
  // Every k of the grid from one neighbour search per split (cv::k_path_scores).
  cv.fast_path<Labels>([](const auto& in) { return axis_path<std::size_t>(in, "k", k_path_scores); });
  cv.metrics(regression_metrics<Knn>(), "mse");
  cv.fast_path<arma::mat>([](const auto& in) { return axis_path<std::size_t>(in, "k", k_path_scores); });
}

}  // namespace mlt::app
