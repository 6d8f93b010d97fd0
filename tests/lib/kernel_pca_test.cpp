// Kernel PCA (mlt::Pca with a kernel) against scikit-learn's KernelPCA (fixtures made
// by scripts/fixtures/kernel_pca.py), against mlt's own linear PCA for the linear
// kernel, and on the degenerate spectra it must refuse or trim.
#include <doctest/doctest.h>

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "mlt/io/csv.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/pca.hpp"
#include "test_util.hpp"

namespace kernel_pca_test {

namespace {

using mlt::test::rows_of;
using mlt::test::rel_error;
using mlt::test::align_signs;
using mlt::test::vector_of;

arma::mat every_other_row(const arma::mat& X, arma::uword first) {
  return X.rows(arma::regspace<arma::uvec>(first, 2, X.n_rows - 1));
}

mlt::PcaParams kernel_params(mlt::KernelType type) {
  mlt::PcaParams p;
  p.kernelized = true;
  p.kernel.type = type;
  return p;
}

std::string saved(const mlt::Pca& e) {
  mlt::io::ModelWriter w(mlt::Pca::kind);
  e.save(w);
  return w.bytes();
}

}  // namespace

// Tolerance: the kept components are separated by relative eigengaps of at least 4.6e-3
// (the script asserts and stores min_relative_gap), so the eigenvectors of a backward
// stable eigensolver (dsyevd or numpy's dsyevd) move by about n ε ‖K̃‖ / gap ≈ 89 ·
// 2.2e-16 / 4.6e-3 ≈ 4e-12 relative, on any BLAS; 1e-8 leaves three orders of margin.
TEST_CASE("kernel PCA equals scikit-learn's KernelPCA for every kernel (1e-8 relative, up to sign)") {
  for (const char* name : {"iris_rbf", "iris_rbf_default_gamma", "iris_poly", "iris_linear_all", "wine_laplacian",
                           "wine_sigmoid", "diabetes_exponential"}) {
    CAPTURE(name);
    std::ifstream in(mlt::test::fixture_path(std::string("tests/fixtures/kernel_pca/") + name + ".json"));
    const auto ref = nlohmann::json::parse(in);
    mlt::io::ColumnSelection sel;
    sel.ignore = {ref["ignore"].get<std::string>()};
    const auto data = mlt::io::read_csv(mlt::test::fixture_path(ref["file"]), {}, sel);
    const arma::mat train = every_other_row(data.X, 0), test = every_other_row(data.X, 1);

    mlt::PcaParams p = kernel_params(mlt::parse_name<mlt::KernelType>(ref["kernel"].get<std::string>()));
    p.standardize = ref["standardize"];
    if (!ref["n_components"].is_null()) p.n_components = ref["n_components"];
    const auto& kp = ref["params"];
    if (kp.contains("gamma")) p.kernel.gamma = kp["gamma"];
    if (kp.contains("sigma")) p.kernel.sigma = kp["sigma"];
    if (kp.contains("degree")) p.kernel.degree = kp["degree"];
    if (kp.contains("coef0")) p.kernel.coef0 = kp["coef0"];
    // Both eigensolvers where both apply (a given number of components, a PSD kernel).
    // The iterative one stops at residuals of 1e-12 λ_max, so its eigenvectors are
    // within 1e-12 / 4.6e-3 ≈ 2e-10 of the exact ones: inside the same 1e-8.
    std::vector<mlt::KernelPcaSolver> solvers = {mlt::KernelPcaSolver::dense};
    if (p.n_components > 0 && mlt::is_positive_semidefinite(p.kernel))
      solvers.push_back(mlt::KernelPcaSolver::iterative);
    for (const mlt::KernelPcaSolver solver : solvers) {
    CAPTURE(mlt::name_of(solver));
    p.eigen_solver = solver;
    mlt::Pca pca(p);
    pca.fit(train);

    const arma::vec eigenvalues = vector_of(ref["eigenvalues"]);
    REQUIRE(pca.n_components() == eigenvalues.n_elem);
    CHECK(arma::approx_equal(pca.eigenvalues(), eigenvalues, "reldiff", 1e-8));
    CHECK(arma::approx_equal(pca.explained_variance_ratio(), vector_of(ref["explained_variance_ratio"]), "reldiff", 1e-8));
    CHECK(arma::approx_equal(pca.explained_variance(), eigenvalues / (train.n_rows - 1.0), "reldiff", 1e-8));
    const arma::mat expected_test = rows_of(ref["scores_test"]);
    CHECK(rel_error(align_signs(pca.transform(test), expected_test), expected_test) < 1e-8);
    const arma::mat expected_train = rows_of(ref["scores_train"]);
    CHECK(rel_error(align_signs(pca.transform(train), expected_train), expected_train) < 1e-8);
    // A difference of two O(1) terms (k̃(x, x) and ‖z‖²): absolute 1e-8 at this scale.
    CHECK(pca.projection_error(test) == doctest::Approx(ref["projection_error_test"].get<double>()).epsilon(1e-8));
    CHECK(pca.explained_variance_ratio(test) ==
          doctest::Approx(ref["explained_variance_ratio_test"].get<double>()).epsilon(1e-8));
    }
  }
}

// The iterative eigensolver on more rows than the fixtures: auto takes it (n >= 1000,
// k <= n / 10, a PSD kernel), with the same bits as asking for it, and it agrees with
// the full decomposition. Tolerance: the iterative eigenvectors are within
// 1e-12 λ_1 / gap_j of the exact ones and dsyevd's within about n ε λ_1 / gap_j
// (Saad, Thm. 3.9; Golub & Van Loan §8.1), so a training score column, v_j √λ_j with
// unit v_j, moves by at most (1e-12 + n ε) λ_1 / gap_j · √λ_j; twice that is the bound.
TEST_CASE("kernel PCA: the iterative eigensolver is auto's choice for a few components of many rows, and agrees") {
  const arma::mat X = mlt::test::random_mat(1200, 3, 7);
  mlt::PcaParams p = kernel_params(mlt::KernelType::rbf);
  p.kernel.gamma = 0.5;
  p.n_components = 6;
  mlt::Pca automatic(p);
  automatic.fit(X);
  p.eigen_solver = mlt::KernelPcaSolver::iterative;
  mlt::Pca iterative(p);
  iterative.fit(X);
  // The same solver: the same bits (the model headers differ in the solver's name, so
  // compare the numbers).
  CHECK(arma::approx_equal(automatic.alphas(), iterative.alphas(), "absdiff", 0.0));
  CHECK(arma::approx_equal(automatic.eigenvalues(), iterative.eigenvalues(), "absdiff", 0.0));
  p.eigen_solver = mlt::KernelPcaSolver::dense;
  mlt::Pca dense(p);
  dense.fit(X);
  p.n_components = 7;  // for the gap below the last component
  mlt::Pca dense7(p);
  dense7.fit(X);
  const arma::vec& lambda = dense7.eigenvalues();
  const double n_eps = 1200 * std::numeric_limits<double>::epsilon();
  const arma::mat Zi = iterative.transform(X), Zd = dense.transform(X);
  for (arma::uword j = 0; j < 6; ++j) {
    CAPTURE(j);
    const double gap = std::min(j > 0 ? lambda[j - 1] - lambda[j] : arma::datum::inf, lambda[j] - lambda[j + 1]);
    REQUIRE(gap > 0);
    CHECK(std::abs(iterative.eigenvalues()[j] - lambda[j]) <= 2 * (1e-12 + n_eps) * lambda[0]);
    const double bound = 2 * (1e-12 + n_eps) * lambda[0] / gap * std::sqrt(lambda[j]);
    const arma::vec zi = Zi.col(j), zd = Zd.col(j);
    CHECK(arma::abs((arma::dot(zi, zd) < 0 ? -zi : zi) - zd).max() <= bound);
  }
  CHECK(arma::approx_equal(iterative.explained_variance_ratio(), dense.explained_variance_ratio(), "reldiff", 1e-9));
  // Its products are rowwise and the rest on one BLAS thread: the same bits for any
  // thread count (core/parallel.hpp).
  p.eigen_solver = mlt::KernelPcaSolver::iterative;
  p.n_components = 6;
  for (unsigned threads : {1u, 3u}) {
    mlt::set_thread_count(threads);
    mlt::Pca again(p);
    again.fit(X);
    CHECK(saved(again) == saved(iterative));
  }
  mlt::set_thread_count(0);
}

TEST_CASE("kernel PCA: the iterative eigensolver refuses what it cannot do") {
  const arma::mat X = mlt::test::random_mat(50, 3, 8);
  mlt::PcaParams p = kernel_params(mlt::KernelType::rbf);
  p.eigen_solver = mlt::KernelPcaSolver::iterative;
  p.variance = 0.9;
  CHECK(mlt::test::error_message([&] { mlt::Pca(p).fit(X); }, mlt::kExitUsage).find("give n_components") !=
        std::string::npos);
  p.variance = 0;
  p.n_components = 2;
  p.kernel.type = mlt::KernelType::sigmoid;
  CHECK(mlt::test::error_message([&] { mlt::Pca(p).fit(X); }, mlt::kExitUsage).find("not positive semi-definite") !=
        std::string::npos);
}

// Kernel PCA with k(x, y) = <x, y> is PCA: K̃ = X̄X̄ᵀ, whose eigenvectors are U and
// eigenvalues s², so the scores k̃(x, X) v / s = x̄ V are linear PCA's. The two go
// through different factorizations (SVD of X̄ vs eigenvectors of X̄X̄ᵀ); the latter's
// components are accurate to about n ε s_max² / (s_j² gap_j): standardized wine has
// s_5² / s_1² = 0.18 and relative gaps ≥ 0.05 among the first five, so ≈ 178 · 2.2e-16
// / (0.18 · 0.05) ≈ 4e-12 relative; 1e-9 holds on any BLAS.
TEST_CASE("the linear kernel gives plain PCA's scores, variances and ratios (up to sign)") {
  mlt::io::ColumnSelection sel;
  sel.ignore = {"cultivar"};
  const auto data = mlt::io::read_csv(mlt::test::fixture_path("data/wine.csv"), {}, sel);
  for (bool whiten : {false, true}) {
    CAPTURE(whiten);
    mlt::PcaParams linear;
    linear.n_components = 5;
    linear.standardize = true;
    linear.whiten = whiten;
    linear.solver = mlt::PcaSolver::svd;
    mlt::PcaParams kernel = kernel_params(mlt::KernelType::linear);
    kernel.n_components = 5;
    kernel.standardize = true;
    kernel.whiten = whiten;
    mlt::Pca a(linear), b(kernel);
    a.fit(data.X);
    b.fit(data.X);
    const arma::mat za = a.transform(data.X);
    CHECK(rel_error(align_signs(b.transform(data.X), za), za) < 1e-9);
    CHECK(arma::approx_equal(b.explained_variance(), a.explained_variance(), "reldiff", 1e-9));
    CHECK(arma::approx_equal(b.explained_variance_ratio(), a.explained_variance_ratio(), "reldiff", 1e-9));
    CHECK(arma::approx_equal(b.eigenvalues(), arma::square(a.singular_values()), "reldiff", 1e-9));
    // The projection errors agree too: in feature space for one, input space for the other.
    CHECK(b.projection_error(data.X) == doctest::Approx(a.projection_error(data.X)).epsilon(1e-9));
    CHECK(b.explained_variance_ratio(data.X) == doctest::Approx(a.explained_variance_ratio(data.X)).epsilon(1e-9));
  }
}

TEST_CASE("kernel PCA keeps only the positive part of the spectrum") {
  mlt::io::ColumnSelection sel;
  sel.ignore = {"species"};
  const auto iris = mlt::io::read_csv(mlt::test::fixture_path("data/iris.csv"), {}, sel);
  SUBCASE("a rank-deficient Gram matrix: the default keeps its rank, more is refused") {
    // The centred linear Gram matrix of 150 rows in 4 dimensions has rank 4; its other
    // 146 eigenvalues are rounding, about 1e-16 of the largest.
    mlt::Pca all(kernel_params(mlt::KernelType::linear));
    all.fit(iris.X);
    CHECK(all.n_components() == 4);
    mlt::PcaParams p = kernel_params(mlt::KernelType::linear);
    p.n_components = 5;
    mlt::Pca five(p);
    CHECK(mlt::test::error_message([&] { five.fit(iris.X); }, mlt::kExitDataError) ==
          "kernel PCA: n_components=5 but only 4 eigenvalues of the centred kernel matrix are positive (above "
          "1e-12 times the largest); the others carry no variance");
  }
  SUBCASE("an indefinite kernel (sigmoid): the negative eigenvalues are left out") {
    mlt::PcaParams p = kernel_params(mlt::KernelType::sigmoid);
    p.kernel.gamma = 0.5;
    p.kernel.coef0 = -2;
    mlt::Pca pca(p);
    pca.fit(iris.X);
    CHECK(pca.n_components() >= 1);
    CHECK(pca.n_components() < iris.X.n_rows);
    CHECK(arma::all(pca.eigenvalues() > 1e-12 * pca.eigenvalues()[0]));
    CHECK(arma::abs(pca.alphas()).max() < 1e12);
    CHECK(pca.transform(iris.X).is_finite());
  }
  SUBCASE("no positive eigenvalue at all (every row the same point) is refused") {
    mlt::Pca pca(kernel_params(mlt::KernelType::rbf));
    CHECK(mlt::test::error_message([&] { pca.fit(arma::mat(6, 3, arma::fill::ones)); }, mlt::kExitDataError) ==
          "kernel PCA: the centred kernel matrix has no positive eigenvalue (all 6 rows are the same point in the "
          "kernel's feature space)");
    CHECK(mlt::test::error_message([&] { pca.fit(arma::mat(1, 3, arma::fill::ones)); }, mlt::kExitDataError).find(
              "no positive eigenvalue") != std::string::npos);
  }
  SUBCASE("more components than rows is refused") {
    mlt::PcaParams p = kernel_params(mlt::KernelType::rbf);
    p.n_components = 11;
    mlt::Pca pca(p);
    CHECK(mlt::test::error_message([&] { pca.fit(iris.X.rows(0, 9)); }, mlt::kExitDataError) ==
          "n_components=11 > n_samples=10");
  }
}

TEST_CASE("kernel PCA: whitened training scores have unit variance; --variance picks the fewest components") {
  mlt::io::ColumnSelection sel;
  sel.ignore = {"species"};
  const auto iris = mlt::io::read_csv(mlt::test::fixture_path("data/iris.csv"), {}, sel);
  mlt::PcaParams p = kernel_params(mlt::KernelType::rbf);
  p.standardize = true;
  p.n_components = 3;
  p.whiten = true;
  mlt::Pca pca(p);
  pca.fit(iris.X);
  const arma::mat Z = pca.transform(iris.X);
  // The training scores are v sqrt(λ) up to rounding: sample variance λ / (n - 1), which
  // whitening divides out; mean zero because K̃ 1 = 0.
  CHECK(arma::approx_equal(arma::var(Z, 0, 0), arma::rowvec(3, arma::fill::ones), "absdiff", 1e-10));
  CHECK(arma::abs(arma::mean(Z, 0)).max() < 1e-10);

  mlt::PcaParams v = kernel_params(mlt::KernelType::rbf);
  v.standardize = true;
  v.variance = 0.8;
  mlt::Pca by_variance(v);
  by_variance.fit(iris.X);
  const arma::vec cum = arma::cumsum(by_variance.explained_variance_ratio());
  CHECK(cum[cum.n_elem - 1] > 0.8);
  if (cum.n_elem > 1) CHECK(cum[cum.n_elem - 2] <= 0.8);
}

TEST_CASE("kernel PCA models: save and load give the same scores, every kernel; rows are independent") {
  const arma::mat X = mlt::test::random_mat(60, 3, 7), T = mlt::test::random_mat(23, 3, 8);
  for (auto type : {mlt::KernelType::linear, mlt::KernelType::poly, mlt::KernelType::rbf, mlt::KernelType::laplacian,
                    mlt::KernelType::exponential, mlt::KernelType::sigmoid}) {
    CAPTURE(mlt::name_of(type));
    mlt::PcaParams p = kernel_params(type);
    p.n_components = 2;
    p.standardize = true;
    p.kernel.degree = 2;
    mlt::Pca pca(p);
    pca.fit(X);
    const std::string bytes = saved(pca);
    const mlt::Pca loaded = mlt::Pca::load(mlt::io::ModelReader::parse(bytes, "m"));
    const arma::mat Z = pca.transform(T);
    // Model files hold every double exactly (round-trip text or binary): the same bits.
    CHECK(arma::approx_equal(loaded.transform(T), Z, "absdiff", 0.0));
    CHECK(saved(loaded) == bytes);
    // One row at a time, or reversed, gives the same bits as the batch: exact by
    // construction, on every BLAS core (Kernel::gram, the per-row centring and
    // rowwise::product make each output entry depend on its own row alone).
    const arma::uvec reversed = arma::regspace<arma::uvec>(T.n_rows - 1, 0);
    CHECK(arma::approx_equal(pca.transform(T.rows(reversed)), Z.rows(reversed), "absdiff", 0.0));
    for (arma::uword i : {0u, 11u, 22u}) CHECK(arma::approx_equal(pca.transform(T.rows(i, i)), Z.rows(i, i), "absdiff", 0.0));
    // The linear-only verbs say why they refuse.
    CHECK(mlt::test::error_message([&] { pca.reconstruction_mse(T); }, mlt::kExitUsage).find("no pre-image") !=
          std::string::npos);
  }
}

TEST_CASE("kernel PCA: the sign of each component is fixed (largest-magnitude dual coefficient positive)") {
  const arma::mat X = mlt::test::random_mat(40, 3, 9);
  mlt::PcaParams p = kernel_params(mlt::KernelType::rbf);
  p.n_components = 4;
  mlt::Pca pca(p);
  pca.fit(X);
  for (arma::uword j = 0; j < pca.alphas().n_cols; ++j) {
    const arma::vec a = pca.alphas().col(j);
    CHECK(a[arma::index_max(arma::abs(a))] > 0);
  }
}

}  // namespace kernel_pca_test
