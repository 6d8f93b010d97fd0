// mlt ridge fit | predict | score | cv
#include <memory>

#include "commands.hpp"
#include "regression_verbs.hpp"
#include "cv_command.hpp"
#include "fit_verb.hpp"
#include "mlt/core/error.hpp"
#include "mlt/ridge.hpp"

namespace mlt::app {
namespace {

// Coefficients by feature name for `mlt info` (the "coef" matrix has them by position).
nlohmann::json coefficients_by_name(const Ridge& r, const Names& features, const Names& targets) {
  auto column = [&](arma::uword t) {
    nlohmann::json rows = nlohmann::json::array();
    for (arma::uword j = 0; j < r.n_features(); ++j) rows.push_back({features[j], r.coef()(j, t)});
    return rows;
  };
  nlohmann::json info;
  if (targets.size() == 1) {
    info["coefficients"] = column(0);
    info["intercept"] = r.intercept()[0];
  } else {
    for (arma::uword t = 0; t < targets.size(); ++t) {
      info["coefficients"][targets[t]] = column(t);
      info["intercept"][targets[t]] = r.intercept()[t];
    }
  }
  if (r.params().standardize) info["coefficients_space"] = "standardized";
  return info;
}

// cv fast paths (mlt/cv/lambda_path.hpp): on leave-one-out folds every lambda in
// closed form from one decomposition of all the rows (not with --standardize, which
// takes the next one); otherwise the lambda grid from one Gram eigendecomposition per
// split. lambda = 0 (least squares, with its rank warnings) is fitted the plain way.
std::optional<FastPath> ridge_fast_path(const FastPathInput<Ridge, arma::mat>& in) {
  if (std::optional<FastPath> loo = loo_lambda_path<Ridge>(in)) return loo;
  return lambda_path<Ridge>(in);
}

}  // namespace

void setup_ridge(CLI::App& app) {
  auto* ridge = app.add_subcommand("ridge", "Ridge regression (L2-penalized least squares)");
  ridge->require_subcommand(1);
  ridge->footer(
      "Examples:\n"
      "  mlt ridge fit data/diabetes.csv --target progression --lambda 0.1 -o diabetes.ridge\n"
      "  mlt ridge predict diabetes.ridge new.csv > predictions.csv\n"
      "  mlt ridge score diabetes.ridge test.csv --json\n"
      "  mlt ridge cv data/diabetes.csv --lambda 1e-4:1e2:25 --loo");

  add_fit_verb<Ridge>(ridge, CvTask::regression, "Fit ridge regression on DATA and save the model",
                      {.info = [](const Ridge& r, const FitData& d) {
                        return coefficients_by_name(r, d.table.feature_names, d.schema.targets);
                      }});

  add_regression_verbs<Ridge>(ridge);

  // cv: each fold's fit (and its Standardizer) sees the training rows only.
  auto& cv = add_cv_command<Ridge>(ridge, CvTask::regression, "Cross-validate ridge regression over a grid of penalties");
  cv.declared_params();
  cv.metrics(regression_metrics<Ridge>(), "mse");
  cv.fast_path<arma::mat>(ridge_fast_path);
}

}  // namespace mlt::app
