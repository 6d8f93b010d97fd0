// mlt score DATA --truth COLS --pred COLS [--proba COLS | --decision COL] [--classification]
// The score report of any predictions CSV, whoever wrote it: the report of a
// classifier's `score` verb, or a regressor's (the same functions, output.hpp).
#include <algorithm>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "cli_support.hpp"
#include "data_options.hpp"
#include "score_input.hpp"
#include "output.hpp"
#include "mlt/core/error.hpp"
#include "mlt/core/validate.hpp"
#include "mlt/labels.hpp"

namespace mlt::app {
namespace {

struct ScoreOptions {
  DataOptions data;
  Names truth, pred, proba;
  std::string decision;
  bool classification = false;
  bool json = false;
};

void run_score(const ScoreOptions& opt) {
  if (opt.truth.size() != opt.pred.size())
    throw UsageError("--truth and --pred: " + std::to_string(opt.truth.size()) + " and " +
                     std::to_string(opt.pred.size()) + " columns; give one prediction per true column");
  Names refs = opt.truth;
  refs.insert(refs.end(), opt.pred.begin(), opt.pred.end());
  refs.insert(refs.end(), opt.proba.begin(), opt.proba.end());
  if (!opt.decision.empty()) refs.push_back(opt.decision);
  const Cells c = read_cells(opt.data, refs);
  const std::string source = opt.data.path == "-" ? "<stdin>" : opt.data.path;
  const std::size_t t = opt.truth.size(), n = c.lines.size();
  double x;
  bool classification = opt.classification || !opt.proba.empty() || !opt.decision.empty();
  // Text makes the truth classes; a number too large or not finite ("inf", "1e999") is
  // still a number, refused below with its line rather than read as a class label.
  for (const std::string& cell : c.columns[0]) {
    const io::CellStatus status = io::parse_cell(cell, x);
    classification = classification || status == io::CellStatus::not_a_number;
  }
  if (!classification) {
    arma::mat Y(n, t), P(n, t);
    for (std::size_t j = 0; j < t; ++j) {
      Y.col(j) = numbers(c, j, source);
      P.col(j) = numbers(c, t + j, source);
    }
    try {
      check_values(Y, "true values");
      check_values(P, "predictions");
    } catch (const DataError& e) {
      throw DataError(source + ": " + e.what());
    }
    print_regression_scores(Y, P, Names(c.names.begin(), c.names.begin() + t), opt.json, {{"n_samples", n}});
    return;
  }
  if (t != 1) throw UsageError("--truth: a classification is scored on one column, got " + std::to_string(t));
  std::vector<std::string> both = c.columns[0];
  both.insert(both.end(), c.columns[1].begin(), c.columns[1].end());
  LabelEncoder encoder;
  encoder.fit_encode(both);
  const Names& classes = encoder.classes();
  const Labels y = encoder.encode(c.columns[0]), p = encoder.encode(c.columns[1]);
  arma::mat P, S;
  if (!opt.proba.empty()) {
    P.zeros(n, classes.size());
    std::vector<bool> seen(classes.size());
    for (std::size_t j = 0; j < opt.proba.size(); ++j) {
      const std::string& name = c.names[2 + j];
      const std::optional<std::size_t> k = class_of(name, classes);
      if (!k || seen[*k]) throw UsageError("--proba: column \"" + name + "\" names no class, or one named already");
      seen[*k] = true;
      P.col(*k) = numbers(c, 2 + j, source);
    }
    if (P.min() < 0 || P.max() > 1) throw DataError(source + ": --proba: a probability outside [0, 1]");
    // Of two classes, one column is enough (as scikit-learn's predict_proba[:, 1] and
    // most tools write it): the other class has the rest.
    if (classes.size() == 2 && opt.proba.size() == 1) {
      const std::size_t given = seen[0] ? 0 : 1;
      P.col(1 - given) = 1.0 - P.col(given);
      seen[1 - given] = true;
    }
    for (std::size_t k = 0; k < classes.size(); ++k)
      if (!seen[k]) throw UsageError("--proba: no column for class \"" + classes[k] + "\" (name it " + classes[k] + ")");
  } else if (!opt.decision.empty()) {
    if (classes.size() != 2)
      throw UsageError("--decision: one column scores two classes, these are " + std::to_string(classes.size()) +
                       "; give --proba");
    S = numbers(c, 2, source);
    // The second class's score, as mlt predict --decision writes it; a column named
    // after the first class is its score, so turned around.
    if (class_of(c.names[2], classes) == std::optional<std::size_t>(0)) S = -S;
  }
  const arma::mat* proba = P.is_empty() ? nullptr : &P;
  print_classification_scores(y, p, proba, proba ? proba : S.is_empty() ? nullptr : &S, classes, opt.json,
                              {{"n_samples", n}});
}

}  // namespace

void setup_score(CLI::App& app) {
  auto opt = std::make_shared<ScoreOptions>();
  auto* sc = app.add_subcommand("score", "Score the predictions in a CSV file against the truth, whoever made them");
  add_data_options(sc, opt->data);
  sc->remove_option(sc->get_option("--ignore"));  // only the named columns are read
  add_names_option(sc, "--truth", opt->truth, "True values: one class column, or numeric target columns")->required();
  add_names_option(sc, "--pred", opt->pred, "Predicted classes or values, one column per --truth column")->required();
  auto* proba = add_names_option(sc, "--proba", opt->proba,
                                 "Probability columns, one per class, each named after its class (setosa, p_setosa); of two classes, "
                                 "one column is enough");
  sc->add_option("--decision", opt->decision, "Decision values of the second of two classes (higher: more likely)")
      ->excludes(proba);
  sc->add_flag("--classification", opt->classification,
               "Score as classes even when every true value is a number (implied by text, --proba, --decision)");
  sc->add_flag("--json", opt->json, "One JSON object instead of lines");
  sc->footer(
      "Examples:\n"
      "  mlt logreg predict iris.logreg test.csv --keep species --proba -o pred.csv\n"
      "  mlt score pred.csv --truth input_species --pred species --proba setosa,versicolor,virginica\n"
      "  mlt score sklearn_out.csv --truth y --pred y_hat --classification\n"
      "  mlt score reg.csv --truth a,b --pred a_hat,b_hat --json");
  sc->callback([opt] { run_score(*opt); });
}

}  // namespace mlt::app
