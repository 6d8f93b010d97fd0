// SMO (lib/mlt/svm/smo.hpp) against scikit-learn's SVC, which is LIBSVM, and against
// the exact optimum on SVC's support pattern (tests/fixtures/svm_smo/, made by
// scripts/fixtures/svm_smo.py), and against the KKT conditions of its own answer.
//
// Tolerances. Both solvers stop at a gap m(α) − M(α) <= ε = 1e-6, not at the optimum,
// so their decision values differ by an amount set by ε and the problem. The fixture
// script solves the KKT equations of the optimum on SVC's support pattern exactly
// (double-precision linear solve, then checks the pattern is optimal) and derives, per
// held-out point x, the sensitivity λ(x) of f(x) to the residual that a solver stopping
// at ε leaves on the free variables (|r_t| <= ε): |f(x) − f*(x)| <= λ(x) ε when the
// solver has the same support pattern (checked). LIBSVM keeps its kernel cache in
// single precision, which perturbs its gradient by at most φ = 2⁻²⁴ max_t Σ_j α_j |K_tj|,
// so |f_mlt(x) − f_sklearn(x)| <= λ(x) (2ε + φ). λ is 1 to 30 on these cases and φ up
// to 4e-6: the bound is 2e-6 to 1.4e-4 absolute. Measured (when the fixtures were made):
// at most 2.3e-6 from SVC's decision values, 1.1e-6 relative to max |f| in the weighted
// case and at most 7.2e-7 relative in the others, 6.3e-6 from the exact optimum (iris
// poly, λ up to 30); objectives within 2.1e-11 of SVC's. So the values agree to about
// 1e-6 relative, as the issue asks, but the test asserts the derived bound, not the
// measured agreement. Dual objectives D: for any feasible α with gap δ,
// D(α) − D(α*) <= Gᵀ(α − α*) <= δ ‖α − α*‖₁ / 2 <= δ ΣC / 2 (split Gᵀ(α − α*) by the
// sign of y_t(α_t − α*_t), which sums to 0; each side is bounded by m or M). The slack 1e-9 × scale covers rounding: mlt's gradient is updated, not
// recomputed (about iterations × 2⁻⁵³ × ΣC max|K| <= 1e-11 here), and the fixture's
// solve (cond(M) 2⁻⁵³ <= 1e-12).
#include "mlt/svm/smo.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mlt/core/error.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/io/csv.hpp"
#include "../test_util.hpp"

namespace svm_smo_test {

namespace {

using mlt::svm::SmoOptions;
using mlt::svm::SmoResult;
using mlt::test::fixture_path;

const nlohmann::json& reference() {
  static const nlohmann::json j = [] {
    std::ifstream f(fixture_path("tests/fixtures/svm_smo/reference.json"));
    return nlohmann::json::parse(f);
  }();
  return j;
}

struct Case {
  arma::mat X, Xt;  // training rows, held-out rows
  arma::vec y, C;
  mlt::Kernel kernel;
  nlohmann::json ref;
};

arma::mat read(const std::string& file) {
  return mlt::io::read_csv(fixture_path("tests/fixtures/svm_smo/" + file), mlt::io::CsvOptions{}, {}).X;
}

Case load(const std::string& name) {
  Case c;
  c.ref = reference()["cases"][name];
  const arma::mat train = read(name + "_train.csv");
  c.X = train.cols(0, train.n_cols - 3);
  c.y = train.col(train.n_cols - 2);
  c.C = train.col(train.n_cols - 1);
  c.Xt = read(name + "_test.csv");
  const auto& k = c.ref["kernel"];
  mlt::KernelParams p;
  p.type = mlt::parse_name<mlt::KernelType>(k["type"].get<std::string>());
  p.gamma = k.value("gamma", 0.0);
  p.degree = k.value("degree", 3.0);
  p.coef0 = k.value("coef0", 0.0);
  c.kernel = mlt::Kernel(p, c.X.n_cols);
  return c;
}

SmoOptions options(double tol = 1e-6) {
  SmoOptions o;
  o.tol = tol;
  return o;
}

arma::vec decision(const Case& c, const SmoResult& r, const arma::mat& Z) {
  return c.kernel.gram(Z, c.X) * (r.alpha % c.y) + r.b;
}


constexpr double kTol = 1e-6;

double sum_C(const Case& c) { return arma::accu(c.C); }

// The KKT conditions of r's α, recomputed from scratch: feasibility, the gap m − M of
// the exact gradient within the solver's tolerance, b between M and m, the objective.
void check_kkt(const Case& c, const SmoResult& r, double tol) {
  const arma::uword n = c.X.n_rows;
  REQUIRE(r.alpha.n_elem == n);
  CHECK(r.alpha.is_finite());
  CHECK(arma::all(r.alpha >= 0));
  CHECK(arma::all(r.alpha <= c.C));
  CHECK(std::abs(arma::dot(c.y, r.alpha)) <= 1e-12 * sum_C(c));
  const arma::mat Q = (c.y * c.y.t()) % c.kernel.gram(c.X, c.X);
  const arma::vec G = Q * r.alpha - 1.0;
  double m = -arma::datum::inf, M = arma::datum::inf;
  for (arma::uword t = 0; t < n; ++t) {
    const double v = -c.y[t] * G[t];
    const bool up = (c.y[t] > 0 && r.alpha[t] < c.C[t]) || (c.y[t] < 0 && r.alpha[t] > 0);
    const bool low = (c.y[t] < 0 && r.alpha[t] < c.C[t]) || (c.y[t] > 0 && r.alpha[t] > 0);
    if (up) m = std::max(m, v);
    if (low) M = std::min(M, v);
  }
  const double slack = 1e-9 * (1 + arma::abs(G).max());
  CHECK(r.converged);
  CHECK(m - M <= tol + slack);
  CHECK(r.gap <= tol);
  CHECK(std::abs(r.gap - std::max(m - M, 0.0)) <= slack);
  // Free variables put b in [M, m] (they lie in both sets); without any, b is the
  // middle of the interval between m and M.
  CHECK(r.b >= std::min(m, M) - slack);
  CHECK(r.b <= std::max(m, M) + slack);
  const double objective = 0.5 * arma::dot(r.alpha, Q * r.alpha) - arma::accu(r.alpha);
  CHECK(std::abs(r.objective - objective) <= slack * (1 + std::abs(objective)));
}

std::vector<std::string> compared_cases() {
  std::vector<std::string> names;
  for (const auto& [name, ref] : reference()["cases"].items())
    if (ref["compare"].get<bool>()) names.push_back(name);
  return names;
}

arma::vec vec_of(const nlohmann::json& j) { return arma::vec(j.get<std::vector<double>>()); }

arma::uvec support_of(const SmoResult& r) { return arma::find(r.alpha > 0); }

arma::uvec free_of(const Case& c, const SmoResult& r) { return arma::find(r.alpha > 0 && r.alpha < c.C); }

}  // namespace

TEST_CASE("smo: scikit-learn's SVC (LIBSVM) and the exact optimum, at tol 1e-6") {
  const auto names = compared_cases();
  REQUIRE(names.size() == 10);
  for (const auto& name : names) {
    CAPTURE(name);
    const Case c = load(name);
    const auto& ref = c.ref;
    const SmoResult r = mlt::svm::solve_smo(c.kernel, c.X, c.y, c.C, options(kTol));
    CHECK(r.converged);
    // Steps with a_ij <= 0 occur only between the coinciding points of `duplicates`,
    // where a_ij = 0: a PSD kernel's flat direction, not counted as indefinite.
    CHECK(r.non_psd_steps == 0);
    CHECK((r.coincident_steps > 0) == (name == "duplicates"));

    // The same support vectors, and the same free ones as the exact optimum (the
    // premise of the decision-value bound).
    const arma::uvec sv = support_of(r);
    const arma::uvec sv_ref(ref["support"].get<std::vector<arma::uword>>());
    REQUIRE(sv.n_elem == sv_ref.n_elem);
    CHECK(arma::all(sv == sv_ref));
    CHECK(free_of(c, r).n_elem == ref["n_free_exact"].get<arma::uword>());

    const arma::vec f = decision(c, r, c.Xt);
    const arma::vec f_sk = vec_of(ref["decision"]), f_exact = vec_of(ref["exact_decision"]);
    const arma::vec lambda = vec_of(ref["lambda"]);
    const double scale = ref["scale"], phi = ref["phi"], slack = 1e-9 * scale;
    for (arma::uword t = 0; t < f.n_elem; ++t) {
      CAPTURE(t);
      CHECK(std::abs(f[t] - f_exact[t]) <= lambda[t] * kTol + slack);
      CHECK(std::abs(f[t] - f_sk[t]) <= lambda[t] * (2 * kTol + phi) + slack);
    }

    // The same predictions wherever SVC's decision value is farther from 0 than the
    // bound: every held-out point but n2's (1, 0), on the separating line (f = 0).
    const arma::vec pred = vec_of(ref["predict"]);
    arma::uword decided = 0;
    for (arma::uword t = 0; t < f.n_elem; ++t) {
      if (std::abs(f_sk[t]) <= lambda[t] * (2 * kTol + phi) + slack) continue;
      ++decided;
      CHECK((f[t] > 0 ? 1.0 : -1.0) == pred[t]);
    }
    CHECK(decided == f.n_elem - (name == "n2"));

    // Objectives: within δ ΣC / 2 of the optimum, never below it.
    const double obj_exact = ref["exact_objective"], obj_sk = ref["objective"];
    CHECK(r.objective <= obj_exact + kTol * sum_C(c) / 2 + slack);
    CHECK(r.objective >= obj_exact - slack);
    CHECK(std::abs(r.objective - obj_sk) <= (kTol + 2 * phi) * sum_C(c) / 2 + slack);

    check_kkt(c, r, kTol);
  }
}

TEST_CASE("smo: the KKT conditions hold at the tolerance asked, whatever the kernel") {
  for (const auto& [name, ref] : reference()["cases"].items()) {
    CAPTURE(name);
    const Case c = load(name);
    for (double tol : {1e-3, 1e-6, 1e-9}) {
      CAPTURE(tol);
      check_kkt(c, mlt::svm::solve_smo(c.kernel, c.X, c.y, c.C, options(tol)), tol);
    }
  }
}

TEST_CASE("smo: every alpha at the bound C, b at the midpoint") {
  const Case c = load("all_bound");
  const SmoResult r = mlt::svm::solve_smo(c.kernel, c.X, c.y, c.C, options(kTol));
  CHECK(arma::all(r.alpha == c.C));
  const arma::vec G = (c.y * c.y.t()) % c.kernel.gram(c.X, c.X) * r.alpha - 1.0;
  // All at C: I_up is the y = −1 samples, I_low the y = +1 ones.
  const arma::vec v = -c.y % G;
  const double m = v.elem(arma::find(c.y < 0)).max(), M = v.elem(arma::find(c.y > 0)).min();
  CHECK(r.b == doctest::Approx((m + M) / 2).epsilon(1e-9));
  CHECK(r.b == doctest::Approx(c.ref["exact_b"].get<double>()).epsilon(1e-9));
}

TEST_CASE("smo: two points, the closed form") {
  // x1 = (0, 1), y = −1; x2 = (2, −1), y = +1; linear kernel, d = x2 − x1 = (2, −2):
  // α1 = α2 = a minimises ½ a² ‖d‖² − 2a, a = 2 / ‖d‖² = 1/4 (< C = 10); f(x) = a d·x + b
  // with f(x1) = −1, f(x2) = 1: b = −a d·(x1 + x2) / 2 = −1/2; objective −a = −1/4.
  const Case c = load("n2");
  const SmoResult r = mlt::svm::solve_smo(c.kernel, c.X, c.y, c.C, options(kTol));
  CHECK(r.alpha[0] == doctest::Approx(0.25).epsilon(1e-14));
  CHECK(r.alpha[1] == doctest::Approx(0.25).epsilon(1e-14));
  CHECK(r.b == doctest::Approx(-0.5).epsilon(1e-14));
  CHECK(r.objective == doctest::Approx(-0.25).epsilon(1e-14));
  CHECK(r.iterations == 1);
}

TEST_CASE("smo: duplicated points with opposite labels") {
  // Rows 40..49 repeat rows 0, 4, ..., 36 with the opposite label. One copy of a pair
  // has y f(x) <= 0 < 1, so its α is C; the other's y f(x) = |f(x)| < 1 here, so its α
  // is C too. The steps between two copies have a_ij = 0 (τ, counted); the solution
  // is still LIBSVM's (compared above).
  const Case c = load("duplicates");
  const SmoResult r = mlt::svm::solve_smo(c.kernel, c.X, c.y, c.C, options(kTol));
  check_kkt(c, r, kTol);
  for (arma::uword k = 0; k < 10; ++k) {
    CHECK(arma::all(c.X.row(4 * k) == c.X.row(40 + k)));
    CHECK(c.y[4 * k] == -c.y[40 + k]);
    CHECK(r.alpha[4 * k] == c.C[4 * k]);
    CHECK(r.alpha[40 + k] == c.C[40 + k]);
  }
}

TEST_CASE("smo: a sigmoid kernel that is not PSD terminates and says so") {
  const Case c = load("iris_sigmoid_npsd");
  REQUIRE(c.ref["min_eig_K"].get<double>() < -1);  // indefinite on these data
  for (bool shrinking : {true, false}) {
    SmoOptions o = options(kTol);
    o.shrinking = shrinking;
    const SmoResult r = mlt::svm::solve_smo(c.kernel, c.X, c.y, c.C, o);
    CHECK(r.converged);
    CHECK(r.non_psd_steps > 0);
    CHECK(std::isfinite(r.b));
    CHECK(std::isfinite(r.objective));
    check_kkt(c, r, kTol);
  }
}

TEST_CASE("smo: shrinking off gives the solution of shrinking on, to the stopping bound") {
  for (const auto& name : compared_cases()) {
    CAPTURE(name);
    const Case c = load(name);
    SmoOptions o = options(kTol);
    const SmoResult on = mlt::svm::solve_smo(c.kernel, c.X, c.y, c.C, o);
    o.shrinking = false;
    const SmoResult off = mlt::svm::solve_smo(c.kernel, c.X, c.y, c.C, o);
    CHECK(off.unshrinks == 0);
    check_kkt(c, off, kTol);
    CHECK(arma::all(support_of(on) == support_of(off)));
    // Each within λ(x) ε of the optimum, on the same pattern.
    const arma::vec lambda = vec_of(c.ref["lambda"]);
    const arma::vec d = arma::abs(decision(c, on, c.Xt) - decision(c, off, c.Xt));
    CHECK(arma::all(d <= 2 * kTol * lambda + 1e-9 * c.ref["scale"].get<double>()));
    CHECK(std::abs(on.objective - off.objective) <= kTol * sum_C(c) / 2 + 1e-9);
  }
}

namespace {

// 3000 noisy points in 4-d: kernel columns long enough for Kernel::gram's parallel
// loop to split them, and a full Q (72 MB) much larger than a 1 MB cache.
Case large_case() {
  Case c;
  c.X = mlt::test::random_mat(3000, 4, 11);
  const arma::mat noise = mlt::test::random_mat(3000, 1, 12);
  c.y = arma::sign(c.X.col(0) % c.X.col(1) + 0.5 * noise.col(0));
  c.y.replace(0.0, 1.0);
  c.C = arma::vec(3000, arma::fill::value(1.0));
  c.Xt = mlt::test::random_mat(200, 4, 13);
  mlt::KernelParams p;
  p.gamma = 0.5;
  c.kernel = mlt::Kernel(p, 4);
  return c;
}

bool same_bits(const SmoResult& a, const SmoResult& b) {
  return arma::approx_equal(a.alpha, b.alpha, "absdiff", 0.0) && a.b == b.b && a.objective == b.objective &&
         a.iterations == b.iterations;
}

}  // namespace

TEST_CASE("smo: the cache size and the thread count change no bit of the result") {
  const Case c = large_case();
  SmoOptions o = options(1e-3);
  mlt::set_thread_count(1);
  const SmoResult one = mlt::svm::solve_smo(c.kernel, c.X, c.y, c.C, o);
  mlt::set_thread_count(2);
  const SmoResult two = mlt::svm::solve_smo(c.kernel, c.X, c.y, c.C, o);
  o.cache_mb = 1;
  const SmoResult tiny = mlt::svm::solve_smo(c.kernel, c.X, c.y, c.C, o);
  mlt::set_thread_count(0);
  CHECK(one.converged);
  CHECK(one.unshrinks > 0);
  CHECK(same_bits(one, two));
  CHECK(same_bits(one, tiny));
  // The 1 MB cache (43 columns) misses more often than the 200 MB one (all of Q).
  CHECK(tiny.cache_misses > one.cache_misses);
  CHECK(one.cache_hits + one.cache_misses == tiny.cache_hits + tiny.cache_misses);
}

TEST_CASE("smo: columns over several blocks of rows and over threads: the bits of the precomputed Gram matrix") {
  // 2400 x 900: the solver keeps X in blocks of 64 rows (smo.cpp, its smallest), so
  // shrinking exchanges rows across blocks and columns are extended from the middle
  // of one; a column is 2.2 million multiply-adds, above kParallelColumn, so with two
  // threads its blocks are split between them. Kernel::gram(X, X) read through the
  // `gram` option has the bits every computed column must have.
  const arma::mat X = mlt::test::random_mat(2400, 900, 21);
  const arma::mat noise = mlt::test::random_mat(2400, 1, 22);
  arma::vec y = arma::sign(X.col(0) + X.col(1) % X.col(2) + 0.3 * noise.col(0));
  y.replace(0.0, 1.0);
  const arma::vec C(2400, arma::fill::value(1.0));
  mlt::KernelParams p;
  p.gamma = 0.5 / 900;
  const mlt::Kernel kernel(p, 900);
  SmoOptions o = options(1e-3);
  mlt::set_thread_count(1);
  const SmoResult one = mlt::svm::solve_smo(kernel, X, y, C, o);
  mlt::set_thread_count(2);
  const SmoResult two = mlt::svm::solve_smo(kernel, X, y, C, o);
  mlt::set_thread_count(0);
  const arma::mat G = kernel.gram(X, X);
  o.gram = &G;
  const SmoResult pre = mlt::svm::solve_smo(kernel, X, y, C, o);
  CHECK(one.converged);
  CHECK(one.unshrinks > 0);
  CHECK(same_bits(one, two));
  CHECK(same_bits(one, pre));
}

TEST_CASE("smo: max_iter stops early without NaN and says so") {
  const Case c = load("blobs");
  SmoOptions o = options(kTol);
  o.max_iter = 3;
  const SmoResult r = mlt::svm::solve_smo(c.kernel, c.X, c.y, c.C, o);
  CHECK_FALSE(r.converged);
  CHECK(r.iterations == 3);
  CHECK(r.gap > kTol);
  CHECK(std::isfinite(r.b));
  CHECK(std::isfinite(r.objective));
  CHECK(arma::all(r.alpha >= 0 && r.alpha <= c.C));
}

TEST_CASE("smo: bad input is refused with a message naming the parameter") {
  const Case c = load("n2");
  const auto solve = [&](const arma::mat& X, const arma::vec& y, const arma::vec& C, SmoOptions o) {
    return mlt::svm::solve_smo(c.kernel, X, y, C, o);
  };
  CHECK_THROWS_WITH_AS(solve(c.X, arma::vec{1, 1}, c.C, options()), doctest::Contains("both classes"),
                       mlt::DataError);
  CHECK_THROWS_WITH_AS(solve(c.X, arma::vec{0, 1}, c.C, options()), doctest::Contains("-1 or +1"), mlt::DataError);
  CHECK_THROWS_WITH_AS(solve(c.X, c.y, arma::vec{1, 0}, options()), doctest::Contains("`C`"), mlt::UsageError);
  CHECK_THROWS_WITH_AS(solve(c.X, c.y, arma::vec{1}, options()), doctest::Contains("bounds"), mlt::DataError);
  CHECK_THROWS_WITH_AS(solve(c.X, c.y, c.C, options(0)), doctest::Contains("`tol`"), mlt::UsageError);
  SmoOptions o = options();
  o.cache_mb = 0;
  CHECK_THROWS_WITH_AS(solve(c.X, c.y, c.C, o), doctest::Contains("`cache_mb`"), mlt::UsageError);
  arma::mat bad = c.X;
  bad(0, 0) = arma::datum::nan;
  CHECK_THROWS_AS(solve(bad, c.y, c.C, options()), mlt::DataError);
  // A poly kernel that overflows: (1e3 · 1e6 + 1)^50.
  mlt::KernelParams p;
  p.type = mlt::KernelType::poly;
  p.gamma = 1e3;
  p.degree = 50;
  const mlt::Kernel big(p, 2);
  CHECK_THROWS_WITH_AS(mlt::svm::solve_smo(big, 1e3 * c.X, c.y, c.C, options()), doctest::Contains("not finite"),
                       mlt::DataError);
}

TEST_CASE("smo: shrinking on a problem where it shrinks: the same optimum to the stopping bound") {
  // 3000 samples, so variables leave the active set for long stretches (unlike the
  // fixtures, whose few hundred iterations barely shrink). Both answers are checked
  // against the KKT conditions, and their objectives are within δ ΣC / 2 of the
  // optimum, hence of each other.
  const Case c = large_case();
  SmoOptions o = options(1e-3);
  const SmoResult on = mlt::svm::solve_smo(c.kernel, c.X, c.y, c.C, o);
  o.shrinking = false;
  const SmoResult off = mlt::svm::solve_smo(c.kernel, c.X, c.y, c.C, o);
  CHECK(on.unshrinks > 0);
  CHECK(off.unshrinks == 0);
  check_kkt(c, on, 1e-3);
  check_kkt(c, off, 1e-3);
  CHECK(std::abs(on.objective - off.objective) <= 1e-3 * sum_C(c) / 2);
}

}  // namespace svm_smo_test
