// The SVM's probabilities: Platt's sigmoid and pairwise coupling (lib/mlt/svm/platt.hpp)
// against tests/fixtures/svm_platt/ (made by scripts/fixtures/svm_platt.py), then the
// estimator's `probability` (lib/mlt/svm.hpp).
//
// Tolerances.
//  - Sigmoid: the fixture's "tight" (A, B) minimizes the same strictly convex
//    objective to |g| / λ_min(H) <= 1e-11 relative (its "tight_error"); mlt stops when
//    Newton's step is below 1e-12 relative, after which the error is of the order of
//    that step squared plus the rounding of the gradient's sums divided by the
//    curvature. 1e-8 relative (absolute below 1) leaves orders of room for other
//    summation orders; measured when written: within 1.5e-15 relative of the tight
//    values, in 4 to 7 Newton steps. scikit-learn's BFGS stops at gtol = 1e-5 on
//    the gradient; the fixture's "sklearn_tol" bounds its distance from the optimum
//    through the Hessian (see the script), and mlt must be within it of sklearn's.
//  - Coupling: the fixture solves the KKT system directly; mlt iterates (LIBSVM's
//    method) until every |(Qp)_a − pᵀQp| < max(1e-13, 1e-15 K²) = 1e-13 for these
//    K <= 8. That residual is the gradient of pᵀQp/2 on the simplex's tangent space,
//    where Q is positive definite, so p is within about √K 1e-13 / λ_min of the
//    optimum, λ_min the smallest eigenvalue of Q there (0.33 to 1.4 on these r,
//    computed with NumPy when the fixture was made): below 1e-12, so 1e-9 is safe
//    (measured: 6.2e-14 at most, in 6 to 13 sweeps).
//  - Rows of predict_proba sum to 1 up to the rounding of p / Σp summed again: at most
//    K ulps of 1 (K roundings of at most half an ulp each, plus the division's).
#include "mlt/svm/platt.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mlt/core/error.hpp"
#include "mlt/cv/folds.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/svm.hpp"
#include "../test_util.hpp"

namespace svm_platt_test {

namespace {

using mlt::test::fixture_path;

const nlohmann::json& platt_reference() {
  static const nlohmann::json j = [] {
    std::ifstream f(fixture_path("tests/fixtures/svm_platt/reference.json"));
    return nlohmann::json::parse(f);
  }();
  return j;
}

bool close(double got, double want, double rel) { return std::abs(got - want) <= rel * std::max(1.0, std::abs(want)); }

struct Data {
  arma::mat X;
  mlt::Labels y;
};

Data read_svm_data(const std::string& name) {
  mlt::io::CsvOptions o;
  const auto t = mlt::io::read_csv(fixture_path("tests/fixtures/svm/" + name + ".csv"), o, {});
  return {t.X.cols(0, t.X.n_cols - 2), arma::conv_to<mlt::Labels>::from(t.X.col(t.X.n_cols - 1))};
}

std::string saved(const mlt::Svm& m) {
  mlt::io::ModelWriter w(mlt::Svm::kind);
  m.save(w);
  return w.bytes();
}

void check_rows(const arma::mat& P, std::size_t K) {
  REQUIRE(P.n_cols == K);
  CHECK(P.is_finite());
  CHECK(P.min() >= 0.0);
  CHECK(P.max() <= 1.0);
  const double ulp = std::nextafter(1.0, 2.0) - 1.0;
  CHECK(arma::abs(arma::sum(P, 1) - 1.0).max() <= double(K) * ulp);
}

}  // namespace

TEST_CASE("svm platt: the sigmoid equals the tight minimizer to 1e-8 and scikit-learn's within its tolerance") {
  for (const auto& c : platt_reference()["sigmoid"]) {
    const std::string name = c["name"];
    CAPTURE(name);
    const arma::vec f(c["f"].get<std::vector<double>>());
    std::vector<char> positive;
    for (int y : c["y"].get<std::vector<int>>()) positive.push_back(y > 0);
    const mlt::svm::PlattSigmoid s = mlt::svm::fit_sigmoid(f, positive);
    CHECK(s.converged);
    CHECK(s.iterations < 100);
    REQUIRE(c["tight_error"].get<double>() <= 1e-11);
    CHECK(close(s.a, c["tight"]["a"], 1e-8));
    CHECK(close(s.b, c["tight"]["b"], 1e-8));
    const double tol = c["sklearn_tol"];
    CHECK(std::abs(s.a - c["sklearn"]["a"].get<double>()) <= tol);
    CHECK(std::abs(s.b - c["sklearn"]["b"].get<double>()) <= tol);
  }
}

TEST_CASE("svm platt: sigmoid_predict and its logarithm are finite and in range at any argument") {
  for (double z : {-1e308, -800.0, -40.0, -1.0, 0.0, 1.0, 40.0, 800.0, 1e308}) {
    CAPTURE(z);
    const double p = mlt::svm::sigmoid_predict(z, 1.0, 0.0), l = mlt::svm::log_sigmoid_predict(z, 1.0, 0.0);
    CHECK(p >= 0.0);
    CHECK(p <= 1.0);
    CHECK(std::isfinite(l));
    CHECK(l <= 0.0);
    // exp(l) is p where p does not underflow (z <= 700): both are 1/(1 + e^z).
    if (z <= 700) CHECK(std::exp(l) == doctest::Approx(p).epsilon(1e-15));
  }
  CHECK(mlt::svm::sigmoid_predict(0.0, 3.0, 0.0) == 0.5);
}

TEST_CASE("svm platt: pairwise coupling equals the KKT solution to 1e-9") {
  for (const auto& c : platt_reference()["coupling"]) {
    const std::string name = c["name"];
    CAPTURE(name);
    const auto rows = c["r"].get<std::vector<std::vector<double>>>();
    const arma::uword K = rows.size();
    arma::mat r(K, K);
    for (arma::uword a = 0; a < K; ++a)
      for (arma::uword b = 0; b < K; ++b) r(a, b) = rows[a][b];
    std::size_t sweeps = 0;
    const arma::vec p = mlt::svm::couple_pairwise(r, &sweeps);
    CAPTURE(sweeps);
    CHECK(sweeps < std::max<std::size_t>(1000, 100 * K));  // stopped on the residual
    const arma::vec want(c["p"].get<std::vector<double>>());
    CHECK(arma::abs(p - want).max() <= 1e-9);
    if (c.contains("exact")) CHECK(arma::abs(p - arma::vec(c["exact"].get<std::vector<double>>())).max() <= 1e-9);
    CHECK(std::abs(arma::accu(p) - 1.0) <= double(K) * 2.3e-16);
  }
}

TEST_CASE("svm probability: the sigmoid is fitted on out-of-fold decision values of stratified 5-fold CV") {
  // Binary linear (standardized breast cancer, 569 rows): the stored (A, B) equal the
  // sigmoid fitted here on decision values from the same folds, the folds of
  // cv::stratified_kfold with the model's seed, computed without the estimator's
  // `probability` code.
  const Data d = read_svm_data("cancer_std");
  mlt::SvmParams p;
  p.lambda = 0.1;
  p.probability = true;
  p.seed = 7;
  mlt::Svm m(p);
  m.fit(d.X, d.y);
  REQUIRE(m.has_probability());
  REQUIRE(m.sigmoid().n_rows == 1);

  mlt::SvmParams plain = p;
  plain.probability = false;
  const mlt::cv::Folds folds = mlt::cv::stratified_kfold(d.y, 5, 7);
  arma::vec f(d.X.n_rows);
  for (std::size_t s = 0; s < folds.n_splits(); ++s) {
    const mlt::cv::Split sp = folds.split(s);
    const arma::uvec train = sp.train();
    mlt::Svm fold(plain);
    fold.fit(d.X.rows(train), d.y.elem(train), 2);
    f.elem(sp.test) = fold.decision_function(d.X.rows(sp.test));
  }
  std::vector<char> positive(d.y.begin(), d.y.end());
  const mlt::svm::PlattSigmoid s = mlt::svm::fit_sigmoid(f, positive);
  CHECK(m.sigmoid()(0, 0) == s.a);
  CHECK(m.sigmoid()(0, 1) == s.b);
  CHECK(s.a < 0);  // larger decision values, more likely class 1

  // predict_proba: class 1's sigmoid of the decision value, class 0 the rest.
  const arma::mat P = m.predict_proba(d.X);
  check_rows(P, 2);
  const arma::vec F = m.decision_function(d.X);
  for (arma::uword i = 0; i < F.n_elem; ++i) {
    CHECK(P(i, 1) == mlt::svm::sigmoid_predict(F[i], s.a, s.b));
    CHECK(P(i, 0) == 1.0 - P(i, 1));
  }
  // The model itself does not change with `probability`.
  mlt::Svm m0(plain);
  m0.fit(d.X, d.y);
  CHECK(arma::approx_equal(m0.decision_function(d.X), F, "absdiff", 0.0));
  CHECK_FALSE(m0.has_probability());
  CHECK_THROWS_AS(m0.predict_proba(d.X), mlt::UsageError);
}

TEST_CASE("svm probability: kernel one-vs-one and linear one-vs-rest on iris; seeds; save and load") {
  const Data d = read_svm_data("iris");
  for (const bool kernel : {true, false}) {
    CAPTURE(kernel);
    mlt::SvmParams p;
    p.standardize = true;
    p.probability = true;
    p.lambda = 0.1;
    if (kernel) {
      p.kernelized = true;
      p.kernel.type = mlt::KernelType::rbf;
      p.kernel.gamma = 0.5;
    }
    mlt::Svm m(p);
    m.fit(d.X, d.y);
    REQUIRE(m.multiclass() == (kernel ? mlt::SvmMultiClass::ovo : mlt::SvmMultiClass::ovr));
    REQUIRE(m.sigmoid().n_rows == 3);
    const arma::mat P = m.predict_proba(d.X);
    check_rows(P, 3);
    // Platt's probabilities need not agree with the votes or the argmax of f (LIBSVM
    // says so too); on iris's training rows they nearly always do.
    const mlt::Labels pred = m.predict(d.X);
    const double agree = double(arma::accu(arma::index_max(P, 1) == pred)) / double(pred.n_elem);
    CHECK(agree >= 0.95);

    // The same seed gives the same model; another seed other folds, other sigmoids.
    mlt::Svm same(p);
    same.fit(d.X, d.y);
    CHECK(saved(same) == saved(m));
    mlt::SvmParams q = p;
    q.seed = p.seed + 1;
    mlt::Svm other(q);
    other.fit(d.X, d.y);
    CHECK(arma::any(arma::vectorise(other.sigmoid() != m.sigmoid())));

    // Save and load: the same bytes and the same probabilities.
    const std::string bytes = saved(m);
    const mlt::Svm loaded = mlt::Svm::load(mlt::io::ModelReader::parse(bytes, "m"));
    CHECK(loaded.has_probability());
    CHECK(saved(loaded) == bytes);
    CHECK(arma::approx_equal(loaded.predict_proba(d.X), P, "absdiff", 0.0));
  }
}

TEST_CASE("svm probability: every class needs two rows; a model without it refuses predict_proba") {
  const arma::mat X = arma::vec{0.0, 1.0, 2.0, 3.0, 10.0};
  mlt::Labels y = {0, 0, 0, 0, 1};
  mlt::SvmParams p;
  p.probability = true;
  try {
    mlt::Svm(p).fit(X, y);
    FAIL("a class with one row was accepted");
  } catch (const mlt::DataError& e) {
    CHECK(std::string(e.what()).find("`probability`") != std::string::npos);
  }
  y = {0, 0, 0, 1, 1};
  mlt::Svm m(p);
  m.fit(X, y);  // two rows of class 1: folds of at most one each
  check_rows(m.predict_proba(X), 2);
}

TEST_CASE("svm platt: equal decision values give the targets' mean, without NaN") {
  // All f equal: the objective depends on A c + B only; its minimum puts every
  // probability at the mean target, Σt / n (closed form), and Newton's step has no
  // component along the flat direction (the gradient is orthogonal to it; the Hessian
  // is kept definite by LIBSVM's 1e-12 I).
  for (const double c : {0.0, 0.5, -3.0}) {
    CAPTURE(c);
    const arma::vec f(7, arma::fill::value(c));
    const std::vector<char> positive = {1, 0, 0, 1, 0, 0, 0};
    const double mean_t = (2 * (3.0 / 4.0) + 5 * (1.0 / 7.0)) / 7;
    const mlt::svm::PlattSigmoid s = mlt::svm::fit_sigmoid(f, positive);
    CHECK(s.converged);
    CHECK(std::isfinite(s.a));
    CHECK(std::isfinite(s.b));
    CHECK(mlt::svm::sigmoid_predict(c, s.a, s.b) == doctest::Approx(mean_t).epsilon(1e-12));
  }
}

TEST_CASE("svm probability: a model saved before probabilities (no `probability` key) loads without them") {
  const Data d = read_svm_data("iris");
  mlt::SvmParams p;
  p.standardize = true;
  mlt::Svm m(p);
  m.fit(d.X, d.y);
  mlt::io::ModelWriter w(mlt::Svm::kind);
  m.save(w);
  REQUIRE(w.header()["params"].contains("probability"));
  w.header()["params"].erase("probability");
  const mlt::Svm old = mlt::Svm::load(mlt::io::ModelReader::parse(w.bytes(), "old"));
  CHECK_FALSE(old.has_probability());
  CHECK(arma::approx_equal(old.decision_function(d.X), m.decision_function(d.X), "absdiff", 0.0));
  // A probability model whose sigmoid is missing is a bad model file.
  mlt::SvmParams q = p;
  q.probability = true;
  mlt::Svm mp(q);
  mp.fit(d.X, d.y);
  mlt::io::ModelWriter w2(mlt::Svm::kind);
  mp.save(w2);
  w2.header()["fitted"]["per_output"][1].erase("sigmoid_b");
  CHECK_THROWS_AS(mlt::Svm::load(mlt::io::ModelReader::parse(w2.bytes(), "bad")), mlt::ModelError);
}

}  // namespace svm_platt_test
