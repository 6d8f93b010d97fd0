// The data side of every command: the flags of a CSV input (DATA, --no-header,
// --delimiter, --na, --ignore, --target) and reading it as training data, as
// supervised targets, or as prediction/scoring data for a model's schema. Apart
// from model_io and output because it is the one part every command uses.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "model_io.hpp"
#include "output.hpp"
#include "mlt/core/types.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/labels.hpp"

namespace mlt::app {

// Flags every command that reads a CSV takes.
struct DataOptions {
  std::string path;
  bool no_header = false;
  std::string delimiter;  // "" detect, ",", ";", "tab" or "\t"
  std::string na = "error";
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
io::CsvOptions csv_options(const DataOptions& opt);

// Training data: features are every column but `text_columns` and --ignore. With
// opt.structured, that must be one column, of strings or graphs, encoded into X.
io::Table read_training_data(const DataOptions& opt, const Names& text_columns = {});

// Prediction data for a model: its feature columns, by name when both the model and
// the file have headers, else by position (all columns but `text_columns`, --ignore
// and --keep). --keep's columns are read as text after `text_columns`; a column the
// model reads as a feature cannot be kept (UsageError). A model of structured input
// (schema.structured) has its one feature column encoded as fit encoded it.
io::Table read_data_for(const DataSchema& schema, const DataOptions& opt,
                        const Names& text_columns = {});

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
