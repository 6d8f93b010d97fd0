#include "plot_models.hpp"

#include <memory>

#include "classifier_verbs.hpp"
#include "mlt/knn.hpp"
#include "mlt/krr.hpp"
#include "mlt/logreg.hpp"
#include "mlt/perceptron.hpp"
#include "mlt/ridge.hpp"
#include "mlt/smoother.hpp"
#include "mlt/svm.hpp"

namespace mlt::app {
namespace {

// Scores of class k from a model's own outputs. Two classes: the decision value (the
// second class's score; negated for the first), which ranks the rows as the model's
// predict does; otherwise the class's probability, or its decision column when there
// is one per class (one-vs-rest, multinomial).
template <class E>
ClassifierView view_of(std::shared_ptr<const E> m, bool one_decision_per_class) {
  ClassifierView v;
  v.kind = E::kind;
  v.n_features = m->n_features();
  v.n_classes = m->n_classes();
  v.predict = [m](const arma::mat& X) { return m->predict(X); };
  const std::size_t K = v.n_classes;
  if constexpr (HasDecisionFunction<E>) {
    if (K == 2 || one_decision_per_class) {
      v.score_name = "decision value";
      v.scores = [m, K](const arma::mat& X, std::size_t k) -> arma::vec {
        const arma::mat D = m->decision_function(X);
        if (K == 2 && D.n_cols == 1) return k == 1 ? arma::vec(D.col(0)) : arma::vec(-D.col(0));
        return D.col(k);
      };
      return v;
    }
  }
  if constexpr (ProbabilisticClassifier<E>) {
    if (has_probabilities(*m)) {
      v.score_name = "probability";
      v.scores = [m](const arma::mat& X, std::size_t k) -> arma::vec { return m->predict_proba(X).col(k); };
    }
  }
  return v;
}

// "decision regions need a classifier (...); this model is pca"
[[noreturn]] void refuse(const LoadedModel& loaded, const std::string& what, const std::string& needs) {
  loaded.reader.fail(what + " " + needs);
}

}  // namespace

ClassifierView classifier_view(const LoadedModel& loaded, const std::string& what) {
  const io::ModelReader& r = loaded.reader;
  ClassifierView v;
  if (r.kind() == LogReg::kind) {
    auto m = std::make_shared<const LogReg>(LogReg::load(r));
    v = view_of<LogReg>(m, true);
  } else if (r.kind() == Perceptron::kind) {
    v = view_of<Perceptron>(std::make_shared<const Perceptron>(Perceptron::load(r)), true);
  } else if (r.kind() == Svm::kind) {
    auto m = std::make_shared<const Svm>(Svm::load(r));
    // ovo's decision columns are pairs of classes, not one per class.
    v = view_of<Svm>(m, m->multiclass() == SvmMultiClass::ovr);
  } else if (r.kind() == Knn::kind) {
    auto m = std::make_shared<const Knn>(Knn::load(r));
    if (m->is_regression()) refuse(loaded, what, "a classifier; this knn model is a regression");
    v = view_of<Knn>(m, false);
  } else if (r.kind() == Smoother::kind) {
    auto m = std::make_shared<const Smoother>(Smoother::load(r));
    if (!m->is_classification()) refuse(loaded, what, "a classifier; this smoother model is a regression");
    v = view_of<Smoother>(m, false);
  } else {
    refuse(loaded, what, "a classifier (logreg, knn, perceptron, svm, smoother); this model is " + r.kind());
  }
  if (loaded.schema.classes.size() != v.n_classes) r.fail("class names do not match n_classes");
  return v;
}

RegressorView regressor_view(const LoadedModel& loaded, const std::string& what) {
  const io::ModelReader& r = loaded.reader;
  RegressorView v;
  v.kind = r.kind();
  if (r.kind() == Ridge::kind) {
    auto m = std::make_shared<const Ridge>(Ridge::load(r));
    v.n_features = m->n_features();
    v.predict = [m](const arma::mat& X) { return m->predict(X); };
  } else if (r.kind() == Krr::kind) {
    auto m = std::make_shared<const Krr>(Krr::load(r));
    v.n_features = m->n_features();
    v.predict = [m](const arma::mat& X) { return m->predict(X); };
  } else if (r.kind() == Knn::kind) {
    auto m = std::make_shared<const Knn>(Knn::load(r));
    if (!m->is_regression()) refuse(loaded, what, "a regression; this knn model is a classifier");
    v.n_features = m->n_features();
    v.predict = [m](const arma::mat& X) { return m->predict_values(X); };
  } else if (r.kind() == Smoother::kind) {
    auto m = std::make_shared<const Smoother>(Smoother::load(r));
    if (m->is_classification()) refuse(loaded, what, "a regression; this smoother model is a classifier");
    v.n_features = m->n_features();
    v.predict = [m](const arma::mat& X) { return m->predict_values(X); };
  } else {
    refuse(loaded, what, "a regression model (ridge, krr, knn, smoother); this model is " + r.kind());
  }
  return v;
}

}  // namespace mlt::app
