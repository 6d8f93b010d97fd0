// Eight doubles as one value, for loops whose vector form must give the same bits on
// every processor: GCC lowers the type to whatever the target has (one AVX-512
// register, two AVX ones, four SSE2 ones), and the lane arithmetic is the same IEEE
// multiply and add in every case (the build passes -ffp-contract=off, so nothing is
// fused). A sum kept in lanes is eight running sums, lane l taking the elements
// ≡ l mod 8, reduced by lane_sum's fixed tree: a fixed order, independent of the
// vector width, that does not wait on one addition per element as a plain loop does.
#pragma once

#include <cstddef>
#include <cstring>

namespace mlt::lanes {

using Lanes = double __attribute__((vector_size(64)));
using UnalignedLanes = double __attribute__((vector_size(64), aligned(8)));
constexpr std::size_t kLanes = 8;

inline Lanes load(const double* p) {
  UnalignedLanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline void store(double* p, Lanes v) { std::memcpy(p, &v, sizeof v); }

// The first `count` (< kLanes) values at p, the other lanes zero: a loop's last,
// partial chunk, so that it goes through the same lanes as the whole ones.
inline Lanes load_partial(const double* p, std::size_t count) {
  Lanes v = {};
  std::memcpy(&v, p, count * sizeof(double));
  return v;
}

// The eight lanes summed in a fixed tree.
inline double lane_sum(Lanes v) { return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7])); }

}  // namespace mlt::lanes
