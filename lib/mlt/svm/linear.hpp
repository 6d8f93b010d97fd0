// The linear soft-margin SVM's solver: dual coordinate descent with shrinking for the
// L2-regularized L1-loss (hinge) and L2-loss (squared hinge) SVM, as LIBLINEAR's
// `-s 3` and `-s 1` solve them.
//
// Problem (LIBLINEAR's scale; the estimator, mlt/svm.hpp, maps its λ and class
// weights c_i onto it with C_i = c_i / λ). Labels y_i ∈ {-1, +1}, rows x_i (a bias
// coordinate already appended by the caller when there is an intercept):
//
//   primal   min_w  P(w) = ½‖w‖² + Σ_i C_i ξ(y_i wᵀx_i),
//            ξ(m) = max(0, 1 - m)          (hinge)
//            ξ(m) = max(0, 1 - m)²         (squared hinge)
//
//   dual     min_α  ½ αᵀ(Q + D)α - eᵀα,    0 <= α_i <= U_i,     Q_ij = y_i y_j x_iᵀx_j,
//            hinge:          U_i = C_i, D_ii = 0
//            squared hinge:  U_i = ∞,   D_ii = 1 / (2 C_i)
//   and w = Σ_i α_i y_i x_i. The dual objective reported is the value to maximize,
//   D(α) = Σ_i α_i - ½‖w‖² - ½ Σ_i D_ii α_i², so that P(w(α)) - D(α) >= 0 is the
//   duality gap and bounds P(w) - P(w*) (weak duality).
//
// Algorithm (Hsieh, Chang, Lin, Keerthi, Sundararajan, "A dual coordinate descent
// method for large-scale linear SVM", ICML 2008: Algorithm 1 with the shrinking of
// its section 3; LIBLINEAR's solve_l2r_l1l2_svc is the reference design). Each outer
// iteration visits the active coordinates in a new random order (from `seed`); for
// coordinate i, with G = y_i wᵀx_i - 1 + D_ii α_i the partial derivative, the exact
// minimizer along it is α_i ← min(max(α_i - G / (Q_ii + D_ii), 0), U_i), and w is
// updated by (Δα_i) y_i x_i, so a step costs O(d). The projected gradient PG_i (G,
// or 0 where a bound blocks the move) is 0 for every i exactly at the optimum.
// Shrinking drops, for the next iterations, a coordinate at a bound whose gradient
// points out of the box by more than the last iteration's extreme PG; when the active
// set meets the test, every coordinate comes back and the test must hold on all.
//
// Stopping: after an outer iteration over every coordinate (none shrunk),
//     max(PGmax, 0) - min(PGmin, 0) <= tol,
// i.e. every |PG_i| <= tol and their spread <= tol (LIBLINEAR tests PGmax - PGmin;
// its later versions add |PGmax|, |PGmin| <= eps, which is the same as the max/min
// with 0 here, and also holds when shrinking left no coordinate active). PG is in
// margin units (y_i wᵀx_i - 1), so tol does not depend on C or on the data's scale
// through C. What it guarantees: for the hinge loss the duality gap is
//     P - D = Σ_i [α_i G_i + C_i max(0, -G_i)] <= tol (Σ_i α_i + Σ_{i: G_i < 0} C_i),
// (each term is at most C_i |PG_i| or α_i |PG_i|), and the solver reports the gap
// itself, computed afresh at the end: the certificate of how far P(w) is from the
// optimum. The squared hinge is alike.
//
// Shapes: Xt d x n, one sample per column (contiguous: the loop reads one sample at a
// time); y, C: n. Cost: O(n d) per outer iteration over the active set, plus O(n d)
// at the end for w = Σ α_i y_i x_i (recomputed in a fixed order), the final projected
// gradients and the objectives. Memory: O(n + d) beyond the data.
// The test of a pass sees each PG_i when coordinate i is visited, before the pass's
// later updates, so it is checked again at the returned point (with w recomputed) and
// the passes resume if that point fails it: `converged` means the returned point meets
// the test, and `violation` <= tol then.
//
// Arithmetic: plain loops in a fixed order (no BLAS), so the result depends only on
// the data, the options and the seed: the same bits on any processor, BLAS kernel or
// thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "mlt/core/names.hpp"
#include "mlt/core/random.hpp"
#include "mlt/core/types.hpp"

namespace mlt {

enum class SvmLoss {
  hinge,          // max(0, 1 - m): LIBLINEAR -s 3, LinearSVC(loss="hinge")
  squared_hinge,  // max(0, 1 - m)²: LIBLINEAR -s 1, LinearSVC(loss="squared_hinge")
};
inline constexpr NameTable<SvmLoss, 2> kSvmLossNames{
    "loss", {{{SvmLoss::hinge, "hinge"}, {SvmLoss::squared_hinge, "squared_hinge"}}}};
constexpr const auto& name_table(SvmLoss) { return kSvmLossNames; }

namespace svm {

struct DualCdOptions {
  SvmLoss loss = SvmLoss::hinge;
  double tol = 1e-7;              // on the projected gradient, in margin units (see above)
  std::size_t max_iter = 100000;  // outer iterations (passes over the active set)
  std::uint64_t seed = kDefaultSeed;  // the visiting order's
  bool shrinking = true;
};

struct DualCdResult {
  arma::vec w;          // d: Σ α_i y_i x_i
  arma::vec alpha;      // n: the dual variables, 0 <= α_i <= U_i
  std::size_t iterations = 0;
  bool converged = false;  // the stopping test held over every coordinate
  // At the returned point, over every coordinate: max(PGmax, 0) - min(PGmin, 0).
  double violation = 0;
  double primal = 0;    // P(w), LIBLINEAR's scale
  double dual = 0;      // D(α)
  double gap() const { return primal - dual; }
  std::size_t n_sv = 0;       // α_i > 0
  std::size_t n_bounded = 0;  // α_i = U_i (hinge only: at C_i)
};

// Solves the problem above. Xt: d x n, finite; y: n values ±1; C: n values > 0 and
// finite. Throws UsageError for invalid options (naming the parameter), DataError when
// the weights overflow (data or C too large).
DualCdResult solve_dual_cd(const arma::mat& Xt, const arma::vec& y, const arma::vec& C, const DualCdOptions& options);

// P(w) for given weights (LIBLINEAR's scale), for tests and references: Xt d x n.
double primal_objective(const arma::mat& Xt, const arma::vec& y, const arma::vec& C, SvmLoss loss, const arma::vec& w);

}  // namespace svm
}  // namespace mlt
