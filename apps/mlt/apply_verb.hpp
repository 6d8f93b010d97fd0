// A verb that applies an unsupervised model to DATA and writes one CSV row per input
// row (`mlt kmeans predict`, `mlt pca transform`), written once:
// MODEL, DATA matched to the model's features and read a chunk at a time (written as
// it goes, in bounded memory), --keep, -o, and the refusal of an output that is an
// input. The algorithm says which columns its rows get, and may add
// one flag that changes them (k-means' --distances, pca's --reconstruct).
//
// Also here, for every verb that writes one row per input row (the predict verbs of
// classifier_verbs.hpp, regression_verbs.hpp and task_verbs.hpp too): how DATA is
// read and the rows written, in one process or under several MPI ranks
// (predict_chunks).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "data_options.hpp"
#include "fit_verb.hpp"
#include "model_io.hpp"
#include "output.hpp"

namespace mlt::app {

// Reads DATA for `schema` a chunk at a time; `each` writes a chunk's output rows to
// the CSV it is given, committed to `output` when all are written. One process reads
// DATA whole (read_chunks_for). Under several MPI ranks (world()), each rank reads its
// own byte range of DATA (rank_part; a file, not standard input), and the rows reach
// `output` in input order, the single process's bytes (RankOrderedCsv); an error on
// any rank (a bad cell: its file:line:column) stops every rank with that rank's
// message, nothing written.
inline void predict_chunks(const DataSchema& schema, const DataOptions& data, const std::string& output,
                           const std::function<void(const io::Table&, CsvStream&)>& each) {
  const Communicator& comm = world();
  if (comm.size() == 1) {
    CsvStream out(output);
    read_chunks_for(schema, data, [&](const io::Table& chunk) { each(chunk, out); });
    out.commit();
    return;
  }
  const RankPart part = rank_part(data, comm);
  RankOrderedCsv out(output, comm);
  std::exception_ptr failure;
  std::uint64_t rows = 0;
  try {  // this rank's own work: nothing in here waits for another rank
    ChunksFor chunks(schema, data, part.split.get(), &part.range);
    io::Table chunk;
    while (chunks.next(chunk)) {
      each(chunk, out.part());
      rows += chunk.n_rows();
    }
  } catch (...) {
    failure = std::current_exception();
  }
  // No rows in any part: the reader's message for the whole file (--na drop, which
  // could have dropped them, is refused under ranks).
  out.commit(failure, rows, data.path + ": no data rows" + (data.no_header ? "" : " (only a header)"));
}

// Registers a verb built on predict_chunks as one that runs under several ranks.
inline void distribute(const CLI::App* verb) { distributed_verbs().insert(verb); }

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
    predict_chunks(model.schema, opt->data, opt->output, [&](const io::Table& data, CsvStream& out) {
      const auto [names, values] = columns(estimator, model.schema, data.X, opt->flag);
      const KeptColumns kept = kept_columns(data, opt->data);
      out.write(kept.before({{}, {}, names, &values}));
    });
  });
  distribute(sub);
  return sub;
}

}  // namespace mlt::app
