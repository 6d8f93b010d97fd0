// The row-wise products (mlt/core/rowwise.hpp): every entry is the plain ascending
// sum, bit for bit, whatever the tile, edge, thread count or batch it falls in.
#include "mlt/core/rowwise.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <limits>

#include "mlt/core/parallel.hpp"
#include "../test_util.hpp"

namespace core_rowwise_test {

namespace {

using mlt::test::random_mat;

// The documented sum, written out: (((0 + a_1 b_1) + a_2 b_2) + ...), in ascending k.
double plain_dot(const arma::mat& A, arma::uword i, const arma::mat& B, arma::uword j) {
  double s = 0;
  for (arma::uword k = 0; k < A.n_cols; ++k) s = s + A(i, k) * B(j, k);
  return s;
}

bool identical(const arma::mat& a, const arma::mat& b) {
  return a.n_rows == b.n_rows && a.n_cols == b.n_cols && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace

TEST_CASE("rowwise::inner_products is the plain ascending sum, bit for bit, on every shape") {
  // Shapes with full 16 x 6 tiles, edge rows, edge columns, both, and the degenerate.
  const std::vector<std::array<arma::uword, 3>> shapes = {
      {1, 1, 1}, {15, 5, 3}, {16, 6, 4}, {17, 7, 9}, {300, 13, 20}, {33, 1, 64}, {5, 40, 0}, {0, 4, 3}, {4, 0, 3}};
  for (unsigned threads : {1u, 2u, 3u}) {
    mlt::set_thread_count(threads);
    for (const auto& [m, n, p] : shapes) {
      CAPTURE(threads);
      CAPTURE(m);
      CAPTURE(n);
      CAPTURE(p);
      const arma::mat A = random_mat(m, p, 1 + m), B = random_mat(n, p, 2 + n);
      arma::mat want(m, n);
      for (arma::uword i = 0; i < m; ++i)
        for (arma::uword j = 0; j < n; ++j) want(i, j) = plain_dot(A, i, B, j);
      CHECK(identical(mlt::rowwise::inner_products(A, B), want));
      // W = Bt, built by hand: Armadillo's transpose of a matrix with rows but no
      // columns reads through a null pointer (UBSan reports it).
      arma::mat W(p, n);
      for (arma::uword i = 0; i < p; ++i)
        for (arma::uword j = 0; j < n; ++j) W(i, j) = B(j, i);
      CHECK(identical(mlt::rowwise::product(A, W), want));
    }
  }
  mlt::set_thread_count(0);
}

TEST_CASE("rowwise: a row's result does not depend on the batch it is computed in") {
  const arma::mat A = random_mat(301, 23, 5), B = random_mat(47, 23, 6);
  const arma::mat whole = mlt::rowwise::inner_products(A, B);
  const arma::uvec reversed = arma::regspace<arma::uvec>(A.n_rows - 1, 0);
  CHECK(identical(mlt::rowwise::inner_products(A.rows(reversed), B), whole.rows(reversed)));
  for (arma::uword cut : {1u, 7u, 16u, 100u}) {
    CAPTURE(cut);
    const arma::mat chunks = arma::join_cols(mlt::rowwise::inner_products(A.rows(0, cut - 1), B),
                                             mlt::rowwise::inner_products(A.rows(cut, A.n_rows - 1), B));
    CHECK(identical(chunks, whole));
  }
  // One row at a time, against each column of B on its own.
  for (arma::uword i : {0u, 15u, 16u, 300u})
    for (arma::uword j : {0u, 5u, 6u, 46u}) {
      CAPTURE(i);
      CAPTURE(j);
      CHECK(mlt::rowwise::inner_products(A.rows(i, i), B.rows(j, j))(0, 0) == whole(i, j));
    }
  // A matrix with itself: exactly symmetric, and the diagonal is squared_norms.
  const arma::mat G = mlt::rowwise::inner_products(B, B);
  CHECK(identical(G, G.t()));
  CHECK(identical(arma::mat(G.diag()), arma::mat(mlt::rowwise::squared_norms(B))));
}

TEST_CASE("rowwise: within the dot-product error bound of BLAS") {
  // |fl(a·b) − a·b| ≤ γ_p Σ|a_k b_k| with γ_p = pε/(1 − pε) (Higham Eq. 3.5) for each
  // of the two computations, whatever order BLAS sums in.
  const arma::mat A = random_mat(70, 50, 7), B = random_mat(20, 50, 8);
  const double gamma = 50 * std::numeric_limits<double>::epsilon() / (1 - 50 * std::numeric_limits<double>::epsilon());
  const arma::mat bound = 2 * gamma * (arma::abs(A) * arma::abs(B).t());
  CHECK(arma::all(arma::vectorise(arma::abs(mlt::rowwise::inner_products(A, B) - A * B.t()) <= bound)));
  CHECK_THROWS(mlt::rowwise::inner_products(A, random_mat(3, 4, 9)));
  CHECK_THROWS(mlt::rowwise::product(A, random_mat(4, 3, 9)));
}

}  // namespace core_rowwise_test
