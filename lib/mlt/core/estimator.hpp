// The estimator contract, as C++20 concepts: what cross-validation, model files and
// the command line's shared verbs rely on (scikit-learn's estimator API in spirit).
// Every algorithm states which it satisfies with a static_assert beside its class,
// so a missing or mistyped member is a compile error there, not in a template far
// away. tests/lib/estimator_contract_test.cpp checks the behaviour behind it.
#pragma once

#include <concepts>
#include <cstddef>
#include <string_view>

#include "mlt/core/types.hpp"
#include "mlt/io/model_file.hpp"

namespace mlt {

// Parameters in, a fitted model out, saved and loaded by kind.
template <typename E>
concept Estimator = requires(const E& e, io::ModelWriter& out, const io::ModelReader& in,
                             const typename E::Params& params) {
  { E::kind } -> std::convertible_to<std::string_view>;
  E(params);
  { e.params() } -> std::same_as<const typename E::Params&>;
  { e.is_fitted() } -> std::same_as<bool>;
  { e.n_features() } -> std::convertible_to<std::size_t>;
  e.save(out);
  { E::load(in) } -> std::same_as<E>;
};

// X (n x p) and targets Y (n x t) -> predictions (m x t).
template <typename E>
concept Regressor = Estimator<E> && requires(E& e, const E& c, const arma::mat& X) {
  e.fit(X, X);
  { c.predict(X) } -> std::same_as<arma::mat>;
};

// X and class indices 0..K-1 -> class indices.
template <typename E>
concept Classifier = Estimator<E> && requires(E& e, const E& c, const arma::mat& X, const Labels& y) {
  e.fit(X, y, std::size_t{2});
  { c.predict(X) } -> std::same_as<Labels>;
};

// A classifier with a probability model: class probabilities (m x K). The margin
// classifiers (perceptron) have none, and offer no --proba and no log loss.
template <typename E>
concept ProbabilisticClassifier = Classifier<E> && requires(const E& c, const arma::mat& X) {
  { c.predict_proba(X) } -> std::same_as<arma::mat>;
};

// What one prediction pass over m rows gives for a model that is a classifier or a
// regressor by a parameter (TaskByParameter).
struct TaskPrediction {
  Labels classes;    // classification: the class of each row (m); regression: empty
  arma::mat values;  // classification: m x K class probabilities; regression: m x t targets
  // Rows the model had no evidence for, predicted by its stated default rule (the
  // smoother's empty windows); 0 for a model without one.
  std::size_t n_defaulted = 0;
};

// A classifier or a regressor by a parameter (knn's `regression`, the smoother's
// `classification`): one model kind with two tasks, the command line's shared
// task-polymorphic verbs. predict_task computes the classes and their probabilities
// in one pass, as the costly part (the neighbour search, the windows) is shared.
template <typename E>
concept TaskByParameter = ProbabilisticClassifier<E> && requires(const E& c, const arma::mat& X) {
  { c.is_classification() } -> std::same_as<bool>;
  { c.predict_task(X) } -> std::same_as<TaskPrediction>;
};

// Unsupervised, X -> a new representation (m x k).
template <typename E>
concept Transformer = Estimator<E> && requires(E& e, const E& c, const arma::mat& X) {
  e.fit(X);
  { c.transform(X) } -> std::same_as<arma::mat>;
};

// Unsupervised, X -> a cluster index per row.
template <typename E>
concept Clusterer = Estimator<E> && requires(E& e, const E& c, const arma::mat& X) {
  e.fit(X);
  { c.predict(X) } -> std::same_as<Labels>;
};

}  // namespace mlt
