// `mlt <algo> fit`, written once: DATA, -o MODEL, --target for a supervised task,
// and every hyperparameter the estimator declares (param_flags.hpp). It reads the
// data as the task reads it, fits, and saves the model with its data schema; the
// algorithm adds only what `mlt info` shows beyond the parameters and the line it
// prints on stderr. `cv --refit` saves through the same save_model.
#pragma once

#include <CLI/CLI.hpp>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include <sys/stat.h>

#include "cli_support.hpp"
#include "mlt/core/distributed.hpp"
#include "mlt/core/row_passes.hpp"
#include "mlt/core/scatter.hpp"
#include "mlt/io/csv_chunks.hpp"
#include "data_options.hpp"
#include "model_io.hpp"
#include "cv_command.hpp"
#include "param_flags.hpp"

namespace mlt::app {

// What a fit read: the table (features, provenance) and the schema it saves.
struct FitData {
  io::Table table;
  DataSchema schema;
  Labels y;      // classification: the class indices
  arma::mat Y;   // regression: the targets
};

// What an unsupervised fit with inputs of its own (FitHooks::fit) is given.
struct FitInput {
  const io::Table& data;     // DATA as read
  const DataOptions& data_options;  // how it was read (to read a companion file alike)
  const std::string& output; // the model file to be written (no input may be it)
};

template <class E>
struct FitHooks {
  // The header's "info": what `mlt info` shows of this model beyond its parameters
  // (null: nothing).
  std::function<nlohmann::json(const E&, const FitData&)> info = nullptr;
  // One line for stderr (not under -q): "logreg: 3 classes, 9 Newton iterations ...".
  std::function<std::string(const E&, const FitData&)> summary = nullptr;
  // For an estimator that is a classifier or a regressor by a parameter (knn's
  // `regression`): the task its parameters ask for. --target then takes several
  // columns, which only a regression may use.
  std::function<CvTask(const typename E::Params&)> task = nullptr;
  // For an unsupervised fit that takes more than DATA (k-means' --centroids):
  // `options` adds its flags (and may change parameter defaults), `fit` reads what
  // they name and fits in place of E(params).fit(X), and `detail` adds to the fit's
  // timing line (--timings).
  std::function<void(CLI::App* fit, typename E::Params& params)> options = nullptr;
  std::function<E(typename E::Params params, const FitInput& input)> fit = nullptr;
  std::function<std::string(const E&)> detail = nullptr;
};

// --stream, --memory and --chunk-size: the fit reads DATA in chunks and holds only
// the estimator's state (E::fit_stream) instead of the rows. Off unless asked for.
struct StreamOptions {
  bool stream = false;
  std::string memory;      // a budget: stream when the in-memory fit may need more
  std::string chunk_size;  // bytes of input per chunk
};

template <class E>
concept Streamable = requires(E& e, const RowChunks& next) { e.fit_stream(next); };
// A streamed fit that reads DATA once per pass (k-means): E::fit_stream(RowPasses).
template <class E>
concept MultiPassStreamable = requires(E& e, const RowPasses& passes) { e.fit_stream(passes); };

inline void add_stream_options(CLI::App* fit, StreamOptions& opt,
                               const std::string& stream_help = "Read DATA in chunks, holding the fit's state (O(p²)) "
                                                                "instead of the rows; the same model up to rounding") {
  fit->add_flag("--stream", opt.stream, stream_help);
  fit->add_option("--memory", opt.memory,
                  "Stream when the in-memory fit could need more than SIZE (512M, 2G): 16 bytes per cell, the "
                  "cells estimated from the file's first MiB; always for standard input");
  fit->add_option("--chunk-size", opt.chunk_size, "Bytes of input per chunk when streaming (default 16M)");
}

// Whether to stream: --stream; or --memory given and the in-memory fit possibly
// needing more. Its need is estimated as two copies of the matrix (the parsed one and
// a centred or standardized one), 2 x 8 bytes a cell, the cells counted as the file's
// size over the bytes per cell of its first MiB (io::bytes_per_cell; at least 2, a
// digit and a delimiter, so never more than 8 bytes per byte of file). A stream whose
// size is unknown (standard input, a pipe) is streamed.
inline bool want_stream(const StreamOptions& opt, const std::string& path) {
  if (!opt.chunk_size.empty()) {
    io::parse_memory_size(opt.chunk_size, "--chunk-size");  // refused whether or not it streams
    if (!opt.stream && opt.memory.empty())
      throw UsageError("--chunk-size applies to a streamed fit: add --stream (or --memory SIZE)");
  }
  if (opt.stream) return true;
  if (opt.memory.empty()) return false;
  const std::uint64_t budget = io::parse_memory_size(opt.memory, "--memory");
  struct stat st;
  if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return true;
  return 16 * static_cast<double>(st.st_size) / io::bytes_per_cell(path) > static_cast<double>(budget);
}

// A chunk's rows as a streamed fit takes them: X, and Y from the target columns
// (numeric, with their file:line in messages); their names into `target_names`.
inline void chunk_rows(io::Table& chunk, arma::mat& X, arma::mat& Y, Names& target_names) {
  X = std::move(chunk.X);
  Y.set_size(X.n_rows, chunk.text.size());
  target_names.clear();
  for (std::size_t t = 0; t < chunk.text.size(); ++t) {
    const auto& col = chunk.text[t];
    Y.col(t) = parse_numeric_target(col.values, col.name, chunk.source, chunk.lines);
    target_names.push_back(col.name);
  }
}

// What a streamed fit saves: the data's provenance (`summary`, a table without its
// values) with the rows read, and the schema.
inline void streamed_schema(io::Table summary, std::uint64_t rows, const Names& targets, const Names& target_names,
                            FitData& d) {
  d.table = std::move(summary);
  // The model file records the rows read (Table::n_rows, the rows of X): an n x 0
  // matrix says so without holding any value.
  d.table.X.set_size(rows, 0);
  if (d.table.dropped_rows)
    note(d.table.source + ": dropped " + std::to_string(d.table.dropped_rows) +
         (d.table.dropped_rows == 1 ? " row" : " rows") + " with missing values");
  if (targets.empty()) d.schema = {d.table.feature_names, d.table.had_header, "", {}, {}, ""};
  else d.schema = {d.table.feature_names, d.table.had_header, target_names[0], target_names, {}, ""};
}

inline std::size_t chunk_bytes_of(const StreamOptions& sopt) {
  return sopt.chunk_size.empty() ? io::kDefaultChunkBytes : io::parse_memory_size(sopt.chunk_size, "--chunk-size");
}

// The streamed fit: DATA read a chunk at a time into E::fit_stream; `targets` are
// the regression's target columns (none for an unsupervised fit). Fills d with the
// schema and the data's provenance (a table without its values).
template <class E>
void fit_streamed(E& model, const DataOptions& data, const StreamOptions& sopt, const Names& targets, FitData& d,
                  const std::function<std::string(const E&)>& detail) {
  io::ColumnSelection sel;
  sel.text = targets;
  sel.ignore = data.ignore;
  io::CsvChunks chunks(data.path, csv_options(data), sel, chunk_bytes_of(sopt));
  io::Table chunk;
  std::size_t n_chunks = 0;
  Names target_names;
  const RowChunks next = [&](arma::mat& X, arma::mat& Y) {
    if (!chunks.next(chunk)) return false;
    ++n_chunks;
    chunk_rows(chunk, X, Y, target_names);
    return true;
  };
  {
    PhaseTimer timer("fit");
    model.fit_stream(next);
    std::string what = "streamed " + std::to_string(chunks.rows()) + " rows in " + std::to_string(n_chunks) +
                       (n_chunks == 1 ? " chunk" : " chunks");
    if (detail) what += "; " + detail(model);
    timer.set_detail(what);
  }
  streamed_schema(chunks.summary(), chunks.rows(), targets, target_names, d);
}

// The fit verbs that run under several MPI ranks (add_fit_verb registers them): main
// refuses any other command there, naming these.
inline std::set<const CLI::App*>& distributed_verbs() {
  static std::set<const CLI::App*> verbs;
  return verbs;
}

// The streamed fit under several ranks (world().size() > 1): each rank reads its own
// byte range of DATA (io::FileSplit, io::CsvRangeChunks) into E::fit_stream, which
// merges the ranks' states; every rank ends with the same model, and the caller lets
// rank 0 alone save it. Fills d as fit_streamed does, with the totals of all ranks.
//
// Every step that can fail on one rank alone (opening DATA, reading a range, a bad
// cell) runs where agree() follows, so that all ranks stop together with the first
// failing rank's message: the split's scan here, the reading inside fit_stream (the
// range reader is opened by the first call of `next`).
template <class E>
void fit_distributed(E& model, const DataOptions& data, const StreamOptions& sopt, const Names& targets, FitData& d,
                     const std::function<std::string(const E&)>& detail) {
  const Communicator& comm = world();
  const std::size_t rank = static_cast<std::size_t>(comm.rank()), size = static_cast<std::size_t>(comm.size());
  io::ColumnSelection sel;
  sel.text = targets;
  sel.ignore = data.ignore;
  const io::CsvOptions csv = csv_options(data);
  const std::size_t chunk_bytes = chunk_bytes_of(sopt);
  if (data.path == "-")
    throw UsageError("standard input cannot be split between " + std::to_string(size) +
                     " ranks: give DATA as a file every rank can read");

  // The split: each rank counts its nominal part (quotes, line ends); the counts go to
  // every rank, from which each finds its range (io::FileSplit).
  std::unique_ptr<io::FileSplit> split;
  io::PartScan scan;
  std::exception_ptr failure;
  try {
    split = std::make_unique<io::FileSplit>(data.path, csv.header, size);
    scan = split->scan(rank);
  } catch (...) {
    failure = std::current_exception();
  }
  agree(comm, failure);
  std::vector<io::PartScan> scans;
  for (const std::string& s : comm.allgather(std::string(reinterpret_cast<const char*>(&scan), sizeof scan))) {
    io::PartScan part;
    std::memcpy(&part, s.data(), sizeof part);
    scans.push_back(part);
  }

  std::unique_ptr<io::CsvRangeChunks> chunks;
  io::Table chunk;
  std::uint64_t n_chunks = 0;
  Names target_names;
  const RowChunks next = [&](arma::mat& X, arma::mat& Y) {
    if (!chunks)
      chunks = std::make_unique<io::CsvRangeChunks>(data.path, *split, split->range(rank, scans), csv, sel,
                                                    chunk_bytes);
    if (!chunks->next(chunk)) return false;
    ++n_chunks;
    chunk_rows(chunk, X, Y, target_names);
    return true;
  };
  // Totals over the ranks (every rank calls this at the same point): rows, dropped
  // rows, chunks and parts read to their end; and the target names of the first rank
  // that read a row (each name ends in a NUL byte).
  struct Totals {
    std::uint64_t rows = 0, dropped = 0, chunks = 0, finished = 0;
    Names target_names;
  };
  const auto totals = [&] {
    const std::uint64_t mine[4] = {chunks ? chunks->rows() : 0, chunks ? chunks->dropped_rows() : 0, n_chunks,
                                   chunks && chunks->finished()};
    std::string local(reinterpret_cast<const char*>(mine), sizeof mine);
    for (const std::string& name : target_names) local += name + '\0';
    Totals all;
    for (const std::string& s : comm.allgather(local)) {
      std::uint64_t theirs[4];
      std::memcpy(theirs, s.data(), sizeof theirs);
      all.rows += theirs[0], all.dropped += theirs[1], all.chunks += theirs[2], all.finished += theirs[3];
      if (theirs[0] > 0 && all.target_names.empty())
        for (std::size_t at = sizeof theirs, end; at < s.size(); at = end + 1) {
          end = s.find('\0', at);
          all.target_names.push_back(s.substr(at, end - at));
        }
    }
    return all;
  };
  Totals all;
  {
    PhaseTimer timer("fit");
    try {
      model.fit_stream(next, comm);
    } catch (const DataError&) {
      // Thrown on every rank alike (fit_stream agrees first). Every part read to its
      // end and no row: the reader's message for a file without data rows, which no
      // single part could give.
      all = totals();
      if (all.rows == 0 && all.finished == size)
        throw DataError(data.path + ": no data rows" +
                        (all.dropped ? " left after dropping " + std::to_string(all.dropped) + " with missing values"
                                     : std::string(csv.header ? " (only a header)" : "")));
      throw;
    }
    all = totals();
    std::string what = "streamed " + std::to_string(all.rows) + " rows in " + std::to_string(all.chunks) +
                       (all.chunks == 1 ? " chunk" : " chunks") + " on " + std::to_string(size) + " ranks";
    if (detail) what += "; " + detail(model);
    timer.set_detail(what);
  }
  io::Table summary = chunks ? chunks->summary() : io::Table{};
  summary.dropped_rows = static_cast<std::size_t>(all.dropped);
  streamed_schema(std::move(summary), all.rows, targets, all.target_names, d);
}

// The streamed fit of an estimator that reads DATA once per pass: each pass opens
// DATA again (so it must be a regular file: standard input and pipes are read once,
// and spooling them would put a file larger than memory on disk behind the user's
// back). The first pass is read to the end; its reader gives the provenance.
template <class E>
void fit_streamed_passes(E& model, const DataOptions& data, const StreamOptions& sopt, FitData& d,
                         const std::function<std::string(const E&)>& detail) {
  struct stat st;
  if (data.path == "-" || (::stat(data.path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)))
    throw UsageError(std::string("a streamed ") + E::kind + " fit reads DATA once per pass, and " +
                     (data.path == "-" ? "standard input" : data.path + " (not a regular file)") +
                     " can be read only once: give a file, or leave out --stream and --memory");
  const std::size_t chunk_bytes = chunk_bytes_of(sopt);
  io::ColumnSelection sel;
  sel.ignore = data.ignore;
  const io::CsvOptions csv = csv_options(data);
  std::shared_ptr<io::CsvChunks> first;
  std::size_t n_chunks = 0, n_passes = 0;
  const RowPasses passes = [&]() -> RowChunks {
    auto chunks = std::make_shared<io::CsvChunks>(data.path, csv, sel, chunk_bytes);
    const bool is_first = !first;
    if (is_first) first = chunks;
    ++n_passes;
    auto table = std::make_shared<io::Table>();
    return [chunks, table, is_first, &n_chunks](arma::mat& X, arma::mat& Y) {
      if (!chunks->next(*table)) return false;
      if (is_first) ++n_chunks;
      X = std::move(table->X);
      Y.reset();
      return true;
    };
  };
  {
    PhaseTimer timer("fit");
    model.fit_stream(passes);
    std::string what = "streamed " + std::to_string(first->rows()) + " rows in " + std::to_string(n_chunks) +
                       (n_chunks == 1 ? " chunk, " : " chunks, ") + std::to_string(n_passes) + " passes";
    if (detail) what += "; " + detail(model);
    timer.set_detail(what);
  }
  d.table = first->summary();
  d.table.X.set_size(first->rows(), 0);  // the row count, without the rows (as fit_streamed)
  if (d.table.dropped_rows)
    note(d.table.source + ": dropped " + std::to_string(d.table.dropped_rows) +
         (d.table.dropped_rows == 1 ? " row" : " rows") + " with missing values");
  d.schema = {d.table.feature_names, d.table.had_header, "", {}, {}, ""};
}

// Adds `fit` under an algorithm's command. Classification: --target is one column
// of labels (the last by default); regression: one or several numeric columns;
// CvTask::none: every column is a feature (but --ignore).
template <class E>
CLI::App* add_fit_verb(CLI::App* command, CvTask task, const std::string& description, FitHooks<E> hooks = {}) {
  struct Options {
    DataOptions data;
    std::string output;
    Names targets;
    typename E::Params params;
    StreamOptions stream;
  };
  auto opt = std::make_shared<Options>();
  auto* fit = command->add_subcommand("fit", description);
  add_data_options(fit, opt->data);
  add_encoding_options(fit, opt->data);
  fit->add_option("-o,--output", opt->output, "Model file to write")->required();
  if (task != CvTask::none) add_target_option(fit, opt->targets, task == CvTask::regression || hooks.task);
  const auto flags = add_param_flags(fit, opt->params, E::Params::table());
  if constexpr (Streamable<E>) {
    add_stream_options(fit, opt->stream);
    if (task != CvTask::classification) distributed_verbs().insert(fit);
  }
  if constexpr (MultiPassStreamable<E>)
    add_stream_options(fit, opt->stream,
                       "Read DATA in chunks, once per pass (so DATA must be a file), holding the fit's state instead "
                       "of the rows; the same model");
  if (hooks.options) hooks.options(fit, opt->params);
  fit->callback([opt, flags, declared_task = task, hooks] {
    flags.refuse_inapplicable(opt->params);
    const CvTask task = hooks.task ? hooks.task(opt->params) : declared_task;
    if (task == CvTask::classification && opt->targets.size() > 1)
      throw UsageError("a classifier takes one --target column");
    refuse_overwrite(opt->output, {opt->data.path});
    opt->data.structured = structured_input_of(opt->params);
    E model(opt->params);
    FitData d;
    const auto timed_fit = [&model, &hooks](const auto&... args) {
      PhaseTimer timer("fit");
      model.fit(args...);
      if (hooks.detail) timer.set_detail(hooks.detail(model));
    };
    bool streamed = false;
    if constexpr (Streamable<E>) {
      if (world().size() > 1) {
        if (task == CvTask::classification) throw std::logic_error("add_fit_verb: a distributed classifier");
        fit_distributed(model, opt->data, opt->stream,
                        task == CvTask::regression ? (opt->targets.empty() ? Names{io::kLastColumn} : opt->targets)
                                                   : Names{},
                        d, hooks.detail);
        streamed = true;
        if (world().rank() != 0) return;  // rank 0 alone writes and reports
      } else if (task != CvTask::classification && want_stream(opt->stream, opt->data.path)) {
        fit_streamed(model, opt->data, opt->stream,
                     task == CvTask::regression ? (opt->targets.empty() ? Names{io::kLastColumn} : opt->targets)
                                                : Names{},
                     d, hooks.detail);
        streamed = true;
      }
    }
    if constexpr (MultiPassStreamable<E>) {
      if (want_stream(opt->stream, opt->data.path)) {
        fit_streamed_passes(model, opt->data, opt->stream, d, hooks.detail);
        streamed = true;
      }
    }
    if (streamed) {
    } else if (task == CvTask::classification) {
      ClassificationData c = read_classification_data(opt->data, opt->targets.empty() ? "" : opt->targets[0]);
      if constexpr (requires(E& e, const arma::mat& X, const Labels& y) { e.fit(X, y, std::size_t{}); })
        timed_fit(c.table.X, c.y, c.encoder.n_classes());
      else if constexpr (requires(E& e, const arma::mat& X, const Labels& y) { e.fit(X, y); })
        timed_fit(c.table.X, c.y);
      else
        throw std::logic_error("add_fit_verb: the estimator does not fit class labels");
      d.schema = {input_features(c.table), c.table.had_header, c.target, {}, c.encoder.classes(),
                  opt->data.structured, c.table.encoding};
      d.table = std::move(c.table);
      d.y = std::move(c.y);
    } else if (task == CvTask::regression) {
      RegressionData r = read_regression_data(opt->data, opt->targets);
      if constexpr (requires(E& e, const arma::mat& X, const arma::mat& Y) { e.fit(X, Y); })
        timed_fit(r.table.X, r.Y);
      else
        throw std::logic_error("add_fit_verb: the estimator does not fit numeric targets");
      d.schema = {input_features(r.table), r.table.had_header, r.target_names[0], r.target_names, {},
                  opt->data.structured, r.table.encoding};
      d.table = std::move(r.table);
      d.Y = std::move(r.Y);
    } else {
      d.table = read_training_data(opt->data);
      if (hooks.fit) {
        PhaseTimer timer("fit");
        model = hooks.fit(opt->params, {d.table, opt->data, opt->output});
        if (hooks.detail) timer.set_detail(hooks.detail(model));
      } else if constexpr (requires(E& e, const arma::mat& X) { e.fit(X); })
        timed_fit(d.table.X);
      else
        throw std::logic_error("add_fit_verb: the estimator needs a target");
      d.schema = {input_features(d.table), d.table.had_header, "", {}, {}, opt->data.structured, d.table.encoding};
    }
    save_model(model, opt->output, d.schema, d.table, [&](io::ModelWriter& w) {
      if (!hooks.info) return;
      nlohmann::json info = hooks.info(model, d);
      if (!info.is_null()) w.header()["info"] = std::move(info);
    });
    if (hooks.summary) note(hooks.summary(model, d));
  });
  return fit;
}

}  // namespace mlt::app
