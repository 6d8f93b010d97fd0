// The CSV reader's structural scan: where the next delimiter or line end is, found
// 64 bytes at a time by vector compares (AVX-512BW, AVX2 or SSE2, whichever the build
// targets; a portable 64-bit SWAR loop elsewhere), as simdjson and simdcsv find
// structure before they look at values.
//
// Why it pays even though the reader then converts cell by cell: a converter that
// finds the end of a number by reading it makes the next cell's start wait on this
// cell's digits (a chain of ~30 cycles per cell). With the end known from the scan
// (a chain of a shift and a count of trailing zeros), the conversions of successive
// cells are independent, the processor overlaps them, and the converter's result is
// only checked against the end the scan found.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace mlt::io::detail {

// Bit i set when p[i] is `delim`, '\n' or '\r', for i in [0, 64). Reads p[0..64).
// Portable 64-bit SWAR, for processors without the vector compares below (and for
// the test that holds both to a plain loop): a byte of t = word ^ c is zero exactly
// where the byte is c, and the high bit of ((t & 0x7f..) + 0x7f..) | t is then clear
// there and only there (no carry crosses a byte: 0x7f + 0x7f < 0x100).
inline std::uint64_t separator_mask_swar(const char* p, char delim) {
  const auto equal_bytes = [](std::uint64_t word, unsigned char c) {
    const std::uint64_t t = word ^ (0x0101010101010101 * c);
    return ~(((t & 0x7f7f7f7f7f7f7f7f) + 0x7f7f7f7f7f7f7f7f) | t) & 0x8080808080808080;
  };
  std::uint64_t m = 0;
  for (int k = 0; k < 8; ++k) {
    std::uint64_t word;
    std::memcpy(&word, p + 8 * k, 8);
    const std::uint64_t hit = equal_bytes(word, static_cast<unsigned char>(delim)) | equal_bytes(word, '\n') |
                              equal_bytes(word, '\r');
    // The eight high bits gathered into one byte, byte i to bit i (the products of
    // distinct bits never collide, so the multiplication only moves them).
    m |= (((hit >> 7) * 0x0102040810204080) >> 56) << (8 * k);
  }
  return m;
}

// The same mask by the widest vector compares the build targets (x86-64 always has
// SSE2; -march=native on this project's machines gives AVX-512BW).
inline std::uint64_t separator_mask(const char* p, char delim) {
#if defined(__AVX512BW__)
  const __m512i v = _mm512_loadu_si512(p);
  return _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(delim)) | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\n')) |
         _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\r'));
#elif defined(__AVX2__)
  const __m256i d = _mm256_set1_epi8(delim), n = _mm256_set1_epi8('\n'), r = _mm256_set1_epi8('\r');
  std::uint64_t m = 0;
  for (int h = 0; h < 2; ++h) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * h));
    const __m256i hit = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, d), _mm256_cmpeq_epi8(v, n)),
                                        _mm256_cmpeq_epi8(v, r));
    m |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(hit))) << (32 * h);
  }
  return m;
#elif defined(__SSE2__)
  const __m128i d = _mm_set1_epi8(delim), n = _mm_set1_epi8('\n'), r = _mm_set1_epi8('\r');
  std::uint64_t m = 0;
  for (int q = 0; q < 4; ++q) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * q));
    const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, d), _mm_cmpeq_epi8(v, n)), _mm_cmpeq_epi8(v, r));
    m |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(hit))) << (16 * q);
  }
  return m;
#else
  return separator_mask_swar(p, delim);
#endif
}

// Bit i set when p[i] == c, for i in [0, 64). Reads p[0..64).
inline std::uint64_t byte_mask(const char* p, char c) {
#if defined(__AVX512BW__)
  return _mm512_cmpeq_epi8_mask(_mm512_loadu_si512(p), _mm512_set1_epi8(c));
#elif defined(__AVX2__)
  const __m256i k = _mm256_set1_epi8(c);
  const auto half = [&](int h) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * h));
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, k))));
  };
  return half(0) | half(1) << 32;
#elif defined(__SSE2__)
  const __m128i k = _mm_set1_epi8(c);
  std::uint64_t m = 0;
  for (int q = 0; q < 4; ++q) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * q));
    m |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, k)))) << (16 * q);
  }
  return m;
#else
  char copy[64];
  std::memcpy(copy, p, 64);
  std::uint64_t m = 0;
  for (int i = 0; i < 64; ++i) m |= static_cast<std::uint64_t>(copy[i] == c) << i;
  return m;
#endif
}

// The line feeds in [b, e): a vector compare and a population count per 64 bytes
// (std::count compiles to a byte loop here, 7 % of a whole read's samples).
inline std::uint64_t count_line_feeds(const char* b, const char* e) {
  std::uint64_t n = 0;
  for (; e - b >= 64; b += 64) n += static_cast<std::uint64_t>(__builtin_popcountll(byte_mask(b, '\n')));
  for (; b < e; ++b) n += *b == '\n';
  return n;
}

// What decides whether records can be placed before they are parsed: the line feeds
// (one per record when nothing else ends a line), and the quotes and carriage
// returns that could make that count wrong.
struct LineCounts {
  std::uint64_t lf = 0;      // '\n'
  std::uint64_t cr = 0;      // '\r'
  std::uint64_t crlf = 0;    // '\r' followed by '\n' (within the bytes counted)
  std::uint64_t quotes = 0;  // '"'
  bool started = false;      // a byte was counted
  bool first_lf = false;     // the first byte counted is '\n'
  bool last_cr = false;      // the last byte counted is '\r'
  bool last_lf = false;      // the last byte counted is '\n'
};

// Adds the counts of [p, p + n) to `c`, the bytes following those counted before
// (a CR ending the previous call and an LF starting this one make a pair).
inline void count_lines(const char* p, std::size_t n, LineCounts& c) {
  if (n == 0) return;
  if (!c.started) c.first_lf = *p == '\n';
  c.started = true;
  c.last_lf = p[n - 1] == '\n';
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const std::uint64_t lf = byte_mask(p + i, '\n'), cr = byte_mask(p + i, '\r');
    c.lf += static_cast<std::uint64_t>(__builtin_popcountll(lf));
    c.cr += static_cast<std::uint64_t>(__builtin_popcountll(cr));
    c.crlf += static_cast<std::uint64_t>(__builtin_popcountll(cr & (lf >> 1))) + (c.last_cr && (lf & 1));
    c.quotes += static_cast<std::uint64_t>(__builtin_popcountll(byte_mask(p + i, '"')));
    c.last_cr = cr >> 63;
  }
  for (; i < n; ++i) {
    c.lf += p[i] == '\n';
    c.cr += p[i] == '\r';
    c.crlf += c.last_cr && p[i] == '\n';
    c.quotes += p[i] == '"';
    c.last_cr = p[i] == '\r';
  }
}

// Finds, for positions that only move forward, the first delimiter or line end at or
// after each: 64 bytes are scanned at once and their mask is kept until the position
// leaves them. Reads no byte at or past e.
class SeparatorScan {
 public:
  SeparatorScan(const char* e, char delim) : e_(e), delim_(delim) {}

  // The first byte in [p, e) that is the delimiter, '\n' or '\r', or e if none.
  const char* next(const char* p) {
    for (;;) {
      // Huge when p is before base_ (or base_ is not set yet): then a new scan.
      const std::uint64_t offset = reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(base_);
      if (offset < 64) {
        const std::uint64_t m = mask_ & (~std::uint64_t{0} << offset);
        if (m) return base_ + __builtin_ctzll(m);
        p = base_ + 64;
      }
      if (e_ - p < 64) {
        while (p < e_ && *p != delim_ && *p != '\n' && *p != '\r') ++p;
        return p;
      }
      base_ = p;
      mask_ = separator_mask(p, delim_);
    }
  }

 private:
  const char* e_;
  char delim_;
  const char* base_ = nullptr;
  std::uint64_t mask_ = 0;
};

}  // namespace mlt::io::detail
