// The classification report, the Brier score, the one-vs-rest ranking metrics and the
// per-target regression metrics (declared in metrics.hpp), as scikit-learn defines them.
#include <cmath>
#include <string>

#include "mlt/core/error.hpp"
#include "mlt/metrics.hpp"

namespace mlt::metrics {
namespace {

double ratio0(double a, double b) { return b == 0 ? 0.0 : a / b; }  // zero_division=0

void check_rows(arma::uword labels, arma::uword rows, const char* what) {
  if (labels != rows)
    throw Error(std::string("internal: ") + what + ": " + std::to_string(labels) + " labels for " +
                    std::to_string(rows) + " score rows",
                kExitSoftware);
  if (labels == 0) throw DataError("no samples to score");
}

// The score column of each one-vs-rest problem: for two classes the second class's
// (a single column, or the second of two), else column k for class k.
template <class Binary>
double one_vs_rest(const Labels& y, const arma::mat& scores, std::size_t n_classes, const char* what, Binary binary) {
  check_rows(y.n_elem, scores.n_rows, what);
  if (n_classes < 2) throw DataError(std::string(what) + " needs two classes or more");
  if (n_classes == 2 && (scores.n_cols == 1 || scores.n_cols == 2))
    return binary(Labels(arma::conv_to<Labels>::from(y == 1)), arma::vec(scores.col(scores.n_cols - 1)));
  if (scores.n_cols != n_classes)
    throw Error(std::string("internal: ") + what + ": " + std::to_string(scores.n_cols) + " score columns for " +
                    std::to_string(n_classes) + " classes",
                kExitSoftware);
  double sum = 0;
  for (std::size_t k = 0; k < n_classes; ++k) {
    const Labels positive = arma::conv_to<Labels>::from(y == k);
    if (positive.n_elem && (arma::accu(positive) == 0 || arma::accu(positive) == positive.n_elem))
      throw DataError(std::string(what) + " one-vs-rest needs rows of every class and of others; class " +
                      std::to_string(k + 1) + " of " + std::to_string(n_classes) +
                      (arma::accu(positive) == 0 ? " has none" : " has them all"));
    sum += binary(positive, arma::vec(scores.col(k)));
  }
  return sum / static_cast<double>(n_classes);
}

}  // namespace

ClassificationReport classification_report(const Labels& y, const Labels& prediction, std::size_t n_classes) {
  const arma::umat c = confusion_matrix(y, prediction, n_classes);
  ClassificationReport r;
  std::vector<arma::uword> present;
  for (std::size_t k = 0; k < n_classes; ++k)
    if (arma::accu(c.row(k)) + arma::accu(c.col(k)) > 0) present.push_back(k);
  const arma::uword m = present.size();
  r.classes = Labels(present);
  r.precision.set_size(m);
  r.recall.set_size(m);
  r.f1.set_size(m);
  r.support.set_size(m);
  for (arma::uword j = 0; j < m; ++j) {
    const arma::uword k = present[j];
    const double tp = static_cast<double>(c(k, k));
    const double actual = static_cast<double>(arma::accu(c.row(k)));
    const double predicted = static_cast<double>(arma::accu(c.col(k)));
    r.precision(j) = ratio0(tp, predicted);
    r.recall(j) = ratio0(tp, actual);
    // F1 from the counts, 2tp / (actual + predicted), as scikit-learn computes it
    // (not from the rounded precision and recall).
    r.f1(j) = ratio0(2 * tp, actual + predicted);
    r.support(j) = static_cast<arma::uword>(actual);
  }
  const double md = static_cast<double>(m);
  r.macro_precision = arma::accu(r.precision) / md;
  r.macro_recall = arma::accu(r.recall) / md;
  r.macro_f1 = arma::accu(r.f1) / md;
  const arma::vec w = arma::conv_to<arma::vec>::from(r.support);
  const double total = arma::accu(w);
  r.weighted_precision = ratio0(arma::dot(w, r.precision), total);
  r.weighted_recall = ratio0(arma::dot(w, r.recall), total);
  r.weighted_f1 = ratio0(arma::dot(w, r.f1), total);
  return r;
}

double brier(const Labels& y, const arma::mat& probabilities) {
  check_rows(y.n_elem, probabilities.n_rows, "brier");
  const arma::uword k = probabilities.n_cols;
  double sum = 0;
  for (arma::uword i = 0; i < y.n_elem; ++i) {
    if (y(i) >= k) throw Error("internal: class index out of range", kExitSoftware);
    if (k == 2) {
      const double d = probabilities(i, 1) - (y(i) == 1 ? 1.0 : 0.0);
      sum += d * d;
    } else {
      for (arma::uword j = 0; j < k; ++j) {
        const double d = probabilities(i, j) - (y(i) == j ? 1.0 : 0.0);
        sum += d * d;
      }
    }
  }
  return sum / static_cast<double>(y.n_elem);
}

double roc_auc_ovr(const Labels& y, const arma::mat& scores, std::size_t n_classes) {
  return one_vs_rest(y, scores, n_classes, "roc_auc", [](const Labels& p, const arma::vec& s) { return roc_auc(p, s); });
}

double average_precision_ovr(const Labels& y, const arma::mat& scores, std::size_t n_classes) {
  return one_vs_rest(y, scores, n_classes, "average_precision",
                     [](const Labels& p, const arma::vec& s) { return average_precision(p, s); });
}

PerTarget per_target(const arma::mat& Y, const arma::mat& P) {
  if (Y.n_rows != P.n_rows || Y.n_cols != P.n_cols)
    throw DataError(std::to_string(Y.n_elem) + " true values but " + std::to_string(P.n_elem) + " predictions");
  PerTarget t;
  const arma::uword k = Y.n_cols;
  t.mse.set_size(k);
  t.rmse.set_size(k);
  t.mae.set_size(k);
  t.r2.set_size(k);
  for (arma::uword j = 0; j < k; ++j) {
    const arma::mat y = Y.col(j), p = P.col(j);
    t.mse(j) = mse(y, p);
    t.rmse(j) = rmse(y, p);
    t.mae(j) = mae(y, p);
    t.r2(j) = r2(y, p);
  }
  return t;
}

}  // namespace mlt::metrics
