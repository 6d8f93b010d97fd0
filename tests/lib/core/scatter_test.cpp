// mlt::centred_products (core/scatter.hpp): ZᵀZ and ZᵀW of centred (and scaled) rows
// in blocks and parts. The reference is 64-bit integer arithmetic: on data whose
// centred values are small integers over a power of two, every product and every
// partial sum is exact in a double, in any order and grouping, so the result must
// equal the integer one bit for bit, whatever the blocks and parts. Then, on random
// data, the same bits for any thread count, and the bound on rounding against a
// plain centred copy.
#include "mlt/core/scatter.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/parallel.hpp"

namespace core_scatter_test {

namespace {

// n x p integers in [-1000, 1000], and their cross products as int64.
struct IntegerRows {
  std::vector<std::int64_t> v;  // column-major
  arma::uword n, p;
  IntegerRows(arma::uword rows, arma::uword cols, unsigned seed) : v(rows * cols), n(rows), p(cols) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> d(-1000, 1000);
    for (auto& x : v) x = d(rng);
  }
  std::int64_t at(arma::uword i, arma::uword j) const { return v[i + j * n]; }
};

std::int64_t cross(const IntegerRows& a, arma::uword j, const IntegerRows& b, arma::uword k) {
  std::int64_t s = 0;
  for (arma::uword i = 0; i < a.n; ++i) s += a.at(i, j) * b.at(i, k);
  return s;
}

// Checks centred_products on X = offset + Z·scale (so Z = (X − offset) / scale
// exactly) and Y = y_offset + W against the integer cross products.
void check_exact(arma::uword n, arma::uword p, arma::uword t, bool scaled) {
  const IntegerRows z(n, p, 7 + static_cast<unsigned>(p)), w(n, t, 11 + static_cast<unsigned>(t));
  arma::rowvec shift(p), scale(p, arma::fill::ones), y_shift(t);
  arma::mat X(n, p), Y(n, t);
  for (arma::uword j = 0; j < p; ++j) {
    // Means far from the spread (a timestamp's 1.7e9) must not cost a digit: the rows
    // are centred before they are multiplied. Both terms are exact in a double.
    shift[j] = j % 3 == 0 ? 1.7e9 + static_cast<double>(j) : -0.5 * static_cast<double>(j);
    if (scaled) scale[j] = std::ldexp(1.0, static_cast<int>(j % 5) - 2);
    for (arma::uword i = 0; i < n; ++i) X(i, j) = shift[j] + static_cast<double>(z.at(i, j)) * scale[j];
  }
  for (arma::uword j = 0; j < t; ++j) {
    y_shift[j] = 3.25 * static_cast<double>(j + 1);
    for (arma::uword i = 0; i < n; ++i) Y(i, j) = y_shift[j] + static_cast<double>(w.at(i, j));
  }
  const mlt::CentredProducts got =
      t ? mlt::centred_products(X, shift, scaled ? &scale : nullptr, &Y, &y_shift)
        : mlt::centred_products(X, shift, scaled ? &scale : nullptr);
  REQUIRE(got.zz.n_rows == p);
  REQUIRE(got.zz.n_cols == p);
  std::size_t wrong = 0;
  for (arma::uword j = 0; j < p; ++j)
    for (arma::uword k = 0; k < p; ++k) wrong += got.zz(j, k) != static_cast<double>(cross(z, j, z, k));
  CHECK(wrong == 0);
  if (t == 0) {
    CHECK(got.zw.is_empty());
    return;
  }
  REQUIRE(got.zw.n_rows == p);
  REQUIRE(got.zw.n_cols == t);
  wrong = 0;
  for (arma::uword j = 0; j < p; ++j)
    for (arma::uword k = 0; k < t; ++k) wrong += got.zw(j, k) != static_cast<double>(cross(z, j, w, k));
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("centred_products: exact on integer data, through every block and part") {
  // 20,000 x 5 with 2 targets: blocks of 4,681 rows (256 KiB over 7 columns), the
  // last one short, in 5 parts.
  SUBCASE("several parts, a target, scaled by powers of two") { check_exact(20000, 5, 2, true); }
  SUBCASE("several parts, no target, unscaled") { check_exact(20001, 9, 0, false); }
  SUBCASE("fewer rows than a block") { check_exact(3, 4, 1, false); }
  // 8 x 2,900² bytes is more than the parts' 64 MiB: one part, BLAS threaded within it.
  SUBCASE("one part: wide data") { check_exact(70, 2900, 0, true); }
}

TEST_CASE("centred_products: the same bits for any thread count, within the rounding bound of a centred copy") {
  const arma::uword n = 50000, p = 7, t = 1;
  arma::arma_rng::set_seed(3);
  arma::mat X = arma::randn(n, p) * 4.0 + 10.0, Y = arma::randn(n, t);
  const arma::rowvec shift = arma::mean(X, 0), y_shift = arma::mean(Y, 0), scale = arma::stddev(X, 1, 0);
  std::vector<mlt::CentredProducts> runs;
  for (unsigned threads : {1u, 2u, 3u}) {
    mlt::set_thread_count(threads);
    runs.push_back(mlt::centred_products(X, shift, &scale, &Y, &y_shift));
  }
  mlt::set_thread_count(0);
  for (std::size_t r = 1; r < runs.size(); ++r) {
    CHECK(arma::all(arma::vectorise(runs[r].zz == runs[0].zz)));
    CHECK(arma::all(arma::vectorise(runs[r].zw == runs[0].zw)));
  }
  // Against Z = the centred, scaled copy, multiplied by Armadillo: each entry is a sum
  // of n products whose magnitudes add up to at most sqrt(Sⱼⱼ Sₖₖ) (Cauchy–Schwarz),
  // so each of the two is within n ε sqrt(Sⱼⱼ Sₖₖ) of the exact sum (Higham, §3.1;
  // the entries of Z are the same doubles in both), and they are within twice that.
  arma::mat Z = X;
  Z.each_row() -= shift;
  Z.each_row() /= scale;
  arma::mat W = Y;
  W.each_row() -= y_shift;
  const arma::mat zz = Z.t() * Z, zw = Z.t() * W;
  const double eps = std::numeric_limits<double>::epsilon();
  const arma::vec d = arma::sqrt(zz.diag());
  const double wn = arma::norm(W.col(0));
  for (arma::uword j = 0; j < p; ++j) {
    for (arma::uword k = 0; k < p; ++k) CHECK(std::fabs(runs[0].zz(j, k) - zz(j, k)) <= 2 * n * eps * d[j] * d[k]);
    CHECK(std::fabs(runs[0].zw(j, 0) - zw(j, 0)) <= 2 * n * eps * d[j] * wn);
  }
  CHECK(runs[0].zz.is_symmetric());
}

TEST_CASE("column_means: arma::mean(X, 0) bit for bit, threads or not") {
  arma::arma_rng::set_seed(5);
  for (const arma::uword n : {7u, 25000u, 100003u}) {  // 100,003 x 12: past the million values, in parallel
    arma::mat X = arma::randn(n, 12) * 3.0 + 1e6;
    X.col(3) *= 1e300;  // sums overflow: Armadillo's running mean takes over, and must here too
    X.col(5).fill(0.1);
    const arma::rowvec want = arma::mean(X, 0), got = mlt::column_means(X);
    REQUIRE(got.n_elem == want.n_elem);
    for (arma::uword j = 0; j < want.n_elem; ++j) CHECK(std::bit_cast<std::uint64_t>(got[j]) == std::bit_cast<std::uint64_t>(want[j]));
  }
}

TEST_CASE("centred_products: shifts or rows of another shape are refused as an internal error") {
  const arma::mat X(10, 3, arma::fill::ones), Y(9, 1, arma::fill::ones);
  const arma::rowvec shift(3, arma::fill::zeros), short_shift(2, arma::fill::zeros), y_shift(1, arma::fill::zeros);
  CHECK_THROWS_AS(mlt::centred_products(X, short_shift, nullptr), mlt::Error);
  CHECK_THROWS_AS(mlt::centred_products(X, shift, &short_shift), mlt::Error);
  CHECK_THROWS_AS(mlt::centred_products(X, shift, nullptr, &Y, &y_shift), mlt::Error);  // 9 rows against 10
  const arma::mat Y10(10, 1, arma::fill::ones);
  CHECK_THROWS_AS(mlt::centred_products(X, shift, nullptr, &Y10, nullptr), mlt::Error);  // no y_shift
}

}  // namespace core_scatter_test
