// The silhouette coefficient (lib/mlt/metrics_silhouette.cpp) against scikit-learn
// 1.2.1 (tests/fixtures/kmeans/, made by scripts/fixtures/kmeans.py).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mlt/core/error.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/metrics.hpp"

namespace metrics_silhouette_test {

namespace {

using mlt::Labels;

nlohmann::json reference() {
  std::ifstream f(std::string(MLT_SOURCE_DIR) + "/tests/fixtures/kmeans/reference.json");
  REQUIRE(f.good());
  return nlohmann::json::parse(f);
}

mlt::io::Table read(const std::string& name, mlt::Names text = {}) {
  mlt::io::ColumnSelection sel;
  sel.text = std::move(text);
  return mlt::io::read_csv(std::string(MLT_SOURCE_DIR) + "/" + name, {}, sel);
}

}  // namespace

TEST_CASE("metrics: silhouette against scikit-learn, and its seeded sample") {
  const auto t = read("tests/fixtures/kmeans/silhouette_points.csv");
  const auto ref = reference();
  for (const auto& s : ref["silhouette"]) {
    const Labels y = arma::conv_to<Labels>::from(s["labels"].get<std::vector<arma::uword>>());
    CHECK(mlt::metrics::silhouette(t.X, y) == doctest::Approx(s["value"].get<double>()).epsilon(1e-10));
  }
  const Labels y = arma::conv_to<Labels>::from(ref["silhouette"][0]["labels"].get<std::vector<arma::uword>>());
  const double exact = mlt::metrics::silhouette(t.X, y);
  const double a = mlt::metrics::silhouette(t.X, y, 60, 5), b = mlt::metrics::silhouette(t.X, y, 60, 5);
  const double c = mlt::metrics::silhouette(t.X, y, 60, 6);
  CHECK(a == b);          // seeded
  CHECK(a != exact);      // a sample was taken
  CHECK(a != c);          // and depends on the seed
  CHECK(std::abs(a - exact) < 0.1);
  CHECK(mlt::metrics::silhouette(t.X, y, 90, 5) == exact);  // 90 rows: exact
  CHECK_THROWS_AS(mlt::metrics::silhouette(t.X, Labels(t.X.n_rows, arma::fill::zeros)), mlt::DataError);
}

}  // namespace metrics_silhouette_test
