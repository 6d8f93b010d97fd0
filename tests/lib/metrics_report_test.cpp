// The classification report, ROC AUC and average precision (two classes and
// one-vs-rest), the Brier score and the per-target regression metrics (mlt/metrics.hpp)
// against scikit-learn on tests/fixtures/metrics/report.json
// (scripts/fixtures/metrics_report.py), directly and through the registry.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "mlt/core/error.hpp"
#include "mlt/metrics.hpp"
#include "test_util.hpp"

namespace metrics_report_test {

namespace {

using mlt::test::labels_of;
using mlt::test::rows_of;

namespace metrics = mlt::metrics;

const nlohmann::json& reference() {
  static const nlohmann::json ref = [] {
    return mlt::test::read_json_fixture("tests/fixtures/metrics/report.json");
  }();
  return ref;
}

// Tolerance 1e-12 relative to max(1, |value|): every value is a ratio of counts (the
// report: one correctly rounded division, or a mean of at most 4 of them; AUC and AP:
// sums of at most 61 terms in [0, 1], which the two programs add in different orders,
// a few dozen ulps at most), or a sum of at most 75 squares of magnitude below 1e4
// (Brier, the regression metrics), again a few hundred ulps at most. A difference of
// definition is far larger: counting 0/0 as 1 instead of 0 moves a macro average by at
// least 1/4; ties broken instead of halved move an AUC by at least 1/(n+ n-).
void check_close(double got, double want) { CHECK(std::abs(got - want) <= 1e-12 * std::max(1.0, std::abs(want))); }

void check_all(const arma::vec& got, const nlohmann::json& want) {
  REQUIRE(got.n_elem == want.size());
  for (arma::uword i = 0; i < got.n_elem; ++i) check_close(got(i), want[i].get<double>());
}

}  // namespace

TEST_CASE("classification_report = sklearn's (zero_division=0; a class never predicted, one never true)") {
  for (const auto& c : reference().at("classification")) {
    CAPTURE(c.at("name").get<std::string>());
    const mlt::Labels y = labels_of(c.at("y")), p = labels_of(c.at("p"));
    const auto& want = c.at("report");
    const metrics::ClassificationReport r =
        metrics::classification_report(y, p, c.at("n_classes").get<std::size_t>());
    CHECK(arma::all(r.classes == labels_of(want.at("classes"))));
    check_all(r.precision, want.at("precision"));
    check_all(r.recall, want.at("recall"));
    check_all(r.f1, want.at("f1"));
    check_all(arma::conv_to<arma::vec>::from(r.support), want.at("support"));
    check_close(r.macro_precision, want.at("macro")[0].get<double>());
    check_close(r.macro_recall, want.at("macro")[1].get<double>());
    check_close(r.macro_f1, want.at("macro")[2].get<double>());
    check_close(r.weighted_precision, want.at("weighted")[0].get<double>());
    check_close(r.weighted_recall, want.at("weighted")[1].get<double>());
    check_close(r.weighted_f1, want.at("weighted")[2].get<double>());
    // The registry's f1_macro is the report's macro F1.
    check_close(metrics::classification_score("f1_macro", y, p, nullptr), r.macro_f1);
  }
}

TEST_CASE("roc_auc, average_precision, brier = sklearn, of probabilities and of decision values") {
  for (const auto& c : reference().at("classification")) {
    if (!c.contains("roc_auc")) continue;
    CAPTURE(c.at("name").get<std::string>());
    const mlt::Labels y = labels_of(c.at("y")), p = labels_of(c.at("p"));
    const arma::mat proba = rows_of(c.at("proba")), decision = rows_of(c.at("decision"));
    const std::size_t k = c.at("n_classes").get<std::size_t>();
    check_close(metrics::roc_auc_ovr(y, proba, k), c.at("roc_auc").get<double>());
    check_close(metrics::average_precision_ovr(y, proba, k), c.at("average_precision").get<double>());
    check_close(metrics::brier(y, proba), c.at("brier").get<double>());
    check_close(metrics::roc_auc_ovr(y, decision, k), c.at("roc_auc_decision").get<double>());
    check_close(metrics::average_precision_ovr(y, decision, k), c.at("average_precision_decision").get<double>());
    // Through the registry, which takes the class count from the score columns.
    for (const std::string name : {"roc_auc", "average_precision", "brier"})
      check_close(metrics::classification_score(name, y, p, &proba), c.at(name).get<double>());
    check_close(metrics::classification_score("roc_auc", y, p, &decision), c.at("roc_auc_decision").get<double>());
  }
}

TEST_CASE("one-vs-rest refuses a class with no row, naming it") {
  const mlt::Labels y = {0, 1, 1, 0};
  const arma::mat s(4, 3, arma::fill::randu);
  const std::string m = mlt::test::error_message([&] { metrics::roc_auc_ovr(y, s, 3); }, mlt::kExitDataError);
  CHECK(m.find("class 3 of 3 has none") != std::string::npos);
  CHECK_THROWS_AS(metrics::average_precision_ovr(y, s, 3), mlt::DataError);
}

TEST_CASE("per-target regression metrics = sklearn's multioutput=\"raw_values\"; their means the overall ones") {
  for (const auto& c : reference().at("regression")) {
    CAPTURE(c.at("name").get<std::string>());
    const arma::mat Y = rows_of(c.at("y")), P = rows_of(c.at("p"));
    const metrics::PerTarget t = metrics::per_target(Y, P);
    check_all(t.mse.t(), c.at("mse"));
    check_all(t.rmse.t(), c.at("rmse"));
    check_all(t.mae.t(), c.at("mae"));
    check_all(t.r2.t(), c.at("r2"));
    check_close(metrics::mse(Y, P), c.at("mse_all").get<double>());
    check_close(metrics::r2(Y, P), c.at("r2_all").get<double>());
  }
}

}  // namespace metrics_report_test
