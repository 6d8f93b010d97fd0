// Bytes as lowercase hex digits, two per byte in order: how digests are printed
// (sha256sum, xxhsum) and stored in model files.
#pragma once

#include <cstddef>
#include <string>

namespace mlt::io {

inline std::string lowercase_hex(const unsigned char* bytes, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (std::size_t i = 0; i < n; ++i) {
    s[2 * i] = kDigits[bytes[i] >> 4];
    s[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return s;
}

}  // namespace mlt::io
