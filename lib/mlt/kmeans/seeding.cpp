// k-means seedings (kmeans/seeding.hpp). The distances to candidate centres come from
// kmeans/assign.hpp's screen, with the values near 0 recomputed exactly, so a row at
// distance 0 of a chosen centre (a duplicate) is never drawn again.
#include "mlt/kmeans/seeding.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/exact_sum.hpp"
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

namespace {

// For each candidate centre (p x T), the rows it comes closer to than their nearest
// chosen centre, with the exact squared distance (sq_dist): (row, d²), in row order.
// The screen (any order, off by at most screen_bound) only picks which rows to
// compute exactly, so the result does not depend on how the rows are blocked.
// Also each candidate's gain on this rank, Σ over those rows of (D² − d²), exactly.
struct Closer {
  std::vector<std::vector<std::pair<uword, double>>> rows;  // per candidate
  std::vector<ExactSum> gain;                              // per candidate
};
Closer closer_rows(BlockSource& src, const arma::mat& cand, const arma::vec& closest) {
  const Centres C(cand);
  const uword T = C.k(), p = src.p();
  const Chunking ch(src.n(), p, T);
  std::vector<std::vector<std::vector<std::pair<uword, double>>>> per_chunk(
      ch.n_chunks, std::vector<std::vector<std::pair<uword, double>>>(T));
  std::vector<std::vector<ExactSum>> chunk_gain(ch.n_chunks, std::vector<ExactSum>(T));
  src.for_each_block(ch, [&](std::size_t c, const Points& P, uword r0, uword g0, uword m) {
    double* panel = scratch(screen_panel_size(C, m));
    const uword ld = screen(P, C, r0, m, panel);
    for (uword j = 0; j < m; ++j) {
      const uword r = r0 + j, i = g0 + j;
      const double* s = panel + j * ld;
      const double bound = screen_bound(p, P.norm2[r], C.norm2_max);
      for (uword t = 0; t < T; ++t) {
        if (!(s[t] + P.norm2[r] <= closest[i] + 2 * bound)) continue;  // surely not closer
        const double d = sq_dist(P.Xt.colptr(r), C.Ct.colptr(t), p);
        if (!(d < closest[i])) continue;
        per_chunk[c][t].emplace_back(i, d);
        if (std::isfinite(closest[i])) chunk_gain[c][t].add(closest[i]);
        chunk_gain[c][t].add(-d);
      }
    }
  });
  Closer out{std::vector<std::vector<std::pair<uword, double>>>(T), std::vector<ExactSum>(T)};
  for (std::size_t c = 0; c < ch.n_chunks; ++c)
    for (uword t = 0; t < T; ++t) {
      out.rows[t].insert(out.rows[t].end(), per_chunk[c][t].begin(), per_chunk[c][t].end());
      out.gain[t].merge(chunk_gain[c][t]);
    }
  return out;
}

// Every rank's exact sums (the same count from each), in rank order, on every rank.
std::vector<std::vector<ExactSum>> gather_sums(const Communicator& comm, const std::vector<ExactSum>& mine) {
  if (comm.size() == 1) return {mine};
  std::string bytes;
  for (const ExactSum& s : mine) bytes += s.to_bytes();
  const std::size_t each = mine.empty() ? 0 : bytes.size() / mine.size();
  std::vector<std::vector<ExactSum>> all;
  for (const std::string& theirs : comm.allgather(bytes)) {
    all.emplace_back();
    for (std::size_t at = 0; at + each <= theirs.size() && each > 0; at += each)
      all.back().push_back(ExactSum::from_bytes(theirs.substr(at, each)));
  }
  return all;
}

// This rank's weights D² (the squared distance of each row to its nearest chosen
// seed) and their exact sums, by block of rows and in all: what the draws walk.
struct Weights {
  static constexpr uword kBlock = 4096;
  arma::vec closest;
  std::vector<ExactSum> block;
  ExactSum total;
  explicit Weights(uword n)
      : closest(n, arma::fill::value(std::numeric_limits<double>::infinity())), block((n + kBlock - 1) / kBlock) {}
  // The weights of rows `lowered` (ascending, each d below its weight) set to d, the
  // sums with them, exactly; block by block on the threads.
  void lower(const std::vector<std::pair<uword, double>>& lowered) {
    std::vector<std::size_t> starts;  // where each block's run of rows begins
    for (std::size_t q = 0; q < lowered.size(); ++q)
      if (q == 0 || lowered[q].first / kBlock != lowered[q - 1].first / kBlock) starts.push_back(q);
    starts.push_back(lowered.size());
    parallel_for(starts.size() - 1, [&](std::size_t run) {
      for (std::size_t q = starts[run]; q < starts[run + 1]; ++q) {
        const auto [i, d] = lowered[q];
        if (std::isfinite(closest[i])) block[i / kBlock].add(-closest[i]);
        block[i / kBlock].add(d);
        closest[i] = d;
      }
    });
    total = ExactSum();
    for (const ExactSum& b : block) total.merge(b);
  }
};

// The local row whose exact running sum of weights, started at `before`, first
// exceeds `target`; the last row of positive weight if none does (a target that
// rounding put at the very end). -1 when every weight is 0.
long long draw_local(const Weights& w, ExactSum before, double target) {
  long long last_positive = -1;
  for (uword b = 0; b < w.block.size(); ++b) {
    ExactSum through = before;
    through.merge(w.block[b]);
    const uword end = std::min<uword>(w.closest.n_elem, (b + 1) * Weights::kBlock);
    if (!through.exceeds(target)) {
      for (uword i = b * Weights::kBlock; i < end; ++i)
        if (w.closest[i] > 0) last_positive = static_cast<long long>(i);
      before = std::move(through);
      continue;
    }
    // Exact additions are cheap, the exact comparison is not: it is made only where
    // the running sum in doubles, which falls short of the exact one by at most
    // γ_{m+1} of itself (m nonnegative terms after a correctly rounded start), could
    // have reached the target.
    double approx = before.value();
    std::size_t added = 0;
    const double eps = std::numeric_limits<double>::epsilon();
    for (uword i = b * Weights::kBlock; i < end; ++i) {
      if (!(w.closest[i] > 0)) continue;
      before.add(w.closest[i]);
      approx += w.closest[i];
      const double slack = static_cast<double>(++added + 2) * eps * approx;
      if (approx + slack >= target && before.exceeds(target)) return static_cast<long long>(i);
      last_positive = static_cast<long long>(i);
    }
  }
  return last_positive;
}

}  // namespace

std::vector<std::uint64_t> seed_kmeanspp(BlockSource& src, const RankRows& rows, uword k, uword trials, Random& rng,
                                         const Communicator& comm, arma::mat* centres) {
  trials = std::max<uword>(trials, 1);
  const std::size_t size = static_cast<std::size_t>(comm.size()), me = static_cast<std::size_t>(comm.rank());
  std::vector<std::uint64_t> seeds = {rng.below(rows.total)};
  arma::mat Ct = fetch_global(src, rows, seeds, comm);
  Weights w(src.n());
  agreed(comm, [&] { w.lower(closer_rows(src, Ct.col(0), w.closest).rows[0]); });
  for (uword l = 1; l < k; ++l) {
    // The ranks' exact totals, in rank order: the draws walk them as one sequence.
    const std::vector<std::vector<ExactSum>> totals = gather_sums(comm, {w.total});
    ExactSum all;
    for (const auto& t : totals) all.merge(t[0]);
    const double total = all.value();
    if (!(total > 0)) {
      // Every row at distance 0 of a seed: the rest uniformly among the others.
      while (seeds.size() < k) {
        const std::uint64_t g = rng.below(rows.total);
        if (std::find(seeds.begin(), seeds.end(), g) == seeds.end()) seeds.push_back(g);
      }
      if (centres) {
        std::vector<std::uint64_t> rest(seeds.begin() + static_cast<std::ptrdiff_t>(l), seeds.end());
        std::vector<std::uint64_t> sorted = rest;
        std::sort(sorted.begin(), sorted.end());
        const arma::mat got = fetch_global(src, rows, sorted, comm);
        Ct.resize(src.p(), k);
        for (uword c = 0; c < rest.size(); ++c)
          Ct.col(l + c) = got.col(std::lower_bound(sorted.begin(), sorted.end(), rest[c]) - sorted.begin());
      }
      break;
    }
    // The candidates: each the first row (in file order) whose exact running sum of
    // weights exceeds uniform × total, found on the rank that holds it.
    std::vector<std::uint64_t> cand(trials);
    for (uword t = 0; t < trials; ++t) {
      const double target = rng.uniform() * total;
      std::size_t owner = size;
      ExactSum before;
      for (std::size_t r = 0; r < size && owner == size; ++r) {
        ExactSum through = before;
        through.merge(totals[r][0]);
        if (through.exceeds(target)) owner = r;
        else before = std::move(through);
      }
      if (owner == size)  // past the end by rounding: the last rank with weight
        for (std::size_t r = size; r-- > 0 && owner == size;)
          if (totals[r][0].value() > 0) owner = r;
      std::vector<double> found;
      if (owner == me) {
        ExactSum start;
        for (std::size_t r = 0; r < owner; ++r) start.merge(totals[r][0]);
        found.push_back(static_cast<double>(rows.first + static_cast<std::uint64_t>(draw_local(w, start, target))));
      }
      for (const auto& theirs : gather_all(comm, found))
        if (!theirs.empty()) cand[t] = static_cast<std::uint64_t>(theirs[0]);
    }
    std::vector<std::uint64_t> sorted = cand;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    const arma::mat got = fetch_global(src, rows, sorted, comm);
    arma::mat cand_points(src.p(), trials);
    for (uword t = 0; t < trials; ++t)
      cand_points.col(t) = got.col(std::lower_bound(sorted.begin(), sorted.end(), cand[t]) - sorted.begin());
    // Each candidate's gain, Σ over the rows it comes closer to of (D² − d²), exactly:
    // the greedy choice is the largest (the least potential), the first of equals.
    Closer closer;
    agreed(comm, [&] { closer = closer_rows(src, cand_points, w.closest); });
    std::vector<ExactSum> gains(trials);
    for (const auto& theirs : gather_sums(comm, closer.gain))
      for (uword t = 0; t < trials; ++t) gains[t].merge(theirs[t]);
    uword best = 0;
    for (uword t = 1; t < trials; ++t)
      if (gains[t].compare(gains[best]) > 0) best = t;
    seeds.push_back(cand[best]);
    Ct.insert_cols(Ct.n_cols, cand_points.col(best));
    w.lower(closer.rows[best]);
    if (l + 1 < k)
      report_progress({"kmeans seeding", "centre", l + 1, k, "", std::numeric_limits<double>::quiet_NaN(),
                       static_cast<double>(l + 1) / static_cast<double>(k)});
  }
  // The last report says done, which clears a status line.
  if (k > 1) report_progress({"kmeans seeding", "centre", k, k, "", std::numeric_limits<double>::quiet_NaN(), 1.0, true});
  if (centres) *centres = std::move(Ct);
  return seeds;
}

arma::uvec seed_kmeanspp(BlockSource& src, uword k, uword trials, Random& rng, arma::mat* centres) {
  const std::vector<std::uint64_t> seeds =
      seed_kmeanspp(src, RankRows{0, src.n(), src.n()}, k, trials, rng, single_process(), centres);
  arma::uvec out(seeds.size());
  for (std::size_t c = 0; c < seeds.size(); ++c) out[c] = static_cast<uword>(seeds[c]);
  return out;
}

arma::mat seed_farthest(BlockSource& src, uword k, Random& rng) {
  const uword n = src.n(), p = src.p();
  arma::mat Ct(p, k);
  Weights w(n);  // each row's exact squared distance to its nearest centre (its sums unused)
  for (uword l = 0; l < k; ++l) {
    // The first centre at random, then the row farthest from all chosen (the first
    // of equal maxima).
    Ct.col(l) = src.fetch(arma::uvec{l == 0 ? static_cast<uword>(rng.below(n)) : w.closest.index_max()});
    w.lower(closer_rows(src, Ct.col(l), w.closest).rows[0]);
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
  MemorySource src(P);
  return seed_kmeanspp(src, k, std::max<std::size_t>(local_trials, 1), rng);
}

std::size_t count_distinct_rows(const arma::mat& X, std::size_t stop_at) {
  return distinct_columns(X.t(), stop_at);
}

}  // namespace mlt::kmeans
