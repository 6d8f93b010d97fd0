// Ridge and kernel ridge regression along a λ grid from one decomposition per
// training set: the fast paths of `mlt ridge cv` and `mlt krr cv`. With the centred
// (or standardized) training features Z and the eigendecomposition of the smaller
// Gram matrix, ZᵀZ = V diag(σ) Vᵀ (computed once), the ridge solution for any λ > 0 is
//     W(λ) = V diag(1 / (σᵢ + λ)) Vᵀ Zᵀ Ȳ
// (Hastie, Tibshirani & Friedman, The Elements of Statistical Learning, 2nd ed.,
// eq. 3.47, with σ = s² the squared singular values; through ZZᵀ when p > n), so every
// λ of a grid costs one small product instead of a new factorization. Preprocessing
// is Ridge::fit's: the Standardizer fitted on X with `standardize`, X and Y centred
// on their training means with `fit_intercept`, the intercept unpenalized.
#pragma once

#include <optional>
#include <vector>

#include "mlt/core/types.hpp"

#include "mlt/krr.hpp"
#include "mlt/ridge.hpp"

namespace mlt {

// Predictions for X_test (m x p), one m x t matrix per entry of `lambdas` (each > 0),
// of Ridge(params with lambda = λ) fitted on X (n x p), Y (n x t). Equal to them up to
// rounding (the plain fit solves by Cholesky). Throws UsageError for λ <= 0 and
// DataError when the eigendecomposition fails or the data is unusable.
std::vector<arma::mat> ridge_path_predict(const RidgeParams& params, const std::vector<double>& lambdas,
                                          const arma::mat& X, const arma::mat& Y, const arma::mat& X_test);

// Exact kernel ridge (Krr without Nyström) along λ: with K = Q diag(μ) Qᵀ the
// eigendecomposition of the training kernel matrix (once), the dual coefficients are
// α(λ) = Q diag(1 / (μᵢ + λ)) Qᵀ Y and the predictions K(X_test, X) α(λ); with
// `fit_intercept` the bordered system's α and b (krr.cpp) from the same products, with
// v = A⁻¹1 = Q diag(1 / (μᵢ + λ)) Qᵀ1 beside A⁻¹Y. One entry per
// λ; an entry is empty when K + λI is not numerically positive definite (min(μ) + λ
// <= n ε max|μ|), where Krr::fit falls back to least squares: the caller fits that
// point the plain way. Preprocessing is Krr::fit's (the Standardizer with
// `standardize`, gamma resolved from the number of features). Throws UsageError for
// params.nystrom > 0 or λ < 0.
std::vector<std::optional<arma::mat>> krr_path_predict(const KrrParams& params, const std::vector<double>& lambdas,
                                                       const arma::mat& X, const arma::mat& Y,
                                                       const arma::mat& X_test);

// Leave-one-out in closed form (the hat-matrix identity). For a linear smoother
// Ŷ = H Y fitted by penalized least squares with a fixed penalty, the prediction for
// row i of the model fitted on the other n - 1 rows is
//     ŷ₋ᵢ = yᵢ - eᵢ / (1 - Hᵢᵢ),    e = Y - H Y
// (Hastie, Tibshirani & Friedman, ESL 2nd ed., eq. 7.52 and exercise 7.3; Golub, Heath &
// Wahba 1979). From ONE decomposition of all n rows, for every λ:
//   ridge   H = 11ᵀ/n [intercept] + Z (ZᵀZ + λI)⁻¹ Zᵀ, Z the (centred) features:
//           with ZᵀZ = V diag(σ) Vᵀ and B = Z V, Hᵢᵢ = 1/n + Σⱼ Bᵢⱼ²/(σⱼ + λ);
//   krr     H = K (K + λI)⁻¹ = Q diag(μ/(μ + λ)) Qᵀ, so 1 - Hᵢᵢ = Σⱼ Qᵢⱼ² λ/(μⱼ + λ)
//           and e = Q diag(λ/(μ + λ)) Qᵀ Y (no cancellation); with an intercept
//           (the bordered system, krr.cpp) e = λα and 1 − Hᵢᵢ = λ(A⁻¹ − v vᵀ/1ᵀv)ᵢᵢ,
//           v = A⁻¹1, A = K + λI.
// The identity needs preprocessing that does not depend on the left-out row: with
// `standardize` the Standardizer of each LOO fit sees n - 1 rows, so the features
// change with i; both functions throw UsageError then (and krr for Nyström), and the
// caller takes the plain path.
//
// Returns, per λ, the n x t matrix whose row i is ŷ₋ᵢ, or nothing where the closed
// form is not trustworthy, which the caller then fits the plain way:
//   - some 1 - Hᵢᵢ < kLooMinGap (λ → 0 with n <= p, or a row of very high leverage):
//     the division would amplify rounding errors (about r ε / (1 - Hᵢᵢ) relative);
//   - ridge with λ = 0 (least squares, possibly rank deficient: Ridge::fit's minimum-
//     norm solution is not a fixed linear smoother of the n - 1 rows);
//   - krr where K + λI is not numerically positive definite (Krr::fit falls back to
//     least squares there).
inline constexpr double kLooMinGap = 1e-6;
std::vector<std::optional<arma::mat>> ridge_loo_predict(const RidgeParams& params, const std::vector<double>& lambdas,
                                                        const arma::mat& X, const arma::mat& Y);
std::vector<std::optional<arma::mat>> krr_loo_predict(const KrrParams& params, const std::vector<double>& lambdas,
                                                      const arma::mat& X, const arma::mat& Y);

}  // namespace mlt
