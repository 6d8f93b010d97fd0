// The λ-path cross-validation scores (mlt/cv/lambda_path.hpp) against the plain way:
// one Ridge or Krr fit per λ on each split's training rows, scored with the same
// metric. The leave-one-out cache: one decomposition per group for all n splits, also
// when the splits run on several threads.
#include "mlt/cv/lambda_path.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/cv/folds.hpp"
#include "mlt/cv/search.hpp"
#include "mlt/krr.hpp"
#include "mlt/metrics.hpp"
#include "mlt/ridge.hpp"
#include "../test_util.hpp"

namespace cv_lambda_path_test {

namespace {

using mlt::test::random_mat;

// How far a fast score may be from the plain one. The fast predictions P' equal the
// plain fits' P to δ = 1e-9 max(1, max|P|) (tests/lib/ridge_path_test.cpp: the path
// and the leave-one-out closed form against Ridge::fit and Krr::fit). A score moves
// by at most:
//   mae, rmse  δ                (an average of |e|; a norm of e over sqrt(n))
//   mse        δ (2 max|e| + δ) (e'² - e² = (e' - e)(e' + e))
//   r2         n_test x mse's bound / SS_tot of the least-spread target
// with e = Y - P the plain residuals.
double tolerance(const std::string& metric, const arma::mat& Y, const arma::mat& P) {
  const double delta = 1e-9 * std::max(1.0, arma::abs(P).max());
  if (metric == "mae" || metric == "rmse") return delta;
  const double mse_bound = delta * (2 * arma::abs(Y - P).max() + delta);
  if (metric == "mse") return mse_bound;
  REQUIRE(metric == "r2");
  const arma::rowvec ss_tot = arma::sum(arma::square(Y.each_row() - arma::mean(Y, 0)), 0);
  REQUIRE(ss_tot.min() > 0);
  return static_cast<double>(Y.n_rows) * mse_bound / ss_tot.min();
}

// Row-wise targets with structure (a linear part, a smooth nonlinear one) and a
// nonzero mean, so that intercepts, kernels and every λ matter.
arma::mat targets(const arma::mat& X) {
  return arma::join_rows(X * arma::linspace(-1, 2, X.n_cols) + 3, arma::sin(2 * X.col(0)) + X.col(1) % X.col(2));
}

template <class Estimator>
arma::mat plain_predict(typename Estimator::Params params, double lambda, const arma::mat& X, const arma::mat& Y,
                        const mlt::cv::Split& split) {
  params.lambda = lambda;
  Estimator e(params);
  const arma::uvec train = split.train();
  e.fit(X.rows(train), Y.rows(train));
  return e.predict(X.rows(split.test));
}

// Every split of `folds`: lambda_path_scores of all four metrics in one call
// (metric-major) against one plain fit per λ.
template <class Estimator>
void check_lambda_path(const typename Estimator::Params& params, const std::vector<double>& lambdas,
                       const arma::mat& X, const arma::mat& Y, const mlt::cv::Folds& folds) {
  const mlt::Names metrics = {"mse", "rmse", "mae", "r2"};
  for (std::size_t s = 0; s < folds.n_splits(); ++s) {
    CAPTURE(s);
    const mlt::cv::Split split = folds.split(s);
    const std::vector<double> fast = mlt::cv::lambda_path_scores(params, lambdas, X, Y, split, metrics);
    REQUIRE(fast.size() == metrics.size() * lambdas.size());
    const arma::mat Y_test = Y.rows(split.test);
    for (std::size_t j = 0; j < lambdas.size(); ++j) {
      CAPTURE(lambdas[j]);
      const arma::mat P = plain_predict<Estimator>(params, lambdas[j], X, Y, split);
      for (std::size_t m = 0; m < metrics.size(); ++m) {
        CAPTURE(metrics[m]);
        const double plain = mlt::metrics::regression_score(metrics[m], Y_test, P);
        CHECK(std::abs(fast[m * lambdas.size() + j] - plain) <= tolerance(metrics[m], Y_test, P));
      }
    }
  }
}

// All n leave-one-out splits of `path` group `group`, on two threads (as a search
// with --jobs 2 runs them), against one plain fit per λ and split.
template <class Estimator>
void check_loo_path(mlt::cv::LooLambdaPath& path, std::size_t group, const typename Estimator::Params& params,
                    const std::vector<double>& lambdas, const arma::mat& X, const arma::mat& Y,
                    const mlt::Names& metrics) {
  const mlt::cv::Folds folds = mlt::cv::leave_one_out(X.n_rows);
  std::vector<std::vector<double>> fast(folds.n_splits());
  mlt::cv::run_tasks(folds.n_splits(), 2, [&](std::size_t s) {
    fast[s] = path.scores(group, params, lambdas, folds.split(s));
  });
  for (std::size_t s = 0; s < folds.n_splits(); ++s) {
    CAPTURE(s);
    const mlt::cv::Split split = folds.split(s);
    REQUIRE(fast[s].size() == metrics.size() * lambdas.size());
    const arma::mat Y_test = Y.rows(split.test);
    for (std::size_t j = 0; j < lambdas.size(); ++j) {
      CAPTURE(lambdas[j]);
      const arma::mat P = plain_predict<Estimator>(params, lambdas[j], X, Y, split);
      for (std::size_t m = 0; m < metrics.size(); ++m) {
        const double plain = mlt::metrics::regression_score(metrics[m], Y_test, P);
        CHECK(std::abs(fast[s][m * lambdas.size() + j] - plain) <= tolerance(metrics[m], Y_test, P));
      }
    }
  }
}

}  // namespace

TEST_CASE("ridge lambda path scores = one Ridge fit per lambda on every split") {
  const arma::mat X = random_mat(40, 5, 31);
  const arma::mat Y = targets(X);
  const mlt::cv::Folds folds = mlt::cv::kfold(X.n_rows, 4, 3);
  for (bool intercept : {true, false})
    for (bool standardize : {false, true}) {
      CAPTURE(intercept);
      CAPTURE(standardize);
      mlt::RidgeParams p;
      p.fit_intercept = intercept;
      p.standardize = standardize;
      check_lambda_path<mlt::Ridge>(p, {1e-3, 0.1, 10, 1e3}, X, Y, folds);
    }
}

TEST_CASE("krr lambda path scores = one Krr fit per lambda; lambda = 0 fitted the plain way") {
  const arma::mat X = random_mat(36, 3, 32);
  const arma::mat Y = targets(X);
  const mlt::cv::Folds folds = mlt::cv::kfold(X.n_rows, 3, 4);
  mlt::KrrParams p;
  p.kernel.type = mlt::KernelType::rbf;
  p.kernel.gamma = 0.5;
  check_lambda_path<mlt::Krr>(p, {1e-3, 0.1, 10}, X, Y, folds);
  // The linear kernel matrix has rank 3 < 24 training rows: K + 0 I is singular, the
  // path has no answer for λ = 0, and lambda_path_scores fits it as Krr::fit does.
  p.kernel.type = mlt::KernelType::linear;
  check_lambda_path<mlt::Krr>(p, {0.0, 0.5, 5}, X, Y, folds);
}

TEST_CASE("ridge leave-one-out path = n plain fits per lambda; one decomposition per group") {
  const arma::mat X = random_mat(25, 4, 33);
  const arma::mat Y = targets(X);
  mlt::cv::LooLambdaPath path(X, Y, {"mse"}, 3);
  mlt::RidgeParams p;
  // λ = 0 is least squares: no closed form, so each split fits it the plain way.
  const std::vector<double> lambdas = {0.0, 1e-2, 1, 100};
  check_loo_path<mlt::Ridge>(path, 0, p, lambdas, X, Y, {"mse"});
  CHECK(path.decompositions() == 1);
  p.fit_intercept = false;
  check_loo_path<mlt::Ridge>(path, 2, p, lambdas, X, Y, {"mse"});
  CHECK(path.decompositions() == 2);

  mlt::cv::LooLambdaPath two(X, Y, {"mae", "rmse"}, 1);
  check_loo_path<mlt::Ridge>(two, 0, p, {0.5, 50}, X, Y, {"mae", "rmse"});
  CHECK(two.decompositions() == 1);
}

TEST_CASE("krr leave-one-out path = n plain fits per lambda; one decomposition per group") {
  const arma::mat X = random_mat(24, 3, 34);
  const arma::mat Y = targets(X);
  mlt::cv::LooLambdaPath path(X, Y, {"mse"}, 2);
  mlt::KrrParams p;
  p.kernel.type = mlt::KernelType::rbf;
  p.kernel.gamma = 0.7;
  check_loo_path<mlt::Krr>(path, 1, p, {1e-3, 0.1, 10}, X, Y, {"mse"});
  CHECK(path.decompositions() == 1);
  // Linear kernel, rank 3: λ = 0 has no closed form and is fitted on each split.
  p.kernel.type = mlt::KernelType::linear;
  check_loo_path<mlt::Krr>(path, 0, p, {0.0, 1}, X, Y, {"mse"});
  CHECK(path.decompositions() == 2);
}

TEST_CASE("lambda paths: where they apply, and what they refuse") {
  mlt::RidgeParams r;
  CHECK(mlt::cv::lambda_path_applies(r, {0.1, 1}));
  CHECK_FALSE(mlt::cv::lambda_path_applies(r, {1}));      // one fit either way
  CHECK_FALSE(mlt::cv::lambda_path_applies(r, {0, 1}));   // least squares stays plain
  CHECK(mlt::cv::loo_path_applies(r));
  r.standardize = true;  // each leave-one-out fit would scale by its own rows
  CHECK_FALSE(mlt::cv::loo_path_applies(r));
  CHECK(mlt::cv::lambda_path_applies(r, {0.1, 1}));

  mlt::KrrParams k;
  CHECK(mlt::cv::lambda_path_applies(k, {0, 1}));  // λ = 0 is answered by a plain fit
  CHECK(mlt::cv::loo_path_applies(k));
  k.nystrom = 10;
  CHECK_FALSE(mlt::cv::lambda_path_applies(k, {0.1, 1}));
  CHECK_FALSE(mlt::cv::loo_path_applies(k));

  const arma::mat X = random_mat(8, 2, 35);
  const arma::mat Y = targets(arma::join_rows(X, X.col(0)));
  CHECK_THROWS_AS(mlt::cv::LooLambdaPath(X, Y, {"mse", "accuracy"}, 1), mlt::UsageError);
  CHECK_THROWS_AS(mlt::cv::LooLambdaPath(X, Y, {"nope"}, 1), mlt::UsageError);
  const mlt::cv::Folds folds = mlt::cv::kfold(X.n_rows, 2, 1);
  CHECK_THROWS_AS(mlt::cv::lambda_path_scores(mlt::RidgeParams{}, {0.1, 1}, X, Y, folds.split(0), {"f1_macro"}),
                  mlt::UsageError);

  // A group's predictions are its first call's: other lambdas for it are a caller's bug.
  mlt::cv::LooLambdaPath path(X, Y, {"mse"}, 1);
  const mlt::cv::Folds loo = mlt::cv::leave_one_out(X.n_rows);
  CHECK(path.scores(0, mlt::RidgeParams{}, {0.1, 1}, loo.split(0)).size() == 2);
  mlt::test::error_message([&] { path.scores(0, mlt::RidgeParams{}, {0.1, 2}, loo.split(1)); }, mlt::kExitSoftware);
}

}  // namespace cv_lambda_path_test
