// The kernel smoother against a plain NumPy transcription of the notes' formula
// (fixtures made by scripts/fixtures/smoother.py), its leave-one-out closed form
// against refits, and the empty-window rule.
#include "mlt/smoother.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mlt/io/csv.hpp"
#include "mlt/io/model_file.hpp"
#include "test_util.hpp"

namespace smoother_test {

namespace {

using mlt::test::rows_of;

arma::mat every_other_row(const arma::mat& X, arma::uword first) {
  return X.rows(arma::regspace<arma::uvec>(first, 2, X.n_rows - 1));
}

// max |a - b| / max(1, |b|) entrywise: relative for the diabetes targets (25 to 346),
// absolute for probabilities.
double rel_error(const arma::mat& a, const arma::mat& b) {
  const arma::mat scale = arma::clamp(arma::abs(b), 1.0, arma::datum::inf);
  return arma::mat(arma::abs(a - b) / scale).max();
}

struct Case {
  arma::mat train, test;
  arma::mat Y;       // regression targets of the training rows
  mlt::Labels y;     // classes of the training rows
  std::size_t n_classes = 0;
  mlt::SmootherParams params;
  nlohmann::json ref;
};

Case load_case(const std::string& name) {
  Case c;
  std::ifstream in(mlt::test::fixture_path("tests/fixtures/smoother/" + name + ".json"));
  c.ref = nlohmann::json::parse(in);
  const std::string target = c.ref["target"];
  mlt::io::ColumnSelection sel;
  sel.text = {target};
  const auto data = mlt::io::read_csv(mlt::test::fixture_path(c.ref["file"]), {}, sel);
  c.train = every_other_row(data.X, 0);
  c.test = every_other_row(data.X, 1);
  c.params.bandwidth = c.ref["bandwidth"];
  c.params.window = mlt::parse_name<mlt::SmootherWindow>(c.ref["window"].get<std::string>());
  c.params.standardize = c.ref["standardize"];
  c.params.classification = c.ref["classification"];
  const std::vector<std::string>& cells = data.text_column(target).values;
  if (c.params.classification) {
    // The fixture's classes are the sorted label names.
    const auto classes = c.ref["classes"].get<std::vector<std::string>>();
    c.n_classes = classes.size();
    c.y.set_size((cells.size() + 1) / 2);
    for (std::size_t i = 0; i < cells.size(); i += 2)
      c.y[i / 2] = std::find(classes.begin(), classes.end(), cells[i]) - classes.begin();
  } else {
    c.Y.set_size((cells.size() + 1) / 2, 1);
    for (std::size_t i = 0; i < cells.size(); i += 2) c.Y(i / 2, 0) = std::stod(cells[i]);
  }
  return c;
}

mlt::Smoother fitted(const Case& c) {
  mlt::Smoother s(c.params);
  if (c.params.classification)
    s.fit(c.train, c.y, c.n_classes);
  else
    s.fit(c.train, c.Y);
  return s;
}

const char* const kCases[] = {"diabetes_gaussian", "diabetes_box",     "diabetes_epanechnikov",
                              "iris_epanechnikov", "iris_box_raw",     "iris_gaussian_raw"};

}  // namespace

// Tolerance 1e-12: both sides sum the same nonnegative weights (≤ 221 terms) in a
// different association (NumPy's pairwise sum of a distance's squares, ours in order),
// so each weight differs by a few ulps times ‖z‖² ≤ 30 where it matters, and the ratio
// of two sums of nonnegative terms inherits that relative error: ≲ 221 · 30 · 2.2e-16
// ≈ 1.5e-12 in the worst case, ~1e-14 in practice. The empty-window counts are exact.
TEST_CASE("the smoother equals the NumPy transcription of the notes' formula (1e-12), every window and task") {
  for (const char* name : kCases) {
    CAPTURE(name);
    const Case c = load_case(name);
    const mlt::Smoother s = fitted(c);
    std::size_t n_empty = 99;
    const arma::mat P = s.predict_values(c.test, &n_empty);
    CHECK(rel_error(P, rows_of(c.ref["predictions"])) < 1e-12);
    CHECK(n_empty == c.ref["n_empty"].get<std::size_t>());
    std::size_t loo_empty = 99;
    const arma::mat L = s.loo_predict(c.params.bandwidth, c.params.window, &loo_empty);
    CHECK(rel_error(L, rows_of(c.ref["loo_predictions"])) < 1e-12);
    CHECK(loo_empty == c.ref["loo_n_empty"].get<std::size_t>());
    if (c.params.classification) {
      CHECK(arma::approx_equal(arma::sum(P, 1), arma::ones(P.n_rows), "absdiff", 1e-12));
      CHECK(arma::all(s.predict(c.test) == mlt::Smoother::classes_of(P)));
    }
  }
}

// The closed form omits row i's term from both sums; a refit without row i sums the
// same terms in the same order (and, for an empty window, averages the same targets in
// the same order), so the two are equal to the bit. Without standardization only: a
// refit would standardize with the other rows' statistics.
TEST_CASE("leave-one-out in closed form equals refitting without each row, exactly") {
  for (const char* name : {"diabetes_box", "diabetes_gaussian", "iris_box_raw", "iris_epanechnikov"}) {
    CAPTURE(name);
    Case c = load_case(name);
    c.params.standardize = false;
    c.params.bandwidth *= c.train.max() > 10 ? 10 : 1;  // raw diabetes: a wider window than standardized
    const mlt::Smoother all = fitted(c);
    for (auto window : {mlt::SmootherWindow::box, mlt::SmootherWindow::epanechnikov, mlt::SmootherWindow::gaussian}) {
      CAPTURE(mlt::name_of(window));
      std::size_t closed_empty = 0;
      const arma::mat L = all.loo_predict(c.params.bandwidth, window, &closed_empty);
      std::size_t refit_empty = 0;
      for (arma::uword i = 0; i < c.train.n_rows; ++i) {
        arma::uvec rest = arma::regspace<arma::uvec>(0, c.train.n_rows - 1);
        rest.shed_row(i);
        mlt::SmootherParams p = c.params;
        p.window = window;
        mlt::Smoother s(p);
        if (p.classification)
          s.fit(c.train.rows(rest), mlt::Labels(c.y.elem(rest)), c.n_classes);
        else
          s.fit(c.train.rows(rest), c.Y.rows(rest));
        std::size_t e = 0;
        const arma::mat one = s.predict_values(c.train.rows(i, i), &e);
        refit_empty += e;
        CHECK(arma::approx_equal(one, L.rows(i, i), "absdiff", 0.0));
      }
      CHECK(closed_empty == refit_empty);
    }
  }
}

TEST_CASE("the smoother: the windows as the notes define them, on one dimension") {
  // Training points 0, 1, 3 with targets 10, 20, 40; h = 2; a query at 0.5:
  // ‖z‖ = 0.25, 0.25, 1.25.
  const arma::mat X = arma::vec{0.0, 1.0, 3.0};
  const arma::mat Y = arma::vec{10.0, 20.0, 40.0};
  const arma::mat q(1, 1, arma::fill::value(0.5));
  mlt::SmootherParams p;
  p.bandwidth = 2;
  p.window = mlt::SmootherWindow::box;
  CHECK(mlt::Smoother(p).fit(X, Y).predict_values(q)(0, 0) == doctest::Approx(15.0).epsilon(1e-15));
  // Epanechnikov, the notes' (1 - ‖z‖): weights 0.75, 0.75, 0.
  p.window = mlt::SmootherWindow::epanechnikov;
  CHECK(mlt::Smoother(p).fit(X, Y).predict_values(q)(0, 0) == doctest::Approx(15.0).epsilon(1e-15));
  // A query at 2.5: ‖z‖ = 1.25, 0.75, 0.25 -> weights 0, 0.25, 0.75: (5 + 30) / 1.
  CHECK(mlt::Smoother(p).fit(X, Y).predict_values(arma::mat(1, 1, arma::fill::value(2.5)))(0, 0) == doctest::Approx(35.0).epsilon(1e-15));
  // Gaussian exp(-‖z‖²): weights e^-1/16, e^-1/16, e^-25/16.
  p.window = mlt::SmootherWindow::gaussian;
  const double a = std::exp(-1.0 / 16), b = std::exp(-25.0 / 16);
  CHECK(mlt::Smoother(p).fit(X, Y).predict_values(q)(0, 0) ==
        doctest::Approx((10 * a + 20 * a + 40 * b) / (2 * a + b)).epsilon(1e-14));
}

TEST_CASE("an empty window predicts the training mean, and is counted; far queries never give NaN") {
  const arma::mat X = {{0.0, 0.0}, {1.0, 0.0}, {0.0, 1.0}, {5.0, 5.0}};
  const arma::mat Y = {{1.0, -1.0}, {2.0, -2.0}, {3.0, -3.0}, {10.0, -10.0}};
  const arma::mat Q = {{0.2, 0.1}, {100.0, 100.0}, {5.1, 5.0}};
  for (auto window : {mlt::SmootherWindow::box, mlt::SmootherWindow::epanechnikov}) {
    mlt::SmootherParams p;
    p.bandwidth = 0.5;
    p.window = window;
    mlt::Smoother s(p);
    s.fit(X, Y);
    std::size_t n_empty = 0;
    const arma::mat P = s.predict_values(Q, &n_empty);
    CHECK(n_empty == 1);
    CHECK(P(1, 0) == 4.0);  // (1 + 2 + 3 + 10) / 4
    CHECK(P(1, 1) == -4.0);
    CHECK(P(0, 0) == 1.0);  // only (0, 0) within 0.5
    CHECK(P(2, 0) == 10.0);
  }
  // Gaussian: 141 h from the data, exp(-‖z‖²) underflows to 0 for every row; relative
  // to the nearest row the weights stay finite and the nearest row (5, 5) dominates.
  mlt::SmootherParams g;
  g.bandwidth = 1;
  mlt::Smoother s(g);
  s.fit(X, Y);
  std::size_t n_empty = 7;
  const arma::mat P = s.predict_values(arma::mat{{100.0, 100.0}}, &n_empty);
  CHECK(n_empty == 0);
  CHECK(P.is_finite());
  CHECK(P(0, 0) == doctest::Approx(10.0).epsilon(1e-15));
}

TEST_CASE("the smoother refuses what it cannot do, with messages naming parameters") {
  const arma::mat X = mlt::test::random_mat(10, 2, 1);
  const arma::mat Y = X.col(0);
  mlt::SmootherParams p;
  p.bandwidth = 0;
  CHECK(mlt::test::error_message([&] { mlt::Smoother(p).fit(X, Y); }, mlt::kExitUsage) ==
        "bandwidth must be a finite number > 0");
  p.bandwidth = 1;
  CHECK(mlt::test::error_message([&] { mlt::Smoother(p).fit(X, mlt::Labels(10, arma::fill::zeros)); },
                                 mlt::kExitUsage) == "class labels need classification");
  mlt::Smoother one(p);
  one.fit(X.rows(0, 0), Y.rows(0, 0));
  CHECK(mlt::test::error_message([&] { one.loo_predict(1, mlt::SmootherWindow::box); }, mlt::kExitDataError) ==
        "leave-one-out needs at least 2 training rows");
}

TEST_CASE("smoother models: save and load give the same predictions; the regressor form") {
  const Case c = load_case("iris_epanechnikov");
  const mlt::Smoother s = fitted(c);
  mlt::io::ModelWriter w(mlt::Smoother::kind);
  s.save(w);
  const mlt::Smoother loaded = mlt::Smoother::load(mlt::io::ModelReader::parse(w.bytes(), "m"));
  CHECK(arma::approx_equal(loaded.predict_proba(c.test), s.predict_proba(c.test), "absdiff", 0.0));
  CHECK(arma::approx_equal(loaded.target_mean(), s.target_mean(), "absdiff", 0.0));

  const Case r = load_case("diabetes_gaussian");
  mlt::SmootherRegressor reg(r.params);
  reg.fit(r.train, r.Y);
  CHECK(arma::approx_equal(reg.predict(r.test), fitted(r).predict_values(r.test), "absdiff", 0.0));
}

}  // namespace smoother_test
