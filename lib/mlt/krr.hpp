// Kernel ridge regression, exact or through the Nyström approximation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "mlt/core/distributed.hpp"
#include "mlt/core/random.hpp"
#include "mlt/core/row_passes.hpp"
#include "mlt/core/types.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/kernel.hpp"
#include "mlt/nystrom.hpp"
#include "mlt/spd.hpp"
#include "mlt/standardizer.hpp"
#include "mlt/core/names.hpp"
#include "mlt/core/estimator.hpp"

namespace mlt {

struct KrrParams {
  KernelParams kernel;          // kernel and its parameters (see kernel.hpp)
  double lambda = 1.0;          // λ >= 0 (scikit-learn KernelRidge's alpha)
  bool fit_intercept = true;    // an unpenalized intercept b (KernelRidge has none: off)
  bool standardize = false;     // kernel on (x - mean) / std
  std::size_t nystrom = 0;      // M > 0: Nyström approximation with M landmarks; 0: exact
  LandmarkMethod landmarks = LandmarkMethod::uniform;
  std::uint64_t seed = kDefaultSeed;  // landmark sampling
  // Bytes the exact solve may allocate for its n x n kernel matrix; 0: the memory
  // the system reports available (MemAvailable).
  double memory_limit = 0;

  // The declaration of these parameters (core/params.hpp); memory_limit is the
  // library's alone (the command line leaves it to MemAvailable).
  static const ParamTable<KrrParams>& table();
};

class Krr {
 public:
  using Params = KrrParams;
  static constexpr const char* kind = "krr";

  explicit Krr(Params params = {}) : params_(params) {}

  // X: n x p, Y: n x t. UsageError for invalid params; DataError when the exact
  // kernel matrix would not fit in memory (the message names its size and suggests
  // --nystrom), when M > n, or for unusable data.
  Krr& fit(const arma::mat& X, const arma::mat& Y);
  // The Nyström fit from rows read in passes (chunks of X: m x p, Y: m x t), on one
  // process or as one of comm's ranks, each with its own part of the rows (rank order
  // = row order): three passes, O(M² + chunk·(p + M)) memory, never n x M (krr.cpp).
  // The same landmark rows as fit(), and the same model up to the order of the sums
  // (tests/lib/krr_test.cpp bounds the difference). UsageError for exact kernel ridge
  // (nystrom 0), landmarks kmeans++ and the structured and precomputed kernels, which
  // need every row at once; DataError as fit(), with every rank throwing the first
  // failing rank's error.
  Krr& fit_stream(const RowPasses& passes, const Communicator& comm = single_process());
  // X: m x p -> m x t, computed over blocks of rows: the m x n kernel matrix is never
  // held whole.
  arma::mat predict(const arma::mat& X) const;
  double score(const arma::mat& X, const arma::mat& Y) const;  // R², higher is better

  bool is_fitted() const { return !coef_.is_empty(); }
  bool is_nystrom() const { return params_.nystrom > 0; }
  std::size_t n_features() const { return basis_.n_cols; }
  std::size_t n_targets() const { return coef_.n_cols; }
  std::size_t n_train() const { return n_train_; }
  const Params& params() const { return params_; }
  const Kernel& kernel() const { return kernel_; }
  const Standardizer& scaler() const { return scaler_; }  // fitted with standardize only

  // f(x) = k(x, basis) coef: basis = the training rows (exact) or the M landmarks
  // (Nyström), in the standardized space when fitted with standardize.
  const arma::mat& basis() const { return basis_; }  // n_basis x p
  const arma::mat& coef() const { return coef_; }    // n_basis x t
  // b per target (zeros without fit_intercept): f(x) = k(x, basis) coef + b.
  const arma::rowvec& intercept() const { return intercept_; }  // 1 x t
  // Whether the solve fell back to least squares (K + λI not positive definite).
  bool least_squares() const { return least_squares_; }
  // δ added to K_MM's diagonal (Nyström): the fit then minimizes the Nyström objective
  // plus λδ‖β‖² exactly (krr.cpp); M·ε·mean(diag K_MM) unless the factorization needed more.
  double jitter() const { return jitter_; }

  void save(io::ModelWriter& out) const;
  static Krr load(const io::ModelReader& in);

 private:
  void require_fitted() const;
  void fit_exact(const arma::mat& Xs, const arma::mat& Y);
  void fit_nystrom(const arma::mat& Xs, const arma::mat& Y);
  // The ridge system on the centred Nyström features: (A + λI) w = R, β = L⁻ᵀw and
  // b = ȳ − φ̄ᵀw; A (M x M, symmetric), R (M x t).
  void solve_nystrom(arma::mat A, const arma::mat& R, const arma::mat& Linv, const arma::vec& feature_mean,
                     const arma::rowvec& y_mean);

  Params params_;
  Kernel kernel_;
  Standardizer scaler_;
  arma::mat basis_;
  arma::mat coef_;
  arma::rowvec intercept_;
  std::size_t n_train_ = 0;
  bool least_squares_ = false;
  double jitter_ = 0;
};

static_assert(Regressor<Krr>);

}  // namespace mlt
