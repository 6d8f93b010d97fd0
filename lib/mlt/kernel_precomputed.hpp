// A precomputed kernel (LIBSVM's -t 4, scikit-learn's kernel="precomputed"): the user
// brings the kernel values, any kernel at all. At fit, DATA's feature columns are the
// n x n Gram matrix K(i, j) = k(x_i, x_j) of the training rows; at predict, score and
// transform, the m x n values k(x, x_j) of each new row against the training rows, in
// training order.
//
// Design (as the structured kernels: mlt/kernel_strings.hpp). A kernel method keeps
// training rows (support vectors, a kernel PCA's training set) and calls
// Kernel::gram(A, B); cross-validation hands it row subsets. So each row is encoded
// with its place: a training row i becomes [i, K(i, 0..n-1)], a new row [-1, k(x,
// 0..n-1)], and the kernel value of a pair is read off the row that has it:
//   k(a, b) = a[1 + index(b)]   when b is a training row,
//           = b[1 + index(a)]   when a is one,
// and two new rows have none (DataError, naming why). A fold's rows keep their
// indices, so a cv fold's model reads the fold's sub-matrix unchanged; a model file
// keeps the rows it needs (n + 1 values each). k(x, x) of a new row is unknown: the
// methods that need it (kernel distances, the smoother, a kernel PCA's score of new
// rows) refuse new rows with that reason, and accept training rows.
//
// Validation at fit: the matrix is square (n columns for n rows), finite, and
// symmetric to within 1e-10 of its largest |K(i, j)| (a Gram matrix written with
// fewer digits, or summed in another order, is off by a few ulps; a wrong file, by far
// more). It is then used as given, as LIBSVM does: the built-in kernels are not
// exactly symmetric either (rbf's ‖a‖² − 2a·b + ‖b‖² rounds differently in its two
// orders), so every method already copes, and a matrix computed as mlt computes a
// kernel gives mlt's own arithmetic on it. Positive semi-definiteness is the user's to
// vouch for (an O(n³) eigendecomposition would dominate most fits): the methods that
// need it are defined for a PSD kernel only, as for the built-in ones.
// Cost: reading a value is O(1); gram(A, B) is O(m n) copies.
#pragma once

#include <string>

#include "mlt/core/types.hpp"

namespace mlt {

inline constexpr double kNewRow = -1;  // the index of a row that is not a training row

// K: n x n Gram matrix of the training rows -> n x (1 + n) rows [i, K(i, ·)].
// DataError: not square (naming the counts), a non-finite entry (its 1-based row and
// column), not symmetric (the worst pair, 1-based, and its two values).
arma::mat encode_precomputed_training(const arma::mat& K);
// Kx: m x n kernel values of new rows against the n training rows -> m x (1 + n) rows
// [-1, Kx(i, ·)]. DataError for a non-finite entry.
arma::mat encode_precomputed_queries(const arma::mat& Kx);

// K(i, j) = k(A.row(i), B.row(j)) read off the encoded rows, m x n. DataError when a
// pair are both new rows, or a row is not an encoded precomputed row (an index out of
// range for its width).
arma::mat precomputed_gram(const arma::mat& A, const arma::mat& B);
// k(x, x) of each row of A: training rows only (DataError for a new row).
arma::vec precomputed_diagonal(const arma::mat& A);

}  // namespace mlt
