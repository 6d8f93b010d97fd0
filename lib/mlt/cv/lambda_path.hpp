// Cross-validation scores of ridge and exact kernel ridge for a whole grid of λ from
// one decomposition (mlt/ridge_path.hpp): the fast paths of `mlt ridge cv` and
// `mlt krr cv`. The grid points that differ only in λ (one "group") are scored
// together; everything else about them (intercept, kernel, ...) is in `params`, whose
// own lambda is ignored. Scores are those of the registry's regression metrics
// `metrics` (mlt/metrics.hpp) of the held-out rows' predictions, metric-major as
// cv::SplitScorer returns them (each λ predicted once for all of them), and equal a
// plain fit per λ (Ridge::fit, Krr::fit on split.train()) up to rounding: the decomposition
// replaces each fit's Cholesky factorization, see ridge_path.hpp for the accuracy.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mlt/core/types.hpp"
#include "mlt/cv/folds.hpp"
#include "mlt/krr.hpp"
#include "mlt/ridge.hpp"

namespace mlt::cv {

// Whether lambda_path_scores is worth it and exact for these λ: at least two of them
// (one λ is one fit either way), and for ridge every λ > 0 (λ = 0 is least squares,
// whose rank-deficient cases Ridge::fit handles and the path does not), for krr no
// Nyström approximation (the path is exact kernel ridge).
bool lambda_path_applies(const RidgeParams& params, const std::vector<double>& lambdas);
bool lambda_path_applies(const KrrParams& params, const std::vector<double>& lambdas);

// One score per metric and entry of `lambdas` on one split: the estimator with
// `params` and that λ, fitted on rows split.train() of X (n x p) and Y (n x t), scored
// on split.test.
// Cost: one eigendecomposition of the training Gram (or kernel) matrix, O(n_train
// min(n_train, p)²) for ridge and O(n_train³) for krr, then O(n_train m t) per λ.
// Krr points where K + λI is not numerically positive definite are fitted the plain
// way (Krr::fit falls back to least squares there). Throws UsageError for an unknown
// metric and what ridge_path_predict / krr_path_predict throw.
std::vector<double> lambda_path_scores(const RidgeParams& params, const std::vector<double>& lambdas,
                                       const arma::mat& X, const arma::mat& Y, const Split& split,
                                       const Names& metrics);
std::vector<double> lambda_path_scores(const KrrParams& params, const std::vector<double>& lambdas,
                                       const arma::mat& X, const arma::mat& Y, const Split& split,
                                       const Names& metrics);

// Whether the leave-one-out closed form (ridge_loo_predict, krr_loo_predict) holds:
// not with `standardize` (each leave-one-out fit scales by its own n - 1 rows) and not
// with Nyström.
bool loo_path_applies(const RidgeParams& params);
bool loo_path_applies(const KrrParams& params);

// Leave-one-out scores along λ. The n splits of leave-one-out share one decomposition
// of all n rows per group: the first split of a group to ask computes every λ's
// leave-one-out predictions (n x t each, O(n min(n, p)²) for ridge, O(n³) for krr)
// while concurrent callers of that group wait (std::call_once); the others then read
// their row, O(t) per λ. λ without a trustworthy closed form (ridge_path.hpp: λ = 0,
// 1 - Hᵢᵢ below kLooMinGap, krr not positive definite) are fitted the plain way on
// each split, so the results are the plain path's. Thread-safe: one object serves
// every split and thread of a search. X and Y are referenced and must outlive it.
class LooLambdaPath {
 public:
  // Groups are numbered 0 .. n_groups - 1 (by the caller, e.g. a grid point index).
  // Throws UsageError for an unknown or non-regression metric.
  LooLambdaPath(const arma::mat& X, const arma::mat& Y, Names metrics, std::size_t n_groups);

  // Scores of group `group` on a leave-one-out split (split.test one row), one per
  // metric and λ, metric-major.
  // Every call for a group passes the same params and lambdas: the predictions are
  // the first call's (different lambdas throw Error, internal).
  std::vector<double> scores(std::size_t group, const RidgeParams& params, const std::vector<double>& lambdas,
                             const Split& split);
  std::vector<double> scores(std::size_t group, const KrrParams& params, const std::vector<double>& lambdas,
                             const Split& split);

  // Decompositions made so far (one per group that was scored): what the cache saves.
  std::size_t decompositions() const;

 private:
  template <class Estimator>
  std::vector<double> scores_of(std::size_t group, const typename Estimator::Params& params,
                                const std::vector<double>& lambdas, const Split& split);

  struct Group {
    std::once_flag once;
    std::vector<double> lambdas;                 // the first call's
    std::vector<std::optional<arma::mat>> pred;  // per λ: row i from the fit without row i
  };
  const arma::mat& X_;
  const arma::mat& Y_;
  Names metrics_;
  std::vector<std::unique_ptr<Group>> groups_;  // once_flag is neither copyable nor movable
  std::atomic<std::size_t> decompositions_{0};
};

}  // namespace mlt::cv
