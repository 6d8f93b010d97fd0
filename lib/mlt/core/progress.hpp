// Progress of long computations, through one replaceable hook as the log's (log.hpp):
// a solver says where it is, the front end decides whether and how to show it (a
// status line on a terminal once the work has taken a second, JSON lines for scripts,
// or nothing). With no hook installed a report costs one relaxed atomic load, and
// progress_wanted() lets a solver skip computing what only a report would use.
//
// The fraction done of an iterative solver is estimated from its stopping measure on
// a log scale (log_fraction): a gap that fell from 1e-1 to 1e-4 on the way to 1e-7 is
// halfway. That is exact for a linear rate of convergence, the usual one near the end
// (SMO, coordinate descent, subspace iteration), and pessimistic for Newton's
// quadratic one. A loop with a known count (cv's fits) reports step/total; an
// open-ended one (Lloyd, the perceptron's epochs) no fraction, and no time left is
// guessed.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <string_view>

namespace mlt {

struct Progress {
  std::string_view task;     // what runs: "svm smo", "logreg newton", "kmeans lloyd", "cv"
  std::string_view unit;     // what a step is: "iteration", "pass", "epoch", "fit"
  std::size_t step = 0;      // steps done
  std::size_t total = 0;     // the number of steps when known, else 0
  std::string_view measure;  // what `value` is ("gap", "objective", "inertia", ...), or empty
  double value = std::numeric_limits<double>::quiet_NaN();
  double fraction = std::numeric_limits<double>::quiet_NaN();  // estimated share done, [0, 1]
  bool done = false;         // the task's last report
};

using ProgressFunction = std::function<void(const Progress&)>;

// Installs the hook (called under a lock, from whichever thread reports); an empty
// function turns reports off.
void set_progress_function(ProgressFunction f);
bool progress_wanted();
void report_progress(const Progress& p);

// The share of the way from m0 (the measure at the start) down to tol that m has gone,
// on a log scale, clamped to [0, 1]; NaN when it cannot be told (m0 <= tol, or not finite).
inline double log_fraction(double m0, double m, double tol) {
  if (!(m0 > tol) || !(tol > 0) || !std::isfinite(m0) || !std::isfinite(m)) return std::numeric_limits<double>::quiet_NaN();
  if (!(m > tol)) return 1;
  const double f = std::log(m0 / m) / std::log(m0 / tol);
  return f < 0 ? 0 : f > 1 ? 1 : f;
}

}  // namespace mlt
