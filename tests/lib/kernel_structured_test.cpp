// The spectrum kernel on strings and the walk kernel on graphs (mlt/kernel_strings.hpp,
// mlt/kernel_graphs.hpp) against the lecture notes' definitions transcribed in
// scripts/fixtures/kernel_structured.py (tests/fixtures/kernel_structured/): the
// spectrum by its O(k|x||y|) double loop over positions, the walk kernel on the
// explicit product graph by NumPy matrix powers.
//
// Exactness: unnormalized values are integers below 2^53, computed by mlt from
// integer products and sums, so any order of summation gives them exactly: compared
// with ==. Normalized values k / sqrt(k(x,x) k(y,y)) go through one square root, a
// division and products of two factors (mlt multiplies k by r_i r_j, NumPy divides by
// sqrt(d_i) sqrt(d_j)): a few roundings of 2^-53 each, so 1e-14 relative.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "mlt/core/parallel.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/kernel.hpp"
#include "mlt/kernel_graphs.hpp"
#include "mlt/kernel_strings.hpp"
#include "test_util.hpp"

namespace kernel_structured_test {

namespace {

using mlt::test::fixture_path;

std::vector<std::string> column(const std::string& name, const std::string& col) {
  mlt::io::ColumnSelection sel;
  sel.text = {col};
  return mlt::io::read_csv(fixture_path("tests/fixtures/kernel_structured/" + name), {}, sel).text.at(0).values;
}

arma::mat reference(const std::string& name) {
  arma::mat K;
  REQUIRE(K.load(fixture_path("tests/fixtures/kernel_structured/" + name), arma::csv_ascii));
  return K;
}

arma::uvec normalized_rows(const std::string& name) {
  arma::mat r;
  REQUIRE(r.load(fixture_path("tests/fixtures/kernel_structured/" + name), arma::csv_ascii));
  return arma::conv_to<arma::uvec>::from(arma::vectorise(r));
}

const mlt::CellWhere nowhere = [](std::size_t i) { return "row " + std::to_string(i + 1); };

mlt::Kernel kernel(mlt::KernelType type, double size, bool normalize = false) {
  mlt::KernelParams p;
  p.type = type;
  p.kmer = size;
  p.walk_length = size;
  p.normalize = normalize;
  return mlt::Kernel(p, 1);
}

void check_normalized(const arma::mat& K, const arma::mat& R) {
  REQUIRE(K.n_rows == R.n_rows);
  for (arma::uword i = 0; i < K.n_elem; ++i) CHECK(K[i] == doctest::Approx(R[i]).epsilon(1e-14));
}

}  // namespace

TEST_CASE("spectrum kernel: the notes' double loop, exactly, for k = 1, 2, 3, 5") {
  const arma::mat X = mlt::encode_strings(column("strings.csv", "text"), nowhere);
  for (int k : {1, 2, 3, 5}) {
    CAPTURE(k);
    const mlt::Kernel kern = kernel(mlt::KernelType::spectrum, k);
    const arma::mat R = reference("spectrum_k" + std::to_string(k) + ".csv");
    CHECK(arma::approx_equal(kern.gram(X, X), R, "absdiff", 0.0));
    CHECK(arma::approx_equal(kern.diagonal(X), arma::vec(R.diag()), "absdiff", 0.0));
    // Rows against rows of another width (each string encoded alone): the same bits.
    for (arma::uword i = 0; i < X.n_rows; ++i) {
      const arma::mat xi = mlt::encode_strings({column("strings.csv", "text")[i]}, nowhere);
      CHECK(arma::approx_equal(kern.gram(xi, X), arma::mat(R.row(i)), "absdiff", 0.0));
    }
  }
}

TEST_CASE("spectrum kernel: normalized, and refused where k(x, x) = 0") {
  const arma::mat X = mlt::encode_strings(column("strings.csv", "text"), nowhere);
  const arma::uvec rows = normalized_rows("spectrum_k3_normalized_rows.csv");
  const arma::mat Xr = X.rows(rows);
  check_normalized(kernel(mlt::KernelType::spectrum, 3, true).gram(Xr, Xr), reference("spectrum_k3_normalized.csv"));
  // "AC" has no 3-mer.
  CHECK_THROWS_AS(kernel(mlt::KernelType::spectrum, 3, true).gram(X, X), mlt::DataError);
}

TEST_CASE("spectrum kernel: the dense (BLAS) and merge paths agree bit for bit, whatever the threads") {
  // DNA at k = 2 (16 k-mers present against ~16 distinct per row) takes the dense
  // product. With 40 strings of random bytes 128..255 added (~200 distinct 2-mers
  // each, ~8,000 in all), the k-mers present outnumber 8 x the mean per row: the
  // merge. The DNA block must be the same bits, the DNA-noise blocks zero.
  mlt::Random rng(7);
  std::vector<std::string> dna(40), both;
  for (auto& s : dna)
    for (int p = 0; p < 60 + static_cast<int>(rng.uniform() * 40); ++p) s += "ACGT"[static_cast<int>(rng.uniform() * 4)];
  both = dna;
  for (int i = 0; i < 40; ++i) {
    std::string s;
    for (int p = 0; p < 200; ++p) s += static_cast<char>(128 + static_cast<int>(rng.uniform() * 128));
    both.push_back(s);
  }
  const arma::mat X = mlt::encode_strings(dna, nowhere), XN = mlt::encode_strings(both, nowhere);
  const mlt::Kernel kern = kernel(mlt::KernelType::spectrum, 2);
  const arma::mat dense = kern.gram(X, X);
  const arma::mat merged = kern.gram(XN, XN);
  CHECK(arma::approx_equal(dense, merged.submat(0, 0, 39, 39), "absdiff", 0.0));
  CHECK(arma::accu(merged.submat(0, 40, 39, 79)) == 0.0);
  // Against the definition, counting matching positions.
  for (arma::uword i = 0; i < X.n_rows; i += 7)
    for (arma::uword j = 0; j < X.n_rows; j += 5) {
      double s = 0;
      for (std::size_t a = 0; a + 2 <= dna[i].size(); ++a)
        for (std::size_t b = 0; b + 2 <= dna[j].size(); ++b) s += dna[i].compare(a, 2, dna[j], b, 2) == 0;
      CHECK(dense(i, j) == s);
    }
  mlt::set_thread_count(1);
  const arma::mat one = kern.gram(X, X), one_merged = kern.gram(XN, XN);
  mlt::set_thread_count(0);
  CHECK(arma::approx_equal(dense, one, "absdiff", 0.0));
  CHECK(arma::approx_equal(merged, one_merged, "absdiff", 0.0));
  CHECK(dense.is_symmetric());
  CHECK(merged.is_symmetric());
}

TEST_CASE("spectrum kernel: kmer bounds and rows that are not strings") {
  mlt::KernelParams p;
  p.type = mlt::KernelType::spectrum;
  for (double k : {0.0, 9.0, 2.5}) {
    p.kmer = k;
    CHECK_THROWS_AS(mlt::Kernel(p, 1), mlt::UsageError);
  }
  const arma::mat numbers = {{0.5, 1.0, 2.0}};
  CHECK_THROWS_AS(kernel(mlt::KernelType::spectrum, 2).gram(numbers, numbers), mlt::DataError);
}

TEST_CASE("walk kernel: the explicit product graph's 1ᵀ A×ⁿ 1, exactly, for n = 0..3") {
  const std::vector<std::string> cells = column("graphs.csv", "graph");
  const arma::mat X = mlt::encode_graphs(cells, nowhere);
  for (int n : {0, 1, 2, 3}) {
    CAPTURE(n);
    const mlt::Kernel kern = kernel(mlt::KernelType::walk, n);
    const arma::mat R = reference("walk_n" + std::to_string(n) + ".csv");
    CHECK(arma::approx_equal(kern.gram(X, X), R, "absdiff", 0.0));
    CHECK(arma::approx_equal(kern.diagonal(X), arma::vec(R.diag()), "absdiff", 0.0));
    for (arma::uword i = 0; i < X.n_rows; ++i) {
      const arma::mat gi = mlt::encode_graphs({cells[i]}, nowhere);
      CHECK(arma::approx_equal(kern.gram(gi, X), arma::mat(R.row(i)), "absdiff", 0.0));
    }
  }
  const arma::uvec rows = normalized_rows("walk_n2_normalized_rows.csv");
  const arma::mat Xr = X.rows(rows);
  check_normalized(kernel(mlt::KernelType::walk, 2, true).gram(Xr, Xr), reference("walk_n2_normalized.csv"));
}

TEST_CASE("walk kernel: parse errors name the offset in the cell") {
  const auto message = [](const std::string& cell) {
    try {
      mlt::encode_graphs({cell}, [](std::size_t) { return std::string("g.csv:3:2"); });
    } catch (const mlt::DataError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message("a b|0-1 1-2").find("g.csv:3:2: offset 11 of the graph") == 0);  // vertex 2 of 2
  CHECK(message("a b 0-1").find("no bar") != std::string::npos);
  CHECK(message("a b|0-1 1+0").find("offset 10") != std::string::npos);        // the '+'
  CHECK(message("a b|0-1 x").find("offset 9") != std::string::npos);
  CHECK(message("|").find("no vertex") != std::string::npos);
  CHECK(message("abcdefg|").find("longer than 6 bytes") != std::string::npos);
  CHECK(message("a|0-0") == "no error");
}

TEST_CASE("walk kernel: counts beyond 2^53 are refused, not rounded") {
  // A complete graph on 40 equally-labelled vertices with self-loops: 40^(2(n+1))
  // pairs of walks, beyond 2^53 from n = 4 on.
  std::string cell;
  for (int v = 0; v < 40; ++v) cell += "a ";
  cell += "|";
  for (int u = 0; u < 40; ++u)
    for (int v = u; v < 40; ++v) {
      cell += ' ';
      cell += std::to_string(u);
      cell += '-';
      cell += std::to_string(v);
    }
  const arma::mat X = mlt::encode_graphs({cell}, nowhere);
  CHECK(kernel(mlt::KernelType::walk, 3).gram(X, X)(0, 0) == std::pow(40.0, 8));
  CHECK_THROWS_AS(kernel(mlt::KernelType::walk, 6).gram(X, X), mlt::DataError);
}

}  // namespace kernel_structured_test
