// The data side of every command: the flags of a CSV input (DATA, --no-header,
// --delimiter, --na, --ignore, --target) and reading it as training data, as
// supervised targets, or as prediction/scoring data for a model's schema. Apart
// from model_io and output because it is the one part every command uses.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model_io.hpp"
#include "output.hpp"
#include "mlt/core/distributed.hpp"
#include "mlt/core/types.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/io/csv_chunks.hpp"
#include "mlt/labels.hpp"

namespace mlt::app {

// --na: what a missing cell does. error and drop are the reader's policies (io::
// MissingPolicy); mean, median and most-frequent fit fill values (a fit and cv), or
// name the ones a model stores (predict, transform, score; mlt/column_encoding.hpp).
enum class NaChoice { error, drop, mean, median, most_frequent };
inline constexpr NameTable<NaChoice, 5> kNaChoiceNames{"missing-value choice",
                                                       {{{NaChoice::error, "error"},
                                                         {NaChoice::drop, "drop"},
                                                         {NaChoice::mean, "mean"},
                                                         {NaChoice::median, "median"},
                                                         {NaChoice::most_frequent, "most-frequent"}}}};
constexpr const auto& name_table(NaChoice) { return kNaChoiceNames; }

// Flags every command that reads a CSV takes.
struct DataOptions {
  std::string path;
  bool no_header = false;
  std::string delimiter;  // "" detect, ",", ";", "tab" or "\t"
  std::string na = "error";
  // --categorical and --unknown-category (the verbs that fit: fit and cv): feature
  // columns read as text and one-hot encoded, and what predict does with a category
  // it has not seen; stored in the model with the fill values of --na mean etc.
  Names categorical;
  std::string unknown_category = "error";
  std::vector<std::string> ignore;
  Names keep;  // --keep: columns copied to the output (predict and transform only)
  // Set by the verb from the estimator's kernel (structured_input_of): "" numeric
  // features; "text" or "graph": the one feature column is read as text and encoded
  // (mlt/kernel_strings.hpp, mlt/kernel_graphs.hpp) into X.
  std::string structured;
};
// Adds DATA (positional, "-" for stdin) and --no-header, --delimiter, --na, --ignore.
void add_data_options(CLI::App* cmd, DataOptions& opt);
// Adds --keep COLS, for a verb that writes one output row per input row.
void add_keep_option(CLI::App* cmd, DataOptions& opt);
// Adds --categorical and --unknown-category, for a verb that fits (fit, cv).
void add_encoding_options(CLI::App* cmd, DataOptions& opt);
// The reader's options for a command that reads the rows as they are (split, score,
// a streamed fit): UsageError for --categorical or an --na that fills values, which
// only the reads below (in memory, through a fitted encoding) do.
io::CsvOptions csv_options(const DataOptions& opt);

// Training data: features are every column but `text_columns` and --ignore. With
// opt.structured, that must be one column, of strings or graphs, encoded into X.
// With --categorical or --na mean|median|most-frequent, the feature columns are
// encoded (mlt/column_encoding.hpp) into X; the fitted encoding is t.encoding and
// t.feature_names names X's encoded columns ("color=red").
io::Table read_training_data(const DataOptions& opt, const Names& text_columns = {});

// The input columns a model fitted on `t` reads (the file's feature columns, before
// any one-hot encoding): what DataSchema::features records.
const Names& input_features(const io::Table& t);
// The names of the columns of a model's rows (what X holds at predict): the encoded
// ones ("color=red") when the schema has a column encoding, else its features.
Names model_columns(const DataSchema& schema);
// What a model reads, counted as the user gave it (not the width of the encoded rows
// a structured kernel works on): "4 features"; "1 text column (spectrum kernel)", "1
// graph column (walk kernel)"; "kernel values against 40 training rows (precomputed
// kernel)". `kernel`: the kernel's name, for the structured inputs.
std::string input_description(const DataSchema& schema, const std::string& kernel);
// The name of the kernel a loaded model's header records ("" when it has none).
std::string kernel_name(const LoadedModel& model);

// Prediction data for a model: its feature columns, by name when both the model and
// the file have headers, else by position (all columns but `text_columns`, --ignore
// and --keep). --keep's columns are read as text after `text_columns`; a column the
// model reads as a feature cannot be kept (UsageError). A model of structured input
// (schema.structured) has its one feature column encoded as fit encoded it; a model
// with a column encoding (schema.encoding) has its columns encoded and its missing
// cells filled with its stored values, unless --na drop.
io::Table read_data_for(const DataSchema& schema, const DataOptions& opt,
                        const Names& text_columns = {});

// read_data_for a chunk of rows at a time, for predict and transform on inputs larger
// than memory: `each` gets the chunks in input order (io::CsvChunks: complete records,
// line numbers of the whole input), each read, checked and encoded as read_data_for
// reads the whole input, so rows and values are the same bits. Memory: one chunk (16
// MiB of input and its rows) instead of the input. Read whole, in one call, with --na
// drop, where chunks would not give the same output (whether predict writes a `line`
// column depends on every row).
void read_chunks_for(const DataSchema& schema, const DataOptions& opt,
                     const std::function<void(const io::Table&)>& each);

// The same reader pulled a chunk at a time (`next`), for a loop whose MPI ranks agree
// between chunks. With `part`, only that byte range of DATA (a regular file) is read
// (io::CsvRangeChunks: the file's header, lines and messages of the whole file), and
// a part may hold no rows: next() is then false at once, without "no data rows",
// which only the sum over the parts can say; --na drop is refused there (the `line`
// column depends on every part).
class ChunksFor {
 public:
  ChunksFor(const DataSchema& schema, const DataOptions& opt, const io::FileSplit* split = nullptr,
            const io::ByteRange* part = nullptr);
  ~ChunksFor();
  ChunksFor(const ChunksFor&) = delete;
  ChunksFor& operator=(const ChunksFor&) = delete;
  bool next(io::Table& chunk);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// DATA split between the ranks of `comm` (collective: each rank scans its nominal
// part, the scans go to every rank): the split and this rank's range. A file that
// cannot be split (standard input: UsageError) or opened fails every rank together
// (agree), with the first failing rank's error.
struct RankPart {
  std::unique_ptr<io::FileSplit> split;
  io::ByteRange range;
};
RankPart rank_part(const DataOptions& opt, const Communicator& comm);

// What predict and transform write in front of their own columns so that the output
// can be joined to its input: the --keep columns, verbatim; or, when nothing is kept
// and --na drop dropped rows, each row's line number in the input ("line").
KeptColumns kept_columns(const io::Table& t, const DataOptions& opt);

// Supervised training data. Targets default to the last column; the features are
// all other columns but --ignore.
struct RegressionData {
  io::Table table;
  arma::mat Y;          // n x n_targets
  Names target_names;
};
// `extra_text` columns (a fold column, say) are kept as text after the targets.
RegressionData read_regression_data(const DataOptions& opt, const Names& targets, const Names& extra_text = {});

struct ClassificationData {
  io::Table table;
  Labels y;             // class indices
  LabelEncoder encoder; // class names, sorted as scikit-learn sorts them
  std::string target;
};
// Refuses one class ("only one class") and labels that look continuous.
// `extra_text` columns are kept as text after the target (table.text[1], ...).
ClassificationData read_classification_data(const DataOptions& opt, const std::string& target,
                                            const Names& extra_text = {});

// Adds --target (several comma-separated when `multiple`).
void add_target_option(CLI::App* cmd, Names& target, bool multiple = false);

// The truth for scoring a loaded model on `t` (read with the schema's target
// columns as text): numbers for regression, class indices for a classifier.
arma::mat regression_truth(const io::Table& t, const DataSchema& schema);
Labels class_truth(const io::Table& t, const DataSchema& schema);

}  // namespace mlt::app
