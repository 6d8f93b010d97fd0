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

#include "mlt/core/params.hpp"

namespace mlt::cv {

enum class ValueKind { real, integer, text };

// One grid value: its text as shown in reports (the shortest round-trip form of a
// number) and its number (real and integer axes).
using Value = mlt::ParamValue;

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
  // Whether each axis matters at a point (one flag per axis, in axis order): a kernel's
  // degree does not when the point's kernel is rbf.
  using InUse = std::function<std::vector<bool>(const std::vector<Value>& point)>;

  Grid() = default;
  explicit Grid(std::vector<Axis> axes);
  // The product without the points that only repeat a candidate: a point where an axis
  // is not in use is kept only with that axis at its first value (so "kernel=rbf,poly
  // degree=2,3" gives rbf, poly/2, poly/3). Throws UsageError naming an axis that is in
  // use at no point.
  Grid(std::vector<Axis> axes, const InUse& in_use);

  const std::vector<Axis>& axes() const { return axes_; }
  std::size_t size() const { return kept_.empty() ? size_ : kept_.size(); }
  // One value per axis, in axis order.
  std::vector<Value> point(std::size_t i) const;
  // Whether axis `axis` matters at point i (reports leave its cell empty when not).
  bool in_use(std::size_t i, std::size_t axis) const { return in_use_.empty() || in_use_[i][axis]; }
  // The point equal to point i but for axis `axis` at its first value: the key that
  // groups the points differing only along that axis. Point i itself when that point
  // was left out.
  std::size_t with_axis_at_first(std::size_t i, std::size_t axis) const;
  // "lambda=0.1, kernel=rbf" (axes not in use left out)
  std::string describe(std::size_t i) const;

 private:
  std::size_t full_index(std::size_t i) const { return kept_.empty() ? i : kept_[i]; }
  std::vector<Value> full_point(std::size_t full) const;

  std::vector<Axis> axes_;
  std::size_t size_ = 1;               // the product's size
  std::vector<std::size_t> kept_;      // the product's indices kept, ascending (empty: all)
  std::vector<std::vector<bool>> in_use_;  // per kept point, per axis (empty: all in use)
};

// Grids larger than this are refused (a typo like 1:1000000:1 would otherwise run
// for days before anyone notices).
inline constexpr std::size_t kMaxGridPoints = 100000;

}  // namespace mlt::cv
