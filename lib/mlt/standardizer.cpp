#include "mlt/standardizer.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "mlt/core/error.hpp"
#include "mlt/core/log.hpp"
#include "mlt/io/number_format.hpp"

namespace mlt {
namespace {
// A column is constant when its standard deviation is at most this times its largest
// |x|: the rounding noise of computing the mean and deviations of equal values (each
// deviation is off by a few ulps of |x|, eps |x| each). Relative to the column, so a
// feature measured in tiny units (1e-16 m) is scaled like any other.
constexpr double kConstantTolerance = 10 * std::numeric_limits<double>::epsilon();

// A scale at the rounding-noise level of its column becomes 1 (centred, not scaled);
// warns when the column does hold different values. magnitude(j): largest |x|;
// varies(j): whether column j holds two different values.
template <class Magnitude, class Varies>
void settle_constant_columns(arma::rowvec& scale, Magnitude magnitude, Varies varies) {
  for (arma::uword j = 0; j < scale.n_elem; ++j) {
    const double mag = magnitude(j);
    if (!(scale[j] > kConstantTolerance * mag) || !(scale[j] >= std::numeric_limits<double>::min())) {
      if (varies(j)) {
        std::string m = "feature " + std::to_string(j + 1) + " varies only by rounding noise (sd ";
        io::append_number(m, scale[j]);
        m += ", largest |x| ";
        io::append_number(m, mag);
        warn(m + "): treated as constant, centred but not scaled");
      }
      scale[j] = 1.0;
    }
  }
}
}  // namespace

Standardizer& Standardizer::fit(const arma::mat& X) {
  mean_ = arma::mean(X, 0);
  scale_ = arma::stddev(X, 1, 0);  // normalised by n, not n - 1
  settle_constant_columns(
      scale_, [&X](arma::uword j) { return X.n_rows ? arma::abs(X.col(j)).max() : 0.0; },
      [&X](arma::uword j) { return X.n_rows > 1 && arma::any(X.col(j) != X(0, j)); });
  return *this;
}

Standardizer Standardizer::from_scatter(const ScatterAccumulator& acc, std::size_t p) {
  Standardizer s;
  const double n = static_cast<double>(acc.n());
  s.mean_ = acc.mean().head(p);
  const arma::vec diag = acc.scatter().diag();
  s.scale_ = arma::sqrt(diag.head(p).t() / n);  // ddof 0, as fit
  settle_constant_columns(
      s.scale_, [&acc](arma::uword j) { return acc.max_abs()[j]; }, [&acc](arma::uword j) { return acc.varies(j); });
  return s;
}

arma::mat Standardizer::transform(const arma::mat& X) const {
  if (X.n_cols != mean_.n_elem)
    throw Error("internal: standardizing " + std::to_string(X.n_cols) + " columns with " +
                    std::to_string(mean_.n_elem) + " means",
                kExitSoftware);
  // One pass, (x - mean) / scale element by element: the bits of subtracting and then
  // dividing in place, without the copy and the second pass (a streamed fit runs this
  // on every chunk of every pass).
  arma::mat Z(X.n_rows, X.n_cols);
  for (arma::uword j = 0; j < X.n_cols; ++j) {
    const double mean = mean_[j], scale = scale_[j];
    const double* x = X.colptr(j);
    double* z = Z.colptr(j);
    for (arma::uword i = 0; i < X.n_rows; ++i) z[i] = (x[i] - mean) / scale;
  }
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
  // fit() keeps a scale only above kConstantTolerance x its column's largest |x|, which
  // is at least |mean|; anything at or below that (or below the smallest normal
  // double, whose reciprocal overflows) is not from a fit and would blow values up.
  for (arma::uword j = 0; j < n_features; ++j)
    if (s.scale_[j] != 1.0 &&  // a constant column's
        !(s.scale_[j] >= std::numeric_limits<double>::min() && s.scale_[j] > kConstantTolerance * std::abs(s.mean_[j])))
      in.fail("matrix " + prefix + "_scale: entry " + std::to_string(j + 1) + " is " +
              (s.scale_[j] > 0 ? "too small for its mean" : "not positive"));
  return s;
}

}  // namespace mlt
