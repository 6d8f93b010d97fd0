// mlt logreg fit | predict | score | cv
#include <algorithm>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "classifier_verbs.hpp"
#include "cv_command.hpp"
#include "fit_verb.hpp"
#include "mlt/core/error.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/io/file.hpp"
#include "mlt/logreg.hpp"
#include "mlt/io/number_format.hpp"

namespace mlt::app {
namespace {

// A fixed-width table of the coefficients, for `mlt info` (stored as a string in the
// model's "info" header section, which info prints verbatim).
std::string coefficient_table(const LogReg& m, const Names& classes, const Names& features) {
  Names rows;
  if (m.n_classes() == 2) rows = {classes[1]};
  else rows = classes;
  Names cols = {"class"};
  if (m.params().fit_intercept) cols.push_back("(intercept)");
  cols.insert(cols.end(), features.begin(), features.end());
  std::vector<std::vector<std::string>> cells = {cols};
  for (std::size_t k = 0; k < rows.size(); ++k) {
    std::vector<std::string> row = {rows[k]};
    auto cell = [](double v) {
      std::string s;
      io::append_number(s, v);
      return s;
    };
    if (m.params().fit_intercept) row.push_back(cell(m.intercept()[k]));
    for (std::size_t j = 0; j < features.size(); ++j) row.push_back(cell(m.coef()(k, j)));
    cells.push_back(row);
  }
  std::vector<std::size_t> width(cols.size(), 0);
  for (const auto& r : cells)
    for (std::size_t j = 0; j < r.size(); ++j) width[j] = std::max(width[j], r[j].size());
  std::string out = m.n_classes() == 2 ? "log-odds of class " + classes[1] : "softmax scores per class";
  if (m.params().standardize) out += ", per standardized feature";
  out += "\n";
  for (const auto& r : cells) {
    out += "   ";
    for (std::size_t j = 0; j < r.size(); ++j) out += " " + r[j] + std::string(width[j] - r[j].size(), ' ');
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  }
  out.pop_back();
  return out;
}

// cv fast path: warm starts along the lambda grid. The points that differ only in
// lambda share one task per split, which fits the largest lambda from zero and each
// smaller one from the previous solution (LogReg::fit with a start): the optima move
// little between neighbouring lambdas, so each fit needs fewer Newton steps. Every fit
// meets the same absolute stopping test as a cold one (LogRegParams::tol), so the
// scores equal the plain path's up to the solver tolerance. Linear models only: kernel logistic regression (the same
// solver, on the dual coefficients) is too ill conditioned for the warm start to save
// iterations (tests/lib/logreg_test.cpp), so kernel grids take the plain path.
std::optional<FastPath> logreg_warm_path(const FastPathInput<LogReg, Labels>& in) {
  const std::optional<std::size_t> axis = axis_index(in.grid, "lambda");
  if (!axis || in.grid.axes()[*axis].values.size() < 2) return std::nullopt;
  if (in.base.kernelized || axis_index(in.grid, "kernel")) return std::nullopt;
  const std::size_t a = *axis;
  FastPath fast;
  fast.group = [&grid = in.grid, a](std::size_t point) { return point_without_axis(grid, point, a); };
  fast.scorer = [&grid = in.grid, base = in.base, &apply = in.apply, &X = in.X, &y = in.y, metric = in.metric,
                 a](const cv::Split& split, const std::vector<std::size_t>& points) {
    // The group's points by decreasing lambda (stable: equal lambdas keep grid order).
    std::vector<std::size_t> order(points.size());
    for (std::size_t j = 0; j < order.size(); ++j) order[j] = j;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) {
      return grid.point(points[i])[a].number > grid.point(points[j])[a].number;
    });
    const arma::uvec train = split.train();
    const arma::mat X_train = X.rows(train), X_test = X.rows(split.test);
    const Labels y_train = y.elem(train), y_test = y.elem(split.test);
    std::vector<double> out(points.size());
    std::optional<LogReg> previous;
    for (std::size_t j : order) {
      LogReg::Params params = base;
      apply(params, grid.point(points[j]));
      LogReg e(params);
      if (previous) e.fit(X_train, y_train, 0, *previous);
      else e.fit(X_train, y_train);
      arma::mat proba;
      if (metric == "log_loss") proba = e.predict_proba(X_test);
      out[j] = metrics::classification_score(metric, y_test, e.predict(X_test), &proba);
      previous = std::move(e);
    }
    return out;
  };
  return fast;
}

}  // namespace

void setup_logreg(CLI::App& app) {
  auto* lr = app.add_subcommand("logreg", "Logistic regression (binary, multinomial, one-vs-rest, kernelized)");
  lr->require_subcommand(1);
  lr->footer(
      "Examples:\n"
      "  mlt logreg fit data/iris.csv --target species --standardize -o iris.logreg\n"
      "  mlt logreg predict iris.logreg data/iris.csv --proba > predictions.csv\n"
      "  mlt logreg score iris.logreg data/iris.csv\n"
      "  mlt logreg fit data/wine.csv --kernel rbf --gamma 0.1 --lambda 0.1 --standardize -o wine.logreg\n"
      "  mlt logreg cv data/iris.csv --target species --standardize --lambda 1e-3:1e2:6 --score log_loss");

  add_fit_verb<LogReg>(
      lr, CvTask::classification, "Fit a logistic regression to DATA and save it as a model",
      {.info = [](const LogReg& m, const FitData& d) -> nlohmann::json {
         if (m.params().kernelized) return nullptr;
         return {{"coefficients", coefficient_table(m, d.schema.classes, d.table.feature_names)}};
       },
       .summary = [](const LogReg& m, const FitData& d) {
         std::size_t iterations = 0;
         double objective = 0;
         for (const LogRegFitInfo& f : m.fit_info()) {
           iterations += f.iterations;
           objective += f.objective;
         }
         return "logreg: " + std::to_string(m.n_classes()) + " classes, " + std::to_string(iterations) +
                " Newton iterations, objective " + std::to_string(objective) + ", training accuracy " +
                std::to_string(m.score(d.table.X, d.y));
       }});

  add_classifier_verbs<LogReg>(lr);

  // cv: stratified folds by default; each fold's model (and its Standardizer) is
  // fitted on the training rows only. Grids over lambda and the kernel settings.
  auto& cv = add_cv_command<LogReg>(lr, CvTask::classification,
                                    "Cross-validate logistic regression over a grid of penalties (and kernels)");
  cv.declared_params();
  cv.metrics(classification_metrics<LogReg>(), "accuracy");
  cv.fast_path<Labels>(logreg_warm_path);
}

}  // namespace mlt::app
