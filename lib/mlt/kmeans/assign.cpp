// The assignment step of k-means (kmeans/assign.hpp): exact nearest centres, screened
// at GEMM speed.
//
// The screen. The data is centred (and standardized with --standardize) before it
// gets here, which keeps ‖x‖² and ‖c‖², hence the bound β, small. The GEMM path
// starts a k x m panel at ‖c‖² and lets BLAS add −2 C·X. When the packed centres fit
// in half of L1 (AVX-512 builds), a fused register-tiled kernel computes the same
// values without the GEMM's packing and panel traffic, which for k-means' usual shapes
// (k ≲ 100, p ≲ 50) cost more than the arithmetic. Both are off by at most β; which one
// ran does not change a label or a distance: nearest() settles every near tie with
// squared_distance (a fixed formula), ties to the lower index. So the assignments ARE
// those of plain Lloyd, while nearly all the work runs at GEMM speed.
#include "mlt/kmeans/assign.hpp"

#include <cblas.h>

#include <cstdint>
#include <cstring>

#include "mlt/core/error.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/kmeans/source.hpp"

namespace mlt::kmeans {

using arma::uword;

namespace {

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

// Over the screening values v[0 .. k): the smallest (first index of it) and whether it
// is the only one within `slack` of it. The same arithmetic on every path, so the
// vector and scalar versions agree exactly.
struct ScreenMin {
  uword best;
  double value;
  bool unique;
};

#if defined(__AVX512F__)
// (The same GCC 12 warning as in sq_dist, assign.hpp.)
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

// Per chunk of an assignment pass: its energy, changed labels, sums and counts.
struct AssignChunk {
  double energy = 0;
  uword changed = 0;
  arma::mat sums;     // p x k
  arma::uvec counts;  // k
};

}  // namespace

Points make_points(const arma::mat& X, const arma::rowvec& shift, const arma::rowvec& scale) {
  Points P;
  P.Xt.set_size(X.n_cols, X.n_rows);
  P.norm2.set_size(X.n_rows);
  make_points_into(X, shift, scale, P, 0);
  return P;
}

void make_points_into(const arma::mat& X, const arma::rowvec& shift, const arma::rowvec& scale, Points& P,
                      arma::uword first) {
  const uword n = X.n_rows, p = X.n_cols;
  if (P.p() != p || first + n > P.n()) throw Error("internal: make_points_into shapes", kExitSoftware);
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
        P.Xt(j, first + i) = v;
      }
    }
    for (uword i = r0; i < r1; ++i) {
      const double* x = P.Xt.colptr(first + i);
      double s = 0;
      for (uword j = 0; j < p; ++j) s += x[j] * x[j];
      P.norm2[first + i] = s;
    }
  });
}

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

std::size_t screen_panel_size(const Centres& C, uword m) { return (C.fused() ? 8 * C.groups : C.k()) * m; }

double* scratch(std::size_t size) {
  thread_local std::vector<double> buffer;
  if (buffer.size() < size) buffer.resize(size);
  return buffer.data();
}

namespace {

// Rows r .. r+m of P (a GEMM block) into their chunk's partial, in row order; labels
// and d2 point at the block's first row.
void assign_block(const Points& P, const Centres& C, uword r, uword m, uword* labels, double* d2, bool with_sums,
                  AssignChunk& part) {
  const uword k = C.k(), p = P.p();
  if (part.counts.is_empty()) {  // the chunk's first block
    part.counts.zeros(k);
    if (with_sums) part.sums.zeros(p, k);
  }
  double* panel = scratch(screen_panel_size(C, m));
  const uword ld = screen(P, C, r, m, panel);
  for (uword j = 0; j < m; ++j) {
    uword l;
    double d;
    nearest(P, C, r + j, panel + j * ld, l, d);
    if (labels[j] != l) ++part.changed;
    labels[j] = l;
    d2[j] = d;
    part.energy += d;
    ++part.counts[l];
    if (with_sums) {
      double* s = part.sums.colptr(l);
      const double* x = P.Xt.colptr(r + j);
      for (uword q = 0; q < p; ++q) s[q] += x[q];
    }
  }
}

}  // namespace

AssignResult assign_pass(BlockSource& src, const Centres& C, const Chunking& ch, uword* labels, double* d2,
                         bool with_sums) {
  const uword k = C.k(), p = src.p();
  std::vector<AssignChunk> parts(ch.n_chunks);
  src.for_each_block(ch, [&](std::size_t c, const Points& P, uword r, uword g, uword m) {
    assign_block(P, C, r, m, labels + g, d2 + g, with_sums, parts[c]);
  });
  AssignResult res;
  res.counts.zeros(k);
  if (with_sums) res.sums.zeros(p, k);
  for (const auto& part : parts) {  // chunk order: deterministic
    if (part.counts.is_empty()) continue;  // no rows (a rank's empty part)
    res.energy += part.energy;
    res.changed += part.changed;
    res.counts += part.counts;
    if (with_sums) res.sums += part.sums;
  }
  return res;
}

AssignResult assign_pass(const Points& P, const Centres& C, const Chunking& ch, uword* labels, double* d2,
                         bool with_sums) {
  MemorySource src(P);
  return assign_pass(src, C, ch, labels, d2, with_sums);
}

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

}  // namespace mlt::kmeans
