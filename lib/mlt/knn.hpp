// k-nearest neighbours: classification by a (weighted) vote among the k nearest
// training samples, or regression by their (weighted) mean target. The model is the
// (standardized) training set itself; the search is exact (mlt/knn/search.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "mlt/core/distributed.hpp"
#include "mlt/core/types.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/kernel.hpp"
#include "mlt/knn/search.hpp"
#include "mlt/standardizer.hpp"
#include "mlt/core/names.hpp"
#include "mlt/core/estimator.hpp"

namespace mlt {

enum class KnnWeights {
  uniform,    // every neighbour counts 1
  distance,   // 1 / d, scikit-learn's weights="distance"
  distance2,  // 1 / d², the weighted kNN of the lecture notes
};
inline constexpr NameTable<KnnWeights, 3> kKnnWeightsNames{
    "weights", {{{KnnWeights::uniform, "uniform"}, {KnnWeights::distance, "distance"}, {KnnWeights::distance2, "distance2"}}}};
constexpr const auto& name_table(KnnWeights) { return kKnnWeightsNames; }

struct KnnParams {
  std::size_t k = 5;              // neighbours, 1 <= k <= n_train
  bool regression = false;        // mean target instead of a vote
  KnnWeights weights = KnnWeights::uniform;
  knn::Metric metric = knn::Metric::euclidean;
  knn::Algorithm algorithm = knn::Algorithm::automatic;
  bool standardize = false;       // z-score the features (fitted on the training set)
  // Kernel-induced distance d(x, y)² = k(x, x) + k(y, y) - 2 k(x, y) (lecture notes)
  // instead of `metric`; searched by brute force over Gram blocks.
  std::optional<KernelParams> kernel;

  // The declaration of these parameters (core/params.hpp).
  static const ParamTable<KnnParams>& table();
};

class Knn {
 public:
  using Params = KnnParams;
  using Neighbors = knn::Neighbors;
  static constexpr const char* kind = "knn";

  explicit Knn(Params params = {}) : params_(params) {}

  // Classification. X: n x p; y: n class indices below n_classes (0: max(y) + 1; give
  // it when some class may be absent from this training set, as in a CV fold).
  // Throws UsageError for bad params or when params.regression is set, DataError when
  // k > n or the data is unusable.
  Knn& fit(const arma::mat& X, const Labels& y, std::size_t n_classes = 0);
  // Regression. X: n x p; Y: n x t targets (t >= 1). Requires params.regression.
  Knn& fit(const arma::mat& X, const arma::mat& Y);

  // The k nearest training rows of each row of X (m x p, original units), nearest
  // first; ties in distance list the lower training row first. k = 0: params.k.
  // k may exceed params.k (up to n_train), so one search serves every smaller k.
  Neighbors kneighbors(const arma::mat& X, std::size_t k = 0) const;

  // Classification: the winning class per row (m). Ties in the (weighted) vote go to
  // the class whose tied neighbours have the smaller summed distance, then to the
  // lower class index.
  Labels predict(const arma::mat& X) const;
  // m x n_classes: each class's share of the (weighted) vote; rows sum to 1.
  arma::mat predict_proba(const arma::mat& X) const;
  // Regression: m x t (weighted) mean targets of the neighbours.
  arma::mat predict_values(const arma::mat& X) const;

  // The same, from neighbours already found (their first k columns, k <= their
  // width; 0: params.k). `proba`, when given, receives the vote shares.
  Labels vote(const Neighbors& nb, std::size_t k = 0, arma::mat* proba = nullptr) const;
  arma::mat average(const Neighbors& nb, std::size_t k = 0) const;
  // Search by shards of the training set (MPI ranks): shard_rows(part,
  // parts) is part's contiguous block [first, second) of the training rows (every row
  // in exactly one part; a part may be empty); shard(begin, end) a model whose
  // training set is rows [begin, end) of this one (begin < end), whose kneighbors
  // number rows from 0 at `begin`; knn::merge then gives, from every shard's
  // neighbours (shifted to this model's rows), exactly kneighbors' neighbours: the
  // distance of a pair does not depend on the other rows (metric: exact_key; kernel:
  // a shard's boundaries fall on the search's blocks of kKernelBlockRows rows, so each
  // Gram block is the same product of the same operands), and the order (the search's
  // key, then the row) is total.
  std::pair<std::size_t, std::size_t> shard_rows(std::size_t part, std::size_t parts) const;
  Knn shard(std::size_t begin, std::size_t end) const;
  // The kernel search's training rows per Gram block.
  static constexpr std::size_t kKernelBlockRows = 2048;
  // From now on, kneighbors (and so every prediction) searches by shards over the
  // ranks of `comm`: this rank its shard_rows(rank, size), then every rank gets the
  // merged neighbours (allgather: each rank's m x min(k, shard) candidates), the same
  // as one process's search. Collective: every rank must make the same calls, on the
  // same queries. A rank whose search fails stops them all (agree). One rank: no-op.
  void search_over(const Communicator& comm);

  // One search: the classes and vote shares (classification), or the averages.
  TaskPrediction predict_task(const arma::mat& X) const;
  // The same from neighbours already found (predict --neighbors: one search for both).
  TaskPrediction predict_task(const Neighbors& nb) const;

  // Higher is better: accuracy (classification), R² (regression).
  double score(const arma::mat& X, const Labels& y) const;
  double score(const arma::mat& X, const arma::mat& Y) const;

  bool is_fitted() const { return !X_.is_empty(); }
  bool is_regression() const { return params_.regression; }
  bool is_classification() const { return !params_.regression; }
  std::size_t n_features() const { return X_.n_cols; }
  std::size_t n_train() const { return X_.n_rows; }
  std::size_t n_classes() const { return n_classes_; }
  std::size_t n_targets() const { return Y_.n_cols; }
  const Params& params() const { return params_; }
  // Resolved: brute or kdtree (a kernel distance is always brute force).
  knn::Algorithm algorithm() const { return params_.kernel ? knn::Algorithm::brute : index_.algorithm(); }
  const arma::mat& training_data() const { return X_; }  // n x p, standardized if so fitted
  const Standardizer& scaler() const { return scaler_; }

  void save(io::ModelWriter& out) const;
  static Knn load(const io::ModelReader& in);

 private:
  void check_params(std::size_t n) const;
  void require_fitted() const;
  std::size_t resolve_k(const Neighbors& nb, std::size_t k) const;
  // Neighbour weights of query row i (k entries); exact matches take the whole vote.
  void weights(const Neighbors& nb, arma::uword i, std::size_t k, double* w) const;
  void fit_features(const arma::mat& X);  // validates, standardizes, builds the search
  void build_index();
  Neighbors kernel_search(const arma::mat& Z, std::size_t k) const;

  Params params_;
  Standardizer scaler_;      // fitted only with standardize
  arma::mat X_;              // n x p training features (standardized if so fitted)
  Labels y_;                 // n class indices (classification)
  arma::mat Y_;              // n x t targets (regression)
  std::size_t n_classes_ = 0;
  knn::SearchIndex index_;   // metric search (no kernel)
  // Under search_over: the world, and this rank's shard (null when empty) and its
  // first training row.
  const Communicator* comm_ = nullptr;
  std::shared_ptr<const Knn> shard_;
  std::size_t shard_begin_ = 0;
  Kernel kernel_;            // with a kernel
  arma::vec kernel_diag_;    // n: k(x_i, x_i) of the training rows
};

static_assert(TaskByParameter<Knn>);

}  // namespace mlt
