#include "mlt/kernel_strings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "mlt/core/error.hpp"
#include "mlt/core/parallel.hpp"

namespace mlt {
namespace {

struct Spectrum {
  std::vector<std::uint64_t> keys;   // distinct k-mers, increasing
  std::vector<double> counts;        // occurrences of each
};

// The k-mers of an encoded row, big-endian packed: keys compare as the k-mers do.
Spectrum spectrum_of(const arma::mat& A, arma::uword i, int k) {
  const double tag = A(i, 0), len = A.n_cols > 1 ? A(i, 1) : -1;
  if (A.n_cols < 2 || tag != kStringTag || !(len >= 0) || len != std::floor(len) || len > double(A.n_cols - 2))
    throw DataError("row " + std::to_string(i + 1) + " is not an encoded string (the spectrum kernel reads a text column)");
  const std::size_t L = static_cast<std::size_t>(len);
  Spectrum s;
  if (L < static_cast<std::size_t>(k)) return s;
  std::vector<std::uint64_t> all(L - k + 1);
  const std::uint64_t mask = k == 8 ? ~std::uint64_t(0) : (std::uint64_t(1) << (8 * k)) - 1;
  std::uint64_t key = 0;
  for (std::size_t p = 0; p < L; ++p) {
    const double b = A(i, 2 + p);
    if (!(b >= 0 && b <= 255 && b == std::floor(b)))
      throw DataError("row " + std::to_string(i + 1) + " is not an encoded string (a byte out of 0..255)");
    key = ((key << 8) | static_cast<std::uint64_t>(b)) & mask;
    if (p + 1 >= static_cast<std::size_t>(k)) all[p + 1 - k] = key;
  }
  std::sort(all.begin(), all.end());
  for (std::size_t p = 0; p < all.size();) {
    std::size_t q = p;
    while (q < all.size() && all[q] == all[p]) ++q;
    s.keys.push_back(all[p]);
    s.counts.push_back(static_cast<double>(q - p));
    p = q;
  }
  return s;
}

std::vector<Spectrum> spectra_of(const arma::mat& A, int k) {
  std::vector<Spectrum> out(A.n_rows);
  constexpr std::size_t kRowsPerTask = 64;
  parallel_for((A.n_rows + kRowsPerTask - 1) / kRowsPerTask, [&](std::size_t t) {
    for (std::size_t i = t * kRowsPerTask; i < std::min<std::size_t>(A.n_rows, (t + 1) * kRowsPerTask); ++i)
      out[i] = spectrum_of(A, i, k);
  });
  return out;
}

// Σ c_u(x) c_u(y) over the common keys: integers, exact in any order.
double merge(const Spectrum& a, const Spectrum& b) {
  double s = 0;
  std::size_t i = 0, j = 0;
  while (i < a.keys.size() && j < b.keys.size()) {
    if (a.keys[i] < b.keys[j]) ++i;
    else if (b.keys[j] < a.keys[i]) ++j;
    else s += a.counts[i++] * b.counts[j++];
  }
  return s;
}

// Rows' k-mer counts as a dense m x V matrix over `vocabulary` (sorted keys).
arma::mat dense_counts(const std::vector<Spectrum>& rows, const std::vector<std::uint64_t>& vocabulary) {
  arma::mat C(rows.size(), vocabulary.size(), arma::fill::zeros);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::size_t v = 0;
    for (std::size_t q = 0; q < rows[i].keys.size(); ++q) {
      while (vocabulary[v] != rows[i].keys[q]) ++v;  // both sorted, every key present
      C(i, v) = rows[i].counts[q];
    }
  }
  return C;
}

void check_k(int k) {
  if (k < 1 || k > kMaxKmer)
    throw UsageError("`kmer` must be a whole number from 1 to " + std::to_string(kMaxKmer) + ", got " +
                     std::to_string(k));
}

}  // namespace

arma::mat encode_strings(const std::vector<std::string>& texts, const CellWhere& where) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (texts[i].size() > (std::size_t(1) << 31)) throw DataError(where(i) + ": a string longer than 2^31 bytes");
    width = std::max(width, texts[i].size());
  }
  arma::mat X(texts.size(), 2 + width, arma::fill::zeros);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    X(i, 0) = kStringTag;
    X(i, 1) = static_cast<double>(texts[i].size());
    for (std::size_t p = 0; p < texts[i].size(); ++p) X(i, 2 + p) = static_cast<unsigned char>(texts[i][p]);
  }
  return X;
}

arma::mat spectrum_gram(const arma::mat& A, const arma::mat& B, int k) {
  check_k(k);
  const bool same = &A == &B;
  const std::vector<Spectrum> sa = spectra_of(A, k);
  const std::vector<Spectrum> sb = same ? std::vector<Spectrum>{} : spectra_of(B, k);
  const std::vector<Spectrum>& rb = same ? sa : sb;
  const std::size_t m = sa.size(), n = rb.size();
  arma::mat K(m, n);
  if (m == 0 || n == 0) return K;

  std::vector<std::uint64_t> vocabulary;
  std::size_t entries = 0;  // Σ distinct k-mers over the rows
  for (const auto* side : {&sa, &sb})
    for (const Spectrum& s : *side) {
      vocabulary.insert(vocabulary.end(), s.keys.begin(), s.keys.end());
      entries += s.keys.size();
    }
  std::sort(vocabulary.begin(), vocabulary.end());
  vocabulary.erase(std::unique(vocabulary.begin(), vocabulary.end()), vocabulary.end());
  const double V = static_cast<double>(vocabulary.size());
  const double rows = static_cast<double>(same ? m : m + n);
  const double mean_distinct = static_cast<double>(entries) / rows;
  // Dense when a BLAS product over the V k-mers present costs at most ~8 merges
  // (dgemm runs an order of magnitude faster per term than a branchy merge) and the
  // count matrices stay within 1 GB.
  if (V <= 8 * mean_distinct && rows * V * 8 <= 1e9) {
    // Every partial sum of k(x, y) is at most (number of k-mers of x) (number of
    // k-mers of y): below 2^24 single precision holds it exactly too, and sgemm runs
    // twice as fast as dgemm. (Both exact, so the same result.)
    const auto most = [](const std::vector<Spectrum>& side) {
      double n = 0;
      for (const Spectrum& s : side) n = std::max(n, arma::accu(arma::vec(s.counts)));
      return n;
    };
    const arma::mat CA = dense_counts(sa, vocabulary);
    const arma::mat CB = same ? arma::mat() : dense_counts(sb, vocabulary);
    if (most(sa) * most(rb) < 16777216.0) {  // 2^24
      const arma::fmat FA = arma::conv_to<arma::fmat>::from(CA);
      if (same) return arma::conv_to<arma::mat>::from(arma::fmat(FA * FA.t()));
      const arma::fmat FB = arma::conv_to<arma::fmat>::from(CB);
      return arma::conv_to<arma::mat>::from(arma::fmat(FA * FB.t()));
    }
    if (same) return CA * CA.t();  // exact integers: symmetric bit for bit
    return CA * CB.t();
  }
  constexpr std::size_t kPairsPerTask = 4096;
  const std::size_t per_task = std::max<std::size_t>(1, kPairsPerTask / m);
  parallel_for((n + per_task - 1) / per_task, [&](std::size_t t) {
    for (std::size_t j = t * per_task; j < std::min(n, (t + 1) * per_task); ++j)
      for (std::size_t i = same ? j : 0; i < m; ++i) K(i, j) = merge(sa[i], rb[j]);
  });
  if (same) K = arma::symmatl(K);  // computed for i >= j
  return K;
}

arma::vec spectrum_diagonal(const arma::mat& A, int k) {
  check_k(k);
  const std::vector<Spectrum> s = spectra_of(A, k);
  arma::vec d(A.n_rows);
  for (std::size_t i = 0; i < s.size(); ++i) d[i] = merge(s[i], s[i]);
  return d;
}

}  // namespace mlt
