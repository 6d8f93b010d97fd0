#include "mlt/top_eigen.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/lanes.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/core/progress.hpp"
#include "mlt/core/random.hpp"

namespace mlt {
namespace {

using arma::uword;

// The block: k + 2 columns, at least 8. A block wider than k lets a cluster of
// eigenvalues around the k-th converge together; wider still did not pay on the
// benchmark (k = 10: 15 products of 6 columns, 12 of 8 or 10, 11 of 12, 10 or 11 of
// 14, 9 or 10 of 18, at about the same CPU time from 6 to 12 and more above: a
// product is bound by reading A at small s and by its 2 n² s flops at large s).
uword block_size(uword k) { return std::max<uword>(k + 2, 8); }

// The basis kept in memory: Krylov blocks up to this many columns, then a restart on
// the best Ritz vectors. Twelve blocks: smooth kernels converge within it, and the
// Rayleigh–Ritz step (O(m³)) and the orthogonalization (8 n m s) stay small against
// a product (2 n² s) while m << n. At most n - s, so that a new block orthogonal to the basis
// exists; 0 when n is too small for a restart to keep k vectors and a block.
uword basis_limit(uword n, uword k) {
  const uword s = block_size(k);
  if (n < 3 * s + k) return 0;
  const uword limit = std::min(n - s, std::max(3 * k, 12 * s));
  return limit < 2 * s + k ? 0 : limit;
}

using lanes::kLanes;
using lanes::lane_sum;
using lanes::Lanes;
using lanes::load;

constexpr uword kTileA = 4;  // columns of A per register tile
constexpr uword kTileQ = 6;  // columns of Q per register tile

// Z(i, c) for the kTileA columns of A from `a` (leading dimension n) and C <= 6 columns
// of Q from `q`: each a dot product of length n, in 8 lane sums over j ascending
// (lane l takes the j ≡ l mod 8, the last partial chunk zero-padded) then lane_sum.
template <uword C>
void tile(const double* a, const double* q, uword n, double* z, uword ldz) {
  Lanes acc[kTileA][C] = {};
  const uword whole = n / kLanes * kLanes;
  for (uword j = 0; j < whole; j += kLanes) {
    Lanes av[kTileA];
    for (uword r = 0; r < kTileA; ++r) av[r] = load(a + r * n + j);
    for (uword c = 0; c < C; ++c) {
      const Lanes qv = load(q + c * n + j);
      for (uword r = 0; r < kTileA; ++r) acc[r][c] = acc[r][c] + av[r] * qv;
    }
  }
  if (whole < n) {
    const uword rest = n - whole;
    Lanes av[kTileA] = {}, qv[C] = {};
    for (uword r = 0; r < kTileA; ++r) std::memcpy(&av[r], a + r * n + whole, rest * sizeof(double));
    for (uword c = 0; c < C; ++c) std::memcpy(&qv[c], q + c * n + whole, rest * sizeof(double));
    for (uword c = 0; c < C; ++c)
      for (uword r = 0; r < kTileA; ++r) acc[r][c] = acc[r][c] + av[r] * qv[c];
  }
  for (uword r = 0; r < kTileA; ++r)
    for (uword c = 0; c < C; ++c) z[r + c * ldz] = lane_sum(acc[r][c]);
}

void tile(const double* a, const double* q, uword n, double* z, uword ldz, uword cols) {
  switch (cols) {
    case 1: return tile<1>(a, q, n, z, ldz);
    case 2: return tile<2>(a, q, n, z, ldz);
    case 3: return tile<3>(a, q, n, z, ldz);
    case 4: return tile<4>(a, q, n, z, ldz);
    case 5: return tile<5>(a, q, n, z, ldz);
    default: return tile<6>(a, q, n, z, ldz);
  }
}

// The columns of A past the last full tile: the same lane sums, one column at a time.
void edge_column(const double* a, const double* q, uword n, uword cols, double* z, uword ldz) {
  for (uword c = 0; c < cols; ++c) {
    Lanes acc = {};
    uword j = 0;
    for (; j + kLanes <= n; j += kLanes) acc = acc + load(a + j) * load(q + c * n + j);
    if (j < n) {
      Lanes av = {}, qv = {};
      std::memcpy(&av, a + j, (n - j) * sizeof(double));
      std::memcpy(&qv, q + c * n + j, (n - j) * sizeof(double));
      acc = acc + av * qv;
    }
    z[c * ldz] = lane_sum(acc);
  }
}

// A·Q for the symmetric A (n x n) and Q (n x s): row i of the product is column i of
// A (contiguous, = row i) against Q's columns, streamed once, with no packed copy of
// A (a dgemm packs it anew on every product, a quarter of the time when Q is thin).
// Every entry's sum has a fixed order (tile), and the threads take fixed ranges of
// rows: the same bits for any thread count, OpenBLAS kernel or processor.
arma::mat symmetric_times(const arma::mat& A, const arma::mat& Q) {
  constexpr uword kTask = 64;  // rows of the product (columns of A) per task
  const uword n = A.n_rows, s = Q.n_cols;
  arma::mat Z(n, s, arma::fill::none);  // every entry is written below
  parallel_for((n + kTask - 1) / kTask, [&](std::size_t t) {
    const uword first = t * kTask, last = std::min(n, first + kTask);
    uword i = first;
    for (; i + kTileA <= last; i += kTileA)
      for (uword c = 0; c < s; c += kTileQ)
        tile(A.colptr(i), Q.colptr(c), n, Z.colptr(c) + i, n, std::min(kTileQ, s - c));
    for (; i < last; ++i) edge_column(A.colptr(i), Q.memptr(), n, s, Z.memptr() + i, n);
  });
  return Z;
}

// Z minus its part in span(B), B with orthonormal columns: twice, since one
// classical Gram–Schmidt pass leaves a part of order ε‖Z‖ / (what remains) (Giraud,
// Langou, Rozložník 2005: "twice is enough").
void project_out(const arma::mat& B, arma::mat& Z) {
  if (B.n_cols == 0) return;
  for (int round = 0; round < 2; ++round) Z -= B * (B.t() * Z);
}

// An orthonormal basis of the new block Z (n x s) orthogonal to B (n x m, orthonormal).
// A column with nothing left outside span(B) and its neighbours (the Krylov space
// has become invariant: a Gram matrix of low rank, or an exact eigenvector found),
// less than 1e-14 ‖A‖, below the rounding of the product itself, is replaced by a
// random one, as ARPACK restarts on a breakdown: the basis still grows
// and stays orthonormal. The second projection after the QR removes what the QR's
// 1/R amplified of the first projection's rounding.
arma::mat next_block(const arma::mat& B, arma::mat Z, double scale, Random& rng) {
  project_out(B, Z);
  arma::mat Q, R;
  if (!arma::qr_econ(Q, R, Z)) throw Error("internal: QR of the Krylov block failed", kExitSoftware);
  bool replaced = false;
  for (uword i = 0; i < Z.n_cols; ++i)
    if (!(std::abs(R(i, i)) > 1e-14 * scale)) {
      for (double& z : Z.unsafe_col(i)) z = 2 * rng.uniform() - 1;
      replaced = true;
    }
  if (replaced) {
    project_out(B, Z);
    if (!arma::qr_econ(Q, R, Z)) throw Error("internal: QR of the Krylov block failed", kExitSoftware);
  }
  project_out(B, Q);
  if (!arma::qr_econ(Z, R, Q)) throw Error("internal: QR of the Krylov block failed", kExitSoftware);
  return Z;
}

}  // namespace

std::size_t top_eigen_pass_budget(std::size_t n, std::size_t k) {
  return std::max<std::size_t>(1, n / (4 * block_size(k)));
}

std::optional<TopEigen> top_eigenpairs(const arma::mat& A, std::size_t k, double tol, std::size_t max_passes) {
  const uword n = A.n_rows;
  if (k == 0 || k >= n) throw Error("internal: top_eigenpairs needs 1 <= k < n", kExitSoftware);
  const uword s = block_size(k), limit = basis_limit(n, k);
  if (limit == 0) {  // a matrix too small to iterate on: its full decomposition
    const BlasSingleThreaded blas;
    arma::vec values;
    arma::mat vectors;
    if (!arma::eig_sym(values, vectors, A)) throw Error("internal: eigen-decomposition failed", kExitSoftware);
    TopEigen out;
    out.values = arma::reverse(values.tail(k));
    out.vectors = arma::fliplr(vectors.tail_cols(k));
    return out;
  }
  // The products with A by fixed blocks on the threads (symmetric_times); the thin
  // products, QRs and small eigenproblems on one BLAS thread, whose bits do not
  // depend on --threads (core/parallel.hpp).
  const BlasSingleThreaded blas;
  Random rng(0x746f705f656967ULL);  // fixed: the same start, hence the same result, every run
  arma::mat Q(n, s);
  for (double& q : Q) q = 2 * rng.uniform() - 1;
  Q = next_block(arma::mat(n, 0), Q, 1.0, rng);

  // The basis B (n x m, orthonormal columns), A·B, and T = Bᵀ A B, all explicit: the
  // Ritz pairs and their residuals come from the products actually computed, never
  // from the Lanczos recurrence's estimate, and a restart is a change of basis.
  arma::mat B(n, limit), AB(n, limit), T(limit, limit);
  uword m = 0;
  double scale = 0;  // θ_1, the largest Ritz value so far: ‖A‖ for the PSD A
  std::vector<double> worst;
  double first_residual = -1;  // for the progress estimate
  TopEigen out;
  for (std::size_t pass = 1; pass <= max_passes; ++pass) {
    const arma::mat Z = symmetric_times(A, Q);  // A Q, n x s
    B.cols(m, m + s - 1) = Q;
    AB.cols(m, m + s - 1) = Z;
    // T's new block column, Bᵀ (A Q); its transpose is the new block row (A is
    // symmetric), and the diagonal block is made exactly symmetric.
    const arma::mat C = B.head_cols(m + s).t() * AB.cols(m, m + s - 1);
    T.submat(0, m, m + s - 1, m + s - 1) = C;
    if (m > 0) T.submat(m, 0, m + s - 1, m - 1) = C.head_rows(m).t();
    const arma::mat D = C.tail_rows(s);
    T.submat(m, m, m + s - 1, m + s - 1) = 0.5 * (D + D.t());
    m += s;

    arma::vec theta;
    arma::mat W;
    if (!arma::eig_sym(theta, W, T.submat(0, 0, m - 1, m - 1)))
      throw Error("internal: Rayleigh-Ritz eigenproblem failed", kExitSoftware);
    theta = arma::reverse(theta);  // decreasing
    W = arma::fliplr(W);
    const arma::mat V = B.head_cols(m) * W.head_cols(k);   // Ritz vectors (m >= s > k)
    const arma::mat AV = AB.head_cols(m) * W.head_cols(k);  // A times them: the products computed
    scale = std::max(theta[0], 0.0);
    double residual = 0;  // the largest, relative to tol · θ_1
    for (uword j = 0; j < k; ++j)
      residual = std::max(residual, arma::norm(AV.col(j) - theta[j] * V.col(j)) / (tol * scale));
    if (first_residual < 0) first_residual = residual;
    const bool converged = scale == 0 || residual <= 1;
    report_progress({"kernel pca eigensolver", "product", pass, 0, "residual / goal", residual,
                     log_fraction(first_residual, residual, 1.0), converged});
    if (converged) {
      // The Ritz vectors are orthonormal when B is; a basis that lost it would make
      // the residuals meaningless, so it is checked, not assumed.
      if (arma::abs(V.t() * V - arma::eye(k, k)).max() > 1e-10) return std::nullopt;
      out.values = theta.head(k);
      out.vectors = V;
      out.passes = pass;
      return out;
    }
    worst.push_back(residual);
    constexpr std::size_t kSpan = 4;  // products the rate is measured over
    if (worst.size() > 2 * kSpan) {
      const double rate = std::pow(residual / worst[worst.size() - 1 - kSpan], 1.0 / kSpan);
      if (!(rate < 1) ||
          static_cast<double>(pass) + std::log(residual) / -std::log(rate) > static_cast<double>(max_passes))
        return std::nullopt;
    }
    // The next block: A Q orthogonalized against the whole basis (the Lanczos
    // continuation: every Ritz vector's residual lies in its span).
    Q = next_block(B.head_cols(m), Z, scale, rng);
    if (m + s > limit) {
      // Thick restart (Wu & Simon 2000; Stewart's Krylov–Schur): keep the best Ritz
      // vectors, half the basis, and A times them from the products already made;
      // the new block is orthogonal to them since they lie in the old basis.
      const uword keep = std::min<uword>(m - s, std::max<uword>(k + s, limit / 2));
      const arma::mat Wk = W.head_cols(keep);
      B.head_cols(keep) = arma::mat(B.head_cols(m) * Wk);
      AB.head_cols(keep) = arma::mat(AB.head_cols(m) * Wk);
      const arma::mat Tk = B.head_cols(keep).t() * AB.head_cols(keep);
      T.submat(0, 0, keep - 1, keep - 1) = 0.5 * (Tk + Tk.t());
      m = keep;
    }
  }
  return std::nullopt;
}

}  // namespace mlt
