// One held-out split (mlt/cv/train_test_split.hpp): sizes as scikit-learn's
// train_test_split rounds them, parts that partition the rows, class proportions
// kept to within a row, the same split for the same seed.
#include "mlt/cv/train_test_split.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "mlt/core/error.hpp"

namespace cv_train_test_split_test {

namespace {

bool partitions(const mlt::cv::TrainTest& s, std::size_t n) {
  std::vector<std::size_t> all = s.train;
  all.insert(all.end(), s.test.begin(), s.test.end());
  std::sort(all.begin(), all.end());
  std::vector<std::size_t> want(n);
  std::iota(want.begin(), want.end(), 0);
  return all == want && std::is_sorted(s.train.begin(), s.train.end()) && std::is_sorted(s.test.begin(), s.test.end());
}

}  // namespace

TEST_CASE("train_test_split: sizes, a partition, the same rows for the same seed") {
  // scikit-learn: n_test = ceil(test * n) for a fraction, the count itself otherwise.
  CHECK(mlt::cv::test_count(0.25, 150) == 38);
  CHECK(mlt::cv::test_count(0.2, 10) == 2);
  CHECK(mlt::cv::test_count(0.21, 10) == 3);
  CHECK(mlt::cv::test_count(7, 10) == 7);
  const mlt::cv::TrainTest a = mlt::cv::train_test_split(150, 0.25, 42);
  CHECK(a.test.size() == 38);
  CHECK(partitions(a, 150));
  CHECK(mlt::cv::train_test_split(150, 0.25, 42).test == a.test);
  CHECK(mlt::cv::train_test_split(150, 0.25, 43).test != a.test);
  CHECK_THROWS_AS(mlt::cv::test_count(10, 10), mlt::DataError);  // nothing left to train on
  CHECK(mlt::cv::test_count(0.001, 10) == 1);  // rounds up to one row
  CHECK_THROWS_AS(mlt::cv::train_test_split(1, 0.5, 1), mlt::DataError);
  CHECK_THROWS_AS(mlt::cv::test_count(-0.5, 10), mlt::UsageError);
}

TEST_CASE("train_test_split, stratified: every class keeps its share to within one row") {
  std::vector<std::string> labels;
  for (int i = 0; i < 50; ++i) labels.push_back("a");
  for (int i = 0; i < 30; ++i) labels.push_back("b");
  for (int i = 0; i < 7; ++i) labels.push_back("c");
  const std::size_t n = labels.size();
  for (double test : {0.2, 0.33, 0.5, 11.0}) {
    CAPTURE(test);
    const mlt::cv::TrainTest s = mlt::cv::train_test_split(n, test, 7, labels);
    CHECK(partitions(s, n));
    CHECK(s.test.size() == mlt::cv::test_count(test, n));
    std::map<std::string, std::size_t> in_test, total;
    for (std::size_t i : s.test) ++in_test[labels[i]];
    for (const auto& l : labels) ++total[l];
    const double share = static_cast<double>(s.test.size()) / static_cast<double>(n);
    for (const auto& [label, count] : total)
      CHECK(std::abs(static_cast<double>(in_test[label]) - share * static_cast<double>(count)) <= 1.0);
  }
}

}  // namespace cv_train_test_split_test
