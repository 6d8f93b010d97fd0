// The soft-margin support vector machine. Linear: hinge or squared hinge
// loss, L2 penalty, binary or one-vs-rest, by dual coordinate descent (svm/linear.hpp).
// Kernel (below): hinge loss, by SMO (svm/smo.hpp), one-vs-one or one-vs-rest.
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
// Kernel (`kernel` given): the same objective with w in the kernel's feature space
// and b free (unregularized), solved in the dual by SMO (svm/smo.hpp, LIBSVM's C-SVC,
// scikit-learn's SVC) with C_i = c_i / λ; hinge loss only (SMO solves the hinge dual),
// and always an intercept (b is SMO's). The model keeps only the support vectors
// (α_i > 0 in some binary problem; standardized rows if so) and their dual
// coefficients α_i y_i per problem ("form": "dual" in the model header, beside the
// linear "primal"): f(x) = Σ_i α_i y_i k(x_i, x) + b. Reported per problem: the dual
// objective −λ (½αᵀQα − eᵀα), the primal objective at the returned (α, b) and their
// difference, the duality gap (≥ 0 up to rounding); the KKT violation m(α) − M(α) of
// SMO's stopping test (`tol`), and the steps that met a non-PSD kernel (sigmoid).
//
// Multiclass with a kernel: one-vs-one by default (LIBSVM's and SVC's): a problem per
// pair a < b in the order (0,1), (0,2), ..., (0,K−1), (1,2), ..., class a as +1; predict
// by votes (f_ab(x) > 0 votes a, else b), ties to the lower class, as LIBSVM. Balanced
// weights under ovo are scikit-learn's: c_i = n / (K n_k) over the whole training set,
// the same in every pair (SVC passes class weights to LIBSVM, which scales C per class
// in each pair). One-vs-rest with a kernel is offered too (K SMO problems, weights as
// the linear ovr's). One-vs-one without a kernel is refused: the linear SVM regularizes
// b (LIBLINEAR's scheme), and `kernel` linear gives LIBSVM's linear one-vs-one.
//
// Probabilities (`probability`, off by default as in LIBSVM and SVC: it costs five
// more fits): fit also runs an internal stratified 5-fold cross-validation (folds from
// `seed`, so the result is reproducible, unlike LIBSVM's -b 1, whose folds come from
// rand()) and fits Platt's sigmoid P(+1 | f) = 1/(1 + exp(A f + B)) to each binary
// problem's out-of-fold decision values (svm/platt.hpp, Lin, Lin & Weng's Newton
// method; ovo: on the rows of its two classes). predict_proba: two classes: class 1's
// sigmoid and 1 − it for class 0; one-vs-one: the K(K−1)/2 pairwise sigmoids, clipped
// to [1e-7, 1 − 1e-7] as LIBSVM, coupled by Wu, Lin & Weng's method 2 (LIBSVM's
// multiclass_probability); one-vs-rest: the K sigmoids normalized to sum 1 (computed
// from their logarithms, so rows whose K sigmoids all underflow still sum to 1), as
// LIBLINEAR normalizes its one-vs-rest logistic outputs. The probabilities need not
// agree with predict (votes or argmax of f): LIBSVM documents the same. Every class
// needs two training rows (the cross-validation trains without each row once).
//
// Shapes: X n x p (one sample per row); coef n_outputs x p; intercept n_outputs;
// n_outputs = 1 for two classes, K for more (ovr) or K(K−1)/2 (ovo). Kernel:
// support_vectors n_sv x p, dual_coef n_sv x n_outputs. Cost: linear: O(n p) per pass
// over the data, times K under one-vs-rest (over the threads); kernel: SMO's per
// problem (svm/smo.hpp), and prediction O(m n_sv p).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "mlt/core/estimator.hpp"
#include "mlt/core/params.hpp"
#include "mlt/core/random.hpp"
#include "mlt/core/types.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/kernel.hpp"
#include "mlt/standardizer.hpp"
#include "mlt/svm/linear.hpp"

namespace mlt {

// More than two classes: auto is ovo with a kernel (LIBSVM) and ovr without (LIBLINEAR);
// a fitted model records the scheme it used.
enum class SvmMultiClass { automatic, ovr, ovo };
inline constexpr NameTable<SvmMultiClass, 3> kSvmMultiClassNames{
    "multiclass scheme",
    {{{SvmMultiClass::automatic, "auto"}, {SvmMultiClass::ovr, "ovr"}, {SvmMultiClass::ovo, "ovo"}}}};
constexpr const auto& name_table(SvmMultiClass) { return kSvmMultiClassNames; }

struct SvmParams {
  double lambda = 1.0;                // (λ/2)‖(w, b)‖², > 0; C = 1/λ
  SvmLoss loss = SvmLoss::hinge;
  bool fit_intercept = true;          // b as a regularized bias feature (see above)
  bool balanced = false;              // class_weight="balanced"
  SvmMultiClass multiclass = SvmMultiClass::automatic;
  bool kernelized = false;            // the kernel SVM with `kernel` (SMO)
  KernelParams kernel;
  std::size_t cache_mb = 200;         // kernel: SMO's kernel-column cache (LIBSVM's -m)
  bool shrinking = true;              // kernel: SMO's shrinking (LIBSVM's -h)
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
  // The kernel SVM stops on SMO's KKT violation m(α) − M(α) <= tol (LIBSVM's eps,
  // 1e-3 by default there): at 1e-7 the decision values are within about λ(x) 1e-7 of
  // the optimum's (svm/smo_test.cpp's bound) rather than LIBSVM's 1e-3.
  // Passes per binary problem at most: a safety net, not the stopping rule. At the
  // default tol standardized breast cancer needs about 1,700 passes at λ = 1 but 70,000
  // (hinge) and 136,000 (squared hinge) at λ = 0.01, the latter beyond this default (a
  // warning then gives the gap); LinearSVC needs as many, and the 1000 of LIBLINEAR
  // and scikit-learn stop short of the optimum on such problems.
  std::size_t max_iter = 100000;
  std::uint64_t seed = kDefaultSeed;  // the coordinate order
  bool standardize = false;           // fit a Standardizer on X inside fit()
  bool probability = false;           // Platt's sigmoids from an internal 5-fold CV (above)

  // The declaration of these parameters (core/params.hpp).
  static const ParamTable<SvmParams>& table();
};

// How one binary problem's optimization went (one per class under one-vs-rest, one
// per pair under one-vs-one). Objectives in the estimator's scale: λ times LIBLINEAR's
// (kernel: λ times LIBSVM's primal, the dual −λ obj).
struct SvmFitInfo {
  std::size_t iterations = 0;   // outer iterations of dual coordinate descent; SMO steps
  bool converged = false;       // the projected-gradient (kernel: KKT) test held
  double violation = 0;         // max PG - min PG at the end; kernel: m(α) − M(α) (margin units)
  double objective = 0;         // primal: (λ/2)‖(w, b)‖² + Σ c_i ξ_i
  double dual_objective = 0;
  double duality_gap = 0;       // objective - dual_objective >= objective - optimum
  std::size_t n_sv = 0;         // support vectors: α_i > 0 (on or inside the margin)
  std::size_t n_bounded = 0;    // hinge: α_i = C_i (inside the margin or misclassified)
  std::size_t non_psd_steps = 0;  // kernel: SMO steps where the kernel was not PSD (sigmoid)
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
  // X: m x p -> m x n_outputs: f(x) = wᵀx + b, or Σ α_i y_i k(x_i, x) + b (1 column for
  // two classes: class 1's; ovo: one per pair (a, b), > 0 for a, in problem order).
  arma::mat decision_function(const arma::mat& X) const;
  // X: m x p -> class indices: two classes: 1 iff f(x) > 0; ovr: argmax; ovo: most
  // votes; ties to the lower index.
  Labels predict(const arma::mat& X) const;
  double score(const arma::mat& X, const Labels& y) const;  // accuracy
  // X: m x p -> m x K class probabilities, rows summing to 1 (see above). UsageError
  // when the model was fitted without `probability`.
  arma::mat predict_proba(const arma::mat& X) const;
  // Whether predict_proba is available: fitted (or to be fitted) with `probability`.
  bool has_probability() const { return params_.probability; }

  bool is_fitted() const { return n_classes_ != 0; }
  std::size_t n_features() const { return n_features_; }
  std::size_t n_classes() const { return n_classes_; }
  std::size_t n_outputs() const { return intercept_.n_elem; }
  const Params& params() const { return params_; }
  // The scheme of more than two classes as fitted (ovr or ovo; ovr for two classes).
  SvmMultiClass multiclass() const { return multiclass_; }
  // The pair of each ovo output (a < b), in problem order.
  std::vector<std::pair<std::size_t, std::size_t>> pairs() const;
  // predict --decision's column names: decision_<a>_<b> under ovo, else one per class
  // (the second class's for two).
  std::vector<std::string> decision_names(const std::vector<std::string>& classes) const;

  // n_outputs x p weights in the space the model was fitted in (standardized if so).
  const arma::mat& coef() const { return coef_; }
  const arma::vec& intercept() const { return intercept_; }  // n_outputs (0 without intercept)
  const std::vector<SvmFitInfo>& fit_info() const { return fit_info_; }
  // The training accuracy, when the fit had every training row's decision values in
  // hand (kernel, two classes or one-vs-rest: the primal objective's pass computes
  // them, with the bits predict would); empty otherwise, and after load.
  std::optional<double> training_accuracy() const { return training_accuracy_; }
  // With `probability`: n_outputs x 2, Platt's (A, B) per binary problem.
  const arma::mat& sigmoid() const { return sigmoid_; }
  const Standardizer& scaler() const { return scaler_; }
  // Kernel models: the support vectors (rows of the fitting space, by ascending
  // training index), their training row indices and classes, and α_i y_i per output
  // (0 where a vector is not in that output's problem).
  const Kernel& kernel() const { return kernel_; }
  const arma::mat& support_vectors() const { return sv_; }
  const arma::uvec& support() const { return support_; }
  const Labels& support_class() const { return sv_class_; }
  const arma::mat& dual_coef() const { return dual_coef_; }

  void save(io::ModelWriter& out) const;
  static Svm load(const io::ModelReader& in);

  // cv's λ path, which shares the kernel across the λ values of one kernel: the models of `base` with each of `lambdas` on the same X and y, passed
  // to visit(j, model) in order. With a kernel, when the n x n Gram matrix of the
  // fitting space's rows fits in `cache_mb`, it is computed once (Kernel::gram) and
  // every SMO solve reads its kernel columns from it (svm::SmoOptions::gram): the
  // same bits as computed columns, so each model is exactly the one fit() gives, at
  // one kernel evaluation per pair of rows for the whole path instead of per solve
  // and cache miss. Memory: the Gram matrix plus each solve's own cache, at most
  // 2 `cache_mb`. Otherwise (no kernel, or too many rows) each model is a plain fit.
  // The inner fits of `probability` stay plain (other rows, another Standardizer).
  static void fit_lambda_path(const Params& base, const std::vector<double>& lambdas, const arma::mat& X,
                              const Labels& y, std::size_t n_classes,
                              const std::function<void(std::size_t, const Svm&)>& visit);

 private:
  Svm& fit_impl(const arma::mat& X, const Labels& y, std::size_t n_classes, const arma::mat* gram);
  void require_fitted() const;
  void fit_kernel(const arma::mat& Xw, const Labels& y, const arma::uvec& counts, const arma::mat* gram);
  void fit_sigmoids(const arma::mat& X, const Labels& y, const arma::uvec& counts);

  Params params_;
  std::size_t n_features_ = 0;
  std::size_t n_classes_ = 0;
  Standardizer scaler_;
  arma::mat coef_;       // n_outputs x p
  arma::vec intercept_;  // n_outputs
  std::vector<SvmFitInfo> fit_info_;
  std::optional<double> training_accuracy_;
  SvmMultiClass multiclass_ = SvmMultiClass::ovr;
  Kernel kernel_;
  arma::mat sv_;         // n_sv x p (kernel)
  arma::uvec support_;   // n_sv training row indices
  Labels sv_class_;      // n_sv
  arma::mat dual_coef_;  // n_sv x n_outputs
  arma::mat sigmoid_;    // n_outputs x 2 (A, B), with `probability`
};

static_assert(ProbabilisticClassifier<Svm>);

}  // namespace mlt
