#include "mlt/cv/lambda_path.hpp"

#include <algorithm>

#include "mlt/core/error.hpp"
#include "mlt/cv/cross_validate.hpp"
#include "mlt/cv/path_scores.hpp"
#include "mlt/metrics.hpp"
#include "mlt/ridge_path.hpp"

namespace mlt::cv {
namespace {

// Fails early, before any decomposition, for a metric the scores cannot use.
void check_metrics(const Names& metrics) {
  for (const std::string& metric : metrics)
    if (metrics::find(metric).task != metrics::Task::regression)
      throw UsageError("`metric` " + metric + " is not a regression metric");
}

bool enough_lambdas(const std::vector<double>& lambdas) { return lambdas.size() >= 2; }

// What the library's leave-one-out closed form of each estimator is called.
std::vector<std::optional<arma::mat>> loo_predict(const RidgeParams& p, const std::vector<double>& l,
                                                  const arma::mat& X, const arma::mat& Y) {
  return ridge_loo_predict(p, l, X, Y);
}
std::vector<std::optional<arma::mat>> loo_predict(const KrrParams& p, const std::vector<double>& l,
                                                  const arma::mat& X, const arma::mat& Y) {
  return krr_loo_predict(p, l, X, Y);
}

}  // namespace

bool lambda_path_applies(const RidgeParams&, const std::vector<double>& lambdas) {
  return enough_lambdas(lambdas) && std::all_of(lambdas.begin(), lambdas.end(), [](double l) { return l > 0; });
}

bool lambda_path_applies(const KrrParams& params, const std::vector<double>& lambdas) {
  return enough_lambdas(lambdas) && params.nystrom == 0;
}

std::vector<double> lambda_path_scores(const RidgeParams& params, const std::vector<double>& lambdas,
                                       const arma::mat& X, const arma::mat& Y, const Split& split,
                                       const Names& metrics) {
  check_metrics(metrics);
  const arma::mat Y_test = Y.rows(split.test);
  const arma::uvec train = split.train();
  const std::vector<arma::mat> P = ridge_path_predict(params, lambdas, X.rows(train), Y.rows(train), X.rows(split.test));
  PathScores out(metrics, P.size());
  for (std::size_t i = 0; i < P.size(); ++i) out.regression(i, Y_test, P[i]);
  return out.take();
}

std::vector<double> lambda_path_scores(const KrrParams& params, const std::vector<double>& lambdas,
                                       const arma::mat& X, const arma::mat& Y, const Split& split,
                                       const Names& metrics) {
  check_metrics(metrics);
  const arma::uvec train = split.train();
  const arma::mat X_train = X.rows(train), Y_train = Y.rows(train), X_test = X.rows(split.test);
  const arma::mat Y_test = Y.rows(split.test);
  const std::vector<std::optional<arma::mat>> P = krr_path_predict(params, lambdas, X_train, Y_train, X_test);
  PathScores out(metrics, P.size());
  for (std::size_t i = 0; i < P.size(); ++i) {
    if (P[i]) {
      out.regression(i, Y_test, *P[i]);
    } else {
      KrrParams q = params;
      q.lambda = lambdas[i];
      Krr e(q);
      e.fit(X_train, Y_train);
      out.regression(i, Y_test, e.predict(X_test));
    }
  }
  return out.take();
}

bool loo_path_applies(const RidgeParams& params) { return !params.standardize; }

bool loo_path_applies(const KrrParams& params) { return !params.standardize && params.nystrom == 0; }

LooLambdaPath::LooLambdaPath(const arma::mat& X, const arma::mat& Y, Names metrics, std::size_t n_groups)
    : X_(X), Y_(Y), metrics_(std::move(metrics)) {
  check_metrics(metrics_);
  groups_.reserve(n_groups);
  for (std::size_t g = 0; g < n_groups; ++g) groups_.push_back(std::make_unique<Group>());
}

template <class Estimator>
std::vector<double> LooLambdaPath::scores_of(std::size_t group, const typename Estimator::Params& params,
                                             const std::vector<double>& lambdas, const Split& split) {
  Group& g = *groups_.at(group);
  std::call_once(g.once, [&] {
    g.pred = loo_predict(params, lambdas, X_, Y_);
    g.lambdas = lambdas;
    ++decompositions_;
  });
  if (g.lambdas != lambdas) throw Error("internal: LooLambdaPath: other lambdas for the same group", kExitSoftware);
  const arma::uvec& rows = split.test;  // one row
  const arma::mat Y_test = Y_.rows(rows);
  PathScores out(metrics_, lambdas.size());
  for (std::size_t j = 0; j < lambdas.size(); ++j) {
    if (g.pred.at(j)) {
      out.regression(j, Y_test, g.pred[j]->rows(rows));
    } else {
      typename Estimator::Params q = params;
      q.lambda = lambdas[j];
      const Estimator e = fit_on_rows<Estimator>(q, X_, Y_, split.train());
      out.regression(j, Y_test, e.predict(X_.rows(rows)));
    }
  }
  return out.take();
}

std::vector<double> LooLambdaPath::scores(std::size_t group, const RidgeParams& params,
                                          const std::vector<double>& lambdas, const Split& split) {
  return scores_of<Ridge>(group, params, lambdas, split);
}

std::vector<double> LooLambdaPath::scores(std::size_t group, const KrrParams& params,
                                          const std::vector<double>& lambdas, const Split& split) {
  return scores_of<Krr>(group, params, lambdas, split);
}

std::size_t LooLambdaPath::decompositions() const { return decompositions_.load(); }

}  // namespace mlt::cv
