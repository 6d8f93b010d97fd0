// Rosenblatt's perceptron as the lecture notes give it: primal and dual
// ("kernel") form, optionally averaged, one-vs-rest beyond two classes.
//
// The algorithm (Cristianini & Shawe-Taylor, An Introduction to Support Vector Machines,
// 2000, Table 2.1 and Theorem 2.3). Labels y_i ∈ {-1, +1} (class index 1 is +1 in a
// binary problem; under one-vs-rest, class k is +1 against the rest). R = max_i ‖x_i‖
// over the training rows (standardized if so). From w = 0, b = 0, cycle through the
// samples; on a mistake, y_i f(x_i) <= 0 with f(x) = ⟨w, x⟩ + b,
//
//     w ← w + η y_i x_i,      b ← b + η y_i R²       (b stays 0 without the intercept).
//
// Stop after an epoch without a mistake ("separated") or after max_epochs epochs. The
// order of one epoch is the data's order, or with `shuffle` a new permutation each
// epoch drawn from `seed` (the seed is used for nothing else). η only scales w and b
// together (both start at 0), so it changes neither the mistakes nor the predictions;
// it is offered because the notes carry it.
//
// How b enters: the update is the through-the-origin perceptron on augmented vectors
//     x̂_i = (x_i, R),   ŵ = (w, b/R):   ⟨ŵ, x̂_i⟩ = ⟨w, x_i⟩ + b = f(x_i),
// and ŵ ← ŵ + η y_i x̂_i is exactly the update above (b/R grows by η y_i R).
//
// Margin of the final hyperplane (reported when the training set was separated):
//     μ = min_i y_i (⟨w, x_i⟩ + b) / ‖w‖,
// the geometric margin in the input space: b enters only through f, the norm is w's
// alone (the distance of the nearest training point to the hyperplane f = 0). Also
// reported: the margin of the augmented separator,
//     μ̂ = min_i y_i f(x_i) / ‖(w, b/R)‖ = μ ‖w‖ / sqrt(‖w‖² + b²/R²).
//
// Novikoff's bound, derived for this update. Let (w*, b*) be any separator of the
// training set with geometric margin γ > 0 (‖w*‖ = 1, y_i(⟨w*, x_i⟩ + b*) >= γ); the
// hyperplane meets the convex hull of the data, so |b*| <= R. Its augmented vector
// û = (w*, b*/R) has ‖û‖² = 1 + b*²/R² <= 2 and ⟨û, x̂_i⟩ y_i >= γ; every ‖x̂_i‖² =
// ‖x_i‖² + R² <= 2R². After t corrections from ŵ = 0:
//     ⟨ŵ_t, û⟩ >= t η γ                        (each adds η y_i ⟨x̂_i, û⟩ >= η γ),
//     ‖ŵ_t‖² <= t η² 2R²                       (each adds 2η y_i⟨ŵ, x̂_i⟩ + η²‖x̂_i‖², the first <= 0),
// and Cauchy-Schwarz, t η γ <= ‖ŵ_t‖ ‖û‖ <= sqrt(2t) η R sqrt(2), gives
//     t <= (2R/γ)² = 4R²/γ²      corrections (η cancels; scale-free: scaling X by c
//                                  scales R and γ by c and changes no mistake).
// (Normalizing û instead gives t <= 2R²/γ̂² with γ̂ the augmented margin, never larger,
// since γ̂ >= γ/√2 when |b*| <= R.) Without the intercept x̂ = x, ‖x_i‖ <= R and the
// same steps give t <= (R/γ)². The final hyperplane of a separated fit is such a
// separator, so the bound is checked a posteriori with γ = μ: `bound` = (2R/μ)², or
// (R/μ)² without the intercept, and corrections <= bound holds (tested).
// The bound is sometimes written 4(1/μ + R²/μ²). Its term 4/μ is not scale-free (it
// changes with the units of x while the mistakes do not); it is 4/μ larger than the
// derivation's 4R²/μ², so it is also a valid, looser bound; mlt reports (2R/μ)².
//
// Dual form (`kernel`): α_i counts the corrections made on sample i, and with
// R² = max_i k(x_i, x_i),
//     f(x) = Σ_i η α_i y_i k(x_i, x) + b,      b = η R² Σ_i α_i y_i,
// the primal algorithm in the kernel's feature space. With the linear kernel it makes
// the same corrections and the same predictions as the primal form (tested). The
// primal form counts α too, so both show the hardest samples (largest α_i).
//
// Averaged perceptron (`average`): the model predicts with the mean of (w, b) over
// every sample visit of every epoch run (Freund & Schapire 1999), in the dual form the
// mean of α; fit info (separated, margin, bound) is the running perceptron's, whose
// corrections the bound counts.
//
// Multiclass: one-vs-rest, K independent binary perceptrons; predict = argmax_k f_k(x),
// ties to the lower class index. Two classes: one perceptron, class 1 when f(x) > 0.
#pragma once

#include <cstddef>
#include <cstdint>
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

namespace mlt {

struct PerceptronParams {
  double eta = 1.0;                   // learning rate η > 0
  std::size_t max_epochs = 1000;      // passes over the data at most, >= 1
  bool shuffle = false;               // a new sample order each epoch (else the data's order)
  std::uint64_t seed = kDefaultSeed;  // the shuffle's seed; used only with shuffle
  bool average = false;               // predict with the averaged perceptron
  bool standardize = false;           // fit a Standardizer on X inside fit()
  bool fit_intercept = true;          // b, updated by η y R²
  bool kernelized = false;            // dual form with `kernel`
  KernelParams kernel;

  // The declaration of these parameters (core/params.hpp).
  static const ParamTable<PerceptronParams>& table();
};

// How one binary perceptron's training went (one per class under one-vs-rest).
struct PerceptronFitInfo {
  std::size_t corrections = 0;         // mistakes made, all epochs (= Σ α_i)
  std::size_t epochs = 0;              // epochs run, the last clean one included
  std::size_t last_epoch_mistakes = 0;  // 0 when separated
  bool separated = false;              // an epoch ended without a mistake
  double radius = 0;                   // R = max ‖x_i‖ (feature space in dual form)
  // When separated (else NaN): μ, μ̂ and the bound (2R/μ)² (no intercept: (R/μ)²),
  // derived in the comment at the top of this file.
  double margin = 0;
  double augmented_margin = 0;
  double bound = 0;
};

class Perceptron {
 public:
  using Params = PerceptronParams;
  static constexpr const char* kind = "perceptron";

  explicit Perceptron(Params params = {}) : params_(params) {}

  // X: n x p; y: class indices below n_classes (0: max(y) + 1), every class present.
  // UsageError for invalid params, DataError for unusable data ("only one class").
  // Warns (mlt::warn) when a problem is not separated within max_epochs, naming the
  // mistakes of its last epoch.
  Perceptron& fit(const arma::mat& X, const Labels& y, std::size_t n_classes = 0);
  // X: m x p -> m x n_outputs: f(x) (1 column for two classes, else one per class).
  arma::mat decision_function(const arma::mat& X) const;
  // X: m x p -> class indices; two classes: 1 iff f(x) > 0; more: argmax, ties to the
  // lower index.
  Labels predict(const arma::mat& X) const;
  double score(const arma::mat& X, const Labels& y) const;  // accuracy

  bool is_fitted() const { return n_classes_ != 0; }
  std::size_t n_features() const { return n_features_; }
  std::size_t n_classes() const { return n_classes_; }
  std::size_t n_outputs() const { return intercept_.n_elem; }
  const Params& params() const { return params_; }

  // Primal: n_outputs x p weights (of the averaged perceptron with `average`), in the
  // space the model was fitted in (standardized if so). Dual: empty.
  const arma::mat& coef() const { return coef_; }
  const arma::vec& intercept() const { return intercept_; }  // n_outputs
  // Dual: n_train x n_outputs coefficients η α_ik y_ik (averaged α with `average`),
  // f(x) = k(x, train) dual_coef + intercept. Primal: empty.
  const arma::mat& dual_coef() const { return dual_coef_; }
  const arma::mat& train() const { return train_; }  // dual: the (standardized) training rows
  // Corrections per training sample and output, n_train x n_outputs: the running
  // perceptron's α_ik. After fit in both forms; a loaded model has it in dual form
  // only (a primal model file does not keep n values per output).
  const arma::umat& alpha() const { return alpha_; }
  // "The hardest samples": up to 10 training rows (0-based) with the largest total
  // corrections Σ_k α_ik, most first (ties: lower row), rows never corrected left out.
  // Both forms; kept in the model header (info.hardest) for `mlt info`.
  using Hardest = std::vector<std::pair<std::size_t, std::size_t>>;  // (row, corrections)
  const Hardest& hardest() const { return hardest_; }
  const std::vector<PerceptronFitInfo>& fit_info() const { return fit_info_; }
  const Standardizer& scaler() const { return scaler_; }
  const Kernel& kernel() const { return kernel_; }

  void save(io::ModelWriter& out) const;
  static Perceptron load(const io::ModelReader& in);

 private:
  void require_fitted() const;

  Params params_;
  std::size_t n_features_ = 0;
  std::size_t n_classes_ = 0;
  Standardizer scaler_;
  Kernel kernel_;
  arma::mat train_;      // dual: n x p
  arma::mat coef_;       // primal: n_outputs x p
  arma::mat dual_coef_;  // dual: n x n_outputs
  arma::vec intercept_;  // n_outputs
  arma::umat alpha_;     // n x n_outputs corrections (dual: saved; primal: kept in memory, not saved)
  Hardest hardest_;
  std::vector<PerceptronFitInfo> fit_info_;
};

static_assert(Classifier<Perceptron>);

}  // namespace mlt
