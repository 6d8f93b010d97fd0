#include "mlt/core/scatter.hpp"

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
  if (other.p() != p()) throw Error("internal: ScatterAccumulator::merge of another width", kExitSoftware);
  if (other.n_ == 0) return;
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

}  // namespace mlt
