#include "mlt/kernel.hpp"

#include <algorithm>
#include <cmath>

#include "mlt/core/error.hpp"
#include "mlt/core/exp.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/core/rowwise.hpp"
#include "mlt/core/validate.hpp"
#include "mlt/kernel_graphs.hpp"
#include "mlt/kernel_precomputed.hpp"
#include "mlt/kernel_strings.hpp"

namespace mlt {
namespace {

// exp(-gamma ||a_i - b_j||²) with ||a_i - b_j||² = (||a_i||² - 2 a_i·b_j) + ||b_j||²,
// clamped at 0 because cancellation can leave tiny negatives for (near-)identical
// points, and exp_inplace (core/exp.hpp, within 1 ulp of std::exp; libm's scalar exp
// was a third of a kernel SVM's time). One pass over the inner products, a column at
// a time while it is in cache; every entry depends on its two rows only. Columns are
// spread over the threads in tasks of about 2^16 entries.
arma::mat rbf_gram(const arma::mat& A, const arma::vec* a_norms, const arma::mat& B, double gamma) {
  arma::mat K = rowwise::inner_products(A, B);
  const arma::vec sa = a_norms ? *a_norms : rowwise::squared_norms(A), sb = rowwise::squared_norms(B);
  const arma::uword m = K.n_rows, n = K.n_cols;
  if (m == 0 || n == 0) return K;
  const arma::uword per_task = std::max<arma::uword>(1, (arma::uword(1) << 16) / m);
  parallel_for((n + per_task - 1) / per_task, [&](std::size_t task) {
    for (arma::uword j = task * per_task; j < std::min(n, (task + 1) * per_task); ++j) {
      double* k = K.colptr(j);
      for (arma::uword i = 0; i < m; ++i) {
        double d = (-2.0 * k[i] + sa[i]) + sb[j];
        d = d < 0 ? 0.0 : d;
        k[i] = -gamma * d;
      }
      exp_inplace(k, m);
    }
  });
  return K;
}

// ||a_i - b_j|| summed from the differences: the square root of the squared distance would
// turn its cancellation error (~1e-16 ||a||²) into ~1e-8 ||a|| near zero distance, where
// the exponential kernel is steepest. O(m n p) without BLAS, as the laplacian's.
arma::mat euclidean_distances(const arma::mat& A, const arma::mat& B) {
  arma::mat D(A.n_rows, B.n_rows);
  const arma::mat At = A.t(), Bt = B.t();  // samples as contiguous columns
  for (arma::uword j = 0; j < Bt.n_cols; ++j)
    for (arma::uword i = 0; i < At.n_cols; ++i) {
      const double* a = At.colptr(i);
      const double* b = Bt.colptr(j);
      double s = 0;
      for (arma::uword k = 0; k < At.n_rows; ++k) {
        const double d = a[k] - b[k];
        s += d * d;
      }
      D(i, j) = std::sqrt(s);
    }
  return D;
}

arma::mat l1_distances(const arma::mat& A, const arma::mat& B) {
  arma::mat D(A.n_rows, B.n_rows);
  const arma::mat At = A.t(), Bt = B.t();  // samples as contiguous columns
  for (arma::uword j = 0; j < Bt.n_cols; ++j)
    for (arma::uword i = 0; i < At.n_cols; ++i) D(i, j) = arma::accu(arma::abs(At.col(i) - Bt.col(j)));
  return D;
}

}  // namespace

Kernel::Kernel(const KernelParams& params, std::size_t n_features) : params_(params) {
  if (!(params.gamma >= 0) || !std::isfinite(params.gamma)) throw UsageError("gamma must be >= 0");
  if (!(params.sigma >= 0) || !std::isfinite(params.sigma)) throw UsageError("sigma must be >= 0");
  if (!std::isfinite(params.coef0)) throw UsageError("coef0 must be finite");
  // A fractional degree raises a negative base (gamma <x, x'> + coef0 < 0) to a
  // fractional power: NaN. Whole degrees only, in fit and in a loaded model alike.
  if (params.type == KernelType::poly &&
      !(params.degree >= 0 && std::isfinite(params.degree) && params.degree == std::floor(params.degree)))
    throw UsageError("`degree` must be a whole number >= 0");
  if (params.type == KernelType::spectrum &&
      !(params.kmer >= 1 && params.kmer <= kMaxKmer && params.kmer == std::floor(params.kmer)))
    throw UsageError("`kmer` must be a whole number from 1 to " + std::to_string(kMaxKmer) +
                     " (k-mers are compared as exact 64-bit keys)");
  if (params.type == KernelType::walk &&
      !(params.walk_length >= 0 && params.walk_length <= 1000 && params.walk_length == std::floor(params.walk_length)))
    throw UsageError("`walk_length` must be a whole number from 0 to 1000");
  if (params.normalize && params.type == KernelType::precomputed)
    throw UsageError("`normalize` does not apply to a precomputed kernel (a new row's k(x, x) is not given); "
                     "normalize the Gram matrix before");
  if (params.normalize && params.type != KernelType::linear && params.type != KernelType::poly &&
      !*structured_input(params.type))
    throw UsageError("`normalize` applies to the linear, poly, spectrum and walk kernels only (" + name_of(params.type) +
                     (params.type == KernelType::sigmoid ? " has no positive k(x, x))" : " has k(x, x) = 1 already)"));
  if (params_.sigma > 0) {
    gamma_ = params.type == KernelType::rbf ? 1.0 / (2 * params_.sigma * params_.sigma) : 1.0 / params_.sigma;
  } else if (params.gamma > 0) {
    gamma_ = params.gamma;
  } else {  // the defaults: exp(-||x - x'||) for the exponential kernel, 1 / n_features for the others
    gamma_ = params.type == KernelType::exponential ? 1.0
                                                    : 1.0 / static_cast<double>(std::max<std::size_t>(1, n_features));
  }
  params_.gamma = gamma_;
}

const char* structured_input(KernelType type) {
  return type == KernelType::spectrum      ? "text"
         : type == KernelType::walk        ? "graph"
         : type == KernelType::precomputed ? "precomputed"
                                           : "";
}

bool is_positive_semidefinite(const KernelParams& kernel) {  // precomputed: the user's word
  return kernel.type != KernelType::sigmoid && !(kernel.type == KernelType::poly && kernel.coef0 < 0);
}

void require_positive_semidefinite(const KernelParams& kernel, const std::string& why) {
  const bool sigmoid = kernel.type == KernelType::sigmoid;
  if (!is_positive_semidefinite(kernel))
    throw UsageError(std::string(sigmoid ? "the sigmoid kernel" : "the poly kernel with coef0 < 0") +
                     " is not positive semi-definite, and " + why +
                     "; use linear, poly (coef0 >= 0), rbf, laplacian or exponential");
}

arma::mat Kernel::gram(const arma::mat& A, const arma::mat& B) const { return compute_gram(A, nullptr, B); }

arma::mat Kernel::gram(const arma::mat& A, const arma::vec& a_norms, const arma::mat& B) const {
  if (a_norms.n_elem != A.n_rows) throw Error("internal: squared norms of another matrix", kExitSoftware);
  return compute_gram(A, &a_norms, B);
}

arma::mat Kernel::compute_gram(const arma::mat& A, const arma::vec* a_norms, const arma::mat& B) const {
  if (A.n_cols != B.n_cols && !*structured_input(params_.type))
    throw Error("internal: kernel of different widths", kExitSoftware);
  arma::mat K = raw_gram(A, a_norms, B);
  if (params_.normalize) {
    const arma::vec ra = inverse_root_diagonal(A), rb = inverse_root_diagonal(B);
    // k · (r_i r_j): the product r_i r_j commutes, so gram(A, A) stays exactly symmetric.
    for (arma::uword j = 0; j < K.n_cols; ++j)
      for (arma::uword i = 0; i < K.n_rows; ++i) K(i, j) *= ra[i] * rb[j];
  }
  return K;
}

void Kernel::check_input(std::size_t n_features, const arma::mat& X) const {
  if (params_.type == KernelType::precomputed && X.n_cols != n_features)
    throw DataError("a precomputed kernel's rows hold the kernel values against the " + std::to_string(n_features - 1) +
                    " training rows, and the input has " + std::to_string(X.n_cols - 1) + " values per row");
  if (!*structured_input(params_.type)) check_n_features(n_features, X);
}

arma::mat kernel_squared_distances(const Kernel& kernel, const arma::mat& A, const arma::vec& a_diag,
                                   const arma::mat& B, const arma::vec& b_diag) {
  arma::mat D = kernel.gram(A, B);
  if (!D.is_finite() || !a_diag.is_finite() || !b_diag.is_finite())
    throw DataError("kernel values overflow; rescale the data or change the kernel");
  for (arma::uword j = 0; j < D.n_cols; ++j)
    for (arma::uword i = 0; i < D.n_rows; ++i) {
      const double d2 = a_diag[i] + b_diag[j] - 2 * D(i, j);
      D(i, j) = d2 > 0 ? d2 : 0.0;
    }
  return D;
}

arma::vec Kernel::diagonal(const arma::mat& A) const {
  arma::vec d = raw_diagonal(A);
  if (params_.normalize) {
    const arma::vec r = inverse_root_diagonal(A);
    for (arma::uword i = 0; i < d.n_elem; ++i) d[i] *= r[i] * r[i];  // gram's diagonal, bit for bit
  }
  return d;
}

arma::vec Kernel::inverse_root_diagonal(const arma::mat& A) const {
  const arma::vec d = raw_diagonal(A);
  for (arma::uword i = 0; i < d.n_elem; ++i)
    if (!(d[i] > 0) || !std::isfinite(d[i]))
      throw DataError("the normalized " + name_of(params_.type) + " kernel needs k(x, x) > 0, and a row has k(x, x) = " +
                      std::to_string(d[i]) + (params_.type == KernelType::linear ? " (an all-zero row)" : "") +
                      ": k(x, x') / sqrt(k(x, x) k(x', x')) is undefined there");
  return 1.0 / arma::sqrt(d);
}

arma::mat Kernel::raw_gram(const arma::mat& A, const arma::vec* a_norms, const arma::mat& B) const {
  switch (params_.type) {
    case KernelType::linear:
      return rowwise::inner_products(A, B);
    case KernelType::poly:
      return arma::pow(gamma_ * rowwise::inner_products(A, B) + params_.coef0, params_.degree);
    case KernelType::rbf:
      return rbf_gram(A, a_norms, B, gamma_);
    case KernelType::laplacian:
      return arma::exp(-gamma_ * l1_distances(A, B));
    case KernelType::exponential:
      return arma::exp(-gamma_ * euclidean_distances(A, B));
    case KernelType::sigmoid:
      return arma::tanh(gamma_ * rowwise::inner_products(A, B) + params_.coef0);
    case KernelType::spectrum:
      return &A == &B ? spectrum_gram(A, A, kmer()) : spectrum_gram(A, B, kmer());
    case KernelType::walk:
      return &A == &B ? walk_gram(A, A, walk_length()) : walk_gram(A, B, walk_length());
    case KernelType::precomputed:
      return precomputed_gram(A, B);
  }
  return {};
}

arma::vec Kernel::raw_diagonal(const arma::mat& A) const {
  if (params_.type == KernelType::spectrum) return spectrum_diagonal(A, kmer());
  if (params_.type == KernelType::walk) return walk_diagonal(A, walk_length());
  if (params_.type == KernelType::precomputed) return precomputed_diagonal(A);
  const arma::vec sq = rowwise::squared_norms(A);
  switch (params_.type) {
    case KernelType::linear: return sq;
    case KernelType::poly: return arma::pow(gamma_ * sq + params_.coef0, params_.degree);
    case KernelType::rbf:
    case KernelType::laplacian:
    case KernelType::exponential: return arma::ones<arma::vec>(A.n_rows);
    case KernelType::sigmoid: return arma::tanh(gamma_ * sq + params_.coef0);
    case KernelType::spectrum:
    case KernelType::walk:
    case KernelType::precomputed: break;
  }
  return {};
}

void Kernel::save(io::ModelWriter& out) const {
  out.header()["kernel"] = {{"type", name_of(params_.type)},
                            {"gamma", gamma_},
                            {"sigma", params_.sigma},
                            {"degree", params_.degree},
                            {"coef0", params_.coef0}};
  if (params_.normalize) out.header()["kernel"]["normalize"] = true;  // absent: not normalized, as before
  if (params_.type == KernelType::spectrum) out.header()["kernel"]["kmer"] = params_.kmer;
  if (params_.type == KernelType::walk) out.header()["kernel"]["walk_length"] = params_.walk_length;
}

Kernel Kernel::load(const io::ModelReader& in) {
  KernelParams p;
  try {
    p.type = parse_name<KernelType>(in.get<std::string>("/kernel/type"));
  } catch (const UsageError&) {
    in.fail("unknown kernel type");
  }
  p.gamma = in.get<double>("/kernel/gamma");
  p.sigma = in.get<double>("/kernel/sigma");
  p.degree = in.get<double>("/kernel/degree");
  p.coef0 = in.get<double>("/kernel/coef0");
  p.normalize = in.get_or<bool>("/kernel/normalize", false);
  if (p.type == KernelType::spectrum) p.kmer = in.get<double>("/kernel/kmer");
  if (p.type == KernelType::walk) p.walk_length = in.get<double>("/kernel/walk_length");
  if (!(p.gamma > 0)) in.fail("kernel gamma must be > 0");
  if (!(p.sigma >= 0)) in.fail("kernel sigma must be >= 0");
  const double sigma = p.sigma;
  p.sigma = 0;  // gamma is already resolved: the kernel is built from it...
  try {
    Kernel k(p, 1);
    k.params_.sigma = sigma;  // ...and keeps sigma as saved, so saving again writes the same bytes
    return k;
  } catch (const UsageError& e) {
    in.fail(std::string("invalid kernel: ") + e.what());
  }
}

}  // namespace mlt
