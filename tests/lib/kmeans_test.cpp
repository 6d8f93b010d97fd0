// k-means: monotone energy, empty clusters, determinism, and the values of
// scikit-learn 1.2.1 (tests/fixtures/kmeans/, made by
// scripts/fixtures/kmeans.py).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "mlt/core/error.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/kmeans.hpp"
#include "mlt/kmeans/assign.hpp"
#include "mlt/kmeans/seeding.hpp"
#include "mlt/labels.hpp"
#include "mlt/metrics.hpp"

namespace kmeans_test {

namespace {

using mlt::KMeans;
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

// Gaussian blobs (deterministic).
arma::mat blobs(arma::uword n, arma::uword p, arma::uword centres, double spread, unsigned seed) {
  arma::arma_rng::set_seed(seed);
  const arma::mat C = arma::randu(centres, p) * 20.0 - 10.0;
  arma::mat X = arma::randn(n, p) * spread;
  for (arma::uword i = 0; i < n; ++i) X.row(i) += C.row(i % centres);
  return X;
}

}  // namespace

TEST_CASE("kmeans: the energy never increases") {
  const arma::mat X = blobs(3000, 4, 12, 3.0, 11);  // overlapping: many iterations
  for (auto init : {mlt::KMeansInit::kmeanspp, mlt::KMeansInit::random, mlt::KMeansInit::farthest})
    for (std::uint64_t seed : {1, 2, 3}) {
      mlt::KMeansParams p;
      p.k = 12;
      p.init = init;
      p.n_init = 1;
      p.tol = 0;
      p.seed = seed;
      KMeans km(p);
      km.fit(X);
      const auto& h = km.energy_history();
      REQUIRE(h.size() >= 3);
      for (std::size_t t = 1; t < h.size(); ++t) CHECK(h[t] <= h[t - 1]);
      CHECK(h.back() == km.energy());
    }
}

TEST_CASE("kmeans: an empty cluster is re-seeded at the point contributing most to E") {
  const arma::mat X = arma::mat{0, 1, 2, 10, 11}.t();  // 5 x 1
  // The third centroid attracts nobody: its cluster is empty after the first step.
  // Point 0 (x = 0, d² = 1, tied with x = 2, the first wins) moves to it.
  const arma::mat C0 = arma::mat{1, 10.5, 100}.t();
  mlt::KMeansParams p;
  p.tol = 0;
  KMeans km(p);
  km.fit_from(X, C0);
  const Labels expected = {2, 0, 0, 1, 1};
  CHECK(arma::all(km.labels() == expected));
  CHECK(arma::all(km.cluster_sizes() == arma::uvec{2, 2, 1}));
  const arma::mat C = km.centroids_original();
  CHECK(C(0, 0) == doctest::Approx(1.5).epsilon(1e-14));
  CHECK(C(1, 0) == doctest::Approx(10.5).epsilon(1e-14));
  CHECK(std::abs(C(2, 0)) < 1e-14);
  CHECK(km.energy() == doctest::Approx(1.0).epsilon(1e-14));
  CHECK(C.is_finite());
  for (std::size_t t = 1; t < km.energy_history().size(); ++t)
    CHECK(km.energy_history()[t] <= km.energy_history()[t - 1]);
}

TEST_CASE("kmeans: k against the number of distinct rows") {
  arma::mat X(12, 2);
  for (arma::uword i = 0; i < 12; ++i) X.row(i) = arma::rowvec{double(i % 3), 1.0};  // 3 distinct rows
  CHECK(mlt::kmeans::count_distinct_rows(X) == 3);
  mlt::KMeansParams p;
  p.k = 4;
  CHECK_THROWS_WITH_AS(KMeans(p).fit(X), "k=4 > 3 distinct rows", mlt::DataError);
  p.k = 13;
  CHECK_THROWS_WITH_AS(KMeans(p).fit(X), "k=13 > n_samples=12", mlt::DataError);
  const arma::mat same(5, 3, arma::fill::ones);
  p.k = 2;
  CHECK_THROWS_WITH_AS(KMeans(p).fit(same), "k=2 > 1 distinct rows (all rows are identical)", mlt::DataError);
  // k equal to the distinct rows: every seeding finds them, E = 0, no empty cluster.
  for (auto init : {mlt::KMeansInit::kmeanspp, mlt::KMeansInit::random, mlt::KMeansInit::farthest}) {
    p.k = 3;
    p.init = init;
    KMeans km(p);
    km.fit(X);
    CHECK(km.energy() == 0);
    CHECK(arma::all(km.cluster_sizes() == 4));
  }
  p.k = 0;
  CHECK_THROWS_AS(KMeans(p).fit(X), mlt::UsageError);
  p.k = 2;
  p.tol = -1;
  CHECK_THROWS_AS(KMeans(p).fit(X), mlt::UsageError);
}

TEST_CASE("kmeans: the same seed gives the same model whatever the thread count") {
  // Large enough for several chunks of work.
  const arma::mat X = blobs(20000, 5, 20, 2.5, 3);
  mlt::KMeansParams p;
  p.k = 20;
  p.n_init = 3;
  p.seed = 123;
  auto fit_with = [&](unsigned threads) {
    mlt::set_thread_count(threads);
    KMeans km(p);
    km.fit(X);
    mlt::io::ModelWriter w(KMeans::kind);
    km.save(w);
    return std::make_pair(km, w.bytes());
  };
  const auto [one, one_bytes] = fit_with(1);
  const auto [two, two_bytes] = fit_with(2);
  const auto [three, three_bytes] = fit_with(3);
  mlt::set_thread_count(0);
  CHECK(one_bytes == two_bytes);
  CHECK(one_bytes == three_bytes);
  CHECK(arma::all(one.labels() == two.labels()));
  CHECK(one.restart_energies() == three.restart_energies());
  // Restarts are independent streams: they did not all give the same result. On these
  // overlapping blobs (20 centres in [-10, 10]^5, spread 2.5) the three seedings end
  // in different local minima (energies 586998, 606877, 605593 when written): restarts
  // that reused one seeding would give three equal energies.
  REQUIRE(one.n_restarts() == 3);
  const std::vector<double>& e = one.restart_energies();
  const auto [lo, hi] = std::minmax_element(e.begin(), e.end());
  CHECK(*hi - *lo > 1e-3 * *hi);
  // And the model predicts its own training labels, with inertia = final energy.
  CHECK(arma::all(one.predict(X) == one.labels()));
  CHECK(one.inertia(X) == one.energy());
}

TEST_CASE("kmeans: iris, k = 3, 10 restarts, as scikit-learn") {
  const auto ref = reference()["iris"];
  const auto t = read("data/iris.csv", {"species"});
  mlt::KMeansParams p;
  p.k = 3;
  p.n_init = 10;
  KMeans km(p);
  km.fit(t.X);
  const double sk = ref["inertia"].get<double>();
  CHECK(std::abs(km.energy() - sk) <= 1e-6 * sk);
  // The same partition (ARI 1 against scikit-learn's labels) and the same centroids,
  // matched through the labels.
  const Labels sk_labels = arma::conv_to<Labels>::from(ref["labels"].get<std::vector<arma::uword>>());
  CHECK(mlt::metrics::adjusted_rand_index(km.labels(), sk_labels) == doctest::Approx(1.0).epsilon(1e-12));
  const auto centers = ref["centers"].get<std::vector<std::vector<double>>>();
  const arma::mat C = km.centroids_original();
  for (arma::uword i = 0; i < t.X.n_rows; ++i)
    for (arma::uword j = 0; j < 4; ++j)
      CHECK(C(km.labels()[i], j) == doctest::Approx(centers[sk_labels[i]][j]).epsilon(1e-12));

  // Scores of that clustering against the species, and its silhouette.
  mlt::LabelEncoder enc;
  const Labels species = enc.fit_encode(t.text_column("species").values);
  CHECK(mlt::metrics::adjusted_rand_index(species, km.labels()) ==
        doctest::Approx(ref["ari_species"].get<double>()).epsilon(1e-12));
  CHECK(mlt::metrics::normalized_mutual_info(species, km.labels()) ==
        doctest::Approx(ref["nmi_species"].get<double>()).epsilon(1e-12));
  CHECK(mlt::metrics::silhouette(t.X, km.labels()) == doctest::Approx(ref["silhouette"].get<double>()).epsilon(1e-10));
}

TEST_CASE("kmeans: the default stops at Lloyd's fixed point, scikit-learn's from the same centres") {
  // 600 overlapping points, 8 given centres (scripts/fixtures/kmeans.py). The fixed
  // point is unique given the start (Lloyd's map is deterministic, and every label wins
  // by over 1e-3 in squared distance), so mlt and scikit-learn's Lloyd at tol=0 must
  // agree: the same labels exactly, and centres that are means of the same points,
  // equal up to the rounding of those sums, well within 1e-12 (coordinates below 20,
  // at most 600 terms: 600 * 20 * 2.2e-16 = 2.6e-12 on a sum, divided by its count).
  const auto ref = reference()["lloyd_fixed_point"];
  const auto t = read("tests/fixtures/kmeans/lloyd_points.csv");
  const arma::mat C0 = read("tests/fixtures/kmeans/lloyd_init.csv").X;
  REQUIRE(t.X.n_rows == 600);
  REQUIRE(C0.n_rows == 8);
  const Labels sk_labels = arma::conv_to<Labels>::from(ref["labels"].get<std::vector<arma::uword>>());
  arma::mat sk_centers(8, 4);
  for (arma::uword l = 0; l < 8; ++l)
    for (arma::uword j = 0; j < 4; ++j) sk_centers(l, j) = ref["centers"][l][j].get<double>();

  mlt::KMeansParams p;
  p.k = 8;
  REQUIRE(p.tol == 0);  // the default is what this test is about
  KMeans km(p);
  km.fit_from(t.X, C0);
  CHECK(km.stop() == mlt::KMeansStop::no_change);
  CHECK(arma::all(km.labels() == sk_labels));
  const arma::mat C = km.centroids_original();
  CHECK(arma::abs(C - sk_centers).max() <= 1e-12);
  CHECK(std::abs(km.energy() - ref["inertia"].get<double>()) <= 1e-12 * km.energy());
  MESSAGE("Lloyd fixed point: " << km.n_iter() << " passes (scikit-learn: " << ref["n_iter"].get<int>()
                                << "), max |centre - scikit-learn's| = " << arma::abs(C - sk_centers).max());

  // A fixed point: one more Lloyd pass from the output changes nothing. Its assignment
  // (exact, by kmeans::assign) keeps every label, and the means of those clusters are
  // the centroids, up to the rounding of a mean (the centroids are kept centred on the
  // training mean, where the sums are taken: 1e-12 again).
  Labels again;
  arma::vec d2;
  mlt::kmeans::assign(t.X, C, again, d2);
  CHECK(arma::all(again == km.labels()));
  for (arma::uword l = 0; l < 8; ++l)
    CHECK(arma::abs(arma::mean(t.X.rows(arma::find(km.labels() == l)), 0) - C.row(l)).max() <= 1e-12);

  // The former default, tol = 1e-4 on the relative decrease of E, stops near the fixed
  // point, not at it: labels still to change.
  p.tol = 1e-4;
  KMeans early(p);
  early.fit_from(t.X, C0);
  CHECK(early.stop() == mlt::KMeansStop::tol);
  const arma::uword differ = arma::accu(early.labels() != sk_labels);
  CHECK(differ > 0);
  MESSAGE("tol 1e-4: stopped after " << early.n_iter() << " passes with " << differ << " labels off the fixed point");
}

TEST_CASE("kmeans: wine standardized, k = 3, as scikit-learn on StandardScaler data") {
  const auto ref = reference()["wine_standardized"];
  const auto t = read("data/wine.csv", {ref["target"].get<std::string>()});
  mlt::KMeansParams p;
  p.k = 3;
  p.n_init = 10;
  p.standardize = true;
  KMeans km(p);
  km.fit(t.X);
  const double sk = ref["inertia"].get<double>();
  CHECK(std::abs(km.energy() - sk) <= 1e-6 * sk);
  CHECK(km.inertia(t.X) == km.energy());
}

TEST_CASE("kmeans: ARI and NMI against scikit-learn on label pairs") {
  const auto ref = reference();  // kept alive: the loop ranges over a part of it
  for (const auto& pair : ref["label_pairs"]) {
    const Labels a = arma::conv_to<Labels>::from(pair["a"].get<std::vector<arma::uword>>());
    const Labels b = arma::conv_to<Labels>::from(pair["b"].get<std::vector<arma::uword>>());
    CHECK(mlt::metrics::adjusted_rand_index(a, b) == doctest::Approx(pair["ari"].get<double>()).epsilon(1e-12));
    CHECK(mlt::metrics::normalized_mutual_info(a, b) == doctest::Approx(pair["nmi"].get<double>()).epsilon(1e-12));
  }
}

TEST_CASE("kmeans: save and load give the same predictions") {
  const arma::mat X = blobs(600, 3, 5, 1.0, 5);
  for (bool standardize : {false, true}) {
    mlt::KMeansParams p;
    p.k = 5;
    p.standardize = standardize;
    KMeans km(p);
    km.fit(X * 3.0 + 100.0);
    mlt::io::ModelWriter w(KMeans::kind);
    km.save(w);
    const auto r = mlt::io::ModelReader::parse(w.bytes(), "test");
    const KMeans back = KMeans::load(r);
    const arma::mat Y = blobs(200, 3, 5, 1.5, 6) * 3.0 + 100.0;
    CHECK(arma::all(back.predict(Y) == km.predict(Y)));
    CHECK(back.inertia(Y) == km.inertia(Y));
    CHECK(arma::approx_equal(back.distances(Y), km.distances(Y), "absdiff", 0.0));
    CHECK(arma::approx_equal(back.centroids_original(), km.centroids_original(), "reldiff", 1e-14));
    CHECK_THROWS_AS(back.predict(arma::mat(3, 2, arma::fill::zeros)), mlt::DataError);
  }
}

}  // namespace kmeans_test
