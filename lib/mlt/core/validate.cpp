#include "mlt/core/validate.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/parallel.hpp"

namespace mlt {

void check_fit_input(const arma::mat& X, std::size_t min_rows) {
  if (X.n_cols == 0) throw DataError("no feature columns");
  if (X.n_rows < min_rows)
    throw DataError(std::to_string(X.n_rows) + (X.n_rows == 1 ? " sample" : " samples") +
                    ", need at least " + std::to_string(min_rows));
  // One pass over the values, at memory speed, for the common case where all is
  // well: !(|x| <= 1e150) also holds for NaN. Only then the two questions apart, for
  // the message. (is_finite() and abs(X).max() were two passes and a tenth of a
  // 1e6 x 50 PCA fit.)
  // Column by column, on the threads when there are many values.
  constexpr double kLargest = 1e150;
  std::vector<std::size_t> per_column(X.n_cols);
  parallel_for(
      X.n_cols,
      [&](std::size_t j) {
        const double* v = X.colptr(j);
        for (arma::uword i = 0; i < X.n_rows; ++i) per_column[j] += !(std::fabs(v[i]) <= kLargest);
      },
      workers_for(X.n_elem));
  std::size_t too_large = 0;
  for (std::size_t n : per_column) too_large += n;
  if (too_large == 0) return;
  if (!X.is_finite()) throw DataError("non-finite value in the data");
  const double largest = arma::abs(X).max();
  if (largest > kLargest) {
    std::ostringstream s;
    s << "values up to " << largest << " would overflow when squared; rescale the data";
    throw DataError(s.str());
  }
}

void check_values(const arma::mat& M, const std::string& what) {
  if (!M.is_finite()) throw DataError("non-finite value in the " + what);
  const double largest = M.is_empty() ? 0.0 : arma::abs(M).max();
  if (largest > 1e150) {
    std::ostringstream s;
    s << what << " up to " << largest << " would overflow when squared; rescale them";
    throw DataError(s.str());
  }
}

void check_fit_target(const arma::mat& Y) {
  if (!Y.is_finite()) throw DataError("non-finite target value");
  check_values(Y, "target values");
}

void check_n_features(std::size_t expected, const arma::mat& X) {
  if (X.n_cols != expected)
    throw DataError("model trained on " + std::to_string(expected) + " features, input has " +
                    std::to_string(X.n_cols));
}

void check_same_rows(const arma::mat& X, std::size_t n_targets, const std::string& what) {
  if (X.n_rows != n_targets)
    throw DataError(std::to_string(X.n_rows) + " samples but " + std::to_string(n_targets) + " " + what);
}

arma::uvec check_class_labels(const Labels& y, std::size_t n_classes) {
  const std::size_t K = n_classes ? n_classes : static_cast<std::size_t>(y.max()) + 1;
  if (y.max() >= K) throw DataError("class index " + std::to_string(y.max()) + " >= n_classes");
  arma::uvec counts(K, arma::fill::zeros);
  for (arma::uword i = 0; i < y.n_elem; ++i) ++counts[y[i]];
  if (arma::accu(counts > 0) < 2) throw DataError("only one class in the training data; a classifier needs two");
  for (std::size_t k = 0; k < K; ++k)
    if (counts[k] == 0) throw DataError("class " + std::to_string(k) + " has no training samples");
  return counts;
}

}  // namespace mlt
