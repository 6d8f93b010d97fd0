// The predict and score verbs of a clustering command, and its cv metrics, the same
// for every clusterer E (mlt/core/estimator.hpp: Clusterer) that also has
// distances(X) -> m x k, inertia(X), k() and scores(X, truth, rows, seed) (k-means):
// predict writes the 1-based cluster of each row (with --distances, the distance to
// each centroid); score prints the inertia, the silhouette and, against --labels, ARI
// and NMI; cv ranks by the held-out silhouette (higher is better, and it does not
// trivially grow with k) and reports the inertia beside it (which falls as k grows:
// read its curve for an elbow), or ARI and NMI against --labels.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "apply_verb.hpp"
#include "cli_support.hpp"
#include "cv_command.hpp"
#include "data_options.hpp"
#include "model_io.hpp"
#include "output.hpp"
#include "mlt/core/error.hpp"
#include "mlt/labels.hpp"
#include "mlt/metrics.hpp"

namespace mlt::app {

template <class E>
void add_clusterer_verbs(CLI::App* command) {
  add_apply_verb<E>(command, {"predict", "Assign each row of DATA to its nearest centroid (1-based cluster)",
                              {{"--distances", "Add the Euclidean distance to each centroid (distance_1 ...)"}},
                              [](const E& model, const DataSchema&, const arma::mat& X, bool distances) {
                                const Labels y = model.predict(X);
                                arma::mat out(y.n_elem, 1 + (distances ? model.k() : 0));
                                out.col(0) = arma::conv_to<arma::vec>::from(y) + 1.0;  // numbered from 1
                                Names names = {"cluster"};
                                if (distances) {
                                  out.cols(1, model.k()) = model.distances(X);
                                  for (std::size_t l = 1; l <= model.k(); ++l)
                                    names.push_back("distance_" + std::to_string(l));
                                }
                                return std::pair{names, out};
                              }});

  struct ScoreOptions {
    std::string model;
    DataOptions data;
    std::string labels;
    bool json = false;
    std::size_t silhouette_rows = 10000;
    std::uint64_t seed = kDefaultSeed;
  };
  const std::string model_help = std::string("Model file from mlt ") + E::kind + " fit";
  auto opt = std::make_shared<ScoreOptions>();
  auto* sc = command->add_subcommand("score", "Inertia and silhouette of MODEL on DATA; ARI and NMI against --labels");
  sc->add_option("model", opt->model, model_help)->required();
  add_data_options(sc, opt->data);
  sc->add_option("--labels", opt->labels, "Column of reference labels: adds ari and nmi");
  sc->add_option("--silhouette-rows", opt->silhouette_rows,
                 "Silhouette exact up to this many rows, on a seeded sample of this size beyond")
      ->check(positive_integer())
      ->capture_default_str();
  sc->add_option("--seed", opt->seed, "Seed of the silhouette sample")->check(seed())->capture_default_str();
  sc->add_flag("--json", opt->json, "One JSON object instead of lines");
  sc->callback([opt] {
    const LoadedModel model = read_model(opt->model, E::kind);
    const E km = E::load(model.reader);
    const Names text = opt->labels.empty() ? Names{} : Names{opt->labels};
    const io::Table data = read_data_for(model.schema, opt->data, text);
    Labels truth;
    if (!opt->labels.empty()) truth = LabelEncoder().fit_encode(data.text_column(opt->labels).values);
    const auto s = km.scores(data.X, opt->labels.empty() ? nullptr : &truth, opt->silhouette_rows, opt->seed);
    std::vector<std::pair<std::string, double>> scores = {{"inertia", s.inertia}};
    nlohmann::json extra = {{"n_samples", data.n_rows()}, {"k", km.k()}};
    if (s.silhouette) {
      scores.emplace_back("silhouette", *s.silhouette);
      extra["silhouette_rows"] = s.silhouette_rows;
    } else {
      note(std::string(E::kind) + ": no silhouette: the data falls in " + std::to_string(s.clusters_found) +
           " cluster(s) for " + std::to_string(data.n_rows()) + " rows (it needs 2 to n - 1)");
    }
    if (s.ari) {
      scores.emplace_back("ari", *s.ari);
      scores.emplace_back("nmi", *s.nmi);
      extra["labels"] = data.text_column(opt->labels).name;
    }
    print_scores(scores, opt->json, extra);
  });
}

// cv's metrics of a clusterer on held-out rows; ari and nmi need --labels.
template <class E>
MetricList<E, cv::NoTarget> clustering_metrics() {
  return {{"silhouette",
           [](const E& e, const arma::mat& X, const cv::NoTarget&) {
             if (e.params().k < 2)
               throw UsageError("silhouette needs k >= 2: one cluster has none; rank by --score inertia");
             const std::optional<double> s = e.scores(X, nullptr, 10000, kDefaultSeed).silhouette;
             if (!s)
               throw DataError("silhouette: a fold's held-out rows fall in a single cluster (k = " +
                               std::to_string(e.params().k) + "); use fewer folds");
             return *s;
           }},
          {"inertia", [](const E& e, const arma::mat& X, const cv::NoTarget&) { return e.inertia(X); }},
          {"ari",
           [](const E& e, const arma::mat& X, const cv::NoTarget& t) {
             return metrics::adjusted_rand_index(t.labels, e.predict(X));
           }},
          {"nmi", [](const E& e, const arma::mat& X, const cv::NoTarget& t) {
             return metrics::normalized_mutual_info(t.labels, e.predict(X));
           }}};
}

// cv --oof of a clusterer: each row's cluster (1-based, as predict) under the fold's
// centroids, and its squared distance to that centroid.
template <class E>
arma::mat cluster_oof(const E& e, const arma::mat& X) {
  const arma::mat D = e.distances(X);
  arma::mat out(X.n_rows, 2);
  for (arma::uword i = 0; i < X.n_rows; ++i) {
    const arma::uword c = D.row(i).index_min();
    out(i, 0) = static_cast<double>(c + 1);
    out(i, 1) = D(i, c) * D(i, c);
  }
  return out;
}

}  // namespace mlt::app
