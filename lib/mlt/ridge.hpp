// Ridge regression: least squares with an L2 penalty on the coefficients, the
// intercept unpenalized, for one or several targets at once.
#pragma once

#include <cstddef>
#include <string>

#include "mlt/core/row_passes.hpp"
#include "mlt/core/scatter.hpp"
#include "mlt/core/types.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/standardizer.hpp"
#include "mlt/core/names.hpp"
#include "mlt/core/params.hpp"
#include "mlt/core/estimator.hpp"

namespace mlt {

enum class RidgeSolver {
  automatic,  // primal when n_samples >= n_features, else dual
  primal,     // Cholesky of XᵀX + λI (p x p): O(n p² + p³)
  dual,       // Cholesky of XXᵀ + λI (n x n), w = Xᵀ(XXᵀ + λI)⁻¹y: O(n² p + n³)
  svd,        // thin SVD of X: the most robust, O(n p min(n, p))
};
inline constexpr NameTable<RidgeSolver, 5> kRidgeSolverNames{"ridge solver",
                                                            {{{RidgeSolver::automatic, "auto"},
                                                              {RidgeSolver::primal, "primal"},
                                                              {RidgeSolver::dual, "dual"},
                                                              {RidgeSolver::svd, "svd"},
                                                              {RidgeSolver::primal, "cholesky"}}}};
constexpr const auto& name_table(RidgeSolver) { return kRidgeSolverNames; }

struct RidgeParams {
  double lambda = 1.0;        // L2 penalty λ >= 0 (scikit-learn Ridge's alpha); 0: least squares
  bool fit_intercept = true;  // centre X and y; the intercept is not penalized
  bool standardize = false;   // fit on (x - mean) / std; coefficients are then in that space
  RidgeSolver solver = RidgeSolver::automatic;

  // The declaration of these parameters (core/params.hpp).
  static const ParamTable<RidgeParams>& table();
};

class Ridge {
 public:
  using Params = RidgeParams;
  static constexpr const char* kind = "ridge";

  explicit Ridge(Params params = {}) : params_(params) {}

  // X: n x p, Y: n x t (t targets, one coefficient column each), n >= 1.
  // UsageError for invalid params; DataError for unusable data. With λ = 0 and a
  // singular XᵀX, the minimum-norm least-squares solution, with a warning.
  Ridge& fit(const arma::mat& X, const arma::mat& Y);
  // The same fit from rows read a chunk at a time (X: m x p, Y: m x t per chunk),
  // holding O((p + t)²) state instead of the data: the centred scatter of [X Y]
  // (core/scatter.hpp), then the primal solver on it. Equals fit(X, Y) on all the rows
  // with the primal solver, up to the rounding of the scatter's summation order (see
  // ridge.cpp). solver auto and primal only (dual and svd need the rows: UsageError);
  // an ill-conditioned system falls back to the eigendecomposition of X̄ᵀX̄ + λI.
  // Under several ranks (comm, core/distributed.hpp) each rank's pass reads its own
  // rows, the scatters of [X Y] are merged in rank order (merge_ranks), and every rank
  // solves the same merged system.
  // One pass (kStreamsOnce: standard input can feed it).
  Ridge& fit_stream(const RowPasses& passes, const Communicator& comm = single_process());
  static constexpr bool kStreamsOnce = true;
  // X: m x p -> predictions m x t.
  arma::mat predict(const arma::mat& X) const;
  // Coefficient of determination R² (averaged over targets), higher is better.
  double score(const arma::mat& X, const arma::mat& Y) const;

  bool is_fitted() const { return !coef_.is_empty(); }
  std::size_t n_features() const { return coef_.n_rows; }
  std::size_t n_targets() const { return coef_.n_cols; }
  const Params& params() const { return params_; }

  // p x t, in the standardized space when fitted with standardize.
  const arma::mat& coef() const { return coef_; }
  const arma::rowvec& intercept() const { return intercept_; }  // 1 x t
  RidgeSolver solver_used() const { return solver_used_; }
  // Estimated 2-norm (svd) or 1-norm (Cholesky, LAPACK's estimate) condition number
  // of the matrix solved; +inf when singular.
  double condition() const { return condition_; }
  std::size_t rank() const { return rank_; }  // numerical rank of centred X (svd), else min(n, p) assumed
  const Standardizer& scaler() const { return scaler_; }

  void save(io::ModelWriter& out) const;
  static Ridge load(const io::ModelReader& in);

 private:
  void require_fitted() const;

  Params params_;
  Standardizer scaler_;
  arma::mat coef_;
  arma::rowvec intercept_;
  RidgeSolver solver_used_ = RidgeSolver::automatic;
  double condition_ = 0;
  std::size_t rank_ = 0;
};

static_assert(Regressor<Ridge>);

}  // namespace mlt
