// The streamed k-means fit (KMeans::fit_stream: the data re-read on every pass)
// against the in-memory one (KMeans::fit), on data handed out in chunks of 1 row up.
//
// The tolerance is zero, and that is derived, not hoped for: the streamed fit runs the
// same per-block code on the same blocks of the same points (kmeans/source.hpp), so
// every sum it makes adds the same values in the same order. The centring is
// ColumnMoments' exact sums (the same bits whatever the chunks), the D²
// weights of k-means++ come from the same screen call on the same operands, the
// assignments are exact nearest centres, and the centroid sums are per-chunk partials
// in row order combined in chunk order. Any difference at all, in a label, a seed row
// or the last bit of a centroid, means the two paths are not doing the same thing.
#include <doctest/doctest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/kmeans.hpp"
#include "mlt/kmeans/seeding.hpp"
#include "mlt/kmeans/source.hpp"
#include "row_passes.hpp"
#include "test_util.hpp"

namespace stream_kmeans_test {

using namespace mlt;

namespace {

// Overlapping Gaussian blobs: n rows, p columns, `centres` blobs, one column offset by
// 1e6 so that the centring matters.
arma::mat blobs(arma::uword n, arma::uword p, arma::uword centres, std::uint64_t seed) {
  const arma::mat C = 3 * test::random_mat(centres, p, seed);
  Random rng(seed + 1);
  arma::mat X(n, p);
  for (arma::uword i = 0; i < n; ++i) {
    const arma::uword c = rng.below(centres);
    for (arma::uword j = 0; j < p; ++j) X(i, j) = C(c, j) + test::random_mat(1, 1, rng.next())(0, 0);
  }
  X.col(0) += 1e6;
  return X;
}

// The two fits are the same bits: labels, centroids (working and original), energy,
// iterations, every restart's energy, the energy history, the sizes.
void check_same(const KMeans& a, const KMeans& b) {
  CHECK(arma::all(a.labels() == b.labels()));
  CHECK(arma::abs(a.centroids() - b.centroids()).max() == 0.0);
  CHECK(arma::abs(a.centroids_original() - b.centroids_original()).max() == 0.0);
  CHECK(a.energy() == b.energy());
  CHECK(a.n_iter() == b.n_iter());
  CHECK(a.stop() == b.stop());
  CHECK(a.best_restart() == b.best_restart());
  CHECK(a.restart_energies() == b.restart_energies());
  CHECK(a.energy_history() == b.energy_history());
  CHECK(arma::all(a.cluster_sizes() == b.cluster_sizes()));
}

}  // namespace

TEST_CASE("ColumnMoments: the same bits whatever the chunks and their order, and accurate on a column of mean 1e9") {
  arma::mat X = test::random_mat(1000, 3, 11);
  X.col(0) += 1e9;
  kmeans::ColumnMoments whole;
  whole.add(X);
  for (arma::uword rows : {1u, 7u, 333u}) {
    CAPTURE(rows);
    kmeans::ColumnMoments parts;
    for (arma::uword r = 0; r < X.n_rows; r += rows) parts.add(X.rows(r, std::min(X.n_rows, r + rows) - 1));
    CHECK(arma::abs(parts.mean() - whole.mean()).max() == 0.0);
    CHECK(arma::abs(parts.scale() - whole.scale()).max() == 0.0);
    // The rows shuffled, cut into chunks, each chunk's moments on their own, merged
    // in reverse, half of them through bytes.
    const arma::mat Y = X.rows(arma::shuffle(arma::regspace<arma::uvec>(0, X.n_rows - 1)));
    std::vector<kmeans::ColumnMoments> each;
    for (arma::uword r = 0; r < Y.n_rows; r += rows) {
      each.emplace_back();
      each.back().add(Y.rows(r, std::min(Y.n_rows, r + rows) - 1));
    }
    kmeans::ColumnMoments merged;
    for (std::size_t i = each.size(); i-- > 0;)
      merged.merge(i % 2 ? kmeans::ColumnMoments::from_bytes(each[i].to_bytes()) : each[i]);
    CHECK(merged.n() == X.n_rows);
    CHECK(arma::abs(merged.mean() - whole.mean()).max() == 0.0);
    CHECK(arma::abs(merged.scale() - whole.scale()).max() == 0.0);
  }
  // Against two passes in long double (64-bit significand: its sums of 1000 terms are
  // within ~1e3 · 2^-64 relative, below a double's ulp). The mean is the exact sum over
  // n to nearest, within an ulp; the variance, Σx²/n − mean² in double-double, within
  // a few units of 2^-104 (mean² + E[x²]), which the square root halves over the sd.
  const double eps = std::numeric_limits<double>::epsilon(), dd = std::ldexp(1.0, -104);
  for (arma::uword j = 0; j < 3; ++j) {
    long double m = 0, v = 0;
    for (arma::uword i = 0; i < X.n_rows; ++i) m += X(i, j);
    m /= X.n_rows;
    for (arma::uword i = 0; i < X.n_rows; ++i) v += (X(i, j) - m) * (X(i, j) - m);
    const double mean = static_cast<double>(m), sd = std::sqrt(static_cast<double>(v / X.n_rows));
    CAPTURE(j);
    CHECK(std::abs(whole.mean()[j] - mean) <= 2 * eps * std::abs(mean));
    CHECK(std::abs(whole.scale()[j] - sd) <= 4 * eps * sd + 16 * dd * (mean * mean + sd * sd) / sd);
  }
  kmeans::ColumnMoments centring_only(false);
  centring_only.add(X);
  CHECK(arma::abs(centring_only.mean() - whole.mean()).max() == 0.0);
  CHECK_THROWS_AS(centring_only.scale(), Error);
  CHECK_THROWS_AS(whole.merge(centring_only), Error);
}

TEST_CASE("kmeans stream: the k-means++ seeding draws the same rows as in memory") {
  const arma::mat X = blobs(2500, 4, 7, 3);
  kmeans::ColumnMoments mom;
  mom.add(X);
  const kmeans::Points P = kmeans::make_points(X, mom.mean(), arma::rowvec());
  const kmeans::Chunking ch(P.n(), P.p(), 60);  // 60 centres: blocks of 1092 rows, 3 chunks
  REQUIRE(ch.n_chunks > 1);
  kmeans::MemorySource mem(P);
  Random r1(5);
  const arma::uvec want = kmeans::seed_kmeanspp(mem, 60, 6, r1);
  for (arma::uword rows : {1u, 100u, 999u}) {
    CAPTURE(rows);
    kmeans::StreamSource streamed(test::passes_of(X, rows), X.n_rows, X.n_cols, mom.mean(), arma::rowvec());
    Random r2(5);
    CHECK(arma::all(kmeans::seed_kmeanspp(streamed, 60, 6, r2) == want));
  }
}

TEST_CASE("kmeans stream: the same model as in memory, for every seeding, chunk size and standardization") {
  const arma::mat X = blobs(3000, 3, 6, 21);
  for (KMeansInit init : {KMeansInit::kmeanspp, KMeansInit::random, KMeansInit::farthest})
    for (bool standardize : {false, true}) {
      KMeansParams p;
      p.k = 40;  // blocks of 1638 rows: 2 chunks, cut by the stream's chunks everywhere
      p.init = init;
      p.n_init = 2;
      p.standardize = standardize;
      const KMeans mem = KMeans(p).fit(X);
      for (arma::uword rows : {1u, 37u, 1000u, 5000u}) {
        CAPTURE(name_of(init));
        CAPTURE(standardize);
        CAPTURE(rows);
        auto opened = std::make_shared<int>(0);
        KMeans streamed(p);
        streamed.fit_stream(test::passes_of(X, rows, opened));
        check_same(streamed, mem);
        CHECK(static_cast<std::size_t>(*opened) == streamed.data_passes());
        // At least the centring pass and one per Lloyd iteration of each restart.
        CHECK(streamed.data_passes() > mem.total_iterations());
        // A source that holds its chunks (a rank's part): its points are prepared once
        // into one matrix, the passes read that, and the model is the same bits.
        auto held_opened = std::make_shared<int>(0);
        KMeans held(p);
        held.fit_stream(test::held(test::passes_of(X, rows, held_opened)));
        check_same(held, mem);
        CHECK(held.data_passes() == 2);  // the counting pass and the preparing one
        CHECK(*held_opened == 1);        // of the rows themselves: one read
      }
    }
}

TEST_CASE("kmeans stream: the BLAS screen (k·p past the fused kernel's reach) gives the same model too") {
  // p = 100, k = 40: 5 groups of 8 centres x 100 coordinates exceed the fused
  // kernel's 3072 values, so the screen is one GEMM per block, whose rounding depends
  // on the block: the streamed fit makes the same calls on the same blocks.
  const arma::mat X = blobs(1200, 100, 10, 8);
  KMeansParams p;
  p.k = 40;
  p.max_iter = 30;
  const KMeans mem = KMeans(p).fit(X);
  KMeans streamed(p);
  streamed.fit_stream(test::passes_of(X, 250));
  check_same(streamed, mem);
}

TEST_CASE("kmeans stream: predictions of the streamed model equal the in-memory model's") {
  const arma::mat X = blobs(800, 5, 4, 2);
  KMeansParams p;
  p.k = 4;
  const KMeans mem = KMeans(p).fit(X);
  KMeans streamed(p);
  streamed.fit_stream(test::passes_of(X, 64));
  const arma::mat T = blobs(200, 5, 4, 99);
  CHECK(arma::all(streamed.predict(T) == mem.predict(T)));
  CHECK(arma::abs(streamed.distances(T) - mem.distances(T)).max() == 0.0);
}

TEST_CASE("kmeans stream: refusals as in memory, and data that change between passes") {
  arma::mat dups = {{1, 2}, {1, 2}, {3, 4}, {1, 2}, {3, 4}};
  KMeansParams p;
  p.k = 3;
  CHECK(test::error_message([&] { KMeans(p).fit_stream(test::passes_of(dups, 2)); }, kExitDataError) ==
        test::error_message([&] { KMeans(p).fit(dups); }, kExitDataError));
  p.k = 6;
  CHECK(test::error_message([&] { KMeans(p).fit_stream(test::passes_of(dups, 2)); }, kExitDataError) ==
        test::error_message([&] { KMeans(p).fit(dups); }, kExitDataError));

  // A second pass that finds fewer rows than the first.
  const arma::mat X = blobs(300, 2, 3, 4);
  const arma::mat shorter = X.rows(0, 199);
  auto calls = std::make_shared<int>(0);
  const RowPasses changing = [&, calls]() -> RowChunks {
    return test::passes_of((*calls)++ == 0 ? X : shorter, 50)();
  };
  p.k = 3;
  const std::string m = test::error_message([&] { KMeans(p).fit_stream(changing); }, kExitDataError);
  CHECK(m.find("the data changed while k-means was reading it") != std::string::npos);
}

}  // namespace stream_kmeans_test
