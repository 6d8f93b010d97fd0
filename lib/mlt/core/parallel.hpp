// How many threads mlt's own parallel loops and OpenBLAS may use, set once by the
// front end (--threads). One owner per operation: a loop that runs on our threads
// calls BLAS single-threaded work only, so the cores are never oversubscribed.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mlt {

// 0 means one per CPU in the process's affinity mask. OpenBLAS gets as many, never more
// than those CPUs (set_blas_threads too).
void set_thread_count(unsigned n);
// The threads the calling thread may use: its share while a ThreadShare is alive in
// it, else the global count.
unsigned thread_count();

// Divides the cores among concurrent jobs (cross-validation's --jobs): while alive in
// a thread, thread_count() there returns `n`, so an algorithm's own parallel loop
// stays within its job's share. OpenBLAS's count is process-wide: the code that
// starts the jobs sets it with set_blas_threads.
class ThreadShare {
 public:
  explicit ThreadShare(unsigned n);
  ~ThreadShare();
  ThreadShare(const ThreadShare&) = delete;
  ThreadShare& operator=(const ThreadShare&) = delete;

 private:
  unsigned previous_;
};

// OpenBLAS's thread count (process-wide), to set and restore around concurrent jobs.
unsigned blas_threads();
void set_blas_threads(unsigned n);

// OpenBLAS single-threaded for the lifetime of the object, restored after. For BLAS
// calls made from mlt's own threads (never nest threads over a threaded BLAS), and
// for results that must not depend on the thread count: OpenBLAS splits some sums
// by thread (gemv with a transposed matrix, symv, hence LAPACK's eigensolvers), so
// their last bits change with --threads and with cv's --jobs. The count is
// process-wide: when it is already 1 (as while cv runs concurrent jobs) it is left
// alone, so concurrent users never race on it.
class BlasSingleThreaded {
 public:
  BlasSingleThreaded() : saved_(blas_threads()) {
    if (saved_ != 1) set_blas_threads(1);
  }
  ~BlasSingleThreaded() {
    if (saved_ != 1) set_blas_threads(saved_);
  }
  BlasSingleThreaded(const BlasSingleThreaded&) = delete;
  BlasSingleThreaded& operator=(const BlasSingleThreaded&) = delete;

 private:
  unsigned saved_;
};

// The one parallel loop of mlt: task(t) for t in [0, n_tasks) on up to `workers`
// threads (0: thread_count()), BLAS single-threaded meanwhile (one owner per core).
// Each worker runs under a ThreadShare of the cores divided among the workers, so a
// parallel loop inside a task stays within its share.
//
// The determinism rule, for all of mlt: results do not depend on --threads. Tasks
// are handed out in index order and which thread runs which does not matter,
// because every task writes only its own slot and partial results are combined
// afterwards in task order (never in thread order). Errors too: after a failure no
// further task starts, every task below it has started and runs to its end, and the
// failure of the lowest index is rethrown: the one a serial loop would have met.
template <typename Task>
void parallel_for(std::size_t n_tasks, const Task& task, unsigned workers = 0) {
  const unsigned threads = thread_count();
  const std::size_t n_workers = std::min<std::size_t>(workers ? std::min(workers, threads) : threads, n_tasks);
  BlasSingleThreaded blas;
  if (n_workers <= 1) {
    for (std::size_t t = 0; t < n_tasks; ++t) task(t);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::size_t error_index = n_tasks;
  std::exception_ptr error;
  std::mutex error_mutex;
  const unsigned share = std::max<unsigned>(1, threads / static_cast<unsigned>(n_workers));
  auto worker = [&] {
    ThreadShare scope(share);
    while (!failed.load()) {
      const std::size_t t = next.fetch_add(1);
      if (t >= n_tasks) break;
      try {
        task(t);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (t < error_index) {
          error_index = t;
          error = std::current_exception();
        }
        failed.store(true);
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t i = 1; i < n_workers; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

// The `workers` argument of parallel_for for a pass over `values` doubles in all: 1
// (the calling thread) below about a megabyte, where starting threads costs about
// what they save, else 0 (all). The tasks and so the bits are the same either way.
inline unsigned workers_for(std::size_t values) { return values >= (std::size_t{1} << 17) ? 0 : 1; }

// OpenBLAS's build, the processor kernel it runs, and its thread count.
std::string blas_description();
// The OPENBLAS_CORETYPE to run on instead of the generic core OpenBLAS chose for this
// processor, or "" when its choice is already right (or was the user's).
std::string better_blas_core();

// OpenBLAS reads OPENBLAS_CORETYPE once, when the library loads, so a better kernel
// than its fallback for an unrecognised processor can only be chosen by running the
// program again with the variable set: call this first thing in main() (mlt's and
// the unit tests', so the tests run the kernel users get). Done at most once
// (MLT_BLAS_REEXEC guards the loop); on any failure it returns and the program
// carries on with the kernel it has.
void rerun_on_better_blas_kernel(char** argv);

}  // namespace mlt
