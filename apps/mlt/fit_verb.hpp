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
#include "fit_parts.hpp"
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
  // The same for a fit in parts (streamed, or over MPI ranks; fit_parts.hpp): fits in
  // place of model.fit_stream(passes, comm), DATA's options and the output at hand;
  // returns false to leave the fit to fit_stream.
  std::function<bool(E& model, const RowPasses& passes, const Communicator& comm, const DataOptions& data,
                     const std::string& output)>
      fit_parts = nullptr;
  std::function<std::string(const E&)> detail = nullptr;
};

// --stream, --memory and --chunk-size: the fit reads DATA in chunks and holds only
// the estimator's state (E::fit_stream) instead of the rows. Off unless asked for.
struct StreamOptions {
  bool stream = false;
  std::string memory;      // a budget: stream when the in-memory fit may need more
  std::string chunk_size;  // bytes of input per chunk
  bool shards = false;     // DATA names shard files (fit_parts.hpp)
};

// A fit that reads its data as passes over chunks (fit_parts.hpp): streamed past RAM
// alone, and over MPI ranks when it takes a communicator. A classifier's takes the
// number of classes, its Y holding class indices. E::kStreamsOnce: it opens one pass,
// so standard input can feed it.
template <class E>
concept FitsParts = requires(E& e, const RowPasses& passes, const Communicator& comm) { e.fit_stream(passes, comm); };
template <class E>
concept FitsLabelledParts = requires(E& e, const RowPasses& passes, const Communicator& comm) {
  e.fit_stream(passes, std::size_t{}, comm);
};
template <class E>
concept DistributedFit = FitsParts<E> || FitsLabelledParts<E>;
template <class E>
concept Streamable = DistributedFit<E> || requires(E& e, const RowPasses& passes) { e.fit_stream(passes); };
template <class E>
constexpr bool streams_once() {
  if constexpr (requires { E::kStreamsOnce; }) return E::kStreamsOnce;
  else return false;
}

inline void add_stream_options(CLI::App* fit, StreamOptions& opt,
                               const std::string& stream_help = "Read DATA in chunks, holding the fit's state (O(p²)) "
                                                                "instead of the rows; the same model up to rounding") {
  fit->add_flag("--stream", opt.stream, stream_help);
  fit->add_option("--memory", opt.memory,
                  "Stream when the in-memory fit could need more than SIZE (512M, 2G): 16 bytes per cell, the "
                  "cells estimated from the file's first MiB; always for standard input");
  fit->add_option("--chunk-size", opt.chunk_size, "Bytes of input per chunk when streaming (default 16M)");
  fit->add_flag("--shards", opt.shards,
                "DATA names several CSV files with the same columns: a glob pattern (quoted) or @LIST, a file of "
                "paths; under N MPI ranks each rank reads its own run of them, alone all in order");
}

// Whether to stream: --stream; or --memory given and the in-memory fit possibly
// needing more. Its need is estimated as two copies of the matrix (the parsed one and
// a centred or standardized one), 2 x 8 bytes a cell, the cells counted as the file's
// size over the bytes per cell of its first MiB (io::bytes_per_cell; at least 2, a
// digit and a delimiter, so never more than 8 bytes per byte of file). A stream whose
// size is unknown (standard input, a pipe) is streamed. `parts`: the file is split
// between that many ranks, each holding its part (a parts-th of the need).
inline bool want_stream(const StreamOptions& opt, const std::string& path, std::size_t parts = 1) {
  if (!opt.chunk_size.empty()) {
    io::parse_memory_size(opt.chunk_size, "--chunk-size");  // refused whether or not it streams
    if (!opt.stream && opt.memory.empty() && parts == 1)
      throw UsageError("--chunk-size applies to a streamed fit: add --stream (or --memory SIZE)");
  }
  if (opt.stream) return true;
  if (opt.memory.empty()) return false;
  const std::uint64_t budget = io::parse_memory_size(opt.memory, "--memory");
  struct stat st;
  if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return true;
  return 16 * static_cast<double>(st.st_size) / io::bytes_per_cell(path) / static_cast<double>(parts) >
         static_cast<double>(budget);
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

// The fit of E::fit_stream over passes of DATA (fit_parts.hpp): alone, streamed a
// chunk at a time past RAM; under several ranks (world().size() > 1), each rank's
// part, held in its memory unless streamed (--stream, or the part over --memory).
// Every rank ends with the same model; the caller lets rank 0 alone save it. `targets`:
// the regression's target columns or the classifier's label column (none: an
// unsupervised fit). Fills d with the schema and the data's provenance (a table
// without its values), with the totals of all ranks.
template <class E>
void fit_in_parts(E& model, const DataOptions& data, const StreamOptions& sopt, CvTask task, const Names& targets,
                  FitData& d, const std::function<std::string(const E&)>& detail,
                  const std::function<bool(E&, const RowPasses&, const Communicator&)>& own_fit = nullptr) {
  const Communicator& comm = world();
  const std::size_t size = static_cast<std::size_t>(comm.size());
  const TargetKind kind = task == CvTask::classification ? TargetKind::labels
                          : task == CvTask::regression   ? TargetKind::numeric
                                                         : TargetKind::none;
  // A rank holds its part unless told to stream: --stream, or a part (a size-th of
  // DATA) over --memory. Alone, this is the streamed fit, never held.
  bool hold = false;
  if (size > 1 && !streams_once<E>()) {
    hold = !want_stream(sopt, data.path, size);
  }
  FitParts parts(data, chunk_bytes_of(sopt), targets, kind, comm, hold, streams_once<E>(), sopt.shards);
  FitParts::Totals all;
  {
    PhaseTimer timer("fit");
    try {
      if (kind == TargetKind::labels) {
        parts.label_pass();
        if constexpr (FitsLabelledParts<E>)
          model.fit_stream(parts.passes(), parts.encoder().n_classes(), comm);
        else
          throw std::logic_error("fit_in_parts: the estimator does not fit class labels in parts");
      } else if constexpr (FitsParts<E>) {
        const RowPasses passes = parts.passes();
        if (!own_fit || !own_fit(model, passes, comm)) model.fit_stream(passes, comm);
      } else if constexpr (requires(E& e, const RowPasses& p) { e.fit_stream(p); }) {
        model.fit_stream(parts.passes());
      } else {
        throw std::logic_error("fit_in_parts: the estimator does not fit unlabelled parts");
      }
    } catch (const Error& e) {
      // Thrown on every rank alike (the fit agrees first), with the same status but
      // not the same type (the failing rank rethrows its own exception, the others an
      // Error: core/distributed.hpp), so the status decides, the same on every rank.
      // Every part read to its end and no row: the reader's message for a file
      // without data rows, which no single part could give.
      if (size == 1 || e.exit_status() != kExitDataError) throw;
      all = parts.totals();
      if (all.rows == 0 && all.finished == size)
        throw DataError(data.path + ": no data rows" +
                        (all.dropped ? " left after dropping " + std::to_string(all.dropped) + " with missing values"
                                     : std::string(parts.has_header() ? " (only a header)" : "")));
      throw;
    }
    all = parts.totals();
    std::string what = "streamed " + std::to_string(all.rows) + " rows in " + std::to_string(all.chunks) +
                       (all.chunks == 1 ? " chunk" : " chunks");
    if (all.passes > 1) what += ", " + std::to_string(all.passes) + " passes";
    if (hold) what = "held " + std::to_string(all.rows) + " rows in " + std::to_string(all.chunks) +
                     (all.chunks == 1 ? " chunk, " : " chunks, ") + std::to_string(all.passes) + " passes";
    if (size > 1) what += " on " + std::to_string(size) + " ranks";
    if (detail) what += "; " + detail(model);
    timer.set_detail(what);
  }
  io::Table summary = parts.summary();
  summary.dropped_rows = static_cast<std::size_t>(all.dropped);
  if (kind == TargetKind::labels) {
    streamed_schema(std::move(summary), all.rows, {}, {}, d);
    d.schema.target = all.target_names.empty() ? targets[0] : all.target_names[0];
    d.schema.classes = parts.encoder().classes();
  } else {
    streamed_schema(std::move(summary), all.rows, targets, all.target_names, d);
  }
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
    if constexpr (streams_once<E>())
      add_stream_options(fit, opt->stream);
    else
      add_stream_options(fit, opt->stream,
                         "Read DATA in chunks, once per pass (so DATA must be a file), holding the fit's state instead "
                         "of the rows; the same model up to rounding");
    if constexpr (DistributedFit<E>) distributed_verbs().insert(fit);
  }
  if (hooks.options) hooks.options(fit, opt->params);
  fit->callback([opt, flags, declared_task = task, hooks] {
    flags.refuse_inapplicable(opt->params);
    const CvTask task = hooks.task ? hooks.task(opt->params) : declared_task;
    if (task == CvTask::classification && opt->targets.size() > 1)
      throw UsageError("a classifier takes one --target column");
    refuse_overwrite(opt->output, {opt->data.path});
    if (opt->stream.shards) {
      refuse_overwrite(opt->output, shard_paths(opt->data.path));
      if (opt->data.path.starts_with("@")) refuse_overwrite(opt->output, {opt->data.path.substr(1)});
    }
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
      if (world().size() > 1 || opt->stream.shards || want_stream(opt->stream, opt->data.path)) {
        Names targets;
        if (task == CvTask::regression) targets = opt->targets.empty() ? Names{io::kLastColumn} : opt->targets;
        if (task == CvTask::classification)
          targets = {opt->targets.empty() ? std::string(io::kLastColumn) : opt->targets[0]};
        std::function<bool(E&, const RowPasses&, const Communicator&)> own_fit;
        if (hooks.fit_parts)
          own_fit = [&](E& m, const RowPasses& passes, const Communicator& comm) {
            return hooks.fit_parts(m, passes, comm, opt->data, opt->output);
          };
        fit_in_parts(model, opt->data, opt->stream, task, targets, d, hooks.detail, own_fit);
        streamed = true;
        if (world().rank() != 0) return;  // rank 0 alone writes and reports
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
