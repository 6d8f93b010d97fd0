// The kernels against their formulas written out (kernel.hpp), on points chosen so the
// exact values are known.
#include "mlt/kernel.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace {

mlt::Kernel make(mlt::KernelType type, double gamma, double degree = 3, double coef0 = 1) {
  mlt::KernelParams p;
  p.type = type;
  p.gamma = gamma;
  p.degree = degree;
  p.coef0 = coef0;
  return mlt::Kernel(p, 2);
}

}  // namespace

TEST_CASE("kernel: each formula on two points") {
  const arma::mat A = {{1.0, 2.0}};
  const arma::mat B = {{5.0, -1.0}};
  // a·b = 3, ||a - b||² = 25, ||a - b||₁ = 7, ||a - b|| = 5. Every operation below is
  // on small integers or one libm call on the same argument, so equality holds to the
  // libm call's last bit: 1 ulp of slack.
  const auto close = [](double got, double want) { return std::abs(got - want) <= 2e-16 * std::abs(want); };
  using K = mlt::KernelType;
  CHECK(make(K::linear, 1).gram(A, B)(0, 0) == 3.0);
  CHECK(make(K::poly, 0.5, 2, 1).gram(A, B)(0, 0) == 6.25);  // (0.5·3 + 1)²
  CHECK(close(make(K::rbf, 0.1).gram(A, B)(0, 0), std::exp(-2.5)));
  CHECK(close(make(K::laplacian, 0.1).gram(A, B)(0, 0), std::exp(-0.7)));
  CHECK(close(make(K::exponential, 0.1).gram(A, B)(0, 0), std::exp(-0.5)));
  CHECK(close(make(K::sigmoid, 0.25, 3, 0.5).gram(A, B)(0, 0), std::tanh(1.25)));
}

TEST_CASE("kernel: the exponential kernel of nearly identical points is accurate") {
  // ||a - b|| = 1e-6 next to ||a|| = 1.4e3. Through ||a||² + ||b||² - 2a·b the squared
  // distance (1e-12) would carry a cancellation error of a few ulp of 2e6 (~1e-9), and
  // its root an error of ~3e-5 in the distance. Summed from the differences it is exact
  // to rounding: b₁ - a₁ is exact (Sterbenz), its square and root are correctly rounded,
  // so k = exp(-d) to a few ulp, with d the distance the stored inputs hold (1e-6 to
  // half an ulp of 1000, 5.7e-14).
  const arma::mat A = {{1000.0, 1000.0}};
  const arma::mat B = {{1000.000001, 1000.0}};
  const double d = B(0, 0) - A(0, 0);  // the distance as the inputs hold it
  const double k = make(mlt::KernelType::exponential, 1).gram(A, B)(0, 0);
  CHECK(std::abs(k - std::exp(-d)) <= 1e-15);
  CHECK(std::abs(k - std::exp(-1e-6)) <= 2e-13);
}
