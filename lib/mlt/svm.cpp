// The linear SVM estimator: see svm.hpp for the objective and the conventions, and
// svm/linear.hpp for the solver.
#include "mlt/svm.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "mlt/core/error.hpp"
#include "mlt/core/log.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/core/rowwise.hpp"
#include "mlt/core/validate.hpp"

namespace mlt {
namespace {

std::string num(double v) {
  std::ostringstream s;
  s.precision(3);
  s << v;
  return s.str();
}

// The solver's report in the estimator's scale (λ times LIBLINEAR's objectives).
SvmFitInfo info_of(const svm::DualCdResult& r, double lambda) {
  SvmFitInfo fi;
  fi.iterations = r.iterations;
  fi.converged = r.converged;
  fi.violation = r.violation;
  fi.objective = lambda * r.primal;
  fi.dual_objective = lambda * r.dual;
  fi.duality_gap = lambda * r.gap();
  fi.n_sv = r.n_sv;
  fi.n_bounded = r.n_bounded;
  return fi;
}

nlohmann::json info_json(const SvmFitInfo& fi) {
  return {{"iterations", fi.iterations},   {"converged", fi.converged},
          {"violation", fi.violation},     {"objective", fi.objective},
          {"dual_objective", fi.dual_objective}, {"duality_gap", fi.duality_gap},
          {"n_sv", fi.n_sv},               {"n_bounded_sv", fi.n_bounded}};
}

SvmFitInfo info_from(const io::ModelReader& in, const std::string& at) {
  SvmFitInfo fi;
  fi.iterations = in.get<std::size_t>(at + "/iterations");
  fi.converged = in.get<bool>(at + "/converged");
  fi.violation = in.get<double>(at + "/violation");
  fi.objective = in.get<double>(at + "/objective");
  fi.dual_objective = in.get<double>(at + "/dual_objective");
  fi.duality_gap = in.get<double>(at + "/duality_gap");
  fi.n_sv = in.get<std::size_t>(at + "/n_sv");
  fi.n_bounded = in.get<std::size_t>(at + "/n_bounded_sv");
  if (!std::isfinite(fi.objective) || !std::isfinite(fi.dual_objective) || !std::isfinite(fi.duality_gap) ||
      !(fi.violation >= 0) || fi.n_bounded > fi.n_sv)
    in.fail("invalid svm fit info at " + at);
  return fi;
}

}  // namespace

Svm& Svm::fit(const arma::mat& X, const Labels& y, std::size_t n_classes) {
  const Params& p = params_;
  if (!(p.lambda > 0) || !std::isfinite(p.lambda)) throw UsageError("`lambda` must be a finite number > 0");
  if (!(p.tol > 0) || !std::isfinite(p.tol)) throw UsageError("`tol` must be a finite number > 0");
  if (p.max_iter < 1) throw UsageError("`max_iter` must be >= 1");
  check_fit_input(X, 1);
  check_same_rows(X, y.n_elem, "labels");
  const arma::uword n = X.n_rows;
  const std::size_t K = n_classes ? n_classes : static_cast<std::size_t>(y.max()) + 1;
  if (y.max() >= K) throw DataError("class index " + std::to_string(y.max()) + " >= n_classes");
  arma::uvec counts(K, arma::fill::zeros);
  for (arma::uword i = 0; i < n; ++i) ++counts[y[i]];
  if (arma::accu(counts > 0) < 2) throw DataError("only one class in the training data; a classifier needs two");
  for (std::size_t k = 0; k < K; ++k)
    if (counts[k] == 0) throw DataError("class " + std::to_string(k) + " has no training samples");
  // The largest bound C_i = c_i / λ must be finite (c_i <= n / 2).
  const double c_max = p.balanced ? double(n) / 2.0 : 1.0;
  if (!std::isfinite(c_max / p.lambda))
    throw UsageError("`lambda` = " + num(p.lambda) + " is too small: C = 1/lambda overflows");

  // Start over.
  n_features_ = X.n_cols;
  n_classes_ = 0;
  scaler_ = Standardizer();
  coef_.reset();
  intercept_.reset();
  fit_info_.clear();

  arma::mat Xs;
  if (p.standardize) Xs = scaler_.fit(X).transform(X);
  const arma::mat& Xw = p.standardize ? Xs : X;
  // One sample per column, with the bias feature 1 last (LIBLINEAR's -B 1).
  arma::mat Xt = Xw.t();
  if (p.fit_intercept) Xt.insert_rows(Xt.n_rows, arma::rowvec(n, arma::fill::ones));

  const std::size_t outputs = K == 2 ? 1 : K;
  std::vector<std::uint64_t> seeds(outputs, p.seed);
  if (outputs > 1) {
    Random rng(p.seed);
    for (auto& s : seeds) s = rng.split();
  }
  std::vector<svm::DualCdResult> results(outputs);
  parallel_for(outputs, [&](std::size_t k) {
    const std::size_t positive = K == 2 ? 1 : k;
    arma::vec yk(n), C(n);
    const double pos = double(counts[positive]), rest = double(n) - pos;
    for (arma::uword i = 0; i < n; ++i) {
      const bool plus = y[i] == positive;
      yk[i] = plus ? 1.0 : -1.0;
      // Balanced: n / (2 n_class) for the two sides of this binary problem, which for
      // two classes is scikit-learn's n / (K n_k).
      const double c = p.balanced ? double(n) / (2.0 * (plus ? pos : rest)) : 1.0;
      C[i] = c / p.lambda;
    }
    svm::DualCdOptions o;
    o.loss = p.loss;
    o.tol = p.tol;
    o.max_iter = p.max_iter;
    o.seed = seeds[k];
    results[k] = svm::solve_dual_cd(Xt, yk, C, o);
  });

  coef_.set_size(outputs, X.n_cols);
  intercept_.zeros(outputs);
  for (std::size_t k = 0; k < outputs; ++k) {
    const arma::vec& w = results[k].w;
    coef_.row(k) = w.head(X.n_cols).t();
    if (p.fit_intercept) intercept_[k] = w[X.n_cols];
    fit_info_.push_back(info_of(results[k], p.lambda));
  }
  n_classes_ = K;

  for (std::size_t k = 0; k < fit_info_.size(); ++k) {
    const SvmFitInfo& fi = fit_info_[k];
    if (fi.converged) continue;
    const std::string which = outputs > 1 ? " (class " + std::to_string(k) + " vs rest)" : "";
    warn("svm: not converged" + which + " after " + std::to_string(fi.iterations) +
         " iterations: projected-gradient violation " + num(fi.violation) + " > `tol`, duality gap " +
         num(fi.duality_gap) + " (" + num(fi.duality_gap / fi.objective) +
         " of the objective); raise `max_iter`, raise `lambda`, or `standardize` the features");
  }
  return *this;
}

void Svm::require_fitted() const {
  if (!is_fitted()) throw Error("internal: svm used before fit", kExitSoftware);
}

arma::mat Svm::decision_function(const arma::mat& X) const {
  require_fitted();
  check_n_features(n_features_, X);
  arma::mat Xs;
  if (params_.standardize) Xs = scaler_.transform(X);
  const arma::mat& Xw = params_.standardize ? Xs : X;
  arma::mat S = rowwise::inner_products(Xw, coef_);
  S.each_row() += intercept_.t();
  return S;
}

Labels Svm::predict(const arma::mat& X) const {
  const arma::mat S = decision_function(X);
  Labels out(S.n_rows);
  if (n_classes_ == 2) {
    for (arma::uword i = 0; i < S.n_rows; ++i) out[i] = S[i] > 0 ? 1 : 0;
  } else {
    out = arma::index_max(S, 1);  // first maximum: ties go to the lower class
  }
  return out;
}

double Svm::score(const arma::mat& X, const Labels& y) const {
  check_same_rows(X, y.n_elem, "labels");
  const Labels pred = predict(X);
  return X.n_rows ? double(arma::accu(pred == y)) / double(X.n_rows) : 0.0;
}

const ParamTable<SvmParams>& SvmParams::table() {
  using P = SvmParams;
  static const ParamTable<P> t = [] {
    ParamTable<P> d;
    d.push_back(real<P>("lambda", &P::lambda,
                        "L2 penalty (lambda/2)(||w||^2 + b^2), > 0; LIBLINEAR's and scikit-learn's C = 1/lambda",
                        Bounds::above(0)));
    d.push_back(choice<P>("loss", &P::loss, "hinge (LIBLINEAR -s 3) or squared_hinge (-s 1)"));
    d.push_back(flag<P>("standardize", &P::standardize, "Standardize the features first (fitted on the training rows)"));
    // The model header says "balanced" or "none", as scikit-learn's class_weight.
    Param<P> weight;
    weight.name = "class_weight";
    weight.flag = "--class-weight";
    weight.type = ParamType::choice;
    weight.help = "none, or balanced: weigh each sample by n / (2 * n_its_side) in each binary problem";
    weight.choices = {"none", "balanced"};
    weight.set = [](P& p, const ParamValue& v) {
      if (v.text != "none" && v.text != "balanced")
        throw UsageError("unknown class weight \"" + v.text + "\" (none, balanced)");
      p.balanced = v.text == "balanced";
    };
    weight.json = [](const P& p) { return nlohmann::json(p.balanced ? "balanced" : "none"); };
    d.push_back(std::move(weight));
    d.push_back(choice<P>("multiclass", &P::multiclass, "More than two classes: ovr (one-vs-rest, argmax of f_k)"));
    d.back().sweep = false;
    d.push_back(real<P>("tol", &P::tol,
                        "Stop when every projected gradient of the dual is within tol (margin units)",
                        Bounds::above(0)));
    d.back().sweep = false;
    d.push_back(integer<P>("max_iter", &P::max_iter, "Passes of coordinate descent at most (per class with ovr)",
                           Bounds::at_least(1)));
    d.back().sweep = false;
    d.push_back(mlt::seed<P>("seed", &P::seed, "Seed of the random coordinate order"));
    d.push_back(negated_flag<P>("fit_intercept", "no-intercept", &P::fit_intercept,
                                "Fit no intercept (by default b is a regularized bias feature, as LIBLINEAR's -B 1)"));
    return d;
  }();
  return t;
}

void Svm::save(io::ModelWriter& out) const {
  require_fitted();
  auto& h = out.header();
  h["params"] = params_json(SvmParams::table(), params_);
  // For ovr the K problems are independent: the total objective and gap are sums.
  std::size_t iterations = 0, n_sv = 0;
  double objective = 0, dual = 0, gap = 0, violation = 0;
  bool converged = true;
  for (const SvmFitInfo& fi : fit_info_) {
    iterations += fi.iterations;
    objective += fi.objective;
    dual += fi.dual_objective;
    gap += fi.duality_gap;
    violation = std::max(violation, fi.violation);
    n_sv += fi.n_sv;
    converged = converged && fi.converged;
  }
  h["fitted"] = {{"n_features", n_features_},
                 {"n_classes", n_classes_},
                 {"n_outputs", n_outputs()},
                 {"form", "primal"},
                 {"solver", "dual coordinate descent"},
                 {"iterations", iterations},
                 {"converged", converged},
                 {"objective", objective},
                 {"dual_objective", dual},
                 {"duality_gap", gap},
                 {"relative_gap", objective > 0 ? gap / objective : 0.0},
                 {"violation", violation}};
  nlohmann::json per = nlohmann::json::array();
  for (const SvmFitInfo& fi : fit_info_) per.push_back(info_json(fi));
  h["fitted"]["per_output"] = per;  // one binary problem per output
  if (fit_info_.size() == 1) h["fitted"]["n_sv"] = n_sv;
  if (params_.standardize) scaler_.save(out);
  out.add("coef", coef_);
  out.add("intercept", intercept_);
}

Svm Svm::load(const io::ModelReader& in) {
  in.expect_kind(kind);
  Params p;
  p.lambda = in.get<double>("/params/lambda");
  try {
    p.loss = parse_name<SvmLoss>(in.get<std::string>("/params/loss"));
    p.multiclass = parse_name<SvmMultiClass>(in.get<std::string>("/params/multiclass"));
  } catch (const UsageError& e) {
    in.fail(e.what());
  }
  p.fit_intercept = in.get<bool>("/params/fit_intercept");
  p.standardize = in.get<bool>("/params/standardize");
  const auto cw = in.get<std::string>("/params/class_weight");
  if (cw != "balanced" && cw != "none") in.fail("unknown class_weight \"" + cw + "\"");
  p.balanced = cw == "balanced";
  p.tol = in.get<double>("/params/tol");
  p.max_iter = in.get<std::size_t>("/params/max_iter");
  p.seed = in.get<std::uint64_t>("/params/seed");
  if (!(p.lambda > 0) || !std::isfinite(p.lambda) || !(p.tol > 0) || !std::isfinite(p.tol) || p.max_iter < 1)
    in.fail("invalid svm parameters");
  Svm m(p);
  const auto n_features = in.get<std::size_t>("/fitted/n_features");
  const auto K = in.get<std::size_t>("/fitted/n_classes");
  if (n_features == 0 || K < 2) in.fail("invalid svm dimensions");
  const arma::uword outputs = K == 2 ? 1 : K;
  if (in.get<std::size_t>("/fitted/n_outputs") != outputs) in.fail("n_outputs does not match n_classes");
  const auto form = in.get<std::string>("/fitted/form");
  if (form != "primal") in.fail("unknown svm form \"" + form + "\" (this mlt reads the linear SVM, form primal)");
  if (p.standardize) m.scaler_ = Standardizer::load(in, n_features);
  m.coef_ = in.matrix("coef", outputs, n_features);
  m.intercept_ = in.vector("intercept", outputs);
  if (!m.coef_.is_finite() || !m.intercept_.is_finite()) in.fail("non-finite svm coefficients");
  if (!p.fit_intercept && arma::any(m.intercept_ != 0)) in.fail("an intercept in a model fitted without one");
  const nlohmann::json::json_pointer per("/fitted/per_output");
  if (!in.header().contains(per) || !in.header().at(per).is_array() || in.header().at(per).size() != outputs)
    in.fail("the fit info needs one entry per output");
  for (arma::uword k = 0; k < outputs; ++k) m.fit_info_.push_back(info_from(in, "/fitted/per_output/" + std::to_string(k)));
  m.n_features_ = n_features;
  m.n_classes_ = K;
  return m;
}

}  // namespace mlt
