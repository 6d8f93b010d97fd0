// Svm::fit_lambda_path (cv's fast path of the kernel SVM: one Gram matrix shared by
// the λ values of a split) gives exactly the models of plain fits: the Gram matrix's
// entries are the bits SMO's computed columns have (Kernel::gram's entries depend on
// their two rows only), so every SMO step is the same and the saved models are equal
// byte for byte. No tolerance is needed, on any BLAS kernel: both paths evaluate the
// same kernel entries by the same code.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "mlt/io/csv.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/svm.hpp"
#include "mlt/svm/smo.hpp"
#include "../test_util.hpp"

namespace svm_lambda_path_test {

namespace {

std::string saved_bytes(const mlt::Svm& m) {
  mlt::io::ModelWriter w(mlt::Svm::kind);
  m.save(w);
  return w.bytes();
}

struct Data {
  arma::mat X;
  mlt::Labels y;
};

Data iris() {
  const auto t = mlt::io::read_csv(mlt::test::fixture_path("tests/fixtures/svm/iris.csv"), mlt::io::CsvOptions{}, {});
  return {t.X.cols(0, t.X.n_cols - 2), arma::conv_to<mlt::Labels>::from(t.X.col(t.X.n_cols - 1))};
}

void check_path_equals_plain(const mlt::SvmParams& base, const arma::mat& X, const mlt::Labels& y) {
  const std::vector<double> lambdas = {1e-3, 0.03, 1.0, 30.0};
  std::size_t visited = 0;
  mlt::Svm::fit_lambda_path(base, lambdas, X, y, 0, [&](std::size_t j, const mlt::Svm& m) {
    CAPTURE(j);
    REQUIRE(j == visited++);
    CHECK(m.params().lambda == lambdas[j]);
    mlt::SvmParams p = base;
    p.lambda = lambdas[j];
    mlt::Svm plain(p);
    plain.fit(X, y);
    CHECK(saved_bytes(m) == saved_bytes(plain));
    CHECK(arma::approx_equal(m.decision_function(X), plain.decision_function(X), "absdiff", 0.0));
  });
  CHECK(visited == lambdas.size());
}

}  // namespace

TEST_CASE("svm lambda path: the shared Gram matrix gives the plain fits' models, byte for byte") {
  const Data d = iris();
  mlt::SvmParams p;
  p.kernelized = true;
  p.standardize = true;
  SUBCASE("rbf, one-vs-one (each pair's rows of the Gram matrix)") {
    p.kernel.type = mlt::KernelType::rbf;
    p.kernel.gamma = 0.5;
    check_path_equals_plain(p, d.X, d.y);
  }
  SUBCASE("poly, one-vs-rest, balanced (every row: the whole Gram matrix)") {
    p.kernel.type = mlt::KernelType::poly;
    p.kernel.degree = 2;
    p.multiclass = mlt::SvmMultiClass::ovr;
    p.balanced = true;
    check_path_equals_plain(p, d.X, d.y);
  }
  SUBCASE("laplacian, two classes, no shrinking, raw features") {
    p.standardize = false;
    p.shrinking = false;
    p.kernel.type = mlt::KernelType::laplacian;
    const arma::uvec two = arma::find(d.y > 0);
    mlt::Labels y = d.y.elem(two) - 1;
    check_path_equals_plain(p, d.X.rows(two), y);
  }
  SUBCASE("sigmoid (not PSD), with probability") {
    p.kernel.type = mlt::KernelType::sigmoid;
    p.kernel.gamma = 0.1;
    p.probability = true;
    check_path_equals_plain(p, d.X, d.y);
  }
  SUBCASE("a Gram matrix beyond cache_mb: plain fits") {
    // 600 rows: 600² doubles = 2.7 MB > 1 MB.
    const arma::mat X = mlt::test::random_mat(600, 3, 5);
    const mlt::Labels y = arma::conv_to<mlt::Labels>::from(X.col(0) + 0.3 * X.col(1) > 0);
    p.cache_mb = 1;
    p.kernel.type = mlt::KernelType::rbf;
    check_path_equals_plain(p, X, y);
  }
  SUBCASE("linear SVM: plain fits") {
    mlt::SvmParams q;
    q.standardize = true;
    check_path_equals_plain(q, d.X, d.y);
  }
}

TEST_CASE("svm smo: a Gram matrix of the wrong size is an internal error") {
  const arma::mat X = mlt::test::random_mat(10, 2, 3);
  arma::vec y(10, arma::fill::ones);
  y.head(5).fill(-1);
  const arma::vec C(10, arma::fill::ones);
  mlt::KernelParams kp;
  kp.gamma = 1;
  const mlt::Kernel k(kp, 2);
  const arma::mat G = k.gram(X.rows(0, 8), X.rows(0, 8));
  mlt::svm::SmoOptions o;
  o.gram = &G;
  CHECK_THROWS_AS(mlt::svm::solve_smo(k, X, y, C, o), mlt::Error);
  // The right one gives the computed columns' solution exactly.
  const arma::mat G10 = k.gram(X, X);
  o.gram = &G10;
  const mlt::svm::SmoResult a = mlt::svm::solve_smo(k, X, y, C, o);
  o.gram = nullptr;
  const mlt::svm::SmoResult b = mlt::svm::solve_smo(k, X, y, C, o);
  CHECK(arma::approx_equal(a.alpha, b.alpha, "absdiff", 0.0));
  CHECK(a.b == b.b);
  CHECK(a.iterations == b.iterations);
}

}  // namespace svm_lambda_path_test
