// Probabilities from SVM decision values: Platt's sigmoid and pairwise coupling, as
// LIBSVM computes them for `-b 1` (the estimator fits them on cross-validated decision
// values: svm.hpp).
//
// Sigmoid (Platt 1999, in the form of Lin, Lin & Weng, "A note on Platt's probabilistic
// outputs for support vector machines", Machine Learning 68, 2007; LIBSVM's
// sigmoid_train): given decision values f_i and labels y_i ∈ {-1, +1}, with Platt's
// targets t_i = (N₊ + 1)/(N₊ + 2) for y_i = +1 and 1/(N₋ + 2) for y_i = -1,
//
//     min_{A, B}  Σ_i  t_i (A f_i + B) + log(1 + exp(-(A f_i + B))),
//
// the cross-entropy of P(y = +1 | f) = 1/(1 + exp(A f + B)), each term evaluated on
// the side of its sign that cannot overflow. The targets stay inside (0, 1), so the
// minimum is finite even when the f_i separate the classes. Newton's method on the
// 2 x 2 Hessian (plus 1e-12 I, as LIBSVM, for definiteness when all f_i are equal)
// with Armijo backtracking, from LIBSVM's start (A = 0, B = log((N₋+1)/(N₊+1))).
// LIBSVM stops when both gradient entries are below 1e-5 (absolute, over sums of n
// terms: several digits short of the optimum for n in the thousands); here it goes on
// until the Newton step is below 1e-12 relative to (A, B), which Newton's quadratic
// convergence turns into an optimum exact to rounding, one or two steps later than
// LIBSVM's. Cost: O(n) per step, a few tens of steps.
//
// Pairwise coupling (Wu, Lin & Weng, "Probability estimates for multi-class
// classification by pairwise coupling", JMLR 5, 2004, method 2; LIBSVM's
// multiclass_probability): from r_ab ≈ P(y = a | y ∈ {a, b}) (r_ba = 1 − r_ab), the
// class probabilities p solve
//
//     min_p  Σ_a Σ_{b≠a} (r_ba p_a − r_ab p_b)²   s.t.  Σ_a p_a = 1,
//
// i.e. min pᵀQp with Q_aa = Σ_{b≠a} r_ba², Q_ab = −r_ba r_ab. Its solution is
// nonnegative (their Theorem 2). LIBSVM's fixed-point iteration, which keeps Σ p = 1
// at every step; LIBSVM stops when max_a |(Qp)_a − pᵀQp| < 0.005/K, here at
// max(1e-13, 1e-15 K²) (the rounding level of those sums, whose entries are at most
// K − 1), with at most max(1000, 100 K) sweeps. Cost: O(K²) per sweep.
#pragma once

#include <cstddef>
#include <vector>

#include "mlt/core/types.hpp"

namespace mlt::svm {

struct PlattSigmoid {
  double a = 0;  // P(y = +1 | f) = 1 / (1 + exp(a f + b))
  double b = 0;
  std::size_t iterations = 0;
  bool converged = false;  // the Newton step fell below the tolerance
};

// f: n decision values; positive: n flags (y_i = +1), both classes present (else
// std::invalid_argument).
PlattSigmoid fit_sigmoid(const arma::vec& f, const std::vector<char>& positive);

// 1/(1 + exp(a f + b)) without overflow, in [0, 1].
double sigmoid_predict(double f, double a, double b);

// log of it, finite for every finite argument.
double log_sigmoid_predict(double f, double a, double b);

// r: K x K pairwise probabilities (r(a, b) = P(a | a or b), r(b, a) = 1 − r(a, b); the
// diagonal is not read), K >= 2 -> the K class probabilities, summing to 1. `sweeps`
// (optional) receives the number of sweeps made.
arma::vec couple_pairwise(const arma::mat& r, std::size_t* sweeps = nullptr);

}  // namespace mlt::svm
