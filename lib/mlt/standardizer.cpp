#include "mlt/standardizer.hpp"

#include <cmath>
#include <limits>

namespace mlt {

Standardizer& Standardizer::fit(const arma::mat& X) {
  mean_ = arma::mean(X, 0);
  scale_ = arma::stddev(X, 1, 0);  // normalised by n, not n - 1
  // As scikit-learn: a scale this close to zero is numerical noise of a constant.
  const double eps = 10 * std::numeric_limits<double>::epsilon();
  for (arma::uword j = 0; j < scale_.n_elem; ++j)
    if (!(scale_[j] > eps * std::max(1.0, std::abs(mean_[j])))) scale_[j] = 1.0;
  return *this;
}

arma::mat Standardizer::transform(const arma::mat& X) const {
  arma::mat Z = X;
  Z.each_row() -= mean_;
  Z.each_row() /= scale_;
  return Z;
}

arma::mat Standardizer::inverse_transform(const arma::mat& Z) const {
  arma::mat X = Z;
  X.each_row() %= scale_;
  X.each_row() += mean_;
  return X;
}

void Standardizer::save(io::ModelWriter& out, const std::string& prefix) const {
  out.add(prefix + "_mean", mean_);
  out.add(prefix + "_scale", scale_);
}

Standardizer Standardizer::load(const io::ModelReader& in, std::size_t n_features,
                                const std::string& prefix) {
  Standardizer s;
  s.mean_ = in.matrix(prefix + "_mean", 1, n_features);
  s.scale_ = in.matrix(prefix + "_scale", 1, n_features);
  if (arma::any(s.scale_ <= 0)) in.fail("matrix " + prefix + "_scale has a non-positive entry");
  return s;
}

}  // namespace mlt
