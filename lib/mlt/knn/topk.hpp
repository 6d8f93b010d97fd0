// The k smallest (key, row) pairs of a stream, in the total order of kNN results:
// by key, then by row, so equal keys keep the lowest rows.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "mlt/core/error.hpp"

#include "mlt/knn/search.hpp"

namespace mlt::knn {

class TopK {
 public:
  using Entry = std::pair<double, arma::uword>;  // (key, reference row)

  explicit TopK(std::size_t k) : k_(k) { heap_.reserve(k); }
  bool full() const { return heap_.size() == k_; }
  double worst() const { return heap_.front().first; }  // the current k-th key (when full)
  void offer(double key, arma::uword row) {
    if (heap_.size() < k_) {
      heap_.emplace_back(key, row);
      std::push_heap(heap_.begin(), heap_.end());
    } else if (Entry(key, row) < heap_.front()) {
      std::pop_heap(heap_.begin(), heap_.end());
      heap_.back() = {key, row};
      std::push_heap(heap_.begin(), heap_.end());
    }
  }
  // Writes the entries, ascending, into row i of `out` and empties the heap.
  void write(arma::uword i, Neighbors& out) {
    std::sort_heap(heap_.begin(), heap_.end());
    for (std::size_t r = 0; r < heap_.size(); ++r) {
      out.distance(i, r) = heap_[r].first;
      out.index(i, r) = heap_[r].second;
    }
    heap_.clear();
  }

 private:
  std::size_t k_;
  std::vector<Entry> heap_;  // max-heap: the front is the worst kept entry
};

// The k nearest of each query among the union of `parts`: neighbours of the same m
// queries in disjoint sets of reference rows (numbered in one numbering), each part
// holding its set's min(k, set size) nearest, with their keys. Since the order (key,
// row) is total, the union's k nearest are among the parts' own, and the result is
// the search of the union itself. Parts of width 0 (an empty set) are allowed; the
// widths must add up to k at least.
inline Neighbors merge(const std::vector<Neighbors>& parts, std::size_t k) {
  arma::uword m = 0, width = 0;
  for (const Neighbors& p : parts)
    if (p.index.n_cols > 0) {
      if (p.key.n_rows != p.index.n_rows || p.key.n_cols != p.index.n_cols)
        throw Error("internal: neighbours to merge without their keys", kExitSoftware);
      m = p.index.n_rows, width += p.index.n_cols;
    }
  if (width < k)
    throw Error("internal: " + std::to_string(k) + " neighbours asked of " + std::to_string(width), kExitSoftware);
  Neighbors out;
  out.index.set_size(m, k);
  out.distance.set_size(m, k);
  out.key.set_size(m, k);
  struct Candidate {
    double key;
    arma::uword row;
    double distance;
    bool operator<(const Candidate& o) const { return key < o.key || (key == o.key && row < o.row); }
  };
  std::vector<Candidate> all;
  for (arma::uword i = 0; i < m; ++i) {
    all.clear();
    for (const Neighbors& p : parts)
      for (arma::uword j = 0; j < p.index.n_cols; ++j) all.push_back({p.key(i, j), p.index(i, j), p.distance(i, j)});
    std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k), all.end());
    for (std::size_t j = 0; j < k; ++j) {
      out.key(i, j) = all[j].key;
      out.index(i, j) = all[j].row;
      out.distance(i, j) = all[j].distance;
    }
  }
  return out;
}

}  // namespace mlt::knn
