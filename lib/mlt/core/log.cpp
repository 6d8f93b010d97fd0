#include "mlt/core/log.hpp"

#include <mutex>

namespace mlt {
namespace {
std::mutex log_mutex;
LogFunction log_function;
}  // namespace

void set_log_function(LogFunction f) {
  std::lock_guard<std::mutex> lock(log_mutex);
  log_function = std::move(f);
}

void warn(const std::string& message) {
  std::lock_guard<std::mutex> lock(log_mutex);
  if (log_function) log_function("warning: " + message);
}

}  // namespace mlt
