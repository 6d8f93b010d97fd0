// mlt::Ridge against scikit-learn's Ridge (tests/fixtures/ridge, made by
// scripts/fixtures/ridge.py) and closed-form properties.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/log.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/ridge.hpp"
#include "test_util.hpp"

namespace ridge_test {

using namespace mlt;
using mlt::test::Warnings;

namespace {

const std::string kFixtures = std::string(MLT_SOURCE_DIR) + "/tests/fixtures/ridge/";

// data/diabetes.csv: 442 x 10 features and the target "progression" (last column).
struct Diabetes {
  arma::mat X;
  arma::vec y;
  arma::mat all;
};
const Diabetes& diabetes() {
  static const Diabetes d = [] {
    io::Table t = io::read_csv(std::string(MLT_SOURCE_DIR) + "/data/diabetes.csv", {}, {});
    Diabetes d;
    d.all = t.X;
    d.X = t.X.cols(0, 9);
    d.y = t.X.col(10);
    return d;
  }();
  return d;
}

// Reference: p rows of coefficients (one column per target), then the intercept row.
arma::mat reference(const std::string& name) {
  arma::mat m;
  REQUIRE(m.load(kFixtures + name + ".csv", arma::csv_ascii));
  return m;
}

// Every entry within `rel` of the reference, relative to the entry itself.
void check_close(const arma::mat& got, const arma::mat& want, double rel, const std::string& what) {
  REQUIRE(got.n_rows == want.n_rows);
  REQUIRE(got.n_cols == want.n_cols);
  for (arma::uword i = 0; i < want.n_elem; ++i) {
    INFO(what << " entry " << i << ": got " << got[i] << ", want " << want[i]);
    CHECK(std::abs(got[i] - want[i]) <= rel * std::abs(want[i]));
  }
}

}  // namespace

TEST_CASE("ridge: coefficients and intercept equal scikit-learn's Ridge on diabetes to 1e-8 relative") {
  const auto& d = diabetes();
  Warnings w;
  for (const std::string lam : {"0", "0.1", "10"}) {
    for (const bool standardize : {false, true}) {
      const arma::mat ref = reference("lambda" + lam + (standardize ? "_std" : "_raw"));
      for (const auto solver : {RidgeSolver::automatic, RidgeSolver::primal, RidgeSolver::dual, RidgeSolver::svd}) {
        Ridge::Params p;
        p.lambda = std::stod(lam);
        p.standardize = standardize;
        p.solver = solver;
        Ridge r(p);
        r.fit(d.X, d.y);
        const std::string what = "lambda " + lam + (standardize ? " std " : " raw ") + name_of(solver);
        check_close(r.coef(), ref.rows(0, 9), 1e-8, what + " coef");
        check_close(r.intercept(), ref.row(10), 1e-8, what + " intercept");
      }
    }
  }
}

TEST_CASE("ridge: no intercept and several targets equal scikit-learn") {
  const auto& d = diabetes();
  {
    Ridge::Params p;
    p.fit_intercept = false;
    Ridge r(p);
    r.fit(d.X, d.y);
    const arma::mat ref = reference("lambda1_nointercept");
    check_close(r.coef(), ref.rows(0, 9), 1e-8, "no intercept coef");
    CHECK(r.intercept()[0] == 0.0);
  }
  // Targets progression and s5 (column 8); features the other nine columns.
  const arma::mat X2 = arma::join_rows(d.all.cols(0, 7), d.all.col(9));
  const arma::mat Y2 = arma::join_rows(d.all.col(10), d.all.col(8));
  const arma::mat ref = reference("multi_lambda1");
  for (const auto solver : {RidgeSolver::primal, RidgeSolver::dual, RidgeSolver::svd}) {
    Ridge::Params p;
    p.solver = solver;
    Ridge r(p);
    r.fit(X2, Y2);
    check_close(r.coef(), ref.rows(0, 8), 1e-8, "multi coef " + name_of(solver));
    check_close(r.intercept(), ref.row(9), 1e-8, "multi intercept " + name_of(solver));
  }
}

TEST_CASE("ridge: lambda = 0 with a duplicated column gives the minimum-norm solution and a warning") {
  const auto& d = diabetes();
  // Column bmi twice: the least-squares solutions are those with w_a + w_b = w_bmi of
  // the fit without the copy; the minimum-norm one splits it equally.
  const arma::mat Xdup = arma::join_rows(d.X, d.X.col(2));
  Ridge::Params p;
  p.lambda = 0;
  for (const auto solver : {RidgeSolver::automatic, RidgeSolver::primal, RidgeSolver::dual, RidgeSolver::svd}) {
    p.solver = solver;
    Warnings w;
    Ridge r(p);
    r.fit(Xdup, d.y);
    CHECK(w.any("rank 10 < 11 features"));
    CHECK(r.coef().is_finite());
    CHECK(r.rank() == 10);
    const arma::mat ref = reference("lambda0_raw");
    CHECK(std::abs(r.coef()(2, 0) - r.coef()(10, 0)) <= 1e-8 * std::abs(ref(2, 0)));
    CHECK(std::abs(r.coef()(2, 0) + r.coef()(10, 0) - ref(2, 0)) <= 1e-8 * std::abs(ref(2, 0)));
    check_close(r.coef().rows(0, 1), ref.rows(0, 1), 1e-8, "other coefficients");
    check_close(r.intercept(), ref.row(10), 1e-8, "intercept");
    CHECK(r.condition() == std::numeric_limits<double>::infinity());
  }
}

TEST_CASE("ridge: more features than samples, the dual and primal and svd solvers agree") {
  // 15 samples of diabetes, features and their squares: p = 20 > n = 15.
  const auto& d = diabetes();
  const arma::mat Xs = d.X.rows(0, 14);
  const arma::mat X = arma::join_rows(Xs, arma::square(Xs) / 100.0);
  const arma::vec y = d.y.rows(0, 14);
  Ridge::Params p;
  p.lambda = 0.5;
  p.standardize = true;
  p.solver = RidgeSolver::svd;
  const Ridge ref = Ridge(p).fit(X, y);
  for (const auto solver : {RidgeSolver::automatic, RidgeSolver::primal, RidgeSolver::dual}) {
    p.solver = solver;
    Ridge r(p);
    r.fit(X, y);
    check_close(r.coef(), ref.coef(), 1e-9, "p > n " + name_of(solver));
    check_close(r.intercept(), ref.intercept(), 1e-9, "p > n intercept");
  }
  p.solver = RidgeSolver::automatic;
  CHECK(Ridge(p).fit(X, y).solver_used() == RidgeSolver::dual);
  // λ = 0 there: underdetermined, the minimum-norm interpolant fits exactly.
  p.lambda = 0;
  Warnings w;
  const Ridge ols = Ridge(p).fit(X, y);
  CHECK(w.any("fewer samples than features"));
  CHECK(arma::abs(ols.predict(X) - y).max() <= 1e-8 * arma::abs(y).max());
}

TEST_CASE("ridge: the condition estimate is reported and sensible") {
  const auto& d = diabetes();
  Ridge::Params p;
  p.lambda = 0;
  p.solver = RidgeSolver::svd;
  const Ridge svd = Ridge(p).fit(d.X, d.y);
  // numpy: cond(centred X) = 276.18645502590164 (printed by the fixture script).
  CHECK(svd.condition() == doctest::Approx(276.18645502590164 * 276.18645502590164).epsilon(1e-9));
  p.solver = RidgeSolver::primal;
  const Ridge chol = Ridge(p).fit(d.X, d.y);
  // LAPACK's 1-norm estimate is within a factor p of the 2-norm condition number.
  CHECK(chol.condition() >= svd.condition() / 10);
  CHECK(chol.condition() <= svd.condition() * 10 * 10);
}

TEST_CASE("ridge: save and load give identical predictions; errors") {
  const auto& d = diabetes();
  Ridge::Params p;
  p.lambda = 0.1;
  p.standardize = true;
  Ridge r(p);
  r.fit(d.X, d.y);
  io::ModelWriter w(Ridge::kind);
  r.save(w);
  const Ridge back = Ridge::load(io::ModelReader::parse(w.bytes(), "test"));
  CHECK(arma::approx_equal(back.predict(d.X), r.predict(d.X), "absdiff", 0.0));
  CHECK(back.solver_used() == r.solver_used());

  p.lambda = -1;
  CHECK_THROWS_AS(Ridge(p).fit(d.X, d.y), UsageError);
  p.lambda = 1;
  CHECK_THROWS_AS(Ridge(p).fit(d.X, d.y.head(10)), DataError);
  CHECK_THROWS_AS(r.predict(d.X.cols(0, 8)), DataError);
  arma::vec bad = d.y;
  bad[3] = arma::datum::nan;
  CHECK_THROWS_AS(Ridge(p).fit(d.X, bad), DataError);
}

TEST_CASE("ridge: a single sample and a constant column give finite coefficients") {
  Ridge::Params p;
  p.lambda = 0;
  Warnings w;
  const arma::mat X1 = {{1.0, 2.0}};
  const Ridge one = Ridge(p).fit(X1, arma::vec{3.0});
  CHECK(one.coef().is_finite());
  CHECK(one.predict(X1)(0, 0) == doctest::Approx(3.0));
  arma::mat X = arma::join_rows(diabetes().X.col(0), arma::ones(442, 1));
  p.standardize = true;
  const Ridge c = Ridge(p).fit(X, diabetes().y);
  CHECK(c.coef().is_finite());
  CHECK(std::abs(c.coef()(1, 0)) <= 1e-12);
}

}  // namespace ridge_test
