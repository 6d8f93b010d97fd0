// The predict and score verbs of a classification command, the same for every
// classifier E (static load(ModelReader), predict(X) -> class indices, kind, and
// predict_proba(X) -> n x K when it has one): predict writes the class label in a
// column named after the target, with --proba one probability column per class
// named after it; score prints the registry's classification metrics (log_loss when
// E has probabilities: for OptionalProbabilities, when the model was fitted with them)
// and the confusion matrix. A command that asks for it
// (ClassifierVerbs::decision) and whose E has decision_function(X) -> m x n_outputs
// also gets predict --decision: one column of decision values for two classes
// (decision_CLASS, the second class's score), one per class beyond.
#pragma once

#include <concepts>
#include <memory>
#include <string>

#include "apply_verb.hpp"
#include "data_options.hpp"
#include "model_io.hpp"
#include "output.hpp"
#include "cv_command.hpp"

namespace mlt::app {

template <typename E>
concept HasDecisionFunction = requires(const E& c, const arma::mat& X) {
  { c.decision_function(X) } -> std::same_as<arma::mat>;
};

// A classifier whose decision columns are not one per class (the SVM's one-vs-one
// pairs) names them itself.
template <typename E>
concept NamesDecisionColumns = requires(const E& c, const std::vector<std::string>& classes) {
  { c.decision_names(classes) } -> std::same_as<std::vector<std::string>>;
};

// What a command's classifier verbs offer beyond predict and score's defaults.
struct ClassifierVerbs {
  bool decision = false;  // predict --decision (E must have decision_function)
};

template <typename E>
void add_classifier_verbs(CLI::App* command, ClassifierVerbs verbs = {}) {
  struct Options {
    std::string model;
    DataOptions data;
    std::string output = "-";
    bool proba = false;
    bool decision = false;
    bool json = false;
  };
  const std::string model_help = std::string("Model file from mlt ") + E::kind + " fit";
  const auto load = [](const std::string& path) { return read_estimator<E>(path); };

  auto pr_opt = std::make_shared<Options>();
  auto* pr = command->add_subcommand("predict", "Predict the class of each row of DATA");
  pr->add_option("model", pr_opt->model, model_help)->required();
  add_data_options(pr, pr_opt->data);
  add_keep_option(pr, pr_opt->data);
  pr->add_option("-o,--output", pr_opt->output, "CSV file to write (default: standard output)");
  if constexpr (ProbabilisticClassifier<E>)
    pr->add_flag("--proba", pr_opt->proba, "Add one probability column per class, named after the class");
  if constexpr (HasDecisionFunction<E>)
    if (verbs.decision)
      pr->add_flag("--decision", pr_opt->decision,
                   "Add the decision values: decision_CLASS for the second of two classes, else one per class");
  pr->callback([pr_opt, load] {
    const Options& opt = *pr_opt;
    refuse_overwrite(opt.output, {opt.data.path, opt.model});
    const auto [loaded, model] = load(opt.model);
    const DataSchema& schema = loaded.schema;
    predict_chunks(schema, opt.data, opt.output, [&](const io::Table& data, CsvStream& out) {
      const std::vector<std::string> labels = LabelEncoder(schema.classes).decode(model.predict(data.X));
      arma::mat P;
      Names columns;
      if constexpr (ProbabilisticClassifier<E>)
        if (opt.proba) {
          if (!has_probabilities(model))
            throw UsageError(std::string("--proba needs a model fitted with --probability: refit it with mlt ") +
                             E::kind + " fit ... --probability");
          P = model.predict_proba(data.X);
          columns = schema.classes;
        }
      if constexpr (HasDecisionFunction<E>)
        if (opt.decision) {
          const arma::mat S = model.decision_function(data.X);
          if constexpr (NamesDecisionColumns<E>) {
            for (std::string& c : model.decision_names(schema.classes)) columns.push_back(std::move(c));
          } else {
            const std::size_t first = S.n_cols == 1 && schema.classes.size() == 2 ? 1 : 0;
            for (arma::uword k = 0; k < S.n_cols; ++k) columns.push_back("decision_" + schema.classes.at(first + k));
          }
          P = P.is_empty() ? S : arma::mat(arma::join_rows(P, S));
        }
      const KeptColumns kept = kept_columns(data, opt.data);
      out.write(kept.before({{schema.target}, {&labels}, columns, columns.empty() ? nullptr : &P}));
    });
  });
  distribute(pr);

  auto sc_opt = std::make_shared<Options>();
  auto* sc = command->add_subcommand(
      "score", std::string("Accuracy, balanced accuracy, macro F1") +
                   (ProbabilisticClassifier<E> ? ", log loss, Brier score" : "") +
                   ", ROC AUC, average precision, per-class precision, recall and F1, and confusion matrix on DATA");
  sc->add_option("model", sc_opt->model, model_help)->required();
  add_data_options(sc, sc_opt->data);
  sc->add_flag("--json", sc_opt->json, "One JSON object instead of lines");
  sc->callback([sc_opt, load] {
    const Options& opt = *sc_opt;
    const auto [loaded, model] = load(opt.model);
    const DataSchema& schema = loaded.schema;
    const io::Table data = read_data_for(schema, opt.data, {schema.target});
    const Labels y = class_truth(data, schema);
    const Labels prediction = model.predict(data.X);
    arma::mat P, S;
    if constexpr (ProbabilisticClassifier<E>)
      if (has_probabilities(model)) P = model.predict_proba(data.X);
    // The ranking metrics read the probabilities, else decision values one per class
    // (cv::class_scores; a one-vs-one SVM's pairs rank no class: then no roc_auc and
    // no average_precision).
    bool ranks = !P.is_empty();
    if constexpr (HasDecisionFunction<E>)
      if (!ranks) try {
          S = cv::class_scores(model, data.X);
          ranks = true;
        } catch (const UsageError&) {
        }
    print_classification_scores(y, prediction, P.is_empty() ? nullptr : &P,
                                ranks ? (P.is_empty() ? &S : &P) : nullptr, schema.classes, opt.json);
  });
}

}  // namespace mlt::app
