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
// Memory: a window of `chunk_bytes` of a regular file mapped in memory (a pipe: a
// buffer of `chunk_bytes` and two pieces of as many bytes read ahead) plus the parsed
// chunk, at most about chunk_bytes / 2 doubles (a cell has a byte and a delimiter at
// least): O(chunk_bytes), whatever the size of the file. A record (or the header)
// longer than the window doubles it until it fits, and it stays that size: the
// bound is then O(max(chunk_bytes, 2 x the longest record)).
//
// MPI ranks: a rank's part is a byte range [begin, end) of the
// file (FileSplit below), read by CsvRangeChunks: the same reader, reading the file's
// header record and then the range, so the header, the column selection, the --na
// policy and every message are those of a whole-file read, and messages name the line in the whole file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mlt/io/csv.hpp"

namespace mlt::io {

// The default chunk: large enough that the parallel parser and the per-chunk BLAS
// work run at full speed, small enough to be a rounding error next to a fit's state.
inline constexpr std::size_t kDefaultChunkBytes = std::size_t{16} << 20;

struct ByteRange {
  std::uint64_t begin = 0, end = 0;  // [begin, end) of the file; empty when begin == end
  std::uint64_t first_line = 1;      // physical line of the byte at `begin`
};

// A part of a regular file for CsvChunks to read instead of the whole (an MPI rank's,
// FileSplit::range): the header record, bytes [0, header_end) (when the options say
// there is one), then the records of `range`. Both are read from the file mapped in
// memory, as a whole file is, and every line number is the whole file's.
struct FilePart {
  std::uint64_t header_end = 0;
  ByteRange range;
};

class CsvChunks {
 public:
  // Opens `path` ("-": standard input, read once) and reads its header. Throws what
  // read_csv throws for an unopenable file, a bad header or a bad column reference.
  // chunk_bytes >= 1: the input buffer (a test may make it tiny to force many chunks).
  // part: only that part of the file (a regular file: IoError otherwise); its input
  // is not hashed (data_hash() is then empty: the hash of a file needs all its bytes).
  CsvChunks(const std::string& path, const CsvOptions& options, const ColumnSelection& columns,
            std::size_t chunk_bytes = kDefaultChunkBytes, const FilePart* part = nullptr);
  ~CsvChunks();
  CsvChunks(const CsvChunks&) = delete;
  CsvChunks& operator=(const CsvChunks&) = delete;

  // The next rows (at least one) into `chunk`: X, text, lines (of the whole input),
  // dropped_rows (since the previous chunk; rows dropped after the last chunk are
  // counted in dropped_rows() and summary() only), and the file's source, feature_names, had_header and
  // delimiter. False at the end of the input; then bytes() and data_hash() are final.
  // Throws DataError as read_csv does (file:line:column), including "no data rows"
  // at the end of an input that had none.
  bool next(Table& chunk);

  const std::string& source() const;
  const Names& feature_names() const;  // in slot order, as Table::feature_names
  std::uint64_t rows() const;          // rows returned so far
  std::uint64_t dropped_rows() const;  // rows dropped so far under MissingPolicy::drop
  std::uint64_t bytes() const;         // input bytes read so far
  std::string data_hash() const;       // of the whole input (io/data_hash.hpp), once next() returned false
  // The provenance fields of a Table of the whole input, without its rows: what a
  // model file records (source, names, header, delimiter, bytes, data_hash).
  Table summary() const;

 private:
  struct Impl;
  // read_csv is the same reader run to the end.
  friend Table read_csv(const std::string&, const CsvOptions&, const ColumnSelection&);
  std::unique_ptr<Impl> impl_;
};

// A file split into `parts` byte ranges at record boundaries, one per MPI rank.
//
// Part i starts at the first record start at or after its nominal cut
// c_i = h + (size - h) i / parts (h: the end of the header record, 0 without a
// header), so the parts hold every data record exactly once, in file order. A record
// start is a position after a line end (LF, CRLF or a lone CR) outside quotes: a
// quoted field may span lines, so where a cut falls inside one is decided by the
// parity of the quote characters before it (RFC 4180's "" escape adds two). That
// parity, and the line number of each cut for messages, need the counts of every
// byte before the cut: each part counts its own nominal range once (scan, a pass at
// memory speed), the parts exchange the counts (two numbers each), and each computes
// its range from them (range), reading only forward to the next record start.
//
// A malformed quote (a lone '"' in an unquoted field) flips the parity after it, and
// the later cuts may then fall inside records: the part holding that quote reports it
// (the reader refuses it), and being the earliest error in the file it is the one a
// run reports (distributed.hpp: agree reports the lowest failing rank).
struct PartScan {
  std::uint64_t quotes = 0;     // '"' bytes in the part's nominal range
  std::uint64_t line_ends = 0;  // physical line ends in it (a CRLF counts once)
};

class FileSplit {
 public:
  // Reads the header record's extent (with `header`). Throws InputError for a file
  // that cannot be opened or is not a regular file (standard input, a pipe: their
  // bytes cannot be split), IoError for a failed read.
  FileSplit(const std::string& path, bool header, std::size_t parts);

  std::size_t parts() const { return parts_; }
  std::uint64_t size() const { return size_; }
  std::uint64_t header_end() const { return header_end_; }    // h: the data start here
  std::uint64_t header_lines() const { return header_lines_; }  // line ends in [0, h)
  // The counts of part i's nominal range [c_i, c_{i+1}).
  PartScan scan(std::size_t part) const;
  // Part i's range, from every part's scan (in part order).
  ByteRange range(std::size_t part, const std::vector<PartScan>& scans) const;

 private:
  std::uint64_t nominal_cut(std::size_t part) const;
  std::string path_;
  std::size_t parts_;
  std::uint64_t size_ = 0, header_end_ = 0, header_lines_ = 0;
};

// One part of a file (FileSplit::range) read in chunks as CsvChunks reads the whole:
// the same reader, given the part (FilePart), reads the header record and then the
// range, mapped from the file; rows' lines and messages are the whole file's and name
// `path`. A part may hold no rows (a small file, many parts): next() then returns
// false at once, without the reader's "no data rows" (whether the whole file has any
// is for the caller to say, after hearing from every part).
class CsvRangeChunks {
 public:
  CsvRangeChunks(const std::string& path, const FileSplit& split, const ByteRange& range,
                 const CsvOptions& options, const ColumnSelection& columns,
                 std::size_t chunk_bytes = kDefaultChunkBytes);
  ~CsvRangeChunks();
  CsvRangeChunks(const CsvRangeChunks&) = delete;
  CsvRangeChunks& operator=(const CsvRangeChunks&) = delete;

  bool next(Table& chunk);             // as CsvChunks::next, for this part's rows
  std::uint64_t rows() const;          // rows returned so far
  std::uint64_t dropped_rows() const;  // rows dropped so far under MissingPolicy::drop
  bool finished() const { return done_; }  // next() has returned false
  // The provenance of the whole file, but for what one part cannot know: source,
  // names, header, delimiter and the file's size; data_hash empty (the hash of the
  // whole file needs one reader of every byte); dropped_rows this part's.
  Table summary() const;

 private:
  std::string path_;
  std::uint64_t rows_ = 0, dropped_ = 0;  // once the reader is gone
  Table summary_;                          // once the reader is gone
  std::uint64_t file_size_ = 0;
  bool done_ = false;
  std::unique_ptr<CsvChunks> reader_;
};

// The mean bytes per cell of the first `sample` bytes of the file at `path` (a cell's
// text and the delimiter or line end after it; every ',', ';', tab and line feed counts
// as one, so a text cell holding them counts as several, which errs low), at least 2
// (a digit and a delimiter), and 2 when the sample holds no separator: what --memory
// predicts the parsed matrix from (8 bytes a cell).
double bytes_per_cell(const std::string& path, std::size_t sample = std::size_t{1} << 20);

// A memory size as a user writes it: a number with an optional K, M, G or T suffix
// (powers of 1024; "B" or "iB" after it allowed), e.g. 512M, 2G, 1.5GiB, 100000.
// Throws UsageError naming `what` for anything else or for zero.
std::uint64_t parse_memory_size(const std::string& text, const std::string& what);

}  // namespace mlt::io
