// The linear soft-margin support vector machine (issue #13): hinge or squared hinge
// loss, L2 penalty, binary or one-vs-rest, by dual coordinate descent (svm/linear.hpp).
//
// Objective, with λ as logreg's (C = 1/λ in LIBLINEAR and scikit-learn), labels
// y_i ∈ {-1, +1} (class index 1 is +1 in a binary problem; under one-vs-rest class k
// is +1 against the rest) and class weights c_i (1, or "balanced"):
//
//     min_{w, b}  (λ/2)(‖w‖² + b²) + Σ_i c_i ξ(y_i (wᵀx_i + b)),
//     ξ(m) = max(0, 1 - m) (hinge)   or   max(0, 1 - m)² (squared hinge).
//
// The intercept is regularized: b is the weight of a constant feature 1 appended to
// every row, exactly LIBLINEAR's bias feature (`-B 1`) and scikit-learn's LinearSVC
// with intercept_scaling=1, so the objective and the solution are theirs. (Unlike
// logreg's, whose intercept is free: the dual of an SVM with a free intercept has an
// equality constraint Σ α_i y_i = 0 that coordinate descent cannot keep.) Without an
// intercept (`fit_intercept` off) b = 0 and the model is LIBLINEAR's `-B -1`. The
// objective is LIBLINEAR's primal (½‖w‖² + Σ C_i ξ_i with C_i = c_i / λ) times λ,
// which is the scale reported (objective, dual objective, duality gap).
//
// λ > 0 is required (λ = 0 is refused: C = 1/λ would be infinite). However small λ
// is, the weights stay finite: hinge: the dual variables are bounded by C_i = c_i/λ
// (on separable data by the hard-margin solution, finite for any λ); squared hinge:
// the dual is strongly convex (D_ii = λ/(2c_i)) and bounded below. A λ so small that
// c_i/λ overflows is refused, and so is a fit whose weights would overflow.
//
// Class weights: "balanced" weighs a sample of class k by n / (K n_k) for two
// classes (scikit-learn's class_weight="balanced"); under one-vs-rest each binary
// problem is balanced on its own, n / (2 n_pos) and n / (2 n_rest), as logreg's ovr.
//
// Multiclass: one-vs-rest, K independent binary problems (LIBLINEAR's scheme for -s 1
// and -s 3, LinearSVC's), solved in parallel on --threads (each with its own seed,
// split from `seed`, so the result does not depend on the thread count); predict =
// argmax_k f_k(x), ties to the lower class. Two classes: one problem, class 1 when
// f(x) > 0.
//
// The kernel SVM (SMO, lib/mlt/svm/smo.*) is meant to join as a second form of this
// estimator: its parameters in the same table, its model storing the support vectors
// and their dual coefficients under "form": "dual" beside this "primal" form (the
// model header's fitted.form, checked on load), and decision_function choosing by
// form. The linear form stores the weights only (n_features + 1 numbers per output).
//
// Shapes: X n x p (one sample per row); coef n_outputs x p; intercept n_outputs;
// n_outputs = 1 for two classes, K for more. Cost: that of the solver per problem,
// O(n p) per pass over the data, times K under one-vs-rest (over the threads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mlt/core/estimator.hpp"
#include "mlt/core/params.hpp"
#include "mlt/core/random.hpp"
#include "mlt/core/types.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/standardizer.hpp"
#include "mlt/svm/linear.hpp"

namespace mlt {

// More than two classes. The linear SVM is one-vs-rest only (LIBLINEAR's scheme);
// one-vs-one voting belongs to the kernel SVM and joins this table with it.
enum class SvmMultiClass { ovr };
inline constexpr NameTable<SvmMultiClass, 1> kSvmMultiClassNames{"multiclass scheme", {{{SvmMultiClass::ovr, "ovr"}}}};
constexpr const auto& name_table(SvmMultiClass) { return kSvmMultiClassNames; }

struct SvmParams {
  double lambda = 1.0;                // (λ/2)‖(w, b)‖², > 0; C = 1/λ
  SvmLoss loss = SvmLoss::hinge;
  bool fit_intercept = true;          // b as a regularized bias feature (see above)
  bool balanced = false;              // class_weight="balanced"
  SvmMultiClass multiclass = SvmMultiClass::ovr;
  // Stopping tolerance on the dual's projected gradient, in margin units
  // (svm/linear.hpp). The duality gap it leaves is at most tol (Σ α_i + Σ_{G_i<0} C_i),
  // in LIBLINEAR's scale, and the fit reports the gap itself. The default puts the
  // objective within 1e-6 relative of the optimum, certified by that gap, on
  // well-conditioned problems: on every fixture case of tests/lib/svm_test.cpp
  // (standardized breast cancer and wine, iris; both losses; λ from 0.01 to 10) the
  // relative gap at 1e-7 is at most 7.9e-7, while 1e-6 leaves up to 3.9e-6 (where many
  // points sit just inside the margin with large C_i: separable wine, λ = 0.1), and
  // LIBLINEAR's default 0.1 leaves 1e-3 to 2e-2.
  double tol = 1e-7;
  // Passes per binary problem at most: a safety net, not the stopping rule. At the
  // default tol standardized breast cancer needs about 1,700 passes at λ = 1 but 70,000
  // (hinge) and 136,000 (squared hinge) at λ = 0.01, the latter beyond this default (a
  // warning then gives the gap); LinearSVC needs as many, and the 1000 of LIBLINEAR
  // and scikit-learn stop short of the optimum on such problems.
  std::size_t max_iter = 100000;
  std::uint64_t seed = kDefaultSeed;  // the coordinate order
  bool standardize = false;           // fit a Standardizer on X inside fit()

  // The declaration of these parameters (core/params.hpp).
  static const ParamTable<SvmParams>& table();
};

// How one binary problem's optimization went (one per class under one-vs-rest).
// Objectives in the estimator's scale: λ times LIBLINEAR's.
struct SvmFitInfo {
  std::size_t iterations = 0;   // outer iterations of dual coordinate descent
  bool converged = false;       // the projected-gradient test held on every sample
  double violation = 0;         // max PG - min PG at the end (margin units)
  double objective = 0;         // primal: (λ/2)‖(w, b)‖² + Σ c_i ξ_i
  double dual_objective = 0;
  double duality_gap = 0;       // objective - dual_objective >= objective - optimum
  std::size_t n_sv = 0;         // support vectors: α_i > 0 (on or inside the margin)
  std::size_t n_bounded = 0;    // hinge: α_i = C_i (inside the margin or misclassified)
};

class Svm {
 public:
  using Params = SvmParams;
  static constexpr const char* kind = "svm";

  explicit Svm(Params params = {}) : params_(params) {}

  // X: n x p; y: class indices below n_classes (0: max(y) + 1), every class present.
  // UsageError for invalid params, DataError for unusable data ("only one class").
  // Warns (mlt::warn) when a problem stops at max_iter, naming its duality gap.
  Svm& fit(const arma::mat& X, const Labels& y, std::size_t n_classes = 0);
  // X: m x p -> m x n_outputs: f(x) = wᵀx + b (1 column for two classes: class 1's).
  arma::mat decision_function(const arma::mat& X) const;
  // X: m x p -> class indices: two classes: 1 iff f(x) > 0; more: argmax, ties to the
  // lower index.
  Labels predict(const arma::mat& X) const;
  double score(const arma::mat& X, const Labels& y) const;  // accuracy

  bool is_fitted() const { return n_classes_ != 0; }
  std::size_t n_features() const { return n_features_; }
  std::size_t n_classes() const { return n_classes_; }
  std::size_t n_outputs() const { return intercept_.n_elem; }
  const Params& params() const { return params_; }

  // n_outputs x p weights in the space the model was fitted in (standardized if so).
  const arma::mat& coef() const { return coef_; }
  const arma::vec& intercept() const { return intercept_; }  // n_outputs (0 without intercept)
  const std::vector<SvmFitInfo>& fit_info() const { return fit_info_; }
  const Standardizer& scaler() const { return scaler_; }

  void save(io::ModelWriter& out) const;
  static Svm load(const io::ModelReader& in);

 private:
  void require_fitted() const;

  Params params_;
  std::size_t n_features_ = 0;
  std::size_t n_classes_ = 0;
  Standardizer scaler_;
  arma::mat coef_;       // n_outputs x p
  arma::vec intercept_;  // n_outputs
  std::vector<SvmFitInfo> fit_info_;
};

static_assert(Classifier<Svm>);

}  // namespace mlt
