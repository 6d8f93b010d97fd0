// Class labels as text <-> class indices. Classes are sorted as scikit-learn sorts
// them: numerically when every label is a number ("2" < "10", "-1" < "+1": the positive
// class of a binary problem is the larger number, as in LIBSVM and LIBLINEAR), else by
// bytes. Labels are compared verbatim: "a" and "a " are two classes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mlt/core/types.hpp"

namespace mlt {

class LabelEncoder {
 public:
  LabelEncoder() = default;
  explicit LabelEncoder(Names classes) : classes_(std::move(classes)) {}

  // Learns the classes of `labels`; returns their indices.
  Labels fit_encode(const std::vector<std::string>& labels);
  // Indices of `labels` under the learned classes; an unseen label throws DataError
  // naming it and where it is (`source`:`lines[i]`, when lines are given).
  Labels encode(const std::vector<std::string>& labels, const std::string& source = "",
                const std::vector<std::uint64_t>* lines = nullptr) const;
  std::vector<std::string> decode(const Labels& indices) const;

  const Names& classes() const { return classes_; }
  std::size_t n_classes() const { return classes_.size(); }

 private:
  Names classes_;
};

// Numeric targets from text cells; a cell that is not a number throws DataError
// naming the place (`source`:`lines[i]`) and the column.
arma::vec parse_numeric_target(const std::vector<std::string>& cells, const std::string& column,
                               const std::string& source, const std::vector<std::uint64_t>& lines);

// Heuristic guard for classifiers: true when labels look like a continuous quantity
// (all numeric, not all integers). Used to refuse regression targets given to a
// classifier ("labels look continuous").
bool looks_continuous(const std::vector<std::string>& labels);

}  // namespace mlt
