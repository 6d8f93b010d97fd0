// ROC and precision-recall curves (declared in metrics.hpp), as scikit-learn computes
// them: counts of true and false positives above each distinct score.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/metrics.hpp"

namespace mlt::metrics {
namespace {

// Positives and negatives at or above each distinct score, highest first.
struct Counts {
  std::vector<double> thresholds, tp, fp;
  double positives = 0, negatives = 0;
};

Counts count(const Labels& positive, const arma::vec& scores, const char* what) {
  if (positive.n_elem != scores.n_elem)
    throw Error(std::string(what) + ": " + std::to_string(positive.n_elem) + " labels for " +
                    std::to_string(scores.n_elem) + " scores",
                kExitSoftware);
  for (arma::uword i = 0; i < scores.n_elem; ++i)
    if (!std::isfinite(scores(i))) throw DataError(std::string(what) + ": a score is not a finite number");
  Counts c;
  c.positives = double(arma::accu(positive != 0));
  c.negatives = double(positive.n_elem) - c.positives;
  if (c.positives == 0 || c.negatives == 0)
    throw DataError(std::string(what) + " needs rows of both classes; these rows are all " +
                    (c.positives == 0 ? "negative" : "positive"));
  std::vector<arma::uword> order(scores.n_elem);
  std::iota(order.begin(), order.end(), arma::uword{0});
  std::sort(order.begin(), order.end(), [&](arma::uword a, arma::uword b) { return scores(a) > scores(b); });
  double tp = 0, fp = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    (positive(order[k]) != 0 ? tp : fp) += 1;
    // A threshold after the last row of each run of equal scores.
    if (k + 1 == order.size() || scores(order[k + 1]) != scores(order[k])) {
      c.thresholds.push_back(scores(order[k]));
      c.tp.push_back(tp);
      c.fp.push_back(fp);
    }
  }
  return c;
}

}  // namespace

RankingCurve roc_curve(const Labels& positive, const arma::vec& scores) {
  const Counts c = count(positive, scores, "the ROC curve");
  const std::size_t m = c.thresholds.size();
  RankingCurve r{arma::vec(m + 1), arma::vec(m + 1), arma::vec(m + 1)};
  r.x(0) = r.y(0) = 0;
  r.thresholds(0) = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < m; ++k) {
    r.x(k + 1) = c.fp[k] / c.negatives;
    r.y(k + 1) = c.tp[k] / c.positives;
    r.thresholds(k + 1) = c.thresholds[k];
  }
  return r;
}

double roc_auc(const Labels& positive, const arma::vec& scores) {
  const RankingCurve r = roc_curve(positive, scores);
  double area = 0;
  for (arma::uword k = 1; k < r.x.n_elem; ++k) area += (r.x(k) - r.x(k - 1)) * (r.y(k) + r.y(k - 1)) / 2;
  return area;
}

RankingCurve precision_recall_curve(const Labels& positive, const arma::vec& scores) {
  const Counts c = count(positive, scores, "the precision-recall curve");
  const std::size_t m = c.thresholds.size();
  RankingCurve r{arma::vec(m + 1), arma::vec(m + 1), arma::vec(m + 1)};
  r.x(0) = 0;
  r.y(0) = 1;
  r.thresholds(0) = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < m; ++k) {
    r.x(k + 1) = c.tp[k] / c.positives;
    r.y(k + 1) = c.tp[k] / (c.tp[k] + c.fp[k]);  // > 0 rows at or above any threshold
    r.thresholds(k + 1) = c.thresholds[k];
  }
  return r;
}

double average_precision(const Labels& positive, const arma::vec& scores) {
  const RankingCurve r = precision_recall_curve(positive, scores);
  double ap = 0;
  for (arma::uword k = 1; k < r.x.n_elem; ++k) ap += (r.x(k) - r.x(k - 1)) * r.y(k);
  return ap;
}

}  // namespace mlt::metrics
