// One held-out split of n rows (scikit-learn's train_test_split): the rows are
// shuffled by a seeded stream and the first n_test go to the test part; stratified,
// each class is shuffled on its own and gives its share of n_test by largest
// remainder, so the per-class counts add up to n_test and every class keeps its
// proportion to within one row. O(n) time and memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mlt::cv {

struct TrainTest {
  std::vector<std::size_t> train, test;  // row indices, each part in increasing order
};

// Held-out rows among n: a fraction in (0, 1) rounds up (as scikit-learn), a value
// >= 1 is a count. UsageError unless both parts get at least one row.
std::size_t test_count(double test, std::size_t n);

// Plain: `strata` empty. Stratified: one label per row (any text), n = strata.size().
TrainTest train_test_split(std::size_t n, double test, std::uint64_t seed,
                           const std::vector<std::string>& strata = {});

}  // namespace mlt::cv
