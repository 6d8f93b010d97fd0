// Pca::log_likelihood, the held-out log-likelihood under probabilistic PCA that
// `mlt pca cv` ranks by, against scikit-learn's PCA.score on
// tests/fixtures/metrics/report.json ("ppca"; scripts/fixtures/metrics_report.py).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mlt/core/error.hpp"
#include "mlt/pca.hpp"
#include "test_util.hpp"

namespace metrics_ppca_test {

namespace {

using mlt::test::rows_of;

const nlohmann::json& ppca() {
  static const nlohmann::json ref = [] {
    return mlt::test::read_json_fixture("tests/fixtures/metrics/report.json").at("ppca");
  }();
  return ref;
}

}  // namespace

// Tolerance 1e-9 relative: the two programs take the components from different
// decompositions (mlt's SVD or eigensolver, scikit-learn's LAPACK gesdd), which agree
// to about 1e-14 relative on this well-separated spectrum (eigenvalues 9 to 0.01); the
// noise variance is a difference of the total and the kept variances, where the
// smallest discarded eigenvalue (~1e-2 of a total ~10) loses about 3 digits, so
// 1e-11 relative at worst, and the log-likelihood sums 30 rows' quadratic forms of
// magnitude ~10. A different definition moves it far more: σ² as the mean over p
// instead of p − k eigenvalues changes it by more than 0.1, a 1/n covariance instead of
// 1/(n − 1) by 0.05.
TEST_CASE("Pca::log_likelihood = sklearn's PCA.score, every k, plain and standardized") {
  const arma::mat train = rows_of(ppca().at("train")), test = rows_of(ppca().at("test"));
  const auto ks = ppca().at("k").get<std::vector<std::size_t>>();
  for (std::size_t i = 0; i < ks.size(); ++i) {
    CAPTURE(ks[i]);
    for (bool standardize : {false, true}) {
      CAPTURE(standardize);
      mlt::PcaParams p;
      p.n_components = ks[i];
      p.standardize = standardize;
      const mlt::Pca pca = mlt::Pca(p).fit(train);
      const double want = ppca().at(standardize ? "standardized_score" : "score")[i].get<double>();
      CHECK(std::abs(pca.log_likelihood(test) - want) <= 1e-9 * std::abs(want));
    }
  }
}

// Exact by construction: the k = p model is evaluated as the k = p - 1 one (the same
// Gaussian), from the same components, since both fits take the whole decomposition and
// keep its leading rows. Equal bits are what let cv keep the smaller k of a tie.
TEST_CASE("Pca::log_likelihood scores k = p and k = p - 1 the same, bit for bit") {
  const arma::mat train = rows_of(ppca().at("train")), test = rows_of(ppca().at("test"));
  const auto fitted = [&](std::size_t k) {
    mlt::PcaParams p;
    p.n_components = k;
    return mlt::Pca(p).fit(train);
  };
  const std::size_t p = train.n_cols;
  CHECK(fitted(p).log_likelihood(test) == fitted(p - 1).log_likelihood(test));
  CHECK(fitted(p - 1).log_likelihood(test) != fitted(p - 2).log_likelihood(test));
}

TEST_CASE("Pca::log_likelihood refuses kernel PCA and a degenerate density") {
  const arma::mat X = mlt::test::random_mat(20, 3, 4);
  mlt::PcaParams kp;
  kp.kernelized = true;
  kp.n_components = 2;
  const mlt::Pca kernel = mlt::Pca(kp).fit(X);
  CHECK_THROWS_AS(kernel.log_likelihood(X), mlt::UsageError);
  // Rows in a plane of 3-D space: one component leaves variance, two leave none.
  arma::mat flat = X;
  flat.col(2) = X.col(0) + X.col(1);
  mlt::PcaParams two;
  two.n_components = 2;
  const std::string m =
      mlt::test::error_message([&] { mlt::Pca(two).fit(flat).log_likelihood(flat); }, mlt::kExitDataError);
  CHECK(m.find("zero variance") != std::string::npos);
}

}  // namespace metrics_ppca_test
