// Checks shared by every estimator's fit and predict, so the messages are the same
// everywhere.
#pragma once

#include <cstddef>
#include <string>

#include "mlt/core/types.hpp"

namespace mlt {

// Throws DataError unless X has at least `min_rows` rows and one column, and every
// value is finite and small enough that squares and products cannot overflow
// (|x| <= 1e150): "values up to 1e+200 would overflow; rescale the data".
void check_fit_input(const arma::mat& X, std::size_t min_rows = 1);

// Throws DataError unless every regression target is finite and within the same bound
// (|y| <= 1e150), so that residuals, their squares and every score stay finite:
// "target values up to 1e+160 would overflow when squared; rescale them".
void check_fit_target(const arma::mat& Y);
// The same two checks for any values that are squared or multiplied next (true values
// and predictions being scored), `what` naming them in the message ("predictions").
void check_values(const arma::mat& M, const std::string& what);

// Throws DataError "model trained on 4 features, input has 3".
void check_n_features(std::size_t expected, const arma::mat& X);

// Throws DataError unless y has one entry per row of X.
void check_same_rows(const arma::mat& X, std::size_t n_targets, const std::string& what);

// A classifier's training labels: class indices below n_classes (0: one more than the
// largest), at least two classes, and a sample in every class. Returns the number of
// samples per class (its size is the number of classes). Throws DataError.
arma::uvec check_class_labels(const Labels& y, std::size_t n_classes);

}  // namespace mlt
