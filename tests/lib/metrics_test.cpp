// The metrics (mlt/metrics.hpp) against scikit-learn's sklearn.metrics on the inputs
// of tests/fixtures/metrics/reference.json (scripts/fixtures/metrics.py), through
// the registry and directly; and the registry itself.
#include "mlt/metrics.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "mlt/core/error.hpp"
#include "test_util.hpp"

namespace metrics_test {

namespace {

using mlt::test::labels_of;
using mlt::test::rows_of;

namespace metrics = mlt::metrics;

const nlohmann::json& reference() {
  static const nlohmann::json ref = [] {
    return mlt::test::read_json_fixture("tests/fixtures/metrics/reference.json");
  }();
  return ref;
}

// Tolerance: each value is a sum of at most 10 terms of magnitude below 100 (log_loss:
// below 35), which the two implementations add in different orders: a few hundred ulps
// at most. 1e-12 relative to max(1, |value|) covers that with a wide margin and is far
// below any difference of definition (log_loss clipped at 2.2e-16 instead of 1e-15
// moves the probabilities_0_and_1 case by 0.6; dropping a class from f1_macro by 0.1).
// log_loss also differs by construction: scikit-learn clips p = 1 to 1 - 1e-15 and
// renormalizes each row, moving a loss by about 1e-15 absolute.
void check_close(double got, double want) { CHECK(std::abs(got - want) <= 1e-12 * std::max(1.0, std::abs(want))); }

}  // namespace

TEST_CASE("regression metrics = sklearn (several targets averaged, constant targets)") {
  for (const auto& c : reference().at("regression")) {
    CAPTURE(c.at("name").get<std::string>());
    const arma::mat Y = rows_of(c.at("y")), P = rows_of(c.at("p"));
    for (const std::string name : {"mse", "rmse", "mae", "r2"}) {
      CAPTURE(name);
      check_close(metrics::regression_score(name, Y, P), c.at(name).get<double>());
    }
    check_close(metrics::mse(Y, P), c.at("mse").get<double>());
    check_close(metrics::r2(Y, P), c.at("r2").get<double>());
  }
}

TEST_CASE("classification metrics = sklearn (absent classes, probabilities 0 and 1)") {
  for (const auto& c : reference().at("classification")) {
    CAPTURE(c.at("name").get<std::string>());
    const mlt::Labels y = labels_of(c.at("y")), p = labels_of(c.at("p"));
    const arma::mat proba = rows_of(c.at("proba"));
    const std::size_t k = c.at("n_classes").get<std::size_t>();
    for (const std::string name : {"accuracy", "balanced_accuracy", "f1_macro", "log_loss"}) {
      CAPTURE(name);
      check_close(metrics::classification_score(name, y, p, &proba), c.at(name).get<double>());
    }
    // With the true class count instead of classification_score's bound: the classes
    // without samples above the largest index change nothing.
    check_close(metrics::balanced_accuracy(y, p, k + 2), c.at("balanced_accuracy").get<double>());
    check_close(metrics::f1_macro(y, p, k + 2), c.at("f1_macro").get<double>());
    check_close(metrics::log_loss(y, proba), c.at("log_loss").get<double>());
  }
}

TEST_CASE("agreement metrics = sklearn (permuted ids, one cluster)") {
  for (const auto& c : reference().at("agreement")) {
    CAPTURE(c.at("name").get<std::string>());
    const mlt::Labels a = labels_of(c.at("a")), b = labels_of(c.at("b"));
    check_close(metrics::agreement_score("ari", a, b), c.at("ari").get<double>());
    check_close(metrics::agreement_score("nmi", a, b), c.at("nmi").get<double>());
  }
}

TEST_CASE("registry: every name round-trips, task lists in report order, unknown names throw") {
  std::set<std::string> seen;
  for (const metrics::Metric& m : metrics::registry()) {
    const std::string name(m.name);
    CAPTURE(name);
    CHECK(seen.insert(name).second);  // unique
    CHECK(metrics::find(name).name == m.name);
    CHECK(&metrics::find(name) == &m);
    CHECK(metrics::higher_is_better(name) == m.higher_is_better);
    const mlt::Names listed = metrics::names(m.task);
    CHECK(std::find(listed.begin(), listed.end(), name) != listed.end());
    // The function, when there is one, is the task's.
    CHECK((m.regression != nullptr) + (m.classification != nullptr) + (m.agreement != nullptr) <= 1);
    if (m.regression) CHECK(m.task == metrics::Task::regression);
    if (m.classification) CHECK(m.task == metrics::Task::classification);
    if (m.agreement) CHECK(m.task == metrics::Task::clustering);
    CHECK((m.needs_probabilities <= (m.classification != nullptr)));
  }
  CHECK(metrics::names(metrics::Task::regression) == mlt::Names{"mse", "rmse", "mae", "r2"});
  CHECK(metrics::names(metrics::Task::classification) ==
        mlt::Names{"accuracy", "balanced_accuracy", "f1_macro", "log_loss", "roc_auc", "average_precision", "brier"});
  CHECK(metrics::names(metrics::Task::classification, false) ==
        mlt::Names{"accuracy", "balanced_accuracy", "f1_macro", "roc_auc", "average_precision"});
  CHECK(metrics::names(metrics::Task::classification, false, false) ==
        mlt::Names{"accuracy", "balanced_accuracy", "f1_macro"});
  CHECK(metrics::names(metrics::Task::decomposition) ==
        mlt::Names{"reconstruction_mse", "log_likelihood", "projection_error"});
  CHECK(metrics::names(metrics::Task::clustering) == mlt::Names{"inertia", "silhouette", "ari", "nmi"});
  CHECK_FALSE(metrics::higher_is_better("mse"));
  CHECK(metrics::higher_is_better("r2"));
  CHECK_FALSE(metrics::higher_is_better("log_loss"));
  CHECK(metrics::higher_is_better("silhouette"));

  const mlt::Labels y = {0, 1}, p = {0, 0};
  const arma::mat Y(2, 1, arma::fill::ones);
  for (const std::string unknown : {"", "MSE", "accuracy ", "neg_mean_squared_error"}) {
    CAPTURE(unknown);
    CHECK_THROWS_AS(metrics::find(unknown), mlt::UsageError);
    CHECK_THROWS_AS(metrics::higher_is_better(unknown), mlt::UsageError);
    CHECK_THROWS_AS(metrics::regression_score(unknown, Y, Y), mlt::UsageError);
    CHECK_THROWS_AS(metrics::classification_score(unknown, y, p, nullptr), mlt::UsageError);
  }
  // A known metric of another task, or log_loss without probabilities: a caller's bug.
  const auto status = mlt::kExitSoftware;
  mlt::test::error_message([&] { metrics::regression_score("accuracy", Y, Y); }, status);
  mlt::test::error_message([&] { metrics::classification_score("mse", y, p, nullptr); }, status);
  mlt::test::error_message([&] { metrics::classification_score("log_loss", y, p, nullptr); }, status);
  mlt::test::error_message([&] { metrics::agreement_score("inertia", y, p); }, status);
}

}  // namespace metrics_test
