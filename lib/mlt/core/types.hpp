// Data orientation, decided once for all of mlt:
//
//   a data matrix X is n_samples x n_features, one sample per ROW,
//
// as in the CSV file, scikit-learn and the lecture notes, so test literals read one
// sample per line and reference values from numpy compare directly. Armadillo stores
// matrices column-major; algorithms whose hot loop runs over samples (k-means, kNN)
// transpose once internally. Targets: a regression target is a column vector (n) or
// a matrix (n x n_targets); class labels are indices 0..K-1 (arma::uvec), the class
// names live with the model, not in the estimator.
#pragma once

#include <armadillo>
#include <string>
#include <vector>

namespace mlt {

using Labels = arma::uvec;  // class index per sample, 0..n_classes-1
using Names = std::vector<std::string>;

// "a, b, c": names as messages and reports list them.
inline std::string joined(const Names& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s;
}

}  // namespace mlt
