// k-means: exact assignments, monotone energy, empty clusters, determinism, and the
// values of scikit-learn 1.2.1 (tests/fixtures/kmeans/, made by
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
#include "mlt/labels.hpp"
#include "mlt/metrics.hpp"

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

// The plain assignment loop, the definition the fast one must reproduce bit for bit:
// for each row the first centroid of the smallest kmeans::squared_distance (the
// library's documented distance formula; checked against arithmetic below).
void plain_assign(const arma::mat& X, const arma::mat& C, Labels& y, arma::vec& d2) {
  const arma::mat Xt = X.t(), Ct = C.t();  // points as contiguous columns
  y.set_size(X.n_rows);
  d2.set_size(X.n_rows);
  for (arma::uword i = 0; i < X.n_rows; ++i) {
    double best = arma::datum::inf;
    arma::uword bl = 0;
    for (arma::uword l = 0; l < C.n_rows; ++l) {
      const double s = mlt::kmeans::squared_distance(Xt.colptr(i), Ct.colptr(l), X.n_cols);
      if (s < best) {
        best = s;
        bl = l;
      }
    }
    y[i] = bl;
    d2[i] = best;
  }
}

void check_same_as_plain(const arma::mat& X, const arma::mat& C) {
  Labels fast, plain;
  arma::vec df, dp;
  mlt::kmeans::assign(X, C, fast, df);
  plain_assign(X, C, plain, dp);
  CHECK(arma::all(fast == plain));
  CHECK(arma::all(df == dp));  // bit-identical, not merely close
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

TEST_CASE("kmeans: the reference squared distance") {
  // Exactly representable sums: the formula is the plain Σ (a - b)².
  const double a[11] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, b[11] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK(mlt::kmeans::squared_distance(a, b, 11) == 506.0);
  CHECK(mlt::kmeans::squared_distance(a, b, 1) == 1.0);
  CHECK(mlt::kmeans::squared_distance(a, a, 11) == 0.0);
  arma::arma_rng::set_seed(3);
  const arma::vec x = arma::randn(37), z = arma::randn(37);
  CHECK(mlt::kmeans::squared_distance(x.memptr(), z.memptr(), 37) ==
        doctest::Approx(arma::accu(arma::square(x - z))).epsilon(1e-14));
}

TEST_CASE("kmeans: the fast assignment equals the plain loop, ties to the lower index") {
  arma::arma_rng::set_seed(7);
  SUBCASE("random data and centroids") {
    check_same_as_plain(arma::randn(500, 6), arma::randn(9, 6));
  }
  SUBCASE("exact ties: duplicated centroids and midpoints on an integer grid") {
    arma::mat X(121, 2);
    for (int a = 0; a < 11; ++a)
      for (int b = 0; b < 11; ++b) X.row(a * 11 + b) = arma::rowvec{double(a), double(b)};
    const arma::mat C = {{2, 2}, {4, 2}, {2, 2}, {2, 4}, {4, 4}, {8, 8}, {8, 8}};
    check_same_as_plain(X, C);
    Labels y;
    arma::vec d2;
    mlt::kmeans::assign(X, C, y, d2);
    CHECK(y[3 * 11 + 2] == 0);  // (3, 2): equidistant from centroids 0, 1 and 2
    CHECK(y[8 * 11 + 8] == 5);  // on the duplicated centroid (8, 8): the first copy
  }
  SUBCASE("a large offset: the BLAS screen cannot decide, the exact check must") {
    const arma::mat X = 1e8 + arma::randn(300, 3);
    const arma::mat C = 1e8 + arma::randn(5, 3) * 0.5;
    check_same_as_plain(X, C);
  }
  SUBCASE("one centroid, one feature") {
    check_same_as_plain(arma::randn(50, 1), arma::randn(1, 1));
  }
  // The screen has two implementations, chosen by the size of the centroids: a fused
  // register-tiled one (AVX-512 builds, k·p up to about 3000) and one GEMM. Shapes on
  // both sides, with k not a multiple of 8 and several register tiles.
  SUBCASE("k = 50, p = 20 (fused: 7 groups of 8, the last padded)") {
    check_same_as_plain(arma::randn(777, 20), arma::randn(50, 20));
  }
  SUBCASE("k = 131, p = 3 (fused: 17 groups over 3 tiles)") {
    check_same_as_plain(arma::randn(501, 3), arma::randn(131, 3));
  }
  SUBCASE("k = 100, p = 40 (the GEMM screen)") {
    check_same_as_plain(arma::randn(333, 40), arma::randn(100, 40));
  }
}

TEST_CASE("kmeans: squared_distance is its documented formula, bit for bit") {
  // The header's definition, written out: lane j mod 8 accumulates fma(t, t, ·), then
  // ((s0+s4)+(s2+s6))+((s1+s5)+(s3+s7)). The library may vectorize it; the bits must
  // not change, since plain and fast assignments both rest on it.
  arma::arma_rng::set_seed(5);
  for (std::size_t p = 1; p <= 41; ++p) {
    const arma::vec a = arma::randn(p) * 1e3, b = arma::randn(p);
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (std::size_t j = 0; j < p; ++j) {
      const double t = a[j] - b[j];
      s[j % 8] = std::fma(t, t, s[j % 8]);
    }
    const double expected = ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
    CHECK(mlt::kmeans::squared_distance(a.memptr(), b.memptr(), p) == expected);
  }
}

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
  CHECK(mlt::kmeans::silhouette(t.X, km.labels()) == doctest::Approx(ref["silhouette"].get<double>()).epsilon(1e-10));
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

TEST_CASE("kmeans: silhouette against scikit-learn, and its seeded sample") {
  const auto t = read("tests/fixtures/kmeans/silhouette_points.csv");
  const auto ref = reference();
  for (const auto& s : ref["silhouette"]) {
    const Labels y = arma::conv_to<Labels>::from(s["labels"].get<std::vector<arma::uword>>());
    CHECK(mlt::kmeans::silhouette(t.X, y) == doctest::Approx(s["value"].get<double>()).epsilon(1e-10));
  }
  const Labels y = arma::conv_to<Labels>::from(ref["silhouette"][0]["labels"].get<std::vector<arma::uword>>());
  const double exact = mlt::kmeans::silhouette(t.X, y);
  const double a = mlt::kmeans::silhouette(t.X, y, 60, 5), b = mlt::kmeans::silhouette(t.X, y, 60, 5);
  const double c = mlt::kmeans::silhouette(t.X, y, 60, 6);
  CHECK(a == b);          // seeded
  CHECK(a != exact);      // a sample was taken
  CHECK(a != c);          // and depends on the seed
  CHECK(std::abs(a - exact) < 0.1);
  CHECK(mlt::kmeans::silhouette(t.X, y, 90, 5) == exact);  // 90 rows: exact
  CHECK_THROWS_AS(mlt::kmeans::silhouette(t.X, Labels(t.X.n_rows, arma::fill::zeros)), mlt::DataError);
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

TEST_CASE("kmeans: kmeanspp_rows gives distinct seeds spread over separated clusters") {
  arma::mat X(300, 2);
  mlt::Random noise(3);
  for (arma::uword i = 0; i < 300; ++i) {
    const double cx = 100.0 * static_cast<double>(i % 3);
    X(i, 0) = cx + noise.uniform();
    X(i, 1) = noise.uniform();
  }
  mlt::Random rng(11);
  const arma::uvec s = mlt::kmeans::kmeanspp_rows(X, 3, 1, rng);
  CHECK(arma::uvec(arma::unique(s)).n_elem == 3);
  // One seed per cluster (cluster = i mod 3).
  CHECK(arma::uvec(arma::unique(arma::uvec(s - 3 * (s / 3)))).n_elem == 3);
  // Greedy (several candidates per seed): the same.
  mlt::Random rng3(11);
  const arma::uvec g = mlt::kmeans::kmeanspp_rows(X, 3, 4, rng3);
  CHECK(arma::uvec(arma::unique(arma::uvec(g - 3 * (g / 3)))).n_elem == 3);
  // All identical rows: still k distinct indices.
  mlt::Random rng2(1);
  const arma::uvec d = mlt::kmeans::kmeanspp_rows(arma::ones(10, 2), 10, 1, rng2);
  CHECK(arma::uvec(arma::unique(d)).n_elem == 10);
}
