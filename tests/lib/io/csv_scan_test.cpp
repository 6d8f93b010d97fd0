// The reader's structural scan (csv_scan.hpp) against a plain byte loop: the mask of
// the vector compares the build uses and the portable SWAR one, and SeparatorScan::next
// from every position of random text, near the end of the buffer included.
#include "mlt/io/csv_scan.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>

namespace io_csv_scan_test {

namespace {

bool is_separator(char c, char delim) { return c == delim || c == '\n' || c == '\r'; }

}  // namespace

TEST_CASE("separator masks agree with a byte loop") {
  // Bytes near every separator and the ones a carry or a signed compare could confuse
  // (0x7f, 0x80, 0xff, NUL).
  static const char bytes[] = "0123.-e,;\t\n\r\"x \x7f\x80\xff";
  const std::string alphabet = std::string(bytes, sizeof bytes);  // the NUL too
  std::mt19937_64 rng(14);
  char buf[64];
  for (int it = 0; it < 200000; ++it) {
    for (char& c : buf) c = alphabet[rng() % alphabet.size()];
    const char delim = ",;\t"[rng() % 3];
    std::uint64_t want = 0;
    for (int i = 0; i < 64; ++i) want |= static_cast<std::uint64_t>(is_separator(buf[i], delim)) << i;
    const std::uint64_t vector = mlt::io::detail::separator_mask(buf, delim);
    const std::uint64_t swar = mlt::io::detail::separator_mask_swar(buf, delim);
    if (vector != want || swar != want) {
      CAPTURE(it);
      CHECK(vector == want);
      CHECK(swar == want);
      break;
    }
  }
}

TEST_CASE("the scan finds the next separator from any forward position") {
  std::mt19937_64 rng(7);
  for (int it = 0; it < 300; ++it) {
    // Lengths around the 64-byte scan width, separators dense or sparse.
    const std::size_t n = rng() % 300;
    const unsigned density = 2 + static_cast<unsigned>(rng() % 40);
    std::string s(n, 'x');
    for (char& c : s)
      if (rng() % density == 0) c = ",\n\r"[rng() % 3];
    const char* b = s.data();
    const char* e = b + n;
    mlt::io::detail::SeparatorScan scan(e, ',');
    const char* p = b;
    while (p <= e) {
      const char* want = p;
      while (want < e && !is_separator(*want, ',')) ++want;
      const char* got = scan.next(p);
      if (got != want) {
        CAPTURE(s);
        CAPTURE(p - b);
        CHECK(got - b == want - b);
        break;
      }
      p += 1 + rng() % 20;
    }
  }
}

TEST_CASE("line feeds counted 64 bytes at a time agree with a byte loop") {
  // Every start and end offset around the 64-byte step, line feeds dense or sparse.
  std::mt19937_64 rng(24);
  for (int it = 0; it < 2000; ++it) {
    const std::size_t n = rng() % 400;
    const unsigned density = 1 + static_cast<unsigned>(rng() % 70);
    std::string s(n, 'x');
    for (char& c : s)
      if (rng() % density == 0) c = "\n\r,"[rng() % 3];
    const std::size_t b = n ? rng() % n : 0, e = b + (n > b ? rng() % (n - b + 1) : 0);
    std::uint64_t want = 0;
    for (std::size_t i = b; i < e; ++i) want += s[i] == '\n';
    if (mlt::io::detail::count_line_feeds(s.data() + b, s.data() + e) != want) {
      CAPTURE(s);
      CAPTURE(b);
      CAPTURE(e);
      CHECK(mlt::io::detail::count_line_feeds(s.data() + b, s.data() + e) == want);
      break;
    }
  }
}

}  // namespace io_csv_scan_test
