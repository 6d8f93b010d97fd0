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
// probabilities (log_loss) ignores `prediction`. n_classes: any bound above every
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
};

// Every metric, in report order.
const std::vector<Metric>& registry();
// The entry called `name`; throws UsageError for an unknown name.
const Metric& find(const std::string& name);
// The names of a task's metrics in report order; `with_probabilities` false leaves out
// those that need predicted probabilities (for a classifier without them).
Names names(Task task, bool with_probabilities = true);

// The named metric through the registry. Cost: one pass over the data (O(n t), or
// O(n + classes²) for the per-class ones). Throws UsageError for an unknown name and
// Error (internal) for a metric of another task, or for one that needs `probabilities`
// when they are null. classification_score bounds the class count by the largest index.
double regression_score(const std::string& name, const arma::mat& Y, const arma::mat& P);
double classification_score(const std::string& name, const Labels& y, const Labels& prediction,
                            const arma::mat* probabilities);
double agreement_score(const std::string& name, const Labels& a, const Labels& b);

}  // namespace mlt::metrics
