// The dual coordinate descent solver (lib/mlt/svm/linear.hpp) on problems with a
// closed-form optimum, and its own certificate (the duality gap) on random problems.
//
// Closed forms (LIBLINEAR's scale, P(w) = ½‖w‖² + Σ C ξ(y w x), one feature, no
// bias). Points x = 1 (y = +1) and x = -1 (y = -1): both margins are w, so
//   hinge:          P = ½w² + 2C max(0, 1 - w)   ->  w* = min(1, 2C)
//   squared hinge:  P = ½w² + 2C max(0, 1 - w)²  ->  w* = 4C / (1 + 4C)
// (setting the derivative w - 2C, resp. w - 4C(1 - w), to zero on w < 1).
// The solver stops at |PG| <= tol (margin units), and by strong convexity of P
// (modulus 1) |w - w*| <= sqrt(2 (P - P*)) <= sqrt(2 gap); the tests check w against
// that bound derived from the gap the solver reports, and the gap against the bound
// of linear.hpp, gap <= tol (Σ α_i + Σ_{G_i < 0} C_i). The gap itself is computed in
// doubles: P and D are sums of n nonnegative terms of size <= P (n <= 300 here), each
// rounded to n ε P < 1e-13 P, so the tests add 1e-12 P to it wherever it bounds
// something (a gap below the rounding is no bound below it).
// Two points with large C under the squared hinge are ill-conditioned for coordinate
// descent (Q has rank 1, D_ii = 1/(2C)): thousands of passes, within max_iter.
#include "mlt/svm/linear.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "../test_util.hpp"

namespace svm_linear_test {

namespace {

using mlt::SvmLoss;
using mlt::svm::DualCdOptions;
using mlt::svm::solve_dual_cd;

struct Problem {
  arma::mat Xt;  // d x n
  arma::vec y, C;
};

Problem two_points(double C) {
  Problem p;
  p.Xt = arma::mat{{1.0, -1.0}};
  p.y = {1.0, -1.0};
  p.C = {C, C};
  return p;
}

// A random problem with overlapping classes: labels by the sign of a linear score
// plus noise, a bias row of ones last.
Problem random_problem(arma::uword n, arma::uword d, double C, std::uint64_t seed) {
  Problem p;
  const arma::mat X = mlt::test::random_mat(n, d, seed);
  const arma::mat noise = mlt::test::random_mat(n, 1, seed + 1);
  p.Xt = arma::join_cols(X.t(), arma::rowvec(n, arma::fill::ones));
  p.y.set_size(n);
  for (arma::uword i = 0; i < n; ++i) p.y[i] = X(i, 0) - 0.5 * X(i, 1) + 0.3 + noise(i, 0) > 0 ? 1.0 : -1.0;
  p.C.set_size(n);
  p.C.fill(C);
  return p;
}

}  // namespace

TEST_CASE("dual CD: the closed-form optimum of two points, both losses, any C") {
  for (double C : {0.01, 0.1, 0.4, 1.0, 100.0, 1e12}) {
    for (SvmLoss loss : {SvmLoss::hinge, SvmLoss::squared_hinge}) {
      CAPTURE(C);
      CAPTURE(mlt::name_of(loss));
      const Problem p = two_points(C);
      DualCdOptions o;
      o.loss = loss;
      const auto r = solve_dual_cd(p.Xt, p.y, p.C, o);
      const double w_star = loss == SvmLoss::hinge ? std::min(1.0, 2 * C) : 4 * C / (1 + 4 * C);
      CHECK(r.converged);
      REQUIRE(r.w.is_finite());
      // |w - w*| <= sqrt(2 gap), plus the rounding of a few operations on O(1) numbers.
      CHECK(std::abs(r.w[0] - w_star) <= std::sqrt(2 * (std::max(r.gap(), 0.0) + 1e-12 * r.primal)) + 1e-14);
      CHECK(r.gap() >= -1e-15 * std::max(1.0, r.primal));
      CHECK(r.violation <= o.tol);
      CHECK(r.gap() <= o.tol * (arma::accu(r.alpha) + 2 * C) + 1e-12 * r.primal);
    }
  }
}

TEST_CASE("dual CD: separable data with C -> infinity keeps finite weights (the hard margin)") {
  // Hinge: the dual is bounded by the hard-margin solution, α = ½ each, w = 1;
  // squared hinge: D_ii = 1/(2C) -> 0, w -> 1. No NaN, no infinity.
  for (SvmLoss loss : {SvmLoss::hinge, SvmLoss::squared_hinge}) {
    const Problem p = two_points(1e300);
    DualCdOptions o;
    o.loss = loss;
    const auto r = solve_dual_cd(p.Xt, p.y, p.C, o);
    CHECK(r.converged);
    CHECK(r.w.is_finite());
    CHECK(r.alpha.is_finite());
    CHECK(r.w[0] == doctest::Approx(1.0).epsilon(1e-12));
  }
}

TEST_CASE("dual CD: a zero row under the hinge loss goes to its bound without dividing by zero") {
  Problem p;
  p.Xt = arma::mat{{1.0, -1.0, 0.0}};
  p.y = {1.0, -1.0, 1.0};
  p.C = {0.1, 0.1, 0.1};
  DualCdOptions o;
  const auto r = solve_dual_cd(p.Xt, p.y, p.C, o);
  CHECK(r.converged);
  CHECK(r.alpha[2] == 0.1);  // its margin is 0 whatever w: the loss 1 is paid in full
  CHECK(r.w[0] == doctest::Approx(0.2).epsilon(1e-12));  // min(1, 2C) of the other two
}

TEST_CASE("dual CD: random problems meet the stopping test, the gap bound, and agree across seeds and shrinking") {
  for (SvmLoss loss : {SvmLoss::hinge, SvmLoss::squared_hinge}) {
    for (double C : {0.1, 10.0}) {
      CAPTURE(mlt::name_of(loss));
      CAPTURE(C);
      const Problem p = random_problem(300, 5, C, 7);
      DualCdOptions o;
      o.loss = loss;
      const auto a = solve_dual_cd(p.Xt, p.y, p.C, o);
      REQUIRE(a.converged);
      CHECK(a.violation <= o.tol);
      // gap <= tol (Σ α_i + Σ_{G_i<0} C_i) <= tol (Σ α_i + Σ C_i) (linear.hpp); the
      // objectives are sums of n terms of size <= P: rounding 1e-12 relative at most.
      CHECK(a.gap() <= o.tol * (arma::accu(a.alpha) + arma::accu(p.C)) + 1e-12 * a.primal);
      CHECK(a.gap() >= -1e-12 * a.primal);
      // The default tol leaves the objective within 1e-6 of the optimum (svm.hpp).
      CHECK(a.gap() <= 1e-6 * a.primal);
      CHECK(a.primal == doctest::Approx(mlt::svm::primal_objective(p.Xt, p.y, p.C, loss, a.w)).epsilon(1e-14));

      // Another order, or no shrinking: another path to the same optimum. Both are
      // within their gaps of P*, and the weights within sqrt(2 gap) of w* each.
      o.seed = 12345;
      const auto b = solve_dual_cd(p.Xt, p.y, p.C, o);
      o.shrinking = false;
      const auto c = solve_dual_cd(p.Xt, p.y, p.C, o);
      for (const auto* r : {&b, &c}) {
        REQUIRE(r->converged);
        CHECK(std::abs(r->primal - a.primal) <= std::max(r->gap(), a.gap()) + 1e-12 * a.primal);
        const double slack = 1e-12 * a.primal;  // the gaps' rounding (top of file)
        CHECK(arma::norm(r->w - a.w) <= std::sqrt(2 * (std::max(r->gap(), 0.0) + slack)) +
                                            std::sqrt(2 * (std::max(a.gap(), 0.0) + slack)));
      }
    }
  }
}

TEST_CASE("dual CD: max_iter stops early and says so; bad options are refused by name") {
  const Problem p = random_problem(200, 4, 100.0, 3);
  DualCdOptions o;
  o.max_iter = 1;
  const auto r = solve_dual_cd(p.Xt, p.y, p.C, o);
  CHECK_FALSE(r.converged);
  CHECK(r.iterations == 1);
  CHECK(r.gap() > 0);
  o.max_iter = 0;
  CHECK(mlt::test::error_message([&] { solve_dual_cd(p.Xt, p.y, p.C, o); }, mlt::kExitUsage).find("`max_iter`") !=
        std::string::npos);
  o.max_iter = 10;
  o.tol = 0;
  CHECK(mlt::test::error_message([&] { solve_dual_cd(p.Xt, p.y, p.C, o); }, mlt::kExitUsage).find("`tol`") !=
        std::string::npos);
}

}  // namespace svm_linear_test
