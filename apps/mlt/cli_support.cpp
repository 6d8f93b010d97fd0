#include "cli_support.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "mlt/core/params.hpp"
#include "progress_display.hpp"

namespace mlt::app {
namespace {
bool quiet_ = false;
bool timings_ = false;
}  // namespace

void set_timings(bool on) { timings_ = on; }

PhaseTimer::PhaseTimer(std::string name) : name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}

double PhaseTimer::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

PhaseTimer::~PhaseTimer() {
  if (!timings_) return;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f s", seconds());
  std::cerr << "mlt: time: " << name_ << " " << buf << (detail_.empty() ? "" : ", " + detail_) << '\n';
}

bool quiet() { return quiet_; }
void set_quiet(bool q) { quiet_ = q; }
void note(const std::string& message) { print_note(message); }

namespace {
// A finite number accepted by `ok`, described as `what` in --help and errors.
CLI::Validator number_check(bool (*ok)(double), const std::string& what) {
  return CLI::Validator(
      [ok, what](std::string& s) -> std::string {
        // parse_real, as every parameter: decimal only, no "0x10", "inf" or "nan".
        double v = 0;
        if (!parse_real(s, v)) return "expected a finite decimal number, got " + s;
        if (!ok(v)) return "must be " + what + ", got " + s;
        return "";
      },
      what);
}
}  // namespace

CLI::Validator positive() {
  return number_check([](double v) { return v > 0; }, "a finite number > 0");
}
CLI::Validator positive_integer(std::uint64_t max) {
  return CLI::Validator(
      [max](std::string& s) -> std::string {
        std::uint64_t v = 0;
        const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), v);
        const bool whole = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos &&
                           error == std::errc() && end == s.data() + s.size() && v >= 1;
        if (!whole) return "must be a whole number >= 1, got " + s;
        if (v > max) return "must be at most " + std::to_string(max) + ", got " + s;
        return "";
      },
      "INTEGER>=1");
}

std::string flag_names(const std::string& message) {
  std::string out;
  for (std::size_t i = 0; i < message.size(); ++i) {
    const std::size_t close = message[i] == '`' ? message.find('`', i + 1) : std::string::npos;
    const std::string_view name =
        close == std::string::npos ? std::string_view() : std::string_view(message).substr(i + 1, close - i - 1);
    if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string_view::npos) {
      out += message[i];
      continue;
    }
    out += "--";
    for (char c : name) out += c == '_' ? '-' : c;
    i = close;
  }
  return out;
}

Names split_names(const std::string& flag, const std::vector<std::string>& values) {
  Names names;
  for (const std::string& value : values) {
    std::string name;
    bool escaped = false;
    const auto finish = [&] {
      if (name.empty())
        throw UsageError(flag + " \"" + value + "\": an empty column name (names are comma separated; a comma " +
                         "inside a name is written \\,)");
      if (std::find(names.begin(), names.end(), name) != names.end())
        throw UsageError(flag + " names \"" + name + "\" twice");
      names.push_back(std::move(name));
      name.clear();
    };
    for (char c : value) {
      if (escaped && c != ',' && c != '\\') name += '\\';  // only \, and \\ are escapes
      if (escaped) {
        name += c;
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == ',') {
        finish();
      } else {
        name += c;
      }
    }
    if (escaped) name += '\\';  // a lone backslash at the end is itself
    finish();
  }
  return names;
}

CLI::Option* add_names_option(CLI::App* cmd, const std::string& flags, Names& into, const std::string& help) {
  const auto comma = flags.rfind(',');
  std::string flag = flags.substr(comma == std::string::npos ? 0 : comma + 1);
  flag = "--" + flag.substr(flag.find_first_not_of('-'));
  return cmd
      ->add_option_function<std::vector<std::string>>(
          flags, [&into, flag](const std::vector<std::string>& values) { into = split_names(flag, values); }, help)
      ->type_name("COLS");
}

CLI::Validator seed() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        std::uint64_t value = 0;
        const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || error != std::errc() ||
            end != s.data() + s.size())
          return "a seed is a whole number from 0 to 18446744073709551615, got " + s;
        return "";
      },
      "SEED");
}

}  // namespace mlt::app
