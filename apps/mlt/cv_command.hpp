// `mlt <algo> cv`: cross-validation and grid search for any estimator, written once.
//
// What an algorithm adds to get its cv verb (in its setup_<algo>, e.g. ridge):
//
//   auto& cv = add_cv_command<Ridge>(ridge, CvTask::regression, "Cross-validate ridge regression");
//   cv.grid("-l,--lambda", "lambda", &Ridge::Params::lambda, "L2 penalty", non_negative());
//   cv.app()->add_flag("--no-intercept", ...);   // plain fit flags write into cv.params()
//   cv.metrics(regression_metrics<Ridge>(), "mse");
//
// and for a classifier CvTask::classification with classification_metrics<E>() (it
// adds log_loss when E has predict_proba). A grid flag takes one value, a list
// 0.01,0.1,1, a log range 1e-4:1e2:13 (real flags) or an integer range 1:31:2
// (integer flags); text flags take lists. An unsupervised estimator (CvTask::none)
// gives its metric functions itself, and optionally what --oof writes (see cmd_pca.cpp).
// Everything else -- the flags below, reading the data, the folds, the search with
// --jobs, the report, --refit and --oof -- is done here, identically for every
// algorithm:
//
//   DATA [--target COL] [--folds K | --loo] [--repeats R] [--stratify | --no-stratify]
//   [--folds-from COL] [--seed S] [--metric M] [--jobs N] [--per-fold] [--json]
//   [--refit -o MODEL] [--oof FILE]
//
// The estimator contract is the one of lib/mlt/cv/cross_validate.hpp: Estimator(Params),
// fit(X) / fit(X, y), plus predict(X) for the supervised defaults, save(ModelWriter&)
// and `kind` for --refit.
#pragma once

#include <CLI/CLI.hpp>
#include <concepts>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.hpp"
#include "mlt/core/error.hpp"
#include "mlt/core/random.hpp"
#include "mlt/cv/cross_validate.hpp"
#include "mlt/cv/folds.hpp"
#include "mlt/cv/grid.hpp"
#include "mlt/cv/search.hpp"
#include "mlt/metrics.hpp"

namespace mlt::app {

enum class CvTask { none, regression, classification };

// The shared flags of every cv verb.
struct CvOptions {
  DataOptions data;
  Names target;                 // regression: several allowed; classification: one
  std::size_t folds = 5;
  bool loo = false;
  std::size_t repeats = 1;
  bool stratify = false, no_stratify = false;
  std::string folds_from;
  std::uint64_t seed = kDefaultSeed;
  std::string metric;           // "" : the algorithm's default
  unsigned jobs = 1;
  bool per_fold = false;
  bool json = false;
  bool refit = false;
  std::string output;           // with --refit
  std::string oof;              // --oof FILE
};

// The data of a cv run, read once.
struct CvData {
  io::Table table;
  arma::mat Y;                  // regression targets, n x t
  Names target_names;
  Labels y;                     // classification
  LabelEncoder encoder;
  DataSchema schema;            // for --refit's model file
  cv::Folds folds;
};

// Non-template helpers (cv_command.cpp).
void add_cv_options(CLI::App* cmd, CvOptions& opt, CvTask task);
// Reads DATA (targets and the --folds-from column kept apart from the features) and
// builds the folds the options ask for.
CvData read_cv_data(const CvOptions& opt, CvTask task);
// Checks --metric against the known names and returns the one to use.
std::string choose_metric(const CvOptions& opt, const Names& known, const std::string& fallback);
// Progress on stderr (only when it is a terminal, not under -q, after ~2 s).
cv::Progress progress_reporter();
// The report: CSV (default) or one JSON object on standard output.
void write_cv_report(const CvOptions& opt, const cv::Grid& grid, const cv::Folds& folds,
                     const cv::SearchResult& result);
// --oof: row, fold[, repeat], then the prediction columns (`text` columns first).
struct OofColumns {
  Names text_names;
  std::vector<std::vector<std::string>> text;  // per repeat, one cell per row (one text column at most)
  Names names;
  std::vector<arma::mat> values;               // per repeat: n x names
};
void write_oof(const std::string& path, const cv::Folds& folds, const OofColumns& columns);
void refuse_cv_overwrites(const CvOptions& opt);

// Metric functions of a fitted estimator on held-out rows, by name, in display order.
template <class Estimator, class Target>
using MetricList = std::vector<std::pair<std::string, cv::ScoreFn<Estimator, Target>>>;

// One regression metric by name, of predictions P against targets Y (both n x t):
// the single implementation behind regression_metrics() and the fast paths.
inline double regression_metric(const std::string& name, const arma::mat& Y, const arma::mat& P) {
  if (name == "mse") return metrics::mse(Y, P);
  if (name == "rmse") return metrics::rmse(Y, P);
  if (name == "mae") return metrics::mae(Y, P);
  if (name == "r2") return metrics::r2(Y, P);
  throw std::logic_error("regression_metric: unknown metric " + name);
}

// mse, rmse, mae, r2 of predict(X) against the targets (n x t).
template <class Estimator>
MetricList<Estimator, arma::mat> regression_metrics() {
  MetricList<Estimator, arma::mat> m;
  for (const char* name : {"mse", "rmse", "mae", "r2"})
    m.emplace_back(name, [n = std::string(name)](const Estimator& e, const arma::mat& X, const arma::mat& Y) {
      return regression_metric(n, Y, arma::mat(e.predict(X)));
    });
  return m;
}

template <class Estimator>
concept HasPredictProba = requires(const Estimator& e, const arma::mat& X) {
  { e.predict_proba(X) } -> std::convertible_to<arma::mat>;
};

// One classification metric by name from predicted classes (and the probabilities,
// for log_loss): the single implementation behind classification_metrics() and the
// fast paths that predict several grid points at once. The per-class metrics only
// count classes present in the fold, so the class count passed to them is any upper
// bound.
inline double class_metric(const std::string& name, const Labels& y, const Labels& p, const arma::mat* proba) {
  const std::size_t bound = static_cast<std::size_t>(std::max(y.is_empty() ? arma::uword(0) : y.max(),
                                                              p.is_empty() ? arma::uword(0) : p.max())) + 1;
  if (name == "accuracy") return metrics::accuracy(y, p);
  if (name == "balanced_accuracy") return metrics::balanced_accuracy(y, p, bound);
  if (name == "f1_macro") return metrics::f1_macro(y, p, bound);
  if (name == "log_loss" && proba) return metrics::log_loss(y, *proba);
  throw std::logic_error("class_metric: " + name + " needs what was not given");
}

// accuracy, balanced_accuracy, f1_macro of predict(X) (class indices), and log_loss of
// predict_proba(X) when the estimator has it.
template <class Estimator>
MetricList<Estimator, Labels> classification_metrics() {
  MetricList<Estimator, Labels> m;
  for (const char* name : {"accuracy", "balanced_accuracy", "f1_macro"})
    m.emplace_back(name, [n = std::string(name)](const Estimator& e, const arma::mat& X, const Labels& y) {
      return class_metric(n, y, e.predict(X), nullptr);
    });
  if constexpr (HasPredictProba<Estimator>)
    m.emplace_back("log_loss", [](const Estimator& e, const arma::mat& X, const Labels& y) {
      return metrics::log_loss(y, e.predict_proba(X));
    });
  return m;
}

// A fast path: what an algorithm gets to build a scorer that evaluates several grid
// points from one fit per split (cv::SearchOptions::group says which points go
// together). Everything referenced outlives the search.
template <class Estimator, class Target>
struct FastPathInput {
  const cv::Grid& grid;
  const typename Estimator::Params& base;   // defaults plus the plain flags
  const cv::ApplyFn<Estimator>& apply;      // writes a grid point into Params
  const arma::mat& X;
  const Target& y;
  const std::string& metric;
};
struct FastPath {
  cv::SplitScorer scorer;
  std::function<std::size_t(std::size_t point)> group;
};
template <class Estimator, class Target>
using FastPathFn = std::function<std::optional<FastPath>(const FastPathInput<Estimator, Target>&)>;

// The index of the axis called `name`, if the grid has it.
std::optional<std::size_t> axis_index(const cv::Grid& grid, const std::string& name);
// Grid point `point` with axis `axis` at its first value: the key that groups the
// points differing only along that axis.
std::size_t point_without_axis(const cv::Grid& grid, std::size_t point, std::size_t axis);

template <class Estimator>
class CvCommand {
 public:
  using Params = typename Estimator::Params;

  CvCommand(CLI::App* parent, CvTask task, const std::string& description) : task_(task) {
    app_ = parent->add_subcommand("cv", description);
    add_cv_options(app_, opt_, task);
  }

  // The cv subcommand, for plain (non-grid) fit flags bound to params().
  CLI::App* app() { return app_; }
  // The base parameters: defaults, plus the plain flags; grid points are applied to copies.
  Params& params() { return base_; }

  // A grid-able fit flag: `set` stores one value of it into Params. `check` validates
  // each value (a CLI11 validator, as the fit verb uses for the same flag).
  CvCommand& grid(const std::string& flags, const std::string& name, cv::ValueKind kind, const std::string& help,
                  std::function<void(Params&, const cv::Value&)> set, CLI::Validator check = {}) {
    auto flag = std::make_shared<GridFlag>();
    flag->name = name;
    flag->kind = kind;
    flag->set = std::move(set);
    flag->check = std::move(check);
    const char* syntax = kind == cv::ValueKind::real      ? " (grid: list 0.01,0.1,1 or log range LO:HI:N)"
                         : kind == cv::ValueKind::integer ? " (grid: list 1,3,5 or range FIRST:LAST[:STEP])"
                                                          : " (grid: list a,b)";
    flag->option = app_->add_option(flags, flag->text, help + syntax);
    flag->flag = flag->option->get_name();
    grid_flags_.push_back(flag);
    return *this;
  }
  // Shorthands for the usual parameter types.
  CvCommand& grid(const std::string& flags, const std::string& name, double Params::*field, const std::string& help,
                  CLI::Validator check = {}) {
    return grid(flags, name, cv::ValueKind::real, help, [field](Params& p, const cv::Value& v) { p.*field = v.number; },
                std::move(check));
  }
  template <std::integral Int>
  CvCommand& grid(const std::string& flags, const std::string& name, Int Params::*field, const std::string& help,
                  CLI::Validator check = {}) {
    return grid(flags, name, cv::ValueKind::integer, help,
                [field](Params& p, const cv::Value& v) { p.*field = static_cast<Int>(v.number); }, std::move(check));
  }
  CvCommand& grid(const std::string& flags, const std::string& name, std::string Params::*field, const std::string& help,
                  CLI::Validator check = {}) {
    return grid(flags, name, cv::ValueKind::text, help, [field](Params& p, const cv::Value& v) { p.*field = v.text; },
                std::move(check));
  }

  // The metrics --metric chooses from (the first is listed first in --help), and the default.
  template <class Target>
  CvCommand& metrics(MetricList<Estimator, Target> list, const std::string& default_metric) {
    constexpr CvTask expected = std::is_same_v<Target, arma::mat> ? CvTask::regression
                                : std::is_same_v<Target, Labels> ? CvTask::classification
                                                                  : CvTask::none;
    static_assert(std::is_same_v<Target, arma::mat> || std::is_same_v<Target, Labels> ||
                      std::is_same_v<Target, cv::NoTarget>,
                  "cv targets are arma::mat (regression), Labels (classes) or cv::NoTarget");
    if (task_ != expected) throw std::logic_error("CvCommand::metrics: metric targets do not match the task");
    Names names;
    for (const auto& m : list) names.push_back(m.first);
    metric_names_ = names;
    default_metric_ = default_metric;
    std::string help = "Metric to compare grid points by:";
    for (const auto& n : names) help += " " + n + (n == default_metric ? " (default)" : "");
    app_->get_option("--metric")->description(help);
    run_ = [this, list = std::move(list)] { run<Target>(list); };
    return *this;
  }

  // A fast path for the grids it can handle (it returns nothing for the others, which
  // take the plain path: one fit per grid point and split). Adds --no-fast-path, which
  // forces the plain path (the tests compare the two).
  template <class Target>
  CvCommand& fast_path(FastPathFn<Estimator, Target> f) {
    if constexpr (std::is_same_v<Target, arma::mat>)
      fast_regression_ = std::move(f);
    else if constexpr (std::is_same_v<Target, Labels>)
      fast_classification_ = std::move(f);
    else {
      static_assert(std::is_same_v<Target, cv::NoTarget>, "cv targets are arma::mat, Labels or cv::NoTarget");
      fast_none_ = std::move(f);
    }
    if (!app_->get_option_no_throw("--no-fast-path"))
      app_->add_flag("--no-fast-path", no_fast_path_,
                     "Fit every grid point separately instead of sharing one fit per fold (same results; for checks)");
    return *this;
  }

  // Runs the command (its CLI callback).
  void run_cv() {
    if (!run_) throw Error("internal: cv command without metrics()", kExitSoftware);
    run_();
  }

  // What --oof writes for held-out rows, for an unsupervised estimator (supervised
  // ones write predictions by default): column names from the data, and the values.
  CvCommand& oof(std::function<Names(const CvData&)> names, cv::PredictFn<Estimator> predict) {
    oof_names_ = std::move(names);
    oof_predict_ = std::move(predict);
    return *this;
  }

 private:
  struct GridFlag {
    std::string flag, name, text;
    cv::ValueKind kind;
    std::function<void(Params&, const cv::Value&)> set;
    CLI::Validator check;
    CLI::Option* option = nullptr;
  };

  cv::Grid make_grid() const {
    std::vector<cv::Axis> axes;
    for (const auto& f : grid_flags_) {
      if (f->option->count() == 0) continue;
      const cv::ValueCheck check = [c = f->check](const cv::Value& v) mutable {
        std::string t = v.text;
        return c(t);
      };
      axes.push_back(cv::parse_axis(f->flag, f->name, f->kind, f->text, check));
    }
    return cv::Grid(std::move(axes));
  }

  // Applies grid point values (one per given grid flag, in axis order) to params.
  void apply(Params& p, const std::vector<cv::Value>& point) const {
    std::size_t a = 0;
    for (const auto& f : grid_flags_) {
      if (f->option->count() == 0) continue;
      f->set(p, point[a++]);
    }
  }

  template <class Target>
  static const Target& target_of(const CvData& d) {
    if constexpr (std::is_same_v<Target, cv::NoTarget>) {
      static const cv::NoTarget none;
      return none;
    } else if constexpr (std::is_same_v<Target, Labels>) {
      return d.y;
    } else {
      return d.Y;
    }
  }

  template <class Target>
  void run(const MetricList<Estimator, Target>& list) {
    refuse_cv_overwrites(opt_);
    const cv::Grid grid = make_grid();
    const std::string metric = choose_metric(opt_, metric_names_, default_metric_);
    const CvData data = read_cv_data(opt_, task_);
    const Target& y = target_of<Target>(data);
    const arma::mat& X = data.table.X;

    cv::ScoreFn<Estimator, Target> score;
    for (const auto& m : list)
      if (m.first == metric) score = m.second;
    const cv::ApplyFn<Estimator> apply_fn = [this](Params& p, const std::vector<cv::Value>& v) { apply(p, v); };
    cv::SearchOptions so;
    std::optional<FastPath> fast;
    if (!no_fast_path_) {
      const FastPathInput<Estimator, Target> in{grid, base_, apply_fn, X, y, metric};
      const FastPathFn<Estimator, Target>& f = fast_path_fn<Target>();
      if (f) fast = f(in);
    }
    cv::SplitScorer scorer;
    if (fast) {
      scorer = std::move(fast->scorer);
      so.group = std::move(fast->group);
    } else {
      scorer = cv::make_split_scorer<Estimator, Target>(grid, base_, apply_fn, X, y, score);
    }
    so.jobs = opt_.jobs;
    so.progress = progress_reporter();
    const cv::SearchResult result = cv::grid_search(grid, data.folds, metric, scorer, so);

    Params best = base_;
    apply(best, grid.point(result.results[result.best].point));
    if (opt_.refit) {
      Estimator e(best);
      if constexpr (std::is_same_v<Target, cv::NoTarget>)
        e.fit(X);
      else
        e.fit(X, y);
      io::ModelWriter writer(Estimator::kind);
      e.save(writer);
      writer.header()["cv"] = {{"metric", metric}, {"mean", result.results[result.best].mean},
                               {"std", result.results[result.best].std}, {"folds", data.folds.description()},
                               {"params", grid.describe(result.results[result.best].point)}};
      write_model(opt_.output, writer, data.schema, data.table);
    }
    if (!opt_.oof.empty()) write_oof(opt_.oof, data.folds, out_of_fold<Target>(best, data, y));
    write_cv_report(opt_, grid, data.folds, result);
  }

  template <class Target>
  const FastPathFn<Estimator, Target>& fast_path_fn() const {
    if constexpr (std::is_same_v<Target, arma::mat>)
      return fast_regression_;
    else if constexpr (std::is_same_v<Target, Labels>)
      return fast_classification_;
    else
      return fast_none_;
  }

  template <class Target>
  OofColumns out_of_fold(const Params& best, const CvData& data, const Target& y) const {
    OofColumns c;
    cv::PredictFn<Estimator> predict = oof_predict_;
    if constexpr (std::is_same_v<Target, arma::mat>) {  // regression: the predictions
      if (!predict) predict = [](const Estimator& e, const arma::mat& X) { return arma::mat(e.predict(X)); };
      c.names = data.target_names;
    } else if constexpr (std::is_same_v<Target, Labels>) {  // classes, then probabilities
      if (!predict) {
        predict = [](const Estimator& e, const arma::mat& X) {
          arma::mat out = arma::conv_to<arma::mat>::from(Labels(e.predict(X)));
          if constexpr (HasPredictProba<Estimator>) out = arma::join_rows(out, arma::mat(e.predict_proba(X)));
          return out;
        };
      }
      c.text_names = {data.schema.target};
      if constexpr (HasPredictProba<Estimator>)
        for (const auto& k : data.encoder.classes()) c.names.push_back("p_" + k);
    } else {
      if (!predict || !oof_names_) throw UsageError("--oof is not available for this command");
      c.names = oof_names_(data);
    }
    for (std::size_t r = 0; r < data.folds.n_repeats(); ++r) {
      arma::mat P = cv::cross_validate<Estimator, Target>(best, data.table.X, y, data.folds, predict, r, opt_.jobs);
      if constexpr (std::is_same_v<Target, Labels>) {
        std::vector<std::string> labels(P.n_rows);
        for (arma::uword i = 0; i < P.n_rows; ++i) labels[i] = data.encoder.classes().at(static_cast<std::size_t>(P(i, 0)));
        c.text.push_back(std::move(labels));
        P.shed_col(0);
      }
      c.values.push_back(std::move(P));
    }
    return c;
  }

  CLI::App* app_ = nullptr;
  CvTask task_;
  CvOptions opt_;
  Params base_;
  std::vector<std::shared_ptr<GridFlag>> grid_flags_;
  Names metric_names_;
  std::string default_metric_;
  std::function<void()> run_;
  std::function<Names(const CvData&)> oof_names_;
  cv::PredictFn<Estimator> oof_predict_;
  FastPathFn<Estimator, arma::mat> fast_regression_;
  FastPathFn<Estimator, Labels> fast_classification_;
  FastPathFn<Estimator, cv::NoTarget> fast_none_;
  bool no_fast_path_ = false;
};

// Adds `cv` under an algorithm's subcommand. The command object lives as long as the
// CLI app (it is kept alive by its callback); configure it with grid(), metrics(), oof().
template <class Estimator>
CvCommand<Estimator>& add_cv_command(CLI::App* parent, CvTask task, const std::string& description) {
  auto cmd = std::make_shared<CvCommand<Estimator>>(parent, task, description);
  cmd->app()->callback([cmd] { cmd->run_cv(); });  // the callback owns the command
  return *cmd;
}

}  // namespace mlt::app
