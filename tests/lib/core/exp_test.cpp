// mlt::exp_inplace (core/exp.hpp) against std::exp, and the bit independence the
// kernels rely on.
#include "mlt/core/exp.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace core_exp_test {

namespace {

// Position of a double on the number line in units of its spacing: the difference of
// two is their distance in ulp (the spacing of the smaller binade where they differ).
std::int64_t ordinal(double d) {
  std::int64_t i;
  std::memcpy(&i, &d, sizeof i);
  return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;
}

std::int64_t max_ulp_error(const std::vector<double>& x) {
  std::vector<double> y = x;
  mlt::exp_inplace(y.data(), y.size());
  std::int64_t worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::int64_t d = ordinal(y[i]) - ordinal(std::exp(x[i]));
    worst = std::max(worst, d < 0 ? -d : d);
  }
  return worst;
}

}  // namespace

TEST_CASE("exp_inplace is within 1 ulp of std::exp over its whole range, the subnormal results included") {
  // The method's bound (core/exp.hpp) is 0.5 ulp of the final rounding plus ~0.1 ulp
  // (table 2^-106, Taylor truncation 1.2e-18, the rounding of r and of the polynomial):
  // against glibc's exp, itself within 0.51 ulp, at most 1 ulp apart. Where the result
  // is subnormal its spacing is the ulp, and the one extra rounding there keeps the
  // same bound.
  std::mt19937_64 rng(20261124);
  std::vector<double> x;
  std::uniform_real_distribution<double> all(-746.0, 710.0);
  for (int i = 0; i < 10'000'000; ++i) x.push_back(all(rng));
  CHECK(max_ulp_error(x) <= 1);
  x.clear();
  // The rbf kernel's arguments, −γ d² <= 0, where most values are: [−40, 0].
  std::uniform_real_distribution<double> kernel(-40.0, 0.0);
  for (int i = 0; i < 5'000'000; ++i) x.push_back(kernel(rng));
  CHECK(max_ulp_error(x) <= 1);
  x.clear();
  // Every result subnormal or about to underflow, in steps of 1e-5 (exp(x) < 2^-1022
  // below x ≈ −708.4, rounds to 0 below ≈ −745.13).
  for (double v = -746.0; v < -708.0; v += 1e-5) x.push_back(v);
  CHECK(max_ulp_error(x) <= 1);
  x.clear();
  // Near 0 (|x| down to the smallest subnormal) and near overflow (709.78).
  for (double v = 1e-300; v < 1; v *= 1.001) {
    x.push_back(v);
    x.push_back(-v);
  }
  x.push_back(std::numeric_limits<double>::denorm_min());
  for (double v = 709.0; v < 709.79; v += 1e-6) x.push_back(v);
  CHECK(max_ulp_error(x) <= 1);
}

TEST_CASE("exp_inplace: the special values as std::exp") {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> x = {0.0, -0.0, inf, -inf, 709.8, -745.2, -1e6, 1e6, -746.0, 710.0};
  std::vector<double> y = x;
  mlt::exp_inplace(y.data(), y.size());
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(y[i] == std::exp(x[i]));
  double nan = std::numeric_limits<double>::quiet_NaN();
  mlt::exp_inplace(&nan, 1);
  CHECK(std::isnan(nan));
}

TEST_CASE("exp_inplace: a value's bits do not depend on the others in the array, nor on its position") {
  // The kernels' row-wise bit independence (core/rowwise.hpp) needs it: the same value
  // alone, at every offset of a vector's lanes, and in the remainder of an array.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-50.0, 5.0);
  std::vector<double> x(1001);
  for (double& v : x) v = u(rng);
  std::vector<double> whole = x;
  mlt::exp_inplace(whole.data(), whole.size());
  for (std::size_t shift : {1, 3, 7}) {
    std::vector<double> part(x.begin() + shift, x.end());
    mlt::exp_inplace(part.data(), part.size());
    bool same = true;
    for (std::size_t i = 0; i < part.size(); ++i) same = same && std::memcmp(&part[i], &whole[i + shift], 8) == 0;
    CHECK(same);
  }
  bool same = true;
  for (std::size_t i = 0; i < x.size(); ++i) {
    double v = x[i];
    mlt::exp_inplace(&v, 1);
    same = same && std::memcmp(&v, &whole[i], 8) == 0;
  }
  CHECK(same);
}

}  // namespace core_exp_test
