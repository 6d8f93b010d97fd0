// mlt plot KIND ...: pictures of models, data and cv reports. mlt computes every number
// drawn (through the library: each model's own transform or predict), and gnuplot
// draws them (plot_gnuplot.hpp says why and how the output is written).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "data_options.hpp"
#include "model_io.hpp"
#include "plot_gnuplot.hpp"
#include "plot_models.hpp"
#include "mlt/core/error.hpp"
#include "mlt/io/file.hpp"
#include "mlt/io/number_format.hpp"
#include "mlt/kmeans.hpp"
#include "mlt/labels.hpp"
#include "mlt/metrics.hpp"
#include "mlt/pca.hpp"

namespace mlt::app {
namespace {

struct PlotOptions {
  PlotOutputOptions out;
  std::string model;  // or the cv report
  DataOptions data;
  std::string labels;       // pca: the column that colours the points
  bool normalize = false;   // confusion: rows as shares of the true class
  unsigned grid = 0;        // regions: grid points per axis (0: by the format)
  std::string x, y;         // cv: the parameters on the axes
  bool curves = false;      // cv: curves instead of a heat map over two parameters
  std::string positive;     // roc, pr: the positive class
};

std::string file_name(const std::string& path) {
  if (path == "-") return "<stdin>";
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// One gnuplot datablock: `$name << EOD`, the rows, `EOD`.
class Block {
 public:
  explicit Block(std::string name) : name_(std::move(name)), text_("$" + name_ + " << EOD\n") {}
  Block& row(std::initializer_list<double> values) {
    bool first = true;
    for (double v : values) {
      if (!first) text_ += ' ';
      first = false;
      io::append_number(text_, v);
    }
    text_ += '\n';
    return *this;
  }
  void blank() { text_ += '\n'; }
  std::string text() const { return text_ + "EOD\n"; }
  std::string ref() const { return "$" + name_; }

 private:
  std::string name_, text_;
};

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
std::string class_points(const arma::mat& XY, const Labels& y, const Names& classes, std::string& blocks,
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
Labels encode_column(const io::Table& data, const std::string& column, Names& classes) {
  LabelEncoder enc;
  const Labels y = enc.fit_encode(data.text_column(column).values);
  classes = enc.classes();
  return y;
}

// The range of a column widened by 5 % on each side (1 either way when constant).
std::pair<double, double> padded_range(const arma::vec& v) {
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
  body += "set xlabel \"predicted\"\nset ylabel \"true " + (schema.target.empty() ? std::string() : "(" + schema.target + ")") +
          "\"\n";
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
struct Ranking {
  Labels positive;
  arma::vec scores;
  std::string positive_class, score_name;
};

Ranking rank_rows(const PlotOptions& opt, const LoadedModel& loaded, const std::string& what) {
  const ClassifierView model = classifier_view(loaded, what);
  const DataSchema& schema = loaded.schema;
  std::size_t k = 1;
  if (!opt.positive.empty()) {
    const auto at = std::find(schema.classes.begin(), schema.classes.end(), opt.positive);
    if (at == schema.classes.end()) {
      std::string list;
      for (const auto& c : schema.classes) list += (list.empty() ? "" : ", ") + c;
      throw UsageError("--positive " + opt.positive + ": not a class of this model (classes: " + list + ")");
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
          " with lines dt 2 lc rgb \"#808080\" title \"chance (the share of " + r.positive_class + ")\"\n";
  target.render(body, "precision-recall curve of " + r.positive_class + ": " + file_name(opt.model) + " on " +
                          file_name(opt.data.path) + " (" + ap + ")");
}

// --- regression: a 1-D fit over its data ----------------------------------------------

void run_fit(const PlotOptions& opt) {
  const PlotTarget target(opt.out);
  const LoadedModel loaded = read_model(opt.model, "");
  const RegressorView model = regressor_view(loaded, "a 1-D fit needs");
  const DataSchema& schema = loaded.schema;
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

struct CvPoint {
  std::map<std::string, std::string> params;  // value as shown ("" where not applicable)
  std::map<std::string, double> numbers;      // the numeric ones
  double mean = 0, std = 0;
  std::vector<double> folds;
};

struct CvReport {
  std::string metric;
  std::vector<std::string> names;  // parameters in the report's order
  std::vector<CvPoint> points;
  std::size_t best = 0;
};

CvReport read_cv_report(const std::string& path) {
  const std::string source = path == "-" ? "<stdin>" : path;
  const std::string text = io::read_whole_file(path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw DataError(source + ": not JSON; plot cv reads the report of mlt <algo> cv --json");
  }
  const auto bad = [&](const std::string& what) {
    return DataError(source + ": not an mlt cv report (" + what + "); plot cv reads the report of mlt <algo> cv --json");
  };
  if (!j.is_object() || !j.contains("metric") || !j["metric"].is_string()) throw bad("no \"metric\"");
  if (!j.contains("results") || !j["results"].is_array() || j["results"].empty()) throw bad("no \"results\"");
  CvReport r;
  r.metric = j["metric"].get<std::string>();
  for (const auto& e : j["results"]) {
    if (!e.is_object() || !e.contains("params") || !e["params"].is_object() || !e.contains("mean") ||
        !e["mean"].is_number() || !e.contains("std") || !e["std"].is_number())
      throw bad("a result without params, mean and std");
    CvPoint p;
    p.mean = e["mean"].get<double>();
    p.std = e["std"].get<double>();
    if (!std::isfinite(p.mean) || !std::isfinite(p.std)) throw bad("a mean or std that is not a number");
    for (auto it = e["params"].begin(); it != e["params"].end(); ++it) {
      if (std::find(r.names.begin(), r.names.end(), it.key()) == r.names.end()) r.names.push_back(it.key());
      if (it->is_null()) continue;
      if (it->is_number()) {
        p.numbers[it.key()] = it->get<double>();
        p.params[it.key()] = gp_number(it->get<double>());
      } else {
        p.params[it.key()] = it->is_string() ? it->get<std::string>() : it->dump();
      }
    }
    if (e.contains("fold_scores") && e["fold_scores"].is_array())
      for (const auto& f : e["fold_scores"])
        if (f.is_number()) p.folds.push_back(f.get<double>());
    r.points.push_back(std::move(p));
  }
  // The best point: the report's, found by its parameters.
  if (j.contains("best") && j["best"].is_object() && j["best"].contains("params")) {
    for (std::size_t i = 0; i < r.points.size(); ++i) {
      bool same = true;
      for (auto it = j["best"]["params"].begin(); it != j["best"]["params"].end() && same; ++it) {
        const auto at = r.points[i].params.find(it.key());
        const std::string v = it->is_null()     ? ""
                              : it->is_number() ? gp_number(it->get<double>())
                              : it->is_string() ? it->get<std::string>()
                                                : it->dump();
        same = (at == r.points[i].params.end() ? std::string() : at->second) == v;
      }
      if (same) {
        r.best = i;
        break;
      }
    }
  }
  return r;
}

// A value as a label: numbers to 4 significant digits (a log grid's 0.0031622776601683794
// reads 0.003162), "n/a" where the parameter does not apply.
std::string label_of(const std::string& v) {
  if (v.empty()) return "n/a";
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (end != v.c_str() + v.size()) return v;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", d);
  return buf;
}

std::string value_of(const CvPoint& p, const std::string& name) {
  const auto it = p.params.find(name);
  return it == p.params.end() ? "" : it->second;
}

// The distinct values of a parameter in the report's order; numeric ones sorted.
std::vector<std::string> values_of(const CvReport& r, const std::string& name, bool& numeric) {
  std::vector<std::string> values;
  numeric = true;
  for (const CvPoint& p : r.points) {
    const std::string v = value_of(p, name);
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
    if (!v.empty() && !p.numbers.count(name)) numeric = false;
  }
  if (numeric) {
    std::map<std::string, double> num;
    for (const CvPoint& p : r.points)
      if (p.numbers.count(name)) num[value_of(p, name)] = p.numbers.at(name);
    std::stable_sort(values.begin(), values.end(), [&](const std::string& a, const std::string& b) {
      if (a.empty() || b.empty()) return !a.empty() && b.empty();
      return num.at(a) < num.at(b);
    });
  }
  return values;
}

void run_cv(const PlotOptions& opt) {
  const PlotTarget target(opt.out);
  const CvReport r = read_cv_report(opt.model);
  std::vector<std::string> varying;
  for (const std::string& name : r.names) {
    bool numeric = false;
    if (values_of(r, name, numeric).size() > 1) varying.push_back(name);
  }
  const auto check_name = [&](const std::string& n, const char* flag) {
    if (std::find(r.names.begin(), r.names.end(), n) == r.names.end()) {
      std::string list;
      for (const auto& v : r.names) list += (list.empty() ? "" : ", ") + v;
      throw UsageError(std::string(flag) + " " + n + ": the report has no parameter of that name (" +
                       (list.empty() ? "it has none" : "parameters: " + list) + ")");
    }
  };
  std::string xname = opt.x, yname = opt.y;
  if (!xname.empty()) check_name(xname, "--x");
  if (!yname.empty()) check_name(yname, "--y");
  for (const std::string& v : varying) {
    if (xname.empty() && v != yname) xname = v;
    else if (yname.empty() && v != xname && varying.size() > 1) yname = v;
  }
  if (xname.empty() && !r.names.empty()) xname = r.names.front();
  // The other varying parameters are held at the best point's values.
  const CvPoint& best = r.points[r.best];
  std::string held;
  std::vector<const CvPoint*> shown;
  for (const std::string& v : varying)
    if (v != xname && v != yname) held += (held.empty() ? "" : ", ") + v + " = " + label_of(value_of(best, v));
  for (const CvPoint& p : r.points) {
    bool keep = true;
    for (const std::string& v : varying)
      if (v != xname && v != yname && value_of(p, v) != value_of(best, v)) keep = false;
    if (keep) shown.push_back(&p);
  }
  bool better_high = true;
  try {
    better_high = metrics::higher_is_better(r.metric);
  } catch (const UsageError&) {
  }
  const std::string ylabel = r.metric + (better_high ? " (higher is better)" : " (lower is better)");
  std::string title = "cv: " + r.metric + " over " + (xname.empty() ? "one point" : xname) +
                      (yname.empty() ? "" : " and " + yname) + " (" + file_name(opt.model) + ")";
  if (!held.empty()) title += ", " + held + " (best)";

  bool x_numeric = false, y_numeric = false;
  const std::vector<std::string> xs = xname.empty() ? std::vector<std::string>{""} : values_of(r, xname, x_numeric);
  const std::vector<std::string> ys = yname.empty() ? std::vector<std::string>{""} : values_of(r, yname, y_numeric);
  // A numeric axis spanning two decades or more, all positive: a log scale, as the grids
  // of --lambda and --gamma are made.
  double lo = INFINITY, hi = -INFINITY;
  if (x_numeric)
    for (const CvPoint* p : shown)
      if (p->numbers.count(xname)) {
        lo = std::min(lo, p->numbers.at(xname));
        hi = std::max(hi, p->numbers.at(xname));
      }
  const bool logx = x_numeric && lo > 0 && hi / lo >= 100;
  const auto x_of = [&](const CvPoint& p) {
    if (x_numeric && p.numbers.count(xname)) return p.numbers.at(xname);
    return double(std::find(xs.begin(), xs.end(), value_of(p, xname)) - xs.begin());
  };
  std::string body;
  if (!yname.empty() && !opt.curves) {
    // Heat map: one cell per pair of values, coloured by the mean; cells of pairs the
    // grid leaves out (a parameter that does not apply) stay blank.
    Block b("cells");
    double mlo = INFINITY, mhi = -INFINITY;
    for (const CvPoint* p : shown) {
      mlo = std::min(mlo, p->mean);
      mhi = std::max(mhi, p->mean);
    }
    for (const CvPoint* p : shown) {
      const double xi = double(std::find(xs.begin(), xs.end(), value_of(*p, xname)) - xs.begin());
      const double yi = double(std::find(ys.begin(), ys.end(), value_of(*p, yname)) - ys.begin());
      // White text on the darker half of the colours (better is darker).
      const double depth = mhi > mlo ? (p->mean - mlo) / (mhi - mlo) : 1.0;
      b.row({xi, yi, p->mean, p == &best ? 1.0 : 0.0, (better_high ? depth : 1 - depth) > 0.5 ? 1.0 : 0.0});
    }
    Names xt, yt;
    for (const auto& v : xs) xt.push_back(label_of(v));
    for (const auto& v : ys) yt.push_back(label_of(v));
    body += b.text();
    body += "set xrange [-0.5:" + gp_number(xs.size() - 0.5) + "]\nset yrange [-0.5:" + gp_number(ys.size() - 0.5) +
            "]\n";
    body += "set xtics " + category_tics(xt) + (xs.size() > 6 ? " rotate by 45 right" : "") + "\nset ytics " +
            category_tics(yt) + "\nset tics scale 0\n";
    body += "set xlabel " + gp_quote(xname) + "\nset ylabel " + gp_quote(yname) + "\nset cblabel " + gp_quote(ylabel) +
            "\n";
    // Better is darker whichever way the metric points.
    body += std::string("set palette defined ") +
            (better_high ? "(0 \"#f7fbff\", 1 \"#08306b\")" : "(0 \"#08306b\", 1 \"#f7fbff\")") + "\n";
    if (mhi > mlo) body += "set cbrange [" + gp_number(mlo) + ":" + gp_number(mhi) + "]\n";
    body += "unset key\nset style fill solid 1.0 noborder\n";
    body += "plot " + b.ref() + " using 1:2:(0.5):(0.5):3 with boxxyerror fc palette, " + b.ref() +
            " using 1:2:(sprintf(\"%.4g\", $3)):($5 > 0 ? 0xffffff : 0x000000) with labels tc rgb variable, " + b.ref() +
            " using ($4 > 0 ? $1 : NaN):2:(0.5):(0.5) with boxxyerror fs empty lc rgb \"#d62728\" lw 3\n";
    target.render(body, title + "; best outlined");
    return;
  }
  // Curves: mean ± std over the folds against x, one curve per value of the second
  // parameter (--curves); each fold's score as a small dot when the report has them.
  std::string plots;
  for (std::size_t s = 0; s < ys.size(); ++s) {
    Block b("curve" + std::to_string(s)), f("folds" + std::to_string(s));
    std::vector<const CvPoint*> pts;
    for (const CvPoint* p : shown)
      if (value_of(*p, yname) == ys[s]) pts.push_back(p);
    std::stable_sort(pts.begin(), pts.end(), [&](const CvPoint* a, const CvPoint* b) { return x_of(*a) < x_of(*b); });
    bool any_folds = false;
    for (const CvPoint* p : pts) {
      b.row({x_of(*p), p->mean, p->std});
      for (double v : p->folds) {
        f.row({x_of(*p), v});
        any_folds = true;
      }
    }
    body += b.text();
    const std::string colour = gp_quote(series_colour(s));
    const std::string name = yname.empty() ? r.metric : yname + " = " + label_of(ys[s]);
    if (any_folds) {
      body += f.text();
      plots += (plots.empty() ? "" : ", ") + f.ref() + " using 1:2 with points pt 7 ps 0.5 lc rgb " + colour +
               " notitle";
    }
    plots += (plots.empty() ? "" : ", ") + b.ref() + " using 1:2:3 with yerrorbars pt 7 ps 0.8 lc rgb " + colour +
             " title " + gp_quote(name + " (mean ± std over folds)") + ", " + b.ref() +
             " using 1:2 with lines lw 2 lc rgb " + colour + " notitle";
  }
  Block bb("best");
  bb.row({x_of(best), best.mean});
  body += bb.text();
  plots += ", " + bb.ref() + " using 1:2 with points pt 6 ps 3 lw 2 lc rgb \"black\" title \"best\"";
  if (logx) body += "set logscale x\nset format x \"%g\"\n";
  if (!x_numeric) {
    Names xt;
    for (const auto& v : xs) xt.push_back(label_of(v));
    body += "set xtics " + category_tics(xt) + "\nset xrange [-0.5:" + gp_number(xs.size() - 0.5) + "]\n";
  } else if (lo < hi) {
    // A little room so the end points' bars are not on the frame.
    body += logx ? "set xrange [" + gp_number(lo / std::pow(hi / lo, 0.03)) + ":" + gp_number(hi * std::pow(hi / lo, 0.03)) + "]\n"
                 : "set xrange [" + gp_number(lo - 0.03 * (hi - lo)) + ":" + gp_number(hi + 0.03 * (hi - lo)) + "]\n";
  }
  body += "set xlabel " + gp_quote(xname.empty() ? "" : xname) + "\nset ylabel " + gp_quote(ylabel) +
          "\nset grid\nset key outside below\n";
  body += "plot " + plots + "\n";
  target.render(body, title);
}

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
