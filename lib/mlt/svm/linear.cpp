// Dual coordinate descent for the linear SVM: see linear.hpp for the problem, the
// algorithm, the stopping test and what it guarantees.
#include "mlt/svm/linear.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/progress.hpp"

namespace mlt::svm {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Σ_k a_k b_k in a fixed order: four interleaved partial sums (so the loop is not one
// serial chain of additions), combined as (s0 + s1) + (s2 + s3), then the tail.
inline double dot(const double* a, const double* b, arma::uword d) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  arma::uword k = 0;
  for (; k + 4 <= d; k += 4) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
    s2 += a[k + 2] * b[k + 2];
    s3 += a[k + 3] * b[k + 3];
  }
  double s = (s0 + s1) + (s2 + s3);
  for (; k < d; ++k) s += a[k] * b[k];
  return s;
}

inline void axpy(double a, const double* x, double* y, arma::uword d) {
  for (arma::uword k = 0; k < d; ++k) y[k] += a * x[k];
}

// A pass visits the samples in random order, so without help each step waits on memory
// for its column of Xt (d doubles) and its entries of y, α, QD, D and U (perf on the
// 500,000 x 100 benchmark: most of the solver's time at the loads that start a step).
// Asking for a sample's data a few steps ahead overlaps those waits with the current
// steps; it changes no value, only when the data arrive.
constexpr arma::uword kPrefetchAhead = 4;
inline void prefetch_column(const double* x, arma::uword d) {
  for (arma::uword k = 0; k < d; k += 8) __builtin_prefetch(x + k);  // 8 doubles: one 64-byte line
  if (d > 0) __builtin_prefetch(x + d - 1);
}

// The loss ξ(m) of one margin m = y wᵀx.
inline double loss_of(SvmLoss loss, double m) {
  const double v = std::max(0.0, 1.0 - m);
  return loss == SvmLoss::hinge ? v : v * v;
}

// The projected gradient of coordinate i: G, or 0 where the bound it would cross
// blocks the move.
inline double projected(double G, double alpha, double upper) {
  if (alpha <= 0) return std::min(G, 0.0);
  if (alpha >= upper) return std::max(G, 0.0);
  return G;
}

}  // namespace

double primal_objective(const arma::mat& Xt, const arma::vec& y, const arma::vec& C, SvmLoss loss, const arma::vec& w) {
  const arma::uword d = Xt.n_rows, n = Xt.n_cols;
  double p = 0.5 * dot(w.memptr(), w.memptr(), d);
  for (arma::uword i = 0; i < n; ++i) p += C[i] * loss_of(loss, y[i] * dot(w.memptr(), Xt.colptr(i), d));
  return p;
}

DualCdResult solve_dual_cd(const arma::mat& Xt, const arma::vec& y, const arma::vec& C, const DualCdOptions& o) {
  if (!(o.tol > 0) || !std::isfinite(o.tol)) throw UsageError("`tol` must be a finite number > 0");
  if (o.max_iter < 1) throw UsageError("`max_iter` must be >= 1");
  const arma::uword d = Xt.n_rows, n = Xt.n_cols;
  if (y.n_elem != n || C.n_elem != n) throw Error("internal: solve_dual_cd: y and C need one entry per sample", kExitSoftware);
  for (arma::uword i = 0; i < n; ++i)
    if (!(C[i] > 0) || !std::isfinite(C[i]) || (y[i] != 1 && y[i] != -1))
      throw Error("internal: solve_dual_cd: labels must be ±1 and bounds finite and > 0", kExitSoftware);

  const bool squared = o.loss == SvmLoss::squared_hinge;
  // D_ii and U_i of the dual (linear.hpp).
  std::vector<double> diag(n), upper(n), QD(n);
  for (arma::uword i = 0; i < n; ++i) {
    diag[i] = squared ? 0.5 / C[i] : 0.0;
    upper[i] = squared ? kInf : C[i];
    QD[i] = dot(Xt.colptr(i), Xt.colptr(i), d) + diag[i];
  }

  DualCdResult r;
  r.alpha.zeros(n);
  r.w.zeros(d);
  double* alpha = r.alpha.memptr();
  double* w = r.w.memptr();
  std::vector<arma::uword> index(n);
  std::iota(index.begin(), index.end(), arma::uword(0));
  Random rng(o.seed);

  // Passes of coordinate descent until the stopping test holds over every coordinate
  // (or max_iter). The test sees each PG_i when coordinate i is visited, before the
  // later updates of the same pass move w, so it is checked once more at the returned
  // point (below) and the passes resume if that point fails it.
  double first_spread = -1;  // the first pass's violation, for the progress estimate
  const auto descend = [&] {
    arma::uword active = n;
    // The extreme projected gradients of the previous pass, for shrinking.
    double pg_max_old = kInf, pg_min_old = -kInf;
    while (r.iterations < o.max_iter) {
      double pg_max = -kInf, pg_min = kInf;
      for (arma::uword s = 0; s + 1 < active; ++s) std::swap(index[s], index[s + rng.below(active - s)]);
      for (arma::uword s = 0; s < active; ++s) {
        if (s + kPrefetchAhead < active) {
          const arma::uword next = index[s + kPrefetchAhead];
          prefetch_column(Xt.colptr(next), d);
          __builtin_prefetch(&alpha[next]);
          __builtin_prefetch(&y[next]);
          __builtin_prefetch(&QD[next]);
          __builtin_prefetch(&diag[next]);
          __builtin_prefetch(&upper[next]);
        }
        const arma::uword i = index[s];
        const double* x = Xt.colptr(i);
        const double G = y[i] * dot(w, x, d) - 1.0 + alpha[i] * diag[i];
        double PG = 0;
        if (alpha[i] == 0) {
          if (o.shrinking && G > pg_max_old) {  // at 0, pushed further out: leave it for now
            std::swap(index[s--], index[--active]);
            continue;
          }
          PG = std::min(G, 0.0);
        } else if (alpha[i] == upper[i]) {
          if (o.shrinking && G < pg_min_old) {
            std::swap(index[s--], index[--active]);
            continue;
          }
          PG = std::max(G, 0.0);
        } else {
          PG = G;
        }
        pg_max = std::max(pg_max, PG);
        pg_min = std::min(pg_min, PG);
        if (PG != 0) {
          const double old = alpha[i];
          // QD = 0 only for a zero row under the hinge loss: the dual is then linear
          // along α_i with slope G = -1, minimized at the bound.
          const double next = QD[i] > 0 ? old - G / QD[i] : (G < 0 ? upper[i] : 0.0);
          alpha[i] = std::min(std::max(next, 0.0), upper[i]);
          const double step = (alpha[i] - old) * y[i];
          if (step != 0) axpy(step, x, w, d);
        }
      }
      ++r.iterations;
      const double spread = std::max(pg_max, 0.0) - std::min(pg_min, 0.0);
      if (progress_wanted()) {
        if (first_spread < 0) first_spread = spread;
        report_progress({"svm coordinate descent", "pass", r.iterations, 0, "violation", spread,
                         log_fraction(first_spread, spread, o.tol)});
      }
      // Every |PG| <= tol and their spread <= tol; an empty active set passes (no
      // coordinate to check until all come back).
      if (spread <= o.tol) {
        if (active == n) return true;
        active = n;  // check everything before stopping
        pg_max_old = kInf;
        pg_min_old = -kInf;
        continue;
      }
      pg_max_old = pg_max > 0 ? pg_max : kInf;
      pg_min_old = pg_min < 0 ? pg_min : -kInf;
    }
    return false;
  };

  for (;;) {
    r.converged = descend();
    // w afresh from α, in sample order (the running w carries the rounding of every
    // update), then the final projected gradients and both objectives from that w.
    r.w.zeros();
    for (arma::uword i = 0; i < n; ++i)
      if (alpha[i] != 0) axpy(alpha[i] * y[i], Xt.colptr(i), w, d);
    if (!r.w.is_finite())
      throw DataError("svm: the weights overflowed (C = 1/`lambda` too large for the data's scale); raise `lambda` or "
                      "rescale the data");
    const double half_norm = 0.5 * dot(w, w, d);
    double loss = 0, sum_alpha = 0, dual_quad = 0, pg_max = 0, pg_min = 0;
    r.n_sv = r.n_bounded = 0;
    for (arma::uword i = 0; i < n; ++i) {
      const double m = y[i] * dot(w, Xt.colptr(i), d);
      loss += C[i] * loss_of(o.loss, m);
      sum_alpha += alpha[i];
      dual_quad += diag[i] * alpha[i] * alpha[i];
      const double PG = projected(m - 1.0 + alpha[i] * diag[i], alpha[i], upper[i]);
      pg_max = std::max(pg_max, PG);
      pg_min = std::min(pg_min, PG);
      if (alpha[i] > 0) ++r.n_sv;
      if (alpha[i] == upper[i]) ++r.n_bounded;
    }
    r.violation = pg_max - pg_min;
    r.primal = half_norm + loss;
    r.dual = sum_alpha - half_norm - 0.5 * dual_quad;
    if (!std::isfinite(r.primal) || !std::isfinite(r.dual))
      throw DataError("svm: the objective overflowed (C = 1/`lambda` too large for the data's scale); raise `lambda` "
                      "or rescale the data");
    if (!r.converged || r.violation <= o.tol) break;
    r.converged = false;  // the pass's test held, the returned point's not yet: more passes
    if (r.iterations >= o.max_iter) break;
  }
  report_progress({"svm coordinate descent", "pass", r.iterations, 0, "violation", r.violation, 1.0, true});
  return r;
}

}  // namespace mlt::svm
