// k-means over the ranks of a data-parallel run (issue #16): each rank holds a part of
// the rows (a byte range of DATA, so consecutive rows in file order), and these are
// the collectives its fit makes (mlt/core/distributed.hpp: every rank calls them in
// the same order). On one process (single_process()) each is the identity or a plain
// loop, so the fit is the single-process one.
//
// Two kinds of reduction, chosen by what must not depend on the number of ranks:
//   sums over ranks (Lloyd's centroid sums and counts, the energy; allreduce_sum,
//     core/distributed.hpp): each rank's partial, added in rank order. The same on every rank and for a given N, but
//     rounded differently for another N (kmeans.cpp says how much that moves a
//     centroid);
//   folds in rank order (the centring moments, the seeding's cost φ): rank 0 folds its
//     rows into a state, rank 1 goes on from rank 0's result, and so on: the very
//     recurrence one process runs over all rows in file order, so the same bits for
//     any N. The ranks take turns (one broadcast each), so a fold costs the time of one
//     sequential pass: kept for what the seeding needs exactly, and cheap (the
//     moments once per fit, φ as n additions per round).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mlt/core/distributed.hpp"
#include "mlt/core/types.hpp"

namespace mlt::kmeans {

// Where a rank's rows sit among all: global index of its first row, its count, and
// the total over the ranks (exclusive_prefix_sum, core/distributed.hpp).
struct RankRows {
  std::uint64_t first = 0, count = 0, total = 0;
};
RankRows rank_rows(const Communicator& comm, std::uint64_t count);

// The fold of a state through the ranks in rank order (above): `fold` maps the state
// after the rows before this rank's to the state after its own; the final state is
// returned on every rank. A fold that throws ends the chain: the later ranks skip
// theirs, and every rank then throws the first failing rank's error (agree()).
// N broadcasts of the state.
std::vector<double> fold_in_rank_order(const Communicator& comm, std::vector<double> state,
                                       const std::function<std::vector<double>(std::vector<double>)>& fold);

// Runs `work` (this rank's own, reading its rows: it may throw where the others do
// not) and then agrees: returns on every rank if it succeeded on every rank, else
// every rank throws the first failing rank's error. The guard before any collective
// that follows local reading (mlt/core/distributed.hpp). Single process: work().
void agreed(const Communicator& comm, const std::function<void()>& work);

// Every rank's `local` (any lengths), in rank order, on every rank.
std::vector<std::vector<double>> gather_all(const Communicator& comm, const std::vector<double>& local);

}  // namespace mlt::kmeans
