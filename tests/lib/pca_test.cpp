// PCA against scikit-learn (fixtures made by scripts/fixtures/pca.py) and on the
// degenerate cases of BAD-INPUTS.md D.41.
#include "mlt/pca.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mlt/io/csv.hpp"
#include "test_util.hpp"

namespace pca_test {

namespace {

using mlt::test::rows_of;
using mlt::test::rel_error;
using mlt::test::vector_of;

}  // namespace

TEST_CASE("PCA equals scikit-learn on the shipped datasets (1e-8 relative, axes up to sign)") {
  for (const char* name : {"iris", "iris_std_whiten", "wine", "wine_std", "diabetes", "digits"}) {
    CAPTURE(name);
    std::ifstream in(mlt::test::fixture_path(std::string("tests/fixtures/pca/") + name + ".json"));
    const auto ref = nlohmann::json::parse(in);
    mlt::io::ColumnSelection sel;
    sel.ignore = {ref["ignore"].get<std::string>()};
    const auto data = mlt::io::read_csv(mlt::test::fixture_path(ref["file"]), {}, sel);
    for (auto solver : {mlt::PcaSolver::svd, mlt::PcaSolver::covariance}) {
      mlt::PcaParams p;
      p.n_components = ref["n_components"];
      p.standardize = ref["standardize"];
      p.whiten = ref["whiten"];
      p.solver = solver;
      mlt::Pca pca(p);
      pca.fit(data.X);
      const arma::mat expected_axes = rows_of(ref["components"]);
      arma::mat axes = pca.components();
      arma::mat scores = pca.transform(data.X.rows(0, 4));
      // Align each axis's sign with scikit-learn's, then compare.
      for (arma::uword k = 0; k < axes.n_rows; ++k)
        if (arma::dot(axes.row(k), expected_axes.row(k)) < 0) {
          axes.row(k) *= -1;
          scores.col(k) *= -1;
        }
      // The covariance solver squares the condition number: its smallest axes are
      // accurate only to about eps * s_max^2 / gap, so it is held to 1e-8 on the
      // leading axes that carry 99.99% of the variance only.
      arma::uword check_k = axes.n_rows;
      if (solver == mlt::PcaSolver::covariance) {
        const arma::vec cum = arma::cumsum(vector_of(ref["explained_variance_ratio"]));
        check_k = 1;
        while (check_k < axes.n_rows && cum[check_k - 1] < 0.9999) ++check_k;
      }
      CAPTURE(static_cast<int>(solver));
      CHECK(rel_error(axes.rows(0, check_k - 1), expected_axes.rows(0, check_k - 1)) < 1e-8);
      CHECK(rel_error(scores.cols(0, check_k - 1), rows_of(ref["scores_first_rows"]).cols(0, check_k - 1)) < 1e-8);
      CHECK(arma::approx_equal(pca.explained_variance(), vector_of(ref["explained_variance"]), "reldiff", 1e-8));
      CHECK(arma::approx_equal(pca.explained_variance_ratio(), vector_of(ref["explained_variance_ratio"]), "reldiff", 1e-8));
      CHECK(arma::approx_equal(pca.singular_values(), vector_of(ref["singular_values"]), "reldiff", 1e-8));
    }
  }
}

TEST_CASE("sign convention: the largest coordinate of each axis is positive") {
  arma::mat X(50, 4, arma::fill::randn);
  mlt::Pca pca;
  pca.fit(X);
  for (arma::uword k = 0; k < pca.components().n_rows; ++k) {
    const arma::rowvec axis = pca.components().row(k);
    CHECK(axis[arma::index_max(arma::abs(axis))] > 0);
  }
  mlt::Pca flipped;
  flipped.fit(-X);  // the same axes up to sign: the convention makes them equal
  CHECK(arma::approx_equal(flipped.components(), pca.components(), "absdiff", 1e-12));
}

TEST_CASE("degenerate data gives finite results") {
  SUBCASE("more features than samples") {
    arma::mat X(3, 6, arma::fill::randn);
    mlt::Pca pca;
    pca.fit(X);
    CHECK(pca.n_components() == 3);
    CHECK(pca.explained_variance_ratio().is_finite());
    CHECK(pca.explained_variance_ratio()[2] < 1e-12);  // 3 centred points span 2 dimensions
  }
  SUBCASE("a constant column") {
    arma::mat X(20, 3, arma::fill::randn);
    X.col(1).fill(7);
    for (bool standardize : {false, true}) {
      mlt::PcaParams p;
      p.standardize = standardize;
      mlt::Pca pca(p);
      pca.fit(X);
      CHECK(pca.explained_variance_ratio().is_finite());
      CHECK(pca.transform(X).is_finite());
      CHECK(std::abs(arma::accu(pca.explained_variance_ratio()) - 1) < 1e-12);
    }
  }
  SUBCASE("all-constant data: 0/0 is 0") {
    arma::mat X(10, 3, arma::fill::ones);
    mlt::PcaParams p;
    p.whiten = true;
    mlt::Pca pca(p);
    pca.fit(X);
    CHECK(arma::all(pca.explained_variance_ratio() == 0));
    CHECK(pca.transform(X).is_finite());
    CHECK(pca.reconstruction_mse(X) == 0);
    CHECK(pca.explained_variance_ratio(X) == 0);
  }
  SUBCASE("one sample") {
    mlt::Pca pca;
    pca.fit(arma::mat{{1, 2, 3}});
    CHECK(pca.n_components() == 1);
    CHECK(pca.explained_variance().is_finite());
  }
  SUBCASE("values that would overflow when squared") {
    arma::mat X(5, 2, arma::fill::randn);
    X(2, 1) = 1e200;
    mlt::Pca pca;
    CHECK(mlt::test::error_message([&] { pca.fit(X); }, mlt::kExitDataError).find("would overflow") !=
          std::string::npos);
  }
  SUBCASE("past a million values (the check then runs by column on the threads): one bad value in the last column") {
    arma::mat X(200001, 5, arma::fill::randn);
    mlt::Pca pca;
    X(200000, 4) = std::nan("");
    CHECK(mlt::test::error_message([&] { pca.fit(X); }, mlt::kExitDataError) == "non-finite value in the data");
    X(200000, 4) = -1e151;
    CHECK(mlt::test::error_message([&] { pca.fit(X); }, mlt::kExitDataError).find("would overflow") !=
          std::string::npos);
  }
}

TEST_CASE("parameters are checked in fit") {
  arma::mat X(10, 3, arma::fill::randn);
  mlt::PcaParams p;
  p.n_components = 4;
  CHECK(mlt::test::error_message([&] { mlt::Pca(p).fit(X); }, mlt::kExitDataError) ==
        "n_components=4 > min(n_samples=10, n_features=3)");
  p.n_components = 0;
  p.variance = 1.5;
  CHECK(mlt::test::error_message([&] { mlt::Pca(p).fit(X); }, mlt::kExitUsage) == "variance must be in (0, 1)");
}

TEST_CASE("variance selects the fewest components explaining more than the fraction") {
  std::ifstream in(mlt::test::fixture_path("tests/fixtures/pca/wine_std.json"));
  const auto ref = nlohmann::json::parse(in);
  const arma::vec cum = arma::cumsum(vector_of(ref["explained_variance_ratio"]));
  mlt::io::ColumnSelection sel;
  sel.ignore = {"cultivar"};
  const auto data = mlt::io::read_csv(mlt::test::fixture_path("data/wine.csv"), {}, sel);
  for (double f : {0.5, 0.8, 0.95}) {
    mlt::PcaParams p;
    p.standardize = true;
    p.variance = f;
    mlt::Pca pca(p);
    pca.fit(data.X);
    const arma::uword k = pca.n_components();
    CAPTURE(f);
    CHECK(cum[k - 1] > f);
    CHECK((k == 1 || cum[k - 2] <= f));
  }
}

TEST_CASE("transform and inverse, whitened or not, round trip") {
  arma::mat X(40, 5, arma::fill::randn);
  X.col(3) *= 100;
  for (bool whiten : {false, true})
    for (bool standardize : {false, true}) {
      mlt::PcaParams p;
      p.whiten = whiten;
      p.standardize = standardize;
      mlt::Pca pca(p);
      pca.fit(X);
      CHECK(rel_error(pca.inverse_transform(pca.transform(X)), X) < 1e-12);
      CHECK(pca.reconstruction_mse(X) < 1e-20 * arma::accu(arma::square(X)));
      if (whiten) CHECK(arma::approx_equal(arma::var(pca.transform(X), 0, 0), arma::rowvec(5, arma::fill::ones), "absdiff", 1e-10));
    }
}

TEST_CASE("save and load give identical results") {
  arma::mat X(30, 4, arma::fill::randn);
  mlt::PcaParams p;
  p.n_components = 2;
  p.standardize = true;
  p.whiten = true;
  mlt::Pca pca(p);
  pca.fit(X);
  mlt::io::ModelWriter w(mlt::Pca::kind);
  pca.save(w);
  const std::string bytes = w.bytes();
  const mlt::Pca loaded = mlt::Pca::load(mlt::io::ModelReader::parse(bytes, "m"));
  CHECK(arma::approx_equal(loaded.transform(X), pca.transform(X), "absdiff", 0.0));
  CHECK(mlt::test::error_message([&] { loaded.transform(arma::mat(3, 5, arma::fill::zeros)); }, mlt::kExitDataError) ==
        "model trained on 4 features, input has 5");
}

}  // namespace pca_test
