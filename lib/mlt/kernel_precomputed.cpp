#include "mlt/kernel_precomputed.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/io/number_format.hpp"

namespace mlt {
namespace {

// The training index of row i of an encoded matrix, or -1 for a new row.
long long index_of(const arma::mat& A, arma::uword i) {
  const double v = A.n_cols > 0 ? A(i, 0) : 0.5;
  if (!(v == kNewRow || (v >= 0 && v == std::floor(v) && v < static_cast<double>(A.n_cols) - 1)))
    throw DataError("row " + std::to_string(i + 1) +
                    " is not a row of a precomputed kernel (its training index is out of range for its " +
                    std::to_string(A.n_cols) + " columns)");
  return static_cast<long long>(v);
}

// A new row reads its values against training rows; a training row its values too.
double value(const arma::mat& A, arma::uword i, long long b_index) {
  if (static_cast<double>(b_index) + 1 >= static_cast<double>(A.n_cols))
    throw DataError("a precomputed kernel row holds " + std::to_string(A.n_cols - 1) +
                    " kernel values, and training row " + std::to_string(b_index + 1) + " is beyond them");
  return A(i, static_cast<arma::uword>(b_index) + 1);
}

std::string number(double v) {
  std::string s;
  io::append_number(s, v);
  return s;
}

const char* kNoValue =
    "the precomputed kernel has no value between two rows that are not training rows (DATA holds each new row's "
    "kernel values against the training rows only)";

}  // namespace

arma::mat encode_precomputed_training(const arma::mat& K) {
  const arma::uword n = K.n_rows;
  if (K.n_cols != n)
    throw DataError("a precomputed kernel's training data is the square Gram matrix of its rows: " + std::to_string(n) +
                    (n == 1 ? " row" : " rows") + " need " + std::to_string(n) + " feature columns, and there are " +
                    std::to_string(K.n_cols));
  double largest = 0;
  for (arma::uword j = 0; j < n; ++j)
    for (arma::uword i = 0; i < n; ++i) {
      if (!std::isfinite(K(i, j)))
        throw DataError("the precomputed Gram matrix has a non-finite value at row " + std::to_string(i + 1) +
                        ", column " + std::to_string(j + 1));
      largest = std::max(largest, std::abs(K(i, j)));
    }
  double worst = 0;
  arma::uword wi = 0, wj = 0;
  for (arma::uword j = 0; j < n; ++j)
    for (arma::uword i = j + 1; i < n; ++i)
      if (std::abs(K(i, j) - K(j, i)) > worst) {
        worst = std::abs(K(i, j) - K(j, i));
        wi = i;
        wj = j;
      }
  if (worst > 1e-10 * largest)
    throw DataError("the precomputed Gram matrix is not symmetric: K(" + std::to_string(wi + 1) + ", " +
                    std::to_string(wj + 1) + ") = " + number(K(wi, wj)) + " but K(" +
                    std::to_string(wj + 1) + ", " + std::to_string(wi + 1) + ") = " + number(K(wj, wi)) +
                    " (rows and columns 1-based; tolerance 1e-10 of the largest |K|)");
  arma::mat E(n, n + 1);
  for (arma::uword i = 0; i < n; ++i) E(i, 0) = static_cast<double>(i);
  if (n > 0) E.cols(1, n) = K;
  return E;
}

arma::mat encode_precomputed_queries(const arma::mat& Kx) {
  for (arma::uword j = 0; j < Kx.n_cols; ++j)
    for (arma::uword i = 0; i < Kx.n_rows; ++i)
      if (!std::isfinite(Kx(i, j)))
        throw DataError("the precomputed kernel values have a non-finite value at row " + std::to_string(i + 1) +
                        ", column " + std::to_string(j + 1));
  arma::mat E(Kx.n_rows, Kx.n_cols + 1);
  E.col(0).fill(kNewRow);
  if (Kx.n_cols > 0) E.cols(1, Kx.n_cols) = Kx;
  return E;
}

arma::mat precomputed_gram(const arma::mat& A, const arma::mat& B) {
  std::vector<long long> ia(A.n_rows), ib(B.n_rows);
  for (arma::uword i = 0; i < A.n_rows; ++i) ia[i] = index_of(A, i);
  for (arma::uword j = 0; j < B.n_rows; ++j) ib[j] = index_of(B, j);
  arma::mat K(A.n_rows, B.n_rows);
  for (arma::uword j = 0; j < B.n_rows; ++j)
    for (arma::uword i = 0; i < A.n_rows; ++i) {
      if (ib[j] >= 0) K(i, j) = value(A, i, ib[j]);
      else if (ia[i] >= 0) K(i, j) = value(B, j, ia[i]);
      else throw DataError(kNoValue);
    }
  return K;
}

arma::vec precomputed_diagonal(const arma::mat& A) {
  arma::vec d(A.n_rows);
  for (arma::uword i = 0; i < A.n_rows; ++i) {
    const long long k = index_of(A, i);
    if (k < 0)
      throw DataError("the precomputed kernel has no k(x, x) for a row that is not a training row (DATA holds its "
                      "kernel values against the training rows only)");
    d[i] = value(A, i, k);
  }
  return d;
}

}  // namespace mlt
