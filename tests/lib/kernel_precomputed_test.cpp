// `--kernel precomputed` (mlt/kernel_precomputed.hpp) and the smoother's kernel
// distance: the encoding's checks; every kernel method on a precomputed Gram matrix
// against scikit-learn on the same matrix (SVC, KernelRidge, KernelPCA with
// kernel="precomputed": tests/fixtures/precomputed/, made by
// scripts/fixtures/precomputed.py); every kernel method on mlt's own Gram matrix
// against the same method on the kernel itself; the smoother on the spectrum kernel
// against a NumPy transcription of the notes' formula.
#include <doctest/doctest.h>

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "mlt/core/error.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/kernel.hpp"
#include "mlt/kernel_precomputed.hpp"
#include "mlt/kernel_strings.hpp"
#include "mlt/knn.hpp"
#include "mlt/krr.hpp"
#include "mlt/labels.hpp"
#include "mlt/logreg.hpp"
#include "mlt/pca.hpp"
#include "mlt/perceptron.hpp"
#include "mlt/smoother.hpp"
#include "mlt/svm.hpp"
#include "test_util.hpp"

namespace kernel_precomputed_test {

namespace {

using mlt::test::error_message;
using mlt::test::fixture_path;
using mlt::test::rows_of;
using mlt::test::rel_error;
using mlt::test::align_signs;
using mlt::test::vector_of;

const nlohmann::json& reference() {
  static const nlohmann::json j = [] {
    std::ifstream f(fixture_path("tests/fixtures/precomputed/reference.json"));
    return nlohmann::json::parse(f);
  }();
  return j;
}

// A fixture CSV's numeric columns (all of them: the last may be y).
arma::mat read_matrix(const std::string& file) {
  return mlt::io::read_csv(fixture_path("tests/fixtures/precomputed/" + file), mlt::io::CsvOptions{}, {}).X;
}

mlt::KernelParams precomputed() {
  mlt::KernelParams k;
  k.type = mlt::KernelType::precomputed;
  return k;
}

}  // namespace

TEST_CASE("precomputed: the encoding reads each pair off the row that has it, and refuses what it cannot give") {
  const arma::mat K = {{4, 1, 2}, {1, 5, 3}, {2, 3, 6}};
  // Exact throughout: the encoding stores row indices (small integers, exact in a
  // double) and copies the kernel values; reading a pair off is a copy, not arithmetic.
  const arma::mat E = mlt::encode_precomputed_training(K);
  REQUIRE(E.n_cols == 4);
  CHECK(arma::approx_equal(arma::vec(E.col(0)), arma::vec{0, 1, 2}, "absdiff", 0.0));
  // Any subset of training rows, in any order: the sub-matrix.
  const arma::uvec rows = {2, 0};
  CHECK(arma::approx_equal(mlt::precomputed_gram(E.rows(rows), E), K.rows(rows), "absdiff", 0.0));
  CHECK(arma::approx_equal(mlt::precomputed_gram(E, E.rows(rows)), K.cols(rows), "absdiff", 0.0));
  CHECK(arma::approx_equal(mlt::precomputed_diagonal(E), arma::vec{4, 5, 6}, "absdiff", 0.0));
  // New rows against training rows, either way round.
  const arma::mat Q = mlt::encode_precomputed_queries(arma::mat{{0.5, 0.25, 0.125}});
  CHECK(arma::approx_equal(mlt::precomputed_gram(Q, E.rows(rows)), arma::mat{{0.125, 0.5}}, "absdiff", 0.0));
  CHECK(arma::approx_equal(mlt::precomputed_gram(E, Q), arma::mat(arma::vec{0.5, 0.25, 0.125}), "absdiff", 0.0));
  // Two new rows have no kernel value, and a new row no k(x, x).
  CHECK(error_message([&] { mlt::precomputed_gram(Q, Q); }, mlt::kExitDataError).find("not training rows") !=
        std::string::npos);
  CHECK(error_message([&] { mlt::precomputed_diagonal(Q); }, mlt::kExitDataError).find("k(x, x)") !=
        std::string::npos);
  // A new row too narrow for a training row's index.
  const arma::mat narrow = mlt::encode_precomputed_queries(arma::mat{{0.5, 0.25}});
  CHECK(error_message([&] { mlt::precomputed_gram(narrow, E); }, mlt::kExitDataError).find("training row 3") !=
        std::string::npos);
  // The Kernel checks the width against the model's.
  const mlt::Kernel kernel(precomputed(), E.n_cols);
  CHECK_NOTHROW(kernel.check_input(E.n_cols, Q));
  CHECK(error_message([&] { kernel.check_input(E.n_cols, narrow); }, mlt::kExitDataError)
            .find("against the 3 training rows, and the input has 2") != std::string::npos);
}

TEST_CASE("precomputed: a training matrix must be square, finite and symmetric (the worst pair named)") {
  CHECK(error_message([] { mlt::encode_precomputed_training(arma::mat(3, 4, arma::fill::ones)); },
                      mlt::kExitDataError)
            .find("3 rows need 3 feature columns, and there are 4") != std::string::npos);
  arma::mat K = {{4, 1, 2}, {1, 5, 3}, {2, 3.5, 6}};
  const std::string asym = error_message([&] { mlt::encode_precomputed_training(K); }, mlt::kExitDataError);
  CHECK(asym.find("K(3, 2) = 3.5 but K(2, 3) = 3") != std::string::npos);
  K(2, 1) = 3 + 1e-14;  // a few ulps off: accepted, and used as given (LIBSVM's way)
  const arma::mat E = mlt::encode_precomputed_training(K);
  CHECK(E(2, 2) == 3 + 1e-14);
  CHECK(E(1, 3) == 3);
  K(2, 1) = arma::datum::nan;
  CHECK(error_message([&] { mlt::encode_precomputed_training(K); }, mlt::kExitDataError).find("row 3, column 2") !=
        std::string::npos);
  CHECK(error_message([] { mlt::encode_precomputed_queries(arma::mat{{1, arma::datum::inf}}); }, mlt::kExitDataError)
            .find("row 1, column 2") != std::string::npos);
  mlt::KernelParams p = precomputed();
  p.normalize = true;
  CHECK(error_message([&] { mlt::Kernel(p, 4); }, mlt::kExitUsage).find("normalize the Gram matrix before") !=
        std::string::npos);
}

// Tolerance: tests/lib/svm_test.cpp's svm kernel case, unchanged. The fixture script
// checks that SVC on these precomputed values gives SVC(kernel="rbf")'s decision values
// (to 1e-12) and support vectors, so that case's per-pair bound λ_q(x)(2ε + φ_q) +
// 1e-9 scale holds here: mlt reads the same kernel values scikit-learn used.
TEST_CASE("precomputed: the kernel SVM equals scikit-learn's SVC(kernel=\"precomputed\")") {
  const arma::mat train = read_matrix("svc_train.csv"), Kt = read_matrix("svc_test.csv");
  const arma::mat K = train.cols(0, train.n_cols - 2);
  const auto y = arma::conv_to<mlt::Labels>::from(train.col(train.n_cols - 1));
  const auto& ref = reference()["svc"];
  std::ifstream f(fixture_path("tests/fixtures/svm_kernel/reference.json"));
  const nlohmann::json bounds = nlohmann::json::parse(f)["cases"]["iris_rbf"];
  mlt::SvmParams p;
  p.kernelized = true;
  p.kernel = precomputed();
  p.lambda = 1.0 / ref["C"].get<double>();
  p.tol = 1e-6;
  mlt::Svm m(p);
  m.fit(mlt::encode_precomputed_training(K), y);
  const arma::uvec sv_ref(ref["support"].get<std::vector<arma::uword>>());
  REQUIRE(m.support().n_elem == sv_ref.n_elem);
  CHECK(arma::all(m.support() == sv_ref));
  const arma::mat Q = mlt::encode_precomputed_queries(Kt);
  const arma::mat F = m.decision_function(Q);
  const double eps = 1e-6, slack = 1e-9 * bounds["scale"].get<double>();
  for (arma::uword q = 0; q < 3; ++q)
    for (arma::uword t = 0; t < F.n_rows; ++t) {
      CAPTURE(q);
      CAPTURE(t);
      const auto& pr = bounds["pairs"][q];
      CHECK(std::abs(F(t, q) - ref["decision"][t][q].get<double>()) <=
            pr["lambda"][t].get<double>() * (2 * eps + pr["phi"].get<double>()) + slack);
    }
  const mlt::Labels pred = m.predict(Q);
  for (arma::uword t = 0; t < pred.n_elem; ++t) CHECK(pred[t] == ref["predict"][t].get<arma::uword>());
  // The model keeps its support vectors' rows, and loads to the same predictions.
  mlt::io::ModelWriter w(mlt::Svm::kind);
  m.save(w);
  const mlt::Svm back = mlt::Svm::load(mlt::io::ModelReader::parse(w.bytes(), "m"));
  CHECK(arma::approx_equal(back.decision_function(Q), F, "absdiff", 0.0));
}

// Tolerance: both solve (K + λI)α = y by a backward-stable factorization of the same
// matrix, so each α, and each prediction Kx α, is within about κ(K + λI) n ε of the
// exact one, relative to max |ŷ| (Higham, Accuracy and Stability, Thm. 10.4 for
// Cholesky): κ = 213 (stored by the script), n = 80, so 213 · 80 · 2.2e-16 ≈ 4e-12;
// ten times that is the bound.
TEST_CASE("precomputed: kernel ridge equals scikit-learn's KernelRidge(kernel=\"precomputed\"), exact and Nystrom") {
  const arma::mat train = read_matrix("krr_train.csv"), test = read_matrix("krr_test.csv");
  const arma::mat K = train.cols(0, train.n_cols - 2), Kt = test.cols(0, test.n_cols - 2);
  const arma::vec y = train.col(train.n_cols - 1);
  const auto& ref = reference()["krr"];
  mlt::KrrParams p;
  p.kernel = precomputed();
  p.lambda = ref["alpha"];
  p.fit_intercept = false;
  mlt::Krr m(p);
  m.fit(mlt::encode_precomputed_training(K), y);
  const arma::vec expected = vector_of(ref["predict"]);
  const double bound = 10 * ref["cond"].get<double>() * K.n_rows * std::numeric_limits<double>::epsilon();
  CHECK(rel_error(m.predict(mlt::encode_precomputed_queries(Kt)), expected) <= bound);

  // Nyström's landmarks are training rows, so it works on precomputed values as it
  // does on the kernel itself: the same landmarks (by seed) and the same kernel values
  // give the same model as on the rbf kernel of the rows (tests/fixtures/krr's).
  const arma::mat X = mlt::io::read_csv(fixture_path("tests/fixtures/krr/train.csv"), {}, {}).X.cols(0, 2);
  const arma::mat Xt = mlt::io::read_csv(fixture_path("tests/fixtures/krr/test.csv"), {}, {}).X.cols(0, 2);
  mlt::KrrParams q = p;
  q.nystrom = 20;
  q.fit_intercept = true;
  mlt::KrrParams r = q;
  r.kernel.type = mlt::KernelType::rbf;
  r.kernel.gamma = ref["gamma"];
  const mlt::Kernel rbf(r.kernel, 3);
  mlt::Krr pre(q), direct(r);
  pre.fit(mlt::encode_precomputed_training(rbf.gram(X, X)), y);
  direct.fit(X, y);
  // The same kernel values into the same arithmetic (the Gram entries are rbf's own:
  // kernel.hpp's entry-depends-on-its-rows promise), so agreement to rounding; 1e-12
  // relative allows a BLAS that blocks the one-wider encoded rows differently.
  CHECK(rel_error(pre.predict(mlt::encode_precomputed_queries(rbf.gram(Xt, X))), direct.predict(Xt)) <= 1e-12);
}

// Tolerance: tests/lib/kernel_pca_test.cpp's: the kept components are separated by a
// relative eigengap of at least 0.094 (the script asserts > 1e-3 and stores it), so the
// eigenvectors move by about n ε / gap ≈ 80 · 2.2e-16 / 0.094 ≈ 2e-13 relative; 1e-8.
TEST_CASE("precomputed: kernel PCA equals scikit-learn's KernelPCA(kernel=\"precomputed\") (up to sign)") {
  const arma::mat train = read_matrix("krr_train.csv"), test = read_matrix("krr_test.csv");
  const arma::mat K = train.cols(0, train.n_cols - 2), Kt = test.cols(0, test.n_cols - 2);
  const auto& ref = reference()["kpca"];
  REQUIRE(ref["min_relative_gap"].get<double>() > 1e-3);
  for (const mlt::KernelPcaSolver solver : {mlt::KernelPcaSolver::dense, mlt::KernelPcaSolver::iterative}) {
    CAPTURE(mlt::name_of(solver));
    mlt::PcaParams p;
    p.kernelized = true;
    p.kernel = precomputed();
    p.n_components = ref["n_components"];
    p.eigen_solver = solver;
    mlt::Pca pca(p);
    const arma::mat E = mlt::encode_precomputed_training(K);
    pca.fit(E);
    CHECK(arma::approx_equal(pca.eigenvalues(), vector_of(ref["eigenvalues"]), "reldiff", 1e-8));
    const arma::mat expected_test = rows_of(ref["scores_test"]), expected_train = rows_of(ref["scores_train"]);
    CHECK(rel_error(align_signs(pca.transform(mlt::encode_precomputed_queries(Kt)), expected_test), expected_test) <
          1e-8);
    CHECK(rel_error(align_signs(pca.transform(E), expected_train), expected_train) < 1e-8);
    // Its score of new rows needs their k(x, x): refused, with the reason.
    CHECK(error_message([&] { pca.projection_error(mlt::encode_precomputed_queries(Kt)); }, mlt::kExitDataError)
              .find("k(x, x)") != std::string::npos);
  }
}

// Every kernel method on mlt's own rbf Gram matrix, passed as precomputed values,
// against the same method on the rbf kernel. The Gram entries are the bits the method
// computes itself (Kernel::gram: an entry depends on its two rows only), so each
// method performs the same arithmetic on the same values; 1e-12 relative allows only a
// BLAS that blocks the one-wider encoded rows' products differently. (Written as CSV
// with %.17g and read back, the values are the same doubles: the end-to-end test
// tests/apps/precomputed_test.sh checks the commands the same way.)
TEST_CASE("precomputed: every kernel method gives the kernel's own results on its Gram matrix") {
  const arma::mat X = mlt::test::random_mat(60, 3, 11), Xt = mlt::test::random_mat(15, 3, 12);
  mlt::Labels y(60);
  for (arma::uword i = 0; i < 60; ++i) y[i] = (X(i, 0) + X(i, 1) * X(i, 2) > 0) + (X(i, 2) > 0.8);
  arma::vec t = arma::sin(2 * X.col(0)) + X.col(1);
  mlt::KernelParams rbf;
  rbf.type = mlt::KernelType::rbf;
  rbf.gamma = 0.7;
  const mlt::Kernel k(rbf, 3);
  const arma::mat E = mlt::encode_precomputed_training(k.gram(X, X));
  const arma::mat Q = mlt::encode_precomputed_queries(k.gram(Xt, X));

  SUBCASE("krr, exact, with an intercept") {
    mlt::KrrParams p;
    p.kernel = rbf;
    p.lambda = 0.3;
    mlt::Krr direct(p);
    direct.fit(X, t);
    p.kernel = precomputed();
    mlt::Krr pre(p);
    pre.fit(E, t);
    CHECK(rel_error(pre.predict(Q), direct.predict(Xt)) <= 1e-12);
  }
  SUBCASE("kernel logistic regression") {
    mlt::LogRegParams p;
    p.kernelized = true;
    p.kernel = rbf;
    p.lambda = 0.1;
    mlt::LogReg direct(p);
    direct.fit(X, y);
    p.kernel = precomputed();
    mlt::LogReg pre(p);
    pre.fit(E, y);
    CHECK(rel_error(pre.predict_proba(Q), direct.predict_proba(Xt)) <= 1e-12);
  }
  SUBCASE("kernel svm") {
    mlt::SvmParams p;
    p.kernelized = true;
    p.kernel = rbf;
    p.lambda = 0.5;
    mlt::Svm direct(p);
    direct.fit(X, y);
    p.kernel = precomputed();
    mlt::Svm pre(p);
    pre.fit(E, y);
    CHECK(rel_error(pre.decision_function(Q), direct.decision_function(Xt)) <= 1e-12);
  }
  SUBCASE("kernel perceptron") {
    mlt::PerceptronParams p;
    p.kernelized = true;
    p.kernel = rbf;
    p.max_epochs = 50;
    mlt::Perceptron direct(p);
    direct.fit(X, y);
    p.kernel = precomputed();
    mlt::Perceptron pre(p);
    pre.fit(E, y);
    CHECK(rel_error(pre.decision_function(Q), direct.decision_function(Xt)) <= 1e-12);
  }
  SUBCASE("kernel PCA") {
    mlt::PcaParams p;
    p.kernelized = true;
    p.kernel = rbf;
    p.n_components = 3;
    mlt::Pca direct(p);
    direct.fit(X);
    p.kernel = precomputed();
    mlt::Pca pre(p);
    pre.fit(E);
    const arma::mat Z = direct.transform(Xt);
    CHECK(rel_error(align_signs(pre.transform(Q), Z), Z) <= 1e-12);
  }
  SUBCASE("knn's kernel distance: training rows as queries; new rows refused (no k(x, x))") {
    mlt::KnnParams p;
    p.k = 4;
    p.weights = mlt::KnnWeights::distance;
    p.kernel = rbf;
    mlt::Knn direct(p);
    direct.fit(X, y);
    p.kernel = precomputed();
    mlt::Knn pre(p);
    pre.fit(E, y);
    const arma::uvec some = {3, 17, 42, 59};
    const auto a = pre.kneighbors(E.rows(some)), b = direct.kneighbors(X.rows(some));
    CHECK(arma::all(arma::vectorise(a.index == b.index)));
    CHECK(rel_error(a.distance, b.distance) <= 1e-12);
    CHECK(rel_error(pre.predict_proba(E.rows(some)), direct.predict_proba(X.rows(some))) <= 1e-12);
    CHECK(error_message([&] { pre.predict(Q); }, mlt::kExitDataError).find("needs k(x, x)") != std::string::npos);
  }
  SUBCASE("the smoother's kernel distance: leave-one-out; new rows refused (no k(x, x))") {
    mlt::SmootherParams p;
    p.bandwidth = 0.8;
    p.kernel = rbf;
    mlt::Smoother direct(p);
    direct.fit(X, arma::mat(t));
    p.kernel = precomputed();
    mlt::Smoother pre(p);
    pre.fit(E, arma::mat(t));
    for (const auto window : {mlt::SmootherWindow::box, mlt::SmootherWindow::epanechnikov, mlt::SmootherWindow::gaussian})
      CHECK(rel_error(pre.loo_predict(0.8, window), direct.loo_predict(0.8, window)) <= 1e-12);
    CHECK(rel_error(pre.predict_values(E), direct.predict_values(X)) <= 1e-12);
    CHECK(error_message([&] { pre.predict_values(Q); }, mlt::kExitDataError).find("needs k(x, x)") !=
          std::string::npos);
  }
}

// Tolerance: the fixture's kernel values are exact integers (spectrum counts) in both,
// or their normalization, k / sqrt(k(x,x) k(y,y)), within a few ulps of each other; the
// windows of z = d / h then differ by O(ε) relative (the script asserts no z within
// 1e-6 of a box's or epanechnikov's edge and no two strings within a distance 1e-6,
// where the cancellation in d² could matter), and the probabilities, ratios of sums
// of at most 80 such weights, by about 80 · 4ε ≈ 7e-14; 1e-11 absolute. The empty
// windows are counted exactly.
TEST_CASE("smoother: the kernel distance on strings equals the notes' formula (spectrum kernel, NumPy transcription)") {
  const auto read = [](const std::string& file, mlt::Labels& y, mlt::LabelEncoder& enc, bool fit) {
    mlt::io::ColumnSelection sel;
    sel.text = {"class"};
    sel.features_as_text = true;
    auto t = mlt::io::read_csv(fixture_path("tests/fixtures/precomputed/" + file), {}, sel);
    y = fit ? enc.fit_encode(t.text[0].values) : enc.encode(t.text[0].values, t.source, &t.lines);
    return mlt::encode_strings(t.text[1].values, [](std::size_t i) { return std::to_string(i); });
  };
  mlt::LabelEncoder enc;
  mlt::Labels y, yt;
  const arma::mat S = read("smoother_train.csv", y, enc, true), T = read("smoother_test.csv", yt, enc, false);
  const auto& all = reference()["smoother"];
  REQUIRE(enc.classes() == all["classes"].get<std::vector<std::string>>());
  for (const auto& [name, c] : all["cases"].items()) {
    CAPTURE(name);
    mlt::SmootherParams p;
    p.classification = true;
    p.bandwidth = c["bandwidth"];
    p.window = mlt::parse_name<mlt::SmootherWindow>(c["window"].get<std::string>());
    p.kernel = mlt::KernelParams{};
    p.kernel->type = mlt::KernelType::spectrum;
    p.kernel->kmer = c["kmer"];
    p.kernel->normalize = c["normalize"];
    mlt::Smoother m(p);
    m.fit(S, y);
    std::size_t empty = 0;
    CHECK(arma::abs(m.predict_values(T, &empty) - rows_of(c["proba_test"])).max() <= 1e-11);
    CHECK(empty == c["empty_test"].get<std::size_t>());
    CHECK(arma::abs(m.loo_predict(p.bandwidth, p.window, &empty) - rows_of(c["proba_loo"])).max() <= 1e-11);
    CHECK(empty == c["empty_loo"].get<std::size_t>());
    // Saved and loaded, the same bits.
    mlt::io::ModelWriter w(mlt::Smoother::kind);
    m.save(w);
    const auto back = mlt::Smoother::load(mlt::io::ModelReader::parse(w.bytes(), "m"));
    CHECK(arma::approx_equal(back.predict_values(T), m.predict_values(T), "absdiff", 0.0));
  }
}

TEST_CASE("smoother: a kernel that is not positive semi-definite is refused by name") {
  mlt::SmootherParams p;
  p.kernel = mlt::KernelParams{};
  p.kernel->type = mlt::KernelType::sigmoid;
  mlt::Smoother m(p);
  CHECK(error_message([&] { m.fit(mlt::test::random_mat(5, 2, 1), arma::mat(5, 1, arma::fill::ones)); },
                      mlt::kExitUsage)
            .find("sigmoid kernel is not positive semi-definite") != std::string::npos);
}

}  // namespace kernel_precomputed_test
