#include "mlt/core/parallel.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <thread>

extern "C" {
char* openblas_get_config(void);
char* openblas_get_corename(void);
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
}

namespace mlt {
namespace {
unsigned thread_count_ = 0;
thread_local unsigned thread_share_ = 0;  // 0: no ThreadShare in this thread
}

// The CPUs this process may run on: its affinity mask, which taskset, a cgroup's
// cpuset and mpirun's binding of each rank to its cores all set (hardware_concurrency
// counts every CPU of the machine, so two ranks bound to a core each would run two
// threads apiece on it). Read once: the mask is read by a system call, and
// thread_count() is called by every parallel_for (several per kernel column of SMO):
// the default --threads spent 3.5 s of system time in hardware_concurrency() on a 5 s
// kernel SVM fit.
namespace {
unsigned hardware_threads() {
  static const unsigned n = [] {
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) == 0 && CPU_COUNT(&mask) > 0)
      return static_cast<unsigned>(CPU_COUNT(&mask));
    return std::max(1u, std::thread::hardware_concurrency());
  }();
  return n;
}
}  // namespace

void set_thread_count(unsigned n) {
  thread_count_ = n;
  // OpenBLAS never runs on more threads than CPUs: more gain nothing, and each of its
  // threads reserves a work buffer at start; under a memory limit (ulimit -v) those
  // that cannot get one retry forever, and --threads 8 on two CPUs never exited.
  openblas_set_num_threads(static_cast<int>(std::min(thread_count(), hardware_threads())));
}

unsigned thread_count() {
  if (thread_share_) return thread_share_;
  return thread_count_ ? thread_count_ : hardware_threads();
}

ThreadShare::ThreadShare(unsigned n) : previous_(thread_share_) { thread_share_ = n ? n : 1; }
ThreadShare::~ThreadShare() { thread_share_ = previous_; }

unsigned blas_threads() { return static_cast<unsigned>(std::max(1, openblas_get_num_threads())); }
void set_blas_threads(unsigned n) { openblas_set_num_threads(static_cast<int>(std::clamp(n, 1u, hardware_threads()))); }

std::string blas_description() {
  return std::string(openblas_get_config()) + "; kernel " + openblas_get_corename() + ", " +
         std::to_string(openblas_get_num_threads()) + " threads";
}

std::string better_blas_core() {
  if (std::getenv("OPENBLAS_CORETYPE")) return "";  // the user's choice stands
  const std::string_view core = openblas_get_corename();
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  // Cores OpenBLAS uses when it does not recognise a processor (it falls back to the
  // oldest kernel of the family); a known modern core is left alone.
  static constexpr std::string_view generic[] = {"Prescott", "Core2",  "Penryn", "Dunnington",
                                                 "Nehalem",  "Atom",   "Katmai", "Coppermine",
                                                 "Northwood", "Banias", "Sandybridge"};
  bool is_generic = false;
  for (auto g : generic) is_generic = is_generic || core == g;
  if (core == "Haswell" && avx512) return "SkylakeX";
  if (!is_generic) return "";
  if (avx512) return "SkylakeX";
  if (avx2) return "Haswell";
  return "";
}

void rerun_on_better_blas_kernel(char** argv) {
  if (std::getenv("MLT_BLAS_REEXEC")) return;
  const std::string core = better_blas_core();
  if (core.empty()) return;
  setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  setenv("MLT_BLAS_REEXEC", "1", 1);
  execv("/proc/self/exe", argv);
  unsetenv("OPENBLAS_CORETYPE");  // exec failed: stay as we are
  unsetenv("MLT_BLAS_REEXEC");
}

}  // namespace mlt
