// The lambda-path fast paths of ridge and kernel ridge (mlt/ridge_path.hpp) against
// one fit per lambda with Ridge and Krr: the same predictions to 1e-9 relative.
#include "mlt/ridge_path.hpp"

#include <doctest/doctest.h>

#include "mlt/core/error.hpp"
#include "mlt/core/random.hpp"

namespace {

arma::mat random_mat(arma::uword n, arma::uword p, std::uint64_t seed) {
  mlt::Random rng(seed);
  arma::mat A(n, p);
  for (auto& a : A) a = 4 * rng.uniform() - 2;
  return A;
}

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
}

TEST_CASE("krr path = Krr::fit for every lambda; not positive definite -> left to the plain fit") {
  const arma::mat X = random_mat(40, 3, 11), T = random_mat(7, 3, 12);
  const arma::mat Y = arma::sin(X.col(0)) + X.col(1) % X.col(2);
  const std::vector<double> lambdas = {1e-3, 0.1, 10};
  for (mlt::KernelType type : {mlt::KernelType::rbf, mlt::KernelType::poly, mlt::KernelType::laplacian}) {
    for (bool standardize : {false, true}) {
      mlt::KrrParams p;
      p.kernel.type = type;
      p.kernel.degree = 2;
      p.standardize = standardize;
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
