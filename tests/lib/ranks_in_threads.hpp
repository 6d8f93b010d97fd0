// N ranks in one process, for tests of a distributed fit without MPI: each rank is a
// thread, and the collectives are real (every rank's bytes reach the others through
// shared slots between two barriers), so a fit's reductions, its agree() points and
// its rank-order sums run as under mpirun. What MPI adds, the transport, is tested
// end to end under mpirun by tests/apps/mpi*_test.sh.
//
// As under MPI, every rank must call the same collectives in the same order: a rank
// that throws outside an agree() point leaves the others waiting at a barrier, and
// the test hangs (as the run would).
#pragma once

#include <barrier>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mlt/core/distributed.hpp"
#include "mlt/core/parallel.hpp"

namespace mlt::test {

class ThreadRank final : public Communicator {
 public:
  struct Shared {
    explicit Shared(int n) : slots(static_cast<std::size_t>(n)), sync(n) {}
    std::vector<std::string> slots;
    std::barrier<> sync;
  };
  ThreadRank(std::shared_ptr<Shared> shared, int rank) : shared_(std::move(shared)), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(shared_->slots.size()); }
  std::vector<std::string> allgather(const std::string& local) const override {
    shared_->slots[static_cast<std::size_t>(rank_)] = local;
    shared_->sync.arrive_and_wait();
    std::vector<std::string> all = shared_->slots;
    shared_->sync.arrive_and_wait();  // nobody writes a slot before everyone has read
    return all;
  }
  std::vector<std::string> gather(const std::string& local, int root) const override {
    std::vector<std::string> all = allgather(local);
    return rank_ == root ? all : std::vector<std::string>{};
  }
  void broadcast(std::string& bytes, int root) const override {
    if (rank_ == root) shared_->slots[0] = bytes;
    shared_->sync.arrive_and_wait();
    if (rank_ != root) bytes = shared_->slots[0];
    shared_->sync.arrive_and_wait();
  }

 private:
  std::shared_ptr<Shared> shared_;
  int rank_;
};

// Runs body(comm) on n ranks, one thread each, and waits for all. If ranks threw,
// rethrows the lowest rank's exception (a fit that agrees throws the same on all).
// BLAS is held single-threaded throughout: its thread count is process-wide, and a
// fit's BlasSingleThreaded on one rank would otherwise restore it while another rank
// is inside a BLAS call, whose last bits (OpenBLAS splits trmm and gemv by thread)
// would then differ from the other ranks'. Real ranks are processes, each with its
// own count.
inline void run_ranks(int n, const std::function<void(const Communicator&)>& body) {
  const BlasSingleThreaded blas;
  auto shared = std::make_shared<ThreadRank::Shared>(n);
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(n));
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      ThreadRank comm(shared, r);
      try {
        body(comm);
      } catch (...) {
        failures[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& f : failures)
    if (f) std::rethrow_exception(f);
}

// Runs body(comm) on n ranks and returns each rank's error message in rank order (""
// where it succeeded): to check that a failure reaches every rank.
inline std::vector<std::string> rank_errors(int n, const std::function<void(const Communicator&)>& body) {
  std::vector<std::string> errors(static_cast<std::size_t>(n));
  auto shared = std::make_shared<ThreadRank::Shared>(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      ThreadRank comm(shared, r);
      try {
        body(comm);
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(r)] = e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  return errors;
}

}  // namespace mlt::test
