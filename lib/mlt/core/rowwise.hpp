// Matrix products whose every entry depends on its own row and nothing else.
//
// A BLAS product's entry (i, j) is a sum whose order and fused multiply-adds depend
// on the kernel (Haswell, SkylakeX, Zen, the generic one), on the blocking, and on
// where row i falls in the block: predicting rows 0..9 apart or with the rest, or in
// another order, changes the last bits. Predictions must not (streaming prediction
// and chunked cv rely on it), so every predict/transform path computes its products
// here:
//
//   entry (i, j) = (((0 + a_i1 b_j1) + a_i2 b_j2) + ...) + a_ip b_jp,
//
// one rounded product and one rounded sum per term, in ascending k, never fused
// (the build passes -ffp-contract=off). The same bits whatever the batch, the row's
// position, the thread count, the OpenBLAS core, or the processor.
//
// Cost: 2mnp flops, register-tiled (16 rows x 6 columns of accumulators, B packed in
// k-major panels), on thread_count() threads over row ranges. About half of a BLAS
// dgemm's peak at the small p of kernel methods; the products here are never the
// O(n³) part of a fit.
#pragma once

#include "mlt/core/types.hpp"

namespace mlt::rowwise {

// A · Bᵀ: A m x p, B n x p -> m x n (inner products of A's rows with B's rows).
arma::mat inner_products(const arma::mat& A, const arma::mat& B);

// A · W: A m x p, W p x t -> m x t.
arma::mat product(const arma::mat& A, const arma::mat& W);

// ‖a_i‖² for every row of A, summed in ascending k.
arma::vec squared_norms(const arma::mat& A);

}  // namespace mlt::rowwise
