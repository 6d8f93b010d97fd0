// k-means|| seeding (kmeans/scalable.hpp).
#include "mlt/kmeans/scalable.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/exact_sum.hpp"
#include "mlt/core/progress.hpp"
#include "mlt/kmeans/assign.hpp"
#include "mlt/kmeans/source.hpp"

namespace mlt::kmeans {

using arma::uword;

namespace {

// SplitMix64's output function: a bijection of 64-bit words that mixes every bit.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// closest <- min(closest, D² to the nearest of the centres Ct): exact distances
// (assign_pass' d2 is squared_distance of the nearest, whatever the screen).
void lower_closest(BlockSource& src, const arma::mat& Ct, arma::vec& closest, const Communicator& comm) {
  agreed(comm, [&] {
    const Centres C(Ct);
    const Chunking ch(src.n(), src.p(), C.k());
    arma::uvec labels(src.n());
    arma::vec d2(src.n());
    assign_pass(src, C, ch, labels.memptr(), d2.memptr(), false);
    closest = arma::min(closest, d2);
  });
}

// φ = Σ closest over all rows, summed exactly and rounded once: the same bits for any
// number of ranks and any split of the rows.
double total_cost(const arma::vec& closest, const Communicator& comm) {
  ExactSum phi;
  for (double d : closest) phi.add(d);
  return merge_over_ranks(comm, phi).value();
}

// First index whose running sum of weights exceeds target (0 <= target < total), never
// one of weight 0 (rounding may leave target at the very end: the last positive).
uword draw(const arma::vec& weight, double target) {
  double acc = 0;
  uword last_positive = 0;
  for (uword i = 0; i < weight.n_elem; ++i) {
    if (!(weight[i] > 0)) continue;
    acc += weight[i];
    last_positive = i;
    if (acc > target) return i;
  }
  return last_positive;
}

double sum_in_order(const arma::vec& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

}  // namespace

double counter_uniform(std::uint64_t key, std::uint64_t round, std::uint64_t index) {
  // (key, round) -> a per-round key; then a bijection of the index under that key.
  const std::uint64_t round_key = mix64(key + 0x9E3779B97F4A7C15ull * (round + 1));
  return static_cast<double>(mix64(mix64(round_key ^ index) + 0x9E3779B97F4A7C15ull) >> 11) * 0x1.0p-53;
}

arma::uvec weighted_kmeanspp(const arma::mat& Ct, const arma::vec& w, uword k, uword trials, Random& rng) {
  const uword m = Ct.n_cols, p = Ct.n_rows;
  if (k == 0 || k > m || w.n_elem != m) throw Error("internal: weighted_kmeanspp shapes", kExitSoftware);
  trials = std::max<uword>(trials, 1);
  arma::uvec chosen(k);
  chosen[0] = draw(w, rng.uniform() * sum_in_order(w));
  arma::vec d2(m);
  for (uword i = 0; i < m; ++i) d2[i] = sq_dist(Ct.colptr(i), Ct.colptr(chosen[0]), p);
  arma::vec cand_d2(m), best_d2(m);
  for (uword l = 1; l < k; ++l) {
    const arma::vec wd2 = w % d2;
    const double total = sum_in_order(wd2);
    if (!(total > 0)) throw Error("internal: k-means|| ran out of distinct candidates", kExitSoftware);
    double best_potential = std::numeric_limits<double>::infinity();
    for (uword t = 0; t < trials; ++t) {
      const uword c = draw(wd2, rng.uniform() * total);
      double potential = 0;
      for (uword i = 0; i < m; ++i) {
        cand_d2[i] = std::min(d2[i], sq_dist(Ct.colptr(i), Ct.colptr(c), p));
        potential += w[i] * cand_d2[i];
      }
      if (potential < best_potential) {  // first of equals
        best_potential = potential;
        chosen[l] = c;
        std::swap(best_d2, cand_d2);
      }
    }
    d2 = best_d2;
  }
  return chosen;
}

arma::mat seed_scalable(BlockSource& src, const RankRows& rows, uword k, uword trials, std::uint64_t seed,
                        const Communicator& comm, const ScalableSeeding& how, ScalableStats* stats,
                        std::vector<std::uint64_t>* seed_rows) {
  const uword p = src.p();
  Random rng(seed);
  const std::uint64_t key = rng.next();  // the rows' Bernoulli trials
  const double ell = how.oversampling * static_cast<double>(k);

  // Candidates in the order found (file order within a round), distinct.
  std::vector<std::uint64_t> origin = {rng.below(rows.total)};  // each candidate's global row
  arma::mat C = fetch_global(src, rows, origin, comm);
  arma::vec closest(src.n());
  closest.fill(std::numeric_limits<double>::infinity());
  lower_closest(src, C, closest, comm);
  double phi = total_cost(closest, comm);
  std::size_t round = 0;
  while (phi > 0 && (round < how.rounds || C.n_cols < k)) {
    ++round;
    if (round > how.rounds + 1000)  // each round keeps a row with probability >= 1 - e^-2 (scalable.hpp)
      throw Error("internal: k-means|| found too few candidates", kExitSoftware);
    std::vector<std::uint64_t> kept;
    for (uword i = 0; i < src.n(); ++i) {
      const std::uint64_t g = rows.first + i;
      if (closest[i] > 0 && counter_uniform(key, round, g) < ell * closest[i] / phi) kept.push_back(g);
    }
    // Every rank's kept rows, in file order.
    std::vector<double> mine(kept.begin(), kept.end());
    std::vector<std::uint64_t> all_kept;
    for (const auto& theirs : gather_all(comm, mine))
      for (double g : theirs) all_kept.push_back(static_cast<std::uint64_t>(g));
    if (all_kept.empty()) continue;
    const arma::mat found = fetch_global(src, rows, all_kept, comm);
    // Rows kept in one round may repeat one another (none repeats an earlier
    // candidate: those have D² = 0): the first of equal points stays.
    std::set<std::vector<double>> seen;
    std::vector<uword> fresh;
    for (uword j = 0; j < found.n_cols; ++j)
      if (seen.emplace(found.colptr(j), found.colptr(j) + p).second) {
        fresh.push_back(j);
        origin.push_back(all_kept[j]);
      }
    const arma::mat added = found.cols(arma::uvec(fresh));
    C = arma::join_rows(C, added);
    lower_closest(src, added, closest, comm);
    phi = total_cost(closest, comm);
    report_progress({"kmeans|| seeding", "round", round, how.rounds, "candidates", static_cast<double>(C.n_cols)});
  }
  if (C.n_cols < k) throw Error("internal: k-means|| found fewer candidates than k", kExitSoftware);

  // Each candidate's weight: the rows nearest to it (ties to the earlier candidate).
  std::vector<double> weight(C.n_cols, 0.0);
  agreed(comm, [&] {
    const Centres cs(C);
    const Chunking ch(src.n(), p, cs.k());
    arma::uvec labels(src.n());
    arma::vec d2(src.n());
    const AssignResult a = assign_pass(src, cs, ch, labels.memptr(), d2.memptr(), false);
    for (uword c = 0; c < C.n_cols; ++c) weight[c] = static_cast<double>(a.counts[c]);
  });
  allreduce_sum(comm, weight);  // integers: exact in any order
  if (stats) *stats = {round, C.n_cols};
  const arma::uvec pick = weighted_kmeanspp(C, arma::vec(weight), k, trials, rng);
  if (seed_rows) {
    seed_rows->clear();
    for (uword c : pick) seed_rows->push_back(origin[c]);
  }
  return C.cols(pick);
}

}  // namespace mlt::kmeans
