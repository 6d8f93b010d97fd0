// The model and data pictures of `mlt plot`: scree, PCA scatter, k-means clusters,
// confusion matrix, decision regions, ROC and precision-recall curves, 1-D fits.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "data_options.hpp"
#include "model_io.hpp"
#include "plot_figures.hpp"
#include "plot_models.hpp"
#include "mlt/core/error.hpp"
#include "mlt/io/file.hpp"
#include "mlt/io/number_format.hpp"
#include "mlt/kmeans.hpp"
#include "mlt/labels.hpp"
#include "mlt/metrics.hpp"
#include "mlt/pca.hpp"

namespace mlt::app {

std::string file_name(const std::string& path) {
  if (path == "-") return "<stdin>";
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}


// xtics/ytics "(\"a\" 0, \"b\" 1, ...)" for categorical axes.
std::string category_tics(const Names& names) {
  std::string s = "(";
  for (std::size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + gp_quote(names[i]) + " " + std::to_string(i);
  return s + ")";
}

// The character of class k in a text chart, where colours may be missing: 1..9, then
// letters.
std::string class_char(std::size_t k, bool region) {
  static const std::string marks = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  static const std::string areas = ".-:~,'=^\"`";
  return region ? std::string(1, areas[k % areas.size()]) : std::string(1, marks[k % marks.size()]);
}

// Points of each class as a series of its colour (in a text chart, of its character:
// `text`), one datablock per class; XY: n x 2.
static std::string class_points(const arma::mat& XY, const Labels& y, const Names& classes, std::string& blocks,
                         const std::string& style, bool text) {
  std::string plots;
  for (std::size_t k = 0; k < classes.size(); ++k) {
    Block b("class" + std::to_string(k));
    std::size_t n = 0;
    for (arma::uword i = 0; i < XY.n_rows; ++i)
      if (y(i) == k) {
        b.row({XY(i, 0), XY(i, 1)});
        ++n;
      }
    if (n == 0) continue;
    blocks += b.text();
    plots += (plots.empty() ? "" : ", ") + b.ref() + " using 1:2 with points " +
             (text ? "pt " + gp_quote(class_char(k, false)) : style) + " lc rgb " +
             gp_quote(series_colour(k)) + " title " + gp_quote(classes[k]);
  }
  return plots;
}

// Labels of a text column as class indices, the classes sorted as LabelEncoder does.
static Labels encode_column(const io::Table& data, const std::string& column, Names& classes) {
  LabelEncoder enc;
  const Labels y = enc.fit_encode(data.text_column(column).values);
  classes = enc.classes();
  return y;
}

// The range of a column widened by 5 % on each side (1 either way when constant).
static std::pair<double, double> padded_range(const arma::vec& v) {
  const double lo = v.min(), hi = v.max();
  const double pad = hi > lo ? 0.05 * (hi - lo) : 1.0;
  return {lo - pad, hi + pad};
}

// --- pca: scree and scatter ---------------------------------------------------------


void run_scree(const PlotOptions& opt) {
  const PlotTarget target(opt.out);
  const LoadedModel loaded = read_model(opt.model, Pca::kind);
  const Pca pca = Pca::load(loaded.reader);
  const arma::vec& ratio = pca.explained_variance_ratio();
  Block b("scree");
  double cumulative = 0;
  for (arma::uword i = 0; i < ratio.n_elem; ++i) {
    cumulative += ratio(i);
    b.row({double(i + 1), ratio(i), cumulative});
  }
  std::string body = b.text();
  body += "set xlabel \"component\"\nset ylabel \"explained variance ratio\"\nset yrange [0:1.05]\n"
          "set xrange [0.4:" + gp_number(ratio.n_elem + 0.6) + "]\n";
  if (ratio.n_elem <= 30) body += "set xtics 1\n";
  body += "set grid ytics\nset key center right\nset style fill solid 0.7 border -1\nset boxwidth 0.6\n";
  body += "plot " + b.ref() + " using 1:2 with boxes lc rgb " + gp_quote(series_colour(0)) +
          " title \"per component\", " + b.ref() + " using 1:3 with linespoints pt 7 lw 2 lc rgb " +
          gp_quote(series_colour(1)) + " title \"cumulative\"\n";
  target.render(body, std::string(pca.params().kernelized ? "kernel PCA" : "PCA") + " scree plot: " +
                          file_name(opt.model) + " (" + std::to_string(ratio.n_elem) + " components)");
}

void run_pca_scatter(const PlotOptions& opt) {
  const PlotTarget target(opt.out);
  const LoadedModel loaded = read_model(opt.model, Pca::kind);
  const Pca pca = Pca::load(loaded.reader);
  if (pca.n_components() < 2)
    throw UsageError("the scatter of components needs a model with 2 components or more; this one keeps " +
                     std::to_string(pca.n_components()) + " (refit with -k 2)");
  const io::Table data =
      read_data_for(loaded.schema, opt.data, opt.labels.empty() ? Names{} : Names{opt.labels});
  const arma::mat Z = pca.transform(data.X).cols(0, 1);
  std::string blocks, plots;
  if (opt.labels.empty()) {
    Block b("scores");
    for (arma::uword i = 0; i < Z.n_rows; ++i) b.row({Z(i, 0), Z(i, 1)});
    blocks = b.text();
    plots = b.ref() + " using 1:2 with points pt 7 ps 0.8 lc rgb " + gp_quote(series_colour(0)) + " notitle";
  } else {
    Names classes;
    const Labels y = encode_column(data, opt.labels, classes);
    if (classes.size() > 50)
      throw DataError("column \"" + opt.labels + "\" has " + std::to_string(classes.size()) +
                      " distinct values; colouring by it needs 50 at most");
    plots = class_points(Z, y, classes, blocks, "pt 7 ps 0.8", target.text());
  }
  const arma::vec& ratio = pca.explained_variance_ratio();
  const auto axis = [&](int k) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "PC%d (%.1f %%)", k + 1, 100 * ratio(k));
    return std::string(buf);
  };
  std::string body = blocks;
  body += "set xlabel " + gp_quote(axis(0)) + "\nset ylabel " + gp_quote(axis(1)) + "\n";
  body += "set grid\nset key outside right top" + std::string(opt.labels.empty() ? "" : " title " + gp_quote(opt.labels)) +
          "\n";
  body += "plot " + plots + "\n";
  target.render(body, "PCA scores: " + file_name(opt.data.path) + " on " + file_name(opt.model));
}

// --- kmeans: clusters in the plane of the first two principal components -------------

void run_kmeans(const PlotOptions& opt) {
  const PlotTarget target(opt.out);
  const LoadedModel loaded = read_model(opt.model, KMeans::kind);
  const KMeans km = KMeans::load(loaded.reader);
  const io::Table data = read_data_for(loaded.schema, opt.data);
  if (data.X.n_cols < 2) throw UsageError("the plane of two principal components needs 2 features or more");
  const Labels cluster = km.predict(data.X);
  // The plane: PCA of this data, standardized when the clustering was, so the picture
  // shows the distances k-means measured.
  PcaParams pp;
  pp.n_components = 2;
  pp.standardize = km.params().standardize;
  Pca pca(pp);
  pca.fit(data.X);
  const arma::mat Z = pca.transform(data.X);
  const arma::mat C = pca.transform(km.centroids_original());
  Names names;
  for (std::size_t k = 0; k < km.k(); ++k) names.push_back("cluster " + std::to_string(k + 1));
  std::string blocks;
  std::string plots = class_points(Z, cluster, names, blocks, "pt 7 ps 0.7", target.text());
  Block c("centroids");
  for (arma::uword k = 0; k < C.n_rows; ++k) c.row({C(k, 0), C(k, 1), double(k + 1)});
  blocks += c.text();
  plots += ", " + c.ref() + " using 1:2 with points pt 9 ps 2.5 lc rgb \"black\" title \"centroid\"";
  plots += ", " + c.ref() + " using 1:2:(sprintf(\"%d\", $3)) with labels offset 0,1.6 notitle";
  const arma::vec& ratio = pca.explained_variance_ratio();
  char xl[64], yl[64];
  std::snprintf(xl, sizeof xl, "PC1 (%.1f %%)", 100 * ratio(0));
  std::snprintf(yl, sizeof yl, "PC2 (%.1f %%)", 100 * ratio(1));
  std::string body = blocks + "set xlabel " + gp_quote(xl) + "\nset ylabel " + gp_quote(yl) +
                     "\nset grid\nset key outside right top\nplot " + plots + "\n";
  target.render(body, "k-means, k = " + std::to_string(km.k()) + ": " + file_name(opt.data.path) + " on " +
                          file_name(opt.model) + (pp.standardize ? " (standardized)" : ""));
}

// --- classifiers: confusion matrix, decision regions ---------------------------------

void run_confusion(const PlotOptions& opt) {
  const PlotTarget target(opt.out);
  const LoadedModel loaded = read_model(opt.model, "");
  const ClassifierView model = classifier_view(loaded, "a confusion matrix needs");
  const DataSchema& schema = loaded.schema;
  const io::Table data = read_data_for(schema, opt.data, {schema.target});
  const Labels y = class_truth(data, schema);
  const Labels prediction = model.predict(data.X);
  const std::size_t K = model.n_classes;
  const arma::umat counts = metrics::confusion_matrix(y, prediction, K);
  Block b("cells");
  const double top = opt.normalize ? 1.0 : double(std::max<arma::uword>(1, counts.max()));
  for (std::size_t i = 0; i < K; ++i) {
    const double row_total = double(arma::accu(counts.row(i)));
    for (std::size_t j = 0; j < K; ++j) {
      const double v = opt.normalize ? (row_total > 0 ? counts(i, j) / row_total : 0.0) : double(counts(i, j));
      // Dark cells get white text.
      b.row({double(j), double(i), v, v > 0.55 * top ? 1.0 : 0.0});
    }
  }
  std::string body = b.text();
  body += "set xrange [-0.5:" + gp_number(K - 0.5) + "]\nset yrange [" + gp_number(K - 0.5) + ":-0.5]\n";
  body += "set xtics " + category_tics(schema.classes) + (K > 6 ? " rotate by 45 right" : "") + "\n";
  body += "set ytics " + category_tics(schema.classes) + "\nset tics scale 0\n";
  body += "set xlabel \"predicted\"\nset ylabel " +
          gp_quote("true" + (schema.target.empty() ? std::string() : " (" + schema.target + ")")) + "\n";
  body += "set palette defined (0 \"#ffffff\", 1 \"#08306b\")\nset cbrange [0:" + gp_number(top) + "]\n";
  body += "set cblabel " + gp_quote(opt.normalize ? "share of the true class" : "rows") + "\n";
  body += "unset key\nset size ratio -1\n";
  const std::string fmt = opt.normalize ? "%.2f" : "%g";
  body += "plot " + b.ref() + " using 1:2:3 with image, " + b.ref() + " using 1:2:(sprintf(\"" + fmt +
          "\", $3)):($4 > 0 ? 0xffffff : 0x000000) with labels tc rgb variable\n";
  const double accuracy = metrics::accuracy(y, prediction);
  char acc[64];
  std::snprintf(acc, sizeof acc, " (accuracy %.4g)", accuracy);
  target.render(body, "confusion matrix: " + file_name(opt.model) + " on " + file_name(opt.data.path) + acc);
}

void run_regions(const PlotOptions& opt) {
  const PlotTarget target(opt.out);
  const LoadedModel loaded = read_model(opt.model, "");
  const ClassifierView model = classifier_view(loaded, "decision regions need");
  const DataSchema& schema = loaded.schema;
  // A one-hot column takes 0 or 1 only: a plane over it would show predictions for
  // inputs no category encodes to.
  if (schema.encoding.has_categorical())
    throw UsageError("decision regions are drawn over two numeric features; this model one-hot encodes "
                     "categorical columns (fit one on two numeric columns)");
  if (!schema.structured.empty())
    throw UsageError("decision regions are drawn in the plane of two numeric features; this model reads " +
                     input_description(schema, kernel_name(loaded)));
  if (model.n_features != 2)
    throw UsageError("decision regions are drawn in the plane of two features; this model has " +
                     std::to_string(model.n_features) + " (fit one on two columns, e.g. with --ignore)");
  const io::Table data = read_data_for(schema, opt.data, {schema.target});
  const Labels y = class_truth(data, schema);
  const auto [x0, x1] = padded_range(data.X.col(0));
  const auto [y0, y1] = padded_range(data.X.col(1));
  // The grid: one value per pixel would be wasted; 200 per axis shows boundaries to half
  // a percent of the range. A text chart gets one point per character cell.
  const unsigned nx = opt.grid ? opt.grid : target.text() ? 80 : 200;
  const unsigned ny = opt.grid ? opt.grid : target.text() ? 50 : 200;
  arma::mat G(std::size_t(nx) * ny, 2);
  for (unsigned j = 0; j < ny; ++j)
    for (unsigned i = 0; i < nx; ++i) {
      G(std::size_t(j) * nx + i, 0) = x0 + (x1 - x0) * (i + 0.5) / nx;
      G(std::size_t(j) * nx + i, 1) = y0 + (y1 - y0) * (j + 0.5) / ny;
    }
  const Labels region = model.predict(G);
  const std::size_t K = model.n_classes;
  Block g("regions");
  for (std::size_t r = 0; r < G.n_rows; ++r) {
    g.row({G(r, 0), G(r, 1), double(region(r))});
    if ((r + 1) % nx == 0) g.blank();
  }
  std::string blocks = g.text();
  std::string palette = "set palette defined (";
  for (std::size_t k = 0; k < K; ++k) palette += (k ? ", " : "") + std::to_string(k) + " " + gp_quote(series_tint(k));
  if (K == 1) palette += ", 1 " + gp_quote(series_tint(0));
  palette += ")\nset cbrange [-0.5:" + gp_number(K - 0.5) + "]\nset palette maxcolors " + std::to_string(std::max<std::size_t>(K, 2)) +
             "\nunset colorbox\n";
  std::string plots;
  if (target.text()) {
    // A text chart has no image: each region's cells as its own character.
    for (std::size_t k = 0; k < K; ++k)
      plots += g.ref() + " using 1:($3 == " + std::to_string(k) + " ? $2 : NaN) with points pt " +
               gp_quote(class_char(k, true)) + " lc rgb " + gp_quote(series_tint(k)) + " title " +
               gp_quote(schema.classes.at(k) + " region") + ", ";
  } else {
    plots = g.ref() + " using 1:2:3 with image notitle, ";
  }
  plots += class_points(data.X, y, schema.classes, blocks, "pt 7 ps 0.8", target.text());
  std::string body = blocks + palette;
  body += "set xrange [" + gp_number(x0) + ":" + gp_number(x1) + "]\nset yrange [" + gp_number(y0) + ":" +
          gp_number(y1) + "]\n";
  body += "set xlabel " + gp_quote(schema.features.at(0)) + "\nset ylabel " + gp_quote(schema.features.at(1)) + "\n";
  body += "set key outside right top title " + gp_quote(schema.target) + "\n";
  body += "plot " + plots + "\n";
  target.render(body, "decision regions: " + file_name(opt.model) + " (" + model.kind + ") with " +
                          file_name(opt.data.path));
}

// --- classifiers: ROC and precision-recall curves -------------------------------------

// The positive class's scores on DATA and whether each row is of that class.
namespace {
struct Ranking {
  Labels positive;
  arma::vec scores;
  std::string positive_class, score_name;
};
}  // namespace

static Ranking rank_rows(const PlotOptions& opt, const LoadedModel& loaded, const std::string& what) {
  const ClassifierView model = classifier_view(loaded, what);
  const DataSchema& schema = loaded.schema;
  std::size_t k = 1;
  if (!opt.positive.empty()) {
    const auto at = std::find(schema.classes.begin(), schema.classes.end(), opt.positive);
    if (at == schema.classes.end()) {
      throw UsageError("--positive " + opt.positive + ": not a class of this model (classes: " +
                       joined(schema.classes) + ")");
    }
    k = std::size_t(at - schema.classes.begin());
  } else if (model.n_classes > 2) {
    throw UsageError("this model has " + std::to_string(model.n_classes) +
                     " classes: name the one to rank against the others with --positive CLASS");
  }
  if (!model.scores)
    throw UsageError("this " + model.kind + " model gives no score of class " + schema.classes.at(k) +
                     " alone (more than two classes and no probabilities" +
                     (model.kind == "svm" ? ": refit with --probability)" : ")"));
  const io::Table data = read_data_for(schema, opt.data, {schema.target});
  const Labels y = class_truth(data, schema);
  return {arma::conv_to<Labels>::from(y == k), model.scores(data.X, k), schema.classes.at(k), model.score_name};
}

void run_roc(const PlotOptions& opt) {
  const PlotTarget target(opt.out);
  const LoadedModel loaded = read_model(opt.model, "");
  const Ranking r = rank_rows(opt, loaded, "a ROC curve needs");
  const metrics::RankingCurve roc = metrics::roc_curve(r.positive, r.scores);
  Block b("roc");
  for (arma::uword i = 0; i < roc.x.n_elem; ++i) b.row({roc.x(i), roc.y(i)});
  char auc[64];
  std::snprintf(auc, sizeof auc, "AUC %.4f", metrics::roc_auc(r.positive, r.scores));
  std::string body = b.text();
  body += "set xrange [0:1]\nset yrange [0:1.02]\nset size ratio -1\nset grid\nset key bottom right\n";
  body += "set xlabel \"false positive rate\"\nset ylabel \"true positive rate (recall)\"\n";
  body += "plot " + b.ref() + " using 1:2 with lines lw 2 lc rgb " + gp_quote(series_colour(0)) + " title " +
          gp_quote(std::string(auc) + ", by " + r.score_name) + ", x with lines dt 2 lc rgb \"#808080\" title \"chance\"\n";
  target.render(body, "ROC curve of " + r.positive_class + ": " + file_name(opt.model) + " on " +
                          file_name(opt.data.path) + " (" + auc + ")");
}

void run_pr(const PlotOptions& opt) {
  const PlotTarget target(opt.out);
  const LoadedModel loaded = read_model(opt.model, "");
  const Ranking r = rank_rows(opt, loaded, "a precision-recall curve needs");
  const metrics::RankingCurve pr = metrics::precision_recall_curve(r.positive, r.scores);
  Block b("pr");
  for (arma::uword i = 0; i < pr.x.n_elem; ++i) b.row({pr.x(i), pr.y(i)});
  char ap[64];
  std::snprintf(ap, sizeof ap, "AP %.4f", metrics::average_precision(r.positive, r.scores));
  const double share = double(arma::accu(r.positive)) / double(r.positive.n_elem);
  std::string body = b.text();
  body += "set xrange [0:1]\nset yrange [0:1.02]\nset size ratio -1\nset grid\nset key bottom left\n";
  body += "set xlabel \"recall\"\nset ylabel \"precision\"\n";
  // fsteps: the precision of each threshold over the recall it adds, the step function
  // whose integral is the average precision.
  body += "plot " + b.ref() + " using 1:2 with fsteps lw 2 lc rgb " + gp_quote(series_colour(0)) + " title " +
          gp_quote(std::string(ap) + ", by " + r.score_name) + ", " + gp_number(share) +
          " with lines dt 2 lc rgb \"#808080\" title " + gp_quote("chance (the share of " + r.positive_class + ")") + "\n";
  target.render(body, "precision-recall curve of " + r.positive_class + ": " + file_name(opt.model) + " on " +
                          file_name(opt.data.path) + " (" + ap + ")");
}

// --- regression: a 1-D fit over its data ----------------------------------------------

void run_fit(const PlotOptions& opt) {
  const PlotTarget target(opt.out);
  const LoadedModel loaded = read_model(opt.model, "");
  const RegressorView model = regressor_view(loaded, "a 1-D fit needs");
  const DataSchema& schema = loaded.schema;
  if (schema.encoding.has_categorical())
    throw UsageError("a 1-D fit is drawn over one numeric feature; this model one-hot encodes categorical columns");
  if (!schema.structured.empty())
    throw UsageError("a 1-D fit is drawn over one numeric feature; this model reads " +
                     input_description(schema, kernel_name(loaded)));
  if (model.n_features != 1)
    throw UsageError("a 1-D fit is drawn over one feature; this model has " + std::to_string(model.n_features) +
                     " (fit one on one column, e.g. with --ignore)");
  const Names targets = schema.targets.empty() ? Names{schema.target} : schema.targets;
  if (targets.size() != 1)
    throw UsageError("this model predicts " + std::to_string(targets.size()) +
                     " targets; a 1-D fit draws one (fit one with a single --target)");
  const io::Table data = read_data_for(schema, opt.data, targets);
  const arma::mat Y = regression_truth(data, schema);
  const auto [x0, x1] = padded_range(data.X.col(0));
  // 1,000 points: a smooth curve at any picture size, even for a narrow rbf kernel.
  const unsigned n = target.text() ? 200 : 1000;
  arma::mat G(n, 1);
  for (unsigned i = 0; i < n; ++i) G(i, 0) = x0 + (x1 - x0) * i / (n - 1);
  const arma::mat P = model.predict(G);
  Block d("data"), f("fit");
  for (arma::uword i = 0; i < data.X.n_rows; ++i) d.row({data.X(i, 0), Y(i, 0)});
  for (unsigned i = 0; i < n; ++i) f.row({G(i, 0), P(i, 0)});
  std::string body = d.text() + f.text();
  body += "set xrange [" + gp_number(x0) + ":" + gp_number(x1) + "]\n";
  body += "set xlabel " + gp_quote(schema.features.at(0)) + "\nset ylabel " + gp_quote(targets[0]) + "\n";
  body += "set grid\nset key outside right top\n";
  body += "plot " + d.ref() + " using 1:2 with points pt 7 ps 0.6 lc rgb " + gp_quote(series_colour(0)) +
          " title \"data\", " + f.ref() + " using 1:2 with lines lw 2 lc rgb " + gp_quote(series_colour(3)) +
          " title " + gp_quote(model.kind + " prediction") + "\n";
  target.render(body, model.kind + " fit: " + file_name(opt.model) + " over " + file_name(opt.data.path));
}

// --- cv reports ------------------------------------------------------------------------

}  // namespace mlt::app
