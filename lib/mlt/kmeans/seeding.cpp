// k-means seedings (kmeans/seeding.hpp). The distances to candidate centres come from
// kmeans/assign.hpp's screen, with the values near 0 recomputed exactly, so a row at
// distance 0 of a chosen centre (a duplicate) is never drawn again.
#include "mlt/kmeans/seeding.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/core/progress.hpp"
#include "mlt/kmeans/source.hpp"

namespace mlt::kmeans {

using arma::uword;

namespace {

struct ColumnHash {
  const double* data;
  uword p;
  std::size_t operator()(uword i) const {
    std::uint64_t h = 1469598103934665603ull;
    for (uword j = 0; j < p; ++j) {
      double v = data[i * p + j];
      if (v == 0) v = 0;  // -0.0 and 0.0 are the same value
      std::uint64_t b;
      std::memcpy(&b, &v, sizeof b);
      h = (h ^ b) * 1099511628211ull;
      h ^= h >> 29;
    }
    return static_cast<std::size_t>(h);
  }
};
struct ColumnEqual {
  const double* data;
  uword p;
  bool operator()(uword a, uword b) const {
    for (uword j = 0; j < p; ++j)
      if (data[a * p + j] != data[b * p + j]) return false;
    return true;
  }
};

// Squared distances of every point to each of the candidate centres (p x T), with
// exact zeros: a screened value within the rounding bound of 0 is recomputed directly.
// Out: D (T x n). Also per chunk, for each candidate, Σᵢ min(closestᵢ, D(t, i)), in
// row order.
void candidate_distances(BlockSource& src, const Chunking& ch, const arma::mat& cand, const arma::vec* closest,
                         arma::mat& D, arma::mat& chunk_potential /* T x n_chunks */) {
  const Centres C(cand);
  const uword T = C.k(), p = src.p();
  D.set_size(T, src.n());
  chunk_potential.zeros(T, ch.n_chunks);
  src.for_each_block(ch, [&](std::size_t c, const Points& P, uword r0, uword g0, uword m) {
    double* panel = scratch(screen_panel_size(C, m));
    const uword ld = screen(P, C, r0, m, panel);
    for (uword j = 0; j < m; ++j) {
      const uword r = r0 + j, i = g0 + j;
      const double* s = panel + j * ld;
      double* col = D.colptr(i);
      const double bound = screen_bound(p, P.norm2[r], C.norm2_max);
      for (uword t = 0; t < T; ++t) {
        double v = s[t] + P.norm2[r];  // the screening value plus ‖x‖²: ‖x − c‖²
        if (v <= 2 * bound) v = sq_dist(P.Xt.colptr(r), C.Ct.colptr(t), p);
        col[t] = v;
        chunk_potential(t, c) += closest ? std::min((*closest)[i], v) : v;
      }
    }
  });
}

// First index whose running sum of d2 exceeds `target` (0 <= target < total): a point
// with d2 = 0 is never drawn. `chunk_sum` locates the chunk without a full prefix sum.
uword draw_by_weight(const arma::vec& d2, const Chunking& ch, const arma::vec& chunk_sum, double target) {
  double acc = 0;
  uword c = 0;
  for (; c + 1 < ch.n_chunks; ++c) {
    if (acc + chunk_sum[c] > target) break;
    acc += chunk_sum[c];
  }
  uword last_positive = ch.begin(c);
  for (uword i = ch.begin(c); i < ch.end(c); ++i) {
    if (d2[i] <= 0) continue;
    acc += d2[i];
    last_positive = i;
    if (acc > target) return i;
  }
  return last_positive;  // rounding left target just above the running sum
}

}  // namespace

std::size_t distinct_columns(const arma::mat& Xt, std::size_t stop_at) {
  const uword p = Xt.n_rows;
  std::unordered_set<uword, ColumnHash, ColumnEqual> seen(64, ColumnHash{Xt.memptr(), p},
                                                          ColumnEqual{Xt.memptr(), p});
  for (uword i = 0; i < Xt.n_cols; ++i) {
    seen.insert(i);
    if (stop_at && seen.size() >= stop_at) break;
  }
  return seen.size();
}

arma::uvec seed_kmeanspp(BlockSource& src, const Chunking& ch, uword k, uword trials, Random& rng,
                         arma::mat* centres) {
  const uword n = src.n();
  arma::uvec rows(k);
  rows[0] = rng.below(n);
  arma::mat D, pot, Ct(src.p(), k);
  Ct.col(0) = src.fetch(rows.head(1));
  candidate_distances(src, ch, Ct.col(0), nullptr, D, pot);
  arma::vec closest = D.row(0).t();
  arma::vec chunk_sum = pot.row(0).t();
  for (uword l = 1; l < k; ++l) {
    const double total = arma::accu(chunk_sum);  // summed in chunk order
    if (!(total > 0)) {
      std::vector<char> taken(n, 0);
      for (uword c = 0; c < l; ++c) taken[rows[c]] = 1;
      std::vector<uword> free;
      for (uword i = 0; i < n; ++i)
        if (!taken[i]) free.push_back(i);
      for (uword c = l; c < k; ++c) {  // partial Fisher-Yates over the rows left
        std::swap(free[c - l], free[c - l + rng.below(free.size() - (c - l))]);
        rows[c] = free[c - l];
      }
      if (centres) Ct.cols(l, k - 1) = src.fetch(rows.subvec(l, k - 1));
      break;
    }
    arma::uvec cand_rows(trials);
    for (uword t = 0; t < trials; ++t) cand_rows[t] = draw_by_weight(closest, ch, chunk_sum, rng.uniform() * total);
    const arma::mat cand = src.fetch(cand_rows);
    candidate_distances(src, ch, cand, &closest, D, pot);
    const arma::vec potential = arma::sum(pot, 1);  // per candidate, chunk order
    const uword best = potential.index_min();       // first of equal minima
    rows[l] = cand_rows[best];
    Ct.col(l) = cand.col(best);
    chunk_sum = pot.row(best).t();
    parallel_for(ch.n_chunks, [&](std::size_t c) {
      for (uword i = ch.begin(c); i < ch.end(c); ++i) closest[i] = std::min(closest[i], D(best, i));
    });
    if (l + 1 < k)
      report_progress({"kmeans seeding", "centre", l + 1, k, "", std::numeric_limits<double>::quiet_NaN(),
                       static_cast<double>(l + 1) / static_cast<double>(k)});
  }
  // The last report says done, which clears a status line.
  if (k > 1) report_progress({"kmeans seeding", "centre", k, k, "", std::numeric_limits<double>::quiet_NaN(), 1.0, true});
  if (centres) *centres = std::move(Ct);
  return rows;
}

arma::mat seed_farthest(BlockSource& src, const Chunking& ch, uword k, Random& rng) {
  const uword n = src.n(), p = src.p();
  arma::mat Ct(p, k);
  Ct.col(0) = src.fetch(arma::uvec{rng.below(n)});
  arma::mat D, pot;
  candidate_distances(src, ch, Ct.col(0), nullptr, D, pot);
  arma::vec closest = D.row(0).t();
  for (uword l = 1; l < k; ++l) {
    const uword far = closest.index_max();  // first of equal maxima
    Ct.col(l) = src.fetch(arma::uvec{far});
    candidate_distances(src, ch, Ct.col(l), nullptr, D, pot);
    parallel_for(ch.n_chunks, [&](std::size_t c) {
      for (uword i = ch.begin(c); i < ch.end(c); ++i) closest[i] = std::min(closest[i], D(0, i));
    });
  }
  return Ct;
}

arma::mat seed_random(BlockSource& src, uword k, Random& rng) {
  const uword n = src.n(), p = src.p();
  arma::mat Ct(p, k);
  std::unordered_map<uword, uword> swapped;  // the permutation's displaced entries
  auto at = [&](uword i) { auto it = swapped.find(i); return it == swapped.end() ? i : it->second; };
  uword chosen = 0, t = 0;
  // In rounds of as many draws as centres are missing, each round's rows fetched at
  // once (one partial pass when streamed): a row adds one centre at most, so no round
  // draws past the point where the one-at-a-time loop would stop, and the draws are
  // the same.
  while (t < n && chosen < k) {
    arma::uvec picks(std::min<uword>(k - chosen, n - t));
    for (uword q = 0; q < picks.n_elem; ++q, ++t) {
      const uword j = t + rng.below(n - t);
      picks[q] = at(j);
      swapped[j] = at(t);
    }
    const arma::mat got = src.fetch(picks);
    for (uword q = 0; q < picks.n_elem; ++q) {
      const double* x = got.colptr(q);
      bool duplicate = false;
      for (uword l = 0; l < chosen && !duplicate; ++l) duplicate = std::equal(x, x + p, Ct.colptr(l));
      if (!duplicate) Ct.col(chosen++) = got.col(q);
    }
  }
  if (chosen < k) throw Error("internal: random seeding found too few distinct rows", kExitSoftware);
  return Ct;
}

arma::uvec kmeanspp_rows(const arma::mat& X, std::size_t k, std::size_t local_trials, Random& rng) {
  if (k == 0 || k > X.n_rows || X.n_cols == 0) throw Error("internal: kmeanspp_rows shapes", kExitSoftware);
  // Centred, as KMeans::fit sees the data: distances do not change, the screen's
  // rounding bound shrinks.
  const Points P = make_points(X, arma::mean(X, 0), arma::rowvec());
  const Chunking ch(P.n(), P.p(), k);
  MemorySource src(P);
  return seed_kmeanspp(src, ch, k, std::max<std::size_t>(local_trials, 1), rng);
}

std::size_t count_distinct_rows(const arma::mat& X, std::size_t stop_at) {
  return distinct_columns(X.t(), stop_at);
}

}  // namespace mlt::kmeans
