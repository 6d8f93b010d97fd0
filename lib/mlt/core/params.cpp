#include "mlt/core/params.hpp"

#include <charconv>
#include <cstdlib>

#include "mlt/io/number_format.hpp"

namespace mlt {

std::string describe_bounds(const Bounds& b, bool integer) {
  const std::string what = integer ? "a whole number" : "a finite number";
  const auto num = [](double v) {
    std::string s;
    io::append_number(s, v);
    return s;
  };
  const bool has_lo = std::isfinite(b.lo), has_hi = std::isfinite(b.hi);
  if (has_lo && has_hi)
    return (integer ? "a whole number" : "a number") + std::string(" in ") + (b.lo_open ? "(" : "[") + num(b.lo) +
           ", " + num(b.hi) + (b.hi_open ? ")" : "]");
  if (has_lo) return what + (b.lo_open ? " > " : " >= ") + num(b.lo);
  if (has_hi) return what + (b.hi_open ? " < " : " <= ") + num(b.hi);
  return what;
}

bool parse_real(const std::string& text, double& out) {
  // from_chars, not strtod: decimal only (strtod reads "0x10" as 16 and "infinity"),
  // no leading blanks or '+', and the same in every locale.
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, out, std::chars_format::general);
  return error == std::errc() && ptr == end && std::isfinite(out);
}

bool parse_whole(const std::string& text, double& out) {
  // At most 15 digits: every such number is exact in a double.
  if (text.empty() || text.size() > 15 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  out = std::strtod(text.c_str(), nullptr);
  return true;
}

bool parse_seed(const std::string& text, std::uint64_t& out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace mlt
