// k-means' assignment step (lib/mlt/kmeans/assign.hpp): squared_distance is its
// documented formula, and the fast assignment equals the plain loop, bit for bit.
#include <doctest/doctest.h>

#include <cmath>

#include "mlt/kmeans/assign.hpp"

namespace kmeans_assign_test {

namespace {

using mlt::Labels;

// The plain assignment loop, the definition the fast one must reproduce bit for bit:
// for each row the first centroid of the smallest kmeans::squared_distance (the
// library's documented distance formula; checked against arithmetic below).
void plain_assign(const arma::mat& X, const arma::mat& C, Labels& y, arma::vec& d2) {
  const arma::mat Xt = X.t(), Ct = C.t();  // points as contiguous columns
  y.set_size(X.n_rows);
  d2.set_size(X.n_rows);
  for (arma::uword i = 0; i < X.n_rows; ++i) {
    double best = arma::datum::inf;
    arma::uword bl = 0;
    for (arma::uword l = 0; l < C.n_rows; ++l) {
      const double s = mlt::kmeans::squared_distance(Xt.colptr(i), Ct.colptr(l), X.n_cols);
      if (s < best) {
        best = s;
        bl = l;
      }
    }
    y[i] = bl;
    d2[i] = best;
  }
}

void check_same_as_plain(const arma::mat& X, const arma::mat& C) {
  Labels fast, plain;
  arma::vec df, dp;
  mlt::kmeans::assign(X, C, fast, df);
  plain_assign(X, C, plain, dp);
  CHECK(arma::all(fast == plain));
  CHECK(arma::all(df == dp));  // bit-identical, not merely close
}

}  // namespace

TEST_CASE("kmeans: the reference squared distance") {
  // Exactly representable sums: the formula is the plain Σ (a - b)².
  const double a[11] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, b[11] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK(mlt::kmeans::squared_distance(a, b, 11) == 506.0);
  CHECK(mlt::kmeans::squared_distance(a, b, 1) == 1.0);
  CHECK(mlt::kmeans::squared_distance(a, a, 11) == 0.0);
  arma::arma_rng::set_seed(3);
  const arma::vec x = arma::randn(37), z = arma::randn(37);
  CHECK(mlt::kmeans::squared_distance(x.memptr(), z.memptr(), 37) ==
        doctest::Approx(arma::accu(arma::square(x - z))).epsilon(1e-14));
}

TEST_CASE("kmeans: the fast assignment equals the plain loop, ties to the lower index") {
  arma::arma_rng::set_seed(7);
  SUBCASE("random data and centroids") {
    check_same_as_plain(arma::randn(500, 6), arma::randn(9, 6));
  }
  SUBCASE("exact ties: duplicated centroids and midpoints on an integer grid") {
    arma::mat X(121, 2);
    for (int a = 0; a < 11; ++a)
      for (int b = 0; b < 11; ++b) X.row(a * 11 + b) = arma::rowvec{double(a), double(b)};
    const arma::mat C = {{2, 2}, {4, 2}, {2, 2}, {2, 4}, {4, 4}, {8, 8}, {8, 8}};
    check_same_as_plain(X, C);
    Labels y;
    arma::vec d2;
    mlt::kmeans::assign(X, C, y, d2);
    CHECK(y[3 * 11 + 2] == 0);  // (3, 2): equidistant from centroids 0, 1 and 2
    CHECK(y[8 * 11 + 8] == 5);  // on the duplicated centroid (8, 8): the first copy
  }
  SUBCASE("a large offset: the BLAS screen cannot decide, the exact check must") {
    const arma::mat X = 1e8 + arma::randn(300, 3);
    const arma::mat C = 1e8 + arma::randn(5, 3) * 0.5;
    check_same_as_plain(X, C);
  }
  SUBCASE("one centroid, one feature") {
    check_same_as_plain(arma::randn(50, 1), arma::randn(1, 1));
  }
  // The screen has two implementations, chosen by the size of the centroids: a fused
  // register-tiled one (AVX-512 builds, k·p up to about 3000) and one GEMM. Shapes on
  // both sides, with k not a multiple of 8 and several register tiles.
  SUBCASE("k = 50, p = 20 (fused: 7 groups of 8, the last padded)") {
    check_same_as_plain(arma::randn(777, 20), arma::randn(50, 20));
  }
  SUBCASE("k = 131, p = 3 (fused: 17 groups over 3 tiles)") {
    check_same_as_plain(arma::randn(501, 3), arma::randn(131, 3));
  }
  SUBCASE("k = 100, p = 40 (the GEMM screen)") {
    check_same_as_plain(arma::randn(333, 40), arma::randn(100, 40));
  }
}

TEST_CASE("kmeans: squared_distance is its documented formula, bit for bit") {
  // The header's definition, written out: lane j mod 8 accumulates fma(t, t, ·), then
  // ((s0+s4)+(s2+s6))+((s1+s5)+(s3+s7)). The library may vectorize it; the bits must
  // not change, since plain and fast assignments both rest on it.
  arma::arma_rng::set_seed(5);
  for (std::size_t p = 1; p <= 41; ++p) {
    const arma::vec a = arma::randn(p) * 1e3, b = arma::randn(p);
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (std::size_t j = 0; j < p; ++j) {
      const double t = a[j] - b[j];
      s[j % 8] = std::fma(t, t, s[j % 8]);
    }
    const double expected = ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
    CHECK(mlt::kmeans::squared_distance(a.memptr(), b.memptr(), p) == expected);
  }
}

}  // namespace kmeans_assign_test
