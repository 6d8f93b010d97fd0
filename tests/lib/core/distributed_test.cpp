// The communicator's logic without MPI: agree() over a stand-in world of several
// ranks (its allgather returns what each rank would bring), and the scatter state's
// round trip and rank-order merge (merge_ranks). The MPI transport itself is covered
// end to end by tests/apps/mpi_test.sh under mpirun.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "../ranks_in_threads.hpp"
#include "../test_util.hpp"
#include "mlt/core/distributed.hpp"
#include "mlt/core/error.hpp"
#include "mlt/core/scatter.hpp"

namespace core_distributed_test {

using namespace mlt;

namespace {

// Rank 0 of a world whose other ranks bring `others` (to allgather and gather); its
// broadcast keeps the root's bytes, as MPI's does on the root.
class StandIn final : public Communicator {
 public:
  explicit StandIn(std::vector<std::string> others) : others_(std::move(others)) {}
  int rank() const override { return 0; }
  int size() const override { return static_cast<int>(others_.size()) + 1; }
  std::vector<std::string> allgather(const std::string& local) const override { return gather(local, 0); }
  std::vector<std::string> gather(const std::string& local, int) const override {
    std::vector<std::string> all{local};
    all.insert(all.end(), others_.begin(), others_.end());
    return all;
  }
  void broadcast(std::string&, int) const override {}

 private:
  std::vector<std::string> others_;
};

}  // namespace

TEST_CASE("agree: no failure, nothing thrown; else the first failing rank's message and status, on every rank") {
  CHECK_NOTHROW(agree(single_process(), nullptr));
  CHECK_NOTHROW(agree(StandIn({"", ""}), nullptr));
  // Rank 2 failed (a bad cell), then rank 3 (another): rank 0 throws rank 2's error.
  const std::string m = test::error_message(
      [] { agree(StandIn({"", "65 late.csv:1003:2: expected a number", "74 read failed"}), nullptr); },
      kExitDataError);
  CHECK(m == "late.csv:1003:2: expected a number");
  // This rank's own error is rethrown as it is (type and all).
  const auto own = std::make_exception_ptr(UsageError("bad"));
  CHECK_THROWS_AS(agree(StandIn({""}), own), UsageError);
  CHECK_THROWS_AS(agree(single_process(), own), UsageError);
  // Anything else travels as an internal error, status 70 (and stays itself here).
  CHECK_THROWS_AS(agree(StandIn({""}), std::make_exception_ptr(std::logic_error("x"))), std::logic_error);
  CHECK(test::error_message([] { agree(StandIn({"70 internal error: x"}), nullptr); }, kExitSoftware) ==
        "internal error: x");
}

TEST_CASE("ScatterAccumulator: the state travels exactly, and merges in rank order") {
  const arma::mat A = test::random_mat(40, 5, 3) * 1e3 + 7;
  ScatterAccumulator whole(5), a(5), b(5), c(5);
  whole.add(A.rows(0, 9));
  whole.add(A.rows(10, 29));
  whole.add(A.rows(30, 39));
  a.add(A.rows(0, 9));
  b.add(A.rows(10, 29));
  c.add(A.rows(30, 39));
  const ScatterAccumulator back = ScatterAccumulator::from_doubles(a.to_doubles());
  CHECK(back.to_doubles() == a.to_doubles());  // bit for bit
  // Rank 0 holds a; ranks 1..3 bring b, an empty state of another width (no rows),
  // and c: the merge is whole's, the same sums in the same order, so the same bits.
  const StandIn world({to_bytes(b.to_doubles()), to_bytes(ScatterAccumulator(0).to_doubles()),
                       to_bytes(c.to_doubles())});
  const ScatterAccumulator merged = merge_ranks(a, world);
  CHECK(merged.to_doubles() == whole.to_doubles());
  CHECK(merged.n() == 40);
  CHECK(merge_ranks(a, single_process()).to_doubles() == a.to_doubles());
  CHECK_THROWS_AS(ScatterAccumulator::from_doubles({1, 2, 3}), Error);
}

TEST_CASE("allreduce_sum: the rank-order sum on every rank; exclusive_prefix_sum: the rows before each rank") {
  // Values whose sum depends on the order (1e16 + 1 + 1 - 1e16: 0 left to right, 2
  // exactly): every rank gets the left-to-right rank-order sum, the same bits.
  const std::vector<double> brought{1e16, 1.0, 1.0, -1e16};
  std::vector<std::vector<double>> got(4);
  std::vector<RankOffset> offsets(4);
  test::run_ranks(4, [&](const Communicator& comm) {
    const std::size_t r = static_cast<std::size_t>(comm.rank());
    std::vector<double> v{brought[r], static_cast<double>(r)};
    allreduce_sum(comm, v);
    got[r] = v;
    offsets[r] = exclusive_prefix_sum(comm, 10 * r + 1);  // counts 1, 11, 21, 31
  });
  const double rank_order = ((1e16 + 1.0) + 1.0) + -1e16;
  for (std::size_t r = 0; r < 4; ++r) {
    CHECK(got[r] == std::vector<double>{rank_order, 6.0});
    CHECK(offsets[r].total == 64);
  }
  CHECK(offsets[0].before == 0);
  CHECK(offsets[1].before == 1);
  CHECK(offsets[2].before == 12);
  CHECK(offsets[3].before == 33);

  std::vector<double> alone{2.5};
  allreduce_sum(single_process(), alone);
  CHECK(alone == std::vector<double>{2.5});
  CHECK(exclusive_prefix_sum(single_process(), 7).before == 0);
  CHECK(exclusive_prefix_sum(single_process(), 7).total == 7);
}

}  // namespace core_distributed_test
