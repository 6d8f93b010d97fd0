// k-means over the ranks of a data-parallel run: each rank holds a part of
// the rows (a byte range of DATA, so consecutive rows in file order), and these are
// the collectives its fit makes (mlt/core/distributed.hpp: every rank calls them in
// the same order). On one process (single_process()) each is the identity or a plain
// loop, so the fit is the single-process one.
//
// Two kinds of reduction, chosen by what must not depend on the number of ranks:
//   sums over ranks (Lloyd's centroid sums and counts, the energy; allreduce_sum,
//     core/distributed.hpp): each rank's partial, added in rank order. The same on
//     every rank and for a given N, but rounded differently for another N (kmeans.cpp
//     says how much that moves a centroid);
//   exact sums (the centring moments, the seeding's cost φ; core/exact_sum.hpp): each
//     rank's exact sum, gathered and merged, which no split of the rows can change, so
//     the same bits for any N. Kept for what the seeding needs exactly, and cheap (the
//     moments once per fit, φ as n terms per round).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mlt/core/distributed.hpp"
#include "mlt/core/exact_sum.hpp"
#include "mlt/core/types.hpp"
#include "mlt/kmeans/source.hpp"

namespace mlt::kmeans {

// Where a rank's rows sit among all: global index of its first row, its count, and
// the total over the ranks (exclusive_prefix_sum, core/distributed.hpp).
struct RankRows {
  std::uint64_t first = 0, count = 0, total = 0;
};
RankRows rank_rows(const Communicator& comm, std::uint64_t count);

// Exact sums over the ranks: every rank's own, gathered and merged, on every rank. The
// same bits as one process's over all the rows, for any N and any split. Moments:
// 24 + p·(16 + 576·(1 or 2)) bytes from each rank; a sum: 576.
ColumnMoments merge_over_ranks(const Communicator& comm, const ColumnMoments& mine);
ExactSum merge_over_ranks(const Communicator& comm, const ExactSum& mine);

// Runs `work` (this rank's own, reading its rows: it may throw where the others do
// not) and then agrees: returns on every rank if it succeeded on every rank, else
// every rank throws the first failing rank's error. The guard before any collective
// that follows local reading (mlt/core/distributed.hpp). Single process: work().
void agreed(const Communicator& comm, const std::function<void()>& work);

// The points of global rows `wanted` (ascending, each on exactly one rank), p x
// wanted.size() in that order on every rank: each rank fetches the rows it holds, and
// the rank-ordered gather puts them back in file order.
arma::mat fetch_global(BlockSource& src, const RankRows& rows, const std::vector<std::uint64_t>& wanted,
                       const Communicator& comm);

// Every rank's `local` (any lengths), in rank order, on every rank.
std::vector<std::vector<double>> gather_all(const Communicator& comm, const std::vector<double>& local);

}  // namespace mlt::kmeans
