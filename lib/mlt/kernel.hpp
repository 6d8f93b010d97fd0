// Kernels k(x, x') for kernel methods (kernel ridge, kernel logistic regression,
// kernel PCA, kernel-induced distances), as in the lecture notes and scikit-learn's
// sklearn.metrics.pairwise:
//   linear       <x, x'>
//   poly         (gamma <x, x'> + coef0)^degree
//   rbf          exp(-gamma ||x - x'||²)          (sigma given: gamma = 1 / (2 sigma²))
//   laplacian    exp(-gamma ||x - x'||₁)          (scikit-learn's laplacian_kernel)
//   exponential  exp(-||x - x'||₂ / sigma)        (the notes' "Laplacian" kernel)
//   sigmoid      tanh(gamma <x, x'> + coef0)
// Gram blocks are computed from row-wise inner products and squared norms
// (mlt/core/rowwise.hpp): k(a_i, b_j) is the same bits whatever else is in A or B,
// so kernel predictions do not depend on how rows are batched. The l1 distance is a
// plain loop over pairs (no product expresses it).
#pragma once

#include <string>

#include "mlt/core/types.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/core/names.hpp"

namespace mlt {

enum class KernelType { linear, poly, rbf, laplacian, exponential, sigmoid };

struct KernelParams {
  KernelType type = KernelType::rbf;
  double gamma = 0;    // 0: scikit-learn's default 1 / n_features (poly, rbf, laplacian, sigmoid)
  double sigma = 0;    // > 0 overrides gamma: rbf gamma = 1/(2 sigma²); exponential's scale
  double degree = 3;   // poly
  double coef0 = 1;    // poly, sigmoid (scikit-learn's KernelRidge default is 1)
};

inline constexpr NameTable<KernelType, 8> kKernelNames{
    "kernel",
    {{{KernelType::linear, "linear"},
      {KernelType::poly, "poly"},
      {KernelType::rbf, "rbf"},
      {KernelType::laplacian, "laplacian"},
      {KernelType::exponential, "exponential"},
      {KernelType::sigmoid, "sigmoid"},
      {KernelType::poly, "polynomial"},
      {KernelType::rbf, "gaussian"}}}};
constexpr const auto& name_table(KernelType) { return kKernelNames; }

class Kernel {
 public:
  Kernel() = default;
  // Resolves defaults that depend on the data (gamma = 1 / n_features) and checks
  // the parameters (UsageError).
  Kernel(const KernelParams& params, std::size_t n_features);

  // K(i, j) = k(A.row(i), B.row(j)); A: m x p, B: n x p -> m x n. Entry (i, j)
  // depends only on rows i and j (exactly symmetric when A is B).
  arma::mat gram(const arma::mat& A, const arma::mat& B) const;
  // Diagonal of gram(A, A), without the off-diagonal work.
  arma::vec diagonal(const arma::mat& A) const;

  const KernelParams& params() const { return params_; }
  double gamma() const { return gamma_; }

  // Stored under header()["kernel"].
  void save(io::ModelWriter& out) const;
  static Kernel load(const io::ModelReader& in);

 private:
  KernelParams params_;
  double gamma_ = 1;  // resolved
};

}  // namespace mlt
