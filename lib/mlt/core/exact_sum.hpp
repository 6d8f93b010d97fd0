// The exact sum of doubles: a fixed-point accumulator wide enough for every finite
// double (Kulisch's long accumulator; U. Kulisch, Computer Arithmetic and Validity,
// de Gruyter 2013, ch. 8), so that no addition rounds. The sum therefore does not
// depend on the order of the terms or on how they are grouped: partial sums made by
// threads, by chunks of a file or by the ranks of a data-parallel run, merged in any
// order, give the same value, and value() rounds it once, to nearest.
//
// What it is for: results that must be the same bits whatever the partition of the
// rows (k-means' centring and its seeding's cost over MPI ranks), where a sequential
// recurrence would make the ranks wait for one another. It costs a few nanoseconds a
// term, against a fraction of one for a plain `s += x`: use it where the count of
// terms is that of the data, not of the data times the iterations.
//
// Layout: 72 limbs of 32 bits each, limb i weighing 2^(32 i − 1074), so bit 0 is the
// smallest subnormal; a double's 53-bit significand lands on at most three limbs.
// Limbs are int64_t and take the digits unnormalised; carries are propagated every
// 2^30 terms, long before a limb could overflow. The top limbs are headroom for sums
// of up to 2^60 terms of the largest double.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace mlt {

class ExactSum {
 public:
  // x must be finite (a non-finite term is an internal error: callers check their data
  // first, as every fit does).
  void add(double x) {
    std::uint64_t bits;
    static_assert(sizeof bits == sizeof x);
    __builtin_memcpy(&bits, &x, sizeof x);
    unsigned e = static_cast<unsigned>(bits >> 52) & 0x7ff;
    std::uint64_t m = bits & ((std::uint64_t(1) << 52) - 1);
    if (e == 0x7ff) return add_non_finite();
    if (e != 0) m |= std::uint64_t(1) << 52;
    else e = 1;  // subnormal: the same scale as the smallest normal exponent
    // x = ±m · 2^(e − 1075): m's bit 0 sits at absolute bit e − 1.
    const unsigned at = e - 1, limb = at >> 5;
    // ±m · 2^shift (m · 2^shift < 2^85) as three signed 32-bit digits, without a branch
    // on the sign or the shift (data signs are a coin toss for the branch predictor).
    const unsigned shift = at & 31;
    const std::uint64_t low = m << shift, high = (m >> 1) >> (63 - shift);
    const std::int64_t sign = -static_cast<std::int64_t>(bits >> 63);  // 0 or -1
    limbs_[limb] += (static_cast<std::int64_t>(low & 0xffffffff) ^ sign) - sign;
    limbs_[limb + 1] += (static_cast<std::int64_t>(low >> 32) ^ sign) - sign;
    limbs_[limb + 2] += (static_cast<std::int64_t>(high) ^ sign) - sign;
    if (++terms_ == kCarryEvery) carry();
  }
  // a · b, exactly (its rounded product and the product's rounding error, by fma),
  // unless the product under- or overflows.
  void add_product(double a, double b) {
    const double product = a * b;
    add(product);
    add(__builtin_fma(a, b, -product));
  }
  // The sum of both, exactly.
  void merge(const ExactSum& other);
  // The sum rounded to the nearest double (ties to even); ±inf past the largest.
  double value() const;
  // Whether the exact sum is above x, decided exactly (not on value()'s rounding).
  bool exceeds(double x) const;
  // -1, 0 or 1: the sign of this sum minus other's, exactly.
  int compare(const ExactSum& other) const;
  // The sum as hi + lo: hi = value(), lo the rest rounded to nearest (for a quotient
  // or a difference that must not lose the digits past hi's).
  void value2(double& hi, double& lo) const;

  // The state as bytes and back, exactly: to merge the sums of the ranks.
  std::string to_bytes() const;
  static ExactSum from_bytes(const std::string& bytes);

 private:
  static constexpr int kLimbs = 72;
  static constexpr std::uint32_t kCarryEvery = std::uint32_t(1) << 30;
  void carry();
  [[noreturn]] static void add_non_finite();
  std::array<std::int64_t, kLimbs> limbs_{};
  std::uint32_t terms_ = 0;  // added since the last carry
};

}  // namespace mlt
