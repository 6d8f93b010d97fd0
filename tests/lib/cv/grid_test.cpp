// Grid syntax: what the fuzzer (tests/fuzz/grid_fuzz.cpp) found, each as a regression
// test; its reproducers are also in tests/fuzz/corpus/grid/, replayed by ctest.
// The syntax itself is tested in tests/lib/cv_test.cpp.
#include <doctest/doctest.h>

#include <string>

#include "mlt/core/error.hpp"
#include "mlt/cv/grid.hpp"

namespace cv_grid_test {

using namespace mlt;

TEST_CASE("grid syntax: a range of the largest size is read in n log n, repeats still found") {
  // The repeat check compared every pair: 5e9 comparisons for 1:100000, over ten
  // seconds under the fuzzer's instrumentation (its timeout). The sizes here pin the
  // behaviour; the corpus input "1:100000", replayed with a time limit, pins the speed.
  const cv::Axis ints = cv::parse_axis("-k", "k", cv::ValueKind::integer, "1:100000");
  REQUIRE(ints.values.size() == cv::kMaxGridPoints);
  CHECK(ints.values.back().number == 100000);
  const cv::Axis reals = cv::parse_axis("--lambda", "lambda", cv::ValueKind::real, "1e-300:1e300:100000");
  CHECK(reals.values.size() == cv::kMaxGridPoints);
  CHECK_THROWS_WITH_AS(cv::parse_axis("-k", "k", cv::ValueKind::integer, "1:100000,77777"), "-k: 77777 appears twice",
                       UsageError);
  CHECK_THROWS_WITH_AS(cv::parse_axis("--lambda", "lambda", cv::ValueKind::real, "0,-0"), "--lambda: -0 appears twice",
                       UsageError);
  CHECK_THROWS_WITH_AS(cv::parse_axis("--kernel", "kernel", cv::ValueKind::text, "rbf,poly,rbf"),
                       "--kernel: rbf appears twice", UsageError);
}

TEST_CASE("grid syntax: whole numbers past 2^53 are refused, the most negative one too") {
  // std::llabs(-2^63) overflows: undefined behaviour. The release build happened to
  // refuse the value (the compiler rewrote the bound check), but nothing promised it;
  // the bound is now a plain range check, and this pins the refusals at the edges.
  for (const char* bad : {"-9223372036854775808", "9223372036854775807", "9007199254740993", "-9007199254740993",
                          "1:-9223372036854775808", "-9223372036854775808:1"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(cv::parse_axis("-k", "k", cv::ValueKind::integer, bad), UsageError);
  }
  CHECK(cv::parse_axis("-k", "k", cv::ValueKind::integer, "-9007199254740992").values[0].number == -0x1p53);
  CHECK(cv::parse_axis("-k", "k", cv::ValueKind::integer, "9007199254740992").values[0].number == 0x1p53);
}

}  // namespace cv_grid_test
