// Several metrics in one grid search (mlt/cv/search.hpp): the scorer's metric-major
// layout, the first metric ranking, each metric's own mean and spread, a non-finite
// score named by its metric; and make_split_scorer fitting once for all metrics.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/cv/cross_validate.hpp"
#include "mlt/cv/search.hpp"

namespace metrics_cv_test {

namespace cv = mlt::cv;

namespace {

cv::Grid values_grid(const std::string& values) {
  return cv::Grid({cv::parse_axis("-v", "v", cv::ValueKind::real, values)});
}

// An estimator whose fits are counted, to see that one fit serves every metric.
struct Counted {
  struct Params {
    double v = 0;
  };
  static inline int fits = 0;
  explicit Counted(Params p) : params(p) {}
  void fit(const arma::mat&, const arma::mat&) { ++fits; }
  Params params;
};

}  // namespace

TEST_CASE("grid search, several metrics: metric-major scores, the first ranks, each summarized") {
  const cv::Grid grid = values_grid("1,2,3");
  const cv::Folds folds = cv::kfold(6, 2, 0);
  // Metric 0 (accuracy, higher is better) of point p on fold f: v + f; metric 1 (mse,
  // lower is better): 10 v - f. Exact in binary, so every mean and std is exact.
  const cv::SplitScorer scorer = [&](const cv::Split& s, const std::vector<std::size_t>& points) {
    std::vector<double> out(2 * points.size());
    for (std::size_t j = 0; j < points.size(); ++j) {
      const double v = grid.point(points[j])[0].number;
      out[j] = v + static_cast<double>(s.fold);
      out[points.size() + j] = 10 * v - static_cast<double>(s.fold);
    }
    return out;
  };
  cv::SearchOptions grouped;
  grouped.group = [](std::size_t) { return 0; };  // all points in one call
  for (const cv::SearchOptions& opt : {cv::SearchOptions{}, grouped}) {
    const cv::SearchResult r = cv::grid_search(grid, folds, mlt::Names{"accuracy", "mse"}, scorer, opt);
    CHECK(r.metric == "accuracy");
    CHECK(r.metrics == mlt::Names{"accuracy", "mse"});
    CHECK(r.higher_is_better);
    CHECK(r.best == 2);  // the highest accuracy; mse would have chosen v = 1
    REQUIRE(r.results.size() == 3);
    for (std::size_t p = 0; p < 3; ++p) {
      const double v = static_cast<double>(p + 1);
      CHECK(r.results[p].mean == v + 0.5);
      CHECK(r.results[p].std == 0.5);
      REQUIRE(r.results[p].more.size() == 1);
      CHECK(r.results[p].more[0].mean == 10 * v - 0.5);
      CHECK(r.results[p].more[0].std == 0.5);
      CHECK(r.results[p].more[0].fold_scores(1) == 10 * v - 1);
    }
  }
  // Ranked by mse instead: the same scores, the other best.
  const cv::SplitScorer swapped = [&](const cv::Split& s, const std::vector<std::size_t>& points) {
    std::vector<double> a = scorer(s, points);
    std::rotate(a.begin(), a.begin() + static_cast<long>(points.size()), a.end());
    return a;
  };
  CHECK(cv::grid_search(grid, folds, mlt::Names{"mse", "accuracy"}, swapped).best == 0);
}

TEST_CASE("grid search, several metrics: a wrong count, a non-finite second metric, an unknown one") {
  const cv::Grid grid = values_grid("1,2");
  const cv::Folds folds = cv::kfold(4, 2, 0);
  const cv::SplitScorer one_each = [](const cv::Split&, const std::vector<std::size_t>& points) {
    return std::vector<double>(points.size(), 1.0);
  };
  CHECK_THROWS_AS(cv::grid_search(grid, folds, mlt::Names{"mse", "mae"}, one_each), mlt::Error);
  const cv::SplitScorer nan_second = [](const cv::Split& s, const std::vector<std::size_t>& points) {
    std::vector<double> out(2 * points.size(), 1.0);
    if (s.fold == 1) out[points.size()] = NAN;
    return out;
  };
  CHECK_THROWS_WITH_AS(cv::grid_search(grid, folds, mlt::Names{"mse", "mae"}, nan_second),
                       "mae is not finite at v=1, fold 2", mlt::DataError);
  CHECK_THROWS_AS(cv::grid_search(grid, folds, mlt::Names{"mse", "nope"}, one_each), mlt::UsageError);
}

TEST_CASE("make_split_scorer: one fit per point and split, scored by every metric") {
  const cv::Grid grid = values_grid("1,2");
  const arma::mat X(6, 1, arma::fill::ones), Y(6, 1, arma::fill::zeros);
  const cv::ApplyFn<Counted> apply = [](Counted::Params& p, const std::vector<cv::Value>& v) { p.v = v[0].number; };
  const std::vector<cv::ScoreFn<Counted, arma::mat>> scores = {
      [](const Counted& e, const arma::mat&, const arma::mat&) { return e.params.v; },
      [](const Counted& e, const arma::mat&, const arma::mat&) { return -e.params.v; },
      [](const Counted&, const arma::mat& Xt, const arma::mat&) { return static_cast<double>(Xt.n_rows); }};
  const cv::SplitScorer s = cv::make_split_scorer<Counted, arma::mat>(grid, {}, apply, X, Y, scores);
  Counted::fits = 0;
  const cv::Folds folds = cv::kfold(6, 3, 0);
  const std::vector<double> out = s(folds.split(0), {0, 1});
  CHECK(Counted::fits == 2);
  CHECK(out == std::vector<double>{1, 2, -1, -2, 2, 2});
}

}  // namespace metrics_cv_test
