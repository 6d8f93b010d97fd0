// The lambda-path fast paths of ridge and kernel ridge (mlt/ridge_path.hpp) against
// one fit per lambda with Ridge and Krr: the same predictions to 1e-9 relative; the
// leave-one-out closed forms against n fits on n - 1 rows.
#include "mlt/ridge_path.hpp"

#include <doctest/doctest.h>

#include <limits>

#include "mlt/core/error.hpp"
#include "test_util.hpp"

namespace ridge_path_test {

namespace {

using mlt::test::random_mat;

double rel_diff(const arma::mat& a, const arma::mat& b) {
  return arma::abs(a - b).max() / std::max(1.0, arma::abs(b).max());
}

}  // namespace

TEST_CASE("ridge path = Ridge::fit for every lambda (intercept, standardize, p > n)") {
  const std::vector<double> lambdas = {1e-4, 1e-2, 1, 100, 1e4};
  for (const auto& shape : std::vector<std::pair<arma::uword, arma::uword>>{{60, 5}, {12, 20}}) {
    arma::mat X = random_mat(shape.first, shape.second, 7);
    X.col(0) = 1000 * X.col(0) + 50;  // badly scaled column
    const arma::mat Y = arma::join_rows(X * arma::linspace(1, 2, X.n_cols), X.col(1) % X.col(1));
    const arma::mat T = random_mat(9, X.n_cols, 8);
    for (bool intercept : {true, false})
      for (bool standardize : {false, true}) {
        CAPTURE(shape.first);
        CAPTURE(intercept);
        CAPTURE(standardize);
        mlt::RidgeParams p;
        p.fit_intercept = intercept;
        p.standardize = standardize;
        const std::vector<arma::mat> path = mlt::ridge_path_predict(p, lambdas, X, Y, T);
        REQUIRE(path.size() == lambdas.size());
        for (std::size_t i = 0; i < lambdas.size(); ++i) {
          p.lambda = lambdas[i];
          mlt::Ridge r(p);
          r.fit(X, Y);
          CHECK(rel_diff(path[i], r.predict(T)) <= 1e-9);
        }
      }
  }
  mlt::RidgeParams p;
  CHECK_THROWS_AS(mlt::ridge_path_predict(p, {0.0, 1.0}, random_mat(5, 2, 1), random_mat(5, 1, 2), random_mat(1, 2, 3)),
                  mlt::UsageError);
  // Finite data whose squares overflow: a clear error (the shared input check), not NaN.
  arma::mat huge = random_mat(6, 2, 4);
  huge.col(0) *= 1e200;
  CHECK_THROWS_WITH_AS(mlt::ridge_path_predict(p, {1.0}, huge, random_mat(6, 1, 5), random_mat(1, 2, 6)),
                       doctest::Contains("overflow"), mlt::DataError);
  CHECK_THROWS_WITH_AS(mlt::ridge_loo_predict(p, {1.0}, huge, random_mat(6, 1, 5)), doctest::Contains("overflow"),
                       mlt::DataError);
}

TEST_CASE("ridge path on nearly collinear features: the SVD, as Ridge::fit, where the Gram matrix would lose digits") {
  // Column 2 = column 0 + 1e-7 noise: σ_min of XᵀX is about 1e-12, so with λ = 1e-10
  // (XᵀX + λI) has a condition number near 1e12; past 1e10 both the fit and the path
  // turn to the SVD of X. Through the Gram matrix the predictions would be off by
  // about 1e-5 relative here.
  //
  // The tolerance is the first-order perturbation bound, not a measured margin, with
  // γ = (n + p)ε for forming n-term inner products and factorizing (Higham §3.1, Thm
  // 10.3), κ_λ = (s_max² + λ)/(s_min² + λ) the condition number of X̄ᵀX̄ + λI, w the
  // solution, r = ȳ − X̄w its residual, t a test row:
  //   through the Gram matrix (κ_λ ≤ 1e10: the path's eigendecomposition, the fit's
  //   Cholesky), each computation solves exactly a system perturbed by γ‖X̄‖², so
  //   ‖Δw‖ ≤ γ κ_λ (‖w‖ + ‖ȳ‖/s_max);
  //   through the SVD of X̄ (κ_λ > 1e10, both), X̄ itself is perturbed by γ‖X̄‖, and the
  //   least-squares bound (Higham Thm 20.1) with κ(X̄) = √κ_λ gives
  //   ‖Δw‖ ≤ γ (√κ_λ ‖w‖ + κ_λ ‖r‖/s_max).
  // A prediction moves by at most ‖t‖‖Δw‖, and two computations differ by twice that.
  // At λ = 1e-6 (κ_λ 1.5e8) the two differ by 4.5e-8 on the Haswell and SkylakeX
  // kernels, under a bound of 2.6e-5; at λ = 1e-10 the SVD bound is 1.3e-7, where the
  // Gram matrix would be off by ~1e-5. (A fixed 1e-8 held only on the generic kernel.)
  arma::mat X = random_mat(50, 3, 11);
  X.col(2) = X.col(0) + 1e-7 * random_mat(50, 1, 12);
  const arma::mat Y = X.col(0) - 2 * X.col(1) + 3e-7 * random_mat(50, 1, 13);
  const arma::mat T = random_mat(7, 3, 14);
  const std::vector<double> lambdas = {1e-10, 1e-6, 1};
  arma::mat Xc = X;
  Xc.each_row() -= arma::mean(X, 0);
  const arma::vec s = arma::svd(Xc);
  const double gamma = (X.n_rows + X.n_cols) * std::numeric_limits<double>::epsilon();
  const arma::vec yc = Y.col(0) - arma::mean(Y.col(0));
  const double t_norm = arma::max(arma::sqrt(arma::sum(arma::square(T), 1)));
  mlt::RidgeParams p;
  const std::vector<arma::mat> path = mlt::ridge_path_predict(p, lambdas, X, Y, T);
  for (std::size_t i = 0; i < lambdas.size(); ++i) {
    CAPTURE(lambdas[i]);
    p.lambda = lambdas[i];
    mlt::Ridge r(p);
    r.fit(X, Y);
    const double kappa = (s.max() * s.max() + lambdas[i]) / (s.min() * s.min() + lambdas[i]);
    const double w = arma::norm(r.coef()), residual = arma::norm(yc - Xc * r.coef());
    const double dw = kappa <= 1e10 ? gamma * kappa * (w + arma::norm(yc) / s.max())
                                    : gamma * (std::sqrt(kappa) * w + kappa * residual / s.max());
    const double bound = 2 * t_norm * dw;
    CAPTURE(kappa);
    CAPTURE(bound);
    CHECK(arma::abs(path[i] - r.predict(T)).max() <= bound);
  }
}

TEST_CASE("krr path = Krr::fit for every lambda; not positive definite -> left to the plain fit") {
  const arma::mat X = random_mat(40, 3, 11), T = random_mat(7, 3, 12);
  const arma::mat Y = arma::sin(X.col(0)) + X.col(1) % X.col(2);
  const std::vector<double> lambdas = {1e-3, 0.1, 10};
  for (mlt::KernelType type : {mlt::KernelType::rbf, mlt::KernelType::poly, mlt::KernelType::laplacian}) {
    for (bool standardize : {false, true})
    for (bool intercept : {false, true}) {
      mlt::KrrParams p;
      p.kernel.type = type;
      p.kernel.degree = 2;
      p.standardize = standardize;
      p.fit_intercept = intercept;
      const auto path = mlt::krr_path_predict(p, lambdas, X, Y, T);
      REQUIRE(path.size() == lambdas.size());
      for (std::size_t i = 0; i < lambdas.size(); ++i) {
        REQUIRE(path[i].has_value());
        p.lambda = lambdas[i];
        mlt::Krr k(p);
        k.fit(X, Y);
        CHECK(rel_diff(*path[i], k.predict(T)) <= 1e-9);
      }
    }
  }
  // Duplicate rows and lambda = 0: K is singular, so no fast answer for that lambda.
  const arma::mat D = arma::join_cols(X, X);
  mlt::KrrParams p;
  const auto path = mlt::krr_path_predict(p, {0.0, 1.0}, D, arma::join_cols(Y, Y), T);
  CHECK_FALSE(path[0].has_value());
  CHECK(path[1].has_value());
  p.nystrom = 5;
  CHECK_THROWS_AS(mlt::krr_path_predict(p, {1.0}, X, Y, T), mlt::UsageError);
}

namespace {

// Row i: the prediction for X.row(i) of a fresh fit (fit(X_train, Y_train) -> model)
// on every row but i: the plain leave-one-out the closed form replaces.
template <class Fit>
arma::mat plain_loo(const arma::mat& X, const arma::mat& Y, Fit fit) {
  arma::mat P(X.n_rows, Y.n_cols);
  for (arma::uword i = 0; i < X.n_rows; ++i) {
    arma::uvec rest(X.n_rows - 1);
    for (arma::uword j = 0, k = 0; j < X.n_rows; ++j)
      if (j != i) rest[k++] = j;
    P.row(i) = fit(X.rows(rest), Y.rows(rest)).predict(X.row(i));
  }
  return P;
}

}  // namespace

TEST_CASE("ridge leave-one-out closed form = n fits on n - 1 rows (intercept or not, p > n)") {
  // Tolerance 1e-9 relative to max(1, |prediction|): the closed form divides residuals
  // by gaps >= kLooMinGap (here >= 0.05 for the points it answers), so it keeps
  // about as many digits as the Cholesky fits it is compared with.
  const std::vector<double> lambdas = {1e-3, 0.1, 10, 1e3};
  for (const auto& shape : std::vector<std::pair<arma::uword, arma::uword>>{{30, 4}, {10, 14}}) {
    arma::mat X = random_mat(shape.first, shape.second, 21);
    X.col(0) = 100 * X.col(0) + 7;
    const arma::mat Y = arma::join_rows(X * arma::linspace(-1, 1, X.n_cols) + 3, arma::cos(X.col(1)));
    for (bool intercept : {true, false}) {
      CAPTURE(shape.first);
      CAPTURE(intercept);
      mlt::RidgeParams p;
      p.fit_intercept = intercept;
      const auto loo = mlt::ridge_loo_predict(p, lambdas, X, Y);
      REQUIRE(loo.size() == lambdas.size());
      for (std::size_t l = 0; l < lambdas.size(); ++l) {
        CAPTURE(lambdas[l]);
        REQUIRE(loo[l].has_value());
        p.lambda = lambdas[l];
        const arma::mat want = plain_loo(X, Y, [&](const arma::mat& A, const arma::mat& B) {
          mlt::Ridge r(p);
          r.fit(A, B);
          return r;
        });
        CHECK(rel_diff(*loo[l], want) <= 1e-9);
      }
    }
  }
}

TEST_CASE("ridge leave-one-out: lambda = 0 and H_ii near 1 are left to the plain fit, never NaN") {
  // 10 rows, 14 features: with an intercept the centred data spans every direction
  // orthogonal to 1, so as lambda -> 0 every H_ii -> 1 (the fit interpolates) and
  // 1 - H_ii ~ lambda / s^2: below kLooMinGap at lambda = 1e-9, not at lambda = 10.
  const arma::mat X = random_mat(10, 14, 5), Y = random_mat(10, 1, 6);
  mlt::RidgeParams p;
  const auto loo = mlt::ridge_loo_predict(p, {0.0, 1e-9, 10}, X, Y);
  CHECK_FALSE(loo[0].has_value());
  CHECK_FALSE(loo[1].has_value());
  REQUIRE(loo[2].has_value());
  CHECK(loo[2]->is_finite());
  p.standardize = true;
  CHECK_THROWS_AS(mlt::ridge_loo_predict(p, {1.0}, X, Y), mlt::UsageError);
  p.standardize = false;
  CHECK_THROWS_AS(mlt::ridge_loo_predict(p, {-1.0}, X, Y), mlt::UsageError);
}

TEST_CASE("krr leave-one-out closed form = n fits on n - 1 rows (rbf, linear, poly)") {
  // Tolerance 1e-9 relative, as for ridge.
  const arma::mat X = random_mat(25, 3, 31);
  const arma::mat Y = arma::join_rows(arma::sin(X.col(0)) + X.col(1) % X.col(2), X.col(2));
  const std::vector<double> lambdas = {1e-2, 1, 100};
  for (mlt::KernelType type : {mlt::KernelType::rbf, mlt::KernelType::linear, mlt::KernelType::poly})
  for (bool intercept : {false, true}) {
    CAPTURE(static_cast<int>(type));
    CAPTURE(intercept);
    mlt::KrrParams p;
    p.kernel.type = type;
    p.kernel.degree = 2;
    p.fit_intercept = intercept;
    const auto loo = mlt::krr_loo_predict(p, lambdas, X, Y);
    REQUIRE(loo.size() == lambdas.size());
    for (std::size_t l = 0; l < lambdas.size(); ++l) {
      CAPTURE(lambdas[l]);
      REQUIRE(loo[l].has_value());
      p.lambda = lambdas[l];
      const arma::mat want = plain_loo(X, Y, [&](const arma::mat& A, const arma::mat& B) {
        mlt::Krr k(p);
        k.fit(A, B);
        return k;
      });
      CHECK(rel_diff(*loo[l], want) <= 1e-9);
    }
  }
  // lambda = 0 (H = I: every gap 0) and tiny lambdas on an rbf K of full rank: no
  // closed-form answer; Nyström and standardize: no closed form at all.
  mlt::KrrParams p;
  p.kernel.type = mlt::KernelType::rbf;
  const auto loo = mlt::krr_loo_predict(p, {0.0, 1e-14, 1.0}, X, Y);
  CHECK_FALSE(loo[0].has_value());
  CHECK_FALSE(loo[1].has_value());
  CHECK(loo[2].has_value());
  p.nystrom = 5;
  CHECK_THROWS_AS(mlt::krr_loo_predict(p, {1.0}, X, Y), mlt::UsageError);
  p.nystrom = 0;
  p.standardize = true;
  CHECK_THROWS_AS(mlt::krr_loo_predict(p, {1.0}, X, Y), mlt::UsageError);
}

}  // namespace ridge_path_test
