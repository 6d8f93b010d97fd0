#include "mlt/spd.hpp"

#include <string>
#include <vector>

#include "mlt/core/error.hpp"

namespace mlt::spd {
namespace {
arma::blas_int as_blas_int(arma::uword n) {
  if (n > static_cast<arma::uword>(std::numeric_limits<arma::blas_int>::max()))
    throw DataError("matrix of order " + std::to_string(n) + " is too large for LAPACK");
  return static_cast<arma::blas_int>(n);
}
}  // namespace

bool cholesky_in_place(arma::mat& A) {
  if (A.n_rows != A.n_cols) throw Error("internal: Cholesky of a non-square matrix", kExitSoftware);
  if (A.is_empty()) return true;
  char uplo = 'L';
  arma::blas_int n = as_blas_int(A.n_rows), lda = n, info = 0;
  arma::lapack::potrf(&uplo, &n, A.memptr(), &lda, &info);
  return info == 0;
}

void solve_in_place(const arma::mat& L, arma::mat& B) {
  if (L.n_rows != B.n_rows) throw Error("internal: Cholesky solve of mismatched sizes", kExitSoftware);
  if (B.is_empty()) return;
  char uplo = 'L';
  arma::blas_int n = as_blas_int(L.n_rows), nrhs = as_blas_int(B.n_cols), lda = n, ldb = n, info = 0;
  arma::lapack::potrs(&uplo, &n, &nrhs, const_cast<double*>(L.memptr()), &lda, B.memptr(), &ldb, &info);
  if (info != 0) throw Error("internal: dpotrs failed", kExitSoftware);
}

double rcond(const arma::mat& L, double a_one_norm) {
  if (L.is_empty()) return 1.0;
  char uplo = 'L';
  arma::blas_int n = as_blas_int(L.n_rows), lda = n, info = 0;
  double rc = 0;
  std::vector<double> work(3 * L.n_rows);
  std::vector<arma::blas_int> iwork(L.n_rows);
  arma::lapack::pocon(&uplo, &n, L.memptr(), &lda, &a_one_norm, &rc, work.data(), iwork.data(), &info);
  return info == 0 ? rc : 0.0;
}

double one_norm_lower(const arma::mat& A) {
  const arma::uword n = A.n_rows;
  arma::vec colsum(n, arma::fill::zeros);
  // Column j of the full matrix = A(j, 0..j) (stored as row j, left of the diagonal)
  // and A(j..n-1, j) (column j, from the diagonal down).
  for (arma::uword j = 0; j < n; ++j) {
    const double* c = A.colptr(j);
    double below = 0;
    for (arma::uword i = j; i < n; ++i) {
      const double v = std::abs(c[i]);
      below += v;
      if (i > j) colsum[i] += v;  // A(i, j) = A(j, i) counts in column i too
    }
    colsum[j] += below;
  }
  return n ? colsum.max() : 0.0;
}

}  // namespace mlt::spd
