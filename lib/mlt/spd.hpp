// Symmetric positive definite systems solved in place through LAPACK (dpotrf,
// dpotrs, dpocon), shared by ridge and kernel ridge. In place matters for kernel
// ridge: an n x n kernel matrix is the largest allocation of the whole fit, and
// arma::chol / arma::solve would each make another copy of it.
#pragma once

#include "mlt/core/types.hpp"

namespace mlt::spd {

// Overwrites the lower triangle of the symmetric A (n x n; only the lower triangle
// is read) with its Cholesky factor L, A = L Lᵀ. Returns false when A is not
// numerically positive definite; A's lower triangle is then partly overwritten.
bool cholesky_in_place(arma::mat& A);

// Solves (L Lᵀ) X = B in place (B: n x t), L from cholesky_in_place.
void solve_in_place(const arma::mat& L, arma::mat& B);

// LAPACK's estimate of the 1-norm reciprocal condition number of A = L Lᵀ, from the
// factor and ‖A‖₁ (computed before factorizing, see one_norm_lower). O(n²).
double rcond(const arma::mat& L, double a_one_norm);

// ‖A‖₁ of the symmetric A from its lower triangle.
double one_norm_lower(const arma::mat& A);

}  // namespace mlt::spd
