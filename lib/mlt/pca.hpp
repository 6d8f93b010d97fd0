// Principal component analysis: the principal axes are the right singular vectors of
// the centred data matrix, ordered by decreasing singular value. With a kernel, kernel
// PCA (Schölkopf, Smola, Müller 1998): the same in the kernel's feature space, through
// the eigenvectors of the centred n x n Gram matrix, or with `nystrom` M, linear PCA
// of the training rows' Nyström features (mlt/nystrom.hpp): O(n M²) time, O(n M)
// memory, never the n x n matrix (pca.cpp states both).
#pragma once

#include <cstddef>

#include "mlt/core/row_passes.hpp"
#include "mlt/core/scatter.hpp"
#include "mlt/core/types.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/kernel.hpp"
#include "mlt/nystrom.hpp"
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

enum class KernelPcaSolver {
  automatic,  // iterative for a few components of many rows (PSD kernel, -k given), else dense
  dense,      // every eigenpair of the centred kernel matrix (LAPACK dsyevd)
  iterative,  // the top k only, by subspace iteration (mlt/top_eigen.hpp)
};
inline constexpr NameTable<KernelPcaSolver, 3> kKernelPcaSolverNames{
    "eigen solver",
    {{{KernelPcaSolver::automatic, "auto"}, {KernelPcaSolver::dense, "dense"}, {KernelPcaSolver::iterative, "iterative"}}}};
constexpr const auto& name_table(KernelPcaSolver) { return kKernelPcaSolverNames; }

struct PcaParams {
  std::size_t n_components = 0;  // k; 0: all min(n, p), unless `variance` is set
  double variance = 0;           // in (0, 1): the fewest components whose explained
                                 // variance ratio sums to more than this (sklearn's)
  bool whiten = false;           // scale scores to unit variance
  bool standardize = false;      // divide centred columns by their standard deviation
  PcaSolver solver = PcaSolver::automatic;  // linear PCA only
  bool kernelized = false;       // kernel PCA with `kernel`
  KernelPcaSolver eigen_solver = KernelPcaSolver::automatic;  // kernel PCA only
  KernelParams kernel;
  // Kernel PCA through the Nyström approximation with M landmarks (0: exact).
  std::size_t nystrom = 0;
  LandmarkMethod landmarks = LandmarkMethod::uniform;
  std::uint64_t seed = kDefaultSeed;  // landmark sampling

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
  // The same fit from rows read a chunk at a time (X: m x p per chunk; Y unused),
  // holding O(p²) state instead of the data: the centred scatter (core/scatter.hpp),
  // then its eigenvectors, as solver covariance. Equals fit(X) with solver covariance
  // up to the rounding of the scatter's summation order (pca.cpp). Linear PCA with
  // solver auto or covariance only (UsageError for kernel PCA and solver svd).
  // Under several ranks (comm, core/distributed.hpp) each rank's pass reads its own
  // rows, the scatters are merged in rank order (merge_ranks), and every rank
  // solves the same merged problem: one p x p scatter, p means and a count sent per rank.
  // One pass (kStreamsOnce: standard input can feed it).
  Pca& fit_stream(const RowPasses& passes, const Communicator& comm = single_process());
  static constexpr bool kStreamsOnce = true;
  // X: m x p -> scores m x k. Kernel PCA: the projections of the points' centred
  // images in feature space on the kept components, computed over blocks of rows (the
  // m x n cross-kernel is never held whole).
  arma::mat transform(const arma::mat& X) const;
  // scores m x k -> reconstruction m x p in the original units. Linear PCA only
  // (UsageError for kernel PCA: a point in feature space has no pre-image in general).
  arma::mat inverse_transform(const arma::mat& Z) const;
  // Mean squared reconstruction error per cell, in the original units (lower is better).
  // Linear PCA only (UsageError for kernel PCA, as inverse_transform).
  double reconstruction_mse(const arma::mat& X) const;
  // Mean over X's rows of the squared distance from the centred point to its projection
  // on the kept components, in the space the components live in: the standardized (if
  // so fitted) input space for linear PCA, the kernel's feature space for kernel PCA,
  // where it is k̃(x, x) - ‖z‖² with k̃ the centred kernel and z the scores. Lower is
  // better. For linear PCA on unstandardized data it is p · reconstruction_mse.
  double projection_error(const arma::mat& X) const;
  // 1 - (projection error) / (total variance about X's own mean), measured in the
  // space PCA works in (standardized if so fitted; the feature space for kernel PCA);
  // 0 when X has no variance there.
  double explained_variance_ratio(const arma::mat& X) const;
  // Mean log-likelihood of X's rows under the probabilistic PCA model (Tipping &
  // Bishop 1999), as scikit-learn's PCA.score: x ~ N(mean, C), C = Wᵀ diag(v − σ²) W
  // + σ² I with W the components (k x p), v their explained variances (n − 1
  // denominator) and σ² the noise variance, the mean of the p − k discarded
  // eigenvalues of the covariance (0 when k = p). Per row, with d the centred row,
  // z = W d and r = d − Wᵀz: −½ (‖r‖²/σ² + Σ z²/v + Σ log v + (p − k) log σ² +
  // p log 2π). Measured in the standardized space when fitted so (as a StandardScaler
  // + PCA pipeline's score). Higher is better; unlike the reconstruction error it does
  // not keep improving with k. Where n ≤ p, scikit-learn averages the discarded
  // eigenvalues over min(n, p) − k, this over p − k (T&B's maximum-likelihood σ²).
  // Linear PCA only (UsageError for kernel PCA); DataError when σ² or a kept variance
  // is 0 (the density is degenerate). Cost: O(m p k).
  double log_likelihood(const arma::mat& X) const;
  // Higher is better: minus reconstruction_mse (kernel PCA: minus projection_error).
  double score(const arma::mat& X) const {
    return params_.kernelized ? -projection_error(X) : -reconstruction_mse(X);
  }

  bool is_fitted() const { return !explained_variance_.is_empty(); }
  std::size_t n_features() const { return params_.kernelized ? train_.n_cols : mean_.n_elem; }
  // Kernel PCA: the training rows (Nyström: not kept, only the landmarks).
  std::size_t n_train() const { return n_train_; }
  std::size_t n_components() const { return explained_variance_.n_elem; }
  const Params& params() const { return params_; }

  // Linear PCA.
  const arma::rowvec& mean() const { return mean_; }              // 1 x p
  const arma::mat& components() const { return components_; }      // k x p, rows = axes (Nyström: k x r)
  const arma::vec& singular_values() const { return singular_values_; }           // k
  // Both. Kernel PCA: eigenvalue / (n - 1), the variance of the training scores (as
  // linear PCA's s² / (n - 1), which it equals with the linear kernel); the ratio is
  // eigenvalue / (sum of the positive eigenvalues of the centred Gram matrix).
  const arma::vec& explained_variance() const { return explained_variance_; }     // k
  const arma::vec& explained_variance_ratio() const { return explained_variance_ratio_; }  // k
  const Standardizer& scaler() const { return scaler_; }

  // Kernel PCA: x's scores are k̃(x, X) alphas, k̃ the kernel centred in feature space.
  const Kernel& kernel() const { return kernel_; }
  const arma::mat& training_data() const { return train_; }   // n x p, standardized if so
  const arma::vec& eigenvalues() const { return eigenvalues_; }  // k, of the centred Gram matrix
  const arma::mat& alphas() const { return alphas_; }            // n x k: eigenvectors / sqrt(eigenvalues)
  // Nyström kernel PCA: x's scores are (φ(x) − feature_mean) componentsᵀ with
  // φ(x) = k(x, landmarks) nystrom_map; eigenvalues() are those of the centred Nyström
  // Gram matrix ΦΦᵀ (the squared singular values of the centred features).
  bool is_nystrom() const { return params_.kernelized && params_.nystrom > 0; }
  const arma::mat& landmarks() const { return train_; }          // M x p, standardized if so
  const arma::mat& nystrom_map() const { return nystrom_map_; }  // M x r: K_LL^{-1/2} on its r kept eigenvalues
  const arma::rowvec& feature_mean() const { return feature_mean_; }  // 1 x r, of the training rows' φ
  // Relative cut-off: eigenvalues at or below it times the largest are zero or
  // negative in exact arithmetic as far as the eigensolver can tell, and their
  // components are left out (scikit-learn's KernelPCA sets the same to zero and drops
  // them; dividing by their square root would amplify rounding noise).
  static constexpr double kEigenTol = 1e-12;

  void save(io::ModelWriter& out) const;
  static Pca load(const io::ModelReader& in);

 private:
  void require_fitted() const;
  void require_linear(const char* what) const;
  void check_linear_params() const;
  void reset_kernel_state();
  // From the singular values s (decreasing, min(n, p)) and axes V (p x min(n, p)) of
  // the centred data: the kept components, their variances s² / denom and their
  // ratios to `total` (the sum of the columns' variances).
  void keep_components(const arma::vec& s, arma::mat V, double denom, double total);
  arma::mat centred(const arma::mat& X) const;  // (X - mean) / scale
  void fit_kernel(const arma::mat& X);
  void fit_nystrom(const arma::mat& Xw);
  // Nyström: the centred features φ(x) − feature_mean of a block of (standardized) rows.
  arma::mat centred_features(const arma::mat& Xw) const;
  // Kernel PCA: the cross-kernel k(X, train) of a block of (standardized) rows, centred
  // in feature space; `row_mean` receives k(x, X)1/n before the centring.
  arma::mat centred_cross_kernel(const arma::mat& Xw, arma::vec* row_mean = nullptr) const;

  Params params_;
  Standardizer scaler_;          // fitted only with standardize
  arma::rowvec mean_;            // of the (standardized) training data
  arma::mat components_;
  arma::vec singular_values_;
  arma::vec explained_variance_;
  arma::vec explained_variance_ratio_;
  // Kernel PCA.
  Kernel kernel_;
  arma::mat train_;               // n x p (Nyström: the M landmarks)
  arma::mat nystrom_map_;         // Nyström: M x r
  arma::rowvec feature_mean_;     // Nyström: 1 x r
  arma::mat alphas_;              // n x k
  arma::vec eigenvalues_;         // k
  arma::rowvec kernel_col_mean_;  // 1 x n: 1ᵀK / n over the training Gram matrix
  double kernel_mean_ = 0;        // 1ᵀK1 / n²
  std::size_t n_train_ = 0;
};

static_assert(Transformer<Pca>);

}  // namespace mlt
