// How many threads mlt's own parallel loops and OpenBLAS may use, set once by the
// front end (--threads). One owner per operation: a loop that runs on our threads
// calls BLAS single-threaded work only, so the cores are never oversubscribed.
#pragma once

#include <string>

namespace mlt {

// 0 means one per core.
void set_thread_count(unsigned n);
unsigned thread_count();

// OpenBLAS's build, the processor kernel it runs, and its thread count.
std::string blas_description();
// The OPENBLAS_CORETYPE to run on instead of the generic core OpenBLAS chose for this
// processor, or "" when its choice is already right (or was the user's).
std::string better_blas_core();

}  // namespace mlt
