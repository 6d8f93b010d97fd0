// Glue shared by every subcommand: the data flags, reading training and prediction
// data, writing models with their envelope, writing CSV and score reports.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/core/names.hpp"
#include "mlt/core/types.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/io/file.hpp"
#include "mlt/io/model_file.hpp"
#include "mlt/labels.hpp"

namespace mlt::app {

// A library message as the command line says it: each parameter the library names
// in backquotes (`max_iter`) becomes its flag (--max-iter).
std::string flag_names(const std::string& message);

// The command line as typed, for model provenance; set by main.
void set_command_line(int argc, char** argv);

// Flags every command that reads a CSV takes.
struct DataOptions {
  std::string path;
  bool no_header = false;
  std::string delimiter;  // "" detect, ",", ";", "tab" or "\t"
  std::string na = "error";
  std::vector<std::string> ignore;
};
// Adds DATA (positional, "-" for stdin) and --no-header, --delimiter, --na, --ignore.
void add_data_options(CLI::App* cmd, DataOptions& opt);
io::CsvOptions csv_options(const DataOptions& opt);

// Training data: features are every column but `text_columns` and --ignore.
io::Table read_training_data(const DataOptions& opt, const Names& text_columns = {});

// What the model file says about the data it was trained on (written and read by the library).
using DataSchema = io::DataSchema;

// A model file read and verified, with its schema.
struct LoadedModel {
  io::ModelReader reader;
  DataSchema schema;
};
LoadedModel read_model(const std::string& path, const std::string& kind);

// Prediction data for a model: its feature columns, by name when both the model and
// the file have headers, else by position (all columns but `text_columns`, --ignore).
io::Table read_data_for(const DataSchema& schema, const DataOptions& opt,
                        const Names& text_columns = {});

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

// The score lines of `mlt <algo> score`: mse, rmse, mae, r2 ...
std::vector<std::pair<std::string, double>> regression_scores(const arma::mat& y, const arma::mat& prediction);
// ... and a classifier's report: accuracy, balanced_accuracy, f1_macro, log_loss (when
// probabilities are given), then the confusion matrix by class name (as text, or in
// the JSON object with --json), on standard output.
void print_classification_scores(const Labels& y, const Labels& prediction, const arma::mat* probabilities,
                                 const Names& classes, bool json);

// Writes `writer` (after adding schema and provenance) atomically to `path`.
void write_model(const std::string& path, io::ModelWriter& writer, const DataSchema& schema,
                 const io::Table& training);

// Saves a fitted model with its schema and provenance (temporary file, then rename);
// `annotate` adds to the header (the "info" `mlt info` shows, cv's record).
template <class E>
void save_model(const E& model, const std::string& path, const DataSchema& schema, const io::Table& training,
                const std::function<void(io::ModelWriter&)>& annotate = {}) {
  io::ModelWriter writer(E::kind);
  model.save(writer);
  if (annotate) annotate(writer);
  write_model(path, writer, schema, training);
}

// Refuses (UsageError) an output path that is one of the inputs.
void refuse_overwrite(const std::string& output, const std::vector<std::string>& inputs);

// A CSV written cell by cell into a buffer handed to an io::OutputFile every 64 KiB;
// nothing appears at `path` until commit() (temporary file, then rename).
class CsvWriter {
 public:
  explicit CsvWriter(const std::string& path, char delimiter = ',') : out_(path), delimiter_(delimiter) {}
  void text(std::string_view cell);  // quoted when it needs to be
  void number(double value);         // shortest round-trip decimal
  void end_row();
  void commit();

 private:
  void separate();
  io::OutputFile out_;
  char delimiter_;
  std::string buf_;
  bool first_ = true;
};

// Writes a CSV: header `names`, rows of `values` (n x k), optionally preceded by
// text columns.
struct CsvColumns {
  Names text_names;
  std::vector<const std::vector<std::string>*> text;  // each n entries
  Names names;
  const arma::mat* values = nullptr;
};
void write_csv(const std::string& path, const CsvColumns& columns);

// Prints scores: "name value" lines, or one JSON object with --json.
void print_scores(const std::vector<std::pair<std::string, double>>& scores, bool json,
                  const nlohmann::json& extra = nullptr);

// With --timings, each phase (read, fit, write, ...) reports its wall time on stderr.
void set_timings(bool on);
class PhaseTimer {
 public:
  explicit PhaseTimer(std::string name);
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;
  void set_detail(std::string detail) { detail_ = std::move(detail); }
  double seconds() const;

 private:
  std::string name_, detail_;
  std::chrono::steady_clock::time_point start_;
};

// Reports dropped rows (--na drop) on stderr unless quiet.
void note(const std::string& message);
bool quiet();
void set_quiet(bool q);

// A CLI11 validator accepting the names of enumeration E (mlt/core/names.hpp), its
// canonical names listed in --help.
template <typename E>
CLI::Validator one_of() {
  std::string list;
  for (const std::string& n : canonical_names<E>()) list += (list.empty() ? "" : ",") + n;
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (name_table(E{}).accepts(s)) return "";
        try {
          parse_name<E>(s);
        } catch (const UsageError& e) {
          return e.what();
        }
        return "";
      },
      "{" + list + "}");
}

// A CLI11 validator for finite numbers >= 0, > 0, or in an interval.
CLI::Validator non_negative();
CLI::Validator positive();
CLI::Validator open_unit_interval();
CLI::Validator positive_integer();
// Every --seed: unsigned 64-bit, written in decimal digits; a sign, another base or
// a value past 2^64 - 1 is refused with the same message everywhere.
CLI::Validator seed();

}  // namespace mlt::app
