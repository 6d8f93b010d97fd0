// ROC and precision-recall curves (lib/mlt/metrics_curves.cpp) against scikit-learn
// 1.2.1 (tests/fixtures/curves/, made by scripts/fixtures/curves.py).
//
// Exactness: every point is a ratio of two whole counts below 2^53 (fp / negatives,
// tp / (tp + fp)), one correctly rounded division on both sides, so the points are
// compared for equality; the thresholds are the scores themselves, read back from their
// shortest round-trip decimals. The AUC and AP are sums of m products (m <= 121 points):
// scikit-learn adds them pairwise (numpy), mlt in order, so they may differ by the
// rounding of two summations, at most about 2 m ε Σ|terms| <= 2 · 121 · 1.1e-16 · 1 ≈
// 2.7e-14 (every term is in [0, 1] and they sum to at most 1): checked to 1e-13.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "mlt/core/error.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/metrics.hpp"

namespace metrics_curves_test {

namespace {

using mlt::Labels;

struct Case {
  Labels y;
  arma::vec score;
};

Case read_case(const std::string& name) {
  const auto t = mlt::io::read_csv(std::string(MLT_SOURCE_DIR) + "/tests/fixtures/curves/" + name + ".csv", {}, {});
  return {arma::conv_to<Labels>::from(t.X.col(0)), t.X.col(1)};
}

void check_equal(const arma::vec& got, const nlohmann::json& want, const std::string& what) {
  INFO(what);
  REQUIRE(got.n_elem == want.size());
  for (arma::uword i = 0; i < got.n_elem; ++i) CHECK(got(i) == want[i].get<double>());
}

}  // namespace

TEST_CASE("metrics: ROC and precision-recall curves, AUC and AP against scikit-learn") {
  std::ifstream f(std::string(MLT_SOURCE_DIR) + "/tests/fixtures/curves/reference.json");
  REQUIRE(f.good());
  const nlohmann::json ref = nlohmann::json::parse(f);
  for (const char* name : {"ties", "distinct", "separated", "constant", "inverted"}) {
    INFO(name);
    const Case c = read_case(name);
    const nlohmann::json& r = ref[name];
    const mlt::metrics::RankingCurve roc = mlt::metrics::roc_curve(c.y, c.score);
    check_equal(roc.x, r["fpr"], "fpr");
    check_equal(roc.y, r["tpr"], "tpr");
    CHECK(std::isinf(roc.thresholds(0)));
    check_equal(roc.thresholds.tail(roc.thresholds.n_elem - 1), r["thresholds"], "roc thresholds");
    CHECK(std::abs(mlt::metrics::roc_auc(c.y, c.score) - r["auc"].get<double>()) <= 1e-13);

    const mlt::metrics::RankingCurve pr = mlt::metrics::precision_recall_curve(c.y, c.score);
    check_equal(pr.x, r["recall"], "recall");
    check_equal(pr.y, r["precision"], "precision");
    check_equal(pr.thresholds.tail(pr.thresholds.n_elem - 1), r["pr_thresholds"], "pr thresholds");
    CHECK(std::abs(mlt::metrics::average_precision(c.y, c.score) - r["ap"].get<double>()) <= 1e-13);
  }
}

TEST_CASE("metrics: the ranking curves refuse one class and non-finite scores") {
  const Labels one_class = {1, 1, 1};
  const arma::vec s = {0.1, 0.2, 0.3};
  CHECK_THROWS_AS(mlt::metrics::roc_curve(one_class, s), mlt::DataError);
  CHECK_THROWS_AS(mlt::metrics::average_precision(Labels{0, 0, 0}, s), mlt::DataError);
  const arma::vec bad = {0.1, std::numeric_limits<double>::quiet_NaN(), 0.3};
  CHECK_THROWS_AS(mlt::metrics::roc_auc(Labels{0, 1, 1}, bad), mlt::DataError);
}

}  // namespace metrics_curves_test
