// Exact k-nearest-neighbour search over a fixed set of reference points, by brute
// force (blocked BLAS for the Euclidean and cosine metrics) or by a k-d tree.
//
// Both algorithms return the SAME neighbours and the SAME distances: every reported
// distance is computed by one function (exact_key below, the plain coordinate loop),
// and neighbours are ordered by (distance, reference row), so equal distances list the
// lowest row first. The brute-force Gram-matrix expansion ||x||² - 2 x·y + ||y||² is
// only used to discard points that provably cannot be among the k nearest; the
// survivors are re-ranked with exact_key. The k-d tree prunes a box only when a lower
// bound of exact_key over the box, computed with the same floating-point operations,
// is strictly larger than the current k-th distance.
//
// Because the order is total, the k nearest are a prefix of the k' > k nearest: one
// search with the largest k serves every smaller k (cross-validation over k).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>

#include "mlt/core/types.hpp"
#include "mlt/core/names.hpp"

namespace mlt::knn {

enum class Metric { euclidean, manhattan, chebyshev, cosine };
enum class Algorithm { automatic, brute, kdtree };

inline constexpr NameTable<Metric, 4> kMetricNames{
    "metric",
    {{{Metric::euclidean, "euclidean"}, {Metric::manhattan, "manhattan"}, {Metric::chebyshev, "chebyshev"}, {Metric::cosine, "cosine"}}}};
constexpr const auto& name_table(Metric) { return kMetricNames; }
inline constexpr NameTable<Algorithm, 3> kAlgorithmNames{
    "algorithm", {{{Algorithm::automatic, "auto"}, {Algorithm::brute, "brute"}, {Algorithm::kdtree, "kdtree"}}}};
constexpr const auto& name_table(Algorithm) { return kAlgorithmNames; }

// The k nearest reference points of each query, nearest first.
struct Neighbors {
  arma::umat index;    // m x k, 0-based reference rows
  arma::mat distance;  // m x k, in the metric's units (Euclidean: not squared;
                       // cosine: 1 - cos(x, y)), non-decreasing along each row
  // m x k: the key the search orders by (Euclidean and kernel distances: the squared
  // distance; otherwise `distance` itself). Two keys can round to one square root, so
  // results are merged (knn::merge) by key, never by distance.
  arma::mat key;
};

class SearchIndex {
 public:
  SearchIndex() = default;
  // data: n x p, one reference point per row, finite. With the cosine metric no row
  // may be all zeros (DataError: the angle is undefined). `automatic` picks the k-d
  // tree in low dimensions (p <= kKdTreeMaxDims) and brute force otherwise.
  SearchIndex(const arma::mat& data, Metric metric, Algorithm algorithm);

  // queries: m x p -> the k nearest of each, 1 <= k <= n (DataError otherwise).
  // Multi-threaded over queries (mlt::thread_count()); the result does not depend on
  // the number of threads.
  Neighbors search(const arma::mat& queries, std::size_t k) const;

  Algorithm algorithm() const { return algorithm_; }  // resolved: brute or kdtree
  Metric metric() const { return metric_; }
  std::size_t size() const { return points_.n_cols; }
  std::size_t n_dims() const { return points_.n_rows; }

  static constexpr std::size_t kKdTreeMaxDims = 12;

 private:
  struct Node {
    arma::uword begin, end;  // points tree_points_ columns [begin, end)
    long left = -1, right = -1;
  };

  void build_tree();
  long build_node(arma::uword begin, arma::uword end);
  arma::uvec query_order(const arma::mat& Qt) const;
  void search_brute_gemm(const arma::mat& Qt, const arma::uvec& rows, std::size_t k, Neighbors& out) const;
  template <typename Precision, typename QMat>
  void filter_and_rank(const arma::mat& Qt, const arma::mat& Qc, const QMat& Qp, const arma::rowvec& qn,
                       std::size_t k, const arma::uvec& rows, Neighbors& out) const;
  void search_brute_direct(const arma::mat& Qt, std::size_t k, arma::uword q0, arma::uword q1, Neighbors& out) const;
  void search_tree(const arma::mat& Qt, std::size_t k, arma::uword q0, arma::uword q1, Neighbors& out) const;
  arma::mat prepare_queries(const arma::mat& queries) const;  // -> p x m (normalized for cosine)

  Metric metric_ = Metric::euclidean;
  Algorithm algorithm_ = Algorithm::brute;
  arma::mat points_;        // p x n, one point per column (unit length for cosine)

  // Brute force through BLAS (euclidean, cosine): centred copy and its squared norms,
  // reordered so that each block of kReferenceBlock columns holds nearby points.
  // Built on the first search, not with the index: a model that is fitted only to be
  // saved never needs it. Shared by copies of the index (it only depends on points_).
  struct BruteData {
    arma::vec mean_;          // p, mean of points_
    arma::mat centred_;       // p x n, column t is the centred reference row block_order_[t]
    arma::vec norms2_;        // n, squared norms of the centred points (same order)
    double max_norm2_ = 0;
    arma::fmat centred_f_;    // the same in single precision, for the filtering GEMM
    arma::fvec norms2_f_;
    arma::uvec block_order_;  // n
    arma::mat block_centre_;  // p x n_blocks: mean of each block's centred points
    arma::vec block_centre_norm2_;  // n_blocks
    arma::vec block_radius_;  // n_blocks: an upper bound of max ||x - centre|| over the block
  };
  struct LazyBrute {
    std::once_flag once;
    BruteData data;
  };
  const BruteData& brute() const;
  void build_brute(BruteData& B) const;
  void build_blocks(BruteData& B) const;
  std::shared_ptr<LazyBrute> brute_ = std::make_shared<LazyBrute>();

  // k-d tree: points reordered so every node's points are contiguous.
  arma::mat tree_points_;   // p x n
  arma::uvec tree_order_;   // tree_points_ column t is reference row tree_order_[t]
  std::vector<Node> nodes_;
  arma::mat lo_, hi_;       // p x n_nodes bounding boxes
};

}  // namespace mlt::knn
