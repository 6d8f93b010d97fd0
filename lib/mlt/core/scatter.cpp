#include "mlt/core/scatter.hpp"

#include <algorithm>

#include "mlt/core/error.hpp"

namespace mlt {

ScatterAccumulator::ScatterAccumulator(std::size_t p)
    : mean_(p, arma::fill::zeros),
      scatter_(p, p, arma::fill::zeros),
      max_abs_(p, arma::fill::zeros),
      first_(p, arma::fill::zeros),
      varies_(p, arma::fill::zeros) {}

void ScatterAccumulator::add(const arma::mat& B) {
  if (B.n_cols != p()) throw Error("internal: ScatterAccumulator::add of a chunk of another width", kExitSoftware);
  if (B.n_rows == 0) return;
  ScatterAccumulator chunk(p());
  chunk.n_ = B.n_rows;
  chunk.mean_ = arma::mean(B, 0);
  arma::mat C = B;
  C.each_row() -= chunk.mean_;
  chunk.scatter_ = C.t() * C;  // Armadillo: syrk
  chunk.max_abs_ = arma::max(arma::abs(B), 0);
  chunk.first_ = B.row(0);
  for (arma::uword j = 0; j < p(); ++j) chunk.varies_[j] = arma::any(B.col(j) != B(0, j));
  merge(chunk);
}

void ScatterAccumulator::merge(const ScatterAccumulator& other) {
  if (other.n_ == 0) return;
  if (n_ != 0 && other.p() != p())
    throw Error("internal: ScatterAccumulator::merge of another width", kExitSoftware);
  if (n_ == 0) {
    *this = other;
    return;
  }
  const double n = static_cast<double>(n_), m = static_cast<double>(other.n_);
  const double total = n + m;
  const arma::rowvec delta = other.mean_ - mean_;
  mean_ += delta * (m / total);
  scatter_ += other.scatter_ + (delta.t() * delta) * (n * m / total);
  max_abs_ = arma::max(max_abs_, other.max_abs_);
  for (arma::uword j = 0; j < p(); ++j) varies_[j] = varies_[j] || other.varies_[j] || other.first_[j] != first_[j];
  n_ += other.n_;
}

arma::mat ScatterAccumulator::scatter() const { return arma::symmatu(scatter_); }

std::vector<double> ScatterAccumulator::to_doubles() const {
  const std::size_t width = p();
  std::vector<double> v;
  v.reserve(2 + 4 * width + width * (width + 1) / 2);
  v.push_back(static_cast<double>(width));
  v.push_back(static_cast<double>(n_));
  for (const arma::rowvec* r : {&mean_, &max_abs_, &first_}) v.insert(v.end(), r->begin(), r->end());
  for (std::size_t j = 0; j < width; ++j) v.push_back(static_cast<double>(varies_[j]));
  for (std::size_t j = 0; j < width; ++j)
    for (std::size_t i = 0; i <= j; ++i) v.push_back(scatter_(i, j));
  return v;
}

ScatterAccumulator ScatterAccumulator::from_doubles(const std::vector<double>& v) {
  const std::size_t width = v.empty() ? 0 : static_cast<std::size_t>(v[0]);
  if (v.size() < 2 || v.size() != 2 + 4 * width + width * (width + 1) / 2)
    throw Error("internal: a scatter state of " + std::to_string(v.size()) + " numbers", kExitSoftware);
  ScatterAccumulator acc(width);
  acc.n_ = static_cast<std::uint64_t>(v[1]);
  const double* at = v.data() + 2;
  for (arma::rowvec* r : {&acc.mean_, &acc.max_abs_, &acc.first_}) {
    std::copy(at, at + width, r->begin());
    at += width;
  }
  for (std::size_t j = 0; j < width; ++j) acc.varies_[j] = *at++ != 0;
  for (std::size_t j = 0; j < width; ++j)
    for (std::size_t i = 0; i <= j; ++i) acc.scatter_(i, j) = *at++;
  return acc;
}

ScatterAccumulator merge_ranks(const ScatterAccumulator& local, const Communicator& comm) {
  if (comm.size() == 1) return local;
  const std::vector<std::string> all = comm.gather(to_bytes(local.to_doubles()), 0);
  std::string merged;
  if (comm.rank() == 0) {
    ScatterAccumulator acc;
    for (const std::string& part : all) acc.merge(ScatterAccumulator::from_doubles(doubles_of(part)));
    merged = to_bytes(acc.to_doubles());
  }
  comm.broadcast(merged, 0);
  return ScatterAccumulator::from_doubles(doubles_of(merged));
}

}  // namespace mlt
