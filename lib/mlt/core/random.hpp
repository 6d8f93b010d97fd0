// Seeded randomness that is identical on every platform and standard library.
//
// std::uniform_int_distribution and friends are implementation-defined, so the same
// seed would give different folds or centroids with libc++ and libstdc++. We use only
// the raw output of std::mt19937_64 (fully specified by the standard) and derive
// uniform numbers from it ourselves.
#pragma once

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace mlt {

// The seed used when the user does not give one: runs are reproducible by default.
inline constexpr std::uint64_t kDefaultSeed = 42;

class Random {
 public:
  explicit Random(std::uint64_t seed = kDefaultSeed) : engine_(seed) {}

  std::uint64_t next() { return engine_(); }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n), n > 0, without modulo bias (Lemire's method would be
  // faster; rejection keeps it obviously right and this is never on a hot path).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t r;
    do r = engine_(); while (r >= limit);
    return r % n;
  }

  // Fisher-Yates shuffle.
  template <typename T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

  // A seed for an independent child stream (one per restart, fold or thread), so
  // results do not depend on how work is scheduled.
  std::uint64_t split() { return engine_() ^ 0x9E3779B97F4A7C15ull; }

 private:
  std::mt19937_64 engine_;
};

}  // namespace mlt
