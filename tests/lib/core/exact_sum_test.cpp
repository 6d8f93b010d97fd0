// mlt::ExactSum (core/exact_sum.hpp): exact, hence independent of order and grouping,
// and rounded once to nearest. The references are closed forms and 64-bit integer
// arithmetic (terms that are integers times one power of two add exactly as integers).
#include "mlt/core/exact_sum.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "mlt/core/error.hpp"

namespace core_exact_sum_test {

using mlt::ExactSum;

namespace {

double sum_of(const std::vector<double>& terms) {
  ExactSum s;
  for (double x : terms) s.add(x);
  return s.value();
}

bool same_bits(double a, double b) { return std::signbit(a) == std::signbit(b) && a == b; }

}  // namespace

TEST_CASE("ExactSum: cancellation, ties to even, subnormals and overflow, by closed forms") {
  const double u = std::ldexp(1.0, -53);  // half an ulp of 1
  CHECK(sum_of({}) == 0.0);
  CHECK(sum_of({1e100, 1.0, -1e100}) == 1.0);
  CHECK(sum_of({1e308, 1e308, -1e308}) == 1e308);  // the partial sum overflows a double, not the accumulator
  // The three doubles nearest 0.1, 0.2 and 0.3 are 0x1999999999999a, 0x33333333333334
  // and 0x4ccccccccccccc times 2^-56: their sum is exactly 2 · 2^-56.
  CHECK(sum_of({0.1, 0.2, -0.3}) == 0x1p-55);
  CHECK(sum_of({1.0, u}) == 1.0);                                  // a tie: to even
  CHECK(sum_of({1.0 + 2 * u, u}) == 1.0 + 4 * u);                  // a tie from odd: up
  CHECK(sum_of({1.0, u, std::ldexp(1.0, -200)}) == 1.0 + 2 * u);   // past the tie: up
  CHECK(sum_of({1.0, u, -std::ldexp(1.0, -200)}) == 1.0);          // short of it: down
  CHECK(sum_of({-1.0, -u, -std::ldexp(1.0, -200)}) == -1.0 - 2 * u);  // the same, negative
  const double tiny = std::numeric_limits<double>::denorm_min(), least_normal = std::numeric_limits<double>::min();
  CHECK(sum_of({tiny, tiny, tiny}) == 3 * tiny);
  CHECK(sum_of({least_normal, -tiny}) == least_normal - tiny);  // the largest subnormal
  CHECK(sum_of({std::ldexp(1.0, 60), tiny}) == std::ldexp(1.0, 60));
  const double big = std::numeric_limits<double>::max();
  CHECK(sum_of({big, big}) == std::numeric_limits<double>::infinity());
  CHECK(sum_of({-big, -big}) == -std::numeric_limits<double>::infinity());
  CHECK(sum_of({big, big, -big}) == big);
  // DBL_MAX + 2^970 is half an ulp above DBL_MAX, whose significand is odd: the tie
  // goes to 2^1024, i.e. +inf (IEEE 754 §4.3.1).
  CHECK(sum_of({big, std::ldexp(1.0, 970)}) == std::numeric_limits<double>::infinity());
  CHECK(sum_of({big, std::ldexp(1.0, 969)}) == big);
}

TEST_CASE("ExactSum: add_product adds the product exactly; value2 keeps the digits past value()") {
  ExactSum s;
  s.add_product(1.0 + 0x1p-52, 1.0 + 0x1p-52);  // 1 + 2^-51 + 2^-104, exactly
  s.add(-1.0);
  s.add(-0x1p-51);
  CHECK(s.value() == 0x1p-104);
  double hi, lo;
  ExactSum t;
  t.add(1.0);
  t.add(0x1p-60);
  t.add(0x1p-100);
  t.value2(hi, lo);
  CHECK(hi == 1.0);
  CHECK(lo == 0x1p-60 + 0x1p-100);  // the rest, exact in a double (41 bits)
  t.add(0x1p-170);                   // now past 53 bits: lo is the rest to nearest
  t.value2(hi, lo);
  CHECK(hi == 1.0);
  CHECK(lo == 0x1p-60 + 0x1p-100);
}

TEST_CASE("ExactSum: integers times one power of two, against 64-bit integer sums") {
  std::mt19937_64 gen(7);
  for (int scale : {-1074 + 40, -300, -20, 0, 200, 900}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::uniform_int_distribution<std::int64_t> k(-(std::int64_t(1) << 50), std::int64_t(1) << 50);
      std::vector<double> terms;
      std::int64_t total = 0;  // |total| < 3000 · 2^50 < 2^62
      for (int i = 0; i < 3000; ++i) {
        const std::int64_t ki = k(gen);
        total += ki;
        terms.push_back(std::ldexp(static_cast<double>(ki), scale));  // exact: |ki| <= 2^50
      }
      // The integer total (up to 2^62) converts to double rounded to nearest (the
      // hardware's conversion, in the default rounding mode), and the power of two
      // scales it exactly (no under/overflow here).
      const double want = std::ldexp(static_cast<double>(total), scale);
      CAPTURE(scale);
      CHECK(sum_of(terms) == want);
    }
  }
}

TEST_CASE("ExactSum: the same bits whatever the order and grouping, through bytes too") {
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> mant(-1, 1);
  std::uniform_int_distribution<int> expo(-1100, 1000);
  std::vector<double> terms(5000);
  for (double& x : terms) x = std::ldexp(mant(gen), expo(gen));
  const double whole = sum_of(terms);
  CHECK(std::isfinite(whole));
  for (int trial = 0; trial < 10; ++trial) {
    std::shuffle(terms.begin(), terms.end(), gen);
    // Random cuts, each part summed on its own, merged in a random order, some via bytes.
    std::vector<ExactSum> parts(1 + trial);
    for (double x : terms) parts[gen() % parts.size()].add(x);
    std::shuffle(parts.begin(), parts.end(), gen);
    ExactSum merged;
    for (std::size_t i = 0; i < parts.size(); ++i)
      merged.merge(i % 2 ? ExactSum::from_bytes(parts[i].to_bytes()) : parts[i]);
    CHECK(same_bits(merged.value(), whole));
  }
  CHECK_THROWS_AS(ExactSum::from_bytes("short"), mlt::Error);
  ExactSum s;
  CHECK_THROWS_AS(s.add(std::numeric_limits<double>::infinity()), mlt::Error);
}

}  // namespace core_exact_sum_test
