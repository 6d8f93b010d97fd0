// The rows of a streamed or distributed fit, as the estimator's passes.
//
// Alone, a fit's part is the whole of DATA (standard input too, for an estimator
// that reads it once); under N MPI ranks, each rank's part is its byte range of DATA
// (io::FileSplit, io::CsvRangeChunks), found by a collective scan. Either way the
// estimator is handed RowPasses (mlt/core/row_passes.hpp): each call opens a pass
// over the part, chunk by chunk, so one E::fit_stream serves the stream past RAM,
// the ranks, and both at once.
//
// A pass re-reads the part, unless the part is held: then the first read keeps its
// chunks and every later pass replays them (a rank's part in its memory, as an
// in-memory fit holds the whole file: multi-pass fits over ranks then parse once).
//
// Shards (--shards): DATA names several files, a glob pattern or @LIST (a file of
// paths, one a line), in sorted order; rank r of N reads the r-th of N contiguous runs
// of them, each file whole, and alone one process reads them all in order. Every
// shard has the first shard's columns (else a DataError naming both).
//
// Targets: numeric columns (regression) come as Y; class labels as one column of
// class indices 0..C-1 (doubles), under the classes of every rank's labels sorted
// as LabelEncoder sorts them. Knowing them takes a first pass (label_pass), before
// the fit's own; held, that pass is the one that loads the part.
//
// Errors: a pass throws what the reader throws (file:line:column) from its RowChunks,
// on the rank that read it; the estimator catches it and reaches agree() (see
// mlt/core/distributed.hpp). The collective steps here (the split, the label pass,
// totals) agree themselves.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data_options.hpp"
#include "mlt/core/distributed.hpp"
#include "mlt/core/row_passes.hpp"
#include "mlt/io/csv_chunks.hpp"
#include "mlt/labels.hpp"

namespace mlt::app {

// The shard files `spec` names (--shards): @LIST (one path a line, blank lines
// skipped) or a glob pattern, sorted as glob sorts. UsageError when it names none.
std::vector<std::string> shard_paths(const std::string& spec);

enum class TargetKind { none, numeric, labels };

class FitParts {
 public:
  // `targets`: the target columns (numeric) or the one label column; empty for none.
  // Collective under several ranks (the split's scan, agreed). Throws UsageError
  // when the part cannot be read as asked: standard input split between ranks, or
  // read more than once (`once` false) alone.
  FitParts(const DataOptions& data, std::size_t chunk_bytes, Names targets, TargetKind kind, const Communicator& comm,
           bool hold, bool once, bool shards = false);
  ~FitParts();
  FitParts(const FitParts&) = delete;
  FitParts& operator=(const FitParts&) = delete;

  // Labels only, before passes(), collective: reads a pass, and learns the classes
  // of all ranks (DataError for fewer than two, or labels that look continuous).
  void label_pass();
  const LabelEncoder& encoder() const { return encoder_; }

  RowPasses passes();

  // What the fit read, over every rank (collective: every rank calls it at the same
  // point). Rows and chunks are the first pass's; `finished`: ranks whose first pass
  // reached the end of their part; target names from a rank that read a row.
  struct Totals {
    std::uint64_t rows = 0, dropped = 0, chunks = 0, finished = 0, passes = 0;
    Names target_names;
  };
  Totals totals() const;
  // The data's provenance for the model file (a table without its values): the
  // whole input's alone, data_hash included; under ranks what one part knows.
  io::Table summary() const;
  const std::string& path() const { return path_; }
  bool has_header() const { return csv_.header; }

 private:
  struct Reader;
  std::unique_ptr<Reader> open_reader() const;
  // The next chunk of a pass from `reader` into X, Y (Y: targets, encoded).
  bool read_chunk(Reader& reader, bool first_pass, arma::mat& X, arma::mat& Y);

  std::string path_;
  io::CsvOptions csv_;
  io::ColumnSelection sel_;
  std::size_t chunk_bytes_;
  TargetKind kind_;
  const Communicator& comm_;
  bool hold_, once_;

  std::unique_ptr<io::FileSplit> split_;
  // Shards: every shard in order, this rank's [shard_begin_, shard_end_), and the
  // columns all must have (the first shard's).
  std::vector<std::string> shards_;
  std::size_t shard_begin_ = 0, shard_end_ = 0;
  Names shard_columns_;
  io::ByteRange range_;
  std::shared_ptr<Reader> first_;  // the first pass's reader: its counts and summary
  std::uint64_t first_chunks_ = 0, passes_ = 0;
  Names target_names_;
  LabelEncoder encoder_;
  bool labels_known_ = false;
  // Held: the part's chunks, Y encoded (labels: under the local dictionary until
  // label_pass maps them to the classes).
  std::vector<RowChunk> held_;
  bool loaded_ = false;
  // Labels met by this rank, in order of first sight, while the classes are unknown.
  std::vector<std::string> seen_;
};

}  // namespace mlt::app
