// mlt kmeans fit | predict | score | cv
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "cli_support.hpp"
#include "data_options.hpp"
#include "model_io.hpp"
#include "output.hpp"
#include "cv_command.hpp"
#include "fit_verb.hpp"
#include "param_flags.hpp"
#include "mlt/core/error.hpp"
#include "mlt/kmeans.hpp"
#include "mlt/labels.hpp"
#include "mlt/metrics.hpp"
#include "mlt/io/number_format.hpp"

namespace mlt::app {
namespace {

struct PredictOptions {
  std::string model;
  DataOptions data;
  std::string output = "-";
  bool distances = false;
};

struct ScoreOptions {
  std::string model;
  DataOptions data;
  std::string labels;
  bool json = false;
  std::size_t silhouette_rows = 10000;
  std::uint64_t seed = kDefaultSeed;
};

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// "kmeans: k=3, energy 78.85 after 4 iterations (converged, best of 10 restarts);
// cluster sizes 50 38 62"
std::string summary(const KMeans& km) {
  std::string sizes;
  for (arma::uword l = 0; l < km.k(); ++l) sizes += (l ? " " : "") + std::to_string(km.cluster_sizes()[l]);
  std::string energy;
  io::append_number(energy, km.energy());
  return "kmeans: k=" + std::to_string(km.k()) + ", energy " + energy + " after " + std::to_string(km.n_iter()) +
         " iterations (" + name_of(km.stop()) + ", best of " + std::to_string(km.n_restarts()) +
         " restarts); cluster sizes " + sizes;
}

// Fit hooks: --centroids FILE starts Lloyd from the centroids it lists (the data's
// columns, by name when both have a header) instead of seeding; k is then their count.
struct Centroids {
  std::string path;
  void add_option(CLI::App* fit, KMeans::Params& params) {
    params.k = 0;  // "not given": --centroids may say
    fit->add_option("--centroids", path,
                    "Start from these centroids (CSV, the data's columns, one centroid per row) instead of seeding");
    // Before any data is read.
    fit->parse_complete_callback([this, &params] {
      if (params.k == 0 && path.empty()) throw UsageError("-k is required (or --centroids FILE)");
    });
  }
  KMeans fit(KMeans::Params params, const FitInput& in) const {
    const io::Table& data = in.data;
    if (path.empty()) return std::move(KMeans(params).fit(data.X));
    refuse_overwrite(in.output, {path});
    DataOptions copt = in.data_options;
    copt.path = path;
    copt.ignore.clear();
    const arma::mat start = read_data_for({data.feature_names, data.had_header, "", {}, {}, ""}, copt).X;
    if (params.k != 0 && params.k != start.n_rows)
      throw UsageError("-k " + std::to_string(params.k) + " but " + path + " has " + std::to_string(start.n_rows) +
                       " centroids");
    params.k = start.n_rows;
    return std::move(KMeans(params).fit_from(data.X, start));
  }
};

void run_predict(const PredictOptions& opt) {
  refuse_overwrite(opt.output, {opt.data.path, opt.model});
  const LoadedModel model = read_model(opt.model, KMeans::kind);
  const KMeans km = KMeans::load(model.reader);
  const io::Table data = read_data_for(model.schema, opt.data);
  const Labels y = km.predict(data.X);
  arma::mat out(y.n_elem, 1 + (opt.distances ? km.k() : 0));
  out.col(0) = arma::conv_to<arma::vec>::from(y) + 1.0;  // clusters are numbered from 1
  Names names = {"cluster"};
  if (opt.distances) {
    out.cols(1, km.k()) = km.distances(data.X);
    for (std::size_t l = 1; l <= km.k(); ++l) names.push_back("distance_" + std::to_string(l));
  }
  const KeptColumns kept = kept_columns(data, opt.data);
  write_csv(opt.output, kept.before({{}, {}, names, &out}));
}

void run_score(const ScoreOptions& opt) {
  const LoadedModel model = read_model(opt.model, KMeans::kind);
  const KMeans km = KMeans::load(model.reader);
  const Names text = opt.labels.empty() ? Names{} : Names{opt.labels};
  const io::Table data = read_data_for(model.schema, opt.data, text);
  Labels truth;
  if (!opt.labels.empty()) truth = LabelEncoder().fit_encode(data.text_column(opt.labels).values);
  const KMeans::Scores s = km.scores(data.X, opt.labels.empty() ? nullptr : &truth, opt.silhouette_rows, opt.seed);
  std::vector<std::pair<std::string, double>> scores = {{"inertia", s.inertia}};
  nlohmann::json extra = {{"n_samples", data.n_rows()}, {"k", km.k()}};
  if (s.silhouette) {
    scores.emplace_back("silhouette", *s.silhouette);
    extra["silhouette_rows"] = s.silhouette_rows;
  } else {
    note("kmeans: no silhouette: the data falls in " + std::to_string(s.clusters_found) + " cluster(s) for " +
         std::to_string(data.n_rows()) + " rows (it needs 2 to n - 1)");
  }
  if (s.ari) {
    scores.emplace_back("ari", *s.ari);
    scores.emplace_back("nmi", *s.nmi);
    extra["labels"] = data.text_column(opt.labels).name;
  }
  print_scores(scores, opt.json, extra);
}

}  // namespace

void setup_kmeans(CLI::App& app) {
  auto* km = app.add_subcommand("kmeans", "k-means clustering (exact Lloyd, k-means++ seeding)");
  km->require_subcommand(1);
  km->footer(
      "Examples:\n"
      "  mlt kmeans fit data/iris.csv --ignore species -k 3 --n-init 10 -o iris.km\n"
      "  mlt kmeans predict iris.km data/iris.csv --distances > clusters.csv\n"
      "  mlt kmeans score iris.km data/iris.csv --labels species --json\n"
      "  mlt kmeans cv data/iris.csv --ignore species -k 2:8 --labels species --score ari");

  auto centroids = std::make_shared<Centroids>();
  add_fit_verb<KMeans>(
      km, CvTask::none, "Cluster the rows of DATA and save the centroids as a model",
      {.summary = [](const KMeans& m, const FitData&) { return summary(m); },
       .options = [centroids](CLI::App* fit, KMeans::Params& params) { centroids->add_option(fit, params); },
       .fit = [centroids](KMeans::Params params, const FitInput& in) { return centroids->fit(params, in); },
       .detail = [](const KMeans& m) {
         return "seeding " + fixed(m.seeding_seconds(), 3) + " s, " + std::to_string(m.total_iterations()) +
                " Lloyd iterations " + fixed(m.lloyd_seconds(), 3) + " s";
       }});

  auto pr_opt = std::make_shared<PredictOptions>();
  auto* pr = km->add_subcommand("predict", "Assign each row of DATA to its nearest centroid (1-based cluster)");
  pr->add_option("model", pr_opt->model, "Model file from mlt kmeans fit")->required();
  add_data_options(pr, pr_opt->data);
  add_keep_option(pr, pr_opt->data);
  pr->add_option("-o,--output", pr_opt->output, "CSV file to write (default: standard output)");
  pr->add_flag("--distances", pr_opt->distances, "Add the Euclidean distance to each centroid (distance_1 ...)");
  pr->callback([pr_opt] { run_predict(*pr_opt); });

  auto sc_opt = std::make_shared<ScoreOptions>();
  auto* sc = km->add_subcommand("score", "Inertia and silhouette of MODEL on DATA; ARI and NMI against --labels");
  sc->add_option("model", sc_opt->model, "Model file from mlt kmeans fit")->required();
  add_data_options(sc, sc_opt->data);
  sc->add_option("--labels", sc_opt->labels, "Column of reference labels: adds ari and nmi");
  sc->add_option("--silhouette-rows", sc_opt->silhouette_rows,
                 "Silhouette exact up to this many rows, on a seeded sample of this size beyond")
      ->check(positive_integer())
      ->capture_default_str();
  sc->add_option("--seed", sc_opt->seed, "Seed of the silhouette sample")
      ->check(seed())
      ->capture_default_str();
  sc->add_flag("--json", sc_opt->json, "One JSON object instead of lines");
  sc->callback([sc_opt] { run_score(*sc_opt); });

  // cv: each fold clusters its training rows (standardized with their statistics
  // only) and scores the held-out rows under the training centroids. By default it
  // ranks by their silhouette (higher is better, and it does not trivially grow with
  // k) and reports their inertia beside it (the sum of squared distances to the
  // nearest centroid, which falls as k grows: read its curve for an elbow).
  auto& cv = add_cv_command<KMeans>(
      km, CvTask::none,
      "Cross-validate k-means: held-out silhouette and inertia (or ARI, NMI against --labels) over a grid of k");
  cv.declared_params();
  cv.app()->get_option("--clusters")->required();
  // With --labels COL: ari and nmi of the held-out rows' clusters (nearest training
  // centroid) against COL, which is neither a feature nor seen by the fits.
  cv.labels_option("Column of reference labels (not a feature): adds metrics ari and nmi of the held-out rows' "
                   "clusters against it",
                   {"ari", "nmi"});
  cv.metrics(MetricList<KMeans, cv::NoTarget>{
                 {"silhouette",
                  [](const KMeans& e, const arma::mat& X, const cv::NoTarget&) {
                    if (e.params().k < 2)
                      throw UsageError("silhouette needs k >= 2: one cluster has none; rank by --score inertia");
                    const std::optional<double> s = e.scores(X, nullptr, 10000, kDefaultSeed).silhouette;
                    if (!s) throw DataError("silhouette: a fold's held-out rows fall in a single cluster (k = " +
                                            std::to_string(e.params().k) + "); use fewer folds");
                    return *s;
                  }},
                 {"inertia", [](const KMeans& e, const arma::mat& X, const cv::NoTarget&) { return e.inertia(X); }},
                 {"ari",
                  [](const KMeans& e, const arma::mat& X, const cv::NoTarget& t) {
                    return metrics::adjusted_rand_index(t.labels, e.predict(X));
                  }},
                 {"nmi",
                  [](const KMeans& e, const arma::mat& X, const cv::NoTarget& t) {
                    return metrics::normalized_mutual_info(t.labels, e.predict(X));
                  }}},
             "silhouette,inertia");
  // --oof: each row's cluster (1-based, as mlt kmeans predict) under the fold's
  // centroids, and its squared distance to that centroid.
  cv.oof([](const CvData&) { return Names{"cluster", "sq_distance"}; },
         [](const KMeans& e, const arma::mat& X) {
           const arma::mat D = e.distances(X);
           arma::mat out(X.n_rows, 2);
           for (arma::uword i = 0; i < X.n_rows; ++i) {
             const arma::uword c = D.row(i).index_min();
             out(i, 0) = static_cast<double>(c + 1);
             out(i, 1) = D(i, c) * D(i, c);
           }
           return out;
         });
}

}  // namespace mlt::app
