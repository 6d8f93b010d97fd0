// Model files: exact round trip, and every damaged or foreign file refused with a
// clear message before anything is trusted (BAD-INPUTS.md section B).
#include "mlt/io/model_file.hpp"

#include <doctest/doctest.h>

#include <clocale>

#include "../test_util.hpp"

using mlt::io::ModelReader;
using mlt::io::ModelWriter;

namespace {

std::string sample_model() {
  ModelWriter w("ridge");
  w.header()["params"] = {{"lambda", 0.1}, {"name", "a \"quoted\" name"}};
  w.add("coef", arma::mat{{0.1, 1.0 / 3}, {-2.5e-300, 1e22}});
  w.add("intercept", arma::vec{42.0});
  return w.bytes();
}

std::string model_error(const std::string& bytes) {
  return mlt::test::error_message([&] { ModelReader::parse(bytes, "m"); }, mlt::kExitDataError);
}

// Re-signs an edited body, so that the check under test, not the checksum, must
// catch the edit.
std::string resign(const std::string& bytes, const std::string& from, const std::string& to) {
  std::string body = bytes.substr(0, bytes.rfind("sha256 "));
  const auto pos = body.find(from);
  REQUIRE(pos != std::string::npos);
  body = body.substr(0, pos) + to + body.substr(pos + from.size());
  return body + "sha256 " + mlt::io::sha256_hex(body) + "\n";
}

}  // namespace

TEST_CASE("round trip is exact") {
  const auto r = ModelReader::parse(sample_model(), "m");
  CHECK(r.kind() == "ridge");
  CHECK(r.get<double>("/params/lambda") == 0.1);
  CHECK(r.get<std::string>("/params/name") == "a \"quoted\" name");
  const arma::mat& coef = r.matrix("coef", 2, 2);
  CHECK(coef(0, 0) == 0.1);
  CHECK(coef(0, 1) == 1.0 / 3);
  CHECK(coef(1, 0) == -2.5e-300);
  CHECK(coef(1, 1) == 1e22);
  CHECK(r.vector("intercept", 1)[0] == 42.0);
}

TEST_CASE("a model written under a comma-decimal locale reads back under C") {
  // The writer must not depend on the locale; if de_DE is not installed the locale
  // stays "C" and the test still checks the round trip.
  const char* old = std::setlocale(LC_ALL, nullptr);
  const std::string saved = old ? old : "C";
  std::setlocale(LC_ALL, "de_DE.UTF-8");
  const std::string bytes = sample_model();
  std::setlocale(LC_ALL, "C");
  CHECK(bytes.find("0.1") != std::string::npos);
  CHECK(ModelReader::parse(bytes, "m").matrix("coef")(0, 0) == 0.1);
  std::setlocale(LC_ALL, saved.c_str());
}

TEST_CASE("truncated at every offset") {
  const std::string bytes = sample_model();
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    CAPTURE(k);
    const std::string m = model_error(bytes.substr(0, k));
    CHECK((m.find("truncated") != std::string::npos || m.find("empty file") != std::string::npos));
  }
}

TEST_CASE("every flipped byte is caught") {
  const std::string bytes = sample_model();
  const std::size_t body = bytes.rfind("sha256 ");
  for (std::size_t k = 0; k < body; ++k) {
    std::string damaged = bytes;
    damaged[k] ^= 0x01;
    CAPTURE(k);
    const std::string m = model_error(damaged);
    CHECK((m.find("checksum mismatch") != std::string::npos || m.find("not an mlt model") != std::string::npos ||
           m.find("format version") != std::string::npos || m.find("truncated") != std::string::npos));
  }
}

TEST_CASE("foreign and future files") {
  CHECK(model_error("") == "m: empty file, not an mlt model");
  CHECK(model_error("sepal_length,sepal_width\n1,2\n") == "m: not an mlt model (bad magic)");
  CHECK(model_error(std::string("\x7f" "ELF\x02\x01\x01\0", 8)) == "m: not an mlt model (bad magic)");
  std::string future = sample_model();
  future.replace(0, 11, "mlt-model 9");
  CHECK(model_error(future) ==
        "m: model format version 9 is not supported (this mlt reads version 1); upgrade mlt");
  CHECK(model_error(sample_model() + "garbage\n") == "m: trailing data after the checksum line");
  CHECK(model_error(sample_model() + "x") == "m: truncated model file (no checksum line)");
}

TEST_CASE("wrong kind") {
  const auto r = ModelReader::parse(sample_model(), "m");
  CHECK(mlt::test::error_message([&] { r.expect_kind("kmeans"); }, mlt::kExitDataError) ==
        "m: model is ridge, expected kmeans");
  CHECK(mlt::test::error_message([&] { r.matrix("coef", 3, 2); }, mlt::kExitDataError) ==
        "m: matrix coef is 2x2, expected 3x2");
  CHECK(mlt::test::error_message([&] { r.matrix("nope"); }, mlt::kExitDataError) == "m: missing matrix nope");
  CHECK(mlt::test::error_message([&] { r.get<double>("/params/name"); }, mlt::kExitDataError) ==
        "m: field /params/name has the wrong type");
}

TEST_CASE("non-finite values are never written") {
  ModelWriter w("ridge");
  CHECK_THROWS_AS(w.add("coef", arma::vec{1.0, arma::datum::nan}), mlt::Error);
  CHECK_THROWS_AS(w.add("coef", arma::vec{arma::datum::inf}), mlt::Error);
}

TEST_CASE("declared sizes and values that lie, even with a valid checksum") {
  const std::string bytes = sample_model();
  CHECK(model_error(resign(bytes, "matrix coef 2 2", "matrix coef 1000000000000 1000000")) ==
        "m: line 3: matrix coef declares 1000000000000x1000000 values, more than the file holds");
  CHECK(model_error(resign(bytes, "matrix coef 2 2", "matrix coef 2 3")) == "m: line 4: too few values");
  CHECK(model_error(resign(bytes, "matrix coef 2 2", "matrix coef 2 1")) == "m: line 4: too many values");
  CHECK(model_error(resign(bytes, "0.1 ", "nan ")) == "m: line 4: non-finite value");
  CHECK(model_error(resign(bytes, "0.1 ", "inf ")) == "m: line 4: non-finite value");
  CHECK(model_error(resign(bytes, "0.1 ", "0x1 ")) == "m: line 4: too few values");
  CHECK(model_error(resign(bytes, "end\n", "end\nmore\n")) == "m: data after \"end\"");
  CHECK(model_error(resign(bytes, "{\"", "{")) == "m: line 2: malformed header");
  CHECK(model_error(resign(bytes, "matrix intercept", "matrix coef")) == "m: line 6: matrix coef appears twice");
}
