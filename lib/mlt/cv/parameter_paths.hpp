// Cross-validation scores of several values of one parameter from one fit per split:
// the fast paths of `mlt knn cv` (k), `mlt logreg cv` and `mlt svm cv` (λ) and the
// smoother's closed-form leave-one-out. The grid points that differ only in that
// parameter (one "group") are scored together; everything else about them is in
// `params`, whose own value of the parameter is ignored. Each function returns one
// score per metric of `metrics` (the registry's, mlt/metrics.hpp) and entry of
// `values`, metric-major as cv::SplitScorer returns them (each value predicted once
// for all the metrics), on the held-out rows split.test of a model fitted on
// split.train(), and says how that equals a plain fit per value (cv::SplitScorer's
// default path). Ridge's and krr's λ paths are in lambda_path.hpp.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "mlt/core/types.hpp"
#include "mlt/cv/folds.hpp"
#include "mlt/knn.hpp"
#include "mlt/logreg.hpp"
#include "mlt/smoother.hpp"
#include "mlt/svm.hpp"

namespace mlt::cv {

// kNN, every k in `ks` from one neighbour search per split, with the largest of them:
// kneighbors lists the neighbours nearest first (ties: the lower training row first),
// so its first k columns are the neighbours a fit with that k finds, and vote()
// (classes) or average() (regression) on them predicts what that fit predicts: the
// same bits. Cost: one search of the test rows for max(ks) neighbours.
std::vector<double> k_path_scores(const KnnParams& params, const std::vector<std::size_t>& ks, const arma::mat& X,
                                  const Labels& y, const Split& split, const Names& metrics);
std::vector<double> k_path_scores(const KnnParams& params, const std::vector<std::size_t>& ks, const arma::mat& X,
                                  const arma::mat& Y, const Split& split, const Names& metrics);

// Logistic regression, warm starts along λ: the largest λ is fitted from zero and each
// smaller one from the previous solution (LogReg::fit with a start), as the optima
// move little between neighbouring λ. Every fit meets the same absolute stopping test
// as a cold one (LogRegParams::tol), so the scores equal the plain path's up to the
// solver tolerance. Linear models only (warm_start_applies): kernel logistic
// regression is too ill conditioned for the warm start to save iterations
// (tests/lib/logreg_test.cpp); with a kernel each λ is fitted cold, as the plain path.
bool warm_start_applies(const LogRegParams& params);
std::vector<double> lambda_path_scores(const LogRegParams& params, const std::vector<double>& lambdas,
                                       const arma::mat& X, const Labels& y, const Split& split,
                                       const Names& metrics);

// The kernel SVM along λ: one Gram matrix of the training rows for every λ
// (Svm::fit_lambda_path), each model exactly the plain fit's (the same kernel bits,
// the same SMO steps), so the scores are the plain path's to the last bit. Without a
// kernel, or when the Gram matrix would not fit in cache_mb, each λ is a plain fit.
std::vector<double> lambda_path_scores(const SvmParams& params, const std::vector<double>& lambdas,
                                       const arma::mat& X, const Labels& y, const Split& split,
                                       const Names& metrics);

// The smoother's leave-one-out in closed form: every grid point's leave-one-out
// predictions (Smoother::loo_predict, one pass over the pairwise distances per point,
// no refit), computed once for all n splits. Equal to a refit without row i to the
// last bit, except with `standardize` (a refit standardizes with the other rows'
// statistics, which the closed form does not): loo_applies says when it holds.
// Thread-safe to score from: built before the search, read only after.
class SmootherLoo {
 public:
  static bool applies(const SmootherParams& params) { return !params.standardize; }
  // `points`: the parameters of every grid point, in grid order.
  SmootherLoo(const arma::mat& X, const arma::mat& Y, const SmootherParams& base,
              const std::vector<SmootherParams>& points);
  SmootherLoo(const arma::mat& X, const Labels& y, const SmootherParams& base,
              const std::vector<SmootherParams>& points);
  // The scores of grid points `points` on the one-row split `split`.
  std::vector<double> scores(const std::vector<std::size_t>& points, const Split& split, const arma::mat& Y,
                             const Names& metrics) const;
  std::vector<double> scores(const std::vector<std::size_t>& points, const Split& split, const Labels& y,
                             const Names& metrics) const;

 private:
  void predict_all(const Smoother& fitted, const std::vector<SmootherParams>& points);
  std::vector<arma::mat> loo_;  // per grid point: n x t predictions (or class probabilities)
};

}  // namespace mlt::cv
