// Points for k-means' passes, in memory or re-read (kmeans/source.hpp).
#include "mlt/kmeans/source.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/log.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/io/number_format.hpp"

namespace mlt::kmeans {

using arma::uword;

void ColumnMoments::add(const arma::mat& B) {
  const uword m = B.n_rows, p = B.n_cols;
  if (m == 0) return;
  if (n_ == 0) {
    mean_.zeros(p);
    m2_.zeros(p);
    col_max_.zeros(p);
    first_ = B.row(0);
    varies_.zeros(p);
  } else if (p != mean_.n_elem) {
    throw Error("internal: ColumnMoments::add of rows of another width", kExitSoftware);
  }
  // Columns are independent: one task each, each a sequential recurrence in row order.
  parallel_for(p, [&](std::size_t j) {
    const double* x = B.colptr(j);
    double mean = mean_[j], m2 = m2_[j], top = col_max_[j];
    bool varies = varies_[j] != 0;
    const double first = first_[j];
    for (uword i = 0; i < m; ++i) {
      const double count = static_cast<double>(n_ + i + 1);
      const double delta = x[i] - mean;
      mean += delta / count;
      m2 += delta * (x[i] - mean);
      top = std::max(top, std::abs(x[i]));
      varies = varies || x[i] != first;
    }
    mean_[j] = mean;
    m2_[j] = m2;
    col_max_[j] = top;
    varies_[j] = varies;
  });
  n_ += m;
  max_abs_ = col_max_.max();
}

arma::rowvec ColumnMoments::scale() const {
  arma::rowvec s = arma::sqrt(m2_ / static_cast<double>(n_));
  // Standardizer's rule (standardizer.cpp): the rounding noise of equal values is a
  // few ulps of |x|, so an sd at or below 10 ε |x|max is no spread at all.
  constexpr double tolerance = 10 * std::numeric_limits<double>::epsilon();
  for (uword j = 0; j < s.n_elem; ++j) {
    if (s[j] > tolerance * col_max_[j] && s[j] >= std::numeric_limits<double>::min()) continue;
    if (varies_[j]) {
      std::string m = "feature " + std::to_string(j + 1) + " varies only by rounding noise (sd ";
      io::append_number(m, s[j]);
      m += ", largest |x| ";
      io::append_number(m, col_max_[j]);
      warn(m + "): treated as constant, centred but not scaled");
    }
    s[j] = 1.0;
  }
  return s;
}

std::vector<double> ColumnMoments::to_doubles() const {
  std::vector<double> v = {static_cast<double>(p()), static_cast<double>(n_)};
  if (n_ == 0) return v;
  for (const arma::rowvec* r : {&mean_, &m2_, &col_max_, &first_}) v.insert(v.end(), r->begin(), r->end());
  for (uword j = 0; j < p(); ++j) v.push_back(static_cast<double>(varies_[j]));
  return v;
}

ColumnMoments ColumnMoments::from_doubles(const std::vector<double>& v) {
  ColumnMoments m;
  if (v.size() < 2 || (v[1] > 0 && v.size() != 2 + 5 * static_cast<std::size_t>(v[0])))
    throw Error("internal: a column moments state of " + std::to_string(v.size()) + " doubles", kExitSoftware);
  m.n_ = static_cast<std::size_t>(v[1]);
  if (m.n_ == 0) return m;
  const uword p = static_cast<uword>(v[0]);
  auto part = [&](std::size_t i) { return arma::rowvec(v.data() + 2 + i * p, p); };
  m.mean_ = part(0);
  m.m2_ = part(1);
  m.col_max_ = part(2);
  m.first_ = part(3);
  m.varies_ = arma::conv_to<arma::uvec>::from(part(4));
  m.max_abs_ = m.col_max_.max();
  return m;
}

arma::mat BlockSource::fetch(const arma::uvec& rows) {
  arma::mat out(p_, rows.n_elem);
  if (rows.is_empty()) return out;
  // Wanted rows in order of position, so the visit can stop after the last.
  const arma::uvec order = arma::stable_sort_index(rows);
  uword next = 0;
  visit([&](const Points& P, uword first) {
    const uword end = first + P.n();
    while (next < order.n_elem && rows[order[next]] < end) {
      out.col(order[next]) = P.Xt.col(rows[order[next]] - first);
      ++next;
    }
    return next < order.n_elem;
  });
  if (next < order.n_elem) throw Error("internal: BlockSource::fetch of a row past the end", kExitSoftware);
  return out;
}

void MemorySource::for_each_block(const Chunking& ch, const BlockWork& work) {
  parallel_for(ch.n_chunks, [&](std::size_t c) {
    for (uword r0 = ch.begin(c); r0 < ch.end(c); r0 += ch.block) work(c, P_, r0, r0, std::min(ch.block, ch.end(c) - r0));
  });
}

StreamSource::StreamSource(RowPasses open, std::size_t n, std::size_t p, arma::rowvec shift, arma::rowvec scale)
    : open_(std::move(open)), shift_(std::move(shift)), scale_(std::move(scale)) {
  n_ = n;
  p_ = p;
}

RowChunks StreamSource::open() {
  ++passes_;
  return open_();
}

void StreamSource::check_rows(std::size_t rows, bool width_changed) const {
  const std::string changed = "the data changed while k-means was reading it: pass " + std::to_string(passes_);
  if (width_changed) throw DataError(changed + " found rows of another width");
  if (rows != n_)
    throw DataError(changed + " found " + (rows > n_ ? "more than " : "") + std::to_string(rows) +
                    " rows, the first pass " + std::to_string(n_));
}

void StreamSource::visit(const std::function<bool(const Points&, uword)>& fn) {
  const RowChunks next = open();
  uword first = 0;
  while (const RowChunk* chunk = next()) {
    const arma::mat& X = chunk->X;
    if (X.n_rows > 0 && X.n_cols != p_) check_rows(0, true);
    if (first + X.n_rows > n_) check_rows(first + X.n_rows);
    if (!fn(make_points(X, shift_, scale_), first)) return;
    first += X.n_rows;
  }
  check_rows(first);
}

void StreamSource::for_each_block(const Chunking& ch, const BlockWork& work) {
  const RowChunks next = open();
  arma::mat pending(0, p_);  // rows read but not yet in a complete block
  uword start = 0;            // global index of pending's first row
  std::size_t c = 0;          // the chunk of the next block
  while (const RowChunk* chunk = next()) {
    const arma::mat& X = chunk->X;
    if (X.n_rows > 0 && X.n_cols != p_) check_rows(0, true);
    if (start + pending.n_rows + X.n_rows > n_) check_rows(start + pending.n_rows + X.n_rows);
    // The rows not yet in a block: the chunk itself (the source's, not copied), after
    // the last chunk's leftover if there is one.
    arma::mat joined;
    if (!pending.is_empty()) joined = arma::join_cols(pending, X);
    const arma::mat& rows = pending.is_empty() ? X : joined;
    const uword have = start + rows.n_rows;
    // The complete blocks among the rows held, grouped by chunk: (chunk, first, end).
    struct Block {
      std::size_t c;
      uword begin, end;
    };
    std::vector<Block> blocks;
    uword at = start;
    while (c < ch.n_chunks) {
      const uword end = std::min(at + ch.block, ch.end(c));
      if (end > have) break;
      blocks.push_back({c, at, end});
      at = end;
      if (at == ch.end(c)) ++c;
    }
    if (blocks.empty()) {
      if (pending.is_empty()) pending = X;
      else pending = std::move(joined);
      continue;
    }
    const Points P = at - start == rows.n_rows ? make_points(rows, shift_, scale_)
                                               : make_points(rows.rows(0, at - start - 1), shift_, scale_);
    std::vector<std::pair<std::size_t, std::size_t>> groups;  // [first, last) blocks of one chunk
    for (std::size_t b = 0; b < blocks.size(); ++b)
      if (b == 0 || blocks[b].c != blocks[b - 1].c) groups.emplace_back(b, b + 1);
      else groups.back().second = b + 1;
    parallel_for(groups.size(), [&](std::size_t g) {
      for (std::size_t b = groups[g].first; b < groups[g].second; ++b)
        work(blocks[b].c, P, blocks[b].begin - start, blocks[b].begin, blocks[b].end - blocks[b].begin);
    });
    pending = at - start < rows.n_rows ? arma::mat(rows.rows(at - start, rows.n_rows - 1)) : arma::mat(0, p_);
    start = at;
  }
  check_rows(start + pending.n_rows);
}

std::size_t distinct_points(BlockSource& src, std::size_t stop_at) {
  // Value order on coordinates: -0 and 0 compare equal, and there are no NaNs.
  std::set<std::vector<double>> seen;
  src.visit([&](const Points& P, uword) {
    for (uword i = 0; i < P.n(); ++i) {
      seen.emplace(P.Xt.colptr(i), P.Xt.colptr(i) + P.p());
      if (stop_at && seen.size() >= stop_at) return false;
    }
    return true;
  });
  return seen.size();
}

}  // namespace mlt::kmeans
