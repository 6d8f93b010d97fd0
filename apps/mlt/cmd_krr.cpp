// mlt krr fit | predict | score | cv
#include <memory>

#include "commands.hpp"
#include "regression_verbs.hpp"
#include "cv_command.hpp"
#include "fit_verb.hpp"
#include "mlt/core/error.hpp"
#include "mlt/krr.hpp"

namespace mlt::app {
namespace {

// cv fast paths (mlt/cv/lambda_path.hpp), exact kernel ridge only (not --nystrom):
// on leave-one-out folds every lambda in closed form from one eigendecomposition of
// the whole kernel matrix (not with --standardize); otherwise the lambda grid from one
// eigendecomposition per split. Points where K + lambda*I is not positive definite are
// fitted the plain way.
std::optional<FastPath> krr_fast_path(const FastPathInput<Krr, arma::mat>& in) {
  if (std::optional<FastPath> loo = loo_lambda_path<Krr>(in)) return loo;
  return lambda_path<Krr>(in);
}

}  // namespace

void setup_krr(CLI::App& app) {
  auto* krr = app.add_subcommand("krr", "Kernel ridge regression, exact or Nyström");
  krr->require_subcommand(1);
  krr->footer(
      "Examples:\n"
      "  mlt krr fit data/diabetes.csv --standardize --kernel rbf --gamma 0.05 --lambda 0.5 -o d.krr\n"
      "  mlt krr fit big.csv --kernel rbf --sigma 2 --nystrom 2000 -o big.krr\n"
      "  mlt krr predict d.krr new.csv > predictions.csv\n"
      "  mlt krr score d.krr test.csv --json\n"
      "  mlt krr cv data/diabetes.csv --standardize --kernel rbf --gamma 1e-4:0.1:4 --lambda 1e-3:10:5");

  add_fit_verb<Krr>(krr, CvTask::regression, "Fit kernel ridge regression on DATA and save the model");

  add_regression_verbs<Krr>(krr);

  // cv: each fold's fit (and its Standardizer) sees the training rows only.
  auto& cv = add_cv_command<Krr>(krr, CvTask::regression,
                                 "Cross-validate kernel ridge regression over grids of lambda and kernel parameters");
  cv.declared_params();
  cv.metrics(regression_metrics<Krr>(), "mse");
  cv.fast_path<arma::mat>(krr_fast_path);
}

}  // namespace mlt::app
