// k-means clustering: minimise the energy
//     E(y, c) = Σₗ Σ_{i: yᵢ=ℓ} ‖xᵢ − cₗ‖²
// over assignments y and centroids c by Lloyd's block-coordinate steps, from a
// seeding (k-means++, random rows or farthest-first), keeping the best of several
// restarts. Assignments are exact (the nearest centroid, ties to the lower index)
// although distances are screened in blocks (BLAS, or a fused kernel for small k·p).
// The parts on their own: kmeans/assign.hpp (the assignment step), kmeans/seeding.hpp
// (the seedings), kmeans/source.hpp (the points in memory or re-read from a file on
// every pass: fit_stream, the same model bit for bit); the silhouette score is
// mlt::metrics::silhouette (metrics.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mlt/core/random.hpp"
#include "mlt/core/types.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/kmeans/ranks.hpp"
#include "mlt/kmeans/source.hpp"
#include "mlt/core/distributed.hpp"
#include "mlt/core/names.hpp"
#include "mlt/core/params.hpp"
#include "mlt/core/estimator.hpp"

namespace mlt {

enum class KMeansInit {
  kmeanspp,  // k-means++: D(x)² sampling (Arthur & Vassilvitskii 2007), greedy with local trials
  random,    // k distinct rows drawn uniformly
  farthest,  // first centre at random, then each time the point farthest from all chosen
  scalable,  // k-means|| (Bahmani et al. 2012, kmeans/scalable.hpp): a few oversampling rounds,
             // then weighted k-means++; fewer passes over the data than k-means++
};
inline constexpr NameTable<KMeansInit, 6> kKMeansInitNames{"seeding",
                                                          {{{KMeansInit::kmeanspp, "kmeans++"},
                                                            {KMeansInit::random, "random"},
                                                            {KMeansInit::farthest, "farthest"},
                                                            {KMeansInit::scalable, "kmeans||"},
                                                            {KMeansInit::kmeanspp, "k-means++"},
                                                            // `||` is a shell operator: a name without it
                                                            {KMeansInit::scalable, "kmeans-parallel"}}}};
constexpr const auto& name_table(KMeansInit) { return kKMeansInitNames; }

struct KMeansParams {
  std::size_t k = 8;                       // number of clusters, >= 1
  KMeansInit init = KMeansInit::kmeanspp;
  std::size_t n_init = 0;                  // restarts; 0: "auto" (1 for kmeans++, kmeans||
                                           // and farthest, 10 for random; scikit-learn's auto)
  std::size_t max_iter = 300;              // Lloyd iterations per restart, >= 1
  // Stop when (E_prev − E) / E_prev < tol (relative decrease of the energy in one pass).
  // The default 0 stops only when a pass changes no assignment, which makes the output
  // an exact fixed point of Lloyd's map: every training point's label is its nearest
  // centroid (ties to the lower index; the assignment is exact, kmeans::assign), and
  // every centroid is the mean of its cluster (computed from exactly those labels, so
  // up to the rounding of a sum of n_l points). Lloyd reaches one in finitely many
  // passes (E strictly decreases while labels change, and there are finitely many
  // labellings), i.e. a local minimum of E over labellings with the centroids at their
  // means: the optimum Lloyd can reach from its start, not near it. A tol > 0 may stop
  // before (overlapping blobs in tests/fixtures/kmeans: tol = 1e-4 stopped after 14
  // passes with 165 of 600 labels still to change; the fixed point took 26). max_iter,
  // if it comes first, warns.
  double tol = 0;
  std::size_t local_trials = 0;            // k-means++ candidates per centre, the best kept
                                           // (scikit-learn's greedy variant; for kmeans||, in
                                           // its final weighted k-means++); 0: 2 + ⌊ln k⌋;
                                           // 1: plain k-means++
  std::uint64_t seed = kDefaultSeed;
  bool standardize = false;                // cluster standardized columns

  // The declaration of these parameters (core/params.hpp).
  static const ParamTable<KMeansParams>& table();
};

// Why a Lloyd run stopped.
enum class KMeansStop { no_change, tol, max_iter };
inline constexpr NameTable<KMeansStop, 3> kKMeansStopNames{
    "stopping reason", {{{KMeansStop::no_change, "no_change"}, {KMeansStop::tol, "tol"}, {KMeansStop::max_iter, "max_iter"}}}};
constexpr const auto& name_table(KMeansStop) { return kKMeansStopNames; }

class KMeans {
 public:
  using Params = KMeansParams;
  static constexpr const char* kind = "kmeans";

  explicit KMeans(Params params = {}) : params_(params) {}

  // X: n x p. Throws UsageError for invalid params, DataError when k exceeds the
  // number of distinct rows or the data is unusable. Starts over.
  KMeans& fit(const arma::mat& X);
  // One Lloyd run from the given centroids (k x p, in the units of X; standardized
  // units with `standardize`), without seeding or restarts; params().k becomes their
  // count (the k given, if any, is not used).
  KMeans& fit_from(const arma::mat& X, const arma::mat& initial_centroids);
  // The same fit as fit(X) with X read again on every pass instead of held
  // (`mlt kmeans fit --stream`): each call of `passes` starts a read of the same rows.
  // Same seeding, same assignments, same centroids, bit for bit (kmeans/source.hpp
  // says why). Passes: one for the count and the centring, then per restart, for each centre of the
  // seeding, a partial one fetching the rows it draws (up to the last of them) and a
  // full one for their distances (kmeans||: two per round and one for the weights),
  // and one per Lloyd iteration. Memory: O(k·p + chunk) and per row 8 bytes for its
  // label and 8 for its squared distance (the teleport of an empty cluster needs both;
  // with restarts, 8 more for the best run's labels), plus during kmeans++ seeding 8
  // per candidate (local_trials) and 8 for the running D²: at 2 + ln k candidates, 5
  // to 8 doubles a row, against p in memory.
  //
  // Over several ranks (comm.size() > 1; core/distributed.hpp), `passes` reads this
  // rank's rows only (a part of the file, in file order, parts in rank order), and
  // every rank ends with the same model (labels() holds this rank's rows). The seeding
  // is kmeans++ (the same rows as one process: exact sums, kmeans/seeding.hpp), kmeans||
  // or given centroids (fit_stream_from); random and farthest-first, which follow one
  // row after another, are refused (a UsageError). What differs from one process:
  //   - the centring moments are each rank's exact sums, merged (kmeans/ranks.hpp):
  //     the same bits as one process;
  //   - a part the source holds in memory (RowChunk::held) is prepared once (centred,
  //     scaled, transposed), as the in-memory fit prepares its data, and its passes
  //     read the prepared points: p + 1 doubles a row more, no work per pass;
  //   - kmeans|| gives the same centres for any number of ranks (kmeans/scalable.hpp);
  //   - each Lloyd iteration sums the ranks' centroid sums and counts (k·p + k + 2
  //     doubles from each rank, added in rank order), which rounds differently than
  //     one process's chunk order. The bound: while the assignments are the same,
  //     every centroid is the mean of the same points, so it differs from the
  //     one-process centroid by at most 2 γ_{n_l} Σᵢ |xᵢⱼ| / n_l in coordinate j
  //     (γₘ = mε / (1 − mε); two sums of the same n_l values in different orders, each
  //     within γ_{n_l−1} Σ|x| of the exact one, and each division's rounding; x in the
  //     working space, centred and scaled as centroids() is), fresh at every
  //     iteration: nothing accumulates. An assignment can differ only for a point
  //     whose two nearest centroids are that close to a tie; the tests check that
  //     margin on their data, so there the labels are the same. The energy is such a
  //     sum too, so tol > 0 or restarts may decide differently only when energies are
  //     within rounding of the threshold or of each other.
  // -np 1 (comm.size() == 1) is the single-process fit itself.
  KMeans& fit_stream(const RowPasses& passes, const Communicator& comm = single_process());
  // fit_stream from given centroids (k x p, in the units of the data), as fit_from.
  KMeans& fit_stream_from(const RowPasses& passes, const arma::mat& initial_centroids,
                          const Communicator& comm = single_process());

  // X: m x p -> cluster index 0..k-1 of each row (nearest centroid, ties to the lower).
  Labels predict(const arma::mat& X) const;
  // X: m x p -> m x k Euclidean distances to each centroid (in the model's space).
  arma::mat distances(const arma::mat& X) const;
  // E of X under the centroids: Σᵢ minₗ ‖xᵢ − cₗ‖² (in the model's space).
  double inertia(const arma::mat& X) const;
  // Higher is better: minus the inertia.
  double score(const arma::mat& X) const { return -inertia(X); }

  // What `mlt kmeans score` reports of X (m x p) under the model: the inertia; the
  // silhouette of the clusters where they live (standardized if so fitted), exact up
  // to `silhouette_rows` rows and on a sample drawn with `seed` beyond, when X falls in
  // 2 to m - 1 clusters (else none); ARI and NMI against `truth` (m class indices) when
  // given.
  struct Scores {
    double inertia = 0;
    std::size_t clusters_found = 0;
    std::optional<double> silhouette;
    std::size_t silhouette_rows = 0;  // rows the silhouette was measured on
    std::optional<double> ari, nmi;
  };
  Scores scores(const arma::mat& X, const Labels* truth, std::size_t silhouette_rows, std::uint64_t seed) const;

  bool is_fitted() const { return !centroids_.is_empty(); }
  std::size_t n_features() const { return centroids_.n_cols; }
  std::size_t k() const { return centroids_.n_rows; }
  const Params& params() const { return params_; }

  // k x p, in the space the distances are measured in: the data centred on the
  // training mean (and divided by the standard deviations with `standardize`).
  const arma::mat& centroids() const { return centroids_; }
  const Labels& labels() const { return labels_; }             // n, training rows (not saved)
  double energy() const { return energy_; }                    // final E on the training data
  std::size_t n_iter() const { return n_iter_; }                // Lloyd iterations of the kept run
  KMeansStop stop() const { return stop_; }
  const arma::uvec& cluster_sizes() const { return sizes_; }   // k
  std::size_t n_restarts() const { return restart_energies_.size(); }
  std::size_t best_restart() const { return best_restart_; }   // 0-based
  const std::vector<double>& restart_energies() const { return restart_energies_; }
  // kmeans||: the rows (0-based, in the whole data) its centres were, in the kept
  // restart; the same for any number of ranks. Empty for the other seedings.
  const std::vector<std::uint64_t>& seed_rows() const { return seed_rows_; }
  // E after each assignment step of the kept run, ending with the final energy:
  // non-increasing.
  const std::vector<double>& energy_history() const { return history_; }
  // The centroids in the units of the input data (undoing the standardization).
  arma::mat centroids_original() const;
  // Wall-clock seconds of the last fit: seeding and Lloyd iterations, over all restarts.
  double seeding_seconds() const { return seeding_seconds_; }
  double lloyd_seconds() const { return lloyd_seconds_; }
  std::size_t total_iterations() const { return total_iterations_; }
  // Reads of the data by the last fit_stream (partial ones included); 0 after fit.
  std::size_t data_passes() const { return data_passes_; }

  void save(io::ModelWriter& out) const;
  static KMeans load(const io::ModelReader& in);

 private:
  void check_params(bool given_centroids = false) const;  // k is not needed with given centroids
  void check_distinct(std::size_t distinct, std::size_t k) const;
  void set_transform(const kmeans::ColumnMoments& moments);
  void check_initial(const arma::mat& initial_centroids, std::size_t p) const;
  // The streamed fit, over one rank or several.
  void fit_passes(const RowPasses& passes, const arma::mat& initial_centroids, const Communicator& comm);
  // Seeding and Lloyd over the prepared points, every restart: the fit proper. `rows`:
  // where src's rows sit among all ranks' (a single process: all of them).
  void fit_source(kmeans::BlockSource& src, const arma::mat& initial_centroids, const kmeans::RankRows& rows,
                  const Communicator& comm);
  void require_fitted() const;
  // The assignment pass over X (m x p): labels (resized to m) and the energy.
  double assign_rows(const arma::mat& X, Labels& labels) const;

  Params params_;
  arma::rowvec shift_;           // 1 x p: training mean, subtracted before anything
  arma::rowvec scale_;           // 1 x p with standardize (sd, ddof 0), else empty
  arma::mat centroids_;
  Labels labels_;
  arma::uvec sizes_;
  double energy_ = 0;
  std::size_t n_iter_ = 0;
  KMeansStop stop_ = KMeansStop::no_change;
  std::size_t best_restart_ = 0;
  std::vector<double> restart_energies_;
  std::vector<std::uint64_t> seed_rows_;
  std::vector<double> history_;
  double seeding_seconds_ = 0, lloyd_seconds_ = 0;
  std::size_t total_iterations_ = 0;
  std::size_t data_passes_ = 0;
};

static_assert(Clusterer<KMeans>);

}  // namespace mlt
