// Command-line plumbing that knows nothing of data or models: library messages in
// flag spelling, the CLI11 validators of the hand-written flags, --timings and
// --quiet. Apart from data_options/model_io/output so that a command (or
// param_flags.hpp) can take a flag check or a timer without the CSV and model glue.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/names.hpp"
#include "mlt/core/types.hpp"

namespace mlt::app {

// A library message as the command line says it: each parameter the library names
// in backquotes (`max_iter`) becomes its flag (--max-iter).
std::string flag_names(const std::string& message);

// With --timings, each phase (read, fit, write, ...) reports its wall time on stderr.
void set_timings(bool on);
class PhaseTimer {
 public:
  explicit PhaseTimer(std::string name);
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;
  void set_detail(std::string detail) { detail_ = std::move(detail); }
  double seconds() const;

 private:
  std::string name_, detail_;
  std::chrono::steady_clock::time_point start_;
};

// Reports dropped rows (--na drop) on stderr unless quiet.
void note(const std::string& message);
bool quiet();
void set_quiet(bool q);

// A CLI11 validator accepting the names of enumeration E (mlt/core/names.hpp), its
// canonical names listed in --help.
template <typename E>
CLI::Validator one_of() {
  std::string list;
  for (const std::string& n : canonical_names<E>()) list += (list.empty() ? "" : ",") + n;
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (name_table(E{}).accepts(s)) return "";
        try {
          parse_name<E>(s);
        } catch (const UsageError& e) {
          return e.what();
        }
        return "";
      },
      "{" + list + "}");
}

// A CLI11 validator for finite numbers > 0 (decimal: no "0x10", "inf" or "nan"), or
// whole numbers from 1 to `max` (counts of things made, threads or repeats, are capped
// so that a typo is a clear refusal rather than an abort or a machine out of memory).
CLI::Validator positive();
inline constexpr std::uint64_t kMaxCount = 999999999999;  // 12 digits, as ever
CLI::Validator positive_integer(std::uint64_t max = kMaxCount);
// Every --seed: unsigned 64-bit, written in decimal digits; a sign, another base or
// a value past 2^64 - 1 is refused with the same message everywhere.
CLI::Validator seed();

// A flag that names columns (--ignore, --keep, --categorical, --target, score's
// --truth/--pred/--proba): comma separated, repeatable, `\,` for a comma inside a
// name and `\\` for a backslash before a comma (any other backslash is itself). The
// same name twice is a usage error, not a silent choice between keeping it once and
// dropping it.
CLI::Option* add_names_option(CLI::App* cmd, const std::string& flags, Names& into, const std::string& help);
// The names in `values` (each comma separated, with those escapes); `flag` names the
// flag in the messages.
Names split_names(const std::string& flag, const std::vector<std::string>& values);

// The verbs that run under several MPI ranks (add_fit_verb and add_cv_command
// register theirs): main refuses any other command there, naming these.
inline std::set<const CLI::App*>& distributed_verbs() {
  static std::set<const CLI::App*> verbs;
  return verbs;
}

}  // namespace mlt::app
