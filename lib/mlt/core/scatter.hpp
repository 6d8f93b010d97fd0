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
#include <algorithm>
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

// A pass over n rows held in memory, by blocks of about 256 KiB of rows of `width`
// doubles (still in the core's L2 cache for a second product over the same rows),
// the blocks grouped into parts whose sums (`part_doubles` each) are kept apart and
// added in part order: at most 8 parts (several per thread, so a slow core is not
// waited for) and 64 MiB of sums. From the shapes alone, never the thread count, so
// the sums are the same for any --threads (the rule of core/parallel.hpp).
struct RowBlocks {
  RowBlocks(arma::uword n_rows, arma::uword width, double part_doubles);
  arma::uword n, rows_per_block, n_blocks;
  std::size_t n_parts;
  // Block b's rows: [first_row(b), first_row(b) + rows(b)).
  arma::uword first_row(arma::uword b) const { return b * rows_per_block; }
  arma::uword rows(arma::uword b) const { return std::min(n, first_row(b) + rows_per_block) - first_row(b); }
  // Part k's blocks: [first_block(k), first_block(k + 1)).
  arma::uword first_block(std::size_t k) const { return static_cast<arma::uword>(n_blocks * k / n_parts); }
};

// arma::mean(X, 0), bit for bit (each column's mean is computed as Armadillo does),
// with the columns shared among the threads when X is large.
arma::rowvec column_means(const arma::mat& X);

// The centred cross products of rows held in memory, which pca's and ridge's
// in-memory fits solve with:
//     ZᵀZ (p x p, symmetric) and ZᵀW (p x t),
//     Z = (X − 1 shift) D⁻¹  (D = diag(scale); no division without `scale`),
//     W = Y − 1 y_shift      (no ZᵀW without Y),
// one read of X and no copy of it: blocks of rows are centred into a buffer that
// stays in the core's cache, each followed by one syrk (and one gemm). The blocks
// are grouped into a fixed number of parts, a function of n, p and t only, never of
// the thread count (the determinism rule of core/parallel.hpp): the parts run on the
// threads with BLAS single-threaded and their sums are added in part order. Why not
// one syrk over X on a threaded BLAS: OpenBLAS divides a syrk among its threads by
// the p x p output, not by the n rows, so for tall data one core does nearly all of
// it (measured on two cores: one 1e6 x 100 syrk 0.25 s, each half on its own core
// 0.125 s). Centred first because XᵀX − n x̄ᵀx̄ cancels (see ScatterAccumulator).
// Cost: n p (p + 1) + 2 n p t flops; memory: up to kMaxParts x p (p + t) doubles
// (64 MiB at most; one part above that, with BLAS threaded within it) plus a block
// of rows per thread.
struct CentredProducts {
  arma::mat zz;  // p x p, symmetric
  arma::mat zw;  // p x t; empty without Y
};
CentredProducts centred_products(const arma::mat& X, const arma::rowvec& shift, const arma::rowvec* scale,
                                 const arma::mat* Y = nullptr, const arma::rowvec* y_shift = nullptr);

// Every rank's accumulator, merged in rank order on rank 0 and sent back to all: the
// same state, bit for bit, on every rank, and the same for any run of the same parts.
// A rank may bring an empty accumulator (no rows). One gather and one broadcast of
// 2 + 4p + p(p + 1)/2 doubles per rank. Single process: `local` itself.
ScatterAccumulator merge_ranks(const ScatterAccumulator& local, const Communicator& comm);

}  // namespace mlt
