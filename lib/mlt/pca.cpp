// PCA (lecture notes; scikit-learn's PCA with svd_solver="full" is the reference).
//
// With X̄ the centred n x p data, X̄ = U S Vᵀ; the axes are the columns of V, the
// variance along axis j is s_j² / (n - 1). Two ways to get V:
//   * thin SVD of X̄ (LAPACK gesdd): O(n p²), accurate for every component;
//   * eigen-decomposition of the p x p scatter matrix X̄ᵀX̄: the same O(n p²) flops
//     but as one BLAS-3 pass over the data, several times faster for n >> p, and it
//     needs no copy of X (the scatter is accumulated over centred row blocks). Its
//     eigenvalues lose relative accuracy below ε·s_max², which only the smallest,
//     noise-level components of large data notice.
// We use the SVD unless the data is large and tall.
// Sign convention: each axis has its largest-magnitude coordinate positive (ties: the
// first), so results do not depend on LAPACK's internal choices.
#include "mlt/pca.hpp"

#include <cmath>

#include "mlt/core/error.hpp"
#include "mlt/core/rowwise.hpp"
#include "mlt/core/validate.hpp"

namespace mlt {
namespace {

constexpr double kSvdMaxCells = 4e6;  // above this, tall data goes through the scatter matrix

// X̄ᵀX̄ accumulated over blocks of rows, each centred on the fly.
arma::mat centred_scatter(const arma::mat& X, const arma::rowvec& mean, const arma::rowvec* scale) {
  const arma::uword p = X.n_cols;
  const arma::uword block = 8192;
  arma::mat scatter(p, p, arma::fill::zeros);
  arma::mat B;
  for (arma::uword r = 0; r < X.n_rows; r += block) {
    const arma::uword last = std::min(X.n_rows, r + block) - 1;
    B = X.rows(r, last);
    B.each_row() -= mean;
    if (scale) B.each_row() /= *scale;
    scatter += B.t() * B;  // Armadillo maps this to syrk/gemm
  }
  return arma::symmatu(scatter);
}

void fix_signs(arma::mat& V) {  // V: p x k, axes as columns
  for (arma::uword j = 0; j < V.n_cols; ++j) {
    const arma::uword i = arma::index_max(arma::abs(V.col(j)));
    if (V(i, j) < 0) V.col(j) *= -1.0;
  }
}

}  // namespace

Pca& Pca::fit(const arma::mat& X) {
  if (params_.variance < 0 || params_.variance >= 1 || std::isnan(params_.variance))
    throw UsageError("variance must be in (0, 1)");
  if (params_.variance > 0 && params_.n_components > 0)
    throw UsageError("give the number of components or the variance to keep, not both");
  check_fit_input(X, 1);
  const arma::uword n = X.n_rows, p = X.n_cols;
  const arma::uword max_k = std::min(n, p);
  if (params_.n_components > max_k)
    throw DataError("n_components=" + std::to_string(params_.n_components) + " > min(n_samples=" +
                    std::to_string(n) + ", n_features=" + std::to_string(p) + ")");

  scaler_ = Standardizer();
  if (params_.standardize) scaler_.fit(X);
  const arma::rowvec mean = arma::mean(X, 0);
  // In the standardized space the mean is zero by construction.
  mean_ = params_.standardize ? arma::rowvec(p, arma::fill::zeros) : mean;

  arma::vec s;  // singular values, decreasing, length max_k
  arma::mat V;  // p x max_k
  const double denom = n > 1 ? static_cast<double>(n - 1) : 1.0;
  const bool use_svd = params_.solver == PcaSolver::svd ||
                       (params_.solver == PcaSolver::automatic && (static_cast<double>(n) * p <= kSvdMaxCells || n < 4 * p));
  if (use_svd) {
    arma::mat Xc = X;
    Xc.each_row() -= mean;
    if (params_.standardize) Xc.each_row() /= scaler_.scale();
    arma::mat U;
    arma::vec sv;
    if (!arma::svd_econ(U, sv, V, Xc, "right", "dc") && !arma::svd_econ(U, sv, V, Xc, "right", "std"))
      throw DataError("PCA: the SVD did not converge");
    s = sv;
    V = V.cols(0, max_k - 1);
    s = s.head(max_k);
  } else {
    const arma::rowvec& sc = scaler_.scale();
    arma::mat scatter = centred_scatter(X, mean, params_.standardize ? &sc : nullptr);
    arma::vec eigval;
    arma::mat eigvec;
    if (!arma::eig_sym(eigval, eigvec, scatter, "dc") && !arma::eig_sym(eigval, eigvec, scatter, "std"))
      throw DataError("PCA: the eigen-decomposition did not converge");
    // Ascending from LAPACK; rounding can make the smallest slightly negative.
    eigval = arma::reverse(arma::clamp(eigval, 0.0, arma::datum::inf));
    eigvec = arma::fliplr(eigvec);
    s = arma::sqrt(eigval.head(max_k));
    V = eigvec.cols(0, max_k - 1);
  }
  fix_signs(V);

  const arma::vec variance = arma::square(s) / denom;
  // Total variance from the columns themselves: the sum over all components, also
  // those beyond min(n, p), which are zero.
  double total = 0;
  if (params_.standardize) {
    const arma::rowvec var = arma::var(X, 0, 0);
    for (arma::uword j = 0; j < p; ++j) total += var[j] / (scaler_.scale()[j] * scaler_.scale()[j]);
  } else if (n > 1) {
    total = arma::accu(arma::var(X, 0, 0));
  }
  // 0/0 (constant data, or a single row) is defined as 0: nothing is explained.
  const arma::vec ratio = total > 0 ? arma::vec(variance / total) : arma::vec(max_k, arma::fill::zeros);

  arma::uword k = params_.n_components ? params_.n_components : max_k;
  if (params_.variance > 0) {
    // scikit-learn: searchsorted(cumsum, variance, side="right") + 1.
    const arma::vec cum = arma::cumsum(ratio);
    k = 1;
    while (k < max_k && cum[k - 1] <= params_.variance) ++k;
  }
  components_ = V.cols(0, k - 1).t();
  singular_values_ = s.head(k);
  explained_variance_ = variance.head(k);
  explained_variance_ratio_ = ratio.head(k);
  return *this;
}

void Pca::require_fitted() const {
  if (!is_fitted()) throw Error("internal: PCA used before fit", kExitSoftware);
}

arma::mat Pca::centred(const arma::mat& X) const {
  arma::mat Xc = params_.standardize ? scaler_.transform(X) : X;
  Xc.each_row() -= mean_;
  return Xc;
}

arma::mat Pca::transform(const arma::mat& X) const {
  require_fitted();
  check_n_features(n_features(), X);
  arma::mat Z = rowwise::inner_products(centred(X), components_);
  if (params_.whiten) {
    for (arma::uword j = 0; j < Z.n_cols; ++j)
      if (explained_variance_[j] > 0) Z.col(j) /= std::sqrt(explained_variance_[j]);
  }
  return Z;
}

arma::mat Pca::inverse_transform(const arma::mat& Z) const {
  require_fitted();
  if (Z.n_cols != n_components())
    throw DataError("expected " + std::to_string(n_components()) + " scores per row, got " +
                    std::to_string(Z.n_cols));
  arma::mat W = Z;
  if (params_.whiten) {
    for (arma::uword j = 0; j < W.n_cols; ++j)
      if (explained_variance_[j] > 0) W.col(j) *= std::sqrt(explained_variance_[j]);
  }
  arma::mat X = rowwise::product(W, components_);
  X.each_row() += mean_;
  return params_.standardize ? scaler_.inverse_transform(X) : X;
}

double Pca::reconstruction_mse(const arma::mat& X) const {
  const arma::mat R = inverse_transform(transform(X));
  return arma::accu(arma::square(X - R)) / static_cast<double>(X.n_elem);
}

double Pca::explained_variance_ratio(const arma::mat& X) const {
  require_fitted();
  check_n_features(n_features(), X);
  const arma::mat Xc = centred(X);
  const arma::mat residual = Xc - (Xc * components_.t()) * components_;
  arma::mat about_own_mean = Xc;
  about_own_mean.each_row() -= arma::mean(Xc, 0);
  const double total = arma::accu(arma::square(about_own_mean));
  if (!(total > 0)) return 0.0;
  return 1.0 - arma::accu(arma::square(residual)) / total;
}

const ParamTable<PcaParams>& PcaParams::table() {
  using P = PcaParams;
  static const ParamTable<P> t = [] {
    ParamTable<P> d;
    d.push_back(integer<P>("n_components", &P::n_components, "Number of components (default: all)",
                           Bounds::at_least(1)));
    d.back().flag = "-k,--components";
    d.back().show_default = false;
    d.back().excludes = "variance";
    d.push_back(real<P>("variance", &P::variance,
                        "Keep the fewest components explaining more than this fraction of the variance",
                        Bounds::open(0, 1)));
    d.back().show_default = false;
    d.push_back(flag<P>("whiten", &P::whiten, "Scale the scores to unit variance"));
    d.push_back(flag<P>("standardize", &P::standardize,
                        "Divide each column by its standard deviation first (PCA of the correlation matrix; fitted "
                        "on the training rows)"));
    d.push_back(choice<P>("solver", &P::solver,
                          "svd (exact for every component), covariance (eigenvectors of XᵀX: faster for n >> p), "
                          "or auto"));
    d.back().sweep = false;
    return d;
  }();
  return t;
}

void Pca::save(io::ModelWriter& out) const {
  require_fitted();
  auto& h = out.header();
  h["params"] = params_json(PcaParams::table(), params_);
  h["fitted"] = {{"n_features", n_features()}, {"n_components", n_components()}};
  out.add("mean", mean_);
  if (params_.standardize) scaler_.save(out);
  out.add("components", components_);
  out.add("singular_values", singular_values_);
  out.add("explained_variance", explained_variance_);
  out.add("explained_variance_ratio", explained_variance_ratio_);
}

Pca Pca::load(const io::ModelReader& in) {
  in.expect_kind(kind);
  Params p;
  p.n_components = in.get<std::size_t>("/params/n_components");
  p.variance = in.get<double>("/params/variance");
  p.whiten = in.get<bool>("/params/whiten");
  p.standardize = in.get<bool>("/params/standardize");
  const auto solver = in.get_or<std::string>("/params/solver", "auto");  // absent before the solver choice
  if (!kPcaSolverNames.accepts(solver)) in.fail("unknown pca solver \"" + solver + "\"");
  p.solver = parse_name<PcaSolver>(solver);
  Pca pca(p);
  const auto n_features = in.get<std::size_t>("/fitted/n_features");
  const auto k = in.get<std::size_t>("/fitted/n_components");
  if (k == 0 || n_features == 0 || k > n_features) in.fail("invalid PCA dimensions");
  pca.mean_ = in.matrix("mean", 1, n_features);
  if (p.standardize) pca.scaler_ = Standardizer::load(in, n_features);
  pca.components_ = in.matrix("components", k, n_features);
  pca.singular_values_ = in.vector("singular_values", k);
  pca.explained_variance_ = in.vector("explained_variance", k);
  pca.explained_variance_ratio_ = in.vector("explained_variance_ratio", k);
  return pca;
}

}  // namespace mlt
