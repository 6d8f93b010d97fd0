// k-means (lecture notes; scikit-learn's KMeans is the reference): minimise
//     E(y, c) = Σₗ Σ_{i: yᵢ=ℓ} ‖xᵢ − cₗ‖²
// by Lloyd's block-coordinate descent: with c fixed the best y sends each point to its
// nearest centroid; with y fixed the best c is each cluster's barycentre. Neither step
// can increase E, so E is non-increasing and the run stops at a fixed point.
//
// Seeding: k-means++ (Arthur & Vassilvitskii, "k-means++: the advantages of careful
// seeding", SODA 2007): the first centre uniform, each next one drawn with probability
// ∝ D(x)², the squared distance to the nearest centre already chosen. As scikit-learn
// (greedy k-means++) we draw `local_trials` candidates that way and keep the one that
// lowers Σ D² most; local_trials = 1 is the plain algorithm.
//
// The assignment step, exact and fast. For a block of points the screening values
//     ‖cₗ‖² − 2 x·cₗ   (= ‖x − cₗ‖² − ‖x‖²)
// come from one GEMM, or, when the centroids are few and short enough to stay in L1
// (AVX-512 builds), from a fused register-tiled kernel that skips the GEMM's packing
// and panel traffic; either way they are off by at most a rounding bound β(x) (below). The
// nearest centroid is certain when the runner-up is more than 2β away; otherwise the
// few candidates within 2β are recomputed directly as Σⱼ (xⱼ − cⱼ)², exactly as the
// plain triple loop does (kmeans::squared_distance, a fixed formula), ties to the
// lower index. So the assignments ARE those of plain Lloyd, while nearly all the
// work runs at GEMM speed. The data is centred (and standardized with --standardize)
// first, which keeps ‖x‖² and ‖c‖², hence β, small.
//
// Determinism: rows are cut into chunks that depend only on (n, p, k), never on the
// thread count; each chunk's partial sums (energy, centroid sums, counts) are reduced
// in chunk order, and BLAS runs single-threaded inside our threads (never nest threads
// over a threaded BLAS: PERFORMANCE.md). Same seed, same model, whatever --threads.
#include "mlt/kmeans.hpp"

#include <cblas.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "mlt/core/error.hpp"
#include "mlt/core/log.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/core/validate.hpp"

namespace mlt {
namespace {

using arma::uword;

// ---------------------------------------------------------------- threads and chunks

// Row ranges: chunks (units of work and of partial sums) made of GEMM blocks.
struct Chunking {
  uword n = 0, block = 0, n_chunks = 0;
  Chunking(uword n_rows, uword p, uword k) : n(n_rows) {
    // A block's k x block distance panel stays within ~512 KiB (L2).
    block = std::clamp<uword>((uword(1) << 16) / std::max<uword>(k, 1), 32, 4096);
    // Partial centroid sums (p x k per chunk) stay within ~64 MiB in all.
    const uword max_chunks = std::clamp<uword>((uword(1) << 23) / std::max<uword>(p * k, 1), 1, 256);
    n_chunks = std::clamp<uword>((n + block - 1) / block, 1, max_chunks);
  }
  uword begin(uword c) const { return n / n_chunks * c + (n % n_chunks) * c / n_chunks; }
  uword end(uword c) const { return begin(c + 1); }
};

// ------------------------------------------------------------------- distances

// kmeans::squared_distance (see the header), inlined into the hot loops. The AVX-512
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
inline double screen_bound(uword p, double x_norm2, double c_norm2_max) {
  return 8.0 * static_cast<double>(p + 8) * DBL_EPSILON * (x_norm2 + c_norm2_max);
}

// The data in the layout the hot loops want: one point per contiguous column.
struct Points {
  arma::mat Xt;    // p x n
  arma::vec norm2; // n, ‖xᵢ‖²
  uword p() const { return Xt.n_rows; }
  uword n() const { return Xt.n_cols; }
};

// Xt = ((X − shift) / scale)ᵀ, by tiles so both sides stay in cache. shift/scale may
// be empty (identity).
Points make_points(const arma::mat& X, const arma::rowvec& shift, const arma::rowvec& scale) {
  Points P;
  const uword n = X.n_rows, p = X.n_cols;
  P.Xt.set_size(p, n);
  P.norm2.set_size(n);
  const bool shifted = !shift.is_empty(), scaled = !scale.is_empty();
  constexpr uword tile = 256;
  const std::size_t n_tiles = (n + tile - 1) / tile;
  parallel_for(n_tiles, [&](std::size_t t) {
    const uword r0 = t * tile, r1 = std::min(n, r0 + tile);
    for (uword j = 0; j < p; ++j) {
      const double* col = X.colptr(j);
      const double m = shifted ? shift[j] : 0.0, s = scaled ? scale[j] : 1.0;
      for (uword i = r0; i < r1; ++i) {
        double v = col[i];
        if (shifted) v -= m;
        if (scaled) v /= s;
        P.Xt(j, i) = v;
      }
    }
    for (uword i = r0; i < r1; ++i) {
      const double* x = P.Xt.colptr(i);
      double s = 0;
      for (uword j = 0; j < p; ++j) s += x[j] * x[j];
      P.norm2[i] = s;
    }
  });
  return P;
}

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
  uword groups = 0;
  explicit Centres(const arma::mat& Ct_);
  uword k() const { return Ct.n_cols; }
  bool fused() const { return groups != 0; }
};

// The screening value of point x and centre c is ‖c‖² − 2 x·c (= ‖x − c‖² − ‖x‖²): the
// nearest centre minimises it. Computed in any order, it is off by at most
// screen_bound(); nearest() settles what that leaves open.

// Screening values of points r0 .. r0+m against every centre through one GEMM: panel
// (k x m, column-major, ld k) starts as ‖c‖² in every column and the GEMM adds −2 C·X
// (β = 1 also spares OpenBLAS a pass that zeroes the panel).
void screen_panel(const Points& P, const Centres& C, uword r0, uword m, double* panel) {
  const uword k = C.k(), p = P.p();
  for (uword j = 0; j < m; ++j) std::memcpy(panel + j * k, C.norm2.memptr(), k * sizeof(double));
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, static_cast<blasint>(k), static_cast<blasint>(m),
              static_cast<blasint>(p), -2.0, C.Ct.memptr(), static_cast<blasint>(p), P.Xt.colptr(r0),
              static_cast<blasint>(p), 1.0, panel, static_cast<blasint>(k));
}

#if defined(__AVX512F__)
// The fused screen, for k·p small enough that the packed centres stay in L1: NP points
// against G groups of 8 centres, NP·G <= 16 accumulators in registers, each starting at
// ‖c‖² and taking fma(xⱼ, −2cⱼ, ·) for j = 0 .. p−1. No packing, no panel through the
// caches: for k-means' usual shapes (k ≲ 100, p ≲ 50) the GEMM's packing and the panel
// traffic cost more than the arithmetic. Out: out[q] gets 8·G values for point q.
template <uword G, uword NP>
[[gnu::always_inline]] inline void fused_tile(const double* const* x, uword p, const double* packed, const double* cn,
                       double* const* out) {
  __m512d acc[NP][G];
  for (uword g = 0; g < G; ++g) {
    const __m512d c = _mm512_loadu_pd(cn + 8 * g);
    for (uword q = 0; q < NP; ++q) acc[q][g] = c;
  }
  for (uword j = 0; j < p; ++j) {
    __m512d b[NP];
    for (uword q = 0; q < NP; ++q) b[q] = _mm512_set1_pd(x[q][j]);
    for (uword g = 0; g < G; ++g) {
      const __m512d c = _mm512_loadu_pd(packed + (g * p + j) * 8);
      for (uword q = 0; q < NP; ++q) acc[q][g] = _mm512_fmadd_pd(b[q], c, acc[q][g]);
    }
  }
  for (uword q = 0; q < NP; ++q)
    for (uword g = 0; g < G; ++g) _mm512_storeu_pd(out[q] + 8 * g, acc[q][g]);
}

// Enough points per tile to keep 16 independent fma chains in flight (the fma latency
// times the two ports), at most 8.
constexpr uword points_per_tile(uword groups) { return std::clamp<uword>(16 / groups, 2, 8); }

// Points r0 .. r0+m against groups [g, g + G) (a tail of fewer than NP points repeats
// its last point).
template <uword G>
void fused_groups(const Points& P, uword r0, uword m, const double* packed, const double* cn, double* panel,
                  uword ld, uword g) {
  constexpr uword NP = points_per_tile(G);
  const uword p = P.p();
  const double* x[NP];
  double* out[NP];
  for (uword j = 0; j < m; j += NP) {
    for (uword q = 0; q < NP; ++q) {
      const uword i = std::min(j + q, m - 1);
      x[q] = P.Xt.colptr(r0 + i);
      out[q] = panel + i * ld + 8 * g;
    }
    fused_tile<G, NP>(x, p, packed, cn, out);
  }
}

// Screening values of points r0 .. r0+m into panel (ld = 8·groups), by tiles of at
// most 8 groups, the groups spread evenly over the tiles (a thin tile would reload x
// for few fmas).
void fused_screen(const Points& P, const Centres& C, uword r0, uword m, double* panel) {
  const uword p = P.p(), ld = 8 * C.groups;
  const uword n_tiles = (C.groups + 7) / 8;
  for (uword tile = 0, g = 0; tile < n_tiles; ++tile) {
    const uword t = (C.groups - g) / (n_tiles - tile);  // this tile's share of the groups left
    const double* pk = C.packed.data() + g * p * 8;
    const double* cn = C.packed_norm2.data() + 8 * g;
    switch (t) {
      case 1: fused_groups<1>(P, r0, m, pk, cn, panel, ld, g); break;
      case 2: fused_groups<2>(P, r0, m, pk, cn, panel, ld, g); break;
      case 3: fused_groups<3>(P, r0, m, pk, cn, panel, ld, g); break;
      case 4: fused_groups<4>(P, r0, m, pk, cn, panel, ld, g); break;
      case 5: fused_groups<5>(P, r0, m, pk, cn, panel, ld, g); break;
      case 6: fused_groups<6>(P, r0, m, pk, cn, panel, ld, g); break;
      case 7: fused_groups<7>(P, r0, m, pk, cn, panel, ld, g); break;
      default: fused_groups<8>(P, r0, m, pk, cn, panel, ld, g); break;
    }
    g += t;
  }
}
#endif

Centres::Centres(const arma::mat& Ct_) : Ct(Ct_), norm2(Ct_.n_cols) {
  const uword k = Ct.n_cols, p = Ct.n_rows;
  for (uword l = 0; l < k; ++l) {
    const double* c = Ct.colptr(l);
    double s = 0;
    for (uword j = 0; j < p; ++j) s += c[j] * c[j];
    norm2[l] = s;
  }
  norm2_max = k ? norm2.max() : 0.0;
#if defined(__AVX512F__)
  // Fused when the packed centres fit in half of L1 (24 KiB: 3072 values).
  if (k > 0 && p > 0 && ((k + 7) / 8) * 8 * p <= 3072) {
    groups = (k + 7) / 8;
    packed.assign(groups * p * 8, 0.0);
    packed_norm2.assign(groups * 8, arma::datum::inf);
    for (uword l = 0; l < k; ++l) {
      packed_norm2[l] = norm2[l];
      for (uword j = 0; j < p; ++j) packed[((l / 8) * p + j) * 8 + l % 8] = -2.0 * Ct(j, l);
    }
  }
#endif
}

// Screening values of points r0 .. r0+m: column j of the result (k values, the first
// of each column) is point r0 + j's. Returns the column stride.
uword screen(const Points& P, const Centres& C, uword r0, uword m, double* panel) {
#if defined(__AVX512F__)
  if (C.fused()) {
    fused_screen(P, C, r0, m, panel);
    return 8 * C.groups;
  }
#endif
  screen_panel(P, C, r0, m, panel);
  return C.k();
}

// Panel size screen() needs for a block of m points.
std::size_t screen_panel_size(const Centres& C, uword m) { return (C.fused() ? 8 * C.groups : C.k()) * m; }

// Over the screening values v[0 .. k): the smallest (first index of it) and whether it
// is the only one within `slack` of it. The same arithmetic on every path, so the
// vector and scalar versions agree exactly.
struct ScreenMin {
  uword best;
  double value;
  bool unique;
};

#if defined(__AVX512F__)
// (The same GCC 12 warning as in sq_dist.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
inline ScreenMin screen_min(const double* v, uword k, double slack) {
  const __m512d inf = _mm512_set1_pd(arma::datum::inf);
  if (k <= 64) {
    // Up to 8 vectors, kept in registers: one min tree, then the lanes equal to the
    // minimum and those within `slack` of it as two 64-bit masks (no branches).
    const uword nv = (k + 7) / 8;
    __m512d x[8];
    __m512d vmin = inf;
    for (uword g = 0; g < nv; ++g) {
      const uword left = k - 8 * g;
      const __mmask8 mask = left >= 8 ? __mmask8(0xFF) : static_cast<__mmask8>((1u << left) - 1);
      x[g] = _mm512_mask_loadu_pd(inf, mask, v + 8 * g);
      vmin = _mm512_min_pd(vmin, x[g]);
    }
    const double m = _mm512_reduce_min_pd(vmin);
    const __m512d vm = _mm512_set1_pd(m), vthr = _mm512_set1_pd(m + slack);
    std::uint64_t eq = 0, near = 0;
    for (uword g = 0; g < nv; ++g) {
      eq |= std::uint64_t(_mm512_cmp_pd_mask(x[g], vm, _CMP_EQ_OQ)) << (8 * g);
      near |= std::uint64_t(_mm512_cmp_pd_mask(x[g], vthr, _CMP_LE_OQ)) << (8 * g);
    }
    return {static_cast<uword>(__builtin_ctzll(eq)), m, __builtin_popcountll(near) == 1};
  }
  __m512d vmin = inf;
  uword l = 0;
  for (; l + 8 <= k; l += 8) vmin = _mm512_min_pd(vmin, _mm512_loadu_pd(v + l));
  const __mmask8 tail = static_cast<__mmask8>((1u << (k - l)) - 1);
  if (tail) vmin = _mm512_min_pd(vmin, _mm512_mask_loadu_pd(inf, tail, v + l));
  const double m = _mm512_reduce_min_pd(vmin);
  const __m512d vm = _mm512_set1_pd(m), vthr = _mm512_set1_pd(m + slack);
  uword best = k, count = 0;
  for (l = 0; l < k; l += 8) {
    const __mmask8 mask = k - l >= 8 ? __mmask8(0xFF) : static_cast<__mmask8>((1u << (k - l)) - 1);
    const __m512d x = _mm512_mask_loadu_pd(inf, mask, v + l);
    const unsigned eq = _mm512_cmp_pd_mask(x, vm, _CMP_EQ_OQ);
    if (best == k && eq) best = l + static_cast<uword>(__builtin_ctz(eq));
    count += static_cast<uword>(__builtin_popcount(_mm512_cmp_pd_mask(x, vthr, _CMP_LE_OQ)));
  }
  return {best, m, count == 1};
}
#pragma GCC diagnostic pop
#else
inline ScreenMin screen_min(const double* v, uword k, double slack) {
  double m = arma::datum::inf;
  uword best = 0;
  for (uword l = 0; l < k; ++l)
    if (v[l] < m) {
      m = v[l];
      best = l;
    }
  uword count = 0;
  for (uword l = 0; l < k; ++l) count += (v[l] <= m + slack);
  return {best, m, count == 1};
}
#endif

// Nearest centre of point i given its screening values v (k of them): exact label and
// exact squared distance.
inline void nearest(const Points& P, const Centres& C, uword i, const double* v, uword& label, double& d2) {
  const uword k = C.k(), p = P.p();
  const double* x = P.Xt.colptr(i);
  const double slack = 2.0 * screen_bound(p, P.norm2[i], C.norm2_max);
  const ScreenMin sm = screen_min(v, k, slack);
  if (sm.unique) {
    label = sm.best;
    d2 = sq_dist(x, C.Ct.colptr(sm.best), p);
    return;
  }
  // Too close to call from the screening values: the plain loop over the candidates.
  double bd = arma::datum::inf;
  uword bl = 0;
  for (uword l = 0; l < k; ++l) {
    if (v[l] > sm.value + slack) continue;
    const double d = sq_dist(x, C.Ct.colptr(l), p);
    if (d < bd) {
      bd = d;
      bl = l;
    }
  }
  label = bl;
  d2 = bd;
}

// A scratch buffer per thread, kept across passes (a fresh large allocation per
// chunk costs page faults).
double* scratch(std::size_t size) {
  thread_local std::vector<double> buffer;
  if (buffer.size() < size) buffer.resize(size);
  return buffer.data();
}

// One assignment pass: labels and exact squared distances of every point, and per
// chunk the energy, the number of changed labels and (optionally) the centroid sums.
struct AssignChunk {
  double energy = 0;
  uword changed = 0;
  arma::mat sums;     // p x k
  arma::uvec counts;  // k
};

struct AssignResult {
  double energy = 0;
  uword changed = 0;
  arma::mat sums;     // p x k (when asked)
  arma::uvec counts;  // k
};

AssignResult assign_pass(const Points& P, const Centres& C, const Chunking& ch, uword* labels, double* d2,
                         bool with_sums) {
  const uword k = C.k(), p = P.p();
  std::vector<AssignChunk> parts(ch.n_chunks);
  parallel_for(ch.n_chunks, [&](std::size_t c) {
    AssignChunk& part = parts[c];
    part.counts.zeros(k);
    if (with_sums) part.sums.zeros(p, k);
    double* panel = scratch(screen_panel_size(C, ch.block));
    for (uword r0 = ch.begin(c); r0 < ch.end(c); r0 += ch.block) {
      const uword m = std::min(ch.block, ch.end(c) - r0);
      const uword ld = screen(P, C, r0, m, panel);
      for (uword j = 0; j < m; ++j) {
        const uword i = r0 + j;
        uword l;
        double d;
        nearest(P, C, i, panel + j * ld, l, d);
        if (labels[i] != l) ++part.changed;
        labels[i] = l;
        d2[i] = d;
        part.energy += d;
        ++part.counts[l];
        if (with_sums) {
          double* s = part.sums.colptr(l);
          const double* x = P.Xt.colptr(i);
          for (uword q = 0; q < p; ++q) s[q] += x[q];
        }
      }
    }
  });
  AssignResult r;
  r.counts.zeros(k);
  if (with_sums) r.sums.zeros(p, k);
  for (const auto& part : parts) {  // chunk order: deterministic
    r.energy += part.energy;
    r.changed += part.changed;
    r.counts += part.counts;
    if (with_sums) r.sums += part.sums;
  }
  return r;
}

// Centroid sums and counts of a labelling (after a teleport changed labels).
void cluster_sums(const Points& P, const Chunking& ch, const uword* labels, uword k, arma::mat& sums,
                  arma::uvec& counts) {
  const uword p = P.p();
  std::vector<arma::mat> part_sums(ch.n_chunks);
  std::vector<arma::uvec> part_counts(ch.n_chunks);
  parallel_for(ch.n_chunks, [&](std::size_t c) {
    part_sums[c].zeros(p, k);
    part_counts[c].zeros(k);
    for (uword i = ch.begin(c); i < ch.end(c); ++i) {
      double* s = part_sums[c].colptr(labels[i]);
      const double* x = P.Xt.colptr(i);
      for (uword q = 0; q < p; ++q) s[q] += x[q];
      ++part_counts[c][labels[i]];
    }
  });
  sums.zeros(p, k);
  counts.zeros(k);
  for (uword c = 0; c < ch.n_chunks; ++c) {
    sums += part_sums[c];
    counts += part_counts[c];
  }
}

// ------------------------------------------------------------------- distinct rows

struct ColumnHash {
  const double* data;
  uword p;
  std::size_t operator()(uword i) const {
    std::uint64_t h = 1469598103934665603ull;
    for (uword j = 0; j < p; ++j) {
      double v = data[i * p + j];
      if (v == 0) v = 0;  // -0.0 and 0.0 are the same value
      std::uint64_t b;
      std::memcpy(&b, &v, sizeof b);
      h = (h ^ b) * 1099511628211ull;
      h ^= h >> 29;
    }
    return static_cast<std::size_t>(h);
  }
};
struct ColumnEqual {
  const double* data;
  uword p;
  bool operator()(uword a, uword b) const {
    for (uword j = 0; j < p; ++j)
      if (data[a * p + j] != data[b * p + j]) return false;
    return true;
  }
};

// Distinct columns of a p x n matrix, stopping once `stop_at` are found (0: never).
std::size_t distinct_columns(const arma::mat& Xt, std::size_t stop_at) {
  const uword p = Xt.n_rows;
  std::unordered_set<uword, ColumnHash, ColumnEqual> seen(64, ColumnHash{Xt.memptr(), p},
                                                          ColumnEqual{Xt.memptr(), p});
  for (uword i = 0; i < Xt.n_cols; ++i) {
    seen.insert(i);
    if (stop_at && seen.size() >= stop_at) break;
  }
  return seen.size();
}

// ------------------------------------------------------------------- seeding

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Squared distances of every point to each of the candidate centres (p x T), with
// exact zeros: a screened value within the rounding bound of 0 is recomputed directly.
// Out: D (T x n). Also per chunk, for each candidate, Σᵢ min(closestᵢ, D(t, i)).
void candidate_distances(const Points& P, const Chunking& ch, const arma::mat& cand, const arma::vec* closest,
                         arma::mat& D, arma::mat& chunk_potential /* T x n_chunks */) {
  const Centres C(cand);
  const uword T = C.k(), p = P.p();
  D.set_size(T, P.n());
  chunk_potential.zeros(T, ch.n_chunks);
  parallel_for(ch.n_chunks, [&](std::size_t c) {
    double* panel = scratch(screen_panel_size(C, ch.block));
    for (uword r0 = ch.begin(c); r0 < ch.end(c); r0 += ch.block) {
      const uword m = std::min(ch.block, ch.end(c) - r0);
      const uword ld = screen(P, C, r0, m, panel);
      for (uword j = 0; j < m; ++j) {
        const uword i = r0 + j;
        const double* s = panel + j * ld;
        double* col = D.colptr(i);
        const double bound = screen_bound(p, P.norm2[i], C.norm2_max);
        for (uword t = 0; t < T; ++t) {
          double v = s[t] + P.norm2[i];  // the screening value plus ‖x‖²: ‖x − c‖²
          if (v <= 2 * bound) v = sq_dist(P.Xt.colptr(i), C.Ct.colptr(t), p);
          col[t] = v;
          chunk_potential(t, c) += closest ? std::min((*closest)[i], v) : v;
        }
      }
    }
  });
}

// First index whose running sum of d2 exceeds `target` (0 <= target < total): a point
// with d2 = 0 is never drawn. `chunk_sum` locates the chunk without a full prefix sum.
uword draw_by_weight(const arma::vec& d2, const Chunking& ch, const arma::vec& chunk_sum, double target) {
  double acc = 0;
  uword c = 0;
  for (; c + 1 < ch.n_chunks; ++c) {
    if (acc + chunk_sum[c] > target) break;
    acc += chunk_sum[c];
  }
  uword last_positive = ch.begin(c);
  for (uword i = ch.begin(c); i < ch.end(c); ++i) {
    if (d2[i] <= 0) continue;
    acc += d2[i];
    last_positive = i;
    if (acc > target) return i;
  }
  return last_positive;  // rounding left target just above the running sum
}

// Row indices of k seeds. Rows at distance 0 of a chosen seed are never drawn, so the
// seeds are distinct rows; once every row is at distance 0 (fewer distinct rows than
// k: KMeans::fit refuses that case before, kmeanspp_rows allows it) the rest are
// drawn uniformly among the rows not chosen yet.
arma::uvec seed_kmeanspp(const Points& P, const Chunking& ch, uword k, uword trials, Random& rng) {
  const uword n = P.n(), p = P.p();
  arma::uvec rows(k);
  rows[0] = rng.below(n);
  arma::mat D, pot;
  candidate_distances(P, ch, P.Xt.col(rows[0]), nullptr, D, pot);
  arma::vec closest = D.row(0).t();
  arma::vec chunk_sum = pot.row(0).t();
  for (uword l = 1; l < k; ++l) {
    const double total = arma::accu(chunk_sum);  // summed in chunk order
    if (!(total > 0)) {
      std::vector<char> taken(n, 0);
      for (uword c = 0; c < l; ++c) taken[rows[c]] = 1;
      std::vector<uword> free;
      for (uword i = 0; i < n; ++i)
        if (!taken[i]) free.push_back(i);
      for (uword c = l; c < k; ++c) {  // partial Fisher-Yates over the rows left
        std::swap(free[c - l], free[c - l + rng.below(free.size() - (c - l))]);
        rows[c] = free[c - l];
      }
      break;
    }
    arma::uvec cand_rows(trials);
    arma::mat cand(p, trials);
    for (uword t = 0; t < trials; ++t) {
      cand_rows[t] = draw_by_weight(closest, ch, chunk_sum, rng.uniform() * total);
      cand.col(t) = P.Xt.col(cand_rows[t]);
    }
    candidate_distances(P, ch, cand, &closest, D, pot);
    const arma::vec potential = arma::sum(pot, 1);  // per candidate, chunk order
    const uword best = potential.index_min();       // first of equal minima
    rows[l] = cand_rows[best];
    chunk_sum = pot.row(best).t();
    parallel_for(ch.n_chunks, [&](std::size_t c) {
      for (uword i = ch.begin(c); i < ch.end(c); ++i) closest[i] = std::min(closest[i], D(best, i));
    });
  }
  return rows;
}

arma::mat seed_farthest(const Points& P, const Chunking& ch, uword k, Random& rng) {
  const uword n = P.n(), p = P.p();
  arma::mat Ct(p, k);
  Ct.col(0) = P.Xt.col(rng.below(n));
  arma::mat D, pot;
  candidate_distances(P, ch, Ct.col(0), nullptr, D, pot);
  arma::vec closest = D.row(0).t();
  for (uword l = 1; l < k; ++l) {
    const uword far = closest.index_max();  // first of equal maxima
    Ct.col(l) = P.Xt.col(far);
    candidate_distances(P, ch, Ct.col(l), nullptr, D, pot);
    parallel_for(ch.n_chunks, [&](std::size_t c) {
      for (uword i = ch.begin(c); i < ch.end(c); ++i) closest[i] = std::min(closest[i], D(0, i));
    });
  }
  return Ct;
}

// k rows with distinct values, uniformly (a lazy Fisher-Yates over row indices).
arma::mat seed_random(const Points& P, uword k, Random& rng) {
  const uword n = P.n(), p = P.p();
  arma::mat Ct(p, k);
  std::unordered_map<uword, uword> swapped;  // the permutation's displaced entries
  auto at = [&](uword i) { auto it = swapped.find(i); return it == swapped.end() ? i : it->second; };
  uword chosen = 0;
  for (uword t = 0; t < n && chosen < k; ++t) {
    const uword j = t + rng.below(n - t);
    const uword pick = at(j);
    swapped[j] = at(t);
    const double* x = P.Xt.colptr(pick);
    bool duplicate = false;
    for (uword l = 0; l < chosen && !duplicate; ++l)
      duplicate = std::equal(x, x + p, Ct.colptr(l));
    if (!duplicate) Ct.col(chosen++) = P.Xt.col(pick);
  }
  if (chosen < k) throw Error("internal: random seeding found too few distinct rows", kExitSoftware);
  return Ct;
}

// ------------------------------------------------------------------- Lloyd

struct Run {
  arma::mat Ct;        // p x k
  arma::uvec labels;   // n
  arma::uvec counts;   // k
  double energy = 0;
  uword n_iter = 0;
  KMeansStop stop = KMeansStop::max_iter;
  std::vector<double> history;
};

// Moves the centroid of every empty cluster onto the point that contributes most to E
// (largest d2, first of equals), taken from a cluster it does not empty. Returns how
// many were moved. Such a move lowers E: that point's term becomes 0.
uword teleport_empty(arma::uvec& labels, arma::vec& d2, arma::uvec& counts, arma::mat& Ct, const Points& P) {
  uword moved = 0;
  for (uword l = 0; l < counts.n_elem; ++l) {
    if (counts[l] != 0) continue;
    uword pick = P.n();
    double worst = 0;
    for (uword i = 0; i < P.n(); ++i)
      if (d2[i] > worst && counts[labels[i]] > 1) {
        worst = d2[i];
        pick = i;
      }
    if (pick == P.n()) continue;  // cannot happen with k <= distinct rows; keep it finite anyway
    --counts[labels[pick]];
    labels[pick] = l;
    counts[l] = 1;
    d2[pick] = 0;
    Ct.col(l) = P.Xt.col(pick);
    ++moved;
  }
  return moved;
}

Run lloyd(const Points& P, const Chunking& ch, arma::mat Ct, uword max_iter, double tol) {
  const uword n = P.n(), k = Ct.n_cols;
  Run run;
  run.labels.set_size(n);
  run.labels.fill(k);  // no label yet: every point "changes" on the first pass
  arma::vec d2(n);
  double previous = 0;
  for (uword it = 0;; ++it) {
    const Centres C(Ct);
    AssignResult a = assign_pass(P, C, ch, run.labels.memptr(), d2.memptr(), true);
    run.history.push_back(a.energy);
    const bool any_empty = arma::any(a.counts == 0);
    run.n_iter = it;
    run.counts = a.counts;
    run.energy = a.energy;
    if (it > 0 && !any_empty) {
      if (a.changed == 0) {
        run.stop = KMeansStop::no_change;
        break;
      }
      if (tol > 0 && previous - a.energy < tol * previous) {  // tol = 0: never, even if rounding raised E
        run.stop = KMeansStop::tol;
        break;
      }
    }
    if (it == max_iter) {
      run.stop = KMeansStop::max_iter;
      break;
    }
    if (any_empty && teleport_empty(run.labels, d2, a.counts, Ct, P) > 0)
      cluster_sums(P, ch, run.labels.memptr(), k, a.sums, a.counts);
    for (uword l = 0; l < k; ++l)
      if (a.counts[l] > 0) Ct.col(l) = a.sums.col(l) / static_cast<double>(a.counts[l]);
    previous = a.energy;
  }
  run.Ct = std::move(Ct);
  return run;
}

// Exact per-pair distances of points to centres: m x k.
arma::mat all_distances(const Points& P, const arma::mat& Ct) {
  const uword n = P.n(), k = Ct.n_cols, p = P.p();
  arma::mat D(n, k);
  constexpr uword tile = 1024;
  parallel_for((n + tile - 1) / tile, [&](std::size_t t) {
    for (uword i = t * tile; i < std::min(n, (t + 1) * tile); ++i)
      for (uword l = 0; l < k; ++l) D(i, l) = std::sqrt(sq_dist(P.Xt.colptr(i), Ct.colptr(l), p));
  });
  return D;
}

}  // namespace

// ------------------------------------------------------------------- names

// ------------------------------------------------------------------- KMeans

void KMeans::check_params() const {
  if (params_.k < 1) throw UsageError("k must be >= 1");
  if (params_.max_iter < 1) throw UsageError("max_iter must be >= 1");
  if (!(params_.tol >= 0) || !std::isfinite(params_.tol)) throw UsageError("tol must be a finite number >= 0");
}

KMeans& KMeans::fit(const arma::mat& X) { return fit_from(X, arma::mat()); }

KMeans& KMeans::fit_from(const arma::mat& X, const arma::mat& initial_centroids) {
  check_params();
  check_fit_input(X, 1);
  const bool given = !initial_centroids.is_empty();
  const uword n = X.n_rows, p = X.n_cols;
  const uword k = given ? initial_centroids.n_rows : params_.k;
  if (given) {
    if (initial_centroids.n_cols != p)
      throw DataError("initial centroids have " + std::to_string(initial_centroids.n_cols) +
                      " features, the data " + std::to_string(p));
    if (!initial_centroids.is_finite()) throw DataError("non-finite initial centroid");
  }
  if (k > n) throw DataError("k=" + std::to_string(k) + " > n_samples=" + std::to_string(n));

  // Work centred on the training mean (standardized with `standardize`): distances
  // are unchanged, rounding bounds shrink. predict() repeats the same transform.
  scaler_ = Standardizer();
  if (params_.standardize) {
    scaler_.fit(X);
    shift_ = scaler_.mean();
    scale_ = scaler_.scale();
  } else {
    shift_ = arma::mean(X, 0);
    scale_.reset();
  }
  const Points P = make_points(X, shift_, scale_);
  const std::size_t distinct = distinct_columns(P.Xt, k);
  if (distinct < k)
    throw DataError("k=" + std::to_string(k) + " > " + std::to_string(distinct) + " distinct rows" +
                    (distinct == 1 ? " (all rows are identical)" : ""));
  const Chunking ch(n, p, k);

  std::size_t n_init = params_.n_init;
  if (given) n_init = 1;
  else if (n_init == 0) n_init = params_.init == KMeansInit::random ? 10 : 1;
  const uword trials = params_.local_trials
                           ? params_.local_trials
                           : 2 + static_cast<uword>(std::floor(std::log(static_cast<double>(k))));

  // One independent stream per restart, drawn up front: restart r sees the same
  // numbers whatever happens in the others.
  Random master(params_.seed);
  std::vector<std::uint64_t> seeds(n_init);
  for (auto& s : seeds) s = master.split();

  restart_energies_.clear();
  seeding_seconds_ = lloyd_seconds_ = 0;
  total_iterations_ = 0;
  Run best;
  for (std::size_t r = 0; r < n_init; ++r) {
    Random rng(seeds[r]);
    auto t0 = Clock::now();
    arma::mat C0;
    if (given) {
      C0 = initial_centroids;
      C0.each_row() -= shift_;
      if (params_.standardize) C0.each_row() /= scale_;
      C0 = C0.t();
    } else if (params_.init == KMeansInit::kmeanspp) {
      C0 = P.Xt.cols(seed_kmeanspp(P, ch, k, trials, rng));
    } else if (params_.init == KMeansInit::farthest) {
      C0 = seed_farthest(P, ch, k, rng);
    } else {
      C0 = seed_random(P, k, rng);
    }
    seeding_seconds_ += seconds_since(t0);
    t0 = Clock::now();
    Run run = lloyd(P, ch, std::move(C0), params_.max_iter, params_.tol);
    lloyd_seconds_ += seconds_since(t0);
    total_iterations_ += run.n_iter;
    restart_energies_.push_back(run.energy);
    if (r == 0 || run.energy < best.energy) {  // ties keep the earlier restart
      best = std::move(run);
      best_restart_ = r;
    }
  }
  centroids_ = best.Ct.t();
  labels_ = std::move(best.labels);
  sizes_ = std::move(best.counts);
  energy_ = best.energy;
  n_iter_ = best.n_iter;
  stop_ = best.stop;
  history_ = std::move(best.history);
  if (stop_ == KMeansStop::max_iter)
    warn("kmeans: not converged after " + std::to_string(params_.max_iter) +
         " iterations; raise `max_iter` or `tol`");
  if (arma::any(sizes_ == 0)) warn("kmeans: a cluster is empty at the last iteration");
  return *this;
}

void KMeans::require_fitted() const {
  if (!is_fitted()) throw Error("internal: KMeans used before fit", kExitSoftware);
}

double KMeans::assign_rows(const arma::mat& X, Labels& labels) const {
  require_fitted();
  check_n_features(n_features(), X);
  const Points P = make_points(X, shift_, scale_);
  const Centres C(centroids_.t());
  const Chunking ch(P.n(), P.p(), C.k());
  labels.set_size(P.n());
  arma::vec d2(P.n());
  return assign_pass(P, C, ch, labels.memptr(), d2.memptr(), false).energy;
}

Labels KMeans::predict(const arma::mat& X) const {
  Labels labels;
  assign_rows(X, labels);
  return labels;
}

arma::mat KMeans::distances(const arma::mat& X) const {
  require_fitted();
  check_n_features(n_features(), X);
  return all_distances(make_points(X, shift_, scale_), centroids_.t());
}

double KMeans::inertia(const arma::mat& X) const {
  Labels labels;
  return assign_rows(X, labels);
}

arma::mat KMeans::centroids_original() const {
  require_fitted();
  arma::mat C = centroids_;
  if (params_.standardize) C.each_row() %= scale_;
  C.each_row() += shift_;
  return C;
}

const ParamTable<KMeansParams>& KMeansParams::table() {
  using P = KMeansParams;
  static const ParamTable<P> t = [] {
    ParamTable<P> d;
    d.push_back(integer<P>("k", &P::k, "Number of clusters", Bounds::at_least(1)));
    d.back().flag = "-k,--clusters";
    d.back().show_default = false;
    d.push_back(choice<P>("init", &P::init,
                          "Seeding: kmeans++ (D(x)^2 sampling), random (k distinct rows) or farthest "
                          "(farthest-first)"));
    d.push_back(integer<P>("n_init", &P::n_init,
                           "Seedings to run, keeping the lowest energy (default: 1 for kmeans++ and farthest, 10 for "
                           "random)",
                           Bounds::at_least(1)));
    d.back().show_default = false;
    d.back().sweep = false;
    d.push_back(integer<P>("max_iter", &P::max_iter, "Lloyd iterations per seeding at most", Bounds::at_least(1)));
    d.back().sweep = false;
    d.push_back(real<P>("tol", &P::tol,
                        "Stop when the energy decreases by less than this fraction of itself in one iteration (0: "
                        "only when no assignment changes, a fixed point of Lloyd's algorithm)",
                        Bounds::at_least(0)));
    d.back().sweep = false;
    d.push_back(applies_if(integer<P>("local_trials", &P::local_trials,
                                      "kmeans++ candidates per centre, the best kept (default: 2 + ln k; 1: plain "
                                      "k-means++)",
                                      Bounds::at_least(1)),
                           [](const P& p) { return p.init == KMeansInit::kmeanspp; },
                           "to the kmeans++ seeding only"));
    d.back().show_default = false;
    d.back().sweep = false;
    d.push_back(mlt::seed<P>("seed", &P::seed, "Seed of the seeding (the same seed gives the same model)"));
    d.push_back(flag<P>("standardize", &P::standardize,
                        "Divide each column by its standard deviation first (fitted on the training rows)"));
    return d;
  }();
  return t;
}

void KMeans::save(io::ModelWriter& out) const {
  require_fitted();
  auto& h = out.header();
  h["params"] = params_json(KMeansParams::table(), params_);
  h["fitted"] = {{"n_features", n_features()}, {"k", k()}};
  h["info"] = {{"k", k()},
               {"seeding", name_of(params_.init)},
               {"restarts", restart_energies_.size()},
               {"best_restart", best_restart_ + 1},
               {"iterations", n_iter_},
               {"stopped_by", name_of(stop_)},
               {"energy", energy_},
               {"cluster_sizes", arma::conv_to<std::vector<arma::uword>>::from(sizes_)},
               {"restart_energies", restart_energies_}};
  // Centroids in the units of the data (for people), and the working copy predict
  // uses: centred on the training mean (and standardized), bit for bit as fitted.
  out.add("centroids", centroids_original());
  out.add("working_centroids", centroids_);
  if (params_.standardize) scaler_.save(out);
  else out.add("mean", shift_);
}

KMeans KMeans::load(const io::ModelReader& in) {
  in.expect_kind(kind);
  Params p;
  p.k = in.get<std::size_t>("/params/k");
  try {
    p.init = parse_name<KMeansInit>(in.get<std::string>("/params/init"));
  } catch (const UsageError&) {
    in.fail("unknown seeding " + in.get<std::string>("/params/init"));
  }
  p.n_init = in.get<std::size_t>("/params/n_init");
  p.max_iter = in.get<std::size_t>("/params/max_iter");
  p.tol = in.get<double>("/params/tol");
  p.local_trials = in.get<std::size_t>("/params/local_trials");
  p.seed = in.get<std::uint64_t>("/params/seed");
  p.standardize = in.get<bool>("/params/standardize");
  KMeans km(p);
  const auto n_features = in.get<std::size_t>("/fitted/n_features");
  const auto k = in.get<std::size_t>("/fitted/k");
  if (k == 0 || n_features == 0) in.fail("invalid k-means dimensions");
  km.centroids_ = in.matrix("working_centroids", k, n_features);
  if (p.standardize) {
    km.scaler_ = Standardizer::load(in, n_features);
    km.shift_ = km.scaler_.mean();
    km.scale_ = km.scaler_.scale();
  } else {
    km.shift_ = in.matrix("mean", 1, n_features);
  }
  in.matrix("centroids", k, n_features);  // present and of the right shape
  if (in.header().contains("info")) {
    const auto& info = in.header()["info"];
    km.energy_ = info.value("energy", 0.0);
    km.n_iter_ = info.value("iterations", std::size_t(0));
    km.restart_energies_ = info.value("restart_energies", std::vector<double>{});
    const auto best = info.value("best_restart", std::size_t(1));  // 1-based in the file
    km.best_restart_ = best > 0 ? best - 1 : 0;
    for (auto stop : {KMeansStop::no_change, KMeansStop::tol, KMeansStop::max_iter})
      if (info.value("stopped_by", std::string()) == name_of(stop)) km.stop_ = stop;
    if (info.contains("cluster_sizes") && info["cluster_sizes"].is_array() && info["cluster_sizes"].size() == k)
      km.sizes_ = arma::conv_to<arma::uvec>::from(info["cluster_sizes"].get<std::vector<arma::uword>>());
  }
  return km;
}

// ------------------------------------------------------------------- free functions

namespace kmeans {

double squared_distance(const double* a, const double* b, std::size_t p) { return sq_dist(a, b, p); }

void assign(const arma::mat& X, const arma::mat& C, Labels& labels, arma::vec& sq_distance) {
  if (X.n_cols != C.n_cols || C.n_rows == 0) throw Error("internal: kmeans::assign shapes", kExitSoftware);
  const Points P = make_points(X, arma::rowvec(), arma::rowvec());
  const Centres cs(C.t());
  const Chunking ch(P.n(), P.p(), cs.k());
  labels.set_size(P.n());
  sq_distance.set_size(P.n());
  assign_pass(P, cs, ch, labels.memptr(), sq_distance.memptr(), false);
}

arma::uvec kmeanspp_rows(const arma::mat& X, std::size_t k, std::size_t local_trials, Random& rng) {
  if (k == 0 || k > X.n_rows || X.n_cols == 0) throw Error("internal: kmeanspp_rows shapes", kExitSoftware);
  // Centred, as KMeans::fit sees the data: distances do not change, the screen's
  // rounding bound shrinks.
  const Points P = make_points(X, arma::mean(X, 0), arma::rowvec());
  const Chunking ch(P.n(), P.p(), k);
  return seed_kmeanspp(P, ch, k, std::max<std::size_t>(local_trials, 1), rng);
}

std::size_t count_distinct_rows(const arma::mat& X, std::size_t stop_at) {
  return distinct_columns(X.t(), stop_at);
}

double silhouette(const arma::mat& X, const Labels& labels, std::size_t max_exact, std::uint64_t seed) {
  if (labels.n_elem != X.n_rows) throw Error("internal: silhouette sizes", kExitSoftware);
  if (X.n_rows == 0 || X.n_cols == 0) throw DataError("silhouette of no data");
  // The rows used: all, or a seeded sample without replacement.
  arma::uvec rows;
  if (max_exact > 0 && X.n_rows > max_exact) {
    Random rng(seed);
    std::vector<uword> idx(X.n_rows);
    for (uword i = 0; i < idx.size(); ++i) idx[i] = i;
    for (uword t = 0; t < max_exact; ++t) std::swap(idx[t], idx[t + rng.below(idx.size() - t)]);
    idx.resize(max_exact);
    std::sort(idx.begin(), idx.end());
    rows = arma::conv_to<arma::uvec>::from(idx);
  } else {
    rows = arma::regspace<arma::uvec>(0, X.n_rows - 1);
  }
  const arma::mat S = X.rows(rows);
  // Compact labels 0..L-1.
  const arma::uvec raw = labels.elem(rows);
  const arma::uvec uniq = arma::unique(raw);
  const uword m = S.n_rows, L = uniq.n_elem;
  if (L < 2 || L > m - 1)
    throw DataError("the silhouette needs 2 to n_samples - 1 clusters, got " + std::to_string(L) + " among " +
                    std::to_string(m) + " rows");
  arma::uvec y(m);
  for (uword i = 0; i < m; ++i)
    y[i] = static_cast<uword>(std::lower_bound(uniq.begin(), uniq.end(), raw[i]) - uniq.begin());
  arma::uvec size(L, arma::fill::zeros);
  for (uword i = 0; i < m; ++i) ++size[y[i]];

  const Points P = make_points(S, arma::mean(S, 0), arma::rowvec());
  const uword p = P.p();
  constexpr uword block = 256;
  const std::size_t n_blocks = (m + block - 1) / block;
  std::vector<double> block_sum(n_blocks, 0.0);
  parallel_for(n_blocks, [&](std::size_t b) {
    const uword r0 = b * block, r1 = std::min(m, r0 + block), B = r1 - r0;
    // G (m x B) = Xᵀ_all · X_block, then distances ‖x‖² + ‖y‖² − 2x·y, clamped at 0.
    arma::mat G(m, B);
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, static_cast<blasint>(m), static_cast<blasint>(B),
                static_cast<blasint>(p), 1.0, P.Xt.memptr(), static_cast<blasint>(p), P.Xt.colptr(r0),
                static_cast<blasint>(p), 0.0, G.memptr(), static_cast<blasint>(m));
    std::vector<double> per_cluster(L);
    for (uword j = 0; j < B; ++j) {
      const uword i = r0 + j;
      std::fill(per_cluster.begin(), per_cluster.end(), 0.0);
      const double* g = G.colptr(j);
      for (uword q = 0; q < m; ++q) {
        if (q == i) continue;  // d(i, i) = 0 exactly
        const double d2 = P.norm2[i] + P.norm2[q] - 2.0 * g[q];
        per_cluster[y[q]] += d2 > 0 ? std::sqrt(d2) : 0.0;
      }
      double s = 0;
      if (size[y[i]] > 1) {
        const double a = per_cluster[y[i]] / static_cast<double>(size[y[i]] - 1);
        double b_min = arma::datum::inf;
        for (uword l = 0; l < L; ++l)
          if (l != y[i]) b_min = std::min(b_min, per_cluster[l] / static_cast<double>(size[l]));
        const double top = std::max(a, b_min);
        s = top > 0 ? (b_min - a) / top : 0.0;
      }
      block_sum[b] += s;
    }
  });
  double total = 0;
  for (double v : block_sum) total += v;
  return total / static_cast<double>(m);
}

}  // namespace kmeans

}  // namespace mlt
