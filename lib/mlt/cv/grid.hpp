// Hyperparameter grids: the values a flag takes in a sweep, and their product.
//
// Syntax of one flag's value (items separated by commas, each item one of):
//   real flags     0.1              one number
//                  1e-4:1e2:13      13 log-spaced values from 1e-4 to 1e2, ends exact
//   integer flags  5                one whole number
//                  1:31:2           1, 3, ..., 31 (the end is included when reached)
//                  1:10             step 1
//   text flags     rbf              one word (no spaces, no ':')
// so "--lambda 0,1e-3:1e1:5" is 0, 0.001, 0.01, 0.1, 1, 10. A value may not repeat.
// Errors are UsageError naming the flag and the offending item.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace mlt::cv {

enum class ValueKind { real, integer, text };

struct Value {
  std::string text;   // as shown in reports: the shortest round-trip form of a number
  double number = 0;  // the value of a real or integer axis (integers are exact up to 2^53)
};

struct Axis {
  std::string name;   // the parameter's name in reports ("lambda")
  ValueKind kind = ValueKind::real;
  std::vector<Value> values;  // at least one
};

// Checks one value; returns "" when acceptable, else the reason ("must be >= 0").
using ValueCheck = std::function<std::string(const Value&)>;

// Parses one flag's text into an axis. `flag` names it in errors ("--lambda").
// Throws UsageError: "--lambda: log range 0:1:5 needs ends > 0", "--k: 2.5 is not a
// whole number", "--lambda: empty item in \"0.1,,1\"", "--lambda: 0.1 appears twice",
// and `check`'s reason for a value it rejects.
Axis parse_axis(const std::string& flag, const std::string& name, ValueKind kind, const std::string& text,
                const ValueCheck& check = {});

// The product of the axes. Point i is indexed like nested loops with the last axis
// varying fastest; an empty grid has exactly one point (the defaults).
class Grid {
 public:
  Grid() = default;
  explicit Grid(std::vector<Axis> axes);

  const std::vector<Axis>& axes() const { return axes_; }
  std::size_t size() const { return size_; }
  // One value per axis, in axis order.
  std::vector<Value> point(std::size_t i) const;
  // "lambda=0.1, kernel=rbf"
  std::string describe(std::size_t i) const;

 private:
  std::vector<Axis> axes_;
  std::size_t size_ = 1;
};

// Grids larger than this are refused (a typo like 1:1000000:1 would otherwise run
// for days before anyone notices).
inline constexpr std::size_t kMaxGridPoints = 100000;

}  // namespace mlt::cv
