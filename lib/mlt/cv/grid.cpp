// Grid syntax (see grid.hpp). Log ranges follow numpy.logspace: the exponents are
// evenly spaced, value i = 10^(a + i (b - a) / (n - 1)) with a = log10(lo),
// b = log10(hi); the two ends are set to lo and hi exactly, so 1e-4:1e2:13 starts at
// the double nearest 1e-4, not at 10^log10(1e-4).
#include "mlt/cv/grid.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>

#include "mlt/core/error.hpp"
#include "mlt/io/number_format.hpp"

namespace mlt::cv {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

bool parse_real(const std::string& s, double& v) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  return ec == std::errc() && ptr == end && std::isfinite(v);
}

bool parse_integer(const std::string& s, long long& v) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  // Beyond 2^53 a double cannot hold every integer; no hyperparameter needs that.
  // (Compared as a range: std::llabs of the most negative value overflows.)
  constexpr long long kMax = 1LL << 53;
  return ec == std::errc() && ptr == end && v >= -kMax && v <= kMax;
}

Value real_value(double v) {
  Value out;
  io::append_number(out.text, v);
  out.number = v;
  return out;
}

[[noreturn]] void fail(const std::string& flag, const std::string& why) { throw UsageError(flag + ": " + why); }

Value integer_value(long long v) { return {std::to_string(v), static_cast<double>(v)}; }

}  // namespace

Axis parse_axis(const std::string& flag, const std::string& name, ValueKind kind, const std::string& text,
                const ValueCheck& check) {
  Axis axis;
  axis.name = name;
  axis.kind = kind;
  if (text.empty()) fail(flag, "empty value");
  for (const std::string& item : split(text, ',')) {
    if (item.empty()) fail(flag, "empty item in \"" + text + "\"");
    const std::vector<std::string> parts = split(item, ':');
    if (kind == ValueKind::text) {
      axis.values.push_back({item, 0});
    } else if (parts.size() == 1) {
      if (kind == ValueKind::real) {
        double v;
        if (!parse_real(item, v)) fail(flag, "expected a number, got \"" + item + "\"");
        axis.values.push_back(real_value(v));
      } else {
        long long v;
        if (!parse_integer(item, v)) fail(flag, "expected a whole number, got \"" + item + "\"");
        axis.values.push_back(integer_value(v));
      }
    } else if (kind == ValueKind::real) {
      // lo:hi:n, log-spaced.
      double lo, hi;
      long long n;
      if (parts.size() != 3) fail(flag, "a range of real values is LO:HI:N (N log-spaced values), got \"" + item + "\"");
      if (!parse_real(parts[0], lo) || !parse_real(parts[1], hi))
        fail(flag, "range \"" + item + "\": expected numbers LO:HI:N");
      if (!parse_integer(parts[2], n) || n < 2)
        fail(flag, "range \"" + item + "\": the number of values N must be a whole number >= 2");
      if (!(lo > 0) || !(hi > 0)) fail(flag, "log range \"" + item + "\" needs ends > 0 (list 0 separately: 0," + item + ")");
      if (lo == hi) fail(flag, "log range \"" + item + "\" has equal ends");
      if (static_cast<std::size_t>(n) > kMaxGridPoints) fail(flag, "range \"" + item + "\" has too many values");
      const double a = std::log10(lo), b = std::log10(hi), step = (b - a) / static_cast<double>(n - 1);
      for (long long i = 0; i < n; ++i) {
        const double v = i == 0 ? lo : i == n - 1 ? hi : std::pow(10.0, a + static_cast<double>(i) * step);
        axis.values.push_back(real_value(v));
      }
    } else {
      // first:last[:step], integers, last included when reached.
      long long first, last, step = 1;
      if (parts.size() > 3) fail(flag, "an integer range is FIRST:LAST[:STEP], got \"" + item + "\"");
      if (!parse_integer(parts[0], first) || !parse_integer(parts[1], last) ||
          (parts.size() == 3 && !parse_integer(parts[2], step)))
        fail(flag, "range \"" + item + "\": expected whole numbers FIRST:LAST[:STEP]");
      if (step < 1) fail(flag, "range \"" + item + "\": STEP must be >= 1");
      if (last < first) fail(flag, "range \"" + item + "\" is empty (LAST < FIRST)");
      if (static_cast<unsigned long long>((last - first) / step) + 1 > kMaxGridPoints)
        fail(flag, "range \"" + item + "\" has too many values");
      for (long long v = first; v <= last; v += step) axis.values.push_back(integer_value(v));
    }
  }
  // Ordered sets, not a pairwise scan: a range may hold kMaxGridPoints values, and
  // n^2 / 2 comparisons of 1:100000 took minutes. Numbers compare as numbers (0 and
  // -0 are one value), so the set orders them with <.
  std::set<double> numbers;
  std::set<std::string> texts;
  for (const Value& v : axis.values) {
    const bool repeated = kind == ValueKind::text ? !texts.insert(v.text).second : !numbers.insert(v.number).second;
    if (repeated) fail(flag, v.text + " appears twice");
    if (check) {
      const std::string why = check(v);
      if (!why.empty()) fail(flag, why);
    }
  }
  return axis;
}

Grid::Grid(std::vector<Axis> axes) : axes_(std::move(axes)) {
  size_ = 1;
  for (const Axis& a : axes_) {
    if (a.values.empty()) throw UsageError("grid: no values for " + a.name);
    if (size_ > kMaxGridPoints / a.values.size())
      throw UsageError("the grid has more than " + std::to_string(kMaxGridPoints) + " points");
    size_ *= a.values.size();
  }
}

Grid::Grid(std::vector<Axis> axes, const InUse& in_use) : Grid(std::move(axes)) {
  std::vector<bool> ever(axes_.size(), false);
  bool all = true;
  std::vector<std::size_t> kept;
  std::vector<std::vector<bool>> uses;
  for (std::size_t full = 0; full < size_; ++full) {
    const std::vector<Value> p = full_point(full);
    std::vector<bool> use = in_use(p);
    bool keep = true;
    for (std::size_t a = 0, rest = full; a < axes_.size(); ++a) {
      // The axis's value index at this point (the last axis varies fastest).
      std::size_t stride = 1;
      for (std::size_t b = a + 1; b < axes_.size(); ++b) stride *= axes_[b].values.size();
      const std::size_t at = rest / stride;
      rest %= stride;
      if (!use[a] && at != 0) keep = false;
    }
    if (!keep) continue;
    for (std::size_t a = 0; a < axes_.size(); ++a) {
      ever[a] = ever[a] || use[a];
      all = all && use[a];
    }
    kept.push_back(full);
    uses.push_back(std::move(use));
  }
  for (std::size_t a = 0; a < axes_.size(); ++a)
    if (!ever[a]) throw UsageError("`" + axes_[a].name + "` is used by none of the grid's candidates");
  if (!all) {
    kept_ = std::move(kept);
    in_use_ = std::move(uses);
  }
}

std::vector<Value> Grid::full_point(std::size_t i) const {
  std::vector<Value> out(axes_.size());
  for (std::size_t a = axes_.size(); a-- > 0;) {
    const std::size_t m = axes_[a].values.size();
    out[a] = axes_[a].values[i % m];
    i /= m;
  }
  return out;
}

std::vector<Value> Grid::point(std::size_t i) const { return full_point(full_index(i)); }

std::size_t Grid::with_axis_at_first(std::size_t i, std::size_t axis) const {
  // Point i is indexed like nested loops, the last axis fastest: the stride of `axis`
  // is the product of the sizes after it.
  std::size_t stride = 1;
  for (std::size_t a = axes_.size(); a-- > axis + 1;) stride *= axes_[a].values.size();
  const std::size_t full = full_index(i);
  const std::size_t first = full - (full / stride % axes_.at(axis).values.size()) * stride;
  if (kept_.empty()) return first;
  const auto it = std::lower_bound(kept_.begin(), kept_.end(), first);
  return it != kept_.end() && *it == first ? static_cast<std::size_t>(it - kept_.begin()) : i;
}

std::string Grid::describe(std::size_t i) const {
  const std::vector<Value> p = point(i);
  std::string s;
  for (std::size_t a = 0; a < p.size(); ++a)
    if (in_use(i, a)) s += (s.empty() ? "" : ", ") + axes_[a].name + "=" + p[a].text;
  return s.empty() ? "defaults" : s;
}

}  // namespace mlt::cv
