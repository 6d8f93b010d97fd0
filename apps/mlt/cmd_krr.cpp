// mlt krr fit | predict | score | cv
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "regression_verbs.hpp"
#include "cv_command.hpp"
#include "mlt/core/error.hpp"
#include "mlt/krr.hpp"

namespace mlt::app {
namespace {

struct FitOptions {
  DataOptions data;
  std::string output;
  Names targets;
  std::string kernel;
  std::string landmarks = "uniform";
  Krr::Params params;
};

void run_fit(FitOptions opt) {
  refuse_overwrite(opt.output, {opt.data.path});
  opt.params.kernel.type = parse_name<KernelType>(opt.kernel);
  opt.params.landmarks = parse_name<LandmarkMethod>(opt.landmarks);
  const RegressionData data = read_regression_data(opt.data, opt.targets);
  Krr krr(opt.params);
  krr.fit(data.table.X, data.Y);
  io::ModelWriter writer(Krr::kind);
  krr.save(writer);
  write_model(opt.output, writer,
              {data.table.feature_names, data.table.had_header, data.target_names[0], data.target_names, {}},
              data.table);
}


// cv fast paths (mlt/cv/lambda_path.hpp), exact kernel ridge only (not --nystrom):
// on leave-one-out folds every lambda in closed form from one eigendecomposition of
// the whole kernel matrix (not with --standardize); otherwise the lambda grid from one
// eigendecomposition per split. Points where K + lambda*I is not positive definite are
// fitted the plain way.
std::optional<FastPath> krr_fast_path(const FastPathInput<Krr, arma::mat>& in) {
  if (std::optional<FastPath> loo = loo_lambda_path<Krr>(in)) return loo;
  return lambda_path<Krr>(in);
}

}  // namespace

void setup_krr(CLI::App& app) {
  auto* krr = app.add_subcommand("krr", "Kernel ridge regression, exact or Nyström");
  krr->require_subcommand(1);
  krr->footer(
      "Examples:\n"
      "  mlt krr fit data/diabetes.csv --standardize --kernel rbf --gamma 0.05 --lambda 0.5 -o d.krr\n"
      "  mlt krr fit big.csv --kernel rbf --sigma 2 --nystrom 2000 -o big.krr\n"
      "  mlt krr predict d.krr new.csv > predictions.csv\n"
      "  mlt krr score d.krr test.csv --json");

  auto fit_opt = std::make_shared<FitOptions>();
  auto* fit = krr->add_subcommand("fit", "Fit kernel ridge regression on DATA and save the model");
  add_data_options(fit, fit_opt->data);
  fit->add_option("-o,--output", fit_opt->output, "Model file to write")->required();
  add_target_option(fit, fit_opt->targets, true);
  fit->add_option("--kernel", fit_opt->kernel, "linear, poly, rbf, laplacian, exponential or sigmoid")
      ->required()
      ->check(one_of<KernelType>());
  auto* gamma = fit->add_option("--gamma", fit_opt->params.kernel.gamma,
                                "Kernel gamma (poly, rbf, laplacian, sigmoid; default 1/n_features)")
                    ->check(positive());
  fit->add_option("--sigma", fit_opt->params.kernel.sigma,
                  "Kernel width: rbf gamma = 1/(2 sigma^2); exponential exp(-|x-x'|/sigma) (default 1)")
      ->check(positive())
      ->excludes(gamma);
  fit->add_option("--degree", fit_opt->params.kernel.degree, "poly degree")->check(non_negative())->capture_default_str();
  fit->add_option("--coef0", fit_opt->params.kernel.coef0, "poly and sigmoid constant")->capture_default_str();
  fit->add_option("--lambda", fit_opt->params.lambda, "Penalty (scikit-learn's alpha)")
      ->check(non_negative())
      ->capture_default_str();
  fit->add_flag("--standardize", fit_opt->params.standardize,
                "Scale each feature to zero mean and unit variance before the kernel");
  fit->add_option("--nystrom", fit_opt->params.nystrom,
                  "Fit the Nyström approximation with M landmarks, O(n M^2) time, O(M^2) memory")
      ->check(positive_integer());
  fit->add_option("--landmarks", fit_opt->landmarks, "How Nyström picks landmarks: uniform or kmeans++")
      ->check(one_of<LandmarkMethod>())
      ->capture_default_str();
  fit->add_option("--seed", fit_opt->params.seed, "Seed of the landmark sampling")->check(seed())->capture_default_str();
  fit->callback([fit_opt] { run_fit(*fit_opt); });

  add_regression_verbs<Krr>(krr);

  // cv: each fold's fit (and its Standardizer) sees the training rows only. --seed
  // is the fold shuffle's here; the landmark sampling has --landmark-seed.
  auto& cv = add_cv_command<Krr>(krr, CvTask::regression,
                                 "Cross-validate kernel ridge regression over grids of lambda and kernel parameters");
  cv.grid("--lambda", "lambda", &Krr::Params::lambda, "Penalty (scikit-learn's alpha)", non_negative());
  cv.grid("--kernel", "kernel", cv::ValueKind::text, "linear, poly, rbf, laplacian, exponential or sigmoid",
          [](Krr::Params& p, const cv::Value& v) { p.kernel.type = parse_name<KernelType>(v.text); },
          one_of<KernelType>());
  cv.grid("--gamma", "gamma", cv::ValueKind::real, "Kernel gamma (poly, rbf, laplacian, sigmoid; default 1/n_features)",
          [](Krr::Params& p, const cv::Value& v) { p.kernel.gamma = v.number; }, positive());
  cv.grid("--sigma", "sigma", cv::ValueKind::real,
          "Kernel width: rbf gamma = 1/(2 sigma^2); exponential exp(-|x-x'|/sigma)",
          [](Krr::Params& p, const cv::Value& v) { p.kernel.sigma = v.number; }, positive());
  cv.grid("--degree", "degree", cv::ValueKind::real, "poly degree",
          [](Krr::Params& p, const cv::Value& v) { p.kernel.degree = v.number; }, non_negative());
  {
    CLI::App* c = cv.app();
    Krr::Params& p = cv.params();
    c->get_option("--kernel")->required();
    c->get_option("--gamma")->excludes(c->get_option("--sigma"));
    c->add_option("--coef0", p.kernel.coef0, "poly and sigmoid constant")->capture_default_str();
    c->add_flag("--standardize", p.standardize,
                "Scale each feature to zero mean and unit variance before the kernel (fitted on the training folds)");
    c->add_option("--nystrom", p.nystrom, "Nyström approximation with M landmarks (per fold)")->check(positive_integer());
    c->add_option_function<std::string>(
         "--landmarks", [&p](const std::string& m) { p.landmarks = parse_name<LandmarkMethod>(m); },
         "How Nyström picks landmarks: uniform or kmeans++")
        ->check(one_of<LandmarkMethod>());
    c->add_option("--landmark-seed", p.seed, "Seed of the landmark sampling (fit's --seed)")->check(seed())->capture_default_str();
  }
  cv.metrics(regression_metrics<Krr>(), "mse");
  cv.fast_path<arma::mat>(krr_fast_path);
}

}  // namespace mlt::app
