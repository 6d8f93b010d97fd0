// exp(x) over an array, written so that GCC vectorizes it (the rbf kernel's
// exponentials were a third of a kernel SVM's time through libm's scalar exp).
//
// Method (Tang's table-driven exp, as in glibc 2.28+ and ARM's optimized-routines):
// x = k ln2/128 + r with k = round(128 x / ln2) and |r| <= ln2/256 (ln2/128 split in a
// head with 17 trailing zero bits and a tail, Cody and Waite), then
//     exp(x) = 2^e · 2^(j/128) · exp(r),   k = 128 e + j, 0 <= j < 128,
// 2^(j/128) = s_j (1 + t_j) from a table (scripts/gen-exp-table: s_j the nearest
// double, t_j its relative error, so the table is exact to ~2^-106), and exp(r) − 1 by
// its Taylor polynomial to degree 5 (truncation |r|^6/720 <= 5.6e-19: 0.005 ulp). The
// power 2^e is applied as two factors 2^⌊e/2⌋ · 2^(e−⌊e/2⌋), each a normal double, so the
// result is rounded once more only where it is subnormal or overflows (to 0 below
// x ≈ −745.13, to +inf above x ≈ 709.78, as std::exp).
//
// Accuracy: within 1 ulp of std::exp (glibc's, itself within 0.51 ulp) over x in
// [−746, 710] and at ±0, ±inf and NaN (NaN in, NaN out); tests/lib/core/exp_test.cpp
// measures it over a sweep of 2·10^7 arguments, the subnormal range included.
//
// Bits: only IEEE additions, multiplications and integer operations, never fused
// (the build passes -ffp-contract=off): exp_inplace(x)[i] depends on x[i] alone, the
// same bits in the vectorized loop and its scalar remainder, on every processor and
// at every vector width. That keeps the row-wise bit independence of the kernels
// (mlt/core/rowwise.hpp). Round-to-nearest is assumed, as everywhere in mlt.
//
// Cost: about 20 floating-point and 10 integer operations and two table loads per
// value, vectorized (AVX-512: 8 values per instruction; gathers for the table).
#pragma once

#include <cstddef>

namespace mlt {

// x[i] <- exp(x[i]) for i in [0, n).
void exp_inplace(double* x, std::size_t n);

}  // namespace mlt
