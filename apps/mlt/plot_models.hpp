// `mlt plot` takes a model of any kind a plot can use: a classifier for the confusion
// matrix, decision regions and ROC/PR curves, a regressor for a 1-D fit. These views
// load it through the library (each estimator's own load and predict) and hide which
// algorithm it is; a model of another kind is refused (ModelError, status 65).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "model_io.hpp"
#include "mlt/core/types.hpp"

namespace mlt::app {

struct ClassifierView {
  std::string kind;
  std::size_t n_features = 0;
  std::size_t n_classes = 0;
  std::function<Labels(const arma::mat&)> predict;  // X: m x p -> class indices
  // X: m x p -> m scores for class `k` against the others (higher: more likely k): the
  // decision value of a two-class model that has one, else the class's probability.
  // Null when the model has neither for k (a multiclass margin model without one
  // value per class).
  std::function<arma::vec(const arma::mat&, std::size_t k)> scores;
  std::string score_name;  // "decision value" or "probability"
};
// `what` names the plot and its verb for the refusal: "decision regions need" ->
// "decision regions need a classifier (...); this model is pca" (ModelError).
ClassifierView classifier_view(const LoadedModel& loaded, const std::string& what);

struct RegressorView {
  std::string kind;
  std::size_t n_features = 0;
  std::function<arma::mat(const arma::mat&)> predict;  // X: m x p -> m x targets
};
RegressorView regressor_view(const LoadedModel& loaded, const std::string& what);

}  // namespace mlt::app
