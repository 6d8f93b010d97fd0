// The Nyström approximation's shared pieces (Williams & Seeger, "Using the Nyström
// method to speed up kernel machines", NIPS 2001), for kernel ridge (krr.cpp) and
// kernel PCA (pca.cpp): the choice of M landmarks among the training rows, their
// declaration as parameters, and the feature map
//   φ(x) = k(x, L) K_LL^{-1/2}   (1 x r),
// whose inner products φ(x)·φ(x') = k(x, L) K_LL⁺ k(L, x') are the Nyström kernel:
// the coordinates, in an orthonormal basis, of the projection of x's image in the
// kernel's feature space onto the span of the landmarks' images.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "mlt/core/names.hpp"
#include "mlt/core/params.hpp"
#include "mlt/core/random.hpp"
#include "mlt/core/types.hpp"
#include "mlt/kernel.hpp"

namespace mlt {

enum class LandmarkMethod {
  uniform,   // M training rows drawn uniformly without replacement
  kmeanspp,  // k-means++ (D²) seeding: spread over the data
};
inline constexpr NameTable<LandmarkMethod, 3> kLandmarkNames{
    "landmark method",
    {{{LandmarkMethod::uniform, "uniform"}, {LandmarkMethod::kmeanspp, "kmeans++"}, {LandmarkMethod::kmeanspp, "kmeanspp"}}}};
constexpr const auto& name_table(LandmarkMethod) { return kLandmarkNames; }

// Row indices of M landmarks among X's n rows (1 <= M <= n), from `seed`:
//   uniform   the first M of a partial Fisher-Yates shuffle of 0..n-1, drawing
//             Random(seed).below(n - i) for i = 0..M-1 (so a script can reproduce them);
//   kmeans++  plain k-means++ seeding (kmeans/seeding.hpp) on X's rows: Euclidean
//             distances in the input space.
// UsageError for kmeans++ with a structured kernel (strings, graphs, a precomputed
// Gram matrix): their encoded rows have no Euclidean geometry to spread over.
arma::uvec nystrom_landmarks(const arma::mat& X, std::size_t M, LandmarkMethod method, std::uint64_t seed,
                             KernelType kernel);

// The uniform draw alone, from (n, M, seed): the indices nystrom_landmarks gives for
// uniform landmarks among n rows, without the rows (a streamed fit draws them before
// it has read any). The shuffle keeps only the positions it has moved (a map of at
// most 2M entries), so the memory is O(M) whatever n. DataError unless 1 <= M <= n.
arma::uvec uniform_landmarks(std::uint64_t n, std::size_t M, std::uint64_t seed);

// K_LL = U diag(w) Uᵀ (w decreasing) -> the M x r map U_r diag(w_r^{-1/2}) over the r
// eigenvalues above kNystromTol · w_max: the pseudo-inverse square root of K_LL, the
// others (zero up to rounding: duplicate or dependent landmarks; negative, for a
// precomputed matrix that is not PSD) dropped, as dividing by their square root would
// amplify rounding noise (scikit-learn's Nystroem floors them at 1e-12 instead).
// K_LL is read from its upper triangle. DataError when no eigenvalue is positive or
// the eigen-decomposition fails. `dropped` receives M - r. Cost O(M³).
arma::mat nystrom_inverse_root(const arma::mat& K_LL, std::size_t* dropped = nullptr);
inline constexpr double kNystromTol = 1e-12;

// The declaration of `nystrom` (M, with `nystrom_help`), `landmarks` and `seed`, for
// an estimator P with fields nystrom, landmarks and seed; `allowed(p)` says when
// `nystrom` applies at all (kernel PCA: only with a kernel), `allowed_when` the
// phrase; `landmarks` and `seed` apply only with nystrom > 0. `grid`: whether cv takes
// a grid of M.
template <class P>
std::vector<Param<P>> nystrom_param_table(std::string nystrom_help, bool grid, std::function<bool(const P&)> allowed = {},
                                          std::string allowed_when = {}) {
  std::vector<Param<P>> t;
  Param<P> m = integer<P>("nystrom", &P::nystrom, std::move(nystrom_help), Bounds::at_least(1));
  m.show_default = false;
  m.sweep = grid;
  if (allowed) m = applies_if(std::move(m), allowed, std::move(allowed_when));
  t.push_back(std::move(m));
  const auto on = [](const P& p) { return p.nystrom > 0; };
  t.push_back(applies_if(choice<P>("landmarks", &P::landmarks, "How Nyström picks landmarks: uniform or kmeans++"), on,
                         "only with `nystrom`"));
  t.back().sweep = false;
  t.push_back(applies_if(mlt::seed<P>("seed", &P::seed, "Seed of the landmark sampling"), on, "only with `nystrom`"));
  return t;
}

}  // namespace mlt
