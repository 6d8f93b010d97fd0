// Reading a CSV file in chunks of bounded size, for fits that stream their data past
// RAM (pca, ridge) and, later, for each MPI rank's part of a file.
//
// CsvChunks is read_csv cut into pieces: the same reader (csv.cpp: the same header
// handling, column selection, --na policy, parallel numeric path and quoted fields),
// stopped after each buffer-full of input instead of at the end. Each chunk is a
// Table of the complete records in one buffer: a record is never split between
// chunks (the reader keeps an unfinished record, a quoted field spanning lines
// included, and reads more behind it), and every row's line, and every message's
// file:line:column, counts the physical lines of the whole input, not of the chunk.
// read_csv is this reader run to the end with its blocks joined, so the rows and the
// values are the same bits either way.
//
// Memory: one buffer of `chunk_bytes` plus the parsed chunk, at most about
// chunk_bytes / 2 doubles (a cell has a byte and a delimiter at least): O(chunk_bytes),
// whatever the size of the file. A record (or the header) longer than the buffer
// doubles it until it fits, and the buffer stays that size: the bound is then
// O(max(chunk_bytes, 2 x the longest record)).
//
// MPI ranks (issue #16, part 1, not built yet): a rank's part will be a byte range
// [begin, end) of the file with begin at a record start. Two things make a range
// readable on its own and are all the reader then needs: the delimiter and the plan
// from the header (rank 0 reads the header and sends both, or every rank reads the
// first record itself), and the physical line number of the range's first record (a
// count of the line ends before `begin`, one memchr pass, so that messages still name
// the line in the whole file). A range boundary must not fall inside a quoted field:
// with quoted newlines in the file, cut points come from a quote-parity scan from the
// start (what the reader already does per buffer), else from the next line end. The
// reader's state (buffer, carried record, line count) is per instance, so one process
// can hold several.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "mlt/io/csv.hpp"

namespace mlt::io {

// The default chunk: large enough that the parallel parser and the per-chunk BLAS
// work run at full speed, small enough to be a rounding error next to a fit's state.
inline constexpr std::size_t kDefaultChunkBytes = std::size_t{16} << 20;

class CsvChunks {
 public:
  // Opens `path` ("-": standard input, read once) and reads its header. Throws what
  // read_csv throws for an unopenable file, a bad header or a bad column reference.
  // chunk_bytes >= 1: the input buffer (a test may make it tiny to force many chunks).
  CsvChunks(const std::string& path, const CsvOptions& options, const ColumnSelection& columns,
            std::size_t chunk_bytes = kDefaultChunkBytes);
  ~CsvChunks();
  CsvChunks(const CsvChunks&) = delete;
  CsvChunks& operator=(const CsvChunks&) = delete;

  // The next rows (at least one) into `chunk`: X, text, lines (of the whole input),
  // dropped_rows (since the previous chunk; rows dropped after the last chunk are
  // counted in dropped_rows() and summary() only), and the file's source, feature_names, had_header and
  // delimiter. False at the end of the input; then bytes() and sha256() are final.
  // Throws DataError as read_csv does (file:line:column), including "no data rows"
  // at the end of an input that had none.
  bool next(Table& chunk);

  const std::string& source() const;
  const Names& feature_names() const;  // in slot order, as Table::feature_names
  std::uint64_t rows() const;          // rows returned so far
  std::uint64_t dropped_rows() const;  // rows dropped so far under MissingPolicy::drop
  std::uint64_t bytes() const;         // input bytes read so far
  std::string sha256() const;          // of the whole input, once next() returned false
  // The provenance fields of a Table of the whole input, without its rows: what a
  // model file records (source, names, header, delimiter, bytes, sha256).
  Table summary() const;

 private:
  struct Impl;
  // read_csv is the same reader run to the end.
  friend Table read_csv(const std::string&, const CsvOptions&, const ColumnSelection&);
  std::unique_ptr<Impl> impl_;
};

// A memory size as a user writes it: a number with an optional K, M, G or T suffix
// (powers of 1024; "B" or "iB" after it allowed), e.g. 512M, 2G, 1.5GiB, 100000.
// Throws UsageError naming `what` for anything else or for zero.
std::uint64_t parse_memory_size(const std::string& text, const std::string& what);

}  // namespace mlt::io
