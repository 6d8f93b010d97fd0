// k-means|| seeding: Bahmani, Moseley, Vattani, Kumar & Vassilvitskii, "Scalable
// K-Means++", PVLDB 5(7), 2012 (Algorithm 2), as Spark MLlib's KMeans seeds
// ("k-means||"). k-means++ draws its k centres one after another, each from weights
// that need a pass over all rows: k passes in sequence. k-means|| oversamples
// instead, in a few rounds:
//   1. C = one row drawn uniformly; φ = Σᵢ D²(xᵢ), D² the squared distance to the
//      nearest centre of C.
//   2. For 5 rounds: keep each row independently with probability min(1, ℓ D²(x) / φ),
//      ℓ = 2k (the paper's defaults, and Spark's factor: about ℓ rows a round); add
//      the rows kept to C, update D² and φ.
//   3. Weigh each candidate of C by the rows nearest to it (ties to the earlier).
//   4. Reduce C to k centres by weighted k-means++ (greedy, `trials` draws per centre,
//      as kmeans/seeding.hpp), on every rank alike: C and the weights are the same on
//      every rank, and so is the random stream.
// The paper proves O(log k)-competitive centres in expectation after O(log φ₀) rounds,
// and found 5 rounds enough in its experiments; Spark used 5 until 2.1 lowered its
// default to 2 for speed (SPARK-17389). We keep 5: a round costs two passes here,
// against k in sequence for k-means++.
//
// The same centres for any number of ranks, by construction (kmeans/ranks.hpp):
//   - the Bernoulli trial of a row is a counter-based draw keyed by (seed, round,
//     global row index), so it does not depend on which rank holds the row;
//   - D² is the exact nearest distance (kmeans/assign.hpp: squared_distance of the
//     nearest candidate, whatever blocks the screen ran on), over points centred (and
//     scaled) to the same bits on every rank (the moments are exact sums);
//   - φ, the sum of D², is summed exactly (core/exact_sum.hpp: n terms a round, a few
//     ns each), each rank's exact sum gathered and merged: no order of the rows, the
//     ranks or the threads can change it;
//   - the rows kept are sent to every rank in rank order, i.e. file order, and the
//     weights are integer counts (exact in a sum of doubles up to 2⁵³).
// Rounds go on past 5 while C holds fewer than k distinct points and φ > 0 (rows
// equal to a candidate have D² = 0, so the candidates are distinct rows; given k
// distinct rows, KMeans::fit's check, k are found).
//
// Cost per round: one pass over the rows (D² to the new candidates: n·|new|·p) and a
// partial one fetching the rows kept; all-gathered, ℓ·p doubles; φ's exact sums (576 bytes a rank). Then one
// pass assigning every row to the ~1 + 5ℓ = 10k + 1 candidates (n·10k·p, like ten
// Lloyd iterations) and a sum of that many counts; the weighted k-means++ costs
// O(k·trials·|C|·p) on each rank, no data pass. Memory: D² and a label per row, and C.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mlt/core/distributed.hpp"
#include "mlt/core/random.hpp"
#include "mlt/core/types.hpp"
#include "mlt/kmeans/ranks.hpp"

namespace mlt::kmeans {

class BlockSource;

struct ScalableSeeding {
  std::size_t rounds = 5;      // at least; more while fewer than k distinct candidates
  double oversampling = 2.0;   // ℓ = oversampling · k rows expected per round
};

// What a seeding did (for tests and reports).
struct ScalableStats {
  std::size_t rounds = 0, candidates = 0;
};

// Centres (p x k) of this rank's rows `src` (row i is global row rows.first + i),
// the same on every rank and for any number of ranks. Precondition: at least k
// distinct rows over all ranks. With `seed_rows`, also the global indices of the
// rows they are (k, in the centres' order).
arma::mat seed_scalable(BlockSource& src, const RankRows& rows, arma::uword k, arma::uword trials, std::uint64_t seed,
                        const Communicator& comm, const ScalableSeeding& how = {}, ScalableStats* stats = nullptr,
                        std::vector<std::uint64_t>* seed_rows = nullptr);

// The uniform number in [0, 1) of (key, round, index): a counter-based stream (each
// value a hash of its counter, as Random123's generators, Salmon et al., SC 2011;
// here SplitMix64's finalizer, Steele, Lea & Flood, OOPSLA 2014, applied in a chain).
// For a fixed (key, round), distinct indices give distinct values.
double counter_uniform(std::uint64_t key, std::uint64_t round, std::uint64_t index);

// Weighted k-means++ (greedy) on m points (Ct, p x m) of weights w (m, > 0): k of
// their indices, distinct, the first drawn ∝ w, each next ∝ w·D² with `trials`
// candidates, the one lowering Σ w·D² most kept (first of equals). Needs k <= m
// distinct points.
arma::uvec weighted_kmeanspp(const arma::mat& Ct, const arma::vec& w, arma::uword k, arma::uword trials, Random& rng);

}  // namespace mlt::kmeans
