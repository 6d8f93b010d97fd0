#include "mlt/core/exp.hpp"

#include <bit>
#include <cstdint>
#include <cstring>

namespace mlt {
namespace {

#include "mlt/core/exp_table.inc"

// Eight lanes, as in rowwise.cpp: GCC lowers them to what the target has. Written
// with vector types, not as a scalar loop for the vectorizer, because the table is
// read by a lane permutation (__builtin_shuffle: AVX-512's vpermt2pd), which GCC
// does not derive from a table load; and because every value, the last few included,
// then goes through the very same instructions.
using V = double __attribute__((vector_size(64)));
using I = std::int64_t __attribute__((vector_size(64)));
constexpr std::size_t kLanes = 8;

// Adding 1.5 · 2^52 rounds a |z| < 2^51 to an integer, which the low bits then hold.
constexpr double kShift = 0x1.8p52;
// Taylor coefficients of exp(r) − 1 − r.
constexpr double kC2 = 1.0 / 2, kC3 = 1.0 / 6, kC4 = 1.0 / 24, kC5 = 1.0 / 120, kC6 = 1.0 / 720, kC7 = 1.0 / 5040;

[[gnu::always_inline]] inline V splat(double v) { return V{} + v; }

[[gnu::always_inline]] inline V load(const double* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

[[gnu::always_inline]] inline V table(const double (&t)[16], std::size_t half) { return load(t + half * kLanes); }

[[gnu::always_inline]] inline V exp8(V x) {
  // Below −746 exp(x) rounds to 0, above 710 it overflows; the clamp keeps k small.
  // NaN passes through (its comparisons are false) and stays NaN.
  x = x < -746.0 ? splat(-746.0) : x;
  x = x > 710.0 ? splat(710.0) : x;
  V kd = x * kInvLn2N + kShift;
  const I k = std::bit_cast<I>(kd) - std::int64_t(0x4338000000000000);  // round(16 x / ln2)
  kd = kd - kShift;
  // x − k ln2/16: k · head is exact (|k| < 2^15, the head has 33 bits) and cancels
  // most of x; |r| <= ln2/32 (+ rounding).
  const V r = x - kd * kLn2HiN - kd * kLn2LoN;
  const I j = k & 15;
  const I e = k >> 4;  // floor(k / 16): k = 16 e + j
  const V s = __builtin_shuffle(table(kScale, 0), table(kScale, 1), j);
  const V t = __builtin_shuffle(table(kTail, 0), table(kTail, 1), j);
  // exp(r) − 1 to degree 7: truncation |r|^8/8! <= 1.2e-18 relative (0.01 ulp).
  const V r2 = r * r, r4 = r2 * r2;
  const V p = t + r + r2 * (kC2 + r * kC3) + r4 * (kC4 + r * kC5) + r4 * r2 * (kC6 + r * kC7);
  const V y = s + s * p;  // 2^(j/16) exp(r), in [2^(-1/32), 2^(1 + 1/32)]
  // 2^e as two normal factors (−1077 <= e <= 1024): the product rounds once, where the
  // result is subnormal or overflows.
  const I e1 = e >> 1, e2 = e - e1;
  const I b1 = (e1 + 1023) << 52, b2 = (e2 + 1023) << 52;
  return y * std::bit_cast<V>(b1) * std::bit_cast<V>(b2);
}

}  // namespace

void exp_inplace(double* x, std::size_t n) {
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const V v = exp8(load(x + i));
    std::memcpy(x + i, &v, sizeof v);
  }
  if (i < n) {  // the last values through the same lanes
    double buf[kLanes] = {};
    std::memcpy(buf, x + i, (n - i) * sizeof(double));
    const V v = exp8(load(buf));
    std::memcpy(x + i, &v, (n - i) * sizeof(double));
  }
}

}  // namespace mlt
