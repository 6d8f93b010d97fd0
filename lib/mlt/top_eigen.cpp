#include "mlt/top_eigen.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/core/progress.hpp"
#include "mlt/core/random.hpp"

namespace mlt {
namespace {

std::size_t block_size(std::size_t n, std::size_t k) { return std::min(n, 2 * k + 30); }

// An orthonormal basis of Z's columns (Householder QR: orthonormal even when Z is
// rank deficient, as for a kernel of low rank).
arma::mat orthonormal(const arma::mat& Z) {
  arma::mat Q, R;
  if (!arma::qr_econ(Q, R, Z)) throw Error("internal: QR of the subspace iteration failed", kExitSoftware);
  return Q;
}

// A·Q for the symmetric A (n x n) by fixed blocks of rows: block t is (A's columns of
// block t)ᵀ·Q, contiguous columns through one single-threaded dgemm, so an entry's
// bits depend on its block alone, and the blocks are the same whatever the thread
// count. Reads A once per pass at memory speed (the product is thin: b columns).
arma::mat symmetric_times(const arma::mat& A, const arma::mat& Q) {
  constexpr arma::uword kBlock = 128;
  const arma::uword n = A.n_rows;
  arma::mat Z(n, Q.n_cols);
  parallel_for((n + kBlock - 1) / kBlock, [&](std::size_t t) {
    const arma::uword first = t * kBlock, count = std::min(kBlock, n - first);
    const arma::mat columns(const_cast<double*>(A.colptr(first)), n, count, /*copy_aux_mem=*/false, /*strict=*/true);
    Z.rows(first, first + count - 1) = columns.t() * Q;
  });
  return Z;
}

}  // namespace

std::size_t top_eigen_pass_budget(std::size_t n, std::size_t k) {
  return std::max<std::size_t>(1, n / (2 * block_size(n, k)));
}

std::optional<TopEigen> top_eigenpairs(const arma::mat& A, std::size_t k, double tol, std::size_t max_passes) {
  const arma::uword n = A.n_rows;
  if (k == 0 || k >= n) throw Error("internal: top_eigenpairs needs 1 <= k < n", kExitSoftware);
  const arma::uword b = block_size(n, k);
  // The small products, QR and b x b eigenproblems on one BLAS thread: their bits do
  // not depend on --threads (core/parallel.hpp); A·Q by fixed blocks on the threads.
  const BlasSingleThreaded blas;
  Random rng(0x746f705f656967ULL);  // fixed: the same start, hence the same result, every run
  arma::mat Q(n, b);
  for (double& q : Q) q = 2 * rng.uniform() - 1;
  Q = orthonormal(Q);
  TopEigen out;
  // The worst residual in units of the goal, per pass: its geometric decrease
  // predicts when the goal is met, so a hopeless iteration stops early.
  std::vector<double> worst;
  double first_residual = -1;  // for the progress estimate
  for (std::size_t pass = 1; pass <= max_passes; ++pass) {
    const arma::mat Z = symmetric_times(A, Q);  // A Q, n x b
    arma::mat T = Q.t() * Z;                     // QᵀAQ, b x b
    T = 0.5 * (T + T.t());
    arma::vec theta;
    arma::mat W;
    if (!arma::eig_sym(theta, W, T)) throw Error("internal: Rayleigh-Ritz eigenproblem failed", kExitSoftware);
    theta = arma::reverse(theta);  // decreasing
    W = arma::fliplr(W);
    const arma::mat V = Q * W.head_cols(k);   // Ritz vectors
    const arma::mat AV = Z * W.head_cols(k);  // A times them, without another product with A
    const double scale = std::max(theta[0], 0.0);
    double residual = 0;  // the largest, relative to tol · θ_1
    for (arma::uword j = 0; j < k; ++j)
      residual = std::max(residual, arma::norm(AV.col(j) - theta[j] * V.col(j)) / (tol * scale));
    if (first_residual < 0) first_residual = residual;
    report_progress({"kernel pca eigensolver", "pass", pass, 0, "residual / goal", residual,
                     log_fraction(first_residual, residual, 1.0), scale == 0 || residual <= 1});
    if (scale == 0 || residual <= 1) {
      out.values = theta.head(k);
      out.vectors = V;
      out.passes = pass;
      return out;
    }
    worst.push_back(residual);
    constexpr std::size_t kSpan = 4;  // passes the rate is measured over
    if (worst.size() > 2 * kSpan) {
      const double rate = std::pow(residual / worst[worst.size() - 1 - kSpan], 1.0 / kSpan);
      if (!(rate < 1) || static_cast<double>(pass) + std::log(residual) / -std::log(rate) > static_cast<double>(max_passes))
        return std::nullopt;
    }
    Q = orthonormal(Z * W);  // the power step, in the Ritz basis
  }
  return std::nullopt;
}

}  // namespace mlt
