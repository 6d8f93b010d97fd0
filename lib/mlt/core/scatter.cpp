#include "mlt/core/scatter.hpp"

#include <cblas.h>

#include <algorithm>

#include "mlt/core/error.hpp"
#include "mlt/core/memory.hpp"
#include "mlt/core/parallel.hpp"

namespace mlt {

namespace {
// A streamed fit's state is p x p: with its decomposition (an eigen- or Cholesky
// factorization and a copy), about four such matrices. Refused before allocating:
// 10⁶ columns would need 29 TiB.
arma::uword checked_width(std::size_t p) {
  if (p < 1000) return static_cast<arma::uword>(p);  // 32 MiB at most: no need to ask
  const double need = 4 * 8.0 * static_cast<double>(p) * static_cast<double>(p);
  const double have = available_memory();
  if (have > 0 && need > have)
    throw DataError("a streamed fit of " + std::to_string(p) + " columns keeps a " + std::to_string(p) + " x " +
                    std::to_string(p) + " scatter matrix: about " + human_bytes(need) +
                    " with its decomposition, more than the " + human_bytes(have) + " of memory available");
  return static_cast<arma::uword>(p);
}
}  // namespace

ScatterAccumulator::ScatterAccumulator(std::size_t p)
    : mean_(checked_width(p), arma::fill::zeros),
      scatter_(p, p, arma::fill::zeros),
      max_abs_(p, arma::fill::zeros),
      first_(p, arma::fill::zeros),
      varies_(p, arma::fill::zeros) {}

void ScatterAccumulator::add(const arma::mat& B) {
  if (B.n_cols != p()) throw Error("internal: ScatterAccumulator::add of a chunk of another width", kExitSoftware);
  if (B.n_rows == 0) return;
  ScatterAccumulator chunk(p());
  chunk.n_ = B.n_rows;
  chunk.mean_ = arma::mean(B, 0);
  arma::mat C = B;
  C.each_row() -= chunk.mean_;
  chunk.scatter_ = C.t() * C;  // Armadillo: syrk
  chunk.max_abs_ = arma::max(arma::abs(B), 0);
  chunk.first_ = B.row(0);
  for (arma::uword j = 0; j < p(); ++j) chunk.varies_[j] = arma::any(B.col(j) != B(0, j));
  merge(chunk);
}

void ScatterAccumulator::merge(const ScatterAccumulator& other) {
  if (other.n_ == 0) return;
  if (n_ != 0 && other.p() != p())
    throw Error("internal: ScatterAccumulator::merge of another width", kExitSoftware);
  if (n_ == 0) {
    *this = other;
    return;
  }
  const double n = static_cast<double>(n_), m = static_cast<double>(other.n_);
  const double total = n + m;
  const arma::rowvec delta = other.mean_ - mean_;
  mean_ += delta * (m / total);
  scatter_ += other.scatter_ + (delta.t() * delta) * (n * m / total);
  max_abs_ = arma::max(max_abs_, other.max_abs_);
  for (arma::uword j = 0; j < p(); ++j) varies_[j] = varies_[j] || other.varies_[j] || other.first_[j] != first_[j];
  n_ += other.n_;
}

arma::mat ScatterAccumulator::scatter() const { return arma::symmatu(scatter_); }

std::vector<double> ScatterAccumulator::to_doubles() const {
  const std::size_t width = p();
  std::vector<double> v;
  v.reserve(2 + 4 * width + width * (width + 1) / 2);
  v.push_back(static_cast<double>(width));
  v.push_back(static_cast<double>(n_));
  for (const arma::rowvec* r : {&mean_, &max_abs_, &first_}) v.insert(v.end(), r->begin(), r->end());
  for (std::size_t j = 0; j < width; ++j) v.push_back(static_cast<double>(varies_[j]));
  for (std::size_t j = 0; j < width; ++j)
    for (std::size_t i = 0; i <= j; ++i) v.push_back(scatter_(i, j));
  return v;
}

ScatterAccumulator ScatterAccumulator::from_doubles(const std::vector<double>& v) {
  const std::size_t width = v.empty() ? 0 : static_cast<std::size_t>(v[0]);
  if (v.size() < 2 || v.size() != 2 + 4 * width + width * (width + 1) / 2)
    throw Error("internal: a scatter state of " + std::to_string(v.size()) + " numbers", kExitSoftware);
  ScatterAccumulator acc(width);
  acc.n_ = static_cast<std::uint64_t>(v[1]);
  const double* at = v.data() + 2;
  for (arma::rowvec* r : {&acc.mean_, &acc.max_abs_, &acc.first_}) {
    std::copy(at, at + width, r->begin());
    at += width;
  }
  for (std::size_t j = 0; j < width; ++j) acc.varies_[j] = *at++ != 0;
  for (std::size_t j = 0; j < width; ++j)
    for (std::size_t i = 0; i <= j; ++i) acc.scatter_(i, j) = *at++;
  return acc;
}

ScatterAccumulator merge_ranks(const ScatterAccumulator& local, const Communicator& comm) {
  if (comm.size() == 1) return local;
  const std::vector<std::string> all = comm.gather(to_bytes(local.to_doubles()), 0);
  std::string merged;
  if (comm.rank() == 0) {
    ScatterAccumulator acc;
    for (const std::string& part : all) acc.merge(ScatterAccumulator::from_doubles(doubles_of(part)));
    merged = to_bytes(acc.to_doubles());
  }
  comm.broadcast(merged, 0);
  return ScatterAccumulator::from_doubles(doubles_of(merged));
}

namespace {
using blas_size = blasint;  // OpenBLAS's CBLAS integer
constexpr double kBlockBytes = 256.0 * 1024;
constexpr std::size_t kMaxParts = 8;
constexpr double kPartsBytes = 64.0 * 1024 * 1024;  // the parts' sums together
}  // namespace

RowBlocks::RowBlocks(arma::uword n_rows, arma::uword width, double part_doubles)
    : n(n_rows),
      // At least 64 rows, so that a BLAS call is not mostly overhead.
      rows_per_block(static_cast<arma::uword>(
          std::max(64.0, kBlockBytes / (8.0 * static_cast<double>(std::max<arma::uword>(width, 1)))))),
      n_blocks((n_rows + rows_per_block - 1) / rows_per_block),
      n_parts(std::clamp<std::size_t>(static_cast<std::size_t>(kPartsBytes / std::max(8.0 * part_doubles, 8.0)), 1,
                                      std::min<std::size_t>(kMaxParts, std::max<arma::uword>(n_blocks, 1)))) {}

arma::rowvec column_means(const arma::mat& X) {
  arma::rowvec means(X.n_cols);
  parallel_for(X.n_cols, [&](std::size_t j) { means[j] = arma::mean(X.unsafe_col(j)); }, workers_for(X.n_elem));
  return means;
}

CentredProducts centred_products(const arma::mat& X, const arma::rowvec& shift, const arma::rowvec* scale,
                                 const arma::mat* Y, const arma::rowvec* y_shift) {
  const arma::uword n = X.n_rows, p = X.n_cols, t = Y ? Y->n_cols : 0;
  if (shift.n_elem != p || (scale && scale->n_elem != p) || (Y && (Y->n_rows != n || !y_shift || y_shift->n_elem != t)))
    throw Error("internal: centred_products with shifts or rows of another shape", kExitSoftware);
  const RowBlocks blocks(n, p + t, static_cast<double>(p) * static_cast<double>(p + t));
  std::vector<CentredProducts> parts(blocks.n_parts);
  const auto run_part = [&](std::size_t k) {
    CentredProducts& out = parts[k];
    out.zz.zeros(p, p);
    if (t) out.zw.zeros(p, t);
    arma::mat Z, W;
    for (arma::uword b = blocks.first_block(k); b < blocks.first_block(k + 1); ++b) {
      const arma::uword r0 = blocks.first_row(b), m = blocks.rows(b);
      Z.set_size(m, p);
      for (arma::uword j = 0; j < p; ++j) {
        const double* x = X.colptr(j) + r0;
        double* z = Z.colptr(j);
        const double c = shift[j];
        if (scale) {
          const double s = (*scale)[j];
          for (arma::uword i = 0; i < m; ++i) z[i] = (x[i] - c) / s;
        } else {
          for (arma::uword i = 0; i < m; ++i) z[i] = x[i] - c;
        }
      }
      cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, static_cast<blas_size>(p), static_cast<blas_size>(m), 1.0,
                  Z.memptr(), static_cast<blas_size>(m), 1.0, out.zz.memptr(), static_cast<blas_size>(p));
      if (!t) continue;
      W.set_size(m, t);
      for (arma::uword j = 0; j < t; ++j) {
        const double* y = Y->colptr(j) + r0;
        double* w = W.colptr(j);
        const double c = (*y_shift)[j];
        for (arma::uword i = 0; i < m; ++i) w[i] = y[i] - c;
      }
      cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, static_cast<blas_size>(p), static_cast<blas_size>(t),
                  static_cast<blas_size>(m), 1.0, Z.memptr(), static_cast<blas_size>(m), W.memptr(),
                  static_cast<blas_size>(m), 1.0, out.zw.memptr(), static_cast<blas_size>(p));
    }
  };
  // One part: on this thread, BLAS threaded within each call (wide data, where the
  // syrk's p x p output gives its threads enough to share). Several: on the threads
  // when X is large enough to repay them.
  if (blocks.n_parts == 1) {
    run_part(0);
  } else {
    parallel_for(blocks.n_parts, run_part, workers_for(X.n_elem));
  }
  CentredProducts sum = std::move(parts[0]);
  for (std::size_t k = 1; k < blocks.n_parts; ++k) {
    sum.zz += parts[k].zz;
    if (t) sum.zw += parts[k].zw;
  }
  sum.zz = arma::symmatu(sum.zz);
  return sum;
}

}  // namespace mlt
