// mlt::Krr against scikit-learn's KernelRidge (tests/fixtures/krr, made by
// scripts/fixtures/krr.py; without an intercept, as KernelRidge), with an intercept
// against NumPy's solve of the bordered system and scikit-learn's Ridge, against
// mlt::Ridge, and the Nyström approximation against the exact solution.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/log.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/krr.hpp"
#include "mlt/nystrom.hpp"
#include "mlt/core/distributed.hpp"
#include "mlt/core/row_passes.hpp"
#include "mlt/ridge.hpp"
#include "ranks_in_threads.hpp"
#include "row_passes.hpp"
#include "test_util.hpp"

namespace krr_test {

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

// --- The streamed and distributed Nyström fit (Krr::fit_stream) ----------------------

namespace {

// A smooth function of 4 features plus noise, two targets (the second with a large
// mean, so that the centring matters): n rows.
void smooth_data(arma::uword n, std::uint64_t seed, arma::mat& X, arma::mat& Y) {
  X = test::random_mat(n, 4, seed);
  const arma::mat noise = 0.1 * test::random_mat(n, 2, seed + 1);
  Y.set_size(n, 2);
  Y.col(0) = arma::sin(2 * X.col(0)) + arma::square(X.col(1)) - X.col(2) % X.col(3) + noise.col(0);
  Y.col(1) = 1e3 + 5 * arma::cos(X.col(1) + X.col(2)) + noise.col(1);
}

// How far the predictions of two Nyström fits of the same problem (the same landmark
// rows Z, kernel, λ and δ) can be apart, when they differ only in the rounding of
// their sums: the order (chunks, groups, ranks), the centring shift, the blocks the
// features are computed in. `model` is one of them, X and Y its training rows, Xq the
// rows predicted. Derivation (ε = 2⁻⁵², Higham's γ_m <= m ε; norms 2-norms):
//   Each fit solves (ΦcᵀΦc + λI) w = Φcᵀyc on the centred features (krr.cpp), having
//   computed A = ΦcᵀΦc and R = Φcᵀyc as sums over the n rows. Against the exact sums:
//   - a sum of n products is off by γ_{n+2} times the sum of their magnitudes (+2 for
//     the shift and the n d dᵀ correction), so ‖ΔA‖ <= γ_{n+2} ‖Φc‖²_F and
//     ‖ΔR‖ <= γ_{n+2} ‖Φc‖_F ‖yc‖;
//   - the features of a row, L⁻¹k(Z, x): the rbf kernel's values carry the error of
//     the expanded squared distance, |Δk| <= γ 4(p + 2) ε r² (r² the largest squared
//     row norm), and the product by L⁻¹ adds γ_M |L⁻¹||k|, so each feature vector is
//     off by η <= ‖L⁻¹‖_F (√M |Δk| + M ε √M k_max), which moves A by 2‖Φc‖ √n η and R by
//     √n η ‖yc‖;
//   - the Cholesky solve is backward stable: the solution of A + ΔA with
//     ‖ΔA‖ <= M(M + 1) ε ‖A + λI‖ (Higham, Thm 10.4).
//   Two fits: E = twice the sum of the A terms, e = twice the R terms. Then (A + λI ⪰
//   sλ I, sλ = s_min(A) + λ) ‖Δw‖ <= (e + E‖w‖) / (sλ − E); the intercept
//   b = ȳ − φ̄ᵀw moves by 2γ_n max|y| + ‖φ̄‖‖Δw‖ + 2(γ_n √k_max + η)‖w‖, and a
//   prediction φ(x)ᵀw + b by ‖φ(x)‖‖Δw‖ + Δb, plus the rounding of each model's own
//   k(x, Z)β: 2 M ε √M k_max ‖β‖.
// The test computes Φ, w = Lᵀβ and the norms from the model itself (its basis,
// jitter and coefficients), so the bound is of this problem, not of a worst case.
double prediction_bound(const Krr& model, const arma::mat& X, const arma::mat& Y, const arma::mat& Xq) {
  const double eps = std::numeric_limits<double>::epsilon();
  const arma::mat& Z = model.basis();
  const double n = X.n_rows, M = Z.n_rows, p = X.n_cols, lambda = model.params().lambda;
  REQUIRE(model.kernel().params().type == KernelType::rbf);  // k(x, x) = 1, the Δk above
  const double k_max = 1;
  arma::mat L = model.kernel().gram(Z, Z);
  L.diag() += model.jitter();
  REQUIRE(arma::chol(L, L, "lower"));
  const arma::mat Linv = arma::inv(arma::trimatl(L));
  arma::mat Phi = (Linv * model.kernel().gram(Z, X)).t();  // n x M
  arma::mat Yc = Y;
  const arma::rowvec phi_mean = arma::mean(Phi, 0);
  if (model.params().fit_intercept) {
    Phi.each_row() -= phi_mean;
    Yc.each_row() -= arma::mean(Y, 0);
  }
  const double r2 = std::max({arma::max(arma::sum(arma::square(X), 1)), arma::max(arma::sum(arma::square(Xq), 1)),
                              arma::max(arma::sum(arma::square(Z), 1))});
  const double dk = model.kernel().gamma() * 4 * (p + 2) * eps * r2;
  const double eta = arma::norm(Linv, "fro") * (std::sqrt(M) * dk + M * eps * std::sqrt(M) * k_max);
  const arma::mat A = Phi.t() * Phi;
  const double a_norm = arma::norm(A, 2), phi_f = arma::norm(Phi, "fro");
  const double s_lambda = arma::eig_sym(A).min() + lambda;
  const double gn = (n + 2) * eps;
  const double E = 2 * (gn * phi_f * phi_f + 2 * std::sqrt(a_norm) * std::sqrt(n) * eta +
                        M * (M + 1) * eps * (a_norm + lambda));
  REQUIRE(E < s_lambda / 2);
  double worst = 0;
  for (arma::uword j = 0; j < Y.n_cols; ++j) {
    const double yc = arma::norm(Yc.col(j));
    const double e = 2 * (gn * phi_f * yc + std::sqrt(n) * eta * yc);
    const double w = arma::norm(L.t() * model.coef().col(j));  // β = L⁻ᵀw
    const double dw = (e + E * w) / (s_lambda - E);
    const double db = 2 * gn * arma::abs(Y.col(j)).max() + std::sqrt(k_max) * dw + 2 * (gn * std::sqrt(k_max) + eta) * w;
    const double rounding = 2 * M * eps * std::sqrt(M) * k_max * arma::norm(model.coef().col(j));
    worst = std::max(worst, (std::sqrt(k_max) + eta) * dw + db + rounding);
  }
  return worst;
}

Krr::Params nystrom_rbf(double gamma, double lambda, std::size_t M, bool intercept) {
  Krr::Params p = rbf(gamma, lambda);
  p.nystrom = M;
  p.seed = 11;
  p.fit_intercept = intercept;
  return p;
}

}  // namespace

TEST_CASE("krr: uniform landmarks are the partial Fisher-Yates draw, with or without the rows") {
  // The draw of nystrom.hpp transcribed plainly (a vector of all n indices).
  for (const std::uint64_t n : {1u, 2u, 7u, 100u, 1000u})
    for (const std::size_t M : {std::size_t(1), std::size_t(n / 2 + 1), std::size_t(n)})
      for (const std::uint64_t seed : {0u, 5u, 42u}) {
        std::vector<arma::uword> all(n);
        for (arma::uword i = 0; i < n; ++i) all[i] = i;
        Random rng(seed);
        for (arma::uword i = 0; i < M; ++i) std::swap(all[i], all[i + rng.below(n - i)]);
        const arma::uvec want(std::vector<arma::uword>(all.begin(), all.begin() + M));
        CAPTURE(n);
        CAPTURE(M);
        CHECK(arma::all(uniform_landmarks(n, M, seed) == want));
        CHECK(arma::all(nystrom_landmarks(arma::mat(n, 1, arma::fill::zeros), M, LandmarkMethod::uniform, seed,
                                          KernelType::rbf) == want));
      }
  CHECK_THROWS_AS(uniform_landmarks(5, 6, 1), DataError);
  CHECK_THROWS_AS(uniform_landmarks(5, 0, 1), DataError);
  // n far beyond memory: O(M) state.
  const arma::uvec big = uniform_landmarks(std::uint64_t(1) << 50, 100, 3);
  CHECK(arma::uvec(arma::unique(big)).n_elem == 100);
}

TEST_CASE("krr: the streamed Nyström fit equals the in-memory one within the derived bound") {
  arma::mat X, Y;
  smooth_data(600, 21, X, Y);
  const arma::mat Xq = test::random_mat(50, 4, 99);
  for (const bool intercept : {true, false}) {
    const Krr::Params p = nystrom_rbf(0.5, 0.1, 60, intercept);
    const Krr memory = Krr(p).fit(X, Y);
    const double bound = prediction_bound(memory, X, Y, Xq);
    for (const arma::uword rows : {1u, 7u, 100u, 600u}) {
      auto opened = std::make_shared<int>(0);
      Krr streamed(p);
      streamed.fit_stream(test::passes_of(X, Y, rows, opened));
      CAPTURE(intercept);
      CAPTURE(rows);
      CHECK(*opened == 3);
      // The same rows, copied: exactly the same landmarks.
      CHECK(arma::approx_equal(streamed.basis(), memory.basis(), "absdiff", 0.0));
      CHECK(streamed.n_train() == 600);
      CHECK(streamed.jitter() == memory.jitter());
      const double diff = std::max(arma::abs(streamed.predict(Xq) - memory.predict(Xq)).max(),
                                   arma::abs(streamed.predict(X) - memory.predict(X)).max());
      CHECK(diff <= bound);
      if (rows == 7) MESSAGE("stream vs memory, intercept " << intercept << ": max difference " << diff << ", bound " << bound);
    }
  }
}

TEST_CASE("krr: the streamed standardize is the in-memory fit on the rows its moments standardize") {
  // The two standardizers differ in rounding (from columns, from merged moments: the
  // Standardizer's own tests); given the streamed one, the fit is the in-memory fit of
  // the standardized rows, within the bound above.
  const arma::mat d = io::read_csv(std::string(MLT_SOURCE_DIR) + "/data/diabetes.csv", {}, {}).X;
  const arma::mat X = d.cols(0, 9), Y = d.cols(9, 10);
  Krr::Params p = nystrom_rbf(0.1, 0.5, 40, true);
  p.standardize = true;
  Krr streamed(p);
  streamed.fit_stream(test::passes_of(X, Y, 50));
  REQUIRE(streamed.scaler().is_fitted());
  const arma::mat Xs = streamed.scaler().transform(X);
  p.standardize = false;
  const Krr memory = Krr(p).fit(Xs, Y);
  // Exact by construction: both bases are the same landmark rows put through the same
  // scaler, an element-wise (x - mean) / scale with no BLAS sum in it.
  CHECK(arma::approx_equal(streamed.basis(), memory.basis(), "absdiff", 0.0));
  const double bound = prediction_bound(memory, Xs, Y, Xs);
  const double diff = arma::abs(streamed.predict(X) - memory.predict(Xs)).max();
  CHECK(diff <= bound);
  MESSAGE("standardized diabetes: max difference " << diff << ", bound " << bound);
}

TEST_CASE("krr: what a streamed fit refuses, and data that changes between passes") {
  arma::mat X, Y;
  smooth_data(40, 3, X, Y);
  Krr::Params p = nystrom_rbf(0.5, 0.1, 0, true);
  CHECK(test::error_message([&] { Krr(p).fit_stream(test::passes_of(X, Y, 8)); }, kExitUsage).find("exact kernel ridge") == 0);
  p.nystrom = 10;
  p.landmarks = LandmarkMethod::kmeanspp;
  CHECK(test::error_message([&] { Krr(p).fit_stream(test::passes_of(X, Y, 8)); }, kExitUsage).find("landmarks kmeans++") ==
        0);
  p.landmarks = LandmarkMethod::uniform;
  for (const KernelType k : {KernelType::spectrum, KernelType::walk, KernelType::precomputed}) {
    p.kernel.type = k;
    CHECK(test::error_message([&] { Krr(p).fit_stream(test::passes_of(X, Y, 8)); }, kExitUsage).find("the " + name_of(k)) ==
          0);
  }
  p.kernel.type = KernelType::rbf;
  p.nystrom = 41;
  CHECK(test::error_message([&] { Krr(p).fit_stream(test::passes_of(X, Y, 8)); }, kExitDataError) ==
        "`nystrom` M=41 > n_samples=40");
  p.nystrom = 10;
  const arma::mat none(0, 4);
  CHECK(test::error_message([&] { Krr(p).fit_stream(test::passes_of(none, none, 8)); }, kExitDataError) ==
        "0 samples, need at least 1");
  // A second pass with a row fewer.
  auto opened = std::make_shared<int>(0);
  const arma::mat X2 = X.rows(0, 38), Y2 = Y.rows(0, 38);
  const RowPasses shrinking = [&, opened]() {
    return ++*opened == 1 ? test::passes_of(X, Y, 8)() : test::passes_of(X2, Y2, 8)();
  };
  CHECK(test::error_message([&] { Krr(p).fit_stream(shrinking); }, kExitDataError) ==
        "the data changed while krr was reading it: a pass found 39 rows where the first found 40");
  // A bad target in a chunk: the source's error, as fit's.
  arma::mat Ybad = Y;
  Ybad(17, 0) = arma::datum::nan;
  CHECK(test::error_message([&] { Krr(p).fit_stream(test::passes_of(X, Ybad, 8)); }, kExitDataError) ==
        "non-finite target value");
}

TEST_CASE("krr: a streamed model saves, loads and predicts as itself") {
  arma::mat X, Y;
  smooth_data(200, 8, X, Y);
  Krr::Params p = nystrom_rbf(0.5, 0.1, 30, true);
  p.standardize = true;
  Krr k(p);
  k.fit_stream(test::passes_of(X, Y, 33));
  io::ModelWriter w(Krr::kind);
  k.save(w);
  const Krr back = Krr::load(io::ModelReader::parse(w.bytes(), "test"));
  // Exact by construction: the model file writes every double as the shortest text
  // that reads back as it (std::to_chars, io/number_format.hpp), so both predictions
  // run the same code on the same bits.
  CHECK(arma::approx_equal(back.predict(X), k.predict(X), "absdiff", 0.0));
  CHECK(back.n_train() == 200);
}


namespace {

// `fit(rank, comm)` on N threads as N ranks (ranks_in_threads.hpp); the error each
// rank ended with ("" if none).
template <class F>
std::vector<std::string> on_ranks(int N, const F& fit) {
  std::vector<std::string> errors(N);
  test::run_ranks(N, [&](const Communicator& comm) {
    try {
      fit(comm.rank(), comm);
    } catch (const std::exception& e) {
      errors[comm.rank()] = e.what();
    }
  });
  return errors;
}

}  // namespace

TEST_CASE("krr: N ranks give every rank the same model, the in-memory one within the derived bound") {
  // The ranks' sums are added in rank order: another order of the same sums, which the
  // bound above covers whatever N; and every rank solves the same bits.
  arma::mat X, Y;
  smooth_data(600, 21, X, Y);
  const arma::mat Xq = test::random_mat(50, 4, 99);
  for (const bool intercept : {true, false}) {
    const Krr::Params p = nystrom_rbf(0.5, 0.1, 60, intercept);
    const Krr memory = Krr(p).fit(X, Y);
    const double bound = prediction_bound(memory, X, Y, Xq);
    // Parts of equal size, and for N = 3 a rank with no rows at all (more ranks than
    // a small file has records).
    for (const int N : {1, 2, 3, 7, -3}) {
      const int ranks = std::abs(N);
      std::vector<arma::mat> Xs(ranks), Ys(ranks);
      for (int r = 0; r < ranks; ++r) {
        arma::uword a = 600 * r / ranks, b = 600 * (r + 1) / ranks;
        if (N < 0 && r == 1) b = a;            // rank 1 empty,
        if (N < 0 && r == 2) a = 600 * 1 / 3;  // rank 2 takes its rows
        Xs[r] = b > a ? arma::mat(X.rows(a, b - 1)) : arma::mat(0, 4);
        Ys[r] = b > a ? arma::mat(Y.rows(a, b - 1)) : arma::mat(0, 2);
      }
      std::vector<Krr> models(ranks, Krr(p));
      const auto errors = on_ranks(ranks, [&](int r, const Communicator& comm) {
        models[r].fit_stream(test::passes_of(Xs[r], Ys[r], 13), comm);
      });
      CAPTURE(intercept);
      CAPTURE(N);
      for (int r = 0; r < ranks; ++r) {
        REQUIRE(errors[r].empty());
        CHECK(arma::approx_equal(models[r].basis(), memory.basis(), "absdiff", 0.0));
        CHECK(arma::approx_equal(models[r].coef(), models[0].coef(), "absdiff", 0.0));
        CHECK(arma::approx_equal(models[r].intercept(), models[0].intercept(), "absdiff", 0.0));
      }
      const double diff = arma::abs(models[0].predict(Xq) - memory.predict(Xq)).max();
      CHECK(diff <= bound);
      MESSAGE(ranks << std::string(N < 0 ? " ranks (one empty)" : " ranks") << ", intercept " << intercept
                    << ": max difference from in memory " << diff << ", bound " << bound);
    }
  }
}

TEST_CASE("krr: an error in one rank's part stops every rank with it, in whichever pass") {
  arma::mat X, Y;
  smooth_data(90, 4, X, Y);
  const Krr::Params p = nystrom_rbf(0.5, 0.1, 10, true);
  std::vector<arma::mat> Xs{X.rows(0, 29), X.rows(30, 59), X.rows(60, 89)};
  std::vector<arma::mat> Ys{Y.rows(0, 29), Y.rows(30, 59), Y.rows(60, 89)};
  for (const int failing_pass : {1, 2, 3}) {
    const auto errors = on_ranks(3, [&](int r, const Communicator& comm) {
      const RowPasses passes = test::intercepted(test::passes_of(Xs[r], Ys[r], 7), [&, r](int pass, int chunk) {
        if (r == 2 && pass == failing_pass && chunk == 1)
          throw DataError("late.csv:75:2: expected a number, found \"oops\"");
        return false;
      });
      Krr(p).fit_stream(passes, comm);
    });
    CAPTURE(failing_pass);
    for (const std::string& e : errors) CHECK(e == "late.csv:75:2: expected a number, found \"oops\"");
  }
}

}  // namespace krr_test
