// Principal component analysis: the principal axes are the right singular vectors of
// the centred data matrix, ordered by decreasing singular value.
#pragma once

#include <cstddef>

#include "mlt/core/types.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/standardizer.hpp"
#include "mlt/core/names.hpp"
#include "mlt/core/params.hpp"
#include "mlt/core/estimator.hpp"

namespace mlt {

enum class PcaSolver {
  automatic,   // svd unless the data is large and tall
  svd,         // thin SVD of the centred data: accurate for every component
  covariance,  // eigenvectors of the p x p scatter matrix: one BLAS-3 pass, for n >> p
};
inline constexpr NameTable<PcaSolver, 3> kPcaSolverNames{
    "pca solver", {{{PcaSolver::automatic, "auto"}, {PcaSolver::svd, "svd"}, {PcaSolver::covariance, "covariance"}}}};
constexpr const auto& name_table(PcaSolver) { return kPcaSolverNames; }

struct PcaParams {
  std::size_t n_components = 0;  // k; 0: all min(n, p), unless `variance` is set
  double variance = 0;           // in (0, 1): the fewest components whose explained
                                 // variance ratio sums to more than this (sklearn's)
  bool whiten = false;           // scale scores to unit variance
  bool standardize = false;      // divide centred columns by their standard deviation
  PcaSolver solver = PcaSolver::automatic;

  // The declaration of these parameters (core/params.hpp).
  static const ParamTable<PcaParams>& table();
};

class Pca {
 public:
  using Params = PcaParams;
  static constexpr const char* kind = "pca";

  explicit Pca(Params params = {}) : params_(params) {}

  // X: n x p, n >= 1. Throws UsageError for invalid params, DataError when they do
  // not fit the data (k > min(n, p)) or the data is unusable.
  Pca& fit(const arma::mat& X);
  // X: m x p -> scores m x k.
  arma::mat transform(const arma::mat& X) const;
  // scores m x k -> reconstruction m x p in the original units.
  arma::mat inverse_transform(const arma::mat& Z) const;
  // Mean squared reconstruction error per cell, in the original units (lower is better).
  double reconstruction_mse(const arma::mat& X) const;
  // 1 - (reconstruction error) / (total variance about X's own mean), measured in the
  // space PCA works in (standardized if so fitted); 0 when X has no variance.
  double explained_variance_ratio(const arma::mat& X) const;
  // Higher is better: minus reconstruction_mse.
  double score(const arma::mat& X) const { return -reconstruction_mse(X); }

  bool is_fitted() const { return !components_.is_empty(); }
  std::size_t n_features() const { return mean_.n_elem; }
  std::size_t n_components() const { return components_.n_rows; }
  const Params& params() const { return params_; }

  const arma::rowvec& mean() const { return mean_; }              // 1 x p
  const arma::mat& components() const { return components_; }      // k x p, rows = axes
  const arma::vec& singular_values() const { return singular_values_; }           // k
  const arma::vec& explained_variance() const { return explained_variance_; }     // k
  const arma::vec& explained_variance_ratio() const { return explained_variance_ratio_; }  // k
  const Standardizer& scaler() const { return scaler_; }

  void save(io::ModelWriter& out) const;
  static Pca load(const io::ModelReader& in);

 private:
  void require_fitted() const;
  arma::mat centred(const arma::mat& X) const;  // (X - mean) / scale

  Params params_;
  Standardizer scaler_;          // fitted only with standardize
  arma::rowvec mean_;            // of the (standardized) training data
  arma::mat components_;
  arma::vec singular_values_;
  arma::vec explained_variance_;
  arma::vec explained_variance_ratio_;
};

static_assert(Transformer<Pca>);

}  // namespace mlt
