// Exact sums of doubles (core/exact_sum.hpp).
#include "mlt/core/exact_sum.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include "mlt/core/error.hpp"

namespace mlt {

void ExactSum::add_non_finite() {
  throw Error("internal: a non-finite term in an exact sum", kExitSoftware);
}

void ExactSum::carry() {
  // Limb by limb from the bottom: each keeps its low 32 bits, and the rest (a signed
  // count of 2^32, floor division) moves up. The top limb keeps the sign.
  for (int i = 0; i + 1 < kLimbs; ++i) {
    const std::int64_t up = limbs_[i] >> 32;
    limbs_[i] &= 0xffffffff;
    limbs_[i + 1] += up;
  }
  terms_ = 0;
}

void ExactSum::merge(const ExactSum& other) {
  ExactSum o = other;
  o.carry();
  carry();
  for (int i = 0; i < kLimbs; ++i) limbs_[i] += o.limbs_[i];
  terms_ = 2;  // each limb now below 2^33, as after two terms
}

bool ExactSum::exceeds(double x) const {
  ExactSum d = *this;
  d.add(-x);
  return d.value() > 0;  // a correctly rounded sum keeps its sign, and is 0 only when exactly 0
}

int ExactSum::compare(const ExactSum& other) const {
  ExactSum d = other;
  d.carry();
  for (auto& limb : d.limbs_) limb = -limb;
  d.merge(*this);
  const double v = d.value();
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

double ExactSum::value() const {
  ExactSum s = *this;
  s.carry();
  bool negative = s.limbs_[kLimbs - 1] < 0;
  if (negative) {
    for (auto& l : s.limbs_) l = -l;
    s.carry();
  }
  int top = kLimbs - 1;
  while (top >= 0 && s.limbs_[top] == 0) --top;
  if (top < 0) return 0.0;
  // Bits by absolute position (bit 0 weighs 2^-1074); every limb is now in [0, 2^32).
  auto limb = [&](int i) -> std::uint64_t { return i < kLimbs ? static_cast<std::uint64_t>(s.limbs_[i]) : 0; };
  const int lead = 32 * top + 31 - std::countl_zero(static_cast<std::uint32_t>(limb(top)));
  // Keep the 53 bits from the leading one down (fewer below 2^-1022: a subnormal).
  const int low = lead >= 52 ? lead - 52 : 0;
  const int at = low >> 5, shift = low & 31;
  std::uint64_t mant = (limb(at) | limb(at + 1) << 32) >> shift;
  if (shift) mant |= limb(at + 2) << (64 - shift);
  mant &= (std::uint64_t(1) << 53) - 1;
  if (low > 0) {  // round to nearest, ties to even, on the bits below `low`
    const int half = low - 1;
    const bool round_bit = (limb(half >> 5) >> (half & 31)) & 1;
    bool sticky = (limb(half >> 5) & ((std::uint64_t(1) << (half & 31)) - 1)) != 0;
    for (int i = (half >> 5) - 1; i >= 0 && !sticky; --i) sticky = limb(i) != 0;
    if (round_bit && (sticky || (mant & 1))) ++mant;  // 2^53 at most: still exact below
  }
  const double v = std::ldexp(static_cast<double>(mant), low - 1074);
  return negative ? -v : v;
}

void ExactSum::value2(double& hi, double& lo) const {
  hi = value();
  lo = 0;
  if (!std::isfinite(hi)) return;
  ExactSum rest = *this;
  rest.add(-hi);
  lo = rest.value();
}

std::string ExactSum::to_bytes() const {
  ExactSum s = *this;
  s.carry();
  std::string bytes(sizeof s.limbs_, '\0');
  std::memcpy(bytes.data(), s.limbs_.data(), sizeof s.limbs_);
  return bytes;
}

ExactSum ExactSum::from_bytes(const std::string& bytes) {
  ExactSum s;
  if (bytes.size() != sizeof s.limbs_)
    throw Error("internal: an exact sum of " + std::to_string(bytes.size()) + " bytes", kExitSoftware);
  std::memcpy(s.limbs_.data(), bytes.data(), sizeof s.limbs_);
  for (int i = 0; i + 1 < kLimbs; ++i)
    if (s.limbs_[i] < 0 || s.limbs_[i] > 0xffffffff)
      throw Error("internal: an exact sum with an unnormalised limb", kExitSoftware);
  s.terms_ = 1;
  return s;
}

}  // namespace mlt
