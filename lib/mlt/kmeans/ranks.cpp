// The collectives of k-means over ranks (kmeans/ranks.hpp).
#include "mlt/kmeans/ranks.hpp"

#include <exception>
#include <utility>

#include "mlt/core/error.hpp"

namespace mlt::kmeans {

std::vector<std::vector<double>> gather_all(const Communicator& comm, const std::vector<double>& local) {
  if (comm.size() == 1) return {local};
  std::vector<std::vector<double>> all;
  for (const std::string& bytes : comm.allgather(to_bytes(local))) all.push_back(doubles_of(bytes));
  return all;
}

void agreed(const Communicator& comm, const std::function<void()>& work) {
  if (comm.size() == 1) return work();
  std::exception_ptr failure;
  try {
    work();
  } catch (...) {
    failure = std::current_exception();
  }
  agree(comm, failure);
}

RankRows rank_rows(const Communicator& comm, std::uint64_t count) {
  const RankOffset at = exclusive_prefix_sum(comm, count);
  return {at.before, count, at.total};
}

std::vector<double> fold_in_rank_order(const Communicator& comm, std::vector<double> state,
                                       const std::function<std::vector<double>(std::vector<double>)>& fold) {
  if (comm.size() == 1) return fold(std::move(state));
  // The state travels behind one flag: 0 while every rank so far has folded, 1 once
  // one failed (the later ones then pass it on untouched).
  std::exception_ptr failure;
  state.insert(state.begin(), 0.0);
  std::string bytes;
  for (int turn = 0; turn < comm.size(); ++turn) {
    if (turn == comm.rank()) {
      std::vector<double> out = {1.0};
      if (state[0] == 0.0) {
        try {
          out = fold(std::vector<double>(state.begin() + 1, state.end()));
          out.insert(out.begin(), 0.0);
        } catch (...) {
          failure = std::current_exception();
          out = {1.0};
        }
      }
      bytes = to_bytes(out);
    }
    comm.broadcast(bytes, turn);
    state = doubles_of(bytes);
  }
  agree(comm, failure);
  if (state[0] != 0.0) throw Error("internal: a failed fold without an error", kExitSoftware);
  return std::vector<double>(state.begin() + 1, state.end());
}

}  // namespace mlt::kmeans
