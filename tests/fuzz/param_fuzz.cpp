// libFuzzer target for the readers of flag values: every hyperparameter flag goes
// through Param::check (mlt/core/params.hpp: parse_real, parse_whole, parse_seed and
// the choice names), and the hand-written flags through the validators of
// apps/mlt/cli_support.hpp (positive, positive_integer, seed; one_of, as --na uses).
// The input is one flag value. Each reader is held to an independent oracle: a
// number is accepted exactly when it is plain decimal, finite and in bounds, and
// then its value is what glibc's correctly rounded strtod gives; a whole number,
// when it is decimal digits only (no sign, base or exponent); a seed, when its
// digits are at most 2^64 - 1. Never another exception, a crash or a sanitizer
// report.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "../../apps/mlt/cli_support.hpp"
#include "mlt/core/error.hpp"
#include "mlt/core/params.hpp"
#include "mlt/io/csv.hpp"

namespace {

void require(bool ok) {
  if (!ok) std::abort();
}

struct FuzzParams {
  double any = 0;
  double positive = 1;
  double fraction = 0.5;
  std::size_t count = 1;
  int small = 0;
  std::uint64_t seed = 0;
  mlt::io::MissingPolicy na = mlt::io::MissingPolicy::error;
};

// One declaration of each kind and bound shape the estimators use.
const mlt::ParamTable<FuzzParams>& table() {
  using P = FuzzParams;
  using mlt::Bounds;
  static const mlt::ParamTable<P> t = {
      mlt::real<P>("any", &P::any, "any finite number"),
      mlt::real<P>("positive", &P::positive, "> 0", Bounds::above(0)),
      mlt::real<P>("fraction", &P::fraction, "in (0, 1)", Bounds::open(0, 1)),
      mlt::integer<P>("count", &P::count, ">= 1", Bounds::at_least(1)),
      mlt::integer<P>("small", &P::small, "in [0, 100]", Bounds{0, false, 100, false}),
      mlt::seed<P>("seed", &P::seed, "a seed"),
      mlt::choice<P>("na", &P::na, "error or drop"),
  };
  return t;
}

bool digits_only(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// The oracle's reading of a decimal number: its characters, then strtod (glibc's is
// correctly rounded, as from_chars is; the C locale, so the point is '.').
bool plain_decimal(const std::string& s, double& v) {
  if (s.empty() || s.find_first_not_of("0123456789.eE+-") != std::string::npos) return false;
  if (s[0] == '+' || s.find_first_of("0123456789") == std::string::npos) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return false;
  // mlt's policy (README, Conventions): a number that underflows to zero (1e-400) is
  // refused, as one that overflows; subnormals are read as written.
  const std::string mantissa = s.substr(0, s.find_first_of("eE"));
  return !(v == 0 && mantissa.find_first_of("123456789") != std::string::npos);
}

// Digits that fit in 64 bits, compared as text: no arithmetic shared with the reader.
bool fits_u64(const std::string& s) {
  if (!digits_only(s)) return false;
  const std::string d = s.substr(std::min(s.find_first_not_of('0'), s.size()));
  return d.size() < 20 || (d.size() == 20 && d <= "18446744073709551615");
}

std::string validate(const CLI::Validator& v, std::string text) { return v(text); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  double oracle = 0;
  const bool decimal = plain_decimal(text, oracle);
  try {
    double v = 0;
    if (mlt::parse_real(text, v)) require(decimal && v == oracle);
    // from_chars reads some spellings strtod also reads ("1e5", ".5", "5."); any
    // number strtod reads in plain decimal must be read, with the same value.
    if (decimal) require(mlt::parse_real(text, v) && v == oracle);

    const bool whole = digits_only(text) && text.size() <= 15;
    require(mlt::parse_whole(text, v) == whole);
    if (whole) require(v == std::strtod(text.c_str(), nullptr));

    std::uint64_t s = 0;
    require(mlt::parse_seed(text, s) == fits_u64(text));
    if (fits_u64(text)) require(s == std::strtoull(text.c_str(), nullptr, 10));

    for (const auto& d : table()) {
      mlt::ParamValue value;
      const std::string why = d.check(text, &value);
      if (!why.empty()) continue;
      FuzzParams p;
      d.set(p, value);
      switch (d.type) {
        case mlt::ParamType::real:
          require(decimal && value.number == oracle && d.bounds.contains(value.number));
          break;
        case mlt::ParamType::integer:
          require(whole && d.bounds.contains(value.number));
          break;
        case mlt::ParamType::seed:
          require(fits_u64(text) && p.seed == s);
          break;
        case mlt::ParamType::choice:
          require(text == "error" || text == "drop");
          break;
        case mlt::ParamType::flag:
          break;
      }
    }

    require(validate(mlt::app::positive(), text).empty() == (decimal && oracle > 0));
    const bool count = fits_u64(text) && std::strtoull(text.c_str(), nullptr, 10) >= 1;
    require(validate(mlt::app::positive_integer(1000), text).empty() ==
            (count && std::strtoull(text.c_str(), nullptr, 10) <= 1000));
    require(validate(mlt::app::positive_integer(), text).empty() ==
            (count && std::strtoull(text.c_str(), nullptr, 10) <= mlt::app::kMaxCount));
    require(validate(mlt::app::seed(), text).empty() == fits_u64(text));
    require(validate(mlt::app::one_of<mlt::io::MissingPolicy>(), text).empty() == (text == "error" || text == "drop"));
    (void)mlt::app::flag_names(text);
  } catch (const mlt::UsageError&) {
    // A choice's unknown name is refused by throwing; anything else is a bug.
    require(!(text == "error" || text == "drop"));
  }
  return 0;
}
