// The CSV reader's fast number conversion: a short decimal converted in one pass
// over its bytes, straight from the input buffer (no copy, no allocation).
//
// Correctly rounded by construction, not by approximation: it takes only numbers
// whose significand w has at most 19 digits with w <= 2^53 and whose decimal
// exponent q satisfies |q| <= 22. Then w and 10^|q| are both exact doubles, and one
// IEEE multiplication or division (round to nearest) gives the correctly rounded
// w * 10^q, the same bits as strtod and std::from_chars (Clinger, "How to read
// floating point numbers accurately", PLDI 1990, the "fast path"). Every other
// spelling (more digits, larger exponents, inf, nan, '+', hexadecimal, blanks) is
// left to the general converter, which decides as before. Cells written with %.6g
// to %.15g fall in the fast case, so it carries nearly all real data.
#pragma once

#include <cstdint>

namespace mlt::io::detail {

inline constexpr double kExactPowersOfTen[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

inline bool is_digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

// Converts the decimal number that starts at p (grammar: -? digits [. digits]
// [(e|E) [+|-] digits], at least one digit in the significand) when it is of the
// fast kind above. Returns the end of the number, or nullptr when the general
// converter must decide (then `value` is unspecified). Reads no byte at or past e.
inline const char* parse_short_decimal(const char* p, const char* e, double& value) {
  bool negative = false;
  if (p < e && *p == '-') {
    negative = true;
    ++p;
  }
  std::uint64_t w = 0;
  int significant = 0;  // digits in w, leading zeros not counted
  int exponent = 0;
  bool any_digit = false;
  const char* q = p;
  while (q < e && *q == '0') ++q;  // leading zeros add nothing to w
  any_digit = q != p;
  p = q;
  while (p < e && is_digit(*p)) w = w * 10 + static_cast<unsigned>(*p++ - '0');
  significant = static_cast<int>(p - q);
  any_digit = any_digit || significant > 0;
  if (p < e && *p == '.') {
    const char* f = ++p;
    if (w == 0)
      while (p < e && *p == '0') ++p;  // 0.000123: zeros only shift the exponent
    const char* s = p;
    while (p < e && is_digit(*p)) w = w * 10 + static_cast<unsigned>(*p++ - '0');
    significant += static_cast<int>(p - s);
    exponent = -static_cast<int>(p - f);
    any_digit = any_digit || p != f;
  }
  // More than 19 digits may have wrapped w (harmless: the result is not used).
  if (!any_digit || significant > 19) return nullptr;
  if (p < e && (*p == 'e' || *p == 'E')) {
    ++p;
    bool negative_exponent = false;
    if (p < e && (*p == '-' || *p == '+')) negative_exponent = *p++ == '-';
    const char* d = p;
    int x = 0;
    while (p < e && is_digit(*p) && p - d < 5) x = x * 10 + (*p++ - '0');
    // "1e" or "1e+" is not a number; an exponent of 5 digits or more is rare: let
    // the general converter take both.
    if (p == d || (p < e && is_digit(*p))) return nullptr;
    exponent += negative_exponent ? -x : x;
  }
  if (w == 0) {
    value = negative ? -0.0 : 0.0;
    return p;
  }
  if (w > (std::uint64_t{1} << 53) || exponent < -22 || exponent > 22) return nullptr;
  const double m = static_cast<double>(w);
  const double v = exponent < 0 ? m / kExactPowersOfTen[-exponent] : m * kExactPowersOfTen[exponent];
  value = negative ? -v : v;
  return p;
}

}  // namespace mlt::io::detail
