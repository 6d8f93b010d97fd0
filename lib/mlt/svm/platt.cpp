// Platt's sigmoid and pairwise coupling: see platt.hpp.
#include "mlt/svm/platt.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mlt::svm {
namespace {

// t z + log(1 + exp(-z)), the per-sample loss at z = A f + B, on the side of the sign
// of z where exp cannot overflow.
double loss(double t, double z) { return z >= 0 ? t * z + std::log1p(std::exp(-z)) : (t - 1) * z + std::log1p(std::exp(z)); }

}  // namespace

double sigmoid_predict(double f, double a, double b) {
  const double z = a * f + b;
  return z >= 0 ? std::exp(-z) / (1.0 + std::exp(-z)) : 1.0 / (1.0 + std::exp(z));
}

double log_sigmoid_predict(double f, double a, double b) {
  const double z = a * f + b;  // log(1/(1 + e^z)) = -log(1 + e^z)
  return z >= 0 ? -z - std::log1p(std::exp(-z)) : -std::log1p(std::exp(z));
}

PlattSigmoid fit_sigmoid(const arma::vec& f, const std::vector<char>& positive) {
  const arma::uword n = f.n_elem;
  if (positive.size() != n) throw std::invalid_argument("fit_sigmoid: labels and decision values differ in size");
  double n_pos = 0;
  for (char c : positive) n_pos += c ? 1 : 0;
  const double n_neg = double(n) - n_pos;
  if (n_pos == 0 || n_neg == 0) throw std::invalid_argument("fit_sigmoid: needs both classes");
  const double hi = (n_pos + 1.0) / (n_pos + 2.0), lo = 1.0 / (n_neg + 2.0);
  arma::vec t(n);
  for (arma::uword i = 0; i < n; ++i) t[i] = positive[i] ? hi : lo;
  const auto objective = [&](double A, double B) {
    double s = 0;
    for (arma::uword i = 0; i < n; ++i) s += loss(t[i], f[i] * A + B);
    return s;
  };

  PlattSigmoid out;
  double A = 0, B = std::log((n_neg + 1.0) / (n_pos + 1.0));
  double fval = objective(A, B);
  constexpr std::size_t max_iter = 100;
  constexpr double min_step = 1e-10, sigma = 1e-12;
  for (out.iterations = 0; out.iterations < max_iter; ++out.iterations) {
    double h11 = sigma, h22 = sigma, h21 = 0, g1 = 0, g2 = 0;
    for (arma::uword i = 0; i < n; ++i) {
      const double z = f[i] * A + B;
      // p = 1/(1 + e^z), q = 1 - p, each without overflow.
      const double e = std::exp(-std::abs(z));
      const double p = z >= 0 ? e / (1.0 + e) : 1.0 / (1.0 + e);
      const double q = z >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
      const double d2 = p * q;
      h11 += f[i] * f[i] * d2;
      h22 += d2;
      h21 += f[i] * d2;
      const double d1 = t[i] - p;
      g1 += f[i] * d1;
      g2 += d1;
    }
    const double det = h11 * h22 - h21 * h21;
    const double dA = -(h22 * g1 - h21 * g2) / det;
    const double dB = -(-h21 * g1 + h11 * g2) / det;
    if (!std::isfinite(dA) || !std::isfinite(dB)) break;
    // Newton converges quadratically here: a step this small leaves an error of its
    // square, below rounding.
    if (std::abs(dA) <= 1e-12 * std::max(1.0, std::abs(A)) && std::abs(dB) <= 1e-12 * std::max(1.0, std::abs(B))) {
      A += dA;
      B += dB;
      out.converged = true;
      break;
    }
    const double gd = g1 * dA + g2 * dB;
    // A predicted decrease below the rounding of the objective cannot be judged by the
    // line search; so close to the optimum the full Newton step is the right one.
    if (-gd <= 1e-14 * std::max(1.0, fval)) {
      A += dA;
      B += dB;
      fval = objective(A, B);
      continue;
    }
    double step = 1;
    for (; step >= min_step; step /= 2) {
      const double newA = A + step * dA, newB = B + step * dB, newf = objective(newA, newB);
      if (newf < fval + 1e-4 * step * gd) {
        A = newA;
        B = newB;
        fval = newf;
        break;
      }
    }
    if (step < min_step) break;  // no decrease along a descent direction: rounding
  }
  out.a = A;
  out.b = B;
  return out;
}

arma::vec couple_pairwise(const arma::mat& r, std::size_t* sweeps) {
  const arma::uword K = r.n_rows;
  if (K < 2 || r.n_cols != K) throw std::invalid_argument("couple_pairwise: needs a K x K matrix, K >= 2");
  arma::mat Q(K, K);
  for (arma::uword t = 0; t < K; ++t) {
    Q(t, t) = 0;
    for (arma::uword j = 0; j < K; ++j) {
      if (j == t) continue;
      Q(t, t) += r(j, t) * r(j, t);
      Q(t, j) = -r(j, t) * r(t, j);
    }
  }
  arma::vec p(K, arma::fill::value(1.0 / double(K))), Qp(K);
  const std::size_t max_sweeps = std::max<std::size_t>(1000, 100 * K);
  // Rounding of (Qp)_a and pᵀQp: K terms of entries up to K − 1, about K² ε.
  const double tol = std::max(1e-13, 1e-15 * double(K) * double(K));
  std::size_t s = 0;
  for (; s < max_sweeps; ++s) {
    // Recomputed each sweep (not only updated) so rounding does not accumulate.
    Qp = Q * p;
    double pQp = arma::dot(p, Qp);
    double max_error = 0;
    for (arma::uword t = 0; t < K; ++t) max_error = std::max(max_error, std::abs(Qp[t] - pQp));
    if (max_error < tol) break;
    for (arma::uword t = 0; t < K; ++t) {
      const double diff = (-Qp[t] + pQp) / Q(t, t);
      p[t] += diff;
      pQp = (pQp + diff * (diff * Q(t, t) + 2 * Qp[t])) / (1 + diff) / (1 + diff);
      for (arma::uword j = 0; j < K; ++j) {
        Qp[j] = (Qp[j] + diff * Q(t, j)) / (1 + diff);
        p[j] /= (1 + diff);
      }
    }
  }
  if (sweeps) *sweeps = s;
  // Σ p = 1 holds up to the rounding of the sweeps; make it hold to the rounding of
  // one sum.
  return p / arma::accu(p);
}

}  // namespace mlt::svm
