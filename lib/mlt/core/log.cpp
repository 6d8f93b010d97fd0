#include "mlt/core/log.hpp"

#include <mutex>

namespace mlt {
namespace {
std::mutex log_mutex;
LogFunction log_hook;
thread_local WarningCapture* capture = nullptr;
}  // namespace

WarningCapture::WarningCapture() : outer_(capture) { capture = this; }
WarningCapture::~WarningCapture() { capture = outer_; }

void set_log_function(LogFunction f) {
  std::lock_guard<std::mutex> lock(log_mutex);
  log_hook = std::move(f);
}

LogFunction log_function() {
  std::lock_guard<std::mutex> lock(log_mutex);
  return log_hook;
}

void warn(const std::string& message) {
  if (capture) capture->messages_.push_back(message);
  std::lock_guard<std::mutex> lock(log_mutex);
  if (log_hook) log_hook("warning: " + message);
}

}  // namespace mlt
