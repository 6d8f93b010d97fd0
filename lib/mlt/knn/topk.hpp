// The k smallest (key, row) pairs of a stream, in the total order of kNN results:
// by key, then by row, so equal keys keep the lowest rows.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

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

}  // namespace mlt::knn
