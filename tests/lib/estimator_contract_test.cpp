// The contract every estimator keeps (scikit-learn's check_estimator in spirit).
// Adding an estimator: write its Contract<E> specialisation (how to make data, fit
// and apply it) and add the type to the TEST_CASE_TEMPLATE lists below.
#include <doctest/doctest.h>

#include "mlt/pca.hpp"
#include "test_util.hpp"

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

template <typename E>
std::string saved(const E& e) {
  mlt::io::ModelWriter w(E::kind);
  e.save(w);
  return w.bytes();
}

}  // namespace

TEST_CASE_TEMPLATE("estimator contract", E, mlt::Pca) {
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
  SUBCASE("save and load give identical results") {
    E e = C::make();
    C::fit(e, X);
    const std::string bytes = saved(e);
    const E loaded = E::load(mlt::io::ModelReader::parse(bytes, "m"));
    CHECK(arma::approx_equal(C::apply(loaded, test), C::apply(e, test), "absdiff", 0.0));
    CHECK(saved(loaded) == bytes);
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
