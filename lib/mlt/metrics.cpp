#include "mlt/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "mlt/core/error.hpp"

namespace mlt::metrics {
namespace {

void check_sizes(arma::uword a, arma::uword b) {
  if (a != b) throw DataError(std::to_string(a) + " true values but " + std::to_string(b) + " predictions");
  if (a == 0) throw DataError("no samples to score");
}

// Contingency table of two labelings with ids remapped to 0..k-1.
arma::mat contingency(const Labels& a, const Labels& b) {
  check_sizes(a.n_elem, b.n_elem);
  std::map<arma::uword, arma::uword> ia, ib;
  for (auto v : a) ia.emplace(v, ia.size());
  for (auto v : b) ib.emplace(v, ib.size());
  arma::mat c(ia.size(), ib.size(), arma::fill::zeros);
  for (arma::uword i = 0; i < a.n_elem; ++i) c(ia[a[i]], ib[b[i]]) += 1;
  return c;
}

double comb2(double n) { return n * (n - 1) / 2; }

}  // namespace

double mse(const arma::mat& y, const arma::mat& prediction) {
  check_sizes(y.n_elem, prediction.n_elem);
  return arma::accu(arma::square(y - prediction)) / static_cast<double>(y.n_elem);
}

double rmse(const arma::mat& y, const arma::mat& prediction) {
  // sklearn's root_mean_squared_error averages per-target RMSEs.
  check_sizes(y.n_elem, prediction.n_elem);
  const arma::rowvec per_target = arma::sqrt(arma::mean(arma::square(y - prediction), 0));
  return arma::mean(per_target);
}

double mae(const arma::mat& y, const arma::mat& prediction) {
  check_sizes(y.n_elem, prediction.n_elem);
  return arma::accu(arma::abs(y - prediction)) / static_cast<double>(y.n_elem);
}

double r2(const arma::mat& y, const arma::mat& prediction) {
  check_sizes(y.n_elem, prediction.n_elem);
  double sum = 0;
  for (arma::uword j = 0; j < y.n_cols; ++j) {
    const arma::vec t = y.col(j);
    const double ss_res = arma::accu(arma::square(t - prediction.col(j)));
    const double ss_tot = arma::accu(arma::square(t - arma::mean(t)));
    if (ss_tot > 0) sum += 1 - ss_res / ss_tot;
    else sum += ss_res == 0 ? 1.0 : 0.0;
  }
  return sum / static_cast<double>(y.n_cols);
}

double accuracy(const Labels& y, const Labels& prediction) {
  check_sizes(y.n_elem, prediction.n_elem);
  return static_cast<double>(arma::accu(y == prediction)) / static_cast<double>(y.n_elem);
}

arma::umat confusion_matrix(const Labels& y, const Labels& prediction, std::size_t n_classes) {
  check_sizes(y.n_elem, prediction.n_elem);
  arma::umat c(n_classes, n_classes, arma::fill::zeros);
  for (arma::uword i = 0; i < y.n_elem; ++i) {
    if (y[i] >= n_classes || prediction[i] >= n_classes)
      throw Error("internal: class index out of range", kExitSoftware);
    ++c(y[i], prediction[i]);
  }
  return c;
}

double balanced_accuracy(const Labels& y, const Labels& prediction, std::size_t n_classes) {
  const arma::umat c = confusion_matrix(y, prediction, n_classes);
  double sum = 0;
  std::size_t present = 0;
  for (std::size_t k = 0; k < n_classes; ++k) {
    const double support = static_cast<double>(arma::accu(c.row(k)));
    if (support == 0) continue;
    sum += static_cast<double>(c(k, k)) / support;
    ++present;
  }
  return sum / static_cast<double>(present);
}

double f1_macro(const Labels& y, const Labels& prediction, std::size_t n_classes) {
  const arma::umat c = confusion_matrix(y, prediction, n_classes);
  double sum = 0;
  std::size_t counted = 0;
  for (std::size_t k = 0; k < n_classes; ++k) {
    const double tp = static_cast<double>(c(k, k));
    const double actual = static_cast<double>(arma::accu(c.row(k)));
    const double predicted = static_cast<double>(arma::accu(c.col(k)));
    if (actual == 0 && predicted == 0) continue;
    sum += 2 * tp / (actual + predicted);
    ++counted;
  }
  return counted ? sum / static_cast<double>(counted) : 0.0;
}

double log_loss(const Labels& y, const arma::mat& probabilities) {
  check_sizes(y.n_elem, probabilities.n_rows);
  double sum = 0;
  for (arma::uword i = 0; i < y.n_elem; ++i) {
    if (y[i] >= probabilities.n_cols) throw Error("internal: class index out of range", kExitSoftware);
    sum -= std::log(std::clamp(probabilities(i, y[i]), 1e-15, 1.0));
  }
  return sum / static_cast<double>(y.n_elem);
}

double adjusted_rand_index(const Labels& a, const Labels& b) {
  const arma::mat c = contingency(a, b);
  const double n = static_cast<double>(a.n_elem);
  double sum_comb = 0, sum_a = 0, sum_b = 0;
  c.for_each([&](double v) { sum_comb += comb2(v); });
  const arma::vec rows = arma::sum(c, 1);
  const arma::rowvec cols = arma::sum(c, 0);
  rows.for_each([&](double v) { sum_a += comb2(v); });
  cols.for_each([&](double v) { sum_b += comb2(v); });
  const double expected = sum_a * sum_b / comb2(n);
  const double max_index = (sum_a + sum_b) / 2;
  // Both labelings trivial (one cluster each, or all singletons): sklearn returns 1.
  if (max_index == expected) return 1.0;
  return (sum_comb - expected) / (max_index - expected);
}

double normalized_mutual_info(const Labels& a, const Labels& b) {
  const arma::mat c = contingency(a, b);
  const double n = static_cast<double>(a.n_elem);
  const arma::vec pa = arma::sum(c, 1) / n;
  const arma::rowvec pb = arma::sum(c, 0) / n;
  // One cluster on both sides: identical labelings, sklearn returns 1.
  if (pa.n_elem == 1 && pb.n_elem == 1)
    return 1.0;
  double mi = 0;
  for (arma::uword i = 0; i < c.n_rows; ++i)
    for (arma::uword j = 0; j < c.n_cols; ++j)
      if (c(i, j) > 0) {
        const double pij = c(i, j) / n;
        mi += pij * std::log(pij / (pa[i] * pb[j]));
      }
  double ha = 0, hb = 0;
  pa.for_each([&](double p) { if (p > 0) ha -= p * std::log(p); });
  pb.for_each([&](double p) { if (p > 0) hb -= p * std::log(p); });
  const double norm = (ha + hb) / 2;
  if (norm <= 0) return 1.0;
  return std::max(0.0, mi / norm);
}

bool higher_is_better(const std::string& metric) {
  return find(metric).higher_is_better;
}

const std::vector<Metric>& registry() {
  using T = Task;
  // Captureless lambdas adapt the functions above to their task's signature.
  static const std::vector<Metric> table = {
      {"mse", T::regression, false, false, mse},
      {"rmse", T::regression, false, false, rmse},
      {"mae", T::regression, false, false, mae},
      {"r2", T::regression, true, false, r2},
      {"accuracy", T::classification, true, false, nullptr,
       [](const Labels& y, const Labels& p, const arma::mat*, std::size_t) { return accuracy(y, p); }},
      {"balanced_accuracy", T::classification, true, false, nullptr,
       [](const Labels& y, const Labels& p, const arma::mat*, std::size_t k) { return balanced_accuracy(y, p, k); }},
      {"f1_macro", T::classification, true, false, nullptr,
       [](const Labels& y, const Labels& p, const arma::mat*, std::size_t k) { return f1_macro(y, p, k); }},
      {"log_loss", T::classification, false, true, nullptr,
       [](const Labels& y, const Labels&, const arma::mat* proba, std::size_t) { return log_loss(y, *proba); }},
      {"roc_auc", T::classification, true, false, nullptr,
       [](const Labels& y, const Labels&, const arma::mat* s, std::size_t k) { return roc_auc_ovr(y, *s, k); }, nullptr,
       true},
      {"average_precision", T::classification, true, false, nullptr,
       [](const Labels& y, const Labels&, const arma::mat* s, std::size_t k) {
         return average_precision_ovr(y, *s, k);
       },
       nullptr, true},
      {"brier", T::classification, false, true, nullptr,
       [](const Labels& y, const Labels&, const arma::mat* proba, std::size_t) { return brier(y, *proba); }},
      {"reconstruction_mse", T::decomposition, false, false},
      {"log_likelihood", T::decomposition, true, false},
      {"projection_error", T::decomposition, false, false},
      {"inertia", T::clustering, false, false},
      {"silhouette", T::clustering, true, false},
      {"ari", T::clustering, true, false, nullptr, nullptr, adjusted_rand_index},
      {"nmi", T::clustering, true, false, nullptr, nullptr, normalized_mutual_info},
  };
  return table;
}

const Metric& find(const std::string& name) {
  for (const Metric& m : registry())
    if (m.name == name) return m;
  throw UsageError("unknown metric \"" + name + "\"");
}

Names names(Task task, bool with_probabilities, bool with_scores) {
  Names out;
  for (const Metric& m : registry())
    if (m.task == task && (with_probabilities || !m.needs_probabilities) && (with_scores || !m.needs_scores))
      out.emplace_back(m.name);
  return out;
}

namespace {

[[noreturn]] void not_a(const std::string& name, const char* what) {
  throw Error("internal: metric \"" + name + "\" is not " + what, kExitSoftware);
}

}  // namespace

double regression_score(const std::string& name, const arma::mat& Y, const arma::mat& P) {
  const Metric& m = find(name);
  if (!m.regression) not_a(name, "a regression metric");
  return m.regression(Y, P);
}

double classification_score(const std::string& name, const Labels& y, const Labels& prediction,
                            const arma::mat* probabilities) {
  const Metric& m = find(name);
  if (!m.classification) not_a(name, "a classification metric");
  if ((m.needs_probabilities || m.needs_scores) && !probabilities)
    not_a(name, "computable without `probabilities`");
  // Classes above the largest index present have no samples, so they change nothing
  // -- except to the one-vs-rest metrics, which need every class: there the score
  // columns say how many there are.
  const arma::uword top = std::max(y.is_empty() ? arma::uword(0) : y.max(),
                                   prediction.is_empty() ? arma::uword(0) : prediction.max());
  std::size_t n_classes = static_cast<std::size_t>(top) + 1;
  if (m.needs_scores) n_classes = probabilities->n_cols == 1 ? 2 : probabilities->n_cols;
  return m.classification(y, prediction, probabilities, n_classes);
}

double agreement_score(const std::string& name, const Labels& a, const Labels& b) {
  const Metric& m = find(name);
  if (!m.agreement) not_a(name, "an agreement of two labelings");
  return m.agreement(a, b);
}

}  // namespace mlt::metrics
