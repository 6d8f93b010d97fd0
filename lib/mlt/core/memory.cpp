#include "mlt/core/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

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
