// The name tables (mlt/core/names.hpp): every value round-trips through its
// canonical name, aliases are read but never written, and an unknown name is
// refused with the canonical list.
#include "mlt/core/names.hpp"

#include <doctest/doctest.h>

#include "mlt/io/csv.hpp"
#include "mlt/kernel.hpp"
#include "mlt/kmeans.hpp"
#include "mlt/knn.hpp"
#include "mlt/krr.hpp"
#include "mlt/logreg.hpp"
#include "mlt/pca.hpp"
#include "mlt/ridge.hpp"

namespace core_names_test {

namespace {

template <typename E>
void check_round_trip(std::size_t n_values) {
  const std::vector<std::string> names = mlt::canonical_names<E>();
  CHECK(names.size() == n_values);
  for (const std::string& name : names) CHECK(mlt::name_of(mlt::parse_name<E>(name)) == name);
  for (const auto& entry : name_table(E{}).entries) CHECK(mlt::parse_name<E>(entry.name) == entry.value);
}

}  // namespace

TEST_CASE("every enumeration's names round-trip; aliases are read, canonical names written") {
  check_round_trip<mlt::KernelType>(9);
  check_round_trip<mlt::KMeansInit>(4);
  check_round_trip<mlt::KMeansStop>(3);
  check_round_trip<mlt::KnnWeights>(3);
  check_round_trip<mlt::LandmarkMethod>(2);
  check_round_trip<mlt::MultiClass>(2);
  check_round_trip<mlt::RidgeSolver>(4);
  check_round_trip<mlt::PcaSolver>(3);
  check_round_trip<mlt::knn::Metric>(4);
  check_round_trip<mlt::knn::Algorithm>(3);
  check_round_trip<mlt::io::MissingPolicy>(2);
  CHECK(mlt::parse_name<mlt::KernelType>("gaussian") == mlt::KernelType::rbf);
  CHECK(mlt::name_of(mlt::parse_name<mlt::KernelType>("polynomial")) == "poly");
  CHECK(mlt::name_of(mlt::parse_name<mlt::RidgeSolver>("cholesky")) == "primal");
  CHECK_THROWS_WITH_AS(mlt::parse_name<mlt::KernelType>("rfb"),
                       "unknown kernel \"rfb\" (linear, poly, rbf, laplacian, exponential, sigmoid, spectrum, walk, precomputed)", mlt::UsageError);
  CHECK_THROWS_WITH_AS(mlt::parse_name<mlt::KMeansInit>("Random"), "unknown seeding \"Random\" (kmeans++, random, farthest, kmeans||)",
                       mlt::UsageError);
}

}  // namespace core_names_test
