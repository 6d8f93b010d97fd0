// Scores of predictions against the truth, one implementation shared by `score`
// verbs and cross-validation. Definitions follow scikit-learn's sklearn.metrics.
// The registry at the end lists every metric a command reports or cross-validates
// by: its name, task, direction and function.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "mlt/core/types.hpp"

namespace mlt::metrics {

// Regression; y and prediction of equal length (n), or n x t matrices averaged
// over targets (scikit-learn's multioutput="uniform_average").
double mse(const arma::mat& y, const arma::mat& prediction);
double rmse(const arma::mat& y, const arma::mat& prediction);
double mae(const arma::mat& y, const arma::mat& prediction);
// 1 - SS_res / SS_tot; a constant y gives 1 for a perfect prediction, else 0 (sklearn).
double r2(const arma::mat& y, const arma::mat& prediction);

// Classification; labels are class indices below n_classes.
double accuracy(const Labels& y, const Labels& prediction);
// Mean recall over the classes present in y.
double balanced_accuracy(const Labels& y, const Labels& prediction, std::size_t n_classes);
// Unweighted mean of per-class F1 over classes present in y or prediction (a class
// with no true and no predicted samples is left out; 0/0 counts as 0).
double f1_macro(const Labels& y, const Labels& prediction, std::size_t n_classes);
// Mean of -log p(true class); probabilities (n x n_classes) clipped to [1e-15, 1].
double log_loss(const Labels& y, const arma::mat& probabilities);
// counts(i, j): samples of true class i predicted as j.
arma::umat confusion_matrix(const Labels& y, const Labels& prediction, std::size_t n_classes);

// scikit-learn's classification_report (precision_recall_fscore_support with
// zero_division=0: a ratio 0/0 counts as 0) over the classes present in y or in the
// prediction (unique_labels), in index order. The macro averages are the plain means
// of the rows, the weighted ones weigh each row by its support. Cost: O(n + classes²).
struct ClassificationReport {
  Labels classes;                    // the class indices reported, ascending
  arma::vec precision, recall, f1;   // one per reported class
  arma::uvec support;                // true rows of each reported class
  double macro_precision = 0, macro_recall = 0, macro_f1 = 0;
  double weighted_precision = 0, weighted_recall = 0, weighted_f1 = 0;
};
ClassificationReport classification_report(const Labels& y, const Labels& prediction, std::size_t n_classes);

// Brier score: the mean over rows of Σ_k (P(i, k) − [y_i = k])² (n x n_classes
// probabilities). For two classes, half of it: the mean of (P(i, 1) − [y_i = 1])²,
// scikit-learn 1.2's brier_score_loss of the second class; beyond two, the sum over
// classes, as scikit-learn ≥ 1.7 defines the multiclass score. Lower is better.
double brier(const Labels& y, const arma::mat& probabilities);

// Ranking metrics of class scores: `scores` is n x n_classes (probabilities or
// decision values, one column per class) or, for two classes, n x 1 (the second
// class's score; higher means more likely). Two classes: roc_auc / average_precision
// of the second class's column. More: one-vs-rest, the unweighted mean over the
// classes of each class's column against the rest (roc_auc_score(multi_class="ovr",
// average="macro"); average_precision_score of the binarized labels,
// average="macro"). Throws DataError when a class has no row or every row (its
// one-vs-rest problem has one side only).
double roc_auc_ovr(const Labels& y, const arma::mat& scores, std::size_t n_classes);
double average_precision_ovr(const Labels& y, const arma::mat& scores, std::size_t n_classes);

// Per-target regression metrics: column j of each is the metric of target j
// (mse, rmse, mae, r2 on Y.col(j) and P.col(j)).
struct PerTarget {
  arma::rowvec mse, rmse, mae, r2;
};
PerTarget per_target(const arma::mat& Y, const arma::mat& P);

// Clustering agreement between two labelings (any integer ids).
double adjusted_rand_index(const Labels& a, const Labels& b);
// Normalized mutual information, arithmetic normalization (sklearn's default).
double normalized_mutual_info(const Labels& a, const Labels& b);

// Mean silhouette coefficient (Rousseeuw 1987; scikit-learn's silhouette_score) of the
// labelling of X's rows (n x p), Euclidean distances; s(i) = 0 for a point alone in its
// cluster. With more than `max_exact` rows it is computed on `max_exact` rows drawn
// without replacement by Random(seed) (kDefaultSeed when not given). Throws DataError
// unless 2 <= number of labels <= n - 1 (on the sample). Cost: n²·p (metrics_silhouette.cpp).
double silhouette(const arma::mat& X, const Labels& labels, std::size_t max_exact = 10000);
double silhouette(const arma::mat& X, const Labels& labels, std::size_t max_exact, std::uint64_t seed);

// Ranking curves of a two-class problem (metrics_curves.cpp). `positive`: 1 for the
// rows of the positive class, 0 for the others; `scores`: higher for rows more likely
// positive (decision values or probabilities), finite. Each distinct score t, highest
// first, is a threshold: the rows scoring >= t are called positive (tied rows together,
// as scikit-learn's _binary_clf_curve). Throws DataError unless both classes are present
// and every score is finite. Cost: one sort, O(n log n).
struct RankingCurve {
  arma::vec x, y;         // the points, in order of decreasing threshold
  arma::vec thresholds;   // the threshold of each point (+inf for a start point)
};
// ROC: x the false positive rate, y the true positive rate; from (0, 0) at +inf, one point
// per distinct score, to (1, 1). scikit-learn's roc_curve(drop_intermediate=False) (whose
// first threshold is max + 1 where this says +inf).
RankingCurve roc_curve(const Labels& positive, const arma::vec& scores);
// Area under the ROC curve by trapezoids (roc_auc_score): the probability that a random
// positive row scores above a random negative one, ties counting one half.
double roc_auc(const Labels& positive, const arma::vec& scores);
// Precision-recall: x the recall, y the precision; from (0, 1) at +inf, then one point per
// distinct score. scikit-learn's precision_recall_curve, in reverse order.
RankingCurve precision_recall_curve(const Labels& positive, const arma::vec& scores);
// Average precision Σ (R_k − R_{k−1}) P_k over the thresholds, highest first, R_0 = 0:
// the step integral, without interpolation (average_precision_score).
double average_precision(const Labels& positive, const arma::vec& scores);

// Whether larger values of the named metric are better ("r2", "accuracy", ...)
// or smaller ("mse", "log_loss", "inertia", ...). Throws UsageError for an unknown name.
bool higher_is_better(const std::string& metric);

// The registry: one entry per metric, in the order commands report them (`score`
// lines, --metric help). A metric's function takes what its task scores; metrics
// computed from the fitted model itself (inertia and silhouette need the centroids or
// the points, reconstruction_mse the components) have none, and their estimator
// computes them.
enum class Task { regression, classification, clustering, decomposition };

// Predictions P against targets Y, both n x t.
using RegressionFn = double (*)(const arma::mat& Y, const arma::mat& P);
// Predicted classes against true ones; `probabilities` (n x classes) is read only by
// the metrics that need it and may be null otherwise; a metric that needs only the
// probabilities (log_loss) ignores `prediction`. For the ranking metrics
// (Metric::needs_scores) the pointer may hold decision values instead, shaped as
// roc_auc_ovr's `scores`. n_classes: any bound above every
// index in y and prediction (the per-class metrics count only the classes present).
using ClassificationFn = double (*)(const Labels& y, const Labels& prediction, const arma::mat* probabilities,
                                    std::size_t n_classes);
// Agreement of two labelings (ari, nmi: clusters against reference labels).
using AgreementFn = double (*)(const Labels& a, const Labels& b);

struct Metric {
  std::string_view name;
  Task task;
  bool higher_is_better;
  bool needs_probabilities;          // classification metrics of predicted probabilities
  RegressionFn regression = nullptr;  // at most one of the three, the task's
  ClassificationFn classification = nullptr;
  AgreementFn agreement = nullptr;
  // Classification metrics of class scores, read only by their order (roc_auc,
  // average_precision): decision values serve as well as probabilities.
  bool needs_scores = false;
};

// Every metric, in report order.
const std::vector<Metric>& registry();
// The entry called `name`; throws UsageError for an unknown name.
const Metric& find(const std::string& name);
// The names of a task's metrics in report order; `with_probabilities` false leaves out
// those that need predicted probabilities (for a classifier without them), and
// `with_scores` false the ranking metrics (for one with neither probabilities nor
// decision values).
Names names(Task task, bool with_probabilities = true, bool with_scores = true);

// The named metric through the registry. Cost: one pass over the data (O(n t), or
// O(n + classes²) for the per-class ones). Throws UsageError for an unknown name and
// Error (internal) for a metric of another task, or for one that needs `probabilities`
// when they are null. classification_score bounds the class count by the largest index.
double regression_score(const std::string& name, const arma::mat& Y, const arma::mat& P);
double classification_score(const std::string& name, const Labels& y, const Labels& prediction,
                            const arma::mat* probabilities);
double agreement_score(const std::string& name, const Labels& a, const Labels& b);

}  // namespace mlt::metrics
