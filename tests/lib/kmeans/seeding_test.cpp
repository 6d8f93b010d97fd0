// k-means seeding (lib/mlt/kmeans/seeding.hpp).
#include <doctest/doctest.h>

#include "mlt/core/random.hpp"
#include "mlt/kmeans/seeding.hpp"

namespace kmeans_seeding_test {

TEST_CASE("kmeans: kmeanspp_rows gives distinct seeds spread over separated clusters") {
  arma::mat X(300, 2);
  mlt::Random noise(3);
  for (arma::uword i = 0; i < 300; ++i) {
    const double cx = 100.0 * static_cast<double>(i % 3);
    X(i, 0) = cx + noise.uniform();
    X(i, 1) = noise.uniform();
  }
  mlt::Random rng(11);
  const arma::uvec s = mlt::kmeans::kmeanspp_rows(X, 3, 1, rng);
  CHECK(arma::uvec(arma::unique(s)).n_elem == 3);
  // One seed per cluster (cluster = i mod 3).
  CHECK(arma::uvec(arma::unique(arma::uvec(s - 3 * (s / 3)))).n_elem == 3);
  // Greedy (several candidates per seed): the same.
  mlt::Random rng3(11);
  const arma::uvec g = mlt::kmeans::kmeanspp_rows(X, 3, 4, rng3);
  CHECK(arma::uvec(arma::unique(arma::uvec(g - 3 * (g / 3)))).n_elem == 3);
  // All identical rows: still k distinct indices.
  mlt::Random rng2(1);
  const arma::uvec d = mlt::kmeans::kmeanspp_rows(arma::ones(10, 2), 10, 1, rng2);
  CHECK(arma::uvec(arma::unique(d)).n_elem == 10);
}

}  // namespace kmeans_seeding_test
