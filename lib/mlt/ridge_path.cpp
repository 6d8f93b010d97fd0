// Ridge and kernel ridge predictions along a λ grid from one decomposition per
// training set (see ridge_path.hpp). References: Hastie, Tibshirani & Friedman, The
// Elements of Statistical Learning, 2nd ed., eq. 3.47 (ridge through the SVD); the
// same shrinkage in the eigenbasis of the kernel matrix for kernel ridge.
#include "mlt/ridge_path.hpp"

#include <cmath>
#include <limits>

#include "mlt/core/error.hpp"
#include "mlt/core/validate.hpp"
#include "mlt/kernel.hpp"
#include "mlt/standardizer.hpp"

namespace mlt {

std::vector<arma::mat> ridge_path_predict(const RidgeParams& params, const std::vector<double>& lambdas,
                                          const arma::mat& X, const arma::mat& Y, const arma::mat& X_test) {
  for (double l : lambdas)
    if (!(l > 0) || !std::isfinite(l)) throw UsageError("ridge path: every lambda must be > 0");
  check_fit_input(X, 1);
  if (Y.n_rows != X.n_rows || Y.n_cols == 0) throw DataError("ridge path: targets do not match the data");
  if (!Y.is_finite()) throw DataError("non-finite target value");
  check_n_features(X.n_cols, X_test);

  // The training features as Ridge::fit sees them: standardized (then already
  // centred) or centred on their means with an intercept; the test rows likewise.
  Standardizer scaler;
  arma::mat Z = X, T = X_test;
  if (params.standardize) {
    scaler.fit(X);
    Z = scaler.transform(X);
    T = scaler.transform(X_test);
  }
  arma::rowvec x_shift(X.n_cols, arma::fill::zeros), y_shift(Y.n_cols, arma::fill::zeros);
  if (params.fit_intercept) {
    if (!params.standardize) x_shift = arma::mean(X, 0);
    y_shift = arma::mean(Y, 0);
  }
  Z.each_row() -= x_shift;
  T.each_row() -= x_shift;
  arma::mat Yc = Y;
  Yc.each_row() -= y_shift;

  arma::mat U, V;  // Z = U diag(s) Vᵀ: n x r, r, p x r
  arma::vec s;
  if (!arma::svd_econ(U, s, V, Z, "both", "dc") && !arma::svd_econ(U, s, V, Z, "both", "std"))
    throw DataError("ridge path: the SVD of the training data failed");
  const arma::mat UtY = U.t() * Yc;  // r x t
  const arma::mat TV = T * V;        // m x r

  std::vector<arma::mat> out;
  out.reserve(lambdas.size());
  for (double l : lambdas) {
    const arma::vec d = s / (arma::square(s) + l);  // r: the shrunken inverse singular values
    arma::mat P = TV * (UtY.each_col() % d);
    P.each_row() += y_shift;
    if (!P.is_finite()) throw DataError("ridge path: the predictions are not finite; rescale the data");
    out.push_back(std::move(P));
  }
  return out;
}

std::vector<std::optional<arma::mat>> krr_path_predict(const KrrParams& params, const std::vector<double>& lambdas,
                                                       const arma::mat& X, const arma::mat& Y,
                                                       const arma::mat& X_test) {
  if (params.nystrom > 0) throw UsageError("krr path: only exact kernel ridge (no --nystrom)");
  for (double l : lambdas)
    if (!(l >= 0) || !std::isfinite(l)) throw UsageError("krr path: every lambda must be >= 0");
  check_fit_input(X, 1);
  if (Y.n_rows != X.n_rows || Y.n_cols == 0) throw DataError("krr path: targets do not match the data");
  if (!Y.is_finite()) throw DataError("non-finite target value");
  check_n_features(X.n_cols, X_test);
  const Kernel kernel(params.kernel, X.n_cols);
  Standardizer scaler;
  arma::mat Z = X, T = X_test;
  if (params.standardize) {
    scaler.fit(X);
    Z = scaler.transform(X);
    T = scaler.transform(X_test);
  }
  arma::vec mu;  // eigenvalues, ascending
  arma::mat Q;   // n x n eigenvectors
  if (!arma::eig_sym(mu, Q, kernel.gram(Z, Z), "dc") && !arma::eig_sym(mu, Q, kernel.gram(Z, Z), "std"))
    throw DataError("krr path: the eigendecomposition of the kernel matrix failed");
  const arma::mat QtY = Q.t() * Y;             // n x t
  const arma::mat KtQ = kernel.gram(T, Z) * Q;  // m x n
  const double floor = static_cast<double>(X.n_rows) * std::numeric_limits<double>::epsilon() *
                       std::max(1.0, arma::abs(mu).max());
  std::vector<std::optional<arma::mat>> out;
  out.reserve(lambdas.size());
  for (double l : lambdas) {
    if (!(mu.min() + l > floor)) {
      out.emplace_back();  // not positive definite: Krr::fit's least-squares fallback
      continue;
    }
    const arma::vec d = 1.0 / (mu + l);
    arma::mat P = KtQ * (QtY.each_col() % d);
    if (!P.is_finite()) throw DataError("kernel ridge: the solution is not finite; raise --lambda or rescale the data");
    out.emplace_back(std::move(P));
  }
  return out;
}

namespace {

void check_loo_input(const arma::mat& X, const arma::mat& Y, const char* what) {
  check_fit_input(X, 2);
  if (Y.n_rows != X.n_rows || Y.n_cols == 0) throw DataError(std::string(what) + ": targets do not match the data");
  if (!Y.is_finite()) throw DataError("non-finite target value");
}

// ŷ₋ᵢ = yᵢ - eᵢ / gapᵢ for every row, or nothing when some gap is too small.
std::optional<arma::mat> loo_from_residuals(const arma::mat& Y, arma::mat E, const arma::vec& gap) {
  if (!(gap.min() >= kLooMinGap)) return std::nullopt;  // also catches NaN
  E.each_col() /= gap;
  arma::mat P = Y - E;
  if (!P.is_finite()) return std::nullopt;
  return P;
}

}  // namespace

std::vector<std::optional<arma::mat>> ridge_loo_predict(const RidgeParams& params, const std::vector<double>& lambdas,
                                                        const arma::mat& X, const arma::mat& Y) {
  if (params.standardize)
    throw UsageError("ridge leave-one-out: no closed form with standardize (the scaling changes with the row left out)");
  for (double l : lambdas)
    if (!(l >= 0) || !std::isfinite(l)) throw UsageError("ridge leave-one-out: every lambda must be >= 0");
  check_loo_input(X, Y, "ridge leave-one-out");
  const double n = static_cast<double>(X.n_rows);
  arma::mat Z = X, Yc = Y;
  if (params.fit_intercept) {
    Z.each_row() -= arma::mean(X, 0);
    Yc.each_row() -= arma::mean(Y, 0);
  }
  arma::mat U, V;  // Z = U diag(s) Vᵀ
  arma::vec s;
  if (!arma::svd_econ(U, s, V, Z, "both", "dc") && !arma::svd_econ(U, s, V, Z, "both", "std"))
    throw DataError("ridge leave-one-out: the SVD of the data failed");
  // Singular values at rounding level carry no signal, and with an intercept their
  // left vectors need not be orthogonal to 1 (whose 1/n is counted separately):
  // drop them. Their share of H, s²/(s² + λ) <= tol²/λ, is below rounding for the λ
  // the closed form is used at (λ > 0 and every gap >= kLooMinGap).
  const double tol = static_cast<double>(std::max(X.n_rows, X.n_cols)) * std::numeric_limits<double>::epsilon() *
                     (s.is_empty() ? 0.0 : s.max());
  const arma::uvec keep = arma::find(s > tol);
  U = U.cols(keep);
  s = s.elem(keep);
  const arma::mat U2 = arma::square(U);  // n x r
  const arma::mat UtY = U.t() * Yc;       // r x t
  const arma::vec s2 = arma::square(s);

  std::vector<std::optional<arma::mat>> out;
  out.reserve(lambdas.size());
  for (double l : lambdas) {
    if (l == 0) {
      out.emplace_back();
      continue;
    }
    const arma::vec shrink = s2 / (s2 + l);  // r: H's eigenvalues on span(U)
    arma::vec gap = 1.0 - U2 * shrink;
    if (params.fit_intercept) gap -= 1.0 / n;
    arma::mat E = Yc - U * (UtY.each_col() % shrink);  // residuals of the fit on all rows
    out.push_back(loo_from_residuals(Y, std::move(E), gap));
  }
  return out;
}

std::vector<std::optional<arma::mat>> krr_loo_predict(const KrrParams& params, const std::vector<double>& lambdas,
                                                      const arma::mat& X, const arma::mat& Y) {
  if (params.nystrom > 0) throw UsageError("krr leave-one-out: only exact kernel ridge (no --nystrom)");
  if (params.standardize)
    throw UsageError("krr leave-one-out: no closed form with standardize (the scaling changes with the row left out)");
  for (double l : lambdas)
    if (!(l >= 0) || !std::isfinite(l)) throw UsageError("krr leave-one-out: every lambda must be >= 0");
  check_loo_input(X, Y, "krr leave-one-out");
  const Kernel kernel(params.kernel, X.n_cols);
  const arma::mat K = kernel.gram(X, X);
  if (!K.is_finite()) throw DataError("krr leave-one-out: the kernel matrix has non-finite entries");
  arma::vec mu;  // eigenvalues, ascending
  arma::mat Q;   // n x n eigenvectors
  if (!arma::eig_sym(mu, Q, K, "dc") && !arma::eig_sym(mu, Q, K, "std"))
    throw DataError("krr leave-one-out: the eigendecomposition of the kernel matrix failed");
  const arma::mat Q2 = arma::square(Q);
  const arma::mat QtY = Q.t() * Y;  // n x t
  // The positive-definiteness floor of krr_path_predict (Krr::fit's Cholesky test).
  const double floor = static_cast<double>(X.n_rows) * std::numeric_limits<double>::epsilon() *
                       std::max(1.0, arma::abs(mu).max());
  std::vector<std::optional<arma::mat>> out;
  out.reserve(lambdas.size());
  for (double l : lambdas) {
    if (!(mu.min() + l > floor) || l == 0) {
      out.emplace_back();
      continue;
    }
    const arma::vec keep = l / (mu + l);  // eigenvalues of I - H
    const arma::vec gap = Q2 * keep;
    arma::mat E = Q * (QtY.each_col() % keep);
    out.push_back(loo_from_residuals(Y, std::move(E), gap));
  }
  return out;
}

}  // namespace mlt
