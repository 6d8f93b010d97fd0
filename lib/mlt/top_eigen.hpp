// The k largest eigenpairs of a symmetric positive semi-definite n x n matrix, for
// k << n: kernel PCA's components without the O(n³) full decomposition.
//
// Block Lanczos with full reorthogonalization and thick restarts (Golub & Underwood
// 1977; Saad, "Numerical Methods for Large Eigenvalue Problems", 2nd ed., §6.3; the
// restart of Wu & Simon, SIAM J. Matrix Anal. Appl. 2000, and Stewart's Krylov–Schur,
// 2001): from a fixed-seed block of s = max(k + 2, 8) orthonormal columns, each step
// multiplies A by the newest block, orthogonalizes the product against the whole basis
// B (classical Gram–Schmidt twice, then QR) to make the next block, and takes the Ritz
// pairs of T = BᵀAB. B, A·B and T are kept explicitly, so each Ritz pair's residual is
// computed from the products themselves, never estimated by the recurrence; at 12
// blocks the basis restarts on its best Ritz vectors (half of it), whose products
// with A are already known. A Krylov space of dimension m holds the top eigenvectors
// to a precision that improves with the Chebyshev polynomial of degree m / s on the
// gap (Saad §6.3.3), where subspace iteration gains a constant factor per product:
// on an rbf kernel PCA of 10,000 rows and 10 components, 11 products of 12 columns
// where subspace iteration on 50 columns took 12 products, each 4 times dearer. It stops when every wanted Ritz pair
// (θ_j, v_j) has ‖A v_j − θ_j v_j‖ ≤ tol · θ_1, which bounds the eigenvalue error by
// tol · θ_1 and the angle to the eigenvector by tol · θ_1 / gap_j (Saad, Thm. 3.9
// and 3.10), gap_j the distance from θ_j to the rest of the spectrum. When the
// Krylov space becomes invariant (A of low rank), the block continues on random
// columns, as ARPACK restarts. A matrix too small for a basis of three blocks and k
// gets LAPACK's full decomposition (passes = 0).
//
// Cost: per product 2n²s flops (A·Q: each entry a fixed-order sum over a column of
// A, in fixed blocks of rows on the threads, so the same bits for any thread count;
// A is read once per product, and at s ≈ 10 the product is bound by that read) plus
// O(n m s + m³) for the orthogonalization and the m x m eigenproblem, m <= 12 s;
// memory: A, and B and A·B (n x 12s each). The full decomposition costs about 9n³
// flops (dsyevd, all eigenvectors) on one thread (for bits independent of --threads);
// the iteration is given up past n / (4s) products (top_eigen_pass_budget), and
// earlier when the residuals' rate of decrease (measured over 4 products, from the
// 9th) says that budget will not do.
#pragma once

#include <cstddef>
#include <optional>

#include "mlt/core/types.hpp"

namespace mlt {

struct TopEigen {
  arma::vec values;   // k, decreasing
  arma::mat vectors;  // n x k, orthonormal columns
  std::size_t passes = 0;  // products with A; 0: the full decomposition
};

// The k largest eigenpairs of the symmetric PSD A (n x n, 1 <= k < n), each residual
// at most tol · λ_1; nothing when that takes, or is predicted to take, more than
// max_passes products with A (a pass: one product with a block). A must be exactly
// symmetric (the product reads A's columns as its rows).
std::optional<TopEigen> top_eigenpairs(const arma::mat& A, std::size_t k, double tol, std::size_t max_passes);

// The products with A past which the full decomposition of an n x n matrix is the
// better deal, for k.
std::size_t top_eigen_pass_budget(std::size_t n, std::size_t k);

}  // namespace mlt
