// Column means and centred scatter of rows seen a chunk at a time: what pca and ridge
// need of their data, in O(p²) memory whatever the number of rows.
//
// Each chunk B (m x p) is reduced to its own mean b̄ and centred scatter
// S_B = (B − 1b̄)ᵀ(B − 1b̄) (one syrk), and merged into the running (n, x̄, S) by the
// pairwise update of Chan, Golub & LeVeque ("Algorithms for computing the sample
// variance", The American Statistician 37, 1983; eq. 2.1 for the matrix case):
//     δ = b̄ − x̄,  n' = n + m,  x̄' = x̄ + δ m / n',  S' = S + S_B + δᵀδ n m / n'.
// Every term is a sum of centred products, so nothing cancels: the textbook
// XᵀX − n x̄ᵀx̄ loses every digit of a column whose mean is large against its spread
// (a timestamp, a price), and this does not. merge() combines two accumulators the
// same way, which is all an MPI reduction of it needs (merge_ranks).
//
// Rounding: each entry of S is a sum of n products, so against the exact scatter it
// is off by at most about n ε Σᵢ |x̄ᵢⱼ x̄ᵢₖ| <= n ε sqrt(Sⱼⱼ Sₖₖ) (the summation bound
// γₙ, Higham, Accuracy and Stability, §3.1); two summation orders (the in-memory fit
// and this) differ by at most twice that, and in practice by about sqrt(n) ε of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "mlt/core/distributed.hpp"
#include "mlt/core/types.hpp"

namespace mlt {

// A chunk of rows: X (m x p, m >= 1) and, for a supervised fit, Y (m x t; empty for
// an unsupervised one).
struct RowChunk {
  arma::mat X, Y;
  // The source holds this chunk, unchanged, for all its passes (a rank's part read
  // many times): a fit may keep what it derives from it (its standardized rows) from
  // one pass to the next, as an in-memory fit keeps its standardized copy.
  bool held = false;
};

// Rows handed to a streaming fit a chunk at a time: the next chunk, or null at the
// end. The chunk is the source's, read-only and valid until the next call: a source
// that holds its rows in memory (a rank's part read many times) hands them out as
// they are, without a copy, so a fit that transforms a chunk writes its own matrix.
// Errors in the rows are the source's to throw, with their file:line.
using RowChunks = std::function<const RowChunk*()>;

class ScatterAccumulator {
 public:
  explicit ScatterAccumulator(std::size_t p = 0);

  // B: m x p rows (m may be 0).
  void add(const arma::mat& B);
  // Combines another accumulator of the same width (the rows of both, in any order);
  // an empty one (no rows) of any width changes nothing.
  void merge(const ScatterAccumulator& other);
  // The state as doubles, and back (to send it between ranks): p, n, the mean,
  // max_abs, the first row, varies (p each) and S's upper triangle (p(p + 1)/2),
  // 2 + 4p + p(p + 1)/2 in all. n travels exactly up to 2⁵³ rows.
  std::vector<double> to_doubles() const;
  static ScatterAccumulator from_doubles(const std::vector<double>& v);

  std::uint64_t n() const { return n_; }
  std::size_t p() const { return mean_.n_elem; }
  const arma::rowvec& mean() const { return mean_; }       // 1 x p
  arma::mat scatter() const;                               // p x p, symmetric
  const arma::rowvec& max_abs() const { return max_abs_; }  // 1 x p: largest |x| per column
  // Whether column j holds two different values (a column can have a tiny nonzero
  // spread from rounding alone; the Standardizer tells the two apart).
  bool varies(std::size_t j) const { return varies_[j] != 0; }

 private:
  std::uint64_t n_ = 0;
  arma::rowvec mean_;
  arma::mat scatter_;    // upper triangle kept
  arma::rowvec max_abs_;
  arma::rowvec first_;   // the first row seen
  arma::uvec varies_;
};

// Every rank's accumulator, merged in rank order on rank 0 and sent back to all: the
// same state, bit for bit, on every rank, and the same for any run of the same parts.
// A rank may bring an empty accumulator (no rows). One gather and one broadcast of
// 2 + 4p + p(p + 1)/2 doubles per rank. Single process: `local` itself.
ScatterAccumulator merge_ranks(const ScatterAccumulator& local, const Communicator& comm);

}  // namespace mlt
