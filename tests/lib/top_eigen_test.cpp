// The top-k eigensolver (mlt/top_eigen.hpp) against LAPACK's full decomposition
// (arma::eig_sym) on symmetric PSD matrices U diag(λ) Uᵀ of chosen spectra: clustered
// eigenvalues, a small gap after the k-th, low rank (below and above k); its give-up
// rule; the same bits for any thread count.
//
// Tolerances (Saad, "Numerical Methods for Large Eigenvalue Problems", Thm. 3.9 and
// 3.10, and Golub & Van Loan §8.1): the solver returns Ritz pairs (θ_j, v_j) with
// ‖A v_j − θ_j v_j‖ ≤ tol θ_1, so θ_j is within tol θ_1 of an eigenvalue, and v_j's
// part outside the eigenspace of the eigenvalues near θ_j (its cluster) is at most
// tol θ_1 / δ_j, δ_j the distance from θ_j to the eigenvalues outside the cluster.
// dsyevd's own eigenvalues are within about n ε λ_1 and its eigenvectors within
// n ε λ_1 / δ_j. Each check allows twice the sum.
#include <doctest/doctest.h>

#include <limits>
#include <vector>

#include "mlt/core/parallel.hpp"
#include "mlt/top_eigen.hpp"
#include "test_util.hpp"

namespace top_eigen_test {

namespace {

constexpr double kTol = 1e-12;  // kernel PCA's residual goal (pca.cpp)

// U diag(λ) Uᵀ with U a random orthogonal matrix, exactly symmetric.
arma::mat with_spectrum(const arma::vec& lambda, std::uint64_t seed) {
  arma::mat U, R;
  REQUIRE(arma::qr(U, R, mlt::test::random_mat(lambda.n_elem, lambda.n_elem, seed)));
  arma::mat A = U * arma::diagmat(lambda) * U.t();
  return arma::symmatu(A);
}

// The checks of the header comment, for the top k of A, against eig_sym; `cluster`
// is the relative distance under which eigenvalues count as one cluster.
void check_against_lapack(const arma::mat& A, std::size_t k, double cluster, bool iterates = true) {
  const arma::uword n = A.n_rows;
  std::optional<mlt::TopEigen> top =
      mlt::top_eigenpairs(A, k, kTol, 20 * mlt::top_eigen_pass_budget(n, k));
  REQUIRE(top.has_value());
  REQUIRE(top->values.n_elem == k);
  REQUIRE(top->vectors.n_rows == n);
  REQUIRE(top->vectors.n_cols == k);
  CHECK((top->passes > 0) == iterates);  // the Krylov iteration, or the small matrix's full decomposition
  arma::vec lambda;
  arma::mat U;
  REQUIRE(arma::eig_sym(lambda, U, A));
  lambda = arma::reverse(lambda);
  U = arma::fliplr(U);
  const double l1 = lambda[0], n_eps = static_cast<double>(n) * std::numeric_limits<double>::epsilon();
  const double err = 2 * (kTol + n_eps) * l1;  // on eigenvalues; over δ_j on eigenvectors
  CHECK(arma::abs(top->vectors.t() * top->vectors - arma::eye(k, k)).max() <= 10 * n_eps);
  for (arma::uword j = 0; j < k; ++j) {
    CAPTURE(j);
    const double theta = top->values[j];
    CHECK(std::abs(theta - lambda[j]) <= err);
    // The cluster of λ_j, and δ_j the distance to the nearest eigenvalue outside it.
    const arma::uvec in = arma::find(arma::abs(lambda - lambda[j]) <= cluster * l1);
    const arma::uvec out = arma::find(arma::abs(lambda - lambda[j]) > cluster * l1);
    const double delta = arma::min(arma::abs(lambda(out) - theta));
    const arma::vec v = top->vectors.col(j);
    const arma::vec outside = v - U.cols(in) * (U.cols(in).t() * v);
    CHECK(arma::norm(outside) <= err / delta);
    CHECK(arma::norm(A * v - theta * v) <= err);
  }
}

}  // namespace

TEST_CASE("top eigenpairs: a decaying spectrum with a cluster equals LAPACK's (Saad's bounds)") {
  // 600 eigenvalues decaying as 0.9^i, with the 2nd to 4th in a cluster 1e-7 apart.
  arma::vec lambda = arma::exp(-0.105 * arma::regspace(0, 599));
  lambda[1] = lambda[2] * (1 + 1e-7);
  lambda[3] = lambda[2] * (1 - 1e-7);
  check_against_lapack(with_spectrum(lambda, 11), 6, 1e-6);
}

TEST_CASE("top eigenpairs: a small gap after the k-th") {
  // λ_5 / λ_6 = 1.001 on a slowly decaying rest: the subspace converges slowly, and
  // the 5th vector is determined only to tol / 1e-3.
  arma::vec lambda = arma::exp(-0.02 * arma::regspace(0, 499));
  lambda[5] = lambda[4] * (1 - 1e-3);
  check_against_lapack(with_spectrum(lambda, 12), 5, 1e-9);
}

TEST_CASE("top eigenpairs: low rank, below and above k (the Krylov space becomes invariant)") {
  SUBCASE("rank 3, k = 5: the 4th and 5th are zero, any unit vectors of the null space") {
    arma::vec lambda(400, arma::fill::zeros);
    lambda.head(3) = {5.0, 2.0, 1.0};
    check_against_lapack(with_spectrum(lambda, 13), 5, 1e-9);
  }
  SUBCASE("rank 12, k = 5: two blocks span the range, then the breakdown") {
    arma::vec lambda(400, arma::fill::zeros);
    lambda.head(12) = arma::exp(-0.5 * arma::regspace(0, 11));
    check_against_lapack(with_spectrum(lambda, 14), 5, 1e-9);
  }
  SUBCASE("the zero matrix") {
    const std::optional<mlt::TopEigen> top = mlt::top_eigenpairs(arma::mat(300, 300, arma::fill::zeros), 3, kTol, 10);
    REQUIRE(top.has_value());
    CHECK(arma::all(top->values == 0));
  }
}

TEST_CASE("top eigenpairs: a matrix too small to iterate on gets LAPACK's answer") {
  arma::vec lambda = arma::regspace(20, -1, 1);
  check_against_lapack(with_spectrum(lambda, 15), 3, 1e-9, false);
}

TEST_CASE("top eigenpairs: gives up (returns nothing) rather than return unconverged pairs") {
  // A flat spectrum (500 eigenvalues spread over [1, 1.1]): the top 5 are far from
  // converged after the budget of products; the rate of decrease says so early.
  arma::vec lambda(500);
  mlt::Random rng(3);
  for (double& l : lambda) l = 1 + 0.1 * rng.uniform();
  const arma::mat A = with_spectrum(lambda, 16);
  CHECK_FALSE(mlt::top_eigenpairs(A, 5, kTol, mlt::top_eigen_pass_budget(500, 5)).has_value());
  // And one that does converge, but not within the passes allowed.
  const arma::mat B = with_spectrum(arma::exp(-0.105 * arma::regspace(0, 499)), 17);
  CHECK_FALSE(mlt::top_eigenpairs(B, 5, kTol, 2).has_value());
  CHECK(mlt::top_eigenpairs(B, 5, kTol, 100).has_value());
}

TEST_CASE("top eigenpairs: the same bits for any thread count") {
  const arma::mat A = with_spectrum(arma::exp(-0.105 * arma::regspace(0, 499)), 18);
  std::vector<mlt::TopEigen> runs;
  for (unsigned threads : {1u, 2u, 3u}) {
    mlt::set_thread_count(threads);
    std::optional<mlt::TopEigen> top = mlt::top_eigenpairs(A, 6, kTol, 100);
    REQUIRE(top.has_value());
    runs.push_back(*top);
  }
  mlt::set_thread_count(0);
  // Exact by construction: the product's sums have a fixed order and the threads take
  // fixed row ranges (symmetric_times), whatever the thread count or BLAS kernel.
  for (const auto& r : runs) {
    CHECK(arma::approx_equal(r.values, runs[0].values, "absdiff", 0.0));
    CHECK(arma::approx_equal(r.vectors, runs[0].vectors, "absdiff", 0.0));
    CHECK(r.passes == runs[0].passes);
  }
}

}  // namespace top_eigen_test
