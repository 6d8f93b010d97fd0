#include "progress_display.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_support.hpp"
#include "mlt/core/log.hpp"
#include "mlt/core/progress.hpp"
#include "mlt/io/json_text.hpp"

namespace mlt::app {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Display {
  bool terminal = false, json = false, quiet = false;
  double show_after = 1;  // seconds before a terminal shows anything
  Clock::time_point program_start = Clock::now();
  std::string task;       // the task being shown
  Clock::time_point task_start, last_emit;
  bool cv_running = false;
  bool line_shown = false;
  std::mutex mutex;  // the status line, against warnings from other threads

  void clear_line() {
    if (!line_shown) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    line_shown = false;
  }

  void report(const Progress& p) {
    std::lock_guard<std::mutex> lock(mutex);
    const bool is_cv = p.task == "cv";
    if (cv_running && !is_cv) return;  // a cv's fits: the cv is what is shown
    if (is_cv) cv_running = !p.done;
    const auto now = Clock::now();
    if (p.task != task) {
      task = std::string(p.task);
      task_start = now;
      last_emit = {};
    }
    if (!p.done && now - last_emit < std::chrono::milliseconds(250)) return;
    last_emit = now;
    const double elapsed = std::chrono::duration<double>(now - task_start).count();
    const bool has_fraction = std::isfinite(p.fraction);
    const double fraction = p.total > 0 ? static_cast<double>(p.step) / static_cast<double>(p.total) : p.fraction;
    const bool estimable = (p.total > 0 || has_fraction) && fraction >= 0.02 && !p.done;
    const double remaining = estimable ? elapsed * (1 - fraction) / fraction : NAN;
    if (json) write_json(p, fraction, elapsed, remaining);
    if (terminal) write_line(p, elapsed, remaining);
  }

  void write_json(const Progress& p, double fraction, double elapsed, double remaining) {
    nlohmann::ordered_json j;
    j["event"] = "progress";
    j["task"] = std::string(p.task);
    j["unit"] = std::string(p.unit);
    j["step"] = p.step;
    j["total"] = p.total > 0 ? nlohmann::ordered_json(p.total) : nlohmann::ordered_json();
    j["measure"] = p.measure.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(std::string(p.measure));
    j["value"] = std::isfinite(p.value) ? nlohmann::ordered_json(p.value) : nlohmann::ordered_json();
    j["fraction"] = p.done ? nlohmann::ordered_json(1.0)
                           : std::isfinite(fraction) ? nlohmann::ordered_json(fraction) : nlohmann::ordered_json();
    j["elapsed_s"] = elapsed;
    j["remaining_s"] = std::isfinite(remaining) ? nlohmann::ordered_json(remaining) : nlohmann::ordered_json();
    j["done"] = p.done;
    clear_line();
    std::fprintf(stderr, "%s\n", io::json_text(j).c_str());
    std::fflush(stderr);
  }

  void write_line(const Progress& p, double elapsed, double remaining) {
    if (p.done) {
      clear_line();
      return;
    }
    if (seconds_since(program_start) < show_after) return;
    std::string line = "mlt: " + std::string(p.task) + ": " + std::string(p.unit) + " " + std::to_string(p.step);
    if (p.total > 0) line += "/" + std::to_string(p.total);
    char buf[96];
    if (!p.measure.empty() && std::isfinite(p.value)) {
      std::snprintf(buf, sizeof buf, ", %.*s %.3g", static_cast<int>(p.measure.size()), p.measure.data(), p.value);
      line += buf;
    }
    std::snprintf(buf, sizeof buf, ", %.1f s", elapsed);
    line += buf;
    if (std::isfinite(remaining)) {
      std::snprintf(buf, sizeof buf, ", about %.0f s left", std::ceil(remaining));
      line += buf;
    }
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    line_shown = true;
  }

  // A warning from the library ("warning: ..."), or a command's note.
  void message(const std::string& m, bool from_library) {
    std::lock_guard<std::mutex> lock(mutex);
    if (quiet && !json) return;
    clear_line();
    if (json) {
      const bool warning = m.rfind("warning: ", 0) == 0;
      nlohmann::ordered_json j;
      j["event"] = warning ? "warning" : "note";
      const std::string text = warning ? m.substr(9) : m;
      j["message"] = from_library ? flag_names(text) : text;
      std::fprintf(stderr, "%s\n", io::json_text(j).c_str());
    } else {
      std::fprintf(stderr, "mlt: %s\n", (from_library ? flag_names(m) : m).c_str());
    }
    std::fflush(stderr);
  }
};

Display& display() {
  static Display d;
  return d;
}

}  // namespace

void install_messages(bool quiet, bool log_json) {
  Display& d = display();
  d.terminal = !quiet && isatty(STDERR_FILENO);
  d.json = log_json;
  d.quiet = quiet;
  if (const char* after = std::getenv("MLT_PROGRESS_AFTER")) d.show_after = std::atof(after);
  set_log_function([](const std::string& m) { display().message(m, true); });
  if (d.terminal || d.json)
    set_progress_function([](const Progress& p) { display().report(p); });
  else
    set_progress_function({});
}

void print_note(const std::string& message) { display().message(message, false); }

void clear_status_line() {
  Display& d = display();
  std::lock_guard<std::mutex> lock(d.mutex);
  d.clear_line();
}

}  // namespace mlt::app
