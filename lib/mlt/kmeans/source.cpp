// Points for k-means' passes, in memory or re-read (kmeans/source.hpp).
#include "mlt/kmeans/source.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
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
    sum_.assign(p, ExactSum());
    sum_sq_.assign(with_scale_ ? p : 0, ExactSum());
    min_.set_size(p);
    min_.fill(arma::datum::inf);
    max_.set_size(p);
    max_.fill(-arma::datum::inf);
  } else if (p != sum_.size()) {
    throw Error("internal: ColumnMoments::add of rows of another width", kExitSoftware);
  }
  // Columns are independent: one task each (the sums are exact, so any split would do).
  parallel_for(p, [&](std::size_t j) {
    const double* x = B.colptr(j);
    ExactSum& sum = sum_[j];
    double low = min_[j], high = max_[j];
    for (uword i = 0; i < m; ++i) {
      sum.add(x[i]);
      low = std::min(low, x[i]);
      high = std::max(high, x[i]);
    }
    min_[j] = low;
    max_[j] = high;
    if (!with_scale_) return;
    ExactSum& sum_sq = sum_sq_[j];
    for (uword i = 0; i < m; ++i) sum_sq.add_product(x[i], x[i]);
  });
  n_ += m;
}

void ColumnMoments::merge(const ColumnMoments& other) {
  if (other.with_scale_ != with_scale_) throw Error("internal: ColumnMoments::merge of another kind", kExitSoftware);
  if (other.n_ == 0) return;
  if (n_ == 0) {
    *this = other;
    return;
  }
  if (other.p() != p()) throw Error("internal: ColumnMoments::merge of rows of another width", kExitSoftware);
  for (std::size_t j = 0; j < p(); ++j) {
    sum_[j].merge(other.sum_[j]);
    if (with_scale_) sum_sq_[j].merge(other.sum_sq_[j]);
  }
  min_ = arma::min(min_, other.min_);
  max_ = arma::max(max_, other.max_);
  n_ += other.n_;
}

namespace {

// Σ / n for an exact sum Σ, to nearest but for the last rounding of a double-double
// quotient: (hi + lo) / n as q + r.
void quotient(const ExactSum& sum, double n, double& q, double& r) {
  double hi, lo;
  sum.value2(hi, lo);
  q = hi / n;
  r = (std::fma(-q, n, hi) + lo) / n;  // fma: hi − q·n exactly
}

}  // namespace

arma::rowvec ColumnMoments::mean() const {
  arma::rowvec mean(p());
  for (std::size_t j = 0; j < p(); ++j) {
    double q, r;
    quotient(sum_[j], static_cast<double>(n_), q, r);
    mean[j] = q + r;
  }
  return mean;
}

double ColumnMoments::max_abs() const {
  return n_ == 0 ? 0.0 : std::max(arma::abs(min_).max(), arma::abs(max_).max());
}

arma::rowvec ColumnMoments::scale() const {
  if (!with_scale_) throw Error("internal: ColumnMoments::scale without the sums of squares", kExitSoftware);
  const double n = static_cast<double>(n_);
  arma::rowvec s(p());
  for (std::size_t j = 0; j < p(); ++j) {
    // Var = Σx²/n − (Σx/n)², both terms in double-double: exact but for ~2^-104 of the
    // squared mean, which cancels against the first term only in its leading digits.
    double mean, mean_rest, square, square_rest;
    quotient(sum_[j], n, mean, mean_rest);
    quotient(sum_sq_[j], n, square, square_rest);
    if (!std::isfinite(square))
      throw DataError("feature " + std::to_string(j + 1) +
                      ": the sum of its squares overflows a double; rescale the data");
    const double mean2 = mean * mean;
    const double mean2_rest = std::fma(mean, mean, -mean2) + 2 * mean * mean_rest;
    const double variance = (square - mean2) + (square_rest - mean2_rest);
    s[j] = variance > 0 ? std::sqrt(variance) : 0.0;
  }
  // Standardizer's rule (standardizer.cpp): the rounding noise of equal values is a
  // few ulps of |x|, so an sd at or below 10 ε |x|max is no spread at all.
  constexpr double tolerance = 10 * std::numeric_limits<double>::epsilon();
  for (uword j = 0; j < s.n_elem; ++j) {
    const double largest = std::max(std::abs(min_[j]), std::abs(max_[j]));
    if (s[j] > tolerance * largest && s[j] >= std::numeric_limits<double>::min()) continue;
    if (min_[j] < max_[j]) {
      std::string m = "feature " + std::to_string(j + 1) + " varies only by rounding noise (sd ";
      io::append_number(m, s[j]);
      m += ", largest |x| ";
      io::append_number(m, largest);
      warn(m + "): treated as constant, centred but not scaled");
    }
    s[j] = 1.0;
  }
  return s;
}

namespace {

template <class T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <class T>
T take(const std::string& in, std::size_t& at) {
  T v;
  if (at + sizeof v > in.size()) throw Error("internal: a truncated ColumnMoments state", kExitSoftware);
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

}  // namespace

std::string ColumnMoments::to_bytes() const {
  std::string out;
  put(out, static_cast<std::uint64_t>(with_scale_));
  put(out, static_cast<std::uint64_t>(n_));
  put(out, static_cast<std::uint64_t>(p()));
  for (std::size_t j = 0; j < p(); ++j) {
    put(out, min_[j]);
    put(out, max_[j]);
    const std::string sum = sum_[j].to_bytes();
    out += sum;
    if (with_scale_) out += sum_sq_[j].to_bytes();
  }
  return out;
}

ColumnMoments ColumnMoments::from_bytes(const std::string& bytes) {
  std::size_t at = 0;
  ColumnMoments m(take<std::uint64_t>(bytes, at) != 0);
  m.n_ = take<std::uint64_t>(bytes, at);
  const auto p = static_cast<std::size_t>(take<std::uint64_t>(bytes, at));
  const std::size_t sum_bytes = ExactSum().to_bytes().size();
  if (p > bytes.size()) throw Error("internal: a ColumnMoments state of a wrong width", kExitSoftware);
  m.min_.set_size(p);
  m.max_.set_size(p);
  for (std::size_t j = 0; j < p; ++j) {
    m.min_[j] = take<double>(bytes, at);
    m.max_[j] = take<double>(bytes, at);
    for (int twice = 0; twice < (m.with_scale_ ? 2 : 1); ++twice) {
      if (at + sum_bytes > bytes.size()) throw Error("internal: a truncated ColumnMoments state", kExitSoftware);
      (twice ? m.sum_sq_ : m.sum_).push_back(ExactSum::from_bytes(bytes.substr(at, sum_bytes)));
      at += sum_bytes;
    }
  }
  if (at != bytes.size()) throw Error("internal: a ColumnMoments state with bytes to spare", kExitSoftware);
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
