// mlt plot KIND ...: pictures of models, data and cv reports. mlt computes every number
// drawn (through the library: each model's own transform or predict), and gnuplot
// draws them (plot_gnuplot.hpp says why and how the output is written).
#include <memory>
#include <string>
#include <tuple>

#include "commands.hpp"
#include "data_options.hpp"
#include "plot_figures.hpp"
#include "plot_gnuplot.hpp"

namespace mlt::app {
namespace {


// Adds a plot subcommand that runs `run`; the caller adds its arguments and flags.
CLI::App* add_plot(CLI::App* plot, const std::string& name, const std::string& help,
                   const std::shared_ptr<PlotOptions>& opt, void (*run)(const PlotOptions&)) {
  auto* cmd = plot->add_subcommand(name, help);
  cmd->callback([opt, run] { run(*opt); });
  return cmd;
}

}  // namespace

void setup_plot(CLI::App& app) {
  auto* plot = app.add_subcommand("plot", "Pictures of models, data and cv reports (PNG, SVG, PDF or the terminal)");
  plot->require_subcommand(1);
  plot->footer(
      "Each plot writes -o FILE in the format of its name (.png, .svg, .pdf, .txt), or a text chart\n"
      "on the terminal; --script prints the gnuplot script instead. gnuplot must be installed.\n"
      "Examples:\n"
      "  mlt plot scree iris.pca -o scree.png\n"
      "  mlt plot pca iris.pca data/iris.csv --labels species -o scores.svg\n"
      "  mlt logreg cv data/iris.csv --lambda 1e-4:1e2:13 --per-fold --json > cv.json; mlt plot cv cv.json -o cv.png\n"
      "  mlt plot confusion iris.logreg data/iris.csv -o confusion.pdf\n"
      "  mlt plot kmeans iris.km data/iris.csv -o clusters.png\n"
      "  mlt plot fit bmi.krr data/diabetes.csv -o fit.png          # a krr fit on the bmi column alone\n"
      "  mlt plot regions petal.svm data/iris.csv -o regions.png    # an svm fit on two columns\n"
      "  mlt plot roc vv.logreg vv.csv -o roc.png                   # two classes\n"
      "  mlt plot pr iris.logreg data/iris.csv --positive virginica -o pr.png");

  const auto with_model_and_data = [](CLI::App* cmd, PlotOptions& o, const std::string& model_help) {
    cmd->add_option("model", o.model, model_help)->required();
    add_data_options(cmd, o.data);
    add_plot_output_options(cmd, o.out);
  };

  auto scree = std::make_shared<PlotOptions>();
  auto* c = add_plot(plot, "scree", "Explained variance ratio per component, and its running sum, of a PCA model",
                     scree, run_scree);
  c->add_option("model", scree->model, "Model file from mlt pca fit")->required();
  add_plot_output_options(c, scree->out);

  auto pca = std::make_shared<PlotOptions>();
  c = add_plot(plot, "pca", "DATA's scores on the first two components of a PCA model, coloured by --labels", pca,
               run_pca_scatter);
  with_model_and_data(c, *pca, "Model file from mlt pca fit (2 components or more)");
  c->add_option("--labels", pca->labels, "Column whose values colour the points (not a feature)");

  auto cv = std::make_shared<PlotOptions>();
  c = add_plot(plot, "cv",
               "A cv report (mlt <algo> cv --json): the score over one parameter with fold error bars, a heat map "
               "over two",
               cv, run_cv);
  c->add_option("report", cv->model, "JSON report of mlt <algo> cv --json (--per-fold adds each fold's score)")
      ->required();
  c->add_option("--x", cv->x, "The parameter along x (default: the first that varies)");
  c->add_option("--y", cv->y, "The second parameter: the heat map's y, or one curve per value with --curves");
  c->add_flag("--curves", cv->curves, "Over two parameters, one curve per value of the second instead of a heat map");
  add_plot_output_options(c, cv->out);

  auto confusion = std::make_shared<PlotOptions>();
  c = add_plot(plot, "confusion", "The confusion matrix of a classifier on labelled DATA", confusion, run_confusion);
  with_model_and_data(c, *confusion, "Model file of a classifier (logreg, knn, perceptron, svm, smoother)");
  c->add_flag("--normalize", confusion->normalize, "Each row as shares of its true class (the recall on the diagonal)");

  auto kmeans = std::make_shared<PlotOptions>();
  c = add_plot(plot, "kmeans", "k-means clusters of DATA and their centroids in the plane of its first two "
                               "principal components", kmeans, run_kmeans);
  with_model_and_data(c, *kmeans, "Model file from mlt kmeans fit");

  auto fit = std::make_shared<PlotOptions>();
  c = add_plot(plot, "fit", "A regression on one feature (ridge, krr, knn, smoother): its curve over DATA", fit, run_fit);
  with_model_and_data(c, *fit, "Model file of a regression on one feature");

  auto regions = std::make_shared<PlotOptions>();
  c = add_plot(plot, "regions",
               "The decision regions of a classifier on two features, with the labelled rows of DATA", regions,
               run_regions);
  with_model_and_data(c, *regions, "Model file of a classifier on two features");
  CLI::App* const regions_cmd = c;
  for (const auto& [name, help, run] :
       {std::tuple{"roc", "The ROC curve of a classifier on labelled DATA, with its AUC", &run_roc},
        std::tuple{"pr", "The precision-recall curve of a classifier on labelled DATA, with its average precision",
                   &run_pr}}) {
    auto o = std::make_shared<PlotOptions>();
    c = add_plot(plot, name, help, o, run);
    with_model_and_data(c, *o, "Model file of a classifier (two classes, or more with --positive)");
    c->add_option("--positive", o->positive,
                  "The positive class (default: the second of two); with more classes, it against the rest");
  }
  c = regions_cmd;
  c->add_option("--grid", regions->grid, "Points per axis where the model is evaluated (default 200)")
      ->check(CLI::Range(2u, 2000u));
}

}  // namespace mlt::app
