// k-means' assignment step: for each of n points (X, n x p) the nearest of k centres
// (C, k x p), ties to the lower index, with that squared distance, i.e. exactly what
// the plain triple loop over squared_distance finds, at GEMM speed.
//
// For a block of points the screening values ‖cₗ‖² − 2 x·cₗ (= ‖x − cₗ‖² − ‖x‖²)
// come from one GEMM, or (AVX-512 builds) from a fused register-tiled kernel when the
// centres are few and short enough to stay in L1. Either way they are off by at most a
// rounding bound β(x) (the inner-product error bounds of Higham, Accuracy and
// Stability of Numerical Algorithms, §3.1, with a generous constant). The nearest
// centre is certain when the runner-up is more than 2β away; the few candidates
// within 2β are recomputed directly by squared_distance.
//
// Cost: n·k·p multiply-adds in the screen, k compares per point, and p more per
// candidate for the few points whose nearest centre the bound leaves open.
//
// Below the public functions, the building blocks the other k-means files share: the
// chunking of rows, the transposed point layout, the packed centres, the screen and
// the assignment pass (kmeans/seeding.cpp, kmeans.cpp, metrics_silhouette.cpp).
#pragma once

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <vector>

#include "mlt/core/types.hpp"

namespace mlt::kmeans {

// The squared Euclidean distance of two points of p coordinates, by one fixed formula
// that the plain and the fast assignments share, bit for bit: t = aⱼ − bⱼ accumulated
// as fma(t, t, ·) into 8 partial sums (lane j mod 8), then summed pairwise,
// ((s0+s4)+(s2+s6))+((s1+s5)+(s3+s7)). Eight independent chains run at vector speed.
double squared_distance(const double* a, const double* b, std::size_t p);

// The assignment step on its own, exposed for tests and reuse: for each row of X
// (n x p) the index of the nearest row of C (k x p) by squared_distance (above),
// ties to the lower index, and that squared distance. Distances are screened in
// blocks (‖x‖² − 2x·c + ‖c‖², by BLAS or a fused kernel) with a rounding-error
// bound; the candidates the bound cannot separate are recomputed directly, so the
// result is exactly that of the plain loop.
void assign(const arma::mat& X, const arma::mat& C, Labels& labels, arma::vec& sq_distance);

// ---------------------------------------------------------------- building blocks

// Row ranges: chunks (units of work and of partial sums) made of GEMM blocks. They
// depend only on (n, p, k), never on the thread count, and partial sums are reduced in
// chunk order: the same result whatever the number of threads.
struct Chunking {
  arma::uword n = 0, block = 0, n_chunks = 0;
  Chunking(arma::uword n_rows, arma::uword p, arma::uword k) : n(n_rows) {
    // A block's k x block distance panel stays within ~512 KiB (L2).
    block = std::clamp<arma::uword>((arma::uword(1) << 16) / std::max<arma::uword>(k, 1), 32, 4096);
    // Partial centroid sums (p x k per chunk) stay within ~64 MiB in all.
    const arma::uword max_chunks =
        std::clamp<arma::uword>((arma::uword(1) << 23) / std::max<arma::uword>(p * k, 1), 1, 256);
    n_chunks = std::clamp<arma::uword>((n + block - 1) / block, 1, max_chunks);
  }
  arma::uword begin(arma::uword c) const { return n / n_chunks * c + (n % n_chunks) * c / n_chunks; }
  arma::uword end(arma::uword c) const { return begin(c + 1); }
};

// squared_distance (above), inlined into the hot loops. The AVX-512
// version is the same arithmetic, lane q of one vector being partial sum q: the same
// subtractions, the same fma chains and the same pairwise sum at the end, so both
// give the same bits.
#if defined(__AVX512F__)
// GCC 12's AVX-512 headers trip -W(maybe-)uninitialized (_mm512_undefined_pd inside).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
inline double sq_dist(const double* a, const double* b, std::size_t p) {
  __m512d acc = _mm512_setzero_pd();
  std::size_t j = 0;
  for (; j + 8 <= p; j += 8) {
    const __m512d t = _mm512_sub_pd(_mm512_loadu_pd(a + j), _mm512_loadu_pd(b + j));
    acc = _mm512_fmadd_pd(t, t, acc);
  }
  if (j < p) {  // the tail: lanes past p get t = 0, and fma(0, 0, s) = s exactly
    const __mmask8 m = static_cast<__mmask8>((1u << (p - j)) - 1);
    const __m512d t = _mm512_sub_pd(_mm512_maskz_loadu_pd(m, a + j), _mm512_maskz_loadu_pd(m, b + j));
    acc = _mm512_fmadd_pd(t, t, acc);
  }
  // (s0+s4, s1+s5, s2+s6, s3+s7), then ((s0+s4)+(s2+s6)) + ((s1+s5)+(s3+s7)).
  const __m256d h = _mm256_add_pd(_mm512_castpd512_pd256(acc), _mm512_extractf64x4_pd(acc, 1));
  const __m128d q = _mm_add_pd(_mm256_castpd256_pd128(h), _mm256_extractf128_pd(h, 1));
  return _mm_cvtsd_f64(q) + _mm_cvtsd_f64(_mm_unpackhi_pd(q, q));
}
#pragma GCC diagnostic pop
#else
inline double sq_dist(const double* a, const double* b, std::size_t p) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t j = 0;
  for (; j + 8 <= p; j += 8)
    for (std::size_t q = 0; q < 8; ++q) {
      const double t = a[j + q] - b[j + q];
      acc[q] = std::fma(t, t, acc[q]);
    }
  for (std::size_t q = 0; j + q < p; ++q) {
    const double t = a[j + q] - b[j + q];
    acc[q] = std::fma(t, t, acc[q]);
  }
  return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}
#endif

// Bound on the error of the screening value ‖c‖² − 2x·c (GEMM, any summation order)
// plus that of the direct sum, both below (p + 2)·ε·(‖x‖² + ‖c‖²)·(small constant);
// we take a generous constant: a larger β only sends more points to the exact check.
inline double screen_bound(arma::uword p, double x_norm2, double c_norm2_max) {
  return 8.0 * static_cast<double>(p + 8) * DBL_EPSILON * (x_norm2 + c_norm2_max);
}

// The data in the layout the hot loops want: one point per contiguous column.
struct Points {
  arma::mat Xt;    // p x n
  arma::vec norm2; // n, ‖xᵢ‖²
  arma::uword p() const { return Xt.n_rows; }
  arma::uword n() const { return Xt.n_cols; }
};

// Xt = ((X − shift) / scale)ᵀ, by tiles so both sides stay in cache. shift/scale may
// be empty (identity).
Points make_points(const arma::mat& X, const arma::rowvec& shift, const arma::rowvec& scale);
// The same into points first .. first + X.n_rows of P (sized already): the points of
// rows that come a chunk at a time, each prepared exactly as make_points would.
void make_points_into(const arma::mat& X, const arma::rowvec& shift, const arma::rowvec& scale, Points& P,
                      arma::uword first);

// Centroids in the hot loops' layout: Ct p x k, with their squared norms; for small
// k·p also packed for the fused screen (below).
struct Centres {
  arma::mat Ct;     // p x k
  arma::vec norm2;  // k
  double norm2_max = 0;
  // Packed copy for fused_screen: groups of 8 centres; for group g and coordinate j
  // the 8 values −2·c (exact: a power of two) side by side at packed[(g·p + j)·8];
  // padding centres are 0 with norm +inf, so they never come near the minimum.
  std::vector<double> packed, packed_norm2;
  arma::uword groups = 0;
  explicit Centres(const arma::mat& Ct_);
  arma::uword k() const { return Ct.n_cols; }
  bool fused() const { return groups != 0; }
};

// The screening value of point x and centre c is ‖c‖² − 2 x·c (= ‖x − c‖² − ‖x‖²): the
// nearest centre minimises it. Computed in any order, it is off by at most
// screen_bound(); the assignment (nearest() in assign.cpp) settles what that leaves
// open, and the seedings recompute the values near 0.
//
// Screening values of points r0 .. r0+m: column j of the result (k values, the first
// of each column) is point r0 + j's. Returns the column stride.
arma::uword screen(const Points& P, const Centres& C, arma::uword r0, arma::uword m, double* panel);
// Panel size screen() needs for a block of m points.
std::size_t screen_panel_size(const Centres& C, arma::uword m);

// A scratch buffer per thread, kept across passes (a fresh large allocation per
// chunk costs page faults).
double* scratch(std::size_t size);

// One assignment pass: labels and exact squared distances of every point (labels in
// and out: the labels that change are counted), the energy Σ d2 and the cluster
// sizes, and (with_sums) the centroid sums, all reduced in chunk order.
struct AssignResult {
  double energy = 0;
  arma::uword changed = 0;
  arma::mat sums;     // p x k (when asked)
  arma::uvec counts;  // k
};
AssignResult assign_pass(const Points& P, const Centres& C, const Chunking& ch, arma::uword* labels, double* d2,
                         bool with_sums);
// The same over the points of a source (kmeans/source.hpp: in memory or re-read);
// labels and d2 hold all n rows.
class BlockSource;
AssignResult assign_pass(BlockSource& src, const Centres& C, const Chunking& ch, arma::uword* labels, double* d2,
                         bool with_sums);

}  // namespace mlt::kmeans
