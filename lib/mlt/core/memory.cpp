#include "mlt/core/memory.hpp"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>

#include "mlt/core/parallel.hpp"

namespace mlt {

double available_memory() {
  double have = 0;
  {
    std::ifstream in("/proc/meminfo");
    std::string key, unit;
    double kib = 0;
    while (in >> key >> kib >> unit)
      if (key == "MemAvailable:") {
        have = kib * 1024.0;
        break;
      }
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    // /proc/self/statm's first field: the address space in use, in pages.
    std::ifstream statm("/proc/self/statm");
    double pages = 0;
    statm >> pages;
    const double left = static_cast<double>(limit.rlim_cur) - pages * static_cast<double>(sysconf(_SC_PAGESIZE));
    have = have > 0 ? std::min(have, std::max(left, 1.0)) : std::max(left, 1.0);
  }
  return have;
}

void populate_for_writing(void* p, std::size_t bytes, unsigned n_threads) {
  const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  // Whole pages only: the advice takes page-aligned ranges, and a page the range
  // shares with its neighbours faults in as before.
  const std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~(page - 1);
  const std::uintptr_t e = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(page - 1);
  if (e <= b) return;
  const unsigned parts = std::max(1u, n_threads);
  parallel_for(
      parts,
      [&](std::size_t t) {
        const std::uintptr_t from = b + ((e - b) / page * t / parts) * page;
        const std::uintptr_t to = b + ((e - b) / page * (t + 1) / parts) * page;
#ifdef MADV_POPULATE_WRITE
        if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
#endif
      },
      parts);
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (b >= 1024 && u < 6) {
    b /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", b, units[u]);
  return buf;
}

}  // namespace mlt
