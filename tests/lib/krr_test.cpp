// mlt::Krr against scikit-learn's KernelRidge (tests/fixtures/krr, made by
// scripts/fixtures/krr.py; without an intercept, as KernelRidge), with an intercept
// against NumPy's solve of the bordered system and scikit-learn's Ridge, against
// mlt::Ridge, and the Nyström approximation against the exact solution.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/log.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/krr.hpp"
#include "mlt/ridge.hpp"
#include "test_util.hpp"

using namespace mlt;
using mlt::test::Warnings;

namespace {

const std::string kFixtures = std::string(MLT_SOURCE_DIR) + "/tests/fixtures/krr/";

struct Split {
  arma::mat X;
  arma::vec y;
};
Split read_split(const std::string& name) {
  const io::Table t = io::read_csv(kFixtures + name + ".csv", {}, {});
  return {t.X.cols(0, 2), t.X.col(3)};
}

double rms(const arma::mat& a, const arma::mat& b) { return std::sqrt(arma::mean(arma::vectorise(arma::square(a - b)))); }

Krr::Params rbf(double gamma, double lambda) {
  Krr::Params p;
  p.kernel.type = KernelType::rbf;
  p.kernel.gamma = gamma;
  p.lambda = lambda;
  return p;
}

// A fixture listing (cases.txt, intercept.txt): one case a line, its name and the
// parameters "kernel lambda gamma degree coef0 sigma" (scripts/fixtures/krr.py).
std::vector<std::pair<std::string, Krr::Params>> read_cases(const std::string& listing) {
  std::ifstream cases(kFixtures + listing);
  REQUIRE(cases);
  std::vector<std::pair<std::string, Krr::Params>> out;
  std::string line;
  while (std::getline(cases, line)) {
    std::istringstream s(line);
    std::string name, kernel;
    Krr::Params p;
    s >> name >> kernel >> p.lambda >> p.kernel.gamma >> p.kernel.degree >> p.kernel.coef0 >> p.kernel.sigma;
    REQUIRE(s);
    p.kernel.type = parse_name<KernelType>(kernel);
    out.emplace_back(name, p);
  }
  return out;
}

}  // namespace

TEST_CASE("krr: predictions equal scikit-learn's KernelRidge to 1e-6 for every shared kernel") {
  const Split train = read_split("train"), test = read_split("test");
  int n_cases = 0;
  for (auto [name, p] : read_cases("cases.txt")) {
    p.fit_intercept = false;
    Warnings w;
    Krr k(p);
    k.fit(train.X, train.y);
    const arma::mat pred = k.predict(test.X);
    arma::vec want;
    REQUIRE(want.load(kFixtures + name + ".csv", arma::csv_ascii));
    REQUIRE(want.n_elem == test.X.n_rows);
    for (arma::uword i = 0; i < want.n_elem; ++i) {
      INFO(name << " row " << i << ": got " << pred(i, 0) << ", want " << want[i]);
      CHECK(std::abs(pred(i, 0) - want[i]) <= 1e-6 * std::max(1.0, std::abs(want[i])));
    }
    // λ = 0 with the rank-3 linear kernel: Cholesky fails, least squares as sklearn.
    if (name == "linear_lambda0") {
      CHECK(k.least_squares());
      CHECK(w.any("least-squares"));
    }
    ++n_cases;
  }
  CHECK(n_cases == 10);
}

TEST_CASE("krr: with an intercept, predictions equal the bordered system's (NumPy) to 1e-9") {
  // The reference solves [K + λI, 1; 1ᵀ, 0][α; b] = [y; 0] whole (LU); mlt by Cholesky of
  // K + λI and the Schur complement. Both backward stable: the difference is rounding
  // amplified by the conditioning of K + λI (λ >= 0.1, ‖K‖ <= ~1e3 here: cond <= 1e4,
  // times ε·n ≈ 2e-14 gives ~2e-10 relative), bounded by 1e-9 relative.
  const Split train = read_split("train"), test = read_split("test");
  int n_cases = 0;
  for (const auto& [name, p] : read_cases("intercept.txt")) {
    CHECK(p.fit_intercept);  // the default
    Krr k(p);
    k.fit(train.X, train.y);
    CHECK(k.intercept()[0] != 0);
    const arma::mat pred = k.predict(test.X);
    arma::vec want;
    REQUIRE(want.load(kFixtures + "intercept_" + name + ".csv", arma::csv_ascii));
    REQUIRE(want.n_elem == test.X.n_rows);
    INFO(name << ": max difference " << arma::abs(pred.col(0) - want).max());
    CHECK(arma::abs(pred.col(0) - want).max() <= 1e-9 * std::max(1.0, arma::abs(want).max()));
    ++n_cases;
  }
  CHECK(n_cases == 8);
}

TEST_CASE("krr: the linear kernel with an intercept reproduces ridge (scikit-learn's and mlt's) to 1e-8") {
  // Same objective (krr.cpp): ‖y − Xw − b‖² + λ‖w‖² with w = Xᵀα. Solved differently
  // (n x n Gram vs p x p normal equations), so equal up to rounding times the
  // conditioning of the two systems (λ = 0.5 and 0.1 against ‖K‖ ~ 1e2..1e3).
  const Split train = read_split("train"), test = read_split("test");
  Krr::Params kp;
  kp.kernel.type = KernelType::linear;
  kp.lambda = 0.5;
  arma::vec want;
  REQUIRE(want.load(kFixtures + "intercept_ridge.csv", arma::csv_ascii));
  const arma::mat got = Krr(kp).fit(train.X, train.y).predict(test.X);
  CHECK(arma::abs(got.col(0) - want).max() <= 1e-8 * arma::abs(want).max());

  io::Table t = io::read_csv(std::string(MLT_SOURCE_DIR) + "/data/diabetes.csv", {}, {});
  const arma::mat X = t.X.cols(0, 9);
  const arma::mat Y = t.X.cols(9, 10);  // two targets share K
  for (const bool standardize : {false, true}) {
    kp.lambda = 0.1;
    kp.standardize = standardize;
    Ridge::Params rp;
    rp.lambda = 0.1;
    rp.standardize = standardize;
    const arma::mat a = Krr(kp).fit(X, Y).predict(X);
    const arma::mat b = Ridge(rp).fit(X, Y).predict(X);
    INFO("standardize " << standardize << ": max difference " << arma::abs(a - b).max());
    CHECK(arma::abs(a - b).max() <= 1e-8 * arma::abs(b).max());
  }
}

TEST_CASE("krr: the linear kernel equals ridge without intercept") {
  io::Table t = io::read_csv(std::string(MLT_SOURCE_DIR) + "/data/diabetes.csv", {}, {});
  const arma::mat X = t.X.cols(0, 9);
  const arma::vec y = t.X.col(10);
  for (const bool standardize : {false, true}) {
    Krr::Params kp;
    kp.kernel.type = KernelType::linear;
    kp.lambda = 0.1;
    kp.standardize = standardize;
    kp.fit_intercept = false;
    Ridge::Params rp;
    rp.lambda = 0.1;
    rp.fit_intercept = false;
    rp.standardize = standardize;
    const arma::mat a = Krr(kp).fit(X, y).predict(X);
    const arma::mat b = Ridge(rp).fit(X, y).predict(X);
    INFO("standardize " << standardize << ": max difference " << arma::abs(a - b).max());
    CHECK(arma::abs(a - b).max() <= 1e-8 * arma::abs(b).max());
  }
}

TEST_CASE("krr: Nyström with M = n landmarks equals the exact solution") {
  // Neither path iterates: both solve their linear system by Cholesky. With every row a
  // landmark, Nyström minimizes ‖y − Kβ‖² + λ βᵀ(K + δI)β (the jitter δ adds λδ‖β‖²),
  // exact KRR the same with δ = 0. In K's eigenbasis (eigenvalues s >= s_min) the two
  // solutions differ by λδ a_s / (s² + λs + λδ) on each component a_s of α, so
  //     ‖f_ny − f_exact‖_H <= δ ‖α‖ / sqrt(s_min),  |f_ny(x) − f_exact(x)| <= sqrt(k(x, x)) times that.
  // Rounding: both factorizations are backward stable, an error like a perturbation of
  // K of norm ~ n ε ‖K‖, so the same bound with n ε ‖K‖ in place of δ. Here (rbf,
  // k(x, x) = 1): δ = 1.8e-14, n ε ‖K‖ = 4e-13, ‖α‖ = 11.8, s_min = 1.7e-5: 1.1e-9,
  // observed 3.3e-13.
  // With an intercept, b eliminated, both minimize ‖C(y − Kβ)‖² + λβᵀ(K + δI)β with
  // C = I − 11ᵀ/n (δ = 0 exact): with M = KCK + λK, (M + λδI)Δβ = −λδβ, and since
  // K ⪯ M/λ and M ⪰ λ s_min I, ‖K^½Δβ‖ <= δ‖β‖/sqrt(s_min) again; the intercept moves
  // by the mean of KΔβ, at most as much as f, so the prediction bound doubles.
  const Split train = read_split("train"), test = read_split("test");
  const arma::uword n = train.X.n_rows;
  for (const bool intercept : {false, true})
  for (const auto method : {LandmarkMethod::uniform, LandmarkMethod::kmeanspp}) {
    Krr::Params p = rbf(0.5, 0.1);
    p.fit_intercept = intercept;
    const Krr exact_model = Krr(p).fit(train.X, train.y);
    const arma::mat exact = exact_model.predict(test.X);
    p.nystrom = n;
    p.landmarks = method;
    Krr ny(p);
    ny.fit(train.X, train.y);
    CHECK(ny.basis().n_rows == n);
    const arma::mat K = Kernel(p.kernel, train.X.n_cols).gram(train.X, train.X);
    const arma::vec s = arma::eig_sym(K);
    const double eps = std::numeric_limits<double>::epsilon();
    const double bound = (intercept ? 2 : 1) * (ny.jitter() + double(n) * eps * s.max()) *
                         arma::norm(exact_model.coef()) / std::sqrt(s.min());
    const double diff = arma::abs(ny.predict(test.X) - exact).max();
    CHECK(diff <= bound);
    MESSAGE(name_of(method) << std::string(intercept ? " with intercept" : "") << ": max difference " << diff << ", bound "
                            << bound << " (jitter " << ny.jitter() << ", s_min " << s.min() << ")");
  }
}

TEST_CASE("krr: the Nyström error shrinks as M grows (fixed seed)") {
  const Split train = read_split("train"), test = read_split("test");
  Krr::Params p = rbf(0.5, 0.1);
  const arma::mat exact = Krr(p).fit(train.X, train.y).predict(test.X);
  for (const auto method : {LandmarkMethod::uniform, LandmarkMethod::kmeanspp}) {
    p.landmarks = method;
    double previous = arma::datum::inf, first = 0;
    for (const std::size_t m : {4, 12, 30, 60}) {
      p.nystrom = m;
      p.seed = 7;
      const double err = rms(Krr(p).fit(train.X, train.y).predict(test.X), exact);
      INFO(name_of(method) << " M=" << m << ": rms difference from exact " << err);
      CHECK(err < previous);
      if (m == 4) first = err;
      previous = err;
    }
    CHECK(previous < first / 10);
  }
}

TEST_CASE("krr: the memory check names the size and suggests the nystrom parameter") {
  const Split train = read_split("train");
  Krr::Params p = rbf(0.5, 0.1);
  p.memory_limit = 1e6;  // 1 MB: the 80 x 80 kernel fits, 32 MiB of working room does not
  try {
    Krr(p).fit(train.X, train.y);
    FAIL("expected a DataError");
  } catch (const DataError& e) {
    const std::string m = e.what();
    CHECK(m.find("80 x 80 kernel matrix (50.0 KiB)") != std::string::npos);
    CHECK(m.find("`nystrom`") != std::string::npos);  // the parameter; mlt says --nystrom
  }
  p.nystrom = 10;  // the approximation needs no n x n matrix
  CHECK_NOTHROW(Krr(p).fit(train.X, train.y));
}

TEST_CASE("krr: lambda = 0 with duplicate rows falls back to least squares, never NaN") {
  const Split train = read_split("train");
  const arma::mat X = arma::join_cols(train.X, train.X.rows(0, 9));
  const arma::vec y = arma::join_cols(train.y, train.y.head(10));
  Krr::Params p = rbf(0.5, 0.0);
  Warnings w;
  Krr k(p);
  k.fit(X, y);
  CHECK(k.least_squares());
  CHECK(w.any("not positive definite"));
  const arma::mat pred = k.predict(X);
  CHECK(pred.is_finite());
  // An interpolant (up to the conditioning of K): close to y on the training rows.
  CHECK(rms(pred, y) < 1e-3);
}

TEST_CASE("krr: save and load give identical predictions; errors") {
  const Split train = read_split("train"), test = read_split("test");
  for (const std::size_t m : {std::size_t(0), std::size_t(20)})
  for (const bool intercept : {false, true}) {
    Krr::Params p = rbf(0, 0.5);
    p.standardize = true;
    p.nystrom = m;
    p.fit_intercept = intercept;
    Krr k(p);
    k.fit(train.X, train.y);
    io::ModelWriter w(Krr::kind);
    k.save(w);
    const Krr back = Krr::load(io::ModelReader::parse(w.bytes(), "test"));
    CHECK(arma::approx_equal(back.predict(test.X), k.predict(test.X), "absdiff", 0.0));
    CHECK(back.params().fit_intercept == intercept);
    CHECK(back.kernel().gamma() == doctest::Approx(1.0 / 3));
  }
  Krr::Params p = rbf(0.5, 0.1);
  p.nystrom = 81;
  CHECK_THROWS_AS(Krr(p).fit(train.X, train.y), DataError);
  p.nystrom = 0;
  p.lambda = -1;
  CHECK_THROWS_AS(Krr(p).fit(train.X, train.y), UsageError);
  p.lambda = 1;
  CHECK_THROWS_AS(Krr(p).fit(train.X, train.y).predict(test.X.cols(0, 1)), DataError);
}
