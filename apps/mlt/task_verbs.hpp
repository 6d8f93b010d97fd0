// The predict and score verbs of a command whose model is a classifier or a regressor
// by a parameter (mlt/core/estimator.hpp: TaskByParameter; knn's --regression, the
// smoother's --classification), written once. The model file says which it is:
// predict writes the class label in a column named after the target (with --proba one
// probability column per class) or one column per numeric target; score prints the
// classification report (confusion matrix, log_loss from the probabilities) or the
// regression metrics. Both from one prediction pass (E::predict_task).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "apply_verb.hpp"
#include "data_options.hpp"
#include "model_io.hpp"
#include "output.hpp"
#include "mlt/core/error.hpp"
#include "mlt/core/estimator.hpp"
#include "mlt/labels.hpp"

namespace mlt::app {

// What a command adds to its task-polymorphic verbs.
template <class E>
struct TaskVerbs {
  // predict --<flag>: columns appended after the predictions (knn's neighbours).
  struct Columns {
    std::string flag;  // "--neighbors"
    std::string help;
    // The columns of the rows of X, and in `prediction` their prediction, from the
    // same work (knn: one neighbour search for both).
    std::function<std::pair<Names, arma::mat>(const E&, const arma::mat& X, TaskPrediction& prediction)> make;
  };
  std::optional<Columns> columns = std::nullopt;
  // The model's default rule for rows without evidence (TaskPrediction::n_defaulted):
  // the name score gives the count in its JSON, and the line stderr gets when it
  // happened (rows, of how many, classification or not).
  std::string defaulted_key = "";
  std::function<std::string(std::size_t n_defaulted, std::size_t n_rows, bool classification)> defaulted_note = nullptr;
};

// A model predicted from a neighbour search that can run by shards of its training
// set over MPI ranks (Knn::search_over).
template <class E>
concept SearchesOverRanks = requires(E& e, const Communicator& comm) { e.search_over(comm); };

// Predict under several ranks for a model that searches by shards (search_over done):
// every rank reads every row of DATA, chunk by chunk (the search needs every rank's
// shard for every query), and gets the same merged neighbours and so the same
// predictions; rank 0 alone writes them (`output`, temporary file then rename, or
// standard output). The ranks agree after each chunk read, so an error on any rank
// (a bad cell, a failed write on rank 0) stops every rank with its message; the
// output is then not committed.
inline void predict_by_shards(
    const DataSchema& schema, const DataOptions& data, const std::string& output, const Communicator& comm,
    const std::function<void(const io::Table&, const std::function<void(const CsvColumns&)>&)>& predict_chunk) {
  if (data.path == "-")
    throw UsageError("standard input under " + std::to_string(comm.size()) +
                     " ranks: every rank reads DATA whole; give a file every rank can read");
  std::unique_ptr<CsvStream> out;
  std::unique_ptr<ChunksFor> chunks;
  std::exception_ptr failure;
  try {
    if (comm.rank() == 0) out = std::make_unique<CsvStream>(output);
    chunks = std::make_unique<ChunksFor>(schema, data);
  } catch (...) {
    failure = std::current_exception();
  }
  io::Table chunk;
  while (true) {
    bool more = false;
    try {
      if (!failure) more = chunks->next(chunk);
    } catch (...) {
      failure = std::current_exception();
    }
    agree(comm, failure);  // the read, and the previous chunk's write
    if (!more) break;
    predict_chunk(chunk, [&](const CsvColumns& block) {  // the search inside is collective
      try {
        if (out) out->write(block);
      } catch (...) {
        failure = std::current_exception();
      }
    });
  }
  try {
    if (out) out->commit();
  } catch (...) {
    failure = std::current_exception();
  }
  agree(comm, failure);
}

template <TaskByParameter E>
void add_task_verbs(CLI::App* command, TaskVerbs<E> verbs = {}) {
  struct Options {
    std::string model;
    DataOptions data;
    std::string output = "-";
    bool proba = false;
    bool columns = false;
    bool json = false;
  };
  const std::string model_help = std::string("Model file from mlt ") + E::kind + " fit";
  const auto load = [](const std::string& path) {
    return read_estimator<E>(path, [](const E& m) { return m.is_classification(); });
  };
  const auto tell = [verbs](const TaskPrediction& p, std::size_t n_rows, bool classification) {
    if (p.n_defaulted > 0 && verbs.defaulted_note) note(verbs.defaulted_note(p.n_defaulted, n_rows, classification));
  };
  const auto targets_of = [](const DataSchema& schema) {
    return schema.targets.empty() ? Names{schema.target} : schema.targets;
  };

  auto pr_opt = std::make_shared<Options>();
  auto* pr = command->add_subcommand("predict", "Predict the class or the numeric target(s) of each row of DATA");
  pr->add_option("model", pr_opt->model, model_help)->required();
  add_data_options(pr, pr_opt->data);
  add_keep_option(pr, pr_opt->data);
  pr->add_option("-o,--output", pr_opt->output, "CSV file to write (default: standard output)");
  pr->add_flag("--proba", pr_opt->proba, "Add one probability column per class, named after it (classifiers)");
  if (verbs.columns) pr->add_flag(verbs.columns->flag, pr_opt->columns, verbs.columns->help);
  pr->callback([pr_opt, load, tell, targets_of, verbs] {
    const Options& opt = *pr_opt;
    refuse_overwrite(opt.output, {opt.data.path, opt.model});
    auto [loaded, model] = load(opt.model);
    const bool classification = model.is_classification();
    if (opt.proba && !classification) throw UsageError("--proba needs a classifier; this model is a regressor");
    const DataSchema& schema = loaded.schema;
    std::uint64_t n_rows = 0;
    TaskPrediction all;  // the count of defaulted rows, over the chunks
    // A chunk's output rows, handed to `write`.
    const auto predict_chunk = [&](const io::Table& data, const std::function<void(const CsvColumns&)>& write) {
      TaskPrediction p;
      std::pair<Names, arma::mat> extra;
      if (opt.columns) extra = verbs.columns->make(model, data.X, p);
      else p = model.predict_task(data.X);
      all.n_defaulted += p.n_defaulted;
      n_rows += data.n_rows();
      CsvColumns block;
      std::vector<std::string> labels;
      arma::mat values;
      if (classification) {
        labels = LabelEncoder(schema.classes).decode(p.classes);
        block.text_names = {schema.target};
        block.text = {&labels};
        if (opt.proba) {
          values = p.values;
          block.names = schema.classes;
        }
      } else {
        values = p.values;
        block.names = targets_of(schema);
      }
      if (opt.columns) {
        for (std::string& n : extra.first) block.names.push_back(std::move(n));
        values = values.is_empty() ? extra.second : arma::mat(arma::join_rows(values, extra.second));
      }
      if (!block.names.empty()) block.values = &values;
      const KeptColumns kept = kept_columns(data, opt.data);
      write(kept.before(block));
    };
    const Communicator& comm = world();
    if constexpr (SearchesOverRanks<E>) {
      if (comm.size() > 1) {
        model.search_over(comm);
        predict_by_shards(schema, opt.data, opt.output, comm, predict_chunk);
        tell(all, n_rows, classification);  // every rank predicted every row: rank 0's counts are the totals
        return;
      }
    }
    predict_chunks(schema, opt.data, opt.output, [&](const io::Table& data, CsvStream& out) {
      predict_chunk(data, [&out](const CsvColumns& block) { out.write(block); });
    });
    if (comm.size() > 1) {  // each rank counted its own part
      const std::vector<double> mine = {static_cast<double>(all.n_defaulted), static_cast<double>(n_rows)};
      all.n_defaulted = n_rows = 0;
      for (const std::string& s : comm.allgather(to_bytes(mine))) {
        const std::vector<double> v = doubles_of(s);
        all.n_defaulted += static_cast<std::size_t>(v[0]);
        n_rows += static_cast<std::uint64_t>(v[1]);
      }
    }
    tell(all, n_rows, classification);
  });
  distribute(pr);

  auto sc_opt = std::make_shared<Options>();
  auto* sc = command->add_subcommand(
      "score", "Accuracy, balanced accuracy, macro F1, log loss, Brier score, ROC AUC, average precision, per-class "
               "precision, recall and F1, and confusion matrix (classifiers), or mse, rmse, mae and r2, per target too "
               "(regressors), of MODEL on DATA");
  sc->add_option("model", sc_opt->model, model_help)->required();
  add_data_options(sc, sc_opt->data);
  sc->add_flag("--json", sc_opt->json, "One JSON object instead of lines");
  sc->callback([sc_opt, load, tell, targets_of, verbs] {
    const Options& opt = *sc_opt;
    const auto [loaded, model] = load(opt.model);
    const DataSchema& schema = loaded.schema;
    const io::Table data = read_data_for(schema, opt.data, targets_of(schema));
    const TaskPrediction p = model.predict_task(data.X);
    nlohmann::json fields = {{"n_samples", data.n_rows()}};
    if (!verbs.defaulted_key.empty()) fields[verbs.defaulted_key] = p.n_defaulted;
    if (model.is_classification())
      print_classification_scores(class_truth(data, schema), p.classes, &p.values, &p.values, schema.classes, opt.json,
                                  fields);
    else
      print_regression_scores(regression_truth(data, schema), p.values, targets_of(schema), opt.json, fields);
    tell(p, data.n_rows(), model.is_classification());
  });
}

}  // namespace mlt::app
