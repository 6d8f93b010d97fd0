// The command line of an estimator's hyperparameters, derived from its declaration
// (Params::table(), mlt/core/params.hpp): one flag per parameter, with the table's
// name, help, check and default, and the refusal of a flag that does not apply.
// The fit verbs use add_param_flags; cv (cv_command.hpp) makes grid flags of the
// same declarations.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli_support.hpp"
#include "mlt/core/error.hpp"
#include "mlt/core/params.hpp"
#include "mlt/kernel.hpp"

namespace mlt::app {

// The flag's long name, for messages: "--n-neighbors" of "-k,--n-neighbors".
inline std::string long_flag(const std::string& flags) {
  const std::size_t at = flags.rfind(',');
  return at == std::string::npos ? flags : flags.substr(at + 1);
}

// A CLI11 validator for one value of the parameter (the table's check).
template <class P>
CLI::Validator param_validator(const Param<P>& d) {
  return CLI::Validator([&d](std::string& s) { return d.check(s); }, "");
}

// What --help shows after the flag: NUMBER, INTEGER, SEED or the choices.
template <class P>
std::string param_type_name(const Param<P>& d) {
  switch (d.type) {
    case ParamType::real: return "NUMBER";
    case ParamType::integer: return "INTEGER";
    case ParamType::seed: return "SEED";
    case ParamType::flag: return "";
    case ParamType::choice: break;
  }
  std::string names;
  for (const std::string& c : d.choices) names += (names.empty() ? "{" : ",") + c;
  return names + "}";
}

// The flags of a verb, bound to the declarations they came from.
template <class P>
struct ParamFlags {
  std::vector<std::pair<const Param<P>*, CLI::Option*>> options;

  std::string flag_of(const std::string& name) const {
    for (const auto& [d, o] : options)
      if (d->name == name) return long_flag(d->flag);
    return flag_for(name);
  }
  // Whether the user gave the parameter on the command line.
  bool given(const std::string& name) const {
    for (const auto& [d, o] : options)
      if (d->name == name) return o->count() > 0;
    return false;
  }
  // Refuses (UsageError) a parameter given where it does not apply under the others:
  // "--degree applies to the poly kernel only".
  void refuse_inapplicable(const P& p) const {
    for (const auto& [d, o] : options)
      if (o->count() > 0 && !d->needs.empty() && !given(d->needs))
        throw UsageError(long_flag(d->flag) + " requires " + flag_of(d->needs));
    for (const auto& [d, o] : options)
      if (o->count() > 0 && d->applies && !d->applies(p))
        throw UsageError(flag_names(long_flag(d->flag) + " applies " + d->applies_when));
  }
};

// One flag per declaration of `table` (for cv: those that `select` accepts), writing
// into `params` when parsed. Flags run in table order, so a declaration may rely on
// one before it (a kernel's gamma on the kernel).
template <class P, class Select>
ParamFlags<P> add_param_flags(CLI::App* cmd, P& params, const ParamTable<P>& table, Select select) {
  ParamFlags<P> out;
  const P defaults{};
  for (const Param<P>& d : table) {
    if (!select(d)) continue;
    CLI::Option* o = nullptr;
    if (d.type == ParamType::flag) {
      o = cmd->add_flag_callback(d.flag, [&d, &params] { d.set(params, {}); }, flag_names(d.help));
    } else {
      o = cmd->add_option_function<std::string>(
                 d.flag,
                 [&d, &params](const std::string& text) {
                   ParamValue v;
                   d.check(text, &v);
                   d.set(params, v);
                 },
                 flag_names(d.help))
              ->check(param_validator(d))
              ->type_name(param_type_name(d));
      if (d.show_default) o->default_str(d.show(defaults));
    }
    if (d.required) o->required();
    out.options.emplace_back(&d, o);
  }
  for (const auto& [d, o] : out.options) {
    if (d->excludes.empty()) continue;
    for (const auto& [e, other] : out.options)
      if (e->name == d->excludes) o->excludes(other);
  }
  return out;
}

template <class P>
ParamFlags<P> add_param_flags(CLI::App* cmd, P& params, const ParamTable<P>& table) {
  return add_param_flags(cmd, params, table, [](const Param<P>&) { return true; });
}

// The estimator's kernel, or null when it has none: `kernel` is a KernelParams (krr),
// one behind `kernelized` (logreg, svm, perceptron, pca) or an optional (knn, smoother).
template <class P>
const KernelParams* kernel_of(const P& p) {
  if constexpr (requires { p.kernelized; p.kernel.type; }) return p.kernelized ? &p.kernel : nullptr;
  else if constexpr (requires { p.kernel.type; }) return &p.kernel;
  else if constexpr (requires { p.kernel->type; }) return p.kernel ? &*p.kernel : nullptr;
  else return nullptr;
}

// What the estimator's kernel reads, from its declared `kernel`: "" numbers, "text",
// "graph" or "precomputed" (mlt/kernel.hpp's structured_input). Refuses --standardize
// with those: their features are strings, graphs or kernel values, not numbers to z-score.
template <class P>
std::string structured_input_of(const P& p) {
  const KernelParams* k = kernel_of(p);
  const std::string input = k ? structured_input(k->type) : "";
  bool standardize = false;
  for (const Param<P>& d : P::table())
    if (d.name == "standardize") standardize = d.json(p) == nlohmann::json(true);
  if (!input.empty() && standardize)
    throw UsageError("--standardize does not apply to the " + name_of(k->type) + " kernel: its samples are " +
                     (input == "text" ? "strings" : input == "graph" ? "graphs" : "rows of kernel values") +
                     ", not features to z-score");
  return input;
}

}  // namespace mlt::app
