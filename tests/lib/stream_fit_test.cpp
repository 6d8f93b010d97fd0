// Streaming fits (Ridge::fit_stream, Pca::fit_stream) and the scatter they hold
// (ScatterAccumulator): against scikit-learn (the fixtures of ridge_test and
// pca_test, made by scripts/fixtures/ridge.py and pca.py), against a plain two-pass
// scatter in long double, and against the in-memory fit to a tolerance derived from
// the summation orders.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "mlt/core/error.hpp"
#include "mlt/core/scatter.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/pca.hpp"
#include "mlt/ridge.hpp"
#include "ranks_in_threads.hpp"
#include "row_passes.hpp"
#include "test_util.hpp"

namespace stream_fit_test {

using namespace mlt;

namespace {

using mlt::test::rows_of;
using mlt::test::vector_of;

constexpr double kEps = std::numeric_limits<double>::epsilon();

const arma::mat& diabetes() {
  static const arma::mat all = io::read_csv(test::fixture_path("data/diabetes.csv"), {}, {}).X;
  return all;
}

arma::mat ridge_reference(const std::string& name) {
  arma::mat m;
  REQUIRE(m.load(test::fixture_path("tests/fixtures/ridge/" + name + ".csv"), arma::csv_ascii));
  return m;
}

// max |a - b| / max |b|.
double rel(const arma::mat& a, const arma::mat& b) { return arma::abs(a - b).max() / arma::abs(b).max(); }

}  // namespace

TEST_CASE("scatter: Chan's merge keeps the digits that XᵀX − n x̄ᵀx̄ loses (mean 1e9, spread 1)") {
  arma::mat X = test::random_mat(1000, 3, 7);
  X.col(0) += 1e9;
  X.col(1) = X.col(1) * 1e-3 - 5e6;
  // Reference: two passes in long double on the same doubles.
  const arma::uword n = X.n_rows, p = X.n_cols;
  std::vector<long double> mean(p, 0.0L);
  for (arma::uword j = 0; j < p; ++j) {
    for (arma::uword i = 0; i < n; ++i) mean[j] += X(i, j);
    mean[j] /= n;
  }
  arma::mat want(p, p);
  for (arma::uword j = 0; j < p; ++j)
    for (arma::uword k = 0; k < p; ++k) {
      long double s = 0;
      for (arma::uword i = 0; i < n; ++i) s += (X(i, j) - mean[j]) * (X(i, k) - mean[k]);
      want(j, k) = static_cast<double>(s);
    }
  for (arma::uword rows : {1u, 13u, 100u, 1000u}) {
    CAPTURE(rows);
    ScatterAccumulator acc(p);
    for (arma::uword r = 0; r < n; r += rows) acc.add(X.rows(r, std::min(n, r + rows) - 1));
    CHECK(acc.n() == n);
    const arma::mat S = acc.scatter();
    // A deviation x − x̄ computed in double is off by about ε|x̄| (the rounding of x̄
    // and of the subtraction), 1.1e-7 for column 0 against a spread of 1.15, so a
    // product of two is off by ~2e-7 relative to sqrt(Sⱼⱼ Sₖₖ); 1e-6 leaves room
    // for the summation (n ε = 2e-13).
    for (arma::uword j = 0; j < p; ++j)
      for (arma::uword k = 0; k < p; ++k) {
        CAPTURE(j);
        CAPTURE(k);
        CHECK(std::abs(S(j, k) - want(j, k)) <= 1e-6 * std::sqrt(want(j, j) * want(k, k)));
      }
    // Each merge moves the mean by δ m / n', rounded to ε of the larger of the two:
    // a few ε of the column's largest |x| in all.
    for (arma::uword j = 0; j < p; ++j)
      CHECK(std::abs(acc.mean()[j] - static_cast<double>(mean[j])) <= 4 * kEps * arma::abs(X.col(j)).max());
  }
  // The textbook formula on the same data: every digit of column 0's variance gone.
  const arma::rowvec m = arma::mean(X, 0);
  const arma::mat raw = X.t() * X - static_cast<double>(n) * (m.t() * m);
  CHECK(std::abs(raw(0, 0) - want(0, 0)) > 0.5 * want(0, 0));
}

TEST_CASE("scatter: merge of two accumulators equals one over all the rows") {
  const arma::mat X = test::random_mat(300, 4, 3);
  ScatterAccumulator a(4), b(4), all(4);
  a.add(X.rows(0, 99));
  b.add(X.rows(100, 299));
  all.add(X);
  a.merge(b);
  CHECK(a.n() == 300);
  // Entries are sums of 300 products of numbers in [-2, 2]: two orders differ by at
  // most 2 · 300 ε · Σ|products| <= 2 · 300 ε · 300 · 4 = 1.6e-10.
  CHECK(arma::abs(a.scatter() - all.scatter()).max() <= 1.6e-10);
  CHECK(arma::abs(a.mean() - all.mean()).max() <= 1e-15);
}

TEST_CASE("ridge streamed equals scikit-learn's Ridge on diabetes (1e-8 relative), in chunks of 37 rows") {
  const arma::mat& d = diabetes();
  const arma::mat X = d.cols(0, 9), y = d.col(10);
  for (const std::string lam : {"0", "0.1", "10"}) {
    for (const bool standardize : {false, true}) {
      const arma::mat ref = ridge_reference("lambda" + lam + (standardize ? "_std" : "_raw"));
      Ridge::Params p;
      p.lambda = std::stod(lam);
      p.standardize = standardize;
      Ridge r(p);
      r.fit_stream(test::passes_of(X, y, 37));
      CAPTURE(lam);
      CAPTURE(standardize);
      CHECK(rel(r.coef(), ref.rows(0, 9)) < 1e-8);
      CHECK(std::abs(r.intercept()[0] - ref(10, 0)) < 1e-8 * std::abs(ref(10, 0)));
      CHECK(r.solver_used() == RidgeSolver::primal);
      // Against the in-memory fit: the two Gram matrices are sums of the same 442
      // products in different orders, ‖ΔG‖ <= 2 n ε ‖G‖ (core/scatter.hpp), and
      // a perturbation of relative size δ moves the solution by at most κ δ / (1 − κ δ)
      // relative (κ the condition number of G + λI, which the fit reports): so
      // 4 n ε κ bounds the difference.
      Ridge m(p);
      m.fit(X, y);
      const double bound = 4 * 442 * kEps * m.condition();
      CAPTURE(bound);
      CHECK(rel(r.coef(), m.coef()) <= bound);
      CHECK(std::abs(r.intercept()[0] - m.intercept()[0]) <= bound * std::abs(m.intercept()[0]) + bound * arma::abs(m.coef()).max() * arma::abs(X).max());
    }
  }
}

TEST_CASE("Ridge::fit_stream over 3 ranks: each rank's rows, merged in rank order; the in-memory model to 4 n ε κ") {
  // Ranks as threads (ranks_in_threads.hpp): rank r holds rows [r n/3, (r+1) n/3). The
  // merged scatter is the same 442 products summed in another order: the bound of the
  // single-process stream above holds, and every rank ends with the same bits.
  const arma::mat& d = diabetes();
  const arma::mat X = d.cols(0, 9), y = d.col(10);
  RidgeParams p;
  p.lambda = 0.1;
  Ridge memory(p);
  memory.fit(X, y);
  std::vector<arma::vec> coefs(3);
  test::run_ranks(3, [&](const Communicator& comm) {
    const arma::uword n = X.n_rows, r = static_cast<arma::uword>(comm.rank());
    const arma::uword begin = r * n / 3, end = (r + 1) * n / 3;
    const arma::mat Xr = X.rows(begin, end - 1), yr = y.rows(begin, end - 1);
    Ridge part(p);
    part.fit_stream(test::passes_of(Xr, yr, 25), comm);
    coefs[r] = part.coef().col(0);
  });
  const double bound = 4 * 442 * kEps * memory.condition();
  CHECK(rel(coefs[0], memory.coef()) <= bound);
  CHECK(arma::all(coefs[1] == coefs[0]));
  CHECK(arma::all(coefs[2] == coefs[0]));
}

TEST_CASE("ridge streamed: no intercept and several targets equal scikit-learn") {
  const arma::mat& d = diabetes();
  {
    Ridge::Params p;
    p.fit_intercept = false;
    Ridge r(p);
    r.fit_stream(test::passes_of(d.cols(0, 9), d.col(10), 50));
    CHECK(rel(r.coef(), ridge_reference("lambda1_nointercept").rows(0, 9)) < 1e-8);
    CHECK(r.intercept()[0] == 0.0);
  }
  const arma::mat X2 = arma::join_rows(d.cols(0, 7), d.col(9));
  const arma::mat Y2 = arma::join_rows(d.col(10), d.col(8));
  const arma::mat ref = ridge_reference("multi_lambda1");
  Ridge r;
  r.fit_stream(test::passes_of(X2, Y2, 1));  // a chunk a row: n merges
  CHECK(rel(r.coef(), ref.rows(0, 8)) < 1e-8);
  CHECK(rel(r.intercept(), ref.row(9)) < 1e-8);
}

TEST_CASE("ridge streamed: lambda = 0 on collinear columns gives the minimum-norm solution with a warning") {
  const arma::mat& d = diabetes();
  const arma::mat X = arma::join_rows(d.cols(0, 9), d.col(2));  // bmi twice
  Ridge::Params p;
  p.lambda = 0;
  test::Warnings w;
  Ridge r(p);
  r.fit_stream(test::passes_of(X, d.col(10), 100));
  CHECK(w.any("minimum-norm"));
  // The minimum-norm solution splits bmi's coefficient evenly over the two copies;
  // their sum is least squares' coefficient without the copy (scikit-learn's, from
  // the lambda0_raw fixture). Through XᵀX the system's condition is squared (about
  // 1e5 here): 1e-6 relative.
  const arma::mat ref = ridge_reference("lambda0_raw");
  CHECK(std::abs(r.coef()(2, 0) - r.coef()(10, 0)) <= 1e-6 * std::abs(ref(2, 0)));
  CHECK(std::abs(r.coef()(2, 0) + r.coef()(10, 0) - ref(2, 0)) <= 1e-6 * std::abs(ref(2, 0)));
  CHECK(r.coef().is_finite());
}

TEST_CASE("ridge streamed: refusals") {
  Ridge::Params p;
  p.solver = RidgeSolver::dual;
  const arma::mat X = test::random_mat(10, 2, 1), y = test::random_mat(10, 1, 2);
  CHECK(test::error_message([&] { Ridge(p).fit_stream(test::passes_of(X, y, 3)); }, kExitUsage).find("solver dual") == 0);
  const arma::mat none;
  CHECK(test::error_message([&] { Ridge().fit_stream(test::passes_of(none, none, 3)); }, kExitDataError) ==
        "0 samples, need at least 1");
}

TEST_CASE("pca streamed equals scikit-learn (1e-8 on the leading axes) and the in-memory covariance fit") {
  for (const char* name : {"iris", "iris_std_whiten", "wine_std", "diabetes"}) {
    CAPTURE(name);
    std::ifstream in(test::fixture_path(std::string("tests/fixtures/pca/") + name + ".json"));
    const auto ref = nlohmann::json::parse(in);
    io::ColumnSelection sel;
    sel.ignore = {ref["ignore"].get<std::string>()};
    const arma::mat X = io::read_csv(test::fixture_path(ref["file"]), {}, sel).X;
    PcaParams p;
    p.n_components = ref["n_components"];
    p.standardize = ref["standardize"];
    p.whiten = ref["whiten"];
    Pca s(p);
    s.fit_stream(test::passes_of(X, arma::mat(), 16));
    arma::mat axes = s.components();
    const arma::mat want_axes = rows_of(ref["components"]);
    for (arma::uword k = 0; k < axes.n_rows; ++k)
      if (arma::dot(axes.row(k), want_axes.row(k)) < 0) axes.row(k) *= -1;
    // As pca_test's covariance solver: the axes carrying 99.99% of the variance.
    const arma::vec cum = arma::cumsum(vector_of(ref["explained_variance_ratio"]));
    arma::uword check_k = 1;
    while (check_k < axes.n_rows && cum[check_k - 1] < 0.9999) ++check_k;
    CHECK(rel(axes.rows(0, check_k - 1), want_axes.rows(0, check_k - 1)) < 1e-8);
    CHECK(arma::approx_equal(s.explained_variance(), vector_of(ref["explained_variance"]), "reldiff", 1e-8));
    CHECK(arma::approx_equal(s.explained_variance_ratio(), vector_of(ref["explained_variance_ratio"]), "reldiff", 1e-8));

    // Against the in-memory fit with the same solver. The two scatters differ by
    // ‖ΔS‖₂ <= ‖ΔS‖_F <= 2 n ε Σⱼₖ sqrt(Sⱼⱼ Sₖₖ) = 2 n ε (Σⱼ sqrt(Sⱼⱼ))² =: δ
    // (core/scatter.hpp). Weyl: each eigenvalue moves by at most δ, so each variance
    // by δ / (n − 1); Davis–Kahan: each axis by at most 2 δ / gap, gap its distance to
    // the nearest other eigenvalue.
    p.solver = PcaSolver::covariance;
    Pca m(p);
    m.fit(X);
    const double n = static_cast<double>(X.n_rows);
    const arma::rowvec col_sd = p.standardize ? arma::rowvec(X.n_cols, arma::fill::ones) * std::sqrt(n)
                                              : arma::rowvec(arma::sqrt(arma::var(X, 1, 0) * n));
    const double delta = 2 * n * kEps * std::pow(arma::accu(col_sd), 2);
    CHECK(arma::abs(s.explained_variance() - m.explained_variance()).max() <= delta / (n - 1));
    const arma::vec ev = arma::square(m.singular_values());
    for (arma::uword k = 0; k < m.n_components(); ++k) {
      double gap = arma::datum::inf;
      for (arma::uword l = 0; l < ev.n_elem; ++l)
        if (l != k) gap = std::min(gap, std::abs(ev[k] - ev[l]));
      if (k + 1 == ev.n_elem && ev.n_elem < X.n_cols) gap = std::min(gap, ev[k]);  // the next, unkept, is >= 0
      CAPTURE(k);
      CHECK(arma::abs(s.components().row(k) - m.components().row(k)).max() <= 2 * delta / gap);
    }
    CHECK(arma::abs(s.mean() - m.mean()).max() <= 4 * n * kEps * arma::abs(X).max());
  }
}

TEST_CASE("pca streamed: refusals") {
  const arma::mat X = test::random_mat(10, 3, 1);
  PcaParams p;
  p.solver = PcaSolver::svd;
  CHECK(test::error_message([&] { Pca(p).fit_stream(test::passes_of(X, arma::mat(), 4)); }, kExitUsage).find("solver svd") == 0);
  PcaParams k;
  k.kernelized = true;
  CHECK(test::error_message([&] { Pca(k).fit_stream(test::passes_of(X, arma::mat(), 4)); }, kExitUsage).find("kernel PCA") == 0);
  PcaParams big;
  big.n_components = 4;
  CHECK(test::error_message([&] { Pca(big).fit_stream(test::passes_of(X, arma::mat(), 4)); }, kExitDataError).find("n_components=4") == 0);
}

}  // namespace stream_fit_test
