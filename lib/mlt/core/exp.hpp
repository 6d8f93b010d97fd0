// exp(x) over an array, written so that GCC vectorizes it (the rbf kernel's
// exponentials were a third of a kernel SVM's time through libm's scalar exp).
//
// Method (Tang's table-driven exp, as in glibc 2.28+ and ARM's optimized-routines,
// with a smaller table): x = k ln2/16 + r with k = round(16 x / ln2) and |r| <= ln2/32
// (ln2/16 split in a 33-bit head, so k · head is exact, and a tail: Cody and Waite),
// then
//     exp(x) = 2^e · 2^(j/16) · exp(r),   k = 16 e + j, 0 <= j < 16,
// 2^(j/16) = s_j (1 + t_j) from a table (scripts/gen-exp-table: s_j the nearest
// double, t_j its relative error, so the table is exact to ~2^-106) read by a lane
// permutation, and exp(r) − 1 by its Taylor polynomial to degree 7 (truncation
// |r|^8/8! <= 1.2e-18: 0.01 ulp). The power 2^e is applied as two factors
// 2^⌊e/2⌋ · 2^(e−⌊e/2⌋), each a normal double, so the result is rounded once more only
// where it is subnormal or overflows (to 0 below x ≈ −745.13, to +inf above
// x ≈ 709.78, as std::exp).
//
// Accuracy: within 1 ulp of std::exp (glibc's, itself within 0.51 ulp) over x in
// [−746, 710] and at ±0, ±inf and NaN (NaN in, NaN out); tests/lib/core/exp_test.cpp
// measures it over a sweep of 2·10^7 arguments, the subnormal range included.
//
// Bits: only IEEE additions, multiplications and integer operations, never fused
// (the build passes -ffp-contract=off): exp_inplace(x)[i] depends on x[i] alone (the
// last values of an array go through the same lanes, padded), on every processor and
// at every vector width. That keeps the row-wise bit independence of the kernels
// (mlt/core/rowwise.hpp). Round-to-nearest is assumed, as everywhere in mlt.
//
// Cost: about 25 floating-point and 10 integer operations and two lane permutations
// per eight values (one AVX-512 register; GCC splits them for narrower targets):
// about a tenth of libm's scalar exp on an AVX-512 processor.
#pragma once

#include <cstddef>

namespace mlt {

// x[i] <- exp(x[i]) for i in [0, n).
void exp_inplace(double* x, std::size_t n);

}  // namespace mlt
