#include "mlt/cv/train_test_split.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "mlt/core/error.hpp"
#include "mlt/core/random.hpp"
#include "mlt/io/number_format.hpp"

namespace mlt::cv {

std::size_t test_count(double test, std::size_t n) {
  if (!(test > 0) || !std::isfinite(test)) throw UsageError("`test` must be a fraction in (0, 1) or a row count");
  const std::size_t n_test = test < 1 ? static_cast<std::size_t>(std::ceil(test * static_cast<double>(n)))
                                      : static_cast<std::size_t>(test);
  if (n_test == 0 || n_test >= n) {
    std::string value;
    io::append_number(value, test);
    throw DataError("`test` " + value + " leaves " + std::to_string(n - std::min(n, n_test)) +
                    " training and " + std::to_string(n_test) + " test rows of " + std::to_string(n));
  }
  return n_test;
}

TrainTest train_test_split(std::size_t n, double test, std::uint64_t seed, const std::vector<std::string>& strata) {
  if (!strata.empty() && strata.size() != n) throw std::logic_error("train_test_split: one label per row");
  if (n < 2) throw DataError(std::to_string(n) + " row" + (n == 1 ? "" : "s") + " cannot be split");
  const std::size_t n_test = test_count(test, n);
  // Groups of rows drawn from separately, in label order: one per class when stratifying.
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < n; ++i) groups[strata.empty() ? std::string() : strata[i]].push_back(i);
  Random rng(seed);
  TrainTest out;
  std::size_t assigned = 0, seen = 0;
  for (auto& [label, rows] : groups) {
    rng.shuffle(rows);
    seen += rows.size();
    const std::size_t target = static_cast<std::size_t>(
        std::llround(static_cast<double>(n_test) * static_cast<double>(seen) / static_cast<double>(n)));
    const std::size_t take = std::min(rows.size(), target - std::min(target, assigned));
    assigned += take;
    out.test.insert(out.test.end(), rows.begin(), rows.begin() + static_cast<long>(take));
    out.train.insert(out.train.end(), rows.begin() + static_cast<long>(take), rows.end());
  }
  std::sort(out.train.begin(), out.train.end());
  std::sort(out.test.begin(), out.test.end());
  return out;
}

}  // namespace mlt::cv
