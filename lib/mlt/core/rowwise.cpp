#include "mlt/core/rowwise.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "mlt/core/lanes.hpp"
#include "mlt/core/parallel.hpp"

namespace mlt::rowwise {
namespace {

using arma::uword;

// One lane per row of A (core/lanes.hpp): the tile and the scalar edge loop below
// give the same bits.
using lanes::kLanes;
using lanes::Lanes;
using lanes::load;
using lanes::store;
constexpr uword kTileRows = 2 * kLanes;  // rows of A per register tile
constexpr uword kTileCols = 6;           // columns of B (rows of Bᵀ) per register tile
constexpr uword kTaskRows = 256;         // rows of A per parallel task

// B (n x p) packed as panels of kTileCols rows, each stored k-major: panel q holds
// B(q*6 + c, k) at [k * 6 + c], so one tile's k-th step reads 6 adjacent values. The
// last panel is padded with zeros (its extra columns are computed and dropped).
std::vector<double> pack_panels(const arma::mat& B) {
  const uword n = B.n_rows, p = B.n_cols, n_panels = (n + kTileCols - 1) / kTileCols;
  std::vector<double> packed(n_panels * p * kTileCols, 0.0);
  for (uword q = 0; q < n_panels; ++q) {
    double* panel = packed.data() + q * p * kTileCols;
    const uword cols = std::min(kTileCols, n - q * kTileCols);
    for (uword k = 0; k < p; ++k)
      for (uword c = 0; c < cols; ++c) panel[k * kTileCols + c] = B(q * kTileCols + c, k);
  }
  return packed;
}

// C(i0..i0+16, q*6..q*6+Cols) for one panel, Cols of its 6 columns in use.
template <uword Cols>
inline void tile(const double* a, uword lda, const double* panel, uword p, double* c, uword ldc) {
  Lanes acc[2][Cols] = {};
  for (uword k = 0; k < p; ++k) {
    const Lanes a0 = load(a + k * lda), a1 = load(a + k * lda + kLanes);
    const double* b = panel + k * kTileCols;
    for (uword j = 0; j < Cols; ++j) {
      acc[0][j] = acc[0][j] + a0 * b[j];
      acc[1][j] = acc[1][j] + a1 * b[j];
    }
  }
  for (uword j = 0; j < Cols; ++j) {
    store(c + j * ldc, acc[0][j]);
    store(c + j * ldc + kLanes, acc[1][j]);
  }
}

void tile(const double* a, uword lda, const double* panel, uword p, double* c, uword ldc, uword cols) {
  switch (cols) {
    case 1: return tile<1>(a, lda, panel, p, c, ldc);
    case 2: return tile<2>(a, lda, panel, p, c, ldc);
    case 3: return tile<3>(a, lda, panel, p, c, ldc);
    case 4: return tile<4>(a, lda, panel, p, c, ldc);
    case 5: return tile<5>(a, lda, panel, p, c, ldc);
    default: return tile<6>(a, lda, panel, p, c, ldc);
  }
}

// The rows of A past the last full tile: the same sum, one lane at a time.
inline void edge_row(const double* a, uword lda, const double* panel, uword p, double* c, uword ldc, uword cols) {
  for (uword j = 0; j < cols; ++j) {
    double s = 0;
    for (uword k = 0; k < p; ++k) s = s + a[k * lda] * panel[k * kTileCols + j];
    c[j * ldc] = s;
  }
}

// C = A · Bᵀ with B already packed; n columns of C. Each task owns a range of rows
// of C; within it, panels in groups that stay in L2 (~256 KiB), and for each panel
// the task's rows in tiles, so C is written in 6-column strips, not scattered.
arma::mat multiply_packed(const arma::mat& A, const std::vector<double>& packed, uword n) {
  const uword m = A.n_rows, p = A.n_cols, n_panels = (n + kTileCols - 1) / kTileCols;
  arma::mat C(m, n, arma::fill::none);  // every entry is written below
  if (m == 0 || n == 0) return C;
  if (p == 0) return C.zeros();
  const uword group = std::max<uword>(1, (uword(32) << 10) / (p * kTileCols));
  parallel_for((m + kTaskRows - 1) / kTaskRows, [&](std::size_t t) {
    const uword r0 = t * kTaskRows, r1 = std::min(m, r0 + kTaskRows);
    const uword tiled_end = r0 + (r1 - r0) / kTileRows * kTileRows;
    for (uword g0 = 0; g0 < n_panels; g0 += group)
      for (uword q = g0; q < std::min(n_panels, g0 + group); ++q) {
        const double* panel = packed.data() + q * p * kTileCols;
        const uword cols = std::min(kTileCols, n - q * kTileCols);
        double* c = C.colptr(q * kTileCols);
        for (uword i = r0; i < tiled_end; i += kTileRows) tile(A.memptr() + i, m, panel, p, c + i, m, cols);
        for (uword i = tiled_end; i < r1; ++i) edge_row(A.memptr() + i, m, panel, p, c + i, m, cols);
      }
  });
  return C;
}

// C = A · Bᵀ for a B of a few rows (a linear model's coefficients, a kernel column's
// one row): for each column of C, kLanes · kFewStrip rows at a time, their sums held
// in registers over k ascending, C(i, j) = C(i, j) + A(i, k)·B(j, k), which is the same
// sequence of operations on each entry as the tiles perform (A's columns are read in
// strips, each strip's C written once instead of once per k).
constexpr uword kFewStrip = 4;  // vectors of rows per strip

void few_strip(const double* a, uword lda, const double* b, uword ldb, uword p, double* c) {
  Lanes acc[kFewStrip] = {};
  for (uword k = 0; k < p; ++k) {
    const double bk = b[k * ldb];
    for (uword v = 0; v < kFewStrip; ++v) acc[v] = acc[v] + load(a + k * lda + v * kLanes) * bk;
  }
  for (uword v = 0; v < kFewStrip; ++v) store(c + v * kLanes, acc[v]);
}

arma::mat multiply_few(const arma::mat& A, const arma::mat& B) {
  const uword m = A.n_rows, p = A.n_cols, n = B.n_rows;
  arma::mat C(m, n, arma::fill::none);  // every entry is written below
  constexpr uword kSweepRows = 2048;  // rows per task
  constexpr uword strip = kFewStrip * kLanes;
  parallel_for((m + kSweepRows - 1) / kSweepRows, [&](std::size_t t) {
    const uword r0 = t * kSweepRows, r1 = std::min(m, r0 + kSweepRows);
    for (uword j = 0; j < n; ++j) {
      double* c = C.colptr(j);
      uword i = r0;
      for (; i + strip <= r1; i += strip) few_strip(A.memptr() + i, m, B.memptr() + j, B.n_rows, p, c + i);
      for (; i < r1; ++i) {
        double s = 0;
        for (uword k = 0; k < p; ++k) s = s + A(i, k) * B(j, k);
        c[i] = s;
      }
    }
  });
  return C;
}

}  // namespace

arma::mat inner_products(const arma::mat& A, const arma::mat& B) {
  if (A.n_cols != B.n_cols) throw std::logic_error("rowwise::inner_products: operands of different widths");
  if (B.n_rows <= kTileCols) return multiply_few(A, B);
  return multiply_packed(A, pack_panels(B), B.n_rows);
}

arma::mat product(const arma::mat& A, const arma::mat& W) {
  if (A.n_cols != W.n_rows) throw std::logic_error("rowwise::product: inner dimensions differ");
  // Armadillo's transpose of a matrix with rows but no columns reads through a null
  // pointer; the product is all zeros (or empty) then anyway.
  if (W.is_empty()) return arma::mat(A.n_rows, W.n_cols, arma::fill::zeros);
  return inner_products(A, W.t());
}

arma::vec squared_norms(const arma::mat& A) {
  // A · Aᵀ's diagonal by the strips of multiply_few: the same ascending sums.
  const uword m = A.n_rows, p = A.n_cols;
  arma::vec s(m, arma::fill::none);
  constexpr uword strip = kFewStrip * kLanes;
  uword i = 0;
  for (; i + strip <= m; i += strip) {
    Lanes acc[kFewStrip] = {};
    for (uword k = 0; k < p; ++k)
      for (uword v = 0; v < kFewStrip; ++v) {
        const Lanes a = load(A.memptr() + k * m + i + v * kLanes);
        acc[v] = acc[v] + a * a;
      }
    for (uword v = 0; v < kFewStrip; ++v) store(s.memptr() + i + v * kLanes, acc[v]);
  }
  for (; i < m; ++i) {
    double t = 0;
    for (uword k = 0; k < p; ++k) t = t + A(i, k) * A(i, k);
    s[i] = t;
  }
  return s;
}

}  // namespace mlt::rowwise
