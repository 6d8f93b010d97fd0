// The k largest eigenpairs of a symmetric positive semi-definite n x n matrix, for
// k << n: kernel PCA's components without the O(n³) full decomposition.
//
// Block subspace iteration with Rayleigh–Ritz (Rutishauser, "Simultaneous iteration
// method for symmetric matrices", Numer. Math. 1970; Saad, "Numerical Methods for
// Large Eigenvalue Problems", 2nd ed., §5.2; the power steps of Halko, Martinsson,
// Tropp, SIAM Review 2011): a block of b = 2k + 30 orthonormal columns Q,
// from a fixed seed, is repeatedly replaced by an orthonormal basis of A·Q; each
// pass takes the Ritz pairs of the projected b x b matrix QᵀAQ. Eigenvector j
// converges as (λ_{b+1}/λ_j)^iteration, fast for the decaying spectra of smooth
// kernels. It stops when every wanted Ritz pair (θ_j, v_j) has the residual
// ‖A v_j − θ_j v_j‖ ≤ tol · θ_1, which bounds the eigenvalue error by tol·θ_1 and
// the angle to the eigenvector by tol·θ_1 / gap_j (Saad, Thm. 3.9 and 3.10), gap_j
// the distance from θ_j to the rest of the spectrum.
//
// Cost: 2n²b flops per pass (A·Q, by fixed blocks of rows on the threads: the same
// bits for any thread count; bound by reading A from memory) plus O(n b²); memory: A
// and a few n x b blocks. The
// full decomposition costs about 9n³ flops (dsyevd, all eigenvectors) on one thread
// (for bits independent of --threads), as much as 4.5 n / b passes in flops; a pass
// runs at memory speed rather than BLAS's peak, so past n / (2b) passes the iteration
// is not worth it (top_eigen_pass_budget). Smooth kernels take 10 to 30 passes (rbf on a
// few features); a slowly decaying spectrum is given up on as soon as the residuals'
// rate of decrease (measured over 4 passes, from the 9th) says the budget will not do.
#pragma once

#include <cstddef>
#include <optional>

#include "mlt/core/types.hpp"

namespace mlt {

struct TopEigen {
  arma::vec values;   // k, decreasing
  arma::mat vectors;  // n x k, orthonormal columns
  std::size_t passes = 0;
};

// The k largest eigenpairs of the symmetric PSD A (n x n, 1 <= k < n), each residual
// at most tol · λ_1; nothing when that takes, or is predicted to take, more than
// max_passes passes. A must be
// symmetric (both triangles are read).
std::optional<TopEigen> top_eigenpairs(const arma::mat& A, std::size_t k, double tol, std::size_t max_passes);

// The passes that cost as much as the full decomposition of an n x n matrix, for k.
std::size_t top_eigen_pass_budget(std::size_t n, std::size_t k);

}  // namespace mlt
