// What commands write besides models: CSV files (CsvWriter, write_csv) and the
// score reports of `score` and `cv` (text lines or JSON on standard output). Apart
// because only the verbs that predict, transform or score need it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mlt/core/distributed.hpp"
#include "mlt/core/types.hpp"
#include "mlt/io/file.hpp"

namespace mlt::app {

// Bytes set aside on local disk and read back once, in order: each MPI rank's part of
// a predict's output until rank 0 writes it. An unlinked temporary file (in $TMPDIR,
// else /tmp), so it disappears with the process however that ends, SIGKILL included.
class Spool {
 public:
  Spool() = default;  // the file is made by the first write (whose error is the rank's own)
  ~Spool();
  Spool(const Spool&) = delete;
  Spool& operator=(const Spool&) = delete;
  void write(std::string_view data);  // IoError when the disk is full
  std::uint64_t size() const { return size_; }
  // The next bytes from the start (after the first `skip` at the first call), at
  // most `max`; empty at the end.
  std::string read(std::size_t max, std::uint64_t skip = 0);

 private:
  void open();
  int fd_ = -1;
  std::uint64_t size_ = 0, read_at_ = 0;
  bool reading_ = false;
};

// A CSV written cell by cell into a buffer handed to an io::OutputFile (or a Spool)
// every 64 KiB; nothing appears at `path` until commit() (temporary file, then rename).
class CsvWriter {
 public:
  explicit CsvWriter(const std::string& path, char delimiter = ',')
      : file_(std::make_unique<io::OutputFile>(path)), name_(path), delimiter_(delimiter) {}
  // Into `spool`; `name` says whose rows they are in messages ("OUT (rank 2's part)").
  CsvWriter(Spool& spool, std::string name) : spool_(&spool), name_(std::move(name)), delimiter_(',') {}
  void text(std::string_view cell);  // quoted when it needs to be
  void number(double value);         // shortest round-trip decimal
  void end_row();
  void commit();
  std::uint64_t bytes() const { return bytes_ + buf_.size(); }  // written so far

 private:
  void separate();
  void hand_on();
  std::unique_ptr<io::OutputFile> file_;
  Spool* spool_ = nullptr;
  std::string name_;
  char delimiter_;
  std::string buf_;
  bool first_ = true;
  std::size_t rows_ = 0;  // lines ended, the header included
  std::uint64_t bytes_ = 0;
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
  CsvStream(Spool& spool, std::string name) : csv_(spool, std::move(name)) {}
  void write(const CsvColumns& block);
  void commit() { csv_.commit(); }
  // Bytes of the header line (0 before the first block).
  std::uint64_t header_bytes() const { return header_bytes_; }

 private:
  CsvWriter csv_;
  bool header_written_ = false;
  std::uint64_t header_bytes_ = 0;
};

// The output of predict and transform under several MPI ranks, where each
// rank predicts its own byte range of DATA: the rows come out in input order, the
// bytes of one process's output, and only rank 0 writes, to `path` (temporary file,
// then rename) or standard output.
//
// How, and why so: each rank writes its part's CSV into a Spool (local disk, not
// memory: a part of a 10 GB input's output need not fit in RAM, and no shared file
// system is assumed); then rank 0 writes its own part and, rank after rank, the
// others' in blocks of kBlock bytes (gathered: the sending rank's block, empty ones
// from the rest). Memory stays O(kBlock) on every rank; the ranks predict in
// parallel and only the copy is serial, at the speed of the output's bytes. The
// header comes from the first rank with rows; the other parts' header lines are not
// sent.
//
// Collective: every rank constructs it, writes its part (its rows, in its order),
// and calls commit with its outcome, which agrees first: if any rank failed, every
// rank throws that rank's error and nothing is written (rank 0's temporary goes).
class RankOrderedCsv {
 public:
  // Opens `path` on rank 0 at once, so that an unwritable place fails every rank
  // (agree) before any work.
  RankOrderedCsv(const std::string& path, const Communicator& comm);
  CsvStream& part() { return part_; }
  // `failure`: this rank's error (null: none); `rows`: the rows this rank wrote;
  // `no_rows`: the message (DataError) when no rank had any.
  void commit(std::exception_ptr failure, std::uint64_t rows, const std::string& no_rows);

  static constexpr std::size_t kBlock = std::size_t{4} << 20;

 private:
  const Communicator& comm_;
  std::unique_ptr<io::OutputFile> out_;  // rank 0's
  Spool spool_;
  CsvStream part_;
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
