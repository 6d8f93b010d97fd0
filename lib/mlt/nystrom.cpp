#include "mlt/nystrom.hpp"

#include <unordered_map>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/kmeans/seeding.hpp"

namespace mlt {

arma::uvec nystrom_landmarks(const arma::mat& X, std::size_t M, LandmarkMethod method, std::uint64_t seed,
                             KernelType kernel) {
  const arma::uword n = X.n_rows;
  if (M < 1 || M > n)
    throw DataError("`nystrom` M=" + std::to_string(M) + " > n_samples=" + std::to_string(n));
  Random rng(seed);
  if (method == LandmarkMethod::kmeanspp) {
    if (*structured_input(kernel))
      throw UsageError("landmarks kmeans++ spreads the landmarks by Euclidean distance between input rows, which "
                       "the " + name_of(kernel) + " kernel's encoded " + structured_input(kernel) +
                       " rows do not have; use landmarks uniform");
    return kmeans::kmeanspp_rows(X, M, 1, rng);  // plain k-means++
  }
  return uniform_landmarks(n, M, seed);
}

arma::uvec uniform_landmarks(std::uint64_t n, std::size_t M, std::uint64_t seed) {
  if (M < 1 || M > n)
    throw DataError("`nystrom` M=" + std::to_string(M) + " > n_samples=" + std::to_string(n));
  Random rng(seed);
  // Partial Fisher-Yates on 0..n-1, the first M entries a uniform sample; a position
  // absent from `moved` still holds its own index.
  std::unordered_map<std::uint64_t, std::uint64_t> moved;
  const auto at = [&moved](std::uint64_t i) {
    const auto it = moved.find(i);
    return it == moved.end() ? i : it->second;
  };
  arma::uvec idx(M);
  for (std::size_t i = 0; i < M; ++i) {
    const std::uint64_t j = i + rng.below(n - i);
    const std::uint64_t drawn = at(j);
    moved[j] = at(i);
    idx[i] = static_cast<arma::uword>(drawn);
  }
  return idx;
}

arma::mat nystrom_inverse_root(const arma::mat& K_LL, std::size_t* dropped) {
  arma::vec w;
  arma::mat U;
  {
    // dsytrd's symv splits its sums by thread: one thread keeps the bits independent
    // of --threads (core/parallel.hpp).
    const BlasSingleThreaded blas;
    const arma::mat S = arma::symmatu(K_LL);
    if (!arma::eig_sym(w, U, S, "dc") && !arma::eig_sym(w, U, S, "std"))
      throw DataError("Nyström: the eigen-decomposition of the landmarks' kernel matrix did not converge");
  }
  const double top = w.max();
  if (!(top > 0))
    throw DataError("Nyström: the landmarks' kernel matrix has no positive eigenvalue (every landmark is the zero "
                    "point of the kernel's feature space)");
  // Ascending from LAPACK: keep the trailing eigenpairs above the cut, largest first.
  arma::uword r = 0;
  while (r < w.n_elem && w[w.n_elem - 1 - r] > kNystromTol * top) ++r;
  if (dropped) *dropped = w.n_elem - r;
  arma::mat map = arma::fliplr(U.tail_cols(r));
  const arma::vec root = arma::sqrt(arma::reverse(w.tail(r)));
  map.each_row() /= root.t();
  return map;
}

}  // namespace mlt
