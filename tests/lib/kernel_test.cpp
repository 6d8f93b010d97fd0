// The kernels against their formulas written out (kernel.hpp), on points chosen so the
// exact values are known; the normalized kernels against scikit-learn (fixtures).
#include "mlt/kernel.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "mlt/core/error.hpp"
#include "mlt/core/rowwise.hpp"
#include "mlt/io/model_file.hpp"

namespace kernel_test {

namespace {

mlt::Kernel make(mlt::KernelType type, double gamma, double degree = 3, double coef0 = 1, bool normalize = false) {
  mlt::KernelParams p;
  p.type = type;
  p.gamma = gamma;
  p.degree = degree;
  p.coef0 = coef0;
  p.normalize = normalize;
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

namespace {

arma::mat fixture(const std::string& name) {
  arma::mat M;
  REQUIRE(M.load(std::string(MLT_SOURCE_DIR) + "/tests/fixtures/kernel_normalize/" + name + ".csv", arma::csv_ascii));
  return M;
}

mlt::Kernel normalized(mlt::KernelType type) { return make(type, 0.5, 3, 1, true); }

}  // namespace

TEST_CASE("kernel: the normalized kernel on two points") {
  // a·b = 3, ‖a‖² = 5, ‖b‖² = 26: linear 3/sqrt(130); poly (γ = 0.5, d = 2, c = 1):
  // 2.5² / sqrt(3.5² · 14²) = 6.25 / 49. A few roundings each: 4 ulp of slack.
  const arma::mat A = {{1.0, 2.0}};
  const arma::mat B = {{5.0, -1.0}};
  const auto close = [](double got, double want) { return std::abs(got - want) <= 8e-16 * std::abs(want); };
  CHECK(close(make(mlt::KernelType::linear, 1, 3, 1, true).gram(A, B)(0, 0), 3 / std::sqrt(130.0)));
  CHECK(close(make(mlt::KernelType::poly, 0.5, 2, 1, true).gram(A, B)(0, 0), 6.25 / 49));
}

TEST_CASE("kernel: normalized linear and poly equal scikit-learn's (cosine_similarity; pairwise_kernels normalized)") {
  // tests/fixtures/kernel_normalize (scripts/fixtures/kernel_normalize.py). Entries are
  // at most 1 in magnitude; an inner product of p = 4 terms carries an error of a few
  // ε ‖a‖‖b‖, i.e. a few ε after normalization, the cube of poly three times that:
  // 1e-14 absolute covers both with room.
  const arma::mat A = fixture("a"), B = fixture("b");
  const arma::mat cosine = normalized(mlt::KernelType::linear).gram(A, B);
  CHECK(arma::abs(cosine - fixture("cosine")).max() <= 1e-14);
  const arma::mat poly = normalized(mlt::KernelType::poly).gram(A, B);
  CHECK(arma::abs(poly - fixture("poly")).max() <= 1e-14);
}

TEST_CASE("kernel: the normalized Gram matrix is exactly symmetric with diagonal() as its diagonal") {
  const arma::mat A = fixture("a");
  for (const auto type : {mlt::KernelType::linear, mlt::KernelType::poly}) {
    const mlt::Kernel k = normalized(type);
    const arma::mat G = k.gram(A, A);
    // Exact by construction, on any BLAS core (no BLAS is involved): the raw Gram entries
    // are rowwise sums in ascending k, unfused (core/rowwise.hpp), so raw(i, j) = raw(j, i)
    // and raw(i, i) = squared_norms' ‖x_i‖², bit for bit; the factor r_i r_j commutes.
    CHECK(arma::approx_equal(G, G.t(), "absdiff", 0.0));
    CHECK(arma::approx_equal(G.diag(), k.diagonal(A), "absdiff", 0.0));
    CHECK(arma::abs(G.diag() - 1).max() <= 1e-15);  // k · (1/sqrt(k))²: four roundings, ~4.4e-16
  }
}

TEST_CASE("kernel: normalize refuses a zero row, the other kernels, and survives save/load") {
  const arma::mat Z = {{1.0, 2.0, 0.0, 1.0}, {0.0, 0.0, 0.0, 0.0}};
  CHECK_THROWS_AS(normalized(mlt::KernelType::linear).gram(Z, Z), mlt::DataError);
  CHECK_THROWS_AS(normalized(mlt::KernelType::linear).diagonal(Z), mlt::DataError);
  for (const auto type : {mlt::KernelType::rbf, mlt::KernelType::laplacian, mlt::KernelType::exponential,
                          mlt::KernelType::sigmoid})
    CHECK_THROWS_AS(normalized(type), mlt::UsageError);
  mlt::io::ModelWriter w("test");
  normalized(mlt::KernelType::poly).save(w);
  const mlt::Kernel back = mlt::Kernel::load(mlt::io::ModelReader::parse(w.bytes(), "test"));
  CHECK(back.params().normalize);
  const arma::mat A = fixture("a"), B = fixture("b");
  // The same parameters (gamma saved as resolved, a double that round-trips) and the same
  // row-wise arithmetic: the same bits.
  CHECK(arma::approx_equal(back.gram(A, B), normalized(mlt::KernelType::poly).gram(A, B), "absdiff", 0.0));
}

TEST_CASE("kernel: gram with the caller's squared norms is gram, bit for bit, for every kernel") {
  // Exact by construction: the norms passed are rowwise::squared_norms(A), the very
  // values gram(A, B) computes itself, and every other step is the same code.
  arma::arma_rng::set_seed(7);
  const arma::mat A = arma::randn<arma::mat>(37, 2), B = arma::randn<arma::mat>(5, 2);
  const arma::vec norms = mlt::rowwise::squared_norms(A);
  for (mlt::KernelType type : {mlt::KernelType::linear, mlt::KernelType::poly, mlt::KernelType::rbf,
                               mlt::KernelType::laplacian, mlt::KernelType::exponential, mlt::KernelType::sigmoid})
    for (bool normalize : {false, true}) {
      if (normalize && type != mlt::KernelType::linear && type != mlt::KernelType::poly) continue;
      const mlt::Kernel k = make(type, 0.3, 3, 1, normalize);
      CAPTURE(mlt::name_of(type));
      CHECK(arma::approx_equal(k.gram(A, norms, B), k.gram(A, B), "absdiff", 0.0));
    }
  const mlt::Kernel rbf = make(mlt::KernelType::rbf, 0.3);
  CHECK_THROWS(rbf.gram(A, arma::vec(3, arma::fill::ones), B));
}

}  // namespace kernel_test
