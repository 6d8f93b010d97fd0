// The kernel smoother (Nadaraya–Watson) of the lecture notes: regression, and with
// class labels the plug-in classifier. The model is the (standardized) training set.
//
//   r(x) = Σᵢ W((x - Xᵢ)/h) Yᵢ / Σⱼ W((x - Xⱼ)/h)
//
// with the window h (`bandwidth`) and the notes' window functions of z, ‖·‖ Euclidean
// or, with a `kernel` k, the distance it induces in its feature space (the notes; as
// knn's kernel distance), ‖x − Xᵢ‖² = k(x, x) − 2 k(x, Xᵢ) + k(Xᵢ, Xᵢ), so that the
// smoother works on strings (spectrum), graphs (walk) and any kernel (a precomputed
// one: fit and cv, whose rows are all training rows; not predict on new rows, whose
// k(x, x) it does not give):
//   box           𝟙{‖z‖ ≤ 1}
//   epanechnikov  (1 - ‖z‖) 𝟙{‖z‖ ≤ 1}      (the notes' form, not the textbook 1 - ‖z‖²)
//   gaussian      exp(-‖z‖²)
// Classification smooths the class indicators: pₖ(x) = Σᵢ W(...) 𝟙{yᵢ = k} / Σⱼ W(...),
// the weighted class frequencies, and predicts the most probable class (ties: the
// lower class index). When no training point has a positive weight (box and
// epanechnikov: none within h) the denominator is zero and the notes' rule predicts
// the mean of Y (the class frequencies of the training set); predict counts how often.
// The Gaussian window's weights are taken relative to the nearest training point's,
// exp(-(‖x - Xᵢ‖² - minⱼ ‖x - Xⱼ‖²)/h²): the same ratio, but the denominator is at least
// 1, where exp(-‖z‖²) itself would underflow to 0/0 for a query 27 h from the data.
//
// Leave-one-out in closed form: the prediction at Xᵢ of the smoother fitted without
// row i omits the i-th term from both sums; loo_predict computes it for every training
// row in one pass over the pairwise distances, O(n² p), the same arithmetic in the same
// order as refitting without row i (so the same bits). When the LOO denominator is zero
// (no other point in Xᵢ's window) the prediction is the mean of Y over the other n - 1
// rows, as the refit's rule gives.
//
// With a kernel, the leave-one-out pass is still the refit's arithmetic: a kernel
// value depends on its two rows only (Kernel::gram), so each d² is the same bits in
// either. The kernel must be positive semi-definite (d² ≥ 0): sigmoid is refused.
//
// Shapes: X n x p training rows, Y n x t targets (or n labels); queries m x p (with a
// structured kernel: encoded rows, mlt/kernel.hpp).
// Cost: fit O(n p) (a copy); predict O(m n p) on thread_count() threads, O(n + t)
// memory per thread beyond the output (one row's distances at a time). With a kernel,
// the m x n kernel values are computed in batches of up to 256 queries and 2^22
// values (32 MB) at the kernel's cost (Kernel::gram), then weighted as above.
#pragma once

#include <cstddef>
#include <optional>

#include "mlt/core/estimator.hpp"
#include "mlt/core/names.hpp"
#include "mlt/core/params.hpp"
#include "mlt/core/types.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/kernel.hpp"
#include "mlt/standardizer.hpp"

namespace mlt {

enum class SmootherWindow { box, epanechnikov, gaussian };
inline constexpr NameTable<SmootherWindow, 3> kSmootherWindowNames{
    "window",
    {{{SmootherWindow::box, "box"}, {SmootherWindow::epanechnikov, "epanechnikov"}, {SmootherWindow::gaussian, "gaussian"}}}};
constexpr const auto& name_table(SmootherWindow) { return kSmootherWindowNames; }

struct SmootherParams {
  double bandwidth = 1.0;  // h > 0, in the units of the (standardized) features
  SmootherWindow window = SmootherWindow::gaussian;
  bool classification = false;  // the plug-in classifier on class labels
  bool standardize = false;     // z-score the features (fitted on the training rows)
  // The kernel-induced distance instead of the Euclidean one (none: Euclidean).
  std::optional<KernelParams> kernel;

  // The declaration of these parameters (core/params.hpp).
  static const ParamTable<SmootherParams>& table();
};

// Regression and classification in one class, as the command line has one `mlt
// smoother` (predict gives classes; predict_values the regression or the class
// probabilities). SmootherRegressor below is the regressor's form of it.
class Smoother {
 public:
  using Params = SmootherParams;
  static constexpr const char* kind = "smoother";

  explicit Smoother(Params params = {}) : params_(params) {}

  // Regression. X: n x p, Y: n x t (t >= 1). UsageError for bad params or when
  // params.classification is set; DataError for unusable data.
  Smoother& fit(const arma::mat& X, const arma::mat& Y);
  // Classification. y: n class indices below n_classes (0: max(y) + 1). Requires
  // params.classification.
  Smoother& fit(const arma::mat& X, const Labels& y, std::size_t n_classes = 0);

  // m x t: the smoothed targets (regression) or class probabilities (classification,
  // rows sum to 1). `n_empty`, when given, receives the number of rows whose window
  // held no training point (predicted as the training mean).
  arma::mat predict_values(const arma::mat& X, std::size_t* n_empty = nullptr) const;
  arma::mat predict_proba(const arma::mat& X) const { return predict_values(X); }  // classification
  // Classification: the most probable class per row (ties: the lower index).
  Labels predict(const arma::mat& X) const;
  // One pass: predict_values, the classes of classification, and the empty windows.
  TaskPrediction predict_task(const arma::mat& X) const;
  // The class with the highest probability in each row of P (ties: the lower index).
  static Labels classes_of(const arma::mat& P);

  // Leave-one-out predictions at the training rows (n x t), each from the other n - 1
  // rows, under `bandwidth` and `window` (so a grid of them needs no refit); the
  // standardization stays as fitted on all n rows. `n_empty` as predict_values.
  // DataError with fewer than 2 training rows.
  arma::mat loo_predict(double bandwidth, SmootherWindow window, std::size_t* n_empty = nullptr) const;

  bool is_fitted() const { return !X_.is_empty(); }
  bool is_classification() const { return params_.classification; }
  std::size_t n_features() const { return X_.n_cols; }
  std::size_t n_train() const { return X_.n_rows; }
  std::size_t n_classes() const { return params_.classification ? Y_.n_cols : 0; }
  std::size_t n_targets() const { return Y_.n_cols; }
  const Params& params() const { return params_; }
  const arma::mat& training_data() const { return X_; }  // n x p, standardized if so fitted
  const arma::rowvec& target_mean() const { return mean_; }  // 1 x t: the empty window's prediction

  void save(io::ModelWriter& out) const;
  static Smoother load(const io::ModelReader& in);

 private:
  void check_params() const;
  void require_fitted() const;
  void fit_rows(const arma::mat& X);
  // The smoother at the rows of Q (already standardized); with leave_one_out, Q is the
  // training set and row q skips training row q.
  arma::mat smooth(const arma::mat& Q, double bandwidth, SmootherWindow window, bool leave_one_out,
                   std::size_t* n_empty) const;

  // Squared distances of query rows [first, last) of Q to every training row, into
  // D2 ((last - first) x n), with the kernel.
  arma::mat kernel_distances(const arma::mat& Q, arma::uword first, arma::uword last) const;

  Params params_;
  Standardizer scaler_;  // fitted only with standardize
  arma::mat X_;          // n x p
  arma::mat Xt_;         // p x n: the training rows as contiguous columns
  Kernel kernel_;        // with a kernel
  arma::vec kernel_diag_;  // n: k(Xᵢ, Xᵢ), with a kernel
  arma::mat Y_;          // n x t targets, or n x K class indicators
  arma::rowvec mean_;    // 1 x t: Y's column means, each summed in row order
};

static_assert(TaskByParameter<Smoother>);

// The smoother as a Regressor (mlt/core/estimator.hpp): predict gives the smoothed
// targets. The same model file as Smoother's.
class SmootherRegressor {
 public:
  using Params = SmootherParams;
  static constexpr const char* kind = Smoother::kind;

  explicit SmootherRegressor(Params params = {}) : smoother_(params) {}
  SmootherRegressor& fit(const arma::mat& X, const arma::mat& Y) {
    smoother_.fit(X, Y);
    return *this;
  }
  arma::mat predict(const arma::mat& X) const { return smoother_.predict_values(X); }

  bool is_fitted() const { return smoother_.is_fitted(); }
  std::size_t n_features() const { return smoother_.n_features(); }
  const Params& params() const { return smoother_.params(); }
  const Smoother& smoother() const { return smoother_; }
  void save(io::ModelWriter& out) const { smoother_.save(out); }
  static SmootherRegressor load(const io::ModelReader& in);

 private:
  Smoother smoother_;
};

static_assert(Regressor<SmootherRegressor>);

}  // namespace mlt
