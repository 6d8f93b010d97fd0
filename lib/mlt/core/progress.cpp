#include "mlt/core/progress.hpp"

#include <atomic>
#include <mutex>

namespace mlt {
namespace {
std::mutex progress_mutex;
ProgressFunction progress_function;
std::atomic<bool> wanted{false};
}  // namespace

void set_progress_function(ProgressFunction f) {
  std::lock_guard<std::mutex> lock(progress_mutex);
  wanted.store(static_cast<bool>(f), std::memory_order_relaxed);
  progress_function = std::move(f);
}

bool progress_wanted() { return wanted.load(std::memory_order_relaxed); }

void report_progress(const Progress& p) {
  if (!progress_wanted()) return;
  std::lock_guard<std::mutex> lock(progress_mutex);
  if (progress_function) progress_function(p);
}

}  // namespace mlt
