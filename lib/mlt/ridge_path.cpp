// Ridge and kernel ridge predictions along a λ grid from one decomposition per
// training set (see ridge_path.hpp). References: Hastie, Tibshirani & Friedman, The
// Elements of Statistical Learning, 2nd ed., eq. 3.47 (ridge through the singular
// vectors, here from the Gram matrix); the same shrinkage in the eigenbasis of the
// kernel matrix for kernel ridge.
#include "mlt/ridge_path.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "mlt/core/error.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/core/validate.hpp"
#include "mlt/kernel.hpp"
#include "mlt/standardizer.hpp"

namespace mlt {

namespace {

// The spectrum of a ridge problem on centred features Z (n x p), from the smaller of
// its two Gram matrices: ZᵀZ = V diag(σ) Vᵀ (primal, n >= p) or ZZᵀ = U diag(σ) Uᵀ
// (dual, p > n). One syrk and one small eigendecomposition instead of an SVD of Z:
// on 200,000 x 100 about 0.1 s instead of several seconds, with the accuracy of the
// plain fit (Ridge::fit solves (ZᵀZ + λI)w = ZᵀY by Cholesky: the same conditioning).
// And as Ridge::fit turns to the SVD when that system's condition number exceeds
// 1e10, so does this, for the smallest λ of the grid: there the products through
// the Gram matrix (ZᵀY, small σ known only to ε·max σ) lose the digits that the SVD's
// Uᵀ Y and singular values keep.
// Values below the rounding floor are set to 0: they carry no signal, and with an
// intercept their vectors may lean on the constant direction that centring removed.
struct RidgeSpectrum {
  enum class Kind { gram_primal, gram_dual, svd } kind = Kind::gram_primal;
  arma::vec sigma;  // the squared singular values of Z, >= 0
  arma::vec s;      // svd: the singular values
  arma::mat U, V;   // gram_primal: V (p x r); gram_dual: U (n x r); svd: both
};

RidgeSpectrum ridge_spectrum(const arma::mat& Z, double lambda_min, const char* what) {
  using Kind = RidgeSpectrum::Kind;
  const double eps_n = static_cast<double>(std::max(Z.n_rows, Z.n_cols)) * std::numeric_limits<double>::epsilon();
  RidgeSpectrum r;
  const bool dual = Z.n_cols > Z.n_rows;
  r.kind = dual ? Kind::gram_dual : Kind::gram_primal;
  const arma::mat G = dual ? arma::mat(Z * Z.t()) : arma::mat(Z.t() * Z);
  if (!G.is_finite()) throw DataError(std::string(what) + ": the data overflows; rescale it");
  arma::mat& basis = dual ? r.U : r.V;
  if (!arma::eig_sym(r.sigma, basis, G, "dc") && !arma::eig_sym(r.sigma, basis, G, "std"))
    throw DataError(std::string(what) + ": the eigendecomposition of the Gram matrix failed");
  r.sigma.clamp(0.0, arma::datum::inf);
  const double top = r.sigma.is_empty() ? 0.0 : r.sigma.max();
  if (top + lambda_min <= 1e10 * (r.sigma.min() + lambda_min)) {
    r.sigma.elem(arma::find(r.sigma <= eps_n * top)).zeros();
    return r;
  }
  r = RidgeSpectrum();
  r.kind = Kind::svd;
  if (!arma::svd_econ(r.U, r.s, r.V, Z, "both", "dc") && !arma::svd_econ(r.U, r.s, r.V, Z, "both", "std"))
    throw DataError(std::string(what) + ": the SVD of the data failed");
  r.s.elem(arma::find(r.s <= eps_n * (r.s.is_empty() ? 0.0 : r.s.max()))).zeros();
  r.sigma = arma::square(r.s);
  return r;
}

// The training data every path needs: at least `min_rows` rows, one target row per
// row, finite targets.
void check_input(const arma::mat& X, const arma::mat& Y, arma::uword min_rows, const char* what) {
  check_fit_input(X, min_rows);
  if (Y.n_rows != X.n_rows || Y.n_cols == 0) throw DataError(std::string(what) + ": targets do not match the data");
  if (!Y.is_finite()) throw DataError("non-finite target value");
}

// Training and test features as the fits see them: standardized on the training rows
// with `standardize`, unchanged otherwise.
std::pair<arma::mat, arma::mat> scaled(bool standardize, const arma::mat& X, const arma::mat& X_test) {
  if (!standardize) return {X, X_test};
  Standardizer scaler;
  scaler.fit(X);
  return {scaler.transform(X), scaler.transform(X_test)};
}

// ŷ₋ᵢ = yᵢ - eᵢ / gapᵢ for every row, or nothing when some gap is too small.
std::optional<arma::mat> loo_from_residuals(const arma::mat& Y, arma::mat E, const arma::vec& gap) {
  if (!(gap.min() >= kLooMinGap)) return std::nullopt;  // also catches NaN
  E.each_col() /= gap;
  arma::mat P = Y - E;
  if (!P.is_finite()) return std::nullopt;
  return P;
}

// Kernel ridge's coefficients for one λ from the eigendecomposition K = Q diag(μ) Qᵀ,
// in the eigenbasis (α = Q coef): A = K + λI, u = A⁻¹Y, and with an intercept the
// bordered system's b = 1ᵀu / 1ᵀv, α = u − v b with v = A⁻¹1 (krr.cpp).
struct BorderedSolution {
  arma::mat coef;          // n x t, Qᵀα
  arma::rowvec intercept;  // 1 x t (zeros without one)
  arma::vec v;             // Qᵀv (intercept only)
  double one_v = 0;        // 1ᵀv (intercept only)
};
BorderedSolution bordered_solve(bool fit_intercept, const arma::vec& mu, double lambda, const arma::mat& QtY,
                                const arma::vec& Qt1) {
  const arma::vec d = 1.0 / (mu + lambda);
  BorderedSolution s{QtY.each_col() % d, arma::rowvec(QtY.n_cols, arma::fill::zeros), {}, 0};
  if (fit_intercept) {
    s.v = Qt1 % d;
    s.one_v = arma::dot(Qt1, s.v);
    s.intercept = (Qt1.t() * s.coef) / s.one_v;
    s.coef -= s.v * s.intercept;
  }
  return s;
}

}  // namespace

std::vector<arma::mat> ridge_path_predict(const RidgeParams& params, const std::vector<double>& lambdas,
                                          const arma::mat& X, const arma::mat& Y, const arma::mat& X_test) {
  const BlasSingleThreaded blas;  // the same bits whatever --threads and --jobs (parallel.hpp)
  for (double l : lambdas)
    if (!(l > 0) || !std::isfinite(l)) throw UsageError("ridge path: every lambda must be > 0");
  if (lambdas.empty()) return {};
  check_input(X, Y, 1, "ridge path");
  check_n_features(X.n_cols, X_test);

  // The training features as Ridge::fit sees them: standardized (then already
  // centred) or centred on their means with an intercept; the test rows likewise.
  auto [Z, T] = scaled(params.standardize, X, X_test);
  arma::rowvec x_shift(X.n_cols, arma::fill::zeros), y_shift(Y.n_cols, arma::fill::zeros);
  if (params.fit_intercept) {
    if (!params.standardize) x_shift = arma::mean(X, 0);
    y_shift = arma::mean(Y, 0);
  }
  Z.each_row() -= x_shift;
  T.each_row() -= x_shift;
  arma::mat Yc = Y;
  Yc.each_row() -= y_shift;

  // P(λ) = A diag(ν / (σ + λ)) C with
  //   primal: W = V diag(1/(σ + λ)) Vᵀ ZᵀY:  A = T V,    C = Vᵀ Zᵀ Y, ν = 1;
  //   dual:   W = Zᵀ U diag(1/(σ + λ)) Uᵀ Y:  A = T Zᵀ U, C = Uᵀ Y,    ν = 1;
  //   svd:    W = V diag(s/(s² + λ)) Uᵀ Y:    A = T V,    C = Uᵀ Y,    ν = s.
  using Kind = RidgeSpectrum::Kind;
  const RidgeSpectrum r = ridge_spectrum(Z, *std::min_element(lambdas.begin(), lambdas.end()), "ridge path");
  const arma::mat A = r.kind == Kind::gram_dual ? arma::mat((T * Z.t()) * r.U) : arma::mat(T * r.V);  // m x r
  const arma::mat C = r.kind == Kind::gram_primal ? arma::mat(r.V.t() * (Z.t() * Yc)) : arma::mat(r.U.t() * Yc);
  const arma::vec nu = r.kind == Kind::svd ? r.s : arma::vec(r.sigma.n_elem, arma::fill::ones);

  std::vector<arma::mat> out;
  out.reserve(lambdas.size());
  for (double l : lambdas) {
    arma::mat P = A * (C.each_col() % (nu / (r.sigma + l)));
    P.each_row() += y_shift;
    if (!P.is_finite()) throw DataError("ridge path: the predictions are not finite; rescale the data");
    out.push_back(std::move(P));
  }
  return out;
}

std::vector<std::optional<arma::mat>> krr_path_predict(const KrrParams& params, const std::vector<double>& lambdas,
                                                       const arma::mat& X, const arma::mat& Y,
                                                       const arma::mat& X_test) {
  const BlasSingleThreaded blas;  // the same bits whatever --threads and --jobs (parallel.hpp)
  if (params.nystrom > 0) throw UsageError("krr path: only exact kernel ridge (no `nystrom`)");
  for (double l : lambdas)
    if (!(l >= 0) || !std::isfinite(l)) throw UsageError("krr path: every lambda must be >= 0");
  check_input(X, Y, 1, "krr path");
  check_n_features(X.n_cols, X_test);
  const Kernel kernel(params.kernel, X.n_cols);
  const auto [Z, T] = scaled(params.standardize, X, X_test);
  arma::vec mu;  // eigenvalues, ascending
  arma::mat Q;   // n x n eigenvectors
  if (!arma::eig_sym(mu, Q, kernel.gram(Z, Z), "dc") && !arma::eig_sym(mu, Q, kernel.gram(Z, Z), "std"))
    throw DataError("krr path: the eigendecomposition of the kernel matrix failed");
  const arma::mat QtY = Q.t() * Y;             // n x t
  const arma::mat KtQ = kernel.gram(T, Z) * Q;  // m x n
  const arma::vec Qt1 = arma::sum(Q, 0).t();    // Qᵀ1, for the intercept
  const double floor = static_cast<double>(X.n_rows) * std::numeric_limits<double>::epsilon() *
                       std::max(1.0, arma::abs(mu).max());
  std::vector<std::optional<arma::mat>> out;
  out.reserve(lambdas.size());
  for (double l : lambdas) {
    if (!(mu.min() + l > floor)) {
      out.emplace_back();  // not positive definite: Krr::fit's least-squares fallback
      continue;
    }
    const BorderedSolution s = bordered_solve(params.fit_intercept, mu, l, QtY, Qt1);
    arma::mat P = KtQ * s.coef;
    P.each_row() += s.intercept;
    if (!P.is_finite()) throw DataError("kernel ridge: the solution is not finite; raise `lambda` or rescale the data");
    out.emplace_back(std::move(P));
  }
  return out;
}

std::vector<std::optional<arma::mat>> ridge_loo_predict(const RidgeParams& params, const std::vector<double>& lambdas,
                                                        const arma::mat& X, const arma::mat& Y) {
  const BlasSingleThreaded blas;  // the same bits whatever --threads and --jobs (parallel.hpp)
  if (params.standardize)
    throw UsageError("ridge leave-one-out: no closed form with standardize (the scaling changes with the row left out)");
  for (double l : lambdas)
    if (!(l >= 0) || !std::isfinite(l)) throw UsageError("ridge leave-one-out: every lambda must be >= 0");
  check_input(X, Y, 2, "ridge leave-one-out");
  const double n = static_cast<double>(X.n_rows);
  arma::mat Z = X, Yc = Y;
  if (params.fit_intercept) {
    Z.each_row() -= arma::mean(X, 0);
    Yc.each_row() -= arma::mean(Y, 0);
  }
  // H = Z (ZᵀZ + λI)⁻¹ Zᵀ = B diag(ν / (σ + λ)) Bᵀ with
  //   primal: B = Z V (n x p), ν = 1;   dual: B = U (n x n), ν = σ;   svd: B = U, ν = σ;
  // so Hᵢᵢ = Σⱼ Bᵢⱼ² νⱼ/(σⱼ + λ) and the fit on all rows is Ŷ = B diag(ν/(σ + λ)) Bᵀ Y.
  double lambda_min = arma::datum::inf;  // of the λ > 0 (λ = 0 is left to the plain fit)
  for (double l : lambdas)
    if (l > 0) lambda_min = std::min(lambda_min, l);
  using Kind = RidgeSpectrum::Kind;
  const RidgeSpectrum r = ridge_spectrum(Z, std::isfinite(lambda_min) ? lambda_min : 0.0, "ridge leave-one-out");
  const arma::mat B = r.kind == Kind::gram_primal ? arma::mat(Z * r.V) : r.U;
  const arma::vec nu = r.kind == Kind::gram_primal ? arma::vec(r.sigma.n_elem, arma::fill::ones) : r.sigma;
  const arma::mat B2 = arma::square(B);
  const arma::mat C = B.t() * Yc;  // r x t

  std::vector<std::optional<arma::mat>> out;
  out.reserve(lambdas.size());
  for (double l : lambdas) {
    if (l == 0) {
      out.emplace_back();
      continue;
    }
    const arma::vec w = nu / (r.sigma + l);
    arma::vec gap = 1.0 - B2 * w;
    if (params.fit_intercept) gap -= 1.0 / n;
    arma::mat E = Yc - B * (C.each_col() % w);  // residuals of the fit on all rows
    out.push_back(loo_from_residuals(Y, std::move(E), gap));
  }
  return out;
}

std::vector<std::optional<arma::mat>> krr_loo_predict(const KrrParams& params, const std::vector<double>& lambdas,
                                                      const arma::mat& X, const arma::mat& Y) {
  const BlasSingleThreaded blas;  // the same bits whatever --threads and --jobs (parallel.hpp)
  if (params.nystrom > 0) throw UsageError("krr leave-one-out: only exact kernel ridge (no `nystrom`)");
  if (params.standardize)
    throw UsageError("krr leave-one-out: no closed form with standardize (the scaling changes with the row left out)");
  for (double l : lambdas)
    if (!(l >= 0) || !std::isfinite(l)) throw UsageError("krr leave-one-out: every lambda must be >= 0");
  check_input(X, Y, 2, "krr leave-one-out");
  const Kernel kernel(params.kernel, X.n_cols);
  const arma::mat K = kernel.gram(X, X);
  if (!K.is_finite()) throw DataError("krr leave-one-out: the kernel matrix has non-finite entries");
  arma::vec mu;  // eigenvalues, ascending
  arma::mat Q;   // n x n eigenvectors
  if (!arma::eig_sym(mu, Q, K, "dc") && !arma::eig_sym(mu, Q, K, "std"))
    throw DataError("krr leave-one-out: the eigendecomposition of the kernel matrix failed");
  const arma::mat Q2 = arma::square(Q);
  const arma::mat QtY = Q.t() * Y;  // n x t
  const arma::vec Qt1 = arma::sum(Q, 0).t();
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
    // The residuals y − ŷ are λα (the bordered system's first row), so
    // I − H = λ(A⁻¹ − v vᵀ / 1ᵀv) with v = A⁻¹1 (the second term with an intercept).
    const BorderedSolution s = bordered_solve(params.fit_intercept, mu, l, QtY, Qt1);
    arma::vec gap = Q2 * (l / (mu + l));
    if (params.fit_intercept) {
      const arma::vec v = Q * s.v;
      gap -= (l / s.one_v) * arma::square(v);
    }
    out.push_back(loo_from_residuals(Y, l * (Q * s.coef), gap));
  }
  return out;
}

}  // namespace mlt
