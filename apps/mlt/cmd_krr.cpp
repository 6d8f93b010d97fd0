// mlt krr fit | predict | score
#include <memory>

#include "commands.hpp"
#include "common.hpp"
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

struct ApplyOptions {
  std::string model;
  DataOptions data;
  std::string output = "-";
  bool json = false;
};

void run_fit(FitOptions opt) {
  refuse_overwrite(opt.output, {opt.data.path});
  opt.params.kernel.type = parse_kernel_type(opt.kernel);
  opt.params.landmarks = parse_landmark_method(opt.landmarks);
  const RegressionData data = read_regression_data(opt.data, opt.targets);
  Krr krr(opt.params);
  krr.fit(data.table.X, data.Y);
  io::ModelWriter writer(Krr::kind);
  krr.save(writer);
  write_model(opt.output, writer,
              {data.table.feature_names, data.table.had_header, data.target_names[0], data.target_names, {}},
              data.table);
}

void run_predict(const ApplyOptions& opt) {
  refuse_overwrite(opt.output, {opt.data.path, opt.model});
  const LoadedModel model = read_model(opt.model, Krr::kind);
  const Krr krr = Krr::load(model.reader);
  const io::Table data = read_data_for(model.schema, opt.data);
  const arma::mat P = krr.predict(data.X);
  write_csv(opt.output, {{}, {}, model.schema.targets, &P});
}

void run_score(const ApplyOptions& opt) {
  const LoadedModel model = read_model(opt.model, Krr::kind);
  const Krr krr = Krr::load(model.reader);
  const io::Table data = read_data_for(model.schema, opt.data, model.schema.targets);
  const arma::mat Y = regression_truth(data, model.schema);
  print_scores(regression_scores(Y, krr.predict(data.X)), opt.json, {{"n_samples", data.n_rows()}});
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
      ->check(CLI::IsMember({"linear", "poly", "rbf", "laplacian", "exponential", "sigmoid"}));
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
      ->check(CLI::IsMember({"uniform", "kmeans++"}))
      ->capture_default_str();
  fit->add_option("--seed", fit_opt->params.seed, "Seed of the landmark sampling")->capture_default_str();
  fit->callback([fit_opt] { run_fit(*fit_opt); });

  auto pr_opt = std::make_shared<ApplyOptions>();
  auto* pr = krr->add_subcommand("predict", "Predict the target(s) of DATA with MODEL");
  pr->add_option("model", pr_opt->model, "Model file from mlt krr fit")->required();
  add_data_options(pr, pr_opt->data);
  pr->add_option("-o,--output", pr_opt->output, "CSV file to write (default: standard output)");
  pr->callback([pr_opt] { run_predict(*pr_opt); });

  auto sc_opt = std::make_shared<ApplyOptions>();
  auto* sc = krr->add_subcommand("score", "mse, rmse, mae and r2 of MODEL on DATA (which has the target)");
  sc->add_option("model", sc_opt->model, "Model file from mlt krr fit")->required();
  add_data_options(sc, sc_opt->data);
  sc->add_flag("--json", sc_opt->json, "One JSON object instead of lines");
  sc->callback([sc_opt] { run_score(*sc_opt); });
}

}  // namespace mlt::app
