// The collectives of k-means over ranks (kmeans/ranks.hpp).
#include "mlt/kmeans/ranks.hpp"

#include <exception>
#include <optional>
#include <utility>

#include "mlt/core/error.hpp"

namespace mlt::kmeans {

using arma::uword;

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

ColumnMoments merge_over_ranks(const Communicator& comm, const ColumnMoments& mine) {
  if (comm.size() == 1) return mine;
  std::optional<ColumnMoments> all;  // merge() checks that the widths agree
  for (const std::string& theirs : comm.allgather(mine.to_bytes())) {
    ColumnMoments part = ColumnMoments::from_bytes(theirs);
    if (all) all->merge(part);
    else all = std::move(part);
  }
  return *all;
}

ExactSum merge_over_ranks(const Communicator& comm, const ExactSum& mine) {
  if (comm.size() == 1) return mine;
  ExactSum all;
  for (const std::string& theirs : comm.allgather(mine.to_bytes())) all.merge(ExactSum::from_bytes(theirs));
  return all;
}

arma::mat fetch_global(BlockSource& src, const RankRows& rows, const std::vector<std::uint64_t>& wanted,
                       const Communicator& comm) {
  arma::mat mine;
  agreed(comm, [&] {
    std::vector<uword> local;
    for (std::uint64_t g : wanted)
      if (g >= rows.first && g < rows.first + rows.count) local.push_back(static_cast<uword>(g - rows.first));
    mine = src.fetch(arma::uvec(local));
  });
  std::vector<double> flat(mine.begin(), mine.end());
  arma::mat out(src.p(), 0);
  for (const auto& theirs : gather_all(comm, flat))
    if (!theirs.empty()) out = arma::join_rows(out, arma::mat(theirs.data(), src.p(), theirs.size() / src.p()));
  if (out.n_cols != wanted.size()) throw Error("internal: k-means|| fetched the wrong rows", kExitSoftware);
  return out;
}

}  // namespace mlt::kmeans
