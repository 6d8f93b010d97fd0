// The chunked reader itself lives in csv.cpp, beside the parser it reuses; this file
// has what only streaming needs.
#include "mlt/io/csv_chunks.hpp"

#include <cctype>
#include <charconv>
#include <cmath>

#include "mlt/core/error.hpp"

namespace mlt::io {

std::uint64_t parse_memory_size(const std::string& text, const std::string& what) {
  const auto bad = [&] {
    return UsageError(what + ": expected a size such as 512M, 2G or 1.5GiB (K, M, G, T: powers of 1024), not \"" +
                      text + "\"");
  };
  double value = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  auto [ptr, ec] = std::from_chars(b, e, value, std::chars_format::fixed);
  if (ec != std::errc() || ptr == b || !(value > 0) || !std::isfinite(value)) throw bad();
  std::string unit(ptr, e);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double scale = 1;
  if (!unit.empty() && (unit[0] == 'K' || unit[0] == 'M' || unit[0] == 'G' || unit[0] == 'T')) {
    scale = unit[0] == 'K' ? 0x1p10 : unit[0] == 'M' ? 0x1p20 : unit[0] == 'G' ? 0x1p30 : 0x1p40;
    unit.erase(0, 1);
    if (unit == "IB" || unit == "B") unit.clear();
  } else if (unit == "B") {
    unit.clear();
  }
  if (!unit.empty()) throw bad();
  const double bytes = value * scale;
  if (bytes < 1 || bytes >= 0x1p63) throw bad();
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace mlt::io
