// Where k-means' passes get their points: all in memory, or re-read from a file a
// chunk at a time (`mlt kmeans fit --stream`). The seedings and Lloyd
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
// the same too: ColumnMoments sums exactly, so neither the chunks nor their order
// matter, where arma::mean / Standardizer round in an order of their own.
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

#include "mlt/core/exact_sum.hpp"
#include "mlt/core/row_passes.hpp"
#include "mlt/core/types.hpp"
#include "mlt/kmeans/assign.hpp"

namespace mlt::kmeans {

// Column means (and population standard deviations) from exact sums of x and x²
// (core/exact_sum.hpp): the result depends on the rows alone, not on their order or on
// how they are cut into chunks, threads or ranks, so a streamed fit and each rank of a
// data-parallel one centre their rows to the same bits as the in-memory fit. The mean
// is the exact sum divided by n (to nearest, but for the last of a double-double
// division); the variance comes from the exact Σx² and Σx in double-double, so it
// loses digits only to a mean some 10^8 times the spread. One pass over the data.
class ColumnMoments {
 public:
  // with_scale: also the sums of squares that scale() needs (twice the cost of a pass
  // that only centres).
  explicit ColumnMoments(bool with_scale = true) : with_scale_(with_scale) {}
  // B: m x p, more rows, finite.
  void add(const arma::mat& B);
  // The moments of both sets of rows, exactly.
  void merge(const ColumnMoments& other);
  std::size_t n() const { return n_; }
  std::size_t p() const { return sum_.size(); }
  arma::rowvec mean() const;
  double max_abs() const;  // over all values (0 before any)
  // ddof 0, as Standardizer; a column constant up to rounding noise (sd at most
  // 10 ε x its largest |x|) gets 1, with a warning when it does hold different values.
  // A DataError if a column's spread overflows a double.
  arma::rowvec scale() const;
  // The state as bytes and back, exactly: to merge the moments of the ranks.
  std::string to_bytes() const;
  static ColumnMoments from_bytes(const std::string& bytes);

 private:
  bool with_scale_;
  std::size_t n_ = 0;
  std::vector<ExactSum> sum_, sum_sq_;  // per column
  arma::rowvec min_, max_;
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

// The rows re-read on every pass; n is that of the first pass (the one that counts), and a
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
