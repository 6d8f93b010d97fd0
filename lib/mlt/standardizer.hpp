// Standardization z = (x - mean) / scale, scale the population standard deviation
// (ddof = 0, as scikit-learn's StandardScaler); a constant column keeps scale 1 so it
// maps to 0 instead of dividing by zero. Estimators own one and fit it inside their
// own fit, so cross-validation never lets held-out rows leak into it.
#pragma once

#include <string>

#include "mlt/core/scatter.hpp"
#include "mlt/core/types.hpp"
#include "mlt/io/model_file.hpp"

namespace mlt {

class Standardizer {
 public:
  // X: n x p. Learns mean and scale per column.
  Standardizer& fit(const arma::mat& X);
  // The same from rows seen in chunks: the first p columns of `acc` (n >= 1).
  static Standardizer from_scatter(const ScatterAccumulator& acc, std::size_t p);
  arma::mat transform(const arma::mat& X) const;        // n x p -> n x p
  arma::mat inverse_transform(const arma::mat& Z) const;
  bool is_fitted() const { return !mean_.is_empty(); }
  const arma::rowvec& mean() const { return mean_; }
  const arma::rowvec& scale() const { return scale_; }

  // Stored as matrices "<prefix>_mean" and "<prefix>_scale".
  void save(io::ModelWriter& out, const std::string& prefix = "scaler") const;
  static Standardizer load(const io::ModelReader& in, std::size_t n_features,
                           const std::string& prefix = "scaler");

 private:
  arma::rowvec mean_;
  arma::rowvec scale_;
};

}  // namespace mlt
