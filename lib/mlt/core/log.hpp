// Messages from the library (warnings, progress) go through one replaceable hook,
// as LIBLINEAR's set_print_string_function: the library never writes to a stream
// itself, the front end decides (stderr, or nothing under -q).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace mlt {

using LogFunction = std::function<void(const std::string&)>;

// Installs the hook; an empty function silences the library.
void set_log_function(LogFunction f);
// The hook installed now (to wrap it for a while and put it back).
LogFunction log_function();

// A warning: something was handled but the user should know ("rank deficient").
void warn(const std::string& message);

// While one lives, the warnings raised on its thread are also kept in it (newest
// capture only), as well as passed to the hook: cv reports each fit's warnings with
// its grid point and fold.
class WarningCapture {
 public:
  WarningCapture();
  ~WarningCapture();
  WarningCapture(const WarningCapture&) = delete;
  WarningCapture& operator=(const WarningCapture&) = delete;
  std::vector<std::string> take() { return std::move(messages_); }

 private:
  friend void warn(const std::string& message);
  std::vector<std::string> messages_;
  WarningCapture* outer_;
};

}  // namespace mlt
