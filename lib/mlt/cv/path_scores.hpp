// What a fast path returns for one split: the score of every requested metric for each
// of the group's grid values, metric-major as cv::SplitScorer says. Each value's
// predictions (and class probabilities or scores) are computed once and scored by
// every metric, so `--score a,b,c` costs one path, not three. Internal to the fast
// paths of lambda_path.cpp and parameter_paths.cpp.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "mlt/core/types.hpp"
#include "mlt/cv/cross_validate.hpp"
#include "mlt/metrics.hpp"

namespace mlt::cv {

class PathScores {
 public:
  PathScores(const Names& metrics, std::size_t n_values)
      : metrics_(metrics), n_(n_values), out_(metrics.size() * n_values) {}

  // Whether some metric reads class probabilities, or class scores (roc_auc ...).
  bool needs_probabilities() const { return any(&metrics::Metric::needs_probabilities); }
  bool needs_scores() const { return any(&metrics::Metric::needs_scores); }

  // Value j's predictions P of the targets Y (n x t each).
  void regression(std::size_t j, const arma::mat& Y, const arma::mat& P) {
    for (std::size_t m = 0; m < metrics_.size(); ++m) out_[m * n_ + j] = metrics::regression_score(metrics_[m], Y, P);
  }

  // Value j's predicted classes, and `scores` (class probabilities, or null when no
  // metric needs them) as every metric that reads probabilities or scores reads them.
  void classification(std::size_t j, const Labels& y, const Labels& prediction, const arma::mat* scores) {
    for (std::size_t m = 0; m < metrics_.size(); ++m)
      out_[m * n_ + j] = metrics::classification_score(metrics_[m], y, prediction, scores);
  }

  // Value j's fitted classifier e on the held-out rows X_test: each metric gets what it
  // reads (predict_proba for the probability metrics, class_scores for the ranking
  // ones), each computed at most once.
  template <class E>
  void classifier(std::size_t j, const E& e, const arma::mat& X_test, const Labels& y_test) {
    const Labels prediction = e.predict(X_test);
    std::optional<arma::mat> proba, scores;
    const arma::mat none;
    for (std::size_t m = 0; m < metrics_.size(); ++m) {
      const metrics::Metric& metric = metrics::find(metrics_[m]);
      const arma::mat* read = &none;
      if (metric.needs_probabilities) {
        if constexpr (requires { e.predict_proba(X_test); }) {
          if (!proba) proba = e.predict_proba(X_test);
          read = &*proba;
        }
      } else if (metric.needs_scores) {
        if (!scores) scores = class_scores(e, X_test);
        read = &*scores;
      }
      out_[m * n_ + j] = metrics::classification_score(metrics_[m], y_test, prediction, read);
    }
  }

  std::vector<double> take() { return std::move(out_); }

 private:
  bool any(bool metrics::Metric::*flag) const {
    for (const std::string& name : metrics_)
      if (metrics::find(name).*flag) return true;
    return false;
  }

  const Names& metrics_;
  std::size_t n_;
  std::vector<double> out_;
};

}  // namespace mlt::cv
