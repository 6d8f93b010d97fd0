#include "mlt/cv/parameter_paths.hpp"

#include <algorithm>
#include <numeric>
#include <optional>

#include "mlt/cv/cross_validate.hpp"
#include "mlt/cv/path_scores.hpp"
#include "mlt/metrics.hpp"

namespace mlt::cv {
namespace {

template <class Target>
std::vector<double> knn_scores(KnnParams params, const std::vector<std::size_t>& ks, const arma::mat& X,
                               const Target& y, const Split& split, const Names& metrics) {
  params.k = *std::max_element(ks.begin(), ks.end());
  const Knn fitted = fit_on_rows<Knn>(params, X, y, split.train());
  const Knn::Neighbors nb = fitted.kneighbors(X.rows(split.test), params.k);
  const Target y_test = take_rows(y, split.test);
  PathScores out(metrics, ks.size());
  for (std::size_t j = 0; j < ks.size(); ++j) {
    if constexpr (std::is_same_v<Target, Labels>) {
      arma::mat proba;
      const Labels pred =
          fitted.vote(nb, ks[j], out.needs_probabilities() || out.needs_scores() ? &proba : nullptr);
      out.classification(j, y_test, pred, &proba);
    } else {
      out.regression(j, y_test, fitted.average(nb, ks[j]));
    }
  }
  return out.take();
}

template <class Target>
std::vector<double> loo_scores(const std::vector<arma::mat>& loo, const std::vector<std::size_t>& points,
                               const Split& split, const Target& y, const Names& metrics) {
  const Target y_test = take_rows(y, split.test);
  PathScores out(metrics, points.size());
  for (std::size_t j = 0; j < points.size(); ++j) {
    const arma::mat P = loo.at(points[j]).rows(split.test);
    if constexpr (std::is_same_v<Target, Labels>)
      out.classification(j, y_test, Smoother::classes_of(P), &P);
    else
      out.regression(j, y_test, P);
  }
  return out.take();
}

}  // namespace

std::vector<double> k_path_scores(const KnnParams& params, const std::vector<std::size_t>& ks, const arma::mat& X,
                                  const Labels& y, const Split& split, const Names& metrics) {
  return knn_scores(params, ks, X, y, split, metrics);
}

std::vector<double> k_path_scores(const KnnParams& params, const std::vector<std::size_t>& ks, const arma::mat& X,
                                  const arma::mat& Y, const Split& split, const Names& metrics) {
  return knn_scores(params, ks, X, Y, split, metrics);
}

bool warm_start_applies(const LogRegParams& params) { return !params.kernelized; }

std::vector<double> lambda_path_scores(const LogRegParams& params, const std::vector<double>& lambdas,
                                       const arma::mat& X, const Labels& y, const Split& split,
                                       const Names& metrics) {
  // By decreasing λ (stable: equal λ keep their order).
  std::vector<std::size_t> order(lambdas.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return lambdas[i] > lambdas[j]; });
  const arma::uvec train = split.train();
  const arma::mat X_train = X.rows(train), X_test = X.rows(split.test);
  const Labels y_train = y.elem(train), y_test = y.elem(split.test);
  const bool warm = warm_start_applies(params);
  PathScores out(metrics, lambdas.size());
  std::optional<LogReg> previous;
  for (std::size_t j : order) {
    LogRegParams q = params;
    q.lambda = lambdas[j];
    LogReg e(q);
    if (warm && previous) e.fit(X_train, y_train, 0, *previous);
    else e.fit(X_train, y_train);
    out.classifier(j, e, X_test, y_test);
    previous = std::move(e);
  }
  return out.take();
}

std::vector<double> lambda_path_scores(const SvmParams& params, const std::vector<double>& lambdas,
                                       const arma::mat& X, const Labels& y, const Split& split,
                                       const Names& metrics) {
  const arma::uvec train = split.train();
  const arma::mat X_test = X.rows(split.test);
  const Labels y_test = y.elem(split.test);
  PathScores out(metrics, lambdas.size());
  Svm::fit_lambda_path(params, lambdas, X.rows(train), y.elem(train), 0,
                       [&](std::size_t j, const Svm& e) { out.classifier(j, e, X_test, y_test); });
  return out.take();
}

SmootherLoo::SmootherLoo(const arma::mat& X, const arma::mat& Y, const SmootherParams& base,
                         const std::vector<SmootherParams>& points) {
  Smoother all(base);
  all.fit(X, Y);
  predict_all(all, points);
}

SmootherLoo::SmootherLoo(const arma::mat& X, const Labels& y, const SmootherParams& base,
                         const std::vector<SmootherParams>& points) {
  Smoother all(base);
  all.fit(X, y);
  predict_all(all, points);
}

void SmootherLoo::predict_all(const Smoother& fitted, const std::vector<SmootherParams>& points) {
  loo_.reserve(points.size());
  for (const SmootherParams& q : points) loo_.push_back(fitted.loo_predict(q.bandwidth, q.window));
}

std::vector<double> SmootherLoo::scores(const std::vector<std::size_t>& points, const Split& split,
                                        const arma::mat& Y, const Names& metrics) const {
  return loo_scores(loo_, points, split, Y, metrics);
}

std::vector<double> SmootherLoo::scores(const std::vector<std::size_t>& points, const Split& split, const Labels& y,
                                        const Names& metrics) const {
  return loo_scores(loo_, points, split, y, metrics);
}

}  // namespace mlt::cv
