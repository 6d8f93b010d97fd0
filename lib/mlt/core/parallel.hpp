// How many threads mlt's own parallel loops and OpenBLAS may use, set once by the
// front end (--threads). One owner per operation: a loop that runs on our threads
// calls BLAS single-threaded work only, so the cores are never oversubscribed.
#pragma once

#include <string>

namespace mlt {

// 0 means one per core.
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

// OpenBLAS's build, the processor kernel it runs, and its thread count.
std::string blas_description();
// The OPENBLAS_CORETYPE to run on instead of the generic core OpenBLAS chose for this
// processor, or "" when its choice is already right (or was the user's).
std::string better_blas_core();

}  // namespace mlt
