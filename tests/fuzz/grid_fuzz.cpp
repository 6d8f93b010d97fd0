// libFuzzer target for the cv grid syntax (cv::parse_axis and cv::Grid, the text of
// `mlt <algo> cv --lambda 0,1e-3:1e1:5 -k 1:31:2 --kernel rbf,poly`). The input is up
// to three lines, one flag each: its first byte picks the axis kind (real, integer,
// text), the rest is the flag's text. Every input must end in a grid that keeps the
// header's promises (values finite, whole where integer, none repeated, at most
// kMaxGridPoints points, each point's report text reading back as its number) or in
// a UsageError, never another exception, a crash, a sanitizer report or a hang (a
// range of 100,000 values must not take quadratic time).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/params.hpp"
#include "mlt/cv/grid.hpp"

namespace {

using mlt::cv::ValueKind;

void require(bool ok) {
  if (!ok) std::abort();
}

void check_axis(const mlt::cv::Axis& axis) {
  require(!axis.values.empty());
  for (std::size_t i = 0; i < axis.values.size(); ++i) {
    const mlt::cv::Value& v = axis.values[i];
    if (axis.kind == ValueKind::text) {
      require(!v.text.empty() && v.text.find(',') == std::string::npos);
      continue;
    }
    require(std::isfinite(v.number));
    // Reports and model headers show the text: it must read back as the number.
    double back = 0;
    require(mlt::parse_real(v.text, back) && back == v.number);
    if (axis.kind == ValueKind::integer) require(v.number == std::trunc(v.number) && std::fabs(v.number) <= 0x1p53);
  }
  // No value twice.
  std::vector<std::string> texts;
  std::vector<double> numbers;
  for (const auto& v : axis.values) {
    texts.push_back(v.text);
    numbers.push_back(v.number);
  }
  std::sort(texts.begin(), texts.end());
  std::sort(numbers.begin(), numbers.end());
  if (axis.kind == ValueKind::text) require(std::adjacent_find(texts.begin(), texts.end()) == texts.end());
  else require(std::adjacent_find(numbers.begin(), numbers.end()) == numbers.end());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> lines;
  for (std::size_t start = 0; start <= input.size() && lines.size() < 3;) {
    const std::size_t end = input.find('\n', start);
    lines.push_back(input.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  std::vector<mlt::cv::Axis> axes;
  try {
    for (std::size_t a = 0; a < lines.size(); ++a) {
      if (lines[a].empty()) continue;
      const ValueKind kind = static_cast<ValueKind>(static_cast<unsigned char>(lines[a][0]) % 3);
      // As cv's flags check each value against the parameter's bounds.
      const mlt::cv::ValueCheck check = [kind](const mlt::cv::Value& v) -> std::string {
        if (kind != ValueKind::text && v.number < 0) return "must be >= 0, got " + v.text;
        return "";
      };
      std::string name = "p";  // (not "p" + to_string: GCC 12 warns falsely, PR 105329)
      name += std::to_string(a);
      axes.push_back(mlt::cv::parse_axis("--" + name, name, kind, lines[a].substr(1),
                                         a == 0 ? mlt::cv::ValueCheck() : check));
      check_axis(axes.back());
      for (const auto& v : axes.back().values) require(a == 0 || axes.back().kind == ValueKind::text || v.number >= 0);
    }
    // As a kernel's degree, the later axes matter only at some values of the first.
    const mlt::cv::Grid::InUse in_use = [n = axes.size()](const std::vector<mlt::cv::Value>& point) {
      std::vector<bool> use(n, true);
      for (std::size_t a = 1; a < n; ++a) use[a] = point[0].text.size() % 2 == a % 2;
      return use;
    };
    const mlt::cv::Grid full(axes);
    require(full.size() >= 1 && full.size() <= mlt::cv::kMaxGridPoints);
    const mlt::cv::Grid grid = axes.empty() ? mlt::cv::Grid() : mlt::cv::Grid(axes, in_use);
    require(grid.size() >= 1 && grid.size() <= full.size());
    const std::size_t shown = grid.size() < 2000 ? grid.size() : 2000;
    for (std::size_t i = 0; i < shown; ++i) {
      require(grid.point(i).size() == axes.size());
      require(!grid.describe(i).empty());
      for (std::size_t a = 0; a < axes.size(); ++a) require(grid.with_axis_at_first(i, a) < grid.size());
    }
  } catch (const mlt::UsageError&) {
    // A refusal, with its message: what a bad flag value must end in.
  }
  return 0;
}
