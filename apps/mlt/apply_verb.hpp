// A verb that applies an unsupervised model to DATA and writes one CSV row per input
// row (`mlt kmeans predict`, `mlt pca transform`), written once:
// MODEL, DATA matched to the model's features and read a chunk at a time (written as
// it goes, in bounded memory), --keep, -o, and the refusal of an output that is an
// input. The algorithm says which columns its rows get, and may add
// one flag that changes them (k-means' --distances, pca's --reconstruct).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "data_options.hpp"
#include "model_io.hpp"
#include "output.hpp"

namespace mlt::app {

template <class E>
struct ApplyVerb {
  std::string name;         // "predict", "transform"
  std::string description;  // the verb's --help line
  struct Flag {
    std::string name, help;
  };
  std::optional<Flag> flag = std::nullopt;
  // The output columns of the rows of X (names, m x |names| values); `flag`: whether
  // the verb's flag was given; `schema`: the model's data (its column names).
  std::function<std::pair<Names, arma::mat>(const E&, const DataSchema& schema, const arma::mat& X, bool flag)>
      columns;
  // Refuses (UsageError) a flag the model cannot honour, before DATA is read.
  std::function<void(const E&, bool flag)> check = nullptr;
};

template <class E>
CLI::App* add_apply_verb(CLI::App* command, ApplyVerb<E> verb) {
  struct Options {
    std::string model;
    DataOptions data;
    std::string output = "-";
    bool flag = false;
  };
  auto opt = std::make_shared<Options>();
  auto* sub = command->add_subcommand(verb.name, verb.description);
  sub->add_option("model", opt->model, std::string("Model file from mlt ") + E::kind + " fit")->required();
  add_data_options(sub, opt->data);
  add_keep_option(sub, opt->data);
  sub->add_option("-o,--output", opt->output, "CSV file to write (default: standard output)");
  if (verb.flag) sub->add_flag(verb.flag->name, opt->flag, verb.flag->help);
  sub->callback([opt, columns = verb.columns, check = verb.check] {
    refuse_overwrite(opt->output, {opt->data.path, opt->model});
    const LoadedModel model = read_model(opt->model, E::kind);
    const E estimator = E::load(model.reader);
    if (check) check(estimator, opt->flag);
    CsvStream out(opt->output);
    read_chunks_for(model.schema, opt->data, [&](const io::Table& data) {
      const auto [names, values] = columns(estimator, model.schema, data.X, opt->flag);
      const KeptColumns kept = kept_columns(data, opt->data);
      out.write(kept.before({{}, {}, names, &values}));
    });
    out.commit();
  });
  return sub;
}

}  // namespace mlt::app
