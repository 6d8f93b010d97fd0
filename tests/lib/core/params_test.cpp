// The hyperparameter declarations (mlt/core/params.hpp): values are checked as the
// table says, written where it says, and every estimator's table is well formed.
#include "mlt/core/params.hpp"

#include <doctest/doctest.h>

#include <set>

#include "mlt/kmeans.hpp"
#include "mlt/knn.hpp"
#include "mlt/krr.hpp"
#include "mlt/logreg.hpp"
#include "mlt/pca.hpp"
#include "mlt/perceptron.hpp"
#include "mlt/ridge.hpp"
#include "mlt/svm.hpp"

namespace core_params_test {

namespace {

template <class P>
void check_table() {
  const mlt::ParamTable<P>& t = P::table();
  REQUIRE_FALSE(t.empty());
  std::set<std::string> names, flags;
  const P defaults{};
  for (const mlt::Param<P>& d : t) {
    CAPTURE(d.name);
    CHECK(names.insert(d.name).second);  // one declaration per name
    CHECK(flags.insert(d.flag).second);
    CHECK_FALSE(d.help.empty());
    CHECK(static_cast<bool>(d.set));
    CHECK(static_cast<bool>(d.json));
    CHECK(d.applies_when.empty() == !d.applies);  // a condition always says itself
    if (!d.excludes.empty()) CHECK(mlt::find_param(t, d.excludes) != nullptr);
    if (!d.needs.empty()) CHECK(mlt::find_param(t, d.needs) != nullptr);
    // A default shown in --help passes the parameter's own check.
    if (d.show_default && d.type != mlt::ParamType::flag && !d.required) CHECK(d.check(d.show(defaults)) == "");
  }
}

}  // namespace

TEST_CASE("params: every estimator's table is well formed") {
  check_table<mlt::RidgeParams>();
  check_table<mlt::KrrParams>();
  check_table<mlt::LogRegParams>();
  check_table<mlt::KnnParams>();
  check_table<mlt::KMeansParams>();
  check_table<mlt::PcaParams>();
  check_table<mlt::PerceptronParams>();
  check_table<mlt::SvmParams>();
}

TEST_CASE("params: values are read and checked as declared") {
  using P = mlt::RidgeParams;
  const mlt::ParamTable<P>& t = P::table();
  const mlt::Param<P>& lambda = *mlt::find_param(t, "lambda");
  mlt::ParamValue v;
  CHECK(lambda.check("0.25", &v) == "");
  P p;
  lambda.set(p, v);
  CHECK(p.lambda == 0.25);
  CHECK(lambda.check("-1") == "must be a finite number >= 0, got -1");
  CHECK(lambda.check("1e400") == "expected a number, got 1e400");
  CHECK(lambda.check("2x") == "expected a number, got 2x");
  const mlt::Param<P>& solver = *mlt::find_param(t, "solver");
  CHECK(solver.check("svd") == "");
  CHECK(solver.check("qr").find("unknown") != std::string::npos);

  using K = mlt::KMeansParams;
  const mlt::Param<K>& k = *mlt::find_param(K::table(), "k");
  CHECK(k.check("0") == "must be a whole number >= 1, got 0");
  CHECK(k.check("2.5") == "must be a whole number >= 1, got 2.5");
  const mlt::Param<K>& seed = *mlt::find_param(K::table(), "seed");
  CHECK(seed.check("18446744073709551615") == "");
  for (const char* bad : {"-1", "18446744073709551616", "0x10", "1e3"})
    CHECK(seed.check(bad) == std::string("a seed is a whole number from 0 to 18446744073709551615, got ") + bad);
  K q;
  seed.set(q, {"18446744073709551615", 0});
  CHECK(q.seed == 18446744073709551615ull);  // from the text, not through a double

  CHECK(mlt::describe_bounds(mlt::Bounds::open(0, 1), false) == "a number in (0, 1)");
  CHECK(mlt::describe_bounds(mlt::Bounds::above(0), false) == "a finite number > 0");
}

TEST_CASE("params: when a parameter applies") {
  using P = mlt::KrrParams;
  const mlt::Param<P>& degree = *mlt::find_param(P::table(), "degree");
  const mlt::Param<P>& seed = *mlt::find_param(P::table(), "seed");
  P p;
  p.kernel.type = mlt::KernelType::rbf;
  CHECK_FALSE(degree.applies(p));
  CHECK(degree.applies_when == "to the poly kernel only");
  p.kernel.type = mlt::KernelType::poly;
  CHECK(degree.applies(p));
  CHECK_FALSE(seed.applies(p));  // the landmark seed: only with Nyström
  p.nystrom = 10;
  CHECK(seed.applies(p));

  using L = mlt::LogRegParams;  // a kernel parameter without a kernel applies to nothing
  const mlt::Param<L>& gamma = *mlt::find_param(L::table(), "gamma");
  L l;
  CHECK_FALSE(gamma.applies(l));
  CHECK(gamma.needs == "kernel");
  find_param(L::table(), "kernel")->set(l, {"rbf", 0});
  CHECK(l.kernelized);
  CHECK(gamma.applies(l));
}

TEST_CASE("params: the model header's params are the table's, by name") {
  mlt::RidgeParams p;
  p.lambda = 0.5;
  p.fit_intercept = false;
  p.solver = mlt::RidgeSolver::svd;
  const nlohmann::json j = mlt::params_json(mlt::RidgeParams::table(), p);
  CHECK(j == nlohmann::json{{"lambda", 0.5}, {"fit_intercept", false}, {"standardize", false}, {"solver", "svd"}});
}

}  // namespace core_params_test
