// Where k-means' passes get their points: all in memory, or re-read from a file a
// chunk at a time (`mlt kmeans fit --stream`, issue #16). The seedings and Lloyd
// (kmeans/seeding.cpp, kmeans.cpp) are written once against BlockSource, so the
// streamed fit is the in-memory one with the data re-read on every pass, not another
// algorithm.
//
// Why the two give the same bits. Every sum the fit makes is a per-chunk partial,
// accumulated row by row in row order, and the partials are combined in chunk order
// (kmeans/assign.hpp, Chunking). A Chunking depends only on (n, p, k), and its chunks
// and GEMM blocks are ranges of global row indices: StreamSource cuts the rows it reads
// at exactly those boundaries, carrying an unfinished block into the next read, and
// hands each block to the same per-block code, blocks of one chunk in order. So the
// screen is the same BLAS call on the same operands (the D² weights of k-means++ come
// from it), every assignment is the exact nearest centre (kmeans::assign) and every
// partial sum adds the same values in the same order. The centring (and scaling) is
// made the same way too: ColumnMoments runs one sequential recurrence per column in row
// order, whatever the chunks, instead of arma::mean / Standardizer (whose summation
// order is Armadillo's).
//
// What a pass costs a streamed fit: one read of the file. Fetching rows (the seeds,
// a candidate, a teleported centre) reads it up to the last row wanted: a seeding
// draws rows from weights over all of them, so row indices are known only after a
// pass, and their coordinates need another (partial) read.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "mlt/core/row_passes.hpp"
#include "mlt/core/types.hpp"
#include "mlt/kmeans/assign.hpp"

namespace mlt::kmeans {

// Column means (and population standard deviations) by Welford's recurrence, one
// column at a time in row order: the result depends on the rows and their order, not
// on how they are cut into chunks.
class ColumnMoments {
 public:
  // B: m x p, the next rows.
  void add(const arma::mat& B);
  std::size_t n() const { return n_; }
  std::size_t p() const { return mean_.n_elem; }
  const arma::rowvec& mean() const { return mean_; }
  double max_abs() const { return max_abs_; }  // over all values
  // ddof 0, as Standardizer; a column constant up to rounding noise (sd at most
  // 10 ε x its largest |x|) gets 1, with a warning when it does hold different values.
  arma::rowvec scale() const;
  // The state as doubles and back, exactly (n up to 2⁵³): to continue the recurrence
  // on the next rank (kmeans/ranks.hpp, fold_in_rank_order). 2 + 5p doubles.
  std::vector<double> to_doubles() const;
  static ColumnMoments from_doubles(const std::vector<double>& v);

 private:
  std::size_t n_ = 0;
  arma::rowvec mean_, m2_, col_max_, first_;
  arma::uvec varies_;
  double max_abs_ = 0;
};

// The points of a fit, prepared as kmeans/assign.hpp's Points ((x − shift) / scale).
class BlockSource {
 public:
  virtual ~BlockSource() = default;
  std::size_t n() const { return n_; }
  std::size_t p() const { return p_; }

  // The rows in order, a batch at a time: fn(points of the batch, global index of its
  // first row); fn returns false to stop early.
  virtual void visit(const std::function<bool(const Points&, arma::uword first)>& fn) = 0;
  // Every GEMM block of ch: work(c, P, r, g, m) for rows g .. g+m (global) of chunk c,
  // at column r of P. The blocks of a chunk come in order on one thread; different
  // chunks may run in parallel.
  using BlockWork = std::function<void(std::size_t c, const Points& P, arma::uword r, arma::uword g, arma::uword m)>;
  virtual void for_each_block(const Chunking& ch, const BlockWork& work) = 0;
  // The points of the given rows, p x rows.n_elem, in that order.
  virtual arma::mat fetch(const arma::uvec& rows);

 protected:
  std::size_t n_ = 0, p_ = 0;
};

// All the points in memory.
class MemorySource final : public BlockSource {
 public:
  explicit MemorySource(const Points& P) : P_(P) {
    n_ = P.n();
    p_ = P.p();
  }
  void visit(const std::function<bool(const Points&, arma::uword)>& fn) override { fn(P_, 0); }
  void for_each_block(const Chunking& ch, const BlockWork& work) override;
  arma::mat fetch(const arma::uvec& rows) override { return P_.Xt.cols(rows); }

 private:
  const Points& P_;
};

// The rows re-read on every pass; n is that of the first pass (ColumnMoments), and a
// pass that finds another count stops with a DataError (the file changed).
class StreamSource final : public BlockSource {
 public:
  StreamSource(RowPasses open, std::size_t n, std::size_t p, arma::rowvec shift, arma::rowvec scale);
  void visit(const std::function<bool(const Points&, arma::uword)>& fn) override;
  void for_each_block(const Chunking& ch, const BlockWork& work) override;
  std::size_t passes() const { return passes_; }  // passes opened so far

 private:
  RowChunks open();
  void check_rows(std::size_t rows, bool width_changed = false) const;
  RowPasses open_;
  arma::rowvec shift_, scale_;
  std::size_t passes_ = 0;
};

// Number of distinct points, counting at most up to `stop_at`, in one (partial) visit.
std::size_t distinct_points(BlockSource& src, std::size_t stop_at);

}  // namespace mlt::kmeans
