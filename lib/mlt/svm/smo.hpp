// The kernel SVM's dual (C-SVC) by SMO, as LIBSVM 3.x solves it.
//
// Problem. With labels y_i ∈ {−1, +1}, per-sample bounds C_i > 0 (C times a class or
// sample weight) and Q_ij = y_i y_j k(x_i, x_j):
//
//     min_α  f(α) = ½ αᵀQα − eᵀα    s.t.  yᵀα = 0,  0 <= α_i <= C_i,
//
// the dual of the soft-margin SVM with hinge loss; the decision function is
// f(x) = Σ_i α_i y_i k(x_i, x) + b. References: Fan, Chen & Lin, "Working set
// selection using second order information for training support vector machines",
// JMLR 6 (2005) 1889–1918 (FCL); Chang & Lin, "LIBSVM: a library for support vector
// machines", ACM TIST 2 (2011), and its maintained implementation document
// libsvm.pdf (CL); Chen, Fan & Lin, "A study on SMO-type decomposition methods for
// support vector machines", IEEE TNN 17 (2006) (CFL); LIBSVM 3.x svm.cpp, class
// Solver, whose function names are given below. Sections are cited by title, which
// do not move between the versions of CL.
//
// Stopping (FCL's optimality condition; CL "Stopping criteria"). With G = ∇f(α) = Qα − e,
//     I_up  = {t : α_t < C_t, y_t = 1 or α_t > 0, y_t = −1},
//     I_low = {t : α_t < C_t, y_t = −1 or α_t > 0, y_t = 1},
//     m(α) = max_{t ∈ I_up} −y_t G_t,   M(α) = min_{t ∈ I_low} −y_t G_t,
// α is optimal iff m(α) <= M(α); the solver stops when m(α) − M(α) <= tol (the gap
// reported, always measured over all n variables, shrunk or not).
//
// Working set (FCL "WSS 2", select_working_set): i = argmax_{t ∈ I_up} −y_t G_t, then
//     j = argmin_t { −b_it² / a_it : t ∈ I_low, −y_t G_t < −y_i G_i },
//     a_it = K_ii + K_tt − 2 K_it,  b_it = −y_i G_i + y_t G_t > 0,
// the pair whose two-variable step decreases f the most under a second-order model.
// Non-positive-definite kernels (sigmoid; FCL on non-positive definite kernel
// matrices, CFL): where a_it <= 0 it is replaced by τ = 1e-12, in the selection and
// in the step, which keeps every step a strict decrease of f clipped to the box, so
// SMO still terminates. Steps taken with τ are counted in `non_psd_steps` (a kernel
// that is not PSD on the data, or two coinciding points, for which a_it = 0).
//
// Two-variable step (CL, the two-variable sub-problem with per-sample bounds): the
// unconstrained minimiser along the feasible direction, clipped to the box
// [0, C_i] × [0, C_j] keeping y_i α_i + y_j α_j.
//
// Shrinking (CL "Shrinking"; do_shrinking, be_shrunk): every min(n, 1000) iterations
// the variables at a bound that cannot enter the next working set (−y_t G_t beyond m
// or M on the wrong side) leave the active set, and iterations cost O(active) only.
// Once m − M <= 10 tol all variables are reactivated, once; and when the active
// problem has converged, the gradient of the inactive ones is rebuilt
// (reconstruct_gradient) from Ḡ_t = Σ_{α_j = C_j} C_j Q_tj, kept up to date through
// the run, and the free α: the stopping test is always made on all n.
//
// Bias (CL "Calculation of b or ρ"; calculate_rho): b = −ρ, ρ the average of y_t G_t
// over the free α_t (0 < α_t < C_t); with none free, the midpoint of the interval the
// KKT conditions of the bounded α leave for it.
//
// Kernel columns (CL "Caching"; class Cache): an LRU cache of Q's columns bounded by
// `cache_mb`, holding, as LIBSVM's, columns of the active length only, extended when
// a longer one is asked for. Kept in double (LIBSVM keeps floats): twice LIBSVM's
// memory per column, and no single-precision rounding in the gradient. Columns are
// computed by Kernel::gram on blocks of X's rows (mlt/core/rowwise.hpp products), the
// blocks spread over thread_count() threads when a column is long enough to pay for
// starting them (smo.cpp, kParallelColumn).
//
// Shapes: X n x p (one sample per row), y and C of length n. Cost: O(n) per iteration
// for the selection and the gradient update on the active set, plus, per cache miss,
// one kernel column, O(n p) (two per iteration at most); memory O(n) plus the cache.
// The result does not depend on the thread count, nor on `cache_mb` (a column holds
// the same bits whether it was cached or recomputed, whole or in pieces).
#pragma once

#include <cstddef>

#include "mlt/core/types.hpp"
#include "mlt/kernel.hpp"

namespace mlt::svm {

struct SmoOptions {
  double tol = 1e-3;           // LIBSVM's eps: stop when the maximal violating pair's gap m(α) − M(α) <= tol
  std::size_t cache_mb = 200;  // kernel-column cache (LRU), LIBSVM's -m; at least two columns are always kept
  bool shrinking = true;
  std::size_t max_iter = 0;  // 0: no limit other than LIBSVM's max(10^7, 100 n) safety bound
  // Optional: Kernel::gram(X, X) (n x n), computed once and shared by several solves
  // on the same rows (cv's λ path, svm.hpp); columns are then copied from it instead
  // of computed. Its entries are the bits the columns would have (Kernel::gram's
  // entries depend on their two rows only), so the result is the same.
  const arma::mat* gram = nullptr;
};

struct SmoResult {
  arma::vec alpha;      // n, 0 <= alpha_i <= C_i
  double b = 0;         // decision f(x) = Σ alpha_i y_i k(x_i, x) + b  (b = −ρ in LIBSVM)
  double objective = 0; // dual objective ½ αᵀQα − eᵀα (LIBSVM's "obj")
  double gap = 0;       // final m(α) − M(α)
  std::size_t iterations = 0;
  bool converged = false;
  // Steps taken with the τ fix where a_ij < 0 beyond rounding: the kernel is not
  // positive semi-definite on these data; 0 for a PSD kernel, also where two points
  // coincide in its feature space (a_ij = 0, also taken with the τ fix).
  std::size_t non_psd_steps = 0;
  // Steps taken with the τ fix where a_ij = 0 up to rounding: two points that coincide
  // in the kernel's feature space.
  std::size_t coincident_steps = 0;
  // Kernel-column requests served by the cache whole (hits) or needing entries
  // computed (misses; a column extended to a longer length counts as a miss).
  std::size_t cache_hits = 0;
  std::size_t cache_misses = 0;
  // Times the active set was reset to all n variables (unshrinking before the final
  // iterations, and the final check of a shrunk problem); 0 without shrinking.
  std::size_t unshrinks = 0;
};

// C-SVC dual: min ½ αᵀQα − eᵀα  s.t.  yᵀα = 0, 0 <= α_i <= C_i,  Q_ij = y_i y_j k(x_i, x_j).
// X: n x p (rows are samples), y: n values in {−1, +1}, C: n upper bounds (class weights).
// Throws UsageError for bad options, DataError for data it cannot solve (one class
// only, sizes that differ, non-finite values or kernel values).
SmoResult solve_smo(const Kernel& kernel, const arma::mat& X, const arma::vec& y, const arma::vec& C,
                    const SmoOptions& options);

}  // namespace mlt::svm
