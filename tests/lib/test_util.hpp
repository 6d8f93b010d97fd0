// Small helpers shared by the unit tests.
#pragma once

#include <algorithm>

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/log.hpp"
#include "mlt/core/random.hpp"
#include "mlt/core/types.hpp"
#include "mlt/labels.hpp"

namespace mlt::test {

// An n x p matrix of independent uniforms on [-2, 2), the same for the same seed.
inline arma::mat random_mat(arma::uword n, arma::uword p, std::uint64_t seed) {
  mlt::Random rng(seed);
  arma::mat A(n, p);
  for (auto& a : A) a = 4 * rng.uniform() - 2;
  return A;
}

// A file with the given bytes in a fresh temporary directory, removed at scope exit.
class TempFile {
 public:
  explicit TempFile(const std::string& content, const std::string& name = "data.csv") {
    char dir[] = "/tmp/mlt-test-XXXXXX";
    dir_ = mkdtemp(dir);
    path_ = dir_ + "/" + name;
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() {
    std::remove(path_.c_str());
    rmdir(dir_.c_str());
  }
  const std::string& path() const { return path_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_, path_;
};

// The message of the mlt::Error that `f` throws, checking its exit status.
template <typename F>
std::string error_message(F&& f, int expected_status) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(e.exit_status() == expected_status);
    return e.what();
  }
  FAIL("no error thrown");
  return "";
}

// Captures the library's warnings (mlt::warn) for the lifetime of the object.
struct Warnings {
  std::vector<std::string> messages;
  Warnings() { set_log_function([this](const std::string& m) { messages.push_back(m); }); }
  ~Warnings() { set_log_function({}); }
  bool any(const std::string& part) const {
    for (const auto& m : messages)
      if (m.find(part) != std::string::npos) return true;
    return false;
  }
};

inline std::string fixture_path(const std::string& relative) {
  return std::string(MLT_SOURCE_DIR) + "/" + relative;
}

// A fixture file's JSON (path relative to the source tree).
inline nlohmann::json read_json_fixture(const std::string& relative) {
  std::ifstream in(fixture_path(relative));
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

// A JSON array of rows as a matrix.
inline arma::mat rows_of(const nlohmann::json& rows) {
  arma::mat m(rows.size(), rows.at(0).size());
  for (arma::uword i = 0; i < m.n_rows; ++i)
    for (arma::uword j = 0; j < m.n_cols; ++j) m(i, j) = rows[i][j].get<double>();
  return m;
}

// A JSON array of numbers as a vector.
inline arma::vec vector_of(const nlohmann::json& v) { return arma::vec(v.get<std::vector<double>>()); }

// A JSON array of class indices.
inline mlt::Labels labels_of(const nlohmann::json& v) { return mlt::Labels(v.get<std::vector<arma::uword>>()); }

// max |a - b| / max(1, max |b|): the error relative to the reference's scale.
inline double rel_error(const arma::mat& a, const arma::mat& b) {
  return arma::abs(a - b).max() / std::max(1.0, arma::abs(b).max());
}

// a's columns flipped where that brings them closer to b's (components and
// eigenvectors are defined up to sign).
inline arma::mat align_signs(arma::mat a, const arma::mat& b) {
  for (arma::uword j = 0; j < a.n_cols; ++j)
    if (arma::dot(a.col(j), b.col(j)) < 0) a.col(j) *= -1;
  return a;
}

}  // namespace mlt::test
