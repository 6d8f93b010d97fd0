// Nyström kernel PCA (mlt::Pca with a kernel and `nystrom` M) against scikit-learn's
// Nystroem + PCA given the same landmarks (fixtures by
// scripts/fixtures/kernel_pca_nystrom.py, which reproduces the uniform landmark draw
// from the C++ standard's mt19937_64), against exact kernel PCA with every row a
// landmark, and on rank-deficient landmark sets and refusals.
#include <doctest/doctest.h>

#include <limits>

#include "mlt/core/parallel.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/nystrom.hpp"
#include "mlt/pca.hpp"
#include "test_util.hpp"

namespace kernel_pca_nystrom_test {

namespace {

using mlt::test::align_signs;
using mlt::test::rel_error;
using mlt::test::rows_of;
using mlt::test::vector_of;

constexpr double kEps = std::numeric_limits<double>::epsilon();

arma::mat every_other_row(const arma::mat& X, arma::uword first) {
  return X.rows(arma::regspace<arma::uvec>(first, 2, X.n_rows - 1));
}

mlt::PcaParams nystrom_params(mlt::KernelType type, std::size_t m) {
  mlt::PcaParams p;
  p.kernelized = true;
  p.kernel.type = type;
  p.nystrom = m;
  return p;
}

// The bound on Nyström kernel PCA with every row a landmark against exact kernel PCA,
// k components, derived in the test below: ten times κ n ε / (relative eigengap), κ the
// condition number of K on its positive part (the eigenvalues above the 1e-12 cut).
double exact_bound(const mlt::KernelParams& kernel, const arma::mat& X, arma::uword k) {
  const arma::mat K = mlt::Kernel(kernel, X.n_cols).gram(X, X);
  const arma::vec w = arma::eig_sym(arma::symmatu(K));
  const arma::vec kept = w.elem(arma::find(w > mlt::kNystromTol * w.max()));
  const double kappa = kept.max() / kept.min();
  arma::mat Kc = K;
  const arma::rowvec c = arma::mean(K, 0);
  Kc.each_row() -= c;
  Kc.each_col() -= c.t();
  Kc += arma::mean(c);
  const arma::vec lambda = arma::reverse(arma::eig_sym(arma::symmatu(Kc)));
  double gap = 1;
  for (arma::uword j = 0; j < k; ++j) gap = std::min(gap, (lambda[j] - lambda[j + 1]) / lambda[0]);
  const double bound = 10 * kappa * double(X.n_rows) * kEps / gap;
  MESSAGE("kappa " << kappa << ", relative gap " << gap << ", bound " << bound);
  return bound;
}

std::string saved(const mlt::Pca& e) {
  mlt::io::ModelWriter w(mlt::Pca::kind);
  e.save(w);
  return w.bytes();
}

}  // namespace

// Tolerance. Both sides compute K_LL^{-1/2} from a backward stable decomposition
// (LAPACK's dsyevd here, the SVD in scikit-learn): the result of K_LL + E with
// ‖E‖ ≈ M ε ‖K_LL‖, so the map and the features move by about κ M ε relative
// (κ = ‖K_LL‖ ‖K_LL⁻¹‖, stored by the script); PCA's components then move by that over
// the smallest relative gap between the kept eigenvalues (and the next; Davis-Kahan),
// and the SVD itself adds n ε / gap. Ten times κ M ε / gap: 2e-9 for iris (κ = 714,
// M = 20, gap 0.016), at most 6e-9 over the cases; the eigenvalues to κ M ε times ten.
TEST_CASE("Nyström kernel PCA equals scikit-learn's Nystroem + PCA given the same landmarks") {
  for (const char* name : {"nystrom_iris_rbf", "nystrom_wine_poly", "nystrom_diabetes_rbf"}) {
    CAPTURE(name);
    const auto ref = mlt::test::read_json_fixture(std::string("tests/fixtures/kernel_pca/") + name + ".json");
    mlt::io::ColumnSelection sel;
    sel.ignore = {ref["ignore"].get<std::string>()};
    const auto data = mlt::io::read_csv(mlt::test::fixture_path(ref["file"]), {}, sel);
    const arma::mat train = every_other_row(data.X, 0), test = every_other_row(data.X, 1);
    const std::size_t m = ref["nystrom"];

    mlt::PcaParams p = nystrom_params(mlt::parse_name<mlt::KernelType>(ref["kernel"].get<std::string>()), m);
    p.standardize = ref["standardize"];
    p.n_components = ref["n_components"];
    p.seed = ref["seed"];
    const auto& kp = ref["params"];
    if (kp.contains("gamma")) p.kernel.gamma = kp["gamma"];
    if (kp.contains("degree")) p.kernel.degree = kp["degree"];
    if (kp.contains("coef0")) p.kernel.coef0 = kp["coef0"];

    // The landmarks: the rows the script drew with its transcription of mt19937_64.
    const arma::uvec idx = mlt::nystrom_landmarks(train, m, mlt::LandmarkMethod::uniform, p.seed, p.kernel.type);
    CHECK(arma::conv_to<std::vector<arma::uword>>::from(idx) == ref["landmarks"].get<std::vector<arma::uword>>());

    mlt::Pca pca(p);
    pca.fit(train);
    const double tol = 10 * ref["kappa"].get<double>() * double(m) * kEps / ref["min_relative_gap"].get<double>();
    INFO("tolerance " << tol);
    REQUIRE(tol < 1e-8);
    REQUIRE(pca.n_components() == p.n_components);
    CHECK(pca.nystrom_map().n_cols == m);  // K_LL is well conditioned: nothing dropped
    const double tol_values = 10 * ref["kappa"].get<double>() * double(m) * kEps;
    CHECK(arma::approx_equal(pca.eigenvalues(), vector_of(ref["eigenvalues"]), "reldiff", tol_values));
    CHECK(arma::approx_equal(pca.explained_variance(), vector_of(ref["explained_variance"]), "reldiff", tol_values));
    CHECK(arma::approx_equal(pca.explained_variance_ratio(), vector_of(ref["explained_variance_ratio"]), "reldiff",
                             tol_values));
    const arma::mat expected_test = rows_of(ref["scores_test"]);
    CHECK(rel_error(align_signs(pca.transform(test), expected_test), expected_test) < tol);
    const arma::mat expected_train = rows_of(ref["scores_train"]);
    CHECK(rel_error(align_signs(pca.transform(train), expected_train), expected_train) < tol);
    // A difference of O(1) terms (k(x, x), φ·φ̄, ‖z‖²), each within tol of the script's.
    CHECK(pca.projection_error(test) == doctest::Approx(ref["projection_error_test"].get<double>()).epsilon(tol));
    CHECK(pca.explained_variance_ratio(test) ==
          doctest::Approx(ref["explained_variance_ratio_test"].get<double>()).epsilon(tol));

    // Saved and loaded: the same scores, bit for bit (exact: the model file keeps every
    // double round-trip, and the same code transforms in the same process).
    const mlt::Pca back = mlt::Pca::load(mlt::io::ModelReader::parse(saved(pca), "test"));
    CHECK(back.is_nystrom());
    CHECK(arma::approx_equal(back.transform(test), pca.transform(test), "absdiff", 0.0));
    CHECK(back.projection_error(test) == pca.projection_error(test));
  }
}

// With every row a landmark and K nonsingular, the Nyström Gram matrix ΦΦᵀ =
// K K⁻¹ K = K: Nyström kernel PCA is exact kernel PCA. Computed, ΦΦᵀ = K + ΔK with
// ‖ΔK‖ ≲ κ(K) n ε ‖K‖ (K^{-1/2} from a backward stable eigen-decomposition, as above),
// which moves the centred spectrum's eigenvalues by ‖ΔK‖ and its eigenvectors by
// ‖ΔK‖ / gap (Davis-Kahan); a training score column is √λ_j v_j, so the scores move
// by about κ n ε / (relative gap) relative to the largest. The bound is ten times that,
// computed from this K's κ and gaps (and required to be below 1e-7, so it says
// something).
TEST_CASE("Nyström kernel PCA with M = n landmarks equals exact kernel PCA") {
  const arma::mat X = mlt::test::random_mat(40, 3, 11);
  for (const auto method : {mlt::LandmarkMethod::uniform, mlt::LandmarkMethod::kmeanspp}) {
    CAPTURE(mlt::name_of(method));
    mlt::PcaParams p = nystrom_params(mlt::KernelType::rbf, 0);
    p.kernel.gamma = 1;
    p.n_components = 4;
    mlt::Pca exact(p);
    exact.fit(X);
    p.nystrom = X.n_rows;
    p.landmarks = method;
    mlt::Pca ny(p);
    ny.fit(X);
    CHECK(ny.is_nystrom());
    CHECK(ny.landmarks().n_rows == X.n_rows);

    const double tol = exact_bound(p.kernel, X, 4);
    REQUIRE(tol < 1e-7);
    CHECK(arma::approx_equal(ny.eigenvalues(), exact.eigenvalues(), "reldiff", tol));
    CHECK(arma::approx_equal(ny.explained_variance_ratio(), exact.explained_variance_ratio(), "reldiff", tol));
    const arma::mat Ze = exact.transform(X);
    CHECK(rel_error(align_signs(ny.transform(X), Ze), Ze) < tol);
    const arma::mat Q = mlt::test::random_mat(7, 3, 12);
    const arma::mat Zq = exact.transform(Q);
    CHECK(rel_error(align_signs(ny.transform(Q), Zq), Zq) < tol);
    // The projection error of new points: exact kernel PCA's up to the part of φ(x)
    // outside the span of the n training images, which the exact model misses too.
    CHECK(ny.projection_error(Q) == doctest::Approx(exact.projection_error(Q)).epsilon(tol));
  }
}

TEST_CASE("Nyström kernel PCA: dependent landmarks are dropped, never NaN") {
  // Every row twice: K_LL has rank n / 2 with M = n, its other eigenvalues rounding.
  const arma::mat half = mlt::test::random_mat(15, 3, 5);
  const arma::mat X = arma::join_cols(half, half);
  mlt::PcaParams p = nystrom_params(mlt::KernelType::rbf, X.n_rows);
  p.kernel.gamma = 0.5;
  mlt::Pca pca(p);
  pca.fit(X);
  CHECK(pca.nystrom_map().n_cols == 15);
  CHECK(pca.nystrom_map().is_finite());
  CHECK(pca.transform(X).is_finite());
  CHECK(std::isfinite(pca.projection_error(X)));
  // The same components as the exact fit on the distinct rows' duplicated Gram matrix.
  mlt::PcaParams q = p;
  q.nystrom = 0;
  q.n_components = 3;
  p.n_components = 3;
  mlt::Pca exact(q), ny(p);
  exact.fit(X);
  ny.fit(X);
  // ΦΦᵀ = K K_r⁺ K = K again (K's dropped eigenvalues are zero up to rounding), with the
  // bound of the test above on K's positive part.
  const double tol = exact_bound(p.kernel, X, 3);
  REQUIRE(tol < 1e-7);
  const arma::mat Ze = exact.transform(X);
  CHECK(rel_error(align_signs(ny.transform(X), Ze), Ze) < tol);
  // Linear kernel on 3 columns: K_LL has rank 3 whatever M, so 3 components at most.
  mlt::PcaParams lin = nystrom_params(mlt::KernelType::linear, 10);
  lin.n_components = 4;
  CHECK(mlt::test::error_message([&] { mlt::Pca(lin).fit(X); }, mlt::kExitDataError)
            .find("n_components=4 but only 3 eigenvalues of the centred Nyström kernel matrix") != std::string::npos);
}

TEST_CASE("Nyström kernel PCA: refusals") {
  const arma::mat X = mlt::test::random_mat(12, 3, 9);
  mlt::PcaParams p = nystrom_params(mlt::KernelType::rbf, 13);
  CHECK(mlt::test::error_message([&] { mlt::Pca(p).fit(X); }, mlt::kExitDataError) ==
        "`nystrom` M=13 > n_samples=12");
  p.nystrom = 5;
  p.kernel.type = mlt::KernelType::sigmoid;
  CHECK(mlt::test::error_message([&] { mlt::Pca(p).fit(X); }, mlt::kExitUsage).find("not positive semi-definite") !=
        std::string::npos);
  p.kernel.type = mlt::KernelType::rbf;
  p.eigen_solver = mlt::KernelPcaSolver::iterative;
  CHECK(mlt::test::error_message([&] { mlt::Pca(p).fit(X); }, mlt::kExitUsage).find("`eigen_solver`") !=
        std::string::npos);
  mlt::PcaParams linear;
  linear.nystrom = 5;
  CHECK(mlt::test::error_message([&] { mlt::Pca(linear).fit(X); }, mlt::kExitUsage) ==
        "`nystrom` applies to kernel PCA only (with `kernel`)");
  // kmeans++ needs Euclidean rows; a structured kernel's encoded rows have none.
  CHECK(mlt::test::error_message(
            [&] { mlt::nystrom_landmarks(X, 3, mlt::LandmarkMethod::kmeanspp, 1, mlt::KernelType::precomputed); },
            mlt::kExitUsage)
            .find("use landmarks uniform") != std::string::npos);
}

TEST_CASE("Nyström kernel PCA: the same model for every thread count") {
  // Φ is computed in blocks of 2^22 / M rows: two blocks here, two parallel tasks.
  const arma::mat X = mlt::test::random_mat(70000, 4, 21);
  mlt::PcaParams p = nystrom_params(mlt::KernelType::rbf, 64);
  p.n_components = 5;
  std::string first;
  for (unsigned threads : {1u, 2u, 3u}) {
    mlt::set_thread_count(threads);
    mlt::Pca pca(p);
    pca.fit(X);
    if (first.empty()) first = saved(pca);
    else CHECK(saved(pca) == first);
  }
  mlt::set_thread_count(0);
}

}  // namespace kernel_pca_nystrom_test
