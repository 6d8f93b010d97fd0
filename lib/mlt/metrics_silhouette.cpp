// The silhouette coefficient (P. J. Rousseeuw, "Silhouettes: a graphical aid to the
// interpretation and validation of cluster analysis", J. Comput. Appl. Math. 20, 1987;
// scikit-learn's silhouette_score is the reference): for point i in cluster A,
//     a(i) = mean distance to the other points of A,
//     b(i) = min over clusters B ≠ A of the mean distance to the points of B,
//     s(i) = (b − a) / max(a, b),   0 when i is alone in A,
// averaged over the points. Euclidean distances, all n² of them: by blocks of 256
// points from one GEMM each (‖x‖² + ‖y‖² − 2x·y on centred data, clamped at 0), never
// an n x n matrix. Cost: n²·p multiply-adds, memory n x 256.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/core/random.hpp"
#include "mlt/kmeans/assign.hpp"
#include "mlt/metrics.hpp"

namespace mlt::metrics {

using arma::uword;

double silhouette(const arma::mat& X, const Labels& labels, std::size_t max_exact) {
  return silhouette(X, labels, max_exact, kDefaultSeed);
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

  const kmeans::Points P = kmeans::make_points(S, arma::mean(S, 0), arma::rowvec());
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

}  // namespace mlt::metrics
