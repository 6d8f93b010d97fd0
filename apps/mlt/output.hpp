// What commands write besides models: CSV files (CsvWriter, write_csv) and the
// score reports of `score` and `cv` (text lines or JSON on standard output). Apart
// because only the verbs that predict, transform or score need it.
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mlt/core/types.hpp"
#include "mlt/io/file.hpp"

namespace mlt::app {

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
  std::size_t rows_ = 0;  // lines ended, the header included
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

// The same CSV written a block of rows at a time (predict and transform on chunks):
// the header from the first block's names, then every block's rows; nothing appears
// at `path` until commit(). write_csv is one block.
class CsvStream {
 public:
  explicit CsvStream(const std::string& path) : csv_(path) {}
  void write(const CsvColumns& block);
  void commit() { csv_.commit(); }

 private:
  CsvWriter csv_;
  bool header_written_ = false;
};

// Text columns to write in front of a CsvColumns' own (data_options.hpp: kept_columns).
struct KeptColumns {
  Names names;
  std::vector<std::vector<std::string>> values;  // per column, one per row
  // `columns` with these first; they must outlive it. A kept column named like one
  // of the output's (the true label beside the predicted one) is written as
  // input_<name>, so the header's names stay distinct.
  CsvColumns before(CsvColumns columns) const {
    const auto taken = [&columns](const std::string& n) {
      return std::find(columns.text_names.begin(), columns.text_names.end(), n) != columns.text_names.end() ||
             std::find(columns.names.begin(), columns.names.end(), n) != columns.names.end();
    };
    Names kept;
    for (const std::string& n : names) kept.push_back(taken(n) ? "input_" + n : n);
    for (std::size_t c = names.size(); c-- > 0;) {
      columns.text_names.insert(columns.text_names.begin(), kept[c]);
      columns.text.insert(columns.text.begin(), &values[c]);
    }
    return columns;
  }
};

// Prints scores: "name value" lines, or one JSON object with --json.
void print_scores(const std::vector<std::pair<std::string, double>>& scores, bool json,
                  const nlohmann::json& extra = nullptr);

// The score lines of `mlt <algo> score`: mse, rmse, mae, r2 ...
std::vector<std::pair<std::string, double>> regression_scores(const arma::mat& y, const arma::mat& prediction);
// ... printed, and with several targets (`targets` names them) the same per target:
// lines "mse[NAME] value" (in JSON: "per_target": {NAME: {"mse": ...}}) after the
// overall values (the uniform means over the targets, scikit-learn's default).
void print_regression_scores(const arma::mat& y, const arma::mat& prediction, const Names& targets, bool json,
                             const nlohmann::json& fields = nullptr);
// ... and a classifier's report: accuracy, balanced_accuracy, f1_macro; log_loss and
// brier when `probabilities` (n x classes) are given; roc_auc and average_precision
// of `scores` (cv::class_scores: the probabilities, or decision values) when given;
// then the per-class precision, recall, F1 and support with their macro and weighted
// averages (metrics::classification_report), and the confusion matrix by class name
// (as text tables, or members of the JSON object with --json), on standard output.
// A ranking metric the data cannot give (a class with no row, one-vs-rest) is left
// out with a note on stderr. `fields`: more members of the JSON object (n_samples,
// ...), as print_scores' extra.
void print_classification_scores(const Labels& y, const Labels& prediction, const arma::mat* probabilities,
                                 const arma::mat* scores, const Names& classes, bool json,
                                 const nlohmann::json& fields = nullptr);

}  // namespace mlt::app
