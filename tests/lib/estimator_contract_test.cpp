// The contract every estimator keeps (scikit-learn's check_estimator in spirit).
// Adding an estimator: write its Contract<E> specialisation (how to make data, fit
// and apply it) and add the type to the TEST_CASE_TEMPLATE lists below.
#include <doctest/doctest.h>

#include "mlt/core/parallel.hpp"
#include "mlt/kmeans.hpp"
#include "mlt/knn.hpp"
#include "mlt/krr.hpp"
#include "mlt/logreg.hpp"
#include "mlt/pca.hpp"
#include "mlt/perceptron.hpp"
#include "mlt/ridge.hpp"
#include "mlt/smoother.hpp"
#include "mlt/svm.hpp"
#include "test_util.hpp"

namespace estimator_contract_test {

namespace {

// Data with a little structure, the same for every run.
arma::mat sample_features(arma::uword n, arma::uword p, unsigned seed) {
  arma::arma_rng::set_seed(seed);
  arma::mat X(n, p, arma::fill::randn);
  X.col(0) += 3 * X.col(p - 1);
  return X;
}

template <typename E>
struct Contract;

template <>
struct Contract<mlt::Pca> {
  static mlt::Pca make() {
    mlt::PcaParams p;
    p.n_components = 2;
    p.standardize = true;
    return mlt::Pca(p);
  }
  static void fit(mlt::Pca& e, const arma::mat& X) { e.fit(X); }
  static arma::mat apply(const mlt::Pca& e, const arma::mat& X) { return e.transform(X); }
};

// Supervised estimators learn from the features plus a target derived from them.
arma::mat regression_target(const arma::mat& X) { return X.col(1) - 2 * X.col(2) + 0.1 * X.col(0); }
mlt::Labels binary_target(const arma::mat& X) {
  mlt::Labels y(X.n_rows);
  for (arma::uword i = 0; i < X.n_rows; ++i) y[i] = X(i, 1) - X(i, 2) > 0.3 ? 1 : 0;
  return y;
}
mlt::Labels class_target(const arma::mat& X) {
  mlt::Labels y(X.n_rows);
  for (arma::uword i = 0; i < X.n_rows; ++i) y[i] = X(i, 1) > 0.5 ? 2 : X(i, 1) > -0.5 ? 1 : 0;
  return y;
}

template <>
struct Contract<mlt::KMeans> {
  static mlt::KMeans make() {
    mlt::KMeansParams p;
    p.k = 3;
    p.n_init = 2;
    return mlt::KMeans(p);
  }
  static void fit(mlt::KMeans& e, const arma::mat& X) { e.fit(X); }
  static arma::mat apply(const mlt::KMeans& e, const arma::mat& X) {
    return arma::conv_to<arma::mat>::from(e.predict(X));
  }
};

template <>
struct Contract<mlt::Ridge> {
  static mlt::Ridge make() {
    mlt::RidgeParams p;
    p.lambda = 0.5;
    p.standardize = true;
    return mlt::Ridge(p);
  }
  static void fit(mlt::Ridge& e, const arma::mat& X) { e.fit(X, regression_target(X)); }
  static arma::mat apply(const mlt::Ridge& e, const arma::mat& X) { return e.predict(X); }
};

template <>
struct Contract<mlt::Krr> {
  static mlt::Krr make() {
    mlt::KrrParams p;
    p.lambda = 0.1;
    p.kernel.type = mlt::KernelType::rbf;
    return mlt::Krr(p);
  }
  static void fit(mlt::Krr& e, const arma::mat& X) { e.fit(X, regression_target(X)); }
  static arma::mat apply(const mlt::Krr& e, const arma::mat& X) { return e.predict(X); }
};

template <>
struct Contract<mlt::LogReg> {
  static mlt::LogReg make() {
    mlt::LogRegParams p;
    p.lambda = 0.1;
    p.standardize = true;
    return mlt::LogReg(p);
  }
  static void fit(mlt::LogReg& e, const arma::mat& X) { e.fit(X, class_target(X), 3); }
  static arma::mat apply(const mlt::LogReg& e, const arma::mat& X) { return e.predict_proba(X); }
};

template <>
struct Contract<mlt::Knn> {
  static mlt::Knn make() {
    mlt::KnnParams p;
    p.k = 4;
    p.weights = mlt::KnnWeights::distance;
    return mlt::Knn(p);
  }
  static void fit(mlt::Knn& e, const arma::mat& X) { e.fit(X, class_target(X), 3); }
  static arma::mat apply(const mlt::Knn& e, const arma::mat& X) { return e.predict_proba(X); }
};

template <>
struct Contract<mlt::Perceptron> {
  static mlt::Perceptron make() {
    mlt::PerceptronParams p;
    p.standardize = true;
    p.average = true;
    p.max_epochs = 20;  // the classes are not linearly separable: it warns and stops there
    return mlt::Perceptron(p);
  }
  static void fit(mlt::Perceptron& e, const arma::mat& X) {
    mlt::test::Warnings quiet;
    e.fit(X, class_target(X), 3);
  }
  static arma::mat apply(const mlt::Perceptron& e, const arma::mat& X) { return e.decision_function(X); }
};

template <>
struct Contract<mlt::SmootherRegressor> {
  static mlt::SmootherRegressor make() {
    mlt::SmootherParams p;
    p.bandwidth = 0.8;
    p.window = mlt::SmootherWindow::epanechnikov;
    p.standardize = true;
    return mlt::SmootherRegressor(p);
  }
  static void fit(mlt::SmootherRegressor& e, const arma::mat& X) { e.fit(X, regression_target(X)); }
  static arma::mat apply(const mlt::SmootherRegressor& e, const arma::mat& X) { return e.predict(X); }
};

template <>
struct Contract<mlt::Smoother> {
  static mlt::Smoother make() {
    mlt::SmootherParams p;
    p.bandwidth = 1.5;
    p.classification = true;
    return mlt::Smoother(p);
  }
  static void fit(mlt::Smoother& e, const arma::mat& X) { e.fit(X, class_target(X), 3); }
  static arma::mat apply(const mlt::Smoother& e, const arma::mat& X) { return e.predict_proba(X); }
};

// Kernel PCA: the Pca estimator with a kernel, as its own entry of the lists.
struct KernelPca : mlt::Pca {
  using mlt::Pca::Pca;
  KernelPca(mlt::Pca p) : mlt::Pca(std::move(p)) {}
  static KernelPca load(const mlt::io::ModelReader& in) { return KernelPca(mlt::Pca::load(in)); }
};

template <>
struct Contract<KernelPca> {
  static KernelPca make() {
    mlt::PcaParams p;
    p.n_components = 3;
    p.standardize = true;
    p.kernelized = true;
    p.kernel.type = mlt::KernelType::rbf;
    return KernelPca(p);
  }
  static void fit(KernelPca& e, const arma::mat& X) { e.fit(X); }
  static arma::mat apply(const KernelPca& e, const arma::mat& X) { return e.transform(X); }
};

template <>
struct Contract<mlt::Svm> {
  static mlt::Svm make() {
    mlt::SvmParams p;
    p.lambda = 0.1;
    p.standardize = true;
    return mlt::Svm(p);
  }
  static void fit(mlt::Svm& e, const arma::mat& X) { e.fit(X, class_target(X), 3); }
  static arma::mat apply(const mlt::Svm& e, const arma::mat& X) { return e.decision_function(X); }
};

// The kernel SVM (SMO, one-vs-one): the Svm estimator with a kernel.
struct KernelSvm : mlt::Svm {
  using mlt::Svm::Svm;
  KernelSvm(mlt::Svm s) : mlt::Svm(std::move(s)) {}
  static KernelSvm load(const mlt::io::ModelReader& in) { return KernelSvm(mlt::Svm::load(in)); }
};

template <>
struct Contract<KernelSvm> {
  static KernelSvm make() {
    mlt::SvmParams p;
    p.standardize = true;
    p.kernelized = true;
    p.kernel.type = mlt::KernelType::rbf;
    return KernelSvm(p);
  }
  static void fit(KernelSvm& e, const arma::mat& X) { e.fit(X, class_target(X), 3); }
  static arma::mat apply(const KernelSvm& e, const arma::mat& X) { return e.decision_function(X); }
};

template <typename E>
std::string saved(const E& e) {
  mlt::io::ModelWriter w(E::kind);
  e.save(w);
  return w.bytes();
}

}  // namespace

TEST_CASE_TEMPLATE("estimator contract", E, mlt::Pca, mlt::KMeans, mlt::Ridge, mlt::Krr, mlt::LogReg, mlt::Knn,
                   mlt::Perceptron, mlt::SmootherRegressor, mlt::Smoother, KernelPca, mlt::Svm, KernelSvm) {
  using C = Contract<E>;
  const arma::mat X = sample_features(60, 4, 1);
  const arma::mat other = sample_features(40, 4, 2);
  const arma::mat test = sample_features(25, 4, 3);

  SUBCASE("fit starts over: fitting twice equals fitting once") {
    E twice = C::make();
    C::fit(twice, other);
    C::fit(twice, X);
    E once = C::make();
    C::fit(once, X);
    CHECK(saved(twice) == saved(once));
  }
  SUBCASE("deterministic: two fits give the same model, byte for byte") {
    E a = C::make(), b = C::make();
    C::fit(a, X);
    C::fit(b, X);
    CHECK(saved(a) == saved(b));
  }
  SUBCASE("the model does not depend on the thread count (the rule of mlt/core/parallel.hpp)") {
    std::vector<std::string> models;
    for (unsigned threads : {1u, 2u, 3u}) {
      mlt::set_thread_count(threads);
      E e = C::make();
      C::fit(e, X);
      models.push_back(saved(e));
    }
    mlt::set_thread_count(0);
    CHECK(models[0] == models[1]);
    CHECK(models[0] == models[2]);
  }
  SUBCASE("save and load give identical results") {
    E e = C::make();
    C::fit(e, X);
    const std::string bytes = saved(e);
    const E loaded = E::load(mlt::io::ModelReader::parse(bytes, "m"));
    CHECK(arma::approx_equal(C::apply(loaded, test), C::apply(e, test), "absdiff", 0.0));
    CHECK(saved(loaded) == bytes);
  }
  SUBCASE("predict before fit is an error, not a crash or a number") {
    const E e = C::make();
    CHECK_FALSE(e.is_fitted());
    CHECK(mlt::test::error_message([&] { C::apply(e, test); }, mlt::kExitSoftware).find("before fit") !=
          std::string::npos);
  }
  SUBCASE("a wrong number of features is refused") {
    E e = C::make();
    C::fit(e, X);
    CHECK(mlt::test::error_message([&] { C::apply(e, arma::mat(5, 3, arma::fill::ones)); }, mlt::kExitDataError) ==
          "model trained on 4 features, input has 3");
  }
  SUBCASE("rows are independent: permuted or chunked input gives permuted or chunked output") {
    E e = C::make();
    C::fit(e, X);
    const arma::mat whole = C::apply(e, test);
    const arma::uvec perm = arma::regspace<arma::uvec>(test.n_rows - 1, 0);  // reversed
    CHECK(arma::approx_equal(C::apply(e, test.rows(perm)), whole.rows(perm), "absdiff", 0.0));
    const arma::mat chunks = arma::join_cols(C::apply(e, test.rows(0, 9)), C::apply(e, test.rows(10, test.n_rows - 1)));
    CHECK(arma::approx_equal(chunks, whole, "absdiff", 0.0));
  }
  SUBCASE("non-finite input is refused in fit") {
    arma::mat bad = X;
    bad(3, 1) = arma::datum::nan;
    E e = C::make();
    CHECK(mlt::test::error_message([&] { C::fit(e, bad); }, mlt::kExitDataError) == "non-finite value in the data");
  }
}

// A classifier or regressor by a parameter (TaskByParameter): the one pass the shared
// predict and score verbs use gives exactly what the separate calls give, for both
// tasks. Exact by construction: predict_task makes the same calls on the same input
// (knn: kneighbors, then vote or average; the smoother: predict_values), whose results
// do not depend on the thread count (core/parallel.hpp), so only the sharing of one
// pass differs, never an operation.
TEST_CASE_TEMPLATE("task by parameter: predict_task is predict, predict_proba and predict_values", E, mlt::Knn,
                   mlt::Smoother) {
  static_assert(mlt::TaskByParameter<E>);
  const arma::mat X = sample_features(60, 4, 1);
  const arma::mat test = sample_features(25, 4, 3);
  typename E::Params p;
  if constexpr (std::is_same_v<E, mlt::Knn>) {
    p.k = 4;
    p.weights = mlt::KnnWeights::distance;
  } else {
    p.window = mlt::SmootherWindow::box;
    p.bandwidth = 0.8;  // narrow enough that some test rows have an empty window
  }
  SUBCASE("classification") {
    if constexpr (std::is_same_v<E, mlt::Knn>) p.regression = false;
    else p.classification = true;
    E e(p);
    e.fit(X, class_target(X), 3);
    REQUIRE(e.is_classification());
    const mlt::TaskPrediction t = e.predict_task(test);
    CHECK(arma::all(t.classes == e.predict(test)));
    CHECK(arma::approx_equal(t.values, e.predict_proba(test), "absdiff", 0.0));
  }
  SUBCASE("regression") {
    if constexpr (std::is_same_v<E, mlt::Knn>) p.regression = true;
    E e(p);
    e.fit(X, regression_target(X));
    REQUIRE_FALSE(e.is_classification());
    const mlt::TaskPrediction t = e.predict_task(test);
    CHECK(t.classes.is_empty());
    if constexpr (std::is_same_v<E, mlt::Smoother>) {
      std::size_t n_empty = 0;
      CHECK(arma::approx_equal(t.values, e.predict_values(test, &n_empty), "absdiff", 0.0));
      CHECK(t.n_defaulted == n_empty);
      CHECK(n_empty > 0);  // the case is exercised
    } else {
      CHECK(arma::approx_equal(t.values, e.predict_values(test), "absdiff", 0.0));
      CHECK(t.n_defaulted == 0);
    }
  }
}

// Row independence holds by construction (mlt/core/rowwise.hpp), so it is checked
// exactly for every kernel and variant, not only for the contract's configuration:
// reversed rows, two chunks, and one row at a time give the same bits as the batch.
namespace {
template <typename Apply>
void check_rows_independent(const Apply& apply, const arma::mat& T) {
  const arma::mat whole = apply(T);
  const arma::uvec reversed = arma::regspace<arma::uvec>(T.n_rows - 1, 0);
  CHECK(arma::approx_equal(apply(T.rows(reversed)), whole.rows(reversed), "absdiff", 0.0));
  CHECK(arma::approx_equal(arma::join_cols(apply(T.rows(0, 16)), apply(T.rows(17, T.n_rows - 1))), whole, "absdiff",
                           0.0));
  for (arma::uword i : {0u, 5u, 16u, 17u})
    CHECK(arma::approx_equal(apply(T.rows(i, i)), whole.rows(i, i), "absdiff", 0.0));
}
}  // namespace

TEST_CASE("rows are independent for every kernel and variant, exactly") {
  const arma::mat X = sample_features(80, 4, 3), T = sample_features(41, 4, 4);
  for (auto type : {mlt::KernelType::linear, mlt::KernelType::poly, mlt::KernelType::rbf, mlt::KernelType::laplacian,
                    mlt::KernelType::exponential, mlt::KernelType::sigmoid}) {
    CAPTURE(mlt::name_of(type));
    for (std::size_t nystrom : {std::size_t(0), std::size_t(20)}) {
      if (nystrom && type == mlt::KernelType::sigmoid) continue;  // refused: not positive definite
      CAPTURE(nystrom);
      mlt::KrrParams p;
      p.kernel.type = type;
      p.kernel.degree = 2;
      p.nystrom = nystrom;
      p.standardize = true;
      mlt::Krr krr(p);
      krr.fit(X, regression_target(X));
      check_rows_independent([&](const arma::mat& A) { return krr.predict(A); }, T);
    }
    mlt::LogRegParams lp;
    lp.kernel.type = type;
    lp.kernelized = true;
    lp.kernel.degree = 2;
    mlt::LogReg lr(lp);
    const bool psd = type != mlt::KernelType::sigmoid;  // logreg and knn refuse the others
    if (psd) {
      lr.fit(X, class_target(X), 3);
      check_rows_independent([&](const arma::mat& A) { return lr.predict_proba(A); }, T);
    } else {
      CHECK_THROWS_AS(lr.fit(X, class_target(X), 3), mlt::UsageError);
    }
    mlt::PerceptronParams pp;
    pp.kernelized = true;
    pp.kernel.type = type;
    pp.kernel.degree = 2;
    pp.max_epochs = 10;
    mlt::Perceptron perceptron(pp);
    {
      mlt::test::Warnings quiet;
      perceptron.fit(X, class_target(X), 3);
    }
    check_rows_independent([&](const arma::mat& A) { return perceptron.decision_function(A); }, T);
    mlt::KnnParams kp;
    kp.k = 5;
    kp.weights = mlt::KnnWeights::distance;
    kp.kernel = mlt::KernelParams{};
    kp.kernel->type = type;
    kp.kernel->degree = 2;
    mlt::Knn knn(kp);
    if (!psd) {
      CHECK_THROWS_AS(knn.fit(X, class_target(X), 3), mlt::UsageError);
      continue;
    }
    knn.fit(X, class_target(X), 3);
    check_rows_independent([&](const arma::mat& A) { return knn.predict_proba(A); }, T);
  }
  mlt::PcaParams pp;
  pp.n_components = 3;
  pp.whiten = true;
  mlt::Pca pca(pp);
  pca.fit(X);
  check_rows_independent([&](const arma::mat& A) { return pca.transform(A); }, T);
  mlt::Perceptron primal;
  {
    mlt::test::Warnings quiet;
    primal.fit(X, class_target(X), 3);
  }
  check_rows_independent([&](const arma::mat& A) { return primal.decision_function(A); }, T);
  check_rows_independent([&](const arma::mat& A) { return pca.inverse_transform(A.cols(0, 2)); }, T);
}

TEST_CASE("Nyström krr: the same model for every thread count, over several row blocks") {
  // 70,000 rows are two blocks of the accumulation (mlt/krr.cpp), so the blocks'
  // partial sums are combined; they must be combined the same way for any --threads.
  const arma::mat X = sample_features(70000, 3, 5);
  mlt::KrrParams p;
  p.nystrom = 8;
  p.lambda = 0.1;
  std::vector<std::string> models;
  for (unsigned threads : {1u, 2u, 3u}) {
    mlt::set_thread_count(threads);
    mlt::Krr krr(p);
    krr.fit(X, regression_target(X));
    models.push_back(saved(krr));
  }
  mlt::set_thread_count(0);
  CHECK(models[0] == models[1]);
  CHECK(models[0] == models[2]);
}

TEST_CASE("logistic regression: the same model for every thread count, on data a threaded BLAS would split") {
  // 40,000 x 20: large enough for OpenBLAS to split a product over its threads, whose
  // transposed matrix-vector product adds its partial sums by thread; the fit's passes
  // over the data go by column or by fixed parts on mlt's threads instead.
  const arma::mat X = sample_features(40000, 20, 9);
  for (const std::size_t classes : {std::size_t{2}, std::size_t{3}}) {
    CAPTURE(classes);
    std::vector<std::string> models;
    for (unsigned threads : {1u, 2u, 3u}) {
      mlt::set_thread_count(threads);
      mlt::LogReg lr;
      lr.fit(X, classes == 2 ? binary_target(X) : class_target(X), classes);
      models.push_back(saved(lr));
    }
    mlt::set_thread_count(0);
    CHECK(models[0] == models[1]);
    CHECK(models[0] == models[2]);
  }
}

}  // namespace estimator_contract_test
