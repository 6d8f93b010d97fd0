// Exact k-nearest-neighbour search: brute force and k-d tree (see search.hpp for the
// contract that both give identical results).
//
// Brute force, Euclidean and cosine. For a block of queries Q and a block of
// reference points R, the GEMM -2 Rᵀ Q plus ||r||² gives every squared distance up to
// the constant ||q||² at BLAS speed, but with an absolute error of a few (p + 8) u
// (||q||² + ||r||²) (u the unit roundoff; Higham, Accuracy and Stability of Numerical
// Algorithms, §3.1): near points can swap places. We therefore use it as a filter:
// with E a bound on that error and τ the k-th smallest approximate value seen so far,
// every true k nearest point has an approximate value <= τ + 2E (τ can only be larger
// than the exact k-th distance minus E), so we keep the points under that threshold
// and re-rank them with the exact coordinate loop. The top-k selection is fused into
// the GEMM tiles: the n_query x n_reference matrix never exists, only a tile of it,
// scanned while it is still in cache. Points are centred on the reference mean first,
// which makes the norms, hence E, small. The GEMM runs in single precision (u = 2⁻²⁴,
// FAISS does the same), twice as fast as double; its larger E only lets more
// candidates through to the exact re-ranking, the result is the same.
//
// Skipping blocks. The reference points are ordered so that each block of
// kReferenceBlock holds nearby points (a binary space-partitioning tree, split between
// two far-apart points, whose leaves are the blocks), with a centre c and radius R per
// block. By the triangle inequality every point of a block is at least
// max(0, ||q - c|| - R) from q, so its filter value is at least that squared minus
// ||q||² + E; a block whose bound is above the threshold of every query of a chunk
// cannot add a candidate and is skipped (whole, or for the queries it cannot serve).
// Queries are taken grouped by nearest block and blocks visited nearest first, so on
// clustered data most of the GEMM is skipped; on data without structure nothing is,
// at the cost of the bounds (one small GEMM per chunk). The bounds are rounded down
// past their own errors, so the kept candidates are still a superset of the true k
// nearest, and the result does not change.
//
// k-d tree (Friedman, Bentley and Finkel, ACM TOMS 3(3), 1977): split on the widest
// coordinate at the median, leaves of kLeafSize points, bounding boxes per node; a
// query descends nearer child first and skips a node whose box lower bound is strictly
// above the current k-th distance (equal is visited: a lower row may tie).
#include "mlt/knn/search.hpp"

#include <cblas.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/knn/topk.hpp"

namespace mlt::knn {
namespace {

constexpr arma::uword kLeafSize = 16;
constexpr arma::uword kTreeChunk = 128;       // queries per work item of the tree search
// Brute force: a work item is kQueryBlock queries; the GEMM tile kReferenceBlock x
// kQueryBlock (1 MiB) stays in L2 while it is scanned, and the larger the query
// block, the fewer times the reference set streams from memory.
constexpr arma::uword kQueryBlock = 512;
constexpr arma::uword kReferenceBlock = 256;
// The filtering GEMM runs in single precision (twice as fast) when the squared norms
// stay far from float overflow (3.4e38), else in double.
constexpr double kSingleMaxNorm2 = 1e30;


// The key the neighbours are ordered by, from the per-coordinate differences
// d_l = q_l - x_l: Σ d² (Euclidean; cosine on unit vectors takes half of it), Σ |d|,
// max |d|. The same code computes the exact key of a point and the lower bound over
// a box (with d_l the gap to the box, 0 inside): every operation is monotone in |d_l|
// and in the partial sum (fma and + are correctly rounded), so bound <= key holds in
// floating point, not only in exact arithmetic. fma is explicit so the compiler's
// contraction choices cannot make the two computations differ.
template <Metric M, typename Diff>
inline double accumulate(arma::uword p, Diff diff) {
  double s = 0;
  for (arma::uword l = 0; l < p; ++l) {
    const double d = diff(l);
    if constexpr (M == Metric::manhattan) s += std::abs(d);
    else if constexpr (M == Metric::chebyshev) s = std::max(s, std::abs(d));
    else s = std::fma(d, d, s);
  }
  if constexpr (M == Metric::cosine) s *= 0.5;  // ||a - b||² / 2 = 1 - cos on unit vectors
  return s;
}

template <Metric M>
inline double exact_key(const double* q, const double* x, arma::uword p) {
  return accumulate<M>(p, [&](arma::uword l) { return q[l] - x[l]; });
}

template <Metric M>
inline double box_bound(const double* q, const double* lo, const double* hi, arma::uword p) {
  return accumulate<M>(p, [&](arma::uword l) {
    if (q[l] < lo[l]) return q[l] - lo[l];
    if (q[l] > hi[l]) return q[l] - hi[l];
    return 0.0;
  });
}

double key_of(Metric m, const double* q, const double* x, arma::uword p) {
  switch (m) {
    case Metric::euclidean: return exact_key<Metric::euclidean>(q, x, p);
    case Metric::manhattan: return exact_key<Metric::manhattan>(q, x, p);
    case Metric::chebyshev: return exact_key<Metric::chebyshev>(q, x, p);
    case Metric::cosine: return exact_key<Metric::cosine>(q, x, p);
  }
  return 0;
}

// Runs f(begin, end) over [0, n) in chunks on mlt's threads. Each chunk writes only
// its own rows, so the result does not depend on the schedule.
}  // namespace

namespace {
// Rows scaled to unit length (cosine). Zero rows have no direction.
arma::mat unit_columns(arma::mat Pt, const char* what) {
  for (arma::uword j = 0; j < Pt.n_cols; ++j) {
    const double norm = arma::norm(Pt.col(j));
    if (!(norm > 0))
      throw DataError(std::string("cosine distance is undefined for an all-zero row (") + what + " row " +
                      std::to_string(j + 1) + ")");
    Pt.col(j) /= norm;
  }
  return Pt;
}
}  // namespace

SearchIndex::SearchIndex(const arma::mat& data, Metric metric, Algorithm algorithm) : metric_(metric) {
  if (data.n_rows == 0 || data.n_cols == 0) throw DataError("no reference points to search");
  points_ = data.t();
  if (metric_ == Metric::cosine) points_ = unit_columns(std::move(points_), "training");
  algorithm_ = algorithm;
  if (algorithm_ == Algorithm::automatic)
    algorithm_ = n_dims() <= kKdTreeMaxDims ? Algorithm::kdtree : Algorithm::brute;
  if (algorithm_ == Algorithm::kdtree) {
    build_tree();
  }
}

const SearchIndex::BruteData& SearchIndex::brute() const {
  std::call_once(brute_->once, [&] { build_brute(brute_->data); });
  return brute_->data;
}

void SearchIndex::build_brute(BruteData& B) const {
  B.mean_ = arma::mean(points_, 1);
  B.centred_ = points_;
  B.centred_.each_col() -= B.mean_;
  build_blocks(B);
  B.norms2_ = arma::sum(arma::square(B.centred_), 0).t();
  B.max_norm2_ = B.norms2_.max();
  if (B.max_norm2_ < kSingleMaxNorm2) {
    B.centred_f_ = arma::conv_to<arma::fmat>::from(B.centred_);
    B.norms2_f_ = arma::conv_to<arma::fvec>::from(B.norms2_);
  }
}

arma::mat SearchIndex::prepare_queries(const arma::mat& queries) const {
  arma::mat Qt = queries.t();
  if (metric_ == Metric::cosine) Qt = unit_columns(std::move(Qt), "query");
  return Qt;
}

Neighbors SearchIndex::search(const arma::mat& queries, std::size_t k) const {
  if (points_.is_empty()) throw Error("internal: search on an empty index", kExitSoftware);
  if (queries.n_cols != n_dims())
    throw DataError("the index has " + std::to_string(n_dims()) + " features, the queries " +
                    std::to_string(queries.n_cols));
  if (k == 0) throw UsageError("k must be at least 1");
  if (k > size())
    throw DataError("k=" + std::to_string(k) + " > " + std::to_string(size()) + " training samples");
  const arma::mat Qt = prepare_queries(queries);
  const arma::uword m = Qt.n_cols;
  Neighbors out;
  out.index.set_size(m, k);
  out.distance.set_size(m, k);
  if (m == 0) return out;

  const bool gemm = algorithm_ == Algorithm::brute && (metric_ == Metric::euclidean || metric_ == Metric::cosine);
  // Brute force through BLAS takes the queries grouped by their nearest reference
  // block, so that a block of queries lies in one region and can skip distant blocks.
  const arma::uvec order = gemm ? query_order(Qt) : arma::uvec();
  const arma::uword chunk = algorithm_ == Algorithm::kdtree ? kTreeChunk : kQueryBlock;
  parallel_for((m + chunk - 1) / chunk, [&](std::size_t c) {
    const arma::uword q0 = c * chunk, q1 = std::min<arma::uword>(m, q0 + chunk);
    if (algorithm_ == Algorithm::kdtree) search_tree(Qt, k, q0, q1, out);
    else if (gemm) search_brute_gemm(Qt, order.subvec(q0, q1 - 1), k, out);
    else search_brute_direct(Qt, k, q0, q1, out);
  });
  out.key = out.distance;
  if (metric_ == Metric::euclidean) out.distance = arma::sqrt(out.key);
  return out;
}

// ---- brute force -------------------------------------------------------------

namespace {
// The two precisions of the filtering GEMM. Single precision halves the GEMM time;
// its larger rounding error only widens the margin (more candidates to re-rank).
struct Single {
  using T = float;
  typedef float V __attribute__((vector_size(64)));
  static void gemm(blasint m, blasint n, blasint k, const float* A, const float* B, float* C) {
    cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, n, k, -2.0f, A, k, B, k, 0.0f, C, m);
  }
};
struct Double {
  using T = double;
  typedef double V __attribute__((vector_size(64)));
  static void gemm(blasint m, blasint n, blasint k, const double* A, const double* B, double* C) {
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, n, k, -2.0, A, k, B, k, 0.0, C, m);
  }
};
template <typename V, typename T>
inline V load_v(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Appends {v, r0 + j} for every v = norms[j] + g[j] <= t (j < nr), the values computed
// in T as written, compared with t exactly. Most of a tile fails the test once the
// threshold has settled, so the common path must be a few vector instructions per
// value: with AVX-512, 16 values per add and compare-to-mask, and only the set bits of
// the mask visited; otherwise the minimum of 64 values at a time in vector registers,
// looking closer only at a block that holds a hit.
template <typename T, typename V, typename C>
inline void scan_tile(const T* norms, const T* g, arma::uword nr, double t, arma::uword r0, std::vector<C>& c) {
  arma::uword j = 0;
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    // The smallest float >= t: for a float v, v <= t exactly when v <= tf.
    float tf = static_cast<float>(t);
    if (static_cast<double>(tf) < t) tf = std::nextafter(tf, std::numeric_limits<float>::infinity());
    const __m512 tv = _mm512_set1_ps(tf);
    alignas(64) float vals[16];
    for (; j + 16 <= nr; j += 16) {
      const __m512 v = _mm512_add_ps(_mm512_loadu_ps(norms + j), _mm512_loadu_ps(g + j));
      __mmask16 hit = _mm512_cmp_ps_mask(v, tv, _CMP_LE_OQ);
      if (!hit) continue;
      _mm512_store_ps(vals, v);
      for (unsigned bits = hit; bits; bits &= bits - 1) {
        const unsigned l = static_cast<unsigned>(__builtin_ctz(bits));
        c.push_back({vals[l], r0 + j + l});
      }
    }
  }
#endif
  constexpr arma::uword lanes = sizeof(V) / sizeof(T);
  for (; j + 64 <= nr; j += 64) {
    V lo = load_v<V>(norms + j) + load_v<V>(g + j);
    for (arma::uword l = lanes; l < 64; l += lanes) {
      const V s = load_v<V>(norms + j + l) + load_v<V>(g + j + l);
      lo = s < lo ? s : lo;
    }
    T smallest = lo[0];
    for (arma::uword l = 1; l < lanes; ++l) smallest = std::min(smallest, lo[l]);
    if (smallest > t) continue;
    for (arma::uword l = j; l < j + 64; ++l) {
      const T v = norms[l] + g[l];
      if (v <= t) c.push_back({v, r0 + l});
    }
  }
  for (; j < nr; ++j) {
    const T v = norms[j] + g[j];
    if (v <= t) c.push_back({v, r0 + j});
  }
}

}  // namespace

namespace {
// x·y with independent partial sums, so it vectorizes (the order of the sum differs
// from a plain loop's: for heuristics only, never for a reported distance).
inline double fast_dot(const double* x, const double* y, arma::uword p) {
  typedef double V8 __attribute__((vector_size(64)));
  V8 acc = {0, 0, 0, 0, 0, 0, 0, 0};
  arma::uword l = 0;
  for (; l + 8 <= p; l += 8) acc += load_v<V8>(x + l) * load_v<V8>(y + l);
  double s = 0;
  for (int j = 0; j < 8; ++j) s += acc[j];
  for (; l < p; ++l) s += x[l] * y[l];
  return s;
}

}  // namespace

// Reorders centred_ so that every block of kReferenceBlock consecutive columns holds
// nearby points: recursive splits at a block boundary near the middle (a binary
// space-partitioning tree whose leaves are the blocks). Then each
// block's centre and radius, for the triangle-inequality bound in filter_and_rank.
void SearchIndex::build_blocks(BruteData& B) const {
  const arma::uword n = size(), p = n_dims();
  B.block_order_ = arma::regspace<arma::uvec>(0, n - 1);
  std::vector<std::pair<arma::uword, arma::uword>> todo{{0, n}};
  arma::vec dir(p), proj(n);
  const arma::vec norms = arma::sum(arma::square(B.centred_), 0).t();
  while (!todo.empty()) {
    const auto [b, e] = todo.back();
    todo.pop_back();
    if (e - b <= kReferenceBlock) continue;
    // Split direction: between two far-apart points (the farthest from the first
    // point, and the farthest from that one), which separates clusters where a
    // coordinate axis would cut through them; then the median of the projections.
    // The two points are searched among at most ~512 of the node's (a sample in
    // storage order); one pass over all of them is the projection. (Only the grouping depends on these values, not the result: plain sums do.)
    const arma::uword stride = std::max<arma::uword>(1, (e - b) / 512);
    auto farthest = [&](const double* from) {
      arma::uword best = b;
      double best_d = -std::numeric_limits<double>::infinity();
      for (arma::uword t = b; t < e; t += stride) {
        const arma::uword r = B.block_order_[t];
        const double d = norms[r] - 2 * fast_dot(B.centred_.colptr(r), from, p);  // ||x - from||² - ||from||²
        if (d > best_d) {
          best_d = d;
          best = t;
        }
      }
      return B.centred_.colptr(B.block_order_[best]);
    };
    const double* a = farthest(B.centred_.colptr(B.block_order_[b]));
    const double* c = farthest(a);
    for (arma::uword l = 0; l < p; ++l) dir[l] = c[l] - a[l];
    for (arma::uword t = b; t < e; ++t) {
      const arma::uword r = B.block_order_[t];
      proj[r] = fast_dot(B.centred_.colptr(r), dir.memptr(), p);
    }
    const arma::uword mid = b + ((e - b + kReferenceBlock - 1) / kReferenceBlock / 2) * kReferenceBlock;
    std::nth_element(B.block_order_.begin() + b, B.block_order_.begin() + mid, B.block_order_.begin() + e,
                     [&](arma::uword x, arma::uword y) { return proj[x] < proj[y] || (proj[x] == proj[y] && x < y); });
    todo.emplace_back(b, mid);
    todo.emplace_back(mid, e);
  }
  // centred_ = centred_.cols(block_order_), in place (one column of scratch, not a
  // second copy of the training set): follow each cycle of the permutation.
  {
    std::vector<char> placed(n, 0);
    arma::vec first(p);
    for (arma::uword start = 0; start < n; ++start) {
      if (placed[start]) continue;
      first = B.centred_.col(start);
      arma::uword t = start;
      for (;;) {
        placed[t] = 1;
        const arma::uword src = B.block_order_[t];
        if (src == start) {
          B.centred_.col(t) = first;
          break;
        }
        B.centred_.col(t) = B.centred_.col(src);
        t = src;
      }
    }
  }
  const arma::uword n_blocks = (n + kReferenceBlock - 1) / kReferenceBlock;
  B.block_centre_.set_size(p, n_blocks);
  B.block_radius_.set_size(n_blocks);
  constexpr double u = std::numeric_limits<double>::epsilon() / 2;
  for (arma::uword blk = 0; blk < n_blocks; ++blk) {
    const arma::uword r0 = blk * kReferenceBlock, r1 = std::min(n, r0 + kReferenceBlock);
    B.block_centre_.col(blk) = arma::mean(B.centred_.cols(r0, r1 - 1), 1);
    double r2 = 0;
    for (arma::uword t = r0; t < r1; ++t)
      r2 = std::max(r2, exact_key<Metric::euclidean>(B.centred_.colptr(t), B.block_centre_.colptr(blk), p));
    // Rounded up past the error of the sum of squares and of the square root.
    B.block_radius_[blk] = std::sqrt(r2) * (1 + 4 * static_cast<double>(p + 8) * u);
  }
  B.block_centre_norm2_ = arma::sum(arma::square(B.block_centre_), 0).t();
}

// The order in which brute force takes the queries: by nearest block centre (then by
// query row). Any order gives the same result; this one makes blocks of queries
// compact, so the bound in filter_and_rank can skip whole reference blocks.
arma::uvec SearchIndex::query_order(const arma::mat& Qt) const {
  const BruteData& B = brute();
  arma::mat Qc = Qt;
  Qc.each_col() -= B.mean_;
  arma::mat score = B.block_centre_.t() * Qc;  // n_blocks x m
  score.each_col([&](arma::vec& col) { col = B.block_centre_norm2_ - 2 * col; });
  const arma::urowvec nearest = arma::index_min(score, 0);
  return arma::stable_sort_index(arma::conv_to<arma::vec>::from(nearest.t()));
}

void SearchIndex::search_brute_gemm(const arma::mat& Qt, const arma::uvec& rows, std::size_t k,
                                    Neighbors& out) const {
  const BruteData& B = brute();
  arma::mat Qc = Qt.cols(rows);
  Qc.each_col() -= B.mean_;
  const arma::rowvec qn = arma::sum(arma::square(Qc), 0);
  if (B.max_norm2_ < kSingleMaxNorm2 && qn.max() < kSingleMaxNorm2)
    filter_and_rank<Single>(Qt, Qc, arma::conv_to<arma::fmat>::from(Qc), qn, k, rows, out);
  else
    filter_and_rank<Double>(Qt, Qc, Qc, qn, k, rows, out);
}

template <typename P, typename QMat>
void SearchIndex::filter_and_rank(const arma::mat& Qt, const arma::mat& Qc, const QMat& Qp, const arma::rowvec& qn,
                                  std::size_t k, const arma::uvec& rows, Neighbors& out) const {
  using T = typename P::T;
  using V = typename P::V;
  const BruteData& B = brute();
  const arma::uword p = n_dims(), n = size(), bq = Qc.n_cols;
  constexpr double u = std::numeric_limits<T>::epsilon() / 2;
  const T* centred;
  const T* norms2;
  if constexpr (std::is_same_v<T, float>) {
    centred = B.centred_f_.memptr();
    norms2 = B.norms2_f_.memptr();
  } else {
    centred = B.centred_.memptr();
    norms2 = B.norms2_.memptr();
  }

  struct Candidate {
    double approx;  // ||r||² - 2 r·q: the squared distance minus ||q||², approximately
    arma::uword row;
  };
  std::vector<std::vector<Candidate>> cand(bq);
  std::vector<double> threshold(bq, std::numeric_limits<double>::infinity());
  std::vector<double> margin(bq);
  for (arma::uword i = 0; i < bq; ++i) {
    // 2E, with E = 8 (p + 8) u (||q||² + max ||r||²), u the unit roundoff of the GEMM's
    // precision: several times the error bound of the expansion (input rounding,
    // products and sums, the final addition) plus that of the exact key.
    margin[i] = 2 * 8.0 * static_cast<double>(p + 8) * u * (qn[i] + B.max_norm2_);
    cand[i].reserve(2 * k + 64);
  }
  const std::size_t prune_at = std::max<std::size_t>(4 * k, 256);
  auto prune = [&](arma::uword i) {
    auto& c = cand[i];
    if (c.size() < k) return;
    std::nth_element(c.begin(), c.begin() + (k - 1), c.end(),
                     [](const Candidate& a, const Candidate& b) { return a.approx < b.approx; });
    threshold[i] = c[k - 1].approx + margin[i];
    const double t = threshold[i];
    c.erase(std::remove_if(c.begin(), c.end(), [t](const Candidate& a) { return a.approx > t; }), c.end());
  };

  // Lower bounds per (query, block): for r in block b with centre c and radius R,
  // ||q - r|| >= ||q - c|| - R (triangle inequality), so the filter value of every r
  // in b is at least lb(i, b) = max(0, ||q - c|| - R)² - ||q||² - E. A block whose
  // bound exceeds the current threshold of every query of this chunk holds no
  // candidate: it is skipped, and the result is the same as if it had been scanned.
  // The bound is computed in double and rounded down past its own errors: the
  // expansion ||q||² + ||c||² - 2 q·c (error below 4 (p + 8) u (||q||² + ||c||²)),
  // the square root and the square, and the final sum (1e-12 relative, far above
  // double rounding and far below the filter's single-precision E).
  const arma::uword n_blocks = B.block_radius_.n_elem;
  arma::mat lb = Qc.t() * B.block_centre_;  // bq x n_blocks, then the bounds in place
  {
    constexpr double ud = std::numeric_limits<double>::epsilon() / 2;
    const double err = 4 * static_cast<double>(p + 8) * ud;
    for (arma::uword b = 0; b < n_blocks; ++b) {
      double* col = lb.colptr(b);
      const double cn = B.block_centre_norm2_[b], R = B.block_radius_[b];
      for (arma::uword i = 0; i < bq; ++i) {
        const double d2 = (qn[i] + cn - 2 * col[i]) - err * (qn[i] + cn);
        const double d = d2 > 0 ? std::sqrt(d2) * (1 - 4 * ud) : 0.0;
        const double gap = d - R;
        const double g2 = gap > 0 ? gap * gap * (1 - 4 * ud) : 0.0;
        const double e = margin[i] / 2;
        const double v = (g2 - qn[i] - e) - 1e-12 * (g2 + qn[i] + e);
        col[i] = std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;  // overflow: never skip
      }
    }
  }
  // Nearest blocks first (by their smallest bound over the chunk), so the thresholds
  // settle early and more blocks are skipped.
  const arma::uvec visit = arma::stable_sort_index(arma::min(lb, 0).t());

  std::vector<T> tile(kReferenceBlock * bq);
  for (const arma::uword b : visit) {
    const double* bound = lb.colptr(b);
    // The queries [i0, i1) of the chunk that may have a candidate in this block.
    arma::uword i0 = 0, i1 = bq;
    while (i0 < bq && bound[i0] > threshold[i0]) ++i0;
    if (i0 == bq) continue;  // no query of the chunk can have a candidate here
    while (bound[i1 - 1] > threshold[i1 - 1]) --i1;
    const arma::uword r0 = b * kReferenceBlock;
    const arma::uword nr = std::min(kReferenceBlock, n - r0);
    // tile (nr x (i1 - i0), column-major) = -2 Cᵀ Q for this block of reference
    // points and those queries.
    P::gemm(static_cast<blasint>(nr), static_cast<blasint>(i1 - i0), static_cast<blasint>(p), centred + r0 * p,
            Qp.colptr(i0), tile.data());
    const T* norms = norms2 + r0;
    for (arma::uword i = i0; i < i1; ++i) {
      if (bound[i] > threshold[i]) continue;
      scan_tile<T, V>(norms, tile.data() + (i - i0) * nr, nr, threshold[i], r0, cand[i]);
      if (cand[i].size() >= prune_at) prune(i);
    }
  }

  TopK top(k);
  for (arma::uword i = 0; i < bq; ++i) {
    prune(i);
    const double* q = Qt.colptr(rows[i]);
    for (const auto& c : cand[i]) {
      const arma::uword row = B.block_order_[c.row];  // c.row is a position in B.centred_
      top.offer(key_of(metric_, q, points_.colptr(row), p), row);
    }
    top.write(rows[i], out);
  }
}

void SearchIndex::search_brute_direct(const arma::mat& Qt, std::size_t k, arma::uword q0, arma::uword q1,
                                      Neighbors& out) const {
  const arma::uword p = n_dims(), n = size(), bq = q1 - q0;
  std::vector<TopK> tops(bq, TopK(k));
  // Reference points in cache-sized blocks, every query of the chunk against each.
  const arma::uword block = std::max<arma::uword>(64, (1u << 15) / std::max<arma::uword>(p, 1));
  auto run = [&]<Metric M>() {
    for (arma::uword r0 = 0; r0 < n; r0 += block) {
      const arma::uword r1 = std::min(n, r0 + block);
      for (arma::uword i = 0; i < bq; ++i) {
        const double* q = Qt.colptr(q0 + i);
        for (arma::uword r = r0; r < r1; ++r) tops[i].offer(exact_key<M>(q, points_.colptr(r), p), r);
      }
    }
  };
  switch (metric_) {
    case Metric::euclidean: run.template operator()<Metric::euclidean>(); break;
    case Metric::manhattan: run.template operator()<Metric::manhattan>(); break;
    case Metric::chebyshev: run.template operator()<Metric::chebyshev>(); break;
    case Metric::cosine: run.template operator()<Metric::cosine>(); break;
  }
  for (arma::uword i = 0; i < bq; ++i) tops[i].write(q0 + i, out);
}

// ---- k-d tree ----------------------------------------------------------------

void SearchIndex::build_tree() {
  const arma::uword n = size();
  tree_order_ = arma::regspace<arma::uvec>(0, n - 1);
  nodes_.clear();
  nodes_.reserve(2 * (n / kLeafSize + 1));
  build_node(0, n);
  tree_points_ = points_.cols(tree_order_);
  lo_.set_size(n_dims(), nodes_.size());
  hi_.set_size(n_dims(), nodes_.size());
  for (std::size_t b = 0; b < nodes_.size(); ++b) {
    const auto& node = nodes_[b];
    const arma::mat block = tree_points_.cols(node.begin, node.end - 1);
    lo_.col(b) = arma::min(block, 1);
    hi_.col(b) = arma::max(block, 1);
  }
}

long SearchIndex::build_node(arma::uword begin, arma::uword end) {
  const long id = static_cast<long>(nodes_.size());
  nodes_.push_back({begin, end});
  if (end - begin <= kLeafSize) return id;
  // Widest coordinate of this node's points.
  const arma::uword p = n_dims();
  arma::uword dim = 0;
  double widest = 0;
  for (arma::uword l = 0; l < p; ++l) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (arma::uword t = begin; t < end; ++t) {
      const double v = points_(l, tree_order_[t]);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (hi - lo > widest) {
      widest = hi - lo;
      dim = l;
    }
  }
  if (!(widest > 0)) return id;  // all points equal: one leaf
  const arma::uword mid = begin + (end - begin) / 2;
  std::nth_element(tree_order_.begin() + begin, tree_order_.begin() + mid, tree_order_.begin() + end,
                   [&](arma::uword a, arma::uword b) {
                     const double va = points_(dim, a), vb = points_(dim, b);
                     return va < vb || (va == vb && a < b);
                   });
  const long left = build_node(begin, mid);
  const long right = build_node(mid, end);
  nodes_[id].left = left;
  nodes_[id].right = right;
  return id;
}

void SearchIndex::search_tree(const arma::mat& Qt, std::size_t k, arma::uword q0, arma::uword q1,
                              Neighbors& out) const {
  const arma::uword p = n_dims();
  TopK top(k);
  auto run = [&]<Metric M>() {
    for (arma::uword i = q0; i < q1; ++i) {
      const double* q = Qt.colptr(i);
      // Depth-first, nearer child first; `bound` is the node's box lower bound.
      auto visit = [&](auto&& self, long id, double bound) -> void {
        if (top.full() && bound > top.worst()) return;
        const Node& node = nodes_[static_cast<std::size_t>(id)];
        if (node.left < 0) {
          for (arma::uword t = node.begin; t < node.end; ++t)
            top.offer(exact_key<M>(q, tree_points_.colptr(t), p), tree_order_[t]);
          return;
        }
        const double bl = box_bound<M>(q, lo_.colptr(node.left), hi_.colptr(node.left), p);
        const double br = box_bound<M>(q, lo_.colptr(node.right), hi_.colptr(node.right), p);
        if (bl <= br) {
          self(self, node.left, bl);
          self(self, node.right, br);
        } else {
          self(self, node.right, br);
          self(self, node.left, bl);
        }
      };
      visit(visit, 0, 0.0);
      top.write(i, out);
    }
  };
  switch (metric_) {
    case Metric::euclidean: run.template operator()<Metric::euclidean>(); break;
    case Metric::manhattan: run.template operator()<Metric::manhattan>(); break;
    case Metric::chebyshev: run.template operator()<Metric::chebyshev>(); break;
    case Metric::cosine: run.template operator()<Metric::cosine>(); break;
  }
}

}  // namespace mlt::knn
