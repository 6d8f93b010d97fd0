// k-means seedings: k starting centres among the rows of X (n x p).
//
//   k-means++ (Arthur & Vassilvitskii, "k-means++: the advantages of careful seeding",
//     SODA 2007): the first centre uniform, each next one drawn with probability
//     ∝ D(x)², the squared distance to the nearest centre already chosen. As
//     scikit-learn (greedy k-means++) we draw `local_trials` candidates that way and
//     keep the one that lowers Σ D² most; local_trials = 1 is the plain algorithm.
//     Cost: k passes over the data, each screening the trials' candidates (n·p·trials,
//     as in kmeans/assign.hpp). Over MPI ranks as in one process, the same rows.
//   farthest-first (Gonzalez, "Clustering to minimize the maximum intercluster
//     distance", Theor. Comput. Sci. 38, 1985): the first centre at random, then each
//     time the point farthest from all chosen. Cost: k passes, n·p each.
//   random: k distinct rows, uniformly. Cost: O(k·p) per row drawn.
//
// Given at least k distinct rows (KMeans::fit checks it first), every seeding returns k
// distinct points, so that Lloyd's first pass leaves no cluster empty (each centre
// keeps at least its own point).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mlt/core/random.hpp"
#include "mlt/core/types.hpp"
#include "mlt/kmeans/assign.hpp"
#include "mlt/kmeans/ranks.hpp"

namespace mlt::kmeans {

// k-means++ seeding on its own (as KMeans::fit seeds, also used for krr's Nyström
// landmarks): row indices of k seeds of X (n x p, 1 <= k <= n), the first uniform,
// each next drawn with probability ∝ D(x)², greedy with `local_trials` candidates
// (1 or 0: plain k-means++). The seeds are distinct rows; when X has fewer than k
// distinct rows the rest are drawn uniformly among the rows not chosen.
arma::uvec kmeanspp_rows(const arma::mat& X, std::size_t k, std::size_t local_trials, Random& rng);
// Number of distinct rows of X, counting at most up to `stop_at` (0: no limit).
std::size_t count_distinct_rows(const arma::mat& X, std::size_t stop_at = 0);

// ---------------------------------------------------------------- on prepared points
// As KMeans::fit calls them: the points of a source (kmeans/source.hpp: in memory, or
// re-read from a file for a streamed fit, with the same result), chunked by ch. Each
// seeding reads the source once per centre and fetches the rows it draws (a partial
// read when streamed).
class BlockSource;

// Global row indices of k seeds, over the ranks of a data-parallel run (each rank's
// source its own rows, `rows` where they sit among all; one process: rows {0, n, n}
// and single_process()). Every draw and every choice among the greedy candidates
// compares exact sums (core/exact_sum.hpp) of exactly computed squared distances, so
// the seeds are the same rows for any number of ranks and any split of the rows. Rows
// at distance 0 of a chosen seed are never drawn, so the seeds are distinct rows; once
// every row is at distance 0 (fewer distinct rows than k: KMeans::fit refuses that
// case before, kmeanspp_rows allows it) the rest are drawn uniformly among the rows
// not chosen yet. With `centres`, also their points (p x k), as fetched on the way.
// Cost per centre: one pass over the rows (the candidates' screen), exact distances
// and exact additions only for the rows a candidate comes closer to.
std::vector<std::uint64_t> seed_kmeanspp(BlockSource& src, const RankRows& rows, arma::uword k, arma::uword trials,
                                         Random& rng, const Communicator& comm, arma::mat* centres = nullptr);
// One process.
arma::uvec seed_kmeanspp(BlockSource& src, arma::uword k, arma::uword trials, Random& rng,
                         arma::mat* centres = nullptr);
// Centres (p x k): farthest-first.
arma::mat seed_farthest(BlockSource& src, arma::uword k, Random& rng);
// Centres (p x k): k rows with distinct values, uniformly (a lazy Fisher-Yates over row
// indices). Throws if there are fewer than k distinct rows.
arma::mat seed_random(BlockSource& src, arma::uword k, Random& rng);
// Distinct columns of a p x n matrix, stopping once `stop_at` are found (0: never).
std::size_t distinct_columns(const arma::mat& Xt, std::size_t stop_at);

}  // namespace mlt::kmeans
