// k-means over several ranks (KMeans::fit_stream with a communicator;
// kmeans/ranks.hpp, kmeans/scalable.hpp), the ranks run as threads of this process
// with real collectives: the same moments and seeds as one process, bit for bit, for
// any number of ranks and any split of the rows; the same labels; centroids within the bound of
// a different summation order (KMeans::fit_stream derives it); errors on one rank
// reaching all.
#include <doctest/doctest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../row_passes.hpp"
#include "../test_util.hpp"
#include "../ranks_in_threads.hpp"
#include "mlt/core/distributed.hpp"
#include "mlt/core/exact_sum.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/kmeans.hpp"
#include "mlt/kmeans/ranks.hpp"
#include "mlt/kmeans/scalable.hpp"
#include "mlt/kmeans/seeding.hpp"
#include "mlt/kmeans/source.hpp"

namespace kmeans_ranks_test {

using namespace mlt;
using arma::uword;

namespace {

// Runs body on n ranks (threads, tests/lib/ranks_in_threads.hpp): the error each
// rank threw, or null.
std::vector<std::exception_ptr> run_each(int n, const std::function<void(const Communicator&)>& body) {
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
  test::run_ranks(n, [&](const Communicator& comm) {
    try {
      body(comm);
    } catch (...) {
      errors[static_cast<std::size_t>(comm.rank())] = std::current_exception();
    }
  });
  return errors;
}

// Rows [cuts[r], cuts[r + 1]) of X: rank r's part.
arma::mat part(const arma::mat& X, const std::vector<uword>& cuts, int r) {
  return cuts[r + 1] > cuts[r] ? arma::mat(X.rows(cuts[r], cuts[r + 1] - 1)) : arma::mat(0, X.n_cols);
}

// Overlapping blobs (noise 1 around centres 3 apart), a column offset by 1e6.
arma::mat overlapping(uword n, uword p, uword blobs, std::uint64_t seed) {
  const arma::mat C = 3 * test::random_mat(blobs, p, seed);
  Random rng(seed + 1);
  arma::mat X = test::random_mat(n, p, seed + 2);
  for (uword i = 0; i < n; ++i) X.row(i) += C.row(rng.below(blobs));
  X.col(0) += 1e6;
  return X;
}

// The splits tested: 1 to 4 ranks, uneven, one with an empty rank.
std::vector<std::vector<uword>> splits(uword n) {
  return {{0, n}, {0, n / 3, n}, {0, 1, n / 2, n}, {0, n / 4, n / 4, 3 * n / 4, n}, {0, 7, 8, 9, n}};
}

// The centroids of `a` (N ranks) against `b` (one process): within 2 γ_{n_l} Σᵢ |xᵢⱼ|
// / n_l per coordinate (KMeans::fit_stream), x the working-space points of cluster l
// (b's labels: the same as a's, checked before).
void check_centroids_close(const KMeans& a, const KMeans& b, const arma::mat& X, const arma::rowvec& shift,
                           const arma::rowvec& scale) {
  const kmeans::Points P = kmeans::make_points(X, shift, scale);
  const double eps = std::numeric_limits<double>::epsilon();
  for (uword l = 0; l < b.k(); ++l) {
    const arma::uvec in = arma::find(b.labels() == l);
    const double m = static_cast<double>(in.n_elem);
    const double gamma = m * eps / (1 - m * eps);
    const arma::vec abs_sum = arma::sum(arma::abs(P.Xt.cols(in)), 1);
    for (uword j = 0; j < b.n_features(); ++j) {
      CAPTURE(l);
      CAPTURE(j);
      CHECK(std::abs(a.centroids()(l, j) - b.centroids()(l, j)) <= 2 * gamma * abs_sum[j] / m);
    }
  }
}

}  // namespace

TEST_CASE("ranks: exact sums merged over ranks are the one-process sums; other sums in rank order") {
  const arma::mat X = overlapping(1000, 3, 4, 1);
  kmeans::ColumnMoments whole;
  whole.add(X);
  ExactSum whole_sum;
  for (double x : X) whole_sum.add(x);
  for (const auto& cuts : splits(X.n_rows)) {
    const int n = static_cast<int>(cuts.size()) - 1;
    std::vector<arma::rowvec> mean(n), scale(n);
    std::vector<double> sum(n);
    const auto errors = run_each(n, [&](const Communicator& comm) {
      const arma::mat mine = part(X, cuts, comm.rank());
      kmeans::ColumnMoments m;
      m.add(mine);
      const kmeans::ColumnMoments all = kmeans::merge_over_ranks(comm, m);
      mean[comm.rank()] = all.mean();
      scale[comm.rank()] = all.scale();
      ExactSum s;
      for (double x : mine) s.add(x);
      sum[comm.rank()] = kmeans::merge_over_ranks(comm, s).value();
      std::vector<double> v = {1.0 * comm.rank(), 2.0};
      allreduce_sum(comm, v);
      CHECK(v == std::vector<double>{n * (n - 1) / 2.0, 2.0 * n});
    });
    for (int r = 0; r < n; ++r) {
      CAPTURE(n);
      CHECK(!errors[r]);
      CHECK(arma::abs(mean[r] - whole.mean()).max() == 0.0);  // bit for bit
      CHECK(arma::abs(scale[r] - whole.scale()).max() == 0.0);
      CHECK(sum[r] == whole_sum.value());
    }
  }
}

TEST_CASE("kmeans|| over ranks: the same centres as one process, bit for bit, for any split of the rows") {
  const arma::mat X = overlapping(1200, 3, 8, 4);
  kmeans::ColumnMoments mom;
  mom.add(X);
  const kmeans::Points P = kmeans::make_points(X, mom.mean(), arma::rowvec());
  kmeans::MemorySource all(P);
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const arma::mat want = kmeans::seed_scalable(all, {0, X.n_rows, X.n_rows}, 8, 3, seed, single_process());
    for (const auto& cuts : splits(X.n_rows)) {
      const int n = static_cast<int>(cuts.size()) - 1;
      std::vector<arma::mat> got(n);
      const auto errors = run_each(n, [&](const Communicator& comm) {
        const kmeans::Points mine = kmeans::make_points(part(X, cuts, comm.rank()), mom.mean(), arma::rowvec());
        kmeans::MemorySource src(mine);
        const kmeans::RankRows rows = kmeans::rank_rows(comm, mine.n());
        got[comm.rank()] = kmeans::seed_scalable(src, rows, 8, 3, seed, comm);
      });
      for (int r = 0; r < n; ++r) {
        CAPTURE(seed);
        CAPTURE(n);
        CAPTURE(r);
        REQUIRE(!errors[r]);
        CHECK(arma::abs(got[r] - want).max() == 0.0);
      }
    }
  }
}

TEST_CASE("kmeans++ over ranks: the same rows as one process, for any split of the rows") {
  // Duplicated rows (at distance 0 of a seed once it is chosen) and more centres than
  // the blobs, so that draws land near block and rank edges and candidates tie.
  arma::mat X = overlapping(1300, 3, 5, 7);
  X = arma::join_cols(X, X.rows(0, 99));
  kmeans::ColumnMoments mom;
  mom.add(X);
  const kmeans::Points P = kmeans::make_points(X, mom.mean(), arma::rowvec());
  kmeans::MemorySource all(P);
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    Random one(seed);
    arma::mat want_centres;
    const std::vector<std::uint64_t> want = kmeans::seed_kmeanspp(all, {0, X.n_rows, X.n_rows}, 24, 4, one,
                                                                   single_process(), &want_centres);
    REQUIRE(want.size() == 24);
    for (const auto& cuts : splits(X.n_rows)) {
      const int n = static_cast<int>(cuts.size()) - 1;
      std::vector<std::vector<std::uint64_t>> got(n);
      std::vector<arma::mat> centres(n);
      const auto errors = run_each(n, [&](const Communicator& comm) {
        const kmeans::Points mine = kmeans::make_points(part(X, cuts, comm.rank()), mom.mean(), arma::rowvec());
        kmeans::MemorySource src(mine);
        const kmeans::RankRows rows = kmeans::rank_rows(comm, mine.n());
        Random rng(seed);
        got[comm.rank()] = kmeans::seed_kmeanspp(src, rows, 24, 4, rng, comm, &centres[comm.rank()]);
      });
      for (int r = 0; r < n; ++r) {
        CAPTURE(seed);
        CAPTURE(n);
        CAPTURE(r);
        REQUIRE(!errors[r]);
        CHECK(got[r] == want);
        CHECK(arma::abs(centres[r] - want_centres).max() == 0.0);
      }
    }
  }
}

TEST_CASE("kmeans over ranks: the one-process labels, centroids within the summation bound") {
  const arma::mat X = overlapping(1500, 4, 6, 9);
  for (const KMeansInit init : {KMeansInit::scalable, KMeansInit::kmeanspp})
  for (bool standardize : {false, true}) {
    KMeansParams p;
    p.k = 6;
    p.init = init;
    p.n_init = 2;
    p.standardize = standardize;
    const KMeans one = KMeans(p).fit(X);
    kmeans::ColumnMoments mom;
    mom.add(X);
    for (const auto& cuts : splits(X.n_rows)) {
      const int n = static_cast<int>(cuts.size()) - 1;
      std::vector<std::unique_ptr<KMeans>> got(n);
      const auto errors = run_each(n, [&](const Communicator& comm) {
        // Even ranks hold their part (prepared once), odd ranks re-read theirs: a mix.
        const RowPasses mine = test::passes_of(part(X, cuts, comm.rank()), 100);
        got[comm.rank()] = std::make_unique<KMeans>(p);
        got[comm.rank()]->fit_stream(comm.rank() % 2 == 0 ? test::held(mine) : mine, comm);
      });
      CAPTURE(name_of(init));
      CAPTURE(standardize);
      CAPTURE(n);
      for (int r = 0; r < n; ++r) REQUIRE(!errors[r]);
      // Every rank holds the same model, bit for bit.
      for (int r = 1; r < n; ++r) {
        CHECK(arma::abs(got[r]->centroids() - got[0]->centroids()).max() == 0.0);
        CHECK(got[r]->energy() == got[0]->energy());
      }
      // Labels (each rank its rows'), sizes, iterations, restart kept: one process's.
      arma::uvec labels;
      for (int r = 0; r < n; ++r) labels = arma::join_cols(labels, got[r]->labels());
      REQUIRE(labels.n_elem == one.labels().n_elem);
      CHECK(arma::all(labels == one.labels()));
      CHECK(arma::all(got[0]->cluster_sizes() == one.cluster_sizes()));
      CHECK(got[0]->n_iter() == one.n_iter());
      CHECK(got[0]->best_restart() == one.best_restart());
      // The seeding's rows: one process's, on every rank.
      REQUIRE(one.seed_rows().size() == 6);
      for (int r = 0; r < n; ++r) CHECK(got[r]->seed_rows() == one.seed_rows());
      check_centroids_close(*got[0], one, X, mom.mean(), standardize ? mom.scale() : arma::rowvec());
      // The energy: a sum of n exact squared distances in another order, 2 γ_n E.
      const double nn = static_cast<double>(X.n_rows), eps = std::numeric_limits<double>::epsilon();
      CHECK(std::abs(got[0]->energy() - one.energy()) <= 2 * nn * eps / (1 - nn * eps) * one.energy());
      // -np 1 is the single-process path: the same bits.
      if (n == 1) CHECK(arma::abs(got[0]->centroids() - one.centroids()).max() == 0.0);
    }
  }
}

TEST_CASE("kmeans over ranks: given centroids, an empty cluster teleported as on one process") {
  const arma::mat X = overlapping(900, 2, 3, 12);
  // The third centroid far from every row: empty after the first assignment.
  arma::mat start = X.rows(arma::uvec{0, 1, 2});
  start.row(2) += 1e4;
  KMeansParams p;
  const KMeans one = KMeans(p).fit_from(X, start);
  // Refilled: no row is near the third start, so a teleport did it.
  REQUIRE(arma::all(one.cluster_sizes() > 0));
  kmeans::ColumnMoments mom;
  mom.add(X);
  for (const auto& cuts : splits(X.n_rows)) {
    const int n = static_cast<int>(cuts.size()) - 1;
    std::vector<std::unique_ptr<KMeans>> got(n);
    const auto errors = run_each(n, [&](const Communicator& comm) {
      got[comm.rank()] = std::make_unique<KMeans>(p);
      got[comm.rank()]->fit_stream_from(test::passes_of(part(X, cuts, comm.rank()), 64), start, comm);
    });
    CAPTURE(n);
    for (int r = 0; r < n; ++r) REQUIRE(!errors[r]);
    arma::uvec labels;
    for (int r = 0; r < n; ++r) labels = arma::join_cols(labels, got[r]->labels());
    CHECK(arma::all(labels == one.labels()));
    CHECK(arma::all(got[0]->cluster_sizes() == one.cluster_sizes()));
    check_centroids_close(*got[0], one, X, mom.mean(), arma::rowvec());
  }
}

TEST_CASE("kmeans over ranks: a bad row on one rank, or a sequential seeding, stops every rank alike") {
  const arma::mat X = overlapping(600, 2, 3, 5);
  const std::vector<uword> cuts = {0, 200, 400, 600};
  KMeansParams p;
  p.k = 3;
  p.init = KMeansInit::scalable;
  // Rank 2's rows fail on the pass given (a bad cell, as the CSV reader throws it).
  for (int failing_pass : {1, 2, 4}) {
    const auto errors = run_each(3, [&](const Communicator& comm) {
      RowPasses passes = test::passes_of(part(X, cuts, comm.rank()), 50);
      if (comm.rank() == 2)
        passes = test::intercepted(passes, [failing_pass](int pass, int) -> bool {
          if (pass == failing_pass) throw DataError("data.csv:450:2: expected a number");
          return false;
        });
      KMeans(p).fit_stream(passes, comm);
    });
    CAPTURE(failing_pass);
    for (int r = 0; r < 3; ++r)
      CHECK(test::error_message([&] { std::rethrow_exception(errors[r]); }, kExitDataError) ==
            "data.csv:450:2: expected a number");
  }
  // Farthest-first follows one row after another: refused over ranks, naming the
  // seedings that work there.
  p.init = KMeansInit::farthest;
  const auto errors = run_each(2, [&](const Communicator& comm) {
    KMeans(p).fit_stream(test::passes_of(part(X, {0, 300, 600}, comm.rank()), 50), comm);
  });
  for (int r = 0; r < 2; ++r)
    CHECK(test::error_message([&] { std::rethrow_exception(errors[r]); }, kExitUsage).find("kmeans++ or kmeans||") !=
          std::string::npos);
}

}  // namespace kmeans_ranks_test
