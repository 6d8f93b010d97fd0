// The floor under a CSV reader: every cell of the file, already in memory, converted and
// summed by a bare loop (no file:line:column, no checks but a cell that does not
// convert), by fast_float::from_chars and by std::from_chars, on one thread and on two
// (the text split at a line end). Prints one JSON object: each loop's seconds and the
// sum of the cells, which the harness checks against the values it generated.
// Usage: bare_read FILE.csv
#include <fast_float/fast_float.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

template <bool Fast>
static double sum_range(const char* p, const char* e) {
  double s = 0, v = 0;
  while (p < e) {
    const char* q = Fast ? fast_float::from_chars(p, e, v).ptr : std::from_chars(p, e, v).ptr;
    if (q == p) {
      std::fprintf(stderr, "bare_read: a cell that does not convert\n");
      std::exit(1);
    }
    s += v;
    p = q + 1;  // the delimiter or the line end
  }
  return s;
}

template <bool Fast>
static double run(const std::string& text, unsigned threads, double& sum) {
  const char* b = text.data() + text.find('\n') + 1;  // after the header
  const char* e = text.data() + text.size();
  const char* mid =
      threads == 1 ? e : static_cast<const char*>(std::memchr(b + (e - b) / 2, '\n', e - b - (e - b) / 2)) + 1;
  double s1 = 0, s2 = 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::thread other;
  if (threads > 1) other = std::thread([&] { s2 = sum_range<Fast>(mid, e); });
  s1 = sum_range<Fast>(b, mid);
  if (other.joinable()) other.join();
  sum = s1 + s2;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  double sum = 0, ignored = 0;
  const double f1 = run<true>(text, 1, sum), f2 = run<true>(text, 2, ignored);
  const double s1 = run<false>(text, 1, ignored), s2 = run<false>(text, 2, ignored);
  const double mb = text.size() / 1e6;
  std::printf(
      "{\"fast_float_1t_s\": %.6f, \"fast_float_2t_s\": %.6f, \"from_chars_1t_s\": %.6f, \"from_chars_2t_s\": %.6f, "
      "\"fast_float_1t_mb_s\": %.1f, \"fast_float_2t_mb_s\": %.1f, \"from_chars_1t_mb_s\": %.1f, "
      "\"from_chars_2t_mb_s\": %.1f, \"sum\": %.17g}\n",
      f1, f2, s1, s2, mb / f1, mb / f2, mb / s1, mb / s2, sum);
}
