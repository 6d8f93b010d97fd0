// k-means|| (lib/mlt/kmeans/scalable.hpp) on one process: its counter-based draws,
// its centres on well-separated blobs, the weighted k-means++ that ends it, and the
// fit it seeds, which is Lloyd from those centres, bit for bit, in memory or streamed.
// Over several ranks: tests/lib/kmeans/ranks_test.cpp.
#include <doctest/doctest.h>

#include <memory>
#include <set>
#include <vector>

#include "../row_passes.hpp"
#include "../test_util.hpp"
#include "mlt/kmeans.hpp"
#include "mlt/kmeans/scalable.hpp"
#include "mlt/kmeans/source.hpp"

namespace kmeans_scalable_test {

using namespace mlt;
using arma::uword;

namespace {

// `blobs` tight clusters (sd 0.01) around centres 100 apart on a line, one column
// offset by 1e6 (the centring then matters), rows in random order.
arma::mat separated(uword n, uword p, uword blobs, std::uint64_t seed, arma::uvec* truth = nullptr) {
  Random rng(seed);
  arma::mat X = 0.005 * test::random_mat(n, p, seed + 1);
  if (truth) truth->set_size(n);
  for (uword i = 0; i < n; ++i) {
    const uword b = rng.below(blobs);
    X(i, 0) += 100.0 * static_cast<double>(b);
    if (truth) (*truth)[i] = b;
  }
  X.col(p - 1) += 1e6;
  return X;
}

// The same fit, bit for bit.
void check_same(const KMeans& a, const KMeans& b) {
  CHECK(arma::all(a.labels() == b.labels()));
  CHECK(arma::abs(a.centroids() - b.centroids()).max() == 0.0);
  CHECK(a.energy() == b.energy());
  CHECK(a.n_iter() == b.n_iter());
  CHECK(a.energy_history() == b.energy_history());
  CHECK(arma::all(a.cluster_sizes() == b.cluster_sizes()));
}

}  // namespace

TEST_CASE("counter_uniform: a function of (key, round, index) alone, in [0, 1), spread evenly") {
  CHECK(kmeans::counter_uniform(7, 1, 12345) == kmeans::counter_uniform(7, 1, 12345));
  CHECK(kmeans::counter_uniform(7, 1, 12345) != kmeans::counter_uniform(7, 2, 12345));
  CHECK(kmeans::counter_uniform(7, 1, 12345) != kmeans::counter_uniform(8, 1, 12345));
  // 10⁵ consecutive indices: distinct values; their mean within 5 standard errors of
  // 1/2 (sd of a uniform 1/√12, over √n), and each tenth of [0, 1) holds its share
  // within 5 sd of a binomial(n, 0.1).
  const std::size_t n = 100000;
  std::set<double> seen;
  double sum = 0;
  std::vector<double> bins(10, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = kmeans::counter_uniform(42, 3, i);
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    seen.insert(u);
    sum += u;
    bins[static_cast<std::size_t>(u * 10)] += 1;
  }
  CHECK(seen.size() == n);
  CHECK(std::abs(sum / n - 0.5) < 5 * std::sqrt(1.0 / 12 / n));
  for (double b : bins) CHECK(std::abs(b - 0.1 * n) < 5 * std::sqrt(n * 0.1 * 0.9));
}

TEST_CASE("weighted_kmeanspp: distinct indices, never a point of weight zero's twin, heavy points first") {
  // Three groups far apart; in each, one point of weight 1000 and two of weight 1.
  arma::mat Ct(2, 9);
  arma::vec w(9);
  for (uword g = 0; g < 3; ++g)
    for (uword j = 0; j < 3; ++j) {
      Ct(0, 3 * g + j) = 1000.0 * g + j;
      Ct(1, 3 * g + j) = 0;
      w[3 * g + j] = j == 0 ? 1000 : 1;
    }
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Random rng(seed);
    const arma::uvec c = kmeans::weighted_kmeanspp(Ct, w, 3, 3, rng);
    CAPTURE(seed);
    // One per group (the groups are 1000 apart, the points within 2 of each other:
    // a second pick in a group lowers Σ w D² far less than the first in another).
    CHECK(arma::uvec(arma::unique(arma::uvec(c / 3))).n_elem == 3);
  }
  Random rng(5);
  const arma::uvec all = kmeans::weighted_kmeanspp(Ct, w, 9, 1, rng);  // k = m: every point once
  CHECK(arma::uvec(arma::unique(all)).n_elem == 9);
}

TEST_CASE("kmeans||: one centre in each of k well-separated blobs, whatever the seed") {
  for (uword k : {3u, 10u, 25u}) {
    arma::uvec truth;
    const arma::mat X = separated(3000, 3, k, 10 + k, &truth);
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      KMeansParams p;
      p.k = k;
      p.init = KMeansInit::scalable;
      p.seed = seed;
      p.max_iter = 1;  // the seeding's own centres decide the first assignment
      KMeans km(p);
      km.fit(X);
      CAPTURE(k);
      CAPTURE(seed);
      // The seeds' clusters are the blobs: every blob's rows share one label, and
      // no two blobs share one (k labels for k blobs).
      std::set<std::pair<uword, uword>> pairs;
      for (uword i = 0; i < X.n_rows; ++i) pairs.emplace(truth[i], km.labels()[i]);
      CHECK(pairs.size() == k);
      CHECK(arma::uvec(arma::unique(km.labels())).n_elem == k);
    }
  }
}

TEST_CASE("kmeans||: the fit is Lloyd from the seeding's centres, bit for bit, and the same streamed") {
  const arma::mat X = separated(2000, 4, 6, 3) + 3 * test::random_mat(2000, 4, 99);  // overlapping
  for (bool standardize : {false, true}) {
    KMeansParams p;
    p.k = 6;
    p.init = KMeansInit::scalable;
    p.standardize = standardize;
    const KMeans fitted = KMeans(p).fit(X);
    // The seeding again, on the points as the fit prepares them.
    kmeans::ColumnMoments mom;
    mom.add(X);
    const arma::rowvec scale = standardize ? mom.scale() : arma::rowvec();
    const kmeans::Points P = kmeans::make_points(X, mom.mean(), scale);
    kmeans::MemorySource src(P);
    Random master(p.seed);
    const arma::mat seeds =
        kmeans::seed_scalable(src, {0, X.n_rows, X.n_rows}, 6, 2 + 1 /* 2 + ⌊ln 6⌋ */, master.split(), single_process());
    // They are rows of X: those rows as given centroids.
    arma::uvec picked(6, arma::fill::zeros);
    for (uword l = 0; l < 6; ++l) {
      bool found = false;
      for (uword i = 0; i < P.n() && !found; ++i)
        if (arma::all(P.Xt.col(i) == seeds.col(l))) {
          picked[l] = i;
          found = true;
        }
      REQUIRE(found);
    }
    CHECK(fitted.seed_rows() == arma::conv_to<std::vector<std::uint64_t>>::from(picked));
    KMeansParams q = p;
    q.init = KMeansInit::kmeanspp;  // unused: the centroids are given
    const KMeans from = KMeans(q).fit_from(X, X.rows(picked));
    CAPTURE(standardize);
    check_same(fitted, from);
    KMeans streamed(p);
    streamed.fit_stream(test::passes_of(X, 333));
    check_same(fitted, streamed);
  }
}

TEST_CASE("kmeans||: k distinct centres when most rows repeat a few (rounds go on until k are found)") {
  // 2000 copies of one point and 5 other distinct points: k = 6 needs all of them.
  arma::mat X(2005, 2, arma::fill::zeros);
  for (uword j = 0; j < 5; ++j) X.row(2000 + j) = arma::rowvec{1.0 + j, 0.5 * j};
  KMeansParams p;
  p.k = 6;
  p.init = KMeansInit::scalable;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    p.seed = seed;
    const KMeans km = KMeans(p).fit(X);
    CAPTURE(seed);
    // Each distinct point a cluster of its own.
    CHECK(arma::all(arma::sort(km.cluster_sizes()) == arma::uvec{1, 1, 1, 1, 1, 2000}));
  }
}

TEST_CASE("kmeans fit_stream_from: given centroids, streamed, as fit_from in memory") {
  const arma::mat X = separated(1500, 3, 4, 8) + test::random_mat(1500, 3, 5);
  const arma::mat start = X.rows(0, 3) + 0.25;
  KMeansParams p;
  p.k = 0;  // "not given" (the app's default with --centroids): k is the centroids' count
  const KMeans mem = KMeans(p).fit_from(X, start);
  CHECK(mem.params().k == 4);
  KMeans streamed(p);
  streamed.fit_stream_from(test::passes_of(X, 100), start);
  check_same(mem, streamed);
  CHECK(streamed.params().k == 4);
  // A start of the wrong width: the same refusal.
  CHECK(test::error_message([&] { KMeans(p).fit_stream_from(test::passes_of(X, 100), arma::mat(2, 5)); }, kExitDataError) ==
        test::error_message([&] { KMeans(p).fit_from(X, arma::mat(2, 5)); }, kExitDataError));
}

}  // namespace kmeans_scalable_test
