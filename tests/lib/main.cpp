// The unit tests run on the OpenBLAS kernel mlt itself selects (the same re-exec as
// mlt's main), so they exercise the kernel users get; scripts/test runs them again
// under every other core the processor supports.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "mlt/core/parallel.hpp"

int main(int argc, char** argv) {
  mlt::rerun_on_better_blas_kernel(argv);
  return doctest::Context(argc, argv).run();
}
