// CSV reader. Design notes:
//
// * A regular file is read through windows of it mapped in memory (MappedWindow:
//   no copy into a buffer of ours); a pipe or a terminal with read(2), the next
//   piece read (and hashed) on another thread while this one is parsed (by
//   read_csv where it was read; CsvChunks copies it into buffers cut where a file's
//   windows are, so that a streamed fit's chunks are the same either way). Never line
//   by line; parsed in the same pass that converts numbers. Short decimals (nearly
//   every cell of a real file, `%.6g` to `%.15g`) are converted in place by
//   csv_number.hpp, exactly; longer ones by fast_float between the bounds the scan
//   found; any other number goes to std::from_chars (correctly rounded and
//   locale-independent, unlike strtod's locale and fast-cpp-csv-parser's own float
//   parser), and anything odd to the careful path, which owns every message. A
//   chunk without any quote character is split at line ends and parsed by several
//   threads; quoted input is parsed sequentially, since a quote changes where
//   records end.
// * The common cell is converted with its end already known: a vector scan finds
//   delimiters and line ends 64 bytes at a time (csv_scan.hpp) and a converter of
//   up to 16 digits in one vector (csv_number.hpp) must take exactly the bytes up to
//   that end, so successive cells do not wait on each other.
// * read_csv on a regular file without quotes (every record one line) first counts
//   the line feeds (the mapped file, vector compares, both cores: a few percent of
//   the read), sizes the matrix, and each range writes its rows straight into it at
//   the row of its first line: one write per value, each page of the matrix touched
//   once, no second copy. Blank lines and dropped rows leave gaps, closed in place
//   at the end. The ranges (4 MiB) map their own bytes and are handed to the
//   threads from one queue for the whole file: no thread waits at a window's end.
// * Otherwise (a pipe, quotes, lone CRs, CsvChunks) each range's values are written
//   once, column-major, into a block sized by the range's line ends; the blocks are
//   copied into the final matrix by both cores and freed one by one, so the peak
//   stays near one copy of the matrix instead of two. (Not transparent huge pages
//   for the matrix: clearing them costs more system time than the 4 KiB faults they
//   save.)
// * The input's hash (io/data_hash.hpp, the model's provenance) runs on a thread of
//   its own: over a file's own windows from the first byte to the last, or over a
//   pipe's pieces as they are read ahead.
// * Physical line numbers are counted as records are parsed (a quoted newline counts)
//   so every message can name file:line:column.
#include "mlt/io/csv.hpp"
#include "mlt/io/csv_chunks.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <future>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_map>

#include "mlt/core/error.hpp"
#include "mlt/core/log.hpp"
#include "mlt/core/memory.hpp"
#include "mlt/core/parallel.hpp"
#include "mlt/io/csv_number.hpp"
#include "mlt/io/csv_scan.hpp"
#include "mlt/io/data_hash.hpp"

namespace mlt::io {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{16} << 20;
constexpr std::size_t kMaxFieldBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxRecordBytes = std::size_t{1} << 30;
constexpr std::size_t kMaxColumns = std::size_t{1} << 20;
constexpr std::size_t kParallelMinBytes = std::size_t{1} << 20;
// read_csv from a pipe: the room in front of each piece read for the unfinished record
// of the piece before it (a record longer than this is joined in a buffer of its own).
constexpr std::size_t kHeadroomBytes = std::size_t{1} << 20;
constexpr unsigned kRangesPerThread = 4;
// place_rows keeps the line feeds before every kGrain bytes of the data, so that a
// range of parse_placed starting there knows the row of its first line.
constexpr std::uint64_t kGrain = std::uint64_t{1} << 20;
// The bytes each task of CsvChunks::Impl::parse_placed maps and parses (a multiple of
// kGrain, so that its rows start from a line feed count): ~100 tasks for a file of
// 400 MB, so the threads end together.
constexpr std::uint64_t kPlacedRangeBytes = 4 * kGrain;

// The granule of mmap's offsets and of madvise's ranges.
std::uint64_t page_bytes() {
  static const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

bool is_missing_token(std::string_view s) {
  static constexpr std::array<std::string_view, 11> tokens = {
      "", "NA", "N/A", "na", "n/a", "NaN", "nan", "NAN", "null", "NULL", "None"};
  return std::find(tokens.begin(), tokens.end(), s) != tokens.end();
}

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A cell shown in a message: quoted, cut short, control bytes escaped.
std::string show(std::string_view cell) {
  std::string out = "\"";
  for (std::size_t i = 0; i < cell.size() && i < 40; ++i) {
    unsigned char c = static_cast<unsigned char>(cell[i]);
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (cell.size() > 40) out += "...";
  return out + "\"";
}

// Byte offset of the first invalid UTF-8 sequence in [p, e), or -1.
long first_invalid_utf8(const unsigned char* p, const unsigned char* e) {
  const unsigned char* b = p;
  while (p < e) {
    unsigned c = *p;
    int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    if (n < 0 || (c >= 0x80 && c < 0xC2) || e - p <= n) return p - b;
    for (int k = 1; k <= n; ++k)
      if ((p[k] & 0xC0) != 0x80) return p - b;
    p += n + 1;
  }
  return -1;
}

// Reads a file descriptor in large pieces; owns it unless it is standard input.
class Source {
 public:
  explicit Source(const std::string& path) : name_(path == "-" ? "<stdin>" : path) {
    if (path == "-") {
      fd_ = 0;
      origin_ = ::lseek(fd_, 0, SEEK_CUR);  // -1 for a pipe
      return;
    }
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw InputError(path + ": cannot open: " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd_, &st) == 0 && S_ISDIR(st.st_mode)) {
      ::close(fd_);
      throw InputError(path + ": is a directory, expected a CSV file");
    }
    posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    origin_ = 0;
  }
  ~Source() {
    if (fd_ > 0) ::close(fd_);
  }

  // For a regular file (standard input too, when redirected from one): where reading
  // starts and the size, so that the reader can map it and look ahead. False for a
  // pipe or a terminal, which can only be read once.
  bool regular(std::uint64_t& origin, std::uint64_t& size) const {
    struct stat st;
    if (origin_ < 0 || ::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    origin = static_cast<std::uint64_t>(origin_);
    size = static_cast<std::uint64_t>(st.st_size);
    return true;
  }

  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;

  // Fills up to n bytes; fewer only at end of input.
  std::size_t read(char* buf, std::size_t n) {
    std::size_t got = 0;
    while (got < n) {
      ssize_t r = ::read(fd_, buf + got, n - got);
      if (r == 0) break;
      if (r < 0) {
        if (errno == EINTR) continue;
        throw IoError(name_ + ": read failed: " + std::strerror(errno));
      }
      got += static_cast<std::size_t>(r);
    }
    return got;
  }
  const std::string& name() const { return name_; }
  int fd() const { return fd_; }

 private:
  std::string name_;
  int fd_ = -1;
  off_t origin_ = -1;  // the offset of the first byte read, when the input can seek
};

// Bytes [offset, offset + length) of a regular file, mapped read-only: the parser
// reads the page cache itself, where read(2) would first copy every byte into a
// buffer of ours (a copy the size of the file, plus the page faults of writing it).
// MAP_POPULATE makes the window's page-table entries in the one mmap call, instead
// of a fault each 4 KiB (the pages are in the page cache once the file was read).
// Unmapped when the window moves on, so the file's pages never count in the
// process's resident memory beyond one window.
class MappedWindow {
 public:
  MappedWindow() = default;
  MappedWindow(const Source& src, std::uint64_t offset, std::size_t length) {
    const std::uint64_t page = page_bytes();
    const std::uint64_t aligned = offset / page * page;  // mmap's offset must be
    size_ = length + static_cast<std::size_t>(offset - aligned);
    void* m = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, src.fd(), static_cast<off_t>(aligned));
    if (m == MAP_FAILED) throw IoError(src.name() + ": cannot map the file: " + std::strerror(errno));
    base_ = m;
    data_ = static_cast<const char*>(m) + (offset - aligned);
  }
  MappedWindow(MappedWindow&& o) noexcept { *this = std::move(o); }
  MappedWindow& operator=(MappedWindow&& o) noexcept {
    std::swap(base_, o.base_);
    std::swap(size_, o.size_);
    std::swap(data_, o.data_);
    return *this;
  }
  ~MappedWindow() {
    if (base_) ::munmap(base_, size_);
  }
  const char* data() const { return data_; }

 private:
  void* base_ = nullptr;
  std::size_t size_ = 0;
  const char* data_ = nullptr;
};

// Where an input of no bytes points (a part of nothing): a valid address, for the
// memchr and compares that look at zero bytes there.
constexpr const char* kNoBytes = "";

// category: a feature column read as text (ColumnSelection::categorical).
enum class Role : std::uint8_t { ignore, feature, text, category };

struct Plan {
  std::vector<Role> role;          // per input column
  std::vector<std::uint32_t> slot; // feature index or text index, per input column
  Names column_names;              // per input column, for messages
  std::size_t n_features = 0;
  std::size_t n_text = 0;
  Names feature_columns;           // numeric and categorical features, in feature order
};

// Rows parsed from one byte range. Feature values are stored column-major with room
// for `capacity` rows (a bound from the range's line ends), so each value is written
// once, where the matrix wants it, and joining the blocks is a memcpy per column.
// The room is allocated uninitialised: rows never written are never touched, so a
// generous bound costs address space, not memory.
struct Block {
  std::unique_ptr<double[]> values;            // capacity x n_features, column-major
  std::size_t capacity = 0;
  // Set when the rows go straight into the final matrix (read_csv on a file, see
  // CsvChunks::Impl::place_rows): row i's feature j at target[i + j * stride];
  // capacity is then the rows the range may hold, and values stays empty.
  double* target = nullptr;
  std::size_t stride = 0;
  std::uint64_t first_row = 0;                 // of the matrix, where target points
  std::vector<std::vector<std::string>> text;  // [text column][row]
  std::vector<std::uint64_t> lines;            // line of each row, relative to the range
  std::size_t rows = 0;
  std::size_t dropped = 0;
  std::uint64_t line_count = 0;                // physical lines consumed
};

// An upper bound on the records in [b, e): every record but the last ends in a line
// end. A plain loop the compiler vectorises; a small cost next to the parse.
std::size_t max_records(const char* b, const char* e) {
  std::size_t n = 1;
  for (const char* p = b; p < e; ++p) n += (*p == '\n') | (*p == '\r');
  return n;
}

// An error found inside a range: the line is relative to the range start, so that
// ranges parsed in parallel can be placed once the preceding ranges are counted.
struct RangeError {
  std::uint64_t line;
  std::size_t column;  // 1-based; 0 when the message concerns the whole line
  std::string message;
};

// Thrown by the parser when the rows it was given in the matrix are not enough (see
// RangeParser::parse); the reader turns it into an IoError naming the file.
struct InputChanged {};

class RangeParser {
 public:
  RangeParser(const Plan& plan, char delimiter, MissingPolicy missing, bool header_given, bool verbatim)
      : plan_(plan), delim_(delimiter), missing_(missing), header_given_(header_given), verbatim_(verbatim) {
    while (leading_features_ < plan_.role.size() && plan_.role[leading_features_] == Role::feature)
      ++leading_features_;
  }

  // Parses the records in [b, e). Unless at_eof, a trailing record that may continue
  // past e is left alone: the return value is where parsing stopped.
  const char* parse(const char* b, const char* e, bool at_eof, Block& out) {
    const std::size_t nf = plan_.n_features;
    const std::size_t ncols = plan_.role.size();
    out.text.resize(plan_.n_text);
    if (nf && !out.target) {
      // A kept record has ncols - 1 delimiters and a byte or more in each feature
      // (an empty one is missing: refused or dropped), which bounds the rows too
      // when line ends do not (a chunk of blank lines and a wide header). The +1 is
      // the slot a dropped or unfinished record is written to before it is let go.
      // Under `keep` an empty feature is kept: a record is then only bounded by its
      // delimiters and line end (ncols bytes; the last may lack the line end, +1).
      const std::size_t by_bytes = missing_ == MissingPolicy::keep
                                       ? static_cast<std::size_t>(e - b) / ncols + 2
                                       : static_cast<std::size_t>(e - b) / (ncols - 1 + nf) + 1;
      out.capacity = std::min(max_records(b, e), by_bytes);
      out.values.reset(new double[out.capacity * nf]);
    }
    double* const values = out.target ? out.target : out.values.get();
    const std::size_t cap = out.target ? out.stride : out.capacity;
    out.lines.reserve(out.capacity);
    const char* p = b;
    std::uint64_t line = 0;
    detail::SeparatorScan separators(e, delim_);
    while (p < e) {
      if (*p == '\n') {
        ++p, ++line;
        continue;
      }
      if (*p == '\r') {
        if (p + 1 == e && !at_eof) break;
        p += (p + 1 < e && p[1] == '\n') ? 2 : 1;
        ++line;
        continue;
      }
      // Rows placed in the matrix were counted from the file's line feeds a moment
      // before: more records than that means the file changed (lone CRs, lines
      // added), and the row would land in another range's rows or past the matrix.
      if (out.target && out.rows >= out.capacity) throw InputChanged{};
      const char* record_start = p;
      const std::uint64_t record_line = line;
      // This record's feature j goes to row[j * cap].
      double* row = nf ? values + out.rows : nullptr;
      bool row_missing = false;
      std::size_t col = 0;
      bool incomplete = false;
      // The record's leading feature columns, while each is a short decimal the
      // vector converter takes and ends where the record says it should (the
      // delimiter, or the line feed after the last column): no role, quote or
      // end-of-input question per cell. The first cell it does not take, if any,
      // goes to the loop below, which starts from that cell as from any other.
      bool whole = false;
#ifdef MLT_FOUR_DECIMALS
      // Four cells at a time while four feature columns, none the record's last, are
      // left: the conversions of four cells in one vector. Any doubt (a cell that is
      // not such a decimal, a separator not the delimiter) and the four go to the
      // loop below, one by one.
      while (col + 4 <= leading_features_ && col + 4 < ncols) {
        const char* cell[4];
        const char* cell_end[4];
        const char* q = p;
        int i = 0;
        for (; i < 4; ++i) {
          cell[i] = q;
          cell_end[i] = separators.next(q);
          if (cell_end[i] >= e || *cell_end[i] != delim_) break;
          q = cell_end[i] + 1;
        }
        double v[4];
        if (i < 4 || e - cell[3] < 17 || !detail::parse_four_delimited_decimals(cell, cell_end, v)) break;
        for (int c = 0; c < 4; ++c) row[plan_.slot[col + c] * cap] = v[c];
        col += 4;
        p = q;
      }
#endif
      for (; col < leading_features_; ++col) {
        const char* t = separators.next(p);
        double v;
        if (e - p < 17 || t >= e || !detail::parse_delimited_decimal(p, t, v)) break;
        const bool last = col + 1 == ncols;
        if (*t != (last ? '\n' : delim_)) break;
        row[plan_.slot[col] * cap] = v;
        if (last) {
          p = t;
          whole = true;
          ++col;
          break;
        }
        p = t + 1;
      }
      while (!whole) {
        const Role role = col < ncols ? plan_.role[col] : Role::ignore;
        // Fast paths: an unquoted number followed by a delimiter or line end. First
        // the short decimals of nearly every real file, then longer ones up to the
        // end the scan found, then any number from_chars takes (blanks around it
        // allowed); the rest goes the careful way below.
        if (role == Role::feature && p < e && *p != '"') {
          double v;
          // The common cell: its end from the structural scan, and a number that
          // reaches exactly there (csv_scan.hpp says why the end comes first).
          const char* t = separators.next(p);
          // (Up to 16 digits and a point; 17 bytes readable from the start.)
          if ((t < e || at_eof) && e - p >= 17 && detail::parse_delimited_decimal(p, t, v)) {
            row[plan_.slot[col] * cap] = v;
            p = t;
            goto field_done;
          }
          // A longer cell (`%.10g`, `%.17g`, an exponent) between the same bounds.
          // At the end of the buffer before the end of the input, the cell may go on
          // in the next read: the paths below leave it for then.
          if ((t < e || at_eof) && detail::parse_delimited_number(p, t, v)) {
            row[plan_.slot[col] * cap] = v;
            p = t;
            goto field_done;
          }
          t = detail::parse_short_decimal(p, e, v);
          if (t && ((t < e && (*t == delim_ || *t == '\n' || *t == '\r')) || (t == e && at_eof))) {
            row[plan_.slot[col] * cap] = v;
            p = t;
            goto field_done;
          }
          const char* q = p;
          while (q < e && *q == ' ') ++q;
          auto [ptr, ec] = std::from_chars(q, e, v);
          if (ec == std::errc() && ptr != q) {
            t = ptr;
            while (t < e && (*t == ' ' || (*t == '\t' && delim_ != '\t'))) ++t;
            if ((t < e && (*t == delim_ || *t == '\n' || *t == '\r')) || (t == e && at_eof)) {
              if (std::isfinite(v)) {
                row[plan_.slot[col] * cap] = v;
                p = t;
                goto field_done;
              }
            }
          }
        }
        {
          std::string_view cell;
          bool quoted = false;
          // What is wrong with a cell is reported where the cell starts: a quoted cell
          // may span lines, and "line 4, column 2" of a cell opened on line 3 points
          // at its tail (or at no such column).
          const std::uint64_t cell_line = line;
          if (p < e && *p == '"') {
            quoted = true;
            const std::uint64_t open_line = line;
            ++p;
            scratch_.clear();
            const char* seg = p;
            bool closed = false;
            while (p < e) {
              if (*p == '"') {
                if (p + 1 < e && p[1] == '"') {
                  scratch_.append(seg, p + 1);
                  p += 2;
                  seg = p;
                  continue;
                }
                if (p + 1 == e && !at_eof) break;
                scratch_.append(seg, p);
                ++p;
                closed = true;
                break;
              }
              if (*p == '\n' || (*p == '\r' && !(p + 1 < e && p[1] == '\n'))) ++line;
              ++p;
              if (static_cast<std::size_t>(p - seg) + scratch_.size() > kMaxFieldBytes)
                throw RangeError{open_line, col + 1,
                                 "quoted field longer than 1 MiB (unterminated quote?)"};
            }
            if (!closed) {
              if (!at_eof) {
                incomplete = true;
                break;
              }
              throw RangeError{open_line, col + 1, "unterminated quote opened here"};
            }
            if (p < e && *p != delim_ && *p != '\n' && *p != '\r')
              throw RangeError{line, col + 1,
                               std::string("unexpected ") + show(std::string_view(p, 1)) +
                                   " after a closing quote"};
            cell = scratch_;
          } else {
            const char* fb = p;
            while (p < e && *p != delim_ && *p != '\n' && *p != '\r') {
              if (*p == '"')
                throw RangeError{line, col + 1, "stray quote inside an unquoted field"};
              ++p;
            }
            if (static_cast<std::size_t>(p - fb) > kMaxFieldBytes)
              throw RangeError{line, col + 1, "field longer than 1 MiB"};
            cell = std::string_view(fb, static_cast<std::size_t>(p - fb));
          }
          if (p == e && !at_eof) {
            incomplete = true;
            break;
          }
          if (col < ncols) {
            if (role == Role::feature) {
              double v = 0;
              switch (parse_cell(cell, v)) {
                case CellStatus::number:
                  row[plan_.slot[col] * cap] = v;
                  break;
                case CellStatus::missing:
                  if (missing_ == MissingPolicy::keep) {
                    row[plan_.slot[col] * cap] = std::numeric_limits<double>::quiet_NaN();
                    break;
                  }
                  if (missing_ == MissingPolicy::error)
                    throw RangeError{cell_line, col + 1,
                                     "missing value " + show(cell) + " in column " + show(plan_.column_names[col]) +
                                         " (use `na` drop to skip such rows)"};
                  row_missing = true;
                  break;
                case CellStatus::not_finite:
                  throw RangeError{cell_line, col + 1, "non-finite value " + show(cell)};
                case CellStatus::out_of_range:
                  throw RangeError{cell_line, col + 1,
                                   "value " + show(cell) + " is out of the range of a double"};
                case CellStatus::not_a_number: {
                  std::string why = "expected a number in column " +
                                    show(plan_.column_names[col]) + ", found " + show(cell);
                  if (auto nul = cell.find('\0'); nul != std::string_view::npos && !quoted)
                    why += " (NUL byte at byte offset " +
                           std::to_string(stream_offset_ + static_cast<std::uint64_t>(p - b) - cell.size() + nul) + ")";
                  if (quoted) why += " (quoted)";
                  if (ncols == 1 && cell.find_first_of(",;\t") != std::string_view::npos)
                    why += "; only 1 column found: wrong `delimiter`?";
                  if (!header_given_ && line_offset_ + record_line == 1)
                    why += "; is line 1 a header? then drop `no_header`";
                  throw RangeError{cell_line, col + 1, why};
                }
              }
            } else if (role == Role::text || role == Role::category) {
              // A label or a fold name goes into the model's JSON header and the JSON
              // reports, which hold Unicode text only; replacing the bytes would make
              // predictions echo other strings than the training labels, so refuse.
              // (mlt split copies cells verbatim and takes any bytes.)
              if (!verbatim_) {
                const auto* u = reinterpret_cast<const unsigned char*>(cell.data());
                if (const long bad = first_invalid_utf8(u, u + cell.size()); bad >= 0)
                  throw RangeError{cell_line, col + 1,
                                   "invalid UTF-8 in column " + show(plan_.column_names[col]) + " at byte " +
                                       std::to_string(bad + 1) + " of the cell"};
              }
              if (!verbatim_ && is_missing_token(cell)) {
                if (role == Role::category && missing_ == MissingPolicy::keep) {
                  out.text[plan_.slot[col]].emplace_back();
                  goto field_done;
                }
                if (missing_ != MissingPolicy::drop)
                  throw RangeError{cell_line, col + 1,
                                   "missing value " + show(cell) + " in column " +
                                       show(plan_.column_names[col]) + " (use `na` drop to skip such rows)"};
                row_missing = true;
              }
              out.text[plan_.slot[col]].emplace_back(cell);
            }
          }
        }
      field_done:
        ++col;
        if (p < e && *p == delim_) {
          ++p;
          continue;
        }
        break;  // line end, or end of input at EOF
      }
      // A CR that ends the range may be the first half of a CRLF: taking the LF that
      // follows for a blank line would put every later message one line off. The
      // record is parsed again behind the next read.
      if (!incomplete && p + 1 == e && *p == '\r' && !at_eof) incomplete = true;
      if (incomplete) {
        for (auto& t : out.text) t.resize(out.rows);
        line = record_line;
        p = record_start;
        break;
      }
      if (col != ncols)
        throw RangeError{line, 0,
                         std::to_string(col) + (col == 1 ? " field" : " fields") + ", expected " +
                             std::to_string(ncols)};
      if (p < e) {
        if (*p == '\r' && p + 1 < e && p[1] == '\n') ++p;
        ++p;
      }
      if (row_missing) {
        for (auto& t : out.text)
          if (t.size() > out.rows) t.resize(out.rows);
        ++out.dropped;
      } else {
        out.lines.push_back(record_line);
        ++out.rows;
      }
      ++line;
    }
    out.line_count = line;
    return p;
  }

  // Where the range starts: its first physical line, its byte offset in the input.
  void set_position(std::uint64_t first_line, std::uint64_t stream_offset) {
    line_offset_ = first_line;
    stream_offset_ = stream_offset;
  }

 private:
  const Plan& plan_;
  char delim_;
  MissingPolicy missing_;
  bool header_given_;
  bool verbatim_;
  std::size_t leading_features_ = 0;  // columns before the first that is not a feature
  std::uint64_t line_offset_ = 0;
  std::uint64_t stream_offset_ = 0;
  std::string scratch_;
};

// Splits one record (header, or the first data record) into raw cells. Used once,
// so it favours clarity over speed. Returns the position after the record.
const char* split_record(const char* p, const char* e, char delim, Names& cells,
                         const std::string& source, std::uint64_t line) {
  const std::string where = source + ":" + std::to_string(line);
  cells.clear();
  std::string cell;
  for (;;) {
    cell.clear();
    if (p < e && *p == '"') {
      ++p;
      for (;;) {
        if (p == e) throw DataError(where + ": unterminated quote in the first record");
        if (*p == '"') {
          if (p + 1 < e && p[1] == '"') {
            cell += '"';
            p += 2;
            continue;
          }
          ++p;
          break;
        }
        cell += *p++;
      }
      if (p < e && *p != delim && *p != '\n' && *p != '\r')
        throw DataError(where + ": unexpected character after a closing quote");
    } else {
      while (p < e && *p != delim && *p != '\n' && *p != '\r') {
        if (*p == '"') throw DataError(where + ": stray quote inside an unquoted field");
        cell += *p++;
      }
    }
    cells.push_back(cell);
    if (cells.size() > kMaxColumns)
      throw DataError(where + ": more than " + std::to_string(kMaxColumns) + " columns");
    if (p < e && *p == delim) {
      ++p;
      continue;
    }
    break;
  }
  if (p < e && *p == '\r') ++p;
  if (p < e && *p == '\n') ++p;
  return p;
}

// Counts delimiter candidates outside quotes in the first line; the most frequent
// wins, ',' on a tie or when there is none (a one-column file).
char detect_delimiter(const char* p, const char* e) {
  std::size_t comma = 0, tab = 0, semicolon = 0;
  bool in_quotes = false;
  for (; p < e; ++p) {
    if (*p == '"') in_quotes = !in_quotes;
    if (in_quotes) continue;
    if (*p == '\n' || *p == '\r') break;
    comma += *p == ',';
    tab += *p == '\t';
    semicolon += *p == ';';
  }
  if (tab > comma && tab >= semicolon) return '\t';
  if (semicolon > comma && semicolon > tab) return ';';
  return ',';
}

std::size_t resolve(const std::string& ref, const Names& header, const std::string& source,
                    bool has_header) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == ref) return i;
  if (ref == kLastColumn) return header.size() - 1;
  if (!ref.empty() && std::all_of(ref.begin(), ref.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    std::size_t k = 0;
    auto [ptr, ec] = std::from_chars(ref.data(), ref.data() + ref.size(), k);
    if (ec == std::errc() && k >= 1 && k <= header.size()) return k - 1;
    throw UsageError(source + ": column " + ref + " is out of range: the file has " +
                     std::to_string(header.size()) + " columns");
  }
  std::string list;
  bool comma = false;  // a name with a comma in it, which the list quotes
  for (std::size_t i = 0; i < header.size() && i < 50; ++i) {
    const bool quote = header[i].find(',') != std::string::npos;
    comma = comma || quote;
    list += (i ? ", " : "") + (quote ? "\"" + header[i] + "\"" : header[i]);
  }
  if (header.size() > 50) list += ", ...";
  throw UsageError(source + ": no column named \"" + ref + "\"" +
                   (has_header ? "; columns are: " + list +
                                     (comma ? " (a comma inside a column name is written \\, in a list of names)" : "")
                               : " (the file has no header: use 1-based column numbers)"));
}

Plan make_plan(const Names& header, const ColumnSelection& sel, const std::string& source,
               bool has_header) {
  Plan plan;
  plan.column_names = header;
  if (sel.verbatim) {
    plan.role.assign(header.size(), Role::text);
    for (std::size_t c = 0; c < header.size(); ++c) plan.slot.push_back(static_cast<std::uint32_t>(c));
    plan.n_text = header.size();
    return plan;
  }
  plan.role.assign(header.size(), Role::feature);
  plan.slot.assign(header.size(), 0);
  for (const auto& ref : sel.ignore) plan.role[resolve(ref, header, source, has_header)] = Role::ignore;
  for (std::size_t t = 0; t < sel.text.size(); ++t) {
    std::size_t c = resolve(sel.text[t], header, source, has_header);
    if (plan.role[c] == Role::text)
      throw UsageError("column \"" + header[c] + "\" is named twice");
    plan.role[c] = Role::text;
    plan.slot[c] = static_cast<std::uint32_t>(t);
  }
  plan.n_text = sel.text.size();
  if (!sel.features.empty()) {
    std::vector<Role> chosen(header.size(), Role::ignore);
    for (std::size_t c = 0; c < header.size(); ++c)
      if (plan.role[c] == Role::text) chosen[c] = Role::text;
    for (std::size_t j = 0; j < sel.features.size(); ++j) {
      std::size_t c = resolve(sel.features[j], header, source, has_header);
      // A feature that is also a text column would take the text column's slot and
      // leave it without values.
      if (chosen[c] != Role::ignore)
        throw UsageError("column \"" + header[c] + "\" is named twice");
      chosen[c] = Role::feature;
      plan.slot[c] = static_cast<std::uint32_t>(j);
    }
    plan.role = chosen;
    plan.n_features = sel.features.size();
  } else {
    for (std::size_t c = 0; c < header.size(); ++c)
      if (plan.role[c] == Role::feature) plan.slot[c] = static_cast<std::uint32_t>(plan.n_features++);
  }
  // Feature columns in slot order, before categorical ones leave the numeric slots.
  plan.feature_columns.assign(plan.n_features, std::string());
  for (std::size_t c = 0; c < header.size(); ++c)
    if (plan.role[c] == Role::feature) plan.feature_columns[plan.slot[c]] = header[c];
  if (!sel.categorical.empty() || !sel.categorical_features.empty()) {
    std::vector<bool> is_category(plan.n_features, false);
    for (const auto& ref : sel.categorical) {
      const std::size_t c = resolve(ref, header, source, has_header);
      if (plan.role[c] != Role::feature)
        throw UsageError("column \"" + header[c] + "\" cannot be categorical: it is " +
                         (plan.role[c] == Role::text ? "a target or otherwise not a feature" : "ignored"));
      if (is_category[plan.slot[c]]) throw UsageError("column \"" + header[c] + "\" is named twice as categorical");
      is_category[plan.slot[c]] = true;
    }
    for (const std::size_t j : sel.categorical_features) {
      if (j >= plan.n_features)
        throw DataError(source + ": categorical feature " + std::to_string(j + 1) + " of " +
                        std::to_string(plan.n_features) + " feature columns");
      is_category[j] = true;
    }
    // Renumber in feature order: numeric features 0, 1, ...; categories after text.
    std::vector<std::size_t> column_of(plan.n_features);
    for (std::size_t c = 0; c < header.size(); ++c)
      if (plan.role[c] == Role::feature) column_of[plan.slot[c]] = c;
    std::size_t numeric = 0, text = plan.n_text;
    for (std::size_t j = 0; j < plan.n_features; ++j) {
      const std::size_t c = column_of[j];
      if (is_category[j]) {
        plan.role[c] = Role::category;
        plan.slot[c] = static_cast<std::uint32_t>(text++);
      } else {
        plan.slot[c] = static_cast<std::uint32_t>(numeric++);
      }
    }
    plan.n_text = text;
    plan.n_features = numeric;
  }
  if (sel.features_as_text) {
    for (std::size_t c = 0; c < header.size(); ++c)
      if (plan.role[c] == Role::feature) {
        plan.role[c] = Role::text;
        plan.slot[c] = static_cast<std::uint32_t>(plan.n_text + plan.slot[c]);
      }
    plan.n_text += plan.n_features;
    plan.n_features = 0;
  }
  return plan;
}

[[noreturn]] void raise_at(const std::string& source, std::uint64_t line, const RangeError& err) {
  std::string where = source + ":" + std::to_string(line);
  if (err.column) where += ":" + std::to_string(err.column);
  throw DataError(where + ": " + err.message);
}

}  // namespace

CellStatus parse_cell(std::string_view cell, double& value) {
  cell = trim_blanks(cell);
  if (is_missing_token(cell)) return CellStatus::missing;
  const char* b = cell.data();
  const char* e = b + cell.size();
  if (detail::parse_short_decimal(b, e, value) == e) return CellStatus::number;
  auto [ptr, ec] = std::from_chars(b, e, value);
  if (ec == std::errc::result_out_of_range) return CellStatus::out_of_range;
  if (ec != std::errc() || ptr != e) return CellStatus::not_a_number;
  if (std::isnan(value)) return CellStatus::missing;  // "nan(0x1)" and the like
  if (!std::isfinite(value)) return CellStatus::not_finite;
  return CellStatus::number;
}

const TextColumn& Table::text_column(const std::string& name) const {
  for (const auto& t : text)
    if (t.name == name) return t;
  throw Error("internal: text column \"" + name + "\" was not read", kExitSoftware);
}

// The reader's state between buffer-fulls: read_csv runs it to the end, CsvChunks
// hands out each buffer-full's rows as they are parsed.
struct CsvChunks::Impl {
  // whole_input: read_csv's reader, run to the end with its blocks joined, so where
  // its buffers end changes nothing (CsvChunks' chunks must end where a file's
  // windows do): a pipe's pieces are then parsed where they were read (in_place).
  Impl(const std::string& path, const CsvOptions& options, const ColumnSelection& columns,
       std::size_t chunk_bytes, const FilePart* part, bool whole_input = false);
  // Parses the next buffer-full into `blocks` (appended). False when the input had
  // already ended.
  bool parse_next(std::vector<Block>& blocks);
  // Moves the rows of `blocks` into `table` (X, lines, text; adds the dropped rows),
  // freeing each block as it goes. After place_rows, X is already in place: only
  // its gaps are closed.
  void assemble(std::vector<Block>& blocks, Table& table) const;
  [[noreturn]] void raise_changed() const {
    throw IoError(src.name() + ": the file changed while it was read (more lines than counted before the parse)");
  }
  // Points `block` at the matrix rows of the range [b, e), whose first line is row
  // `row` and which holds `lf` line feeds (one more record may follow the last).
  void target_rows(Block& block, const char* b, const char* e, std::uint64_t row, std::uint64_t lf) const {
    const std::uint64_t bound = lf + (e > b && e[-1] != '\n');
    // More lines than counted: the file grew after the count (a writer still at work).
    if (row + bound > placed_rows) raise_changed();
    block.target = placed + row;
    block.stride = placed_rows;
    block.first_row = row;
    block.capacity = bound;
  }
  // For read_csv on a regular file: counts the line feeds after the header (a pass
  // over mapped windows, vector compares, both cores) and, when every record is then one line (no
  // quote, no carriage return but in CRLF), sizes X for that many rows, so that the
  // parse writes each row where it belongs: no blocks, no copy, each page of the
  // matrix touched once. Line i after the header is row i; blank lines and dropped
  // rows leave gaps, closed in place at the end. The count of each kGrain bytes is
  // kept (feeds_before): each range of parse_placed starts from it.
  // False (X untouched) otherwise.
  bool place_rows(arma::mat& X);
  // After place_rows: parses the whole file's data lines into the matrix in one
  // parallel loop over ranges of kPlacedRangeBytes, each mapping its own bytes; no
  // window is shared, so no thread waits for another between windows. Appends a
  // block per range, in file order.
  void parse_placed(std::vector<Block>& blocks);
  // After place_rows and the parse: moves the n rows kept down over the gaps, in place,
  // and makes X n x n_features.
  void close_gaps(arma::mat& X, std::size_t n) const;
  // An error in the parse need not wait for the hash of the rest of the file.
  ~Impl() { stop_hashing = true; }
  // A mapped file's checksum, on a thread of its own from the first byte to the
  // last, through windows of its own: it never waits for the parse nor the parse for
  // it until the end, and the scheduler shares the two cores among it and the
  // parse's threads (a hash per parse window, waited for before the next, left a
  // core idle at each window's end).
  void hash_file() {
    hashing = std::async(std::launch::async, [this] {
      constexpr std::uint64_t kHashWindow = std::uint64_t{4} << 20;
      for (std::uint64_t at = origin; at < file_end && !stop_hashing; at += kHashWindow) {
        const std::size_t n = static_cast<std::size_t>(std::min(kHashWindow, file_end - at));
        const MappedWindow piece(src, at, n);
        hash.update(piece.data(), n);
      }
    });
  }
  // Lets the bytes before data + keep go (parsed), keeps the rest at the start and
  // brings the next ones in behind them, up to `capacity` bytes in all (doubled
  // first when what is kept fills it: a record longer than the buffer, or a header).
  // A file's window and a pipe's buffer thus hold the same bytes, and CsvChunks
  // returns the same chunks either way. (A pipe's bytes are hashed as they are read
  // ahead, a file's by hash_file.)
  void refill(std::size_t keep);
  // Read mode: copies the next n bytes of the input to `to` from the pieces read
  // ahead, waiting for the one in flight when they run out and starting the next
  // into the one drained. Fewer than n only at the end of the input.
  std::size_t take(char* to, std::size_t n);
  // Read mode: makes the piece read ahead the current one (waiting for it) and starts
  // reading the next. False at the end of the input.
  bool next_piece();
  // Read mode: reads the next piece (fewer bytes only at the end of the input) into
  // pieces[k] (after its headroom) and hashes it, on another thread; in place, also
  // notes whether it holds a quote.
  void read_ahead(int k);
  // In-place read mode's refill: the piece read ahead becomes the buffer, the
  // unfinished record kept (`carry` bytes at `kept`) copied into the headroom in front
  // of it, and the piece just parsed is read into next. Returns the bytes read.
  std::size_t refill_in_place(const char* kept, std::size_t carry);

  Source src;
  CsvOptions options;
  bool verbatim;
  DataHash hash;
  Table proto;  // the provenance fields every chunk carries
  Names header;
  Plan plan;
  unsigned n_threads = 1;
  std::size_t capacity;
  // The bytes in hand, [data, data + len): a regular file's window mapped in memory
  // (`window`, from the file offset origin + bytes_before), or else (a pipe, a
  // terminal) a buffer that read(2) fills (`buf`).
  const char* data = nullptr;
  bool mapped = false;
  MappedWindow window;
  std::uint64_t origin = 0, file_end = 0;  // mapped: where the input starts and ends in the file
  // A part of the file (CsvChunks' `part`): the header's bytes are mapped first, then
  // origin and file_end move to the part's range. Not hashed.
  std::optional<FilePart> part;
  bool hashed = true;
  // Read mode: the buffer parsed, and two pieces of input read ahead, one being
  // drained into the buffer and one being read meanwhile (a pipe's producer need not
  // wait for the parse, nor the parse for it): [taken, piece_bytes) of
  // pieces[current] are next, then pieces[1 - current] once `ahead` has it.
  std::unique_ptr<char[]> buf;
  std::array<std::unique_ptr<char[]>, 2> pieces;
  std::size_t piece_size = 0, piece_bytes = 0, taken = 0;
  int current = 1;
  // In-place read mode (read_csv from a pipe): no `buf` and no copy of 16 MiB per
  // buffer on the thread that parses; the buffer is pieces[current] from its
  // headroom's last `carry` bytes on (or `spill`, when a record is longer than the
  // headroom), and the piece itself was checked for quotes by the thread that read
  // it (piece_quoted), so the parse need not scan it for them either.
  bool in_place = false;
  std::size_t headroom = 0;
  std::unique_ptr<char[]> spill;
  std::size_t spill_size = 0;
  std::array<bool, 2> piece_quoted{};
  bool buffer_quoted = false;
  std::size_t len = 0;
  std::size_t start = 0;
  bool at_eof = false;
  bool done = false;
  std::uint64_t total_bytes = 0;
  std::uint64_t line_no = 1;       // physical line of the next record
  std::uint64_t bytes_before = 0;  // stream offset of data[0]
  std::uint64_t rows = 0, dropped = 0;
  std::uint64_t dropped_returned = 0;  // dropped rows reported in the chunks returned
  std::string digest;  // of the whole input, once done
  // Under place_rows: the matrix's memory and row count (the line feeds counted),
  // the row of the next buffer's first line, and where each range's rows went.
  double* placed = nullptr;
  std::uint64_t placed_rows = 0;
  // Under place_rows: the file offset of the first data line, and the line feeds
  // from there to each multiple of kGrain bytes after it (feeds_before[g] for
  // [data_from, data_from + g kGrain)).
  std::uint64_t data_from = 0;
  std::vector<std::uint64_t> feeds_before;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> segments;  // first row, rows
  // The checksum of a mapped file (hash_file), and in read mode the next piece read
  // ahead and hashed (declared after the buffers: their destructors wait, before
  // those go away). An error in the parse thus waits for the read ahead (one piece
  // more, or the end of the input) and for the hash's current window.
  std::atomic<bool> stop_hashing{false};
  std::future<void> hashing;
  std::future<std::size_t> ahead;
};

CsvChunks::Impl::Impl(const std::string& path, const CsvOptions& opts, const ColumnSelection& columns,
                      std::size_t chunk_bytes, const FilePart* part_of_file, bool whole_input)
    : src(path), options(opts), verbatim(columns.verbatim), capacity(std::max<std::size_t>(chunk_bytes, 1)) {
  const std::string& source = src.name();
  proto.source = source;
  proto.had_header = options.header;

  std::uint64_t size = 0;
  const bool regular = src.regular(origin, size);
  mapped = regular && size > origin;
  file_end = size;
  if (part_of_file) {
    if (!regular) throw IoError(source + ": not a regular file, so a part of it cannot be read");
    part = *part_of_file;
    hashed = false;
    // First the header's bytes (the part's range comes once the header is read,
    // below); without a header, the range itself.
    if (options.header) {
      file_end = std::min(size, part->header_end);
    } else {
      origin = part->range.begin;
      file_end = std::min(size, part->range.end);
      line_no = part->range.first_line;
    }
    mapped = file_end > origin;
  }
  if (!mapped && !part) {
    if (src.fd() == 0) {
      // A pipe's own buffer (64 KiB by default) makes its producer and the reader
      // take turns every 64 KiB; 1 MiB, the unprivileged maximum, cuts the switches
      // 16-fold. Not a pipe, or refused: nothing changes.
      ::fcntl(0, F_SETPIPE_SZ, 1 << 20);
    }
    in_place = whole_input;
    piece_size = capacity;
    if (in_place) {
      headroom = kHeadroomBytes;
    } else {
      buf.reset(new char[capacity]);
    }
    for (auto& piece : pieces) piece.reset(new char[headroom + piece_size]);
    read_ahead(0);
  }
  if (mapped && hashed) hash_file();
  if (mapped || !part) {
    refill(0);
  } else {  // a part of nothing: an empty file
    data = kNoBytes;
    at_eof = true;
  }

  const auto* ub = reinterpret_cast<const unsigned char*>(data);
  if (len >= 2 && ((ub[0] == 0xFF && ub[1] == 0xFE) || (ub[0] == 0xFE && ub[1] == 0xFF)))
    throw DataError(source + ":1: UTF-16 input is not supported; convert it to UTF-8");
  if (len >= 3 && ub[0] == 0xEF && ub[1] == 0xBB && ub[2] == 0xBF) start = 3;
  // The first record must end inside the buffer: split_record would otherwise take
  // what is there as the whole header, and the rest of it as data. A small buffer
  // (chunks smaller than the header) grows up to the reader's usual one.
  const auto first_record_ends = [this] {
    std::size_t i = start;
    while (i < len && (data[i] == '\n' || data[i] == '\r')) ++i;
    bool quoted = false;
    for (; i < len; ++i) {
      if (data[i] == '"') quoted = !quoted;
      // A CR at the end of the buffer may be the first half of a CRLF: the LF
      // would then be taken for a blank line, one line too many in every message.
      else if (!quoted && (data[i] == '\n' || data[i] == '\r')) return data[i] == '\n' || i + 1 < len || at_eof;
    }
    return false;
  };
  // len == capacity: the window or the buffer doubles.
  while (!at_eof && capacity < kChunkBytes && !first_record_ends()) refill(0);
  // Skip leading blank lines.
  while (start < len && (data[start] == '\n' || data[start] == '\r')) ++start;
  if (start == len) throw DataError(source + ": empty file: expected a header and data rows");

  const char* first = data + start;
  const char* end = data + len;
  const char delim = options.delimiter ? options.delimiter : detect_delimiter(first, end);
  proto.delimiter = delim;
  for (std::size_t i = 0; i < start; ++i)
    line_no += data[i] == '\n' || (data[i] == '\r' && !(i + 1 < len && data[i + 1] == '\n'));

  if (!at_eof && !first_record_ends())
    throw DataError(source + ":" + std::to_string(line_no) + ": the first record is longer than " +
                    std::to_string(kChunkBytes >> 20) + " MiB, the reader's limit for a header");
  const char* after_first = split_record(first, end, delim, header, source, line_no);
  // Physical lines the first record spans (a quoted newline in a name starts another).
  std::uint64_t first_lines = 0;
  for (const char* q = first; q < after_first; ++q)
    first_lines += *q == '\n' || (*q == '\r' && !(q + 1 < after_first && q[1] == '\n'));
  if (first_lines == 0) first_lines = 1;  // ended at the end of the input
  if (options.header) {
    const char* nul = static_cast<const char*>(std::memchr(first, '\0', after_first - first));
    if (nul)
      throw DataError(source + ":" + std::to_string(line_no) + ": NUL byte in the header at byte offset " +
                      std::to_string(nul - data));
    long bad = first_invalid_utf8(reinterpret_cast<const unsigned char*>(first),
                                  reinterpret_cast<const unsigned char*>(after_first));
    if (bad >= 0)
      throw DataError(source + ":" + std::to_string(line_no) +
                      ": invalid UTF-8 in the header at byte offset " +
                      std::to_string(bad + (first - data)));
    bool all_numeric = true;
    for (auto& h : header) {
      double v;
      all_numeric = all_numeric && parse_cell(h, v) == CellStatus::number;
    }
    // Numbers as names are legal (and some files have them), but usually mean the
    // header row was left out and the first sample became the names: say so.
    if (all_numeric)
      warn(source + ":" + std::to_string(line_no) +
           ": every column name is a number; if the file has no header row, pass `no_header`");
    std::unordered_map<std::string, std::size_t> seen;
    for (std::size_t c = 0; c < header.size(); ++c) {
      if (header[c].empty()) header[c] = "column" + std::to_string(c + 1);
      auto [it, fresh] = seen.emplace(header[c], c);
      if (!fresh)
        throw DataError(source + ":" + std::to_string(line_no) + ": duplicate column name " + show(header[c]) +
                        " (columns " + std::to_string(it->second + 1) + " and " +
                        std::to_string(c + 1) + ")");
    }
    line_no += first_lines;
    start = static_cast<std::size_t>(after_first - data);
  } else {
    // Columns are known by position only: their names are their 1-based numbers.
    const std::size_t n = header.size();
    header.clear();
    for (std::size_t c = 0; c < n; ++c) header.push_back(std::to_string(c + 1));
  }

  plan = make_plan(header, columns, source, options.header);
  proto.column_names = header;
  // Feature names in slot order (the model's order when features were requested).
  proto.feature_names.assign(plan.n_features, std::string());
  for (std::size_t c = 0; c < header.size(); ++c)
    if (plan.role[c] == Role::feature) proto.feature_names[plan.slot[c]] = header[c];
  proto.feature_columns = plan.feature_columns;
  if (columns.features_as_text) {  // a string or graph kernel's column: the features are text
    const std::size_t first = columns.text.size();  // after the requested text columns
    proto.feature_names.assign(plan.n_text - first, std::string());
    for (std::size_t c = 0; c < header.size(); ++c)
      if (plan.role[c] == Role::text && plan.slot[c] >= first) proto.feature_names[plan.slot[c] - first] = header[c];
    proto.feature_columns = proto.feature_names;
  }
  n_threads = options.threads ? options.threads : thread_count();
  if (part && options.header) {
    // The header is read: what follows it is the part's range, not the file's rows.
    for (std::size_t i = start; i < len; ++i)
      if (data[i] != '\n' && data[i] != '\r')
        throw Error("internal: the reader's header ends before the split's", kExitSoftware);
    window = MappedWindow();
    origin = part->range.begin;
    file_end = std::max(origin, std::min(size, part->range.end));
    bytes_before = 0;
    start = len = 0;
    data = kNoBytes;
    line_no = part->range.first_line;
    at_eof = file_end == origin;
    if (!at_eof) refill(0);
  }
}

bool CsvChunks::Impl::parse_next(std::vector<Block>& blocks) {
  if (done) return false;
  const std::string& source = src.name();
  const char* b = data + start;
  const char* e = data + len;
  const bool has_quote =
      in_place ? buffer_quoted : std::memchr(b, '"', static_cast<std::size_t>(e - b)) != nullptr;
  const char* stop = b;
  // Parallel ranges take complete lines only: up to the last '\n' unless the input
  // has ended. A chunk without any '\n' (lone CR line ends) goes the sequential
  // way, which also knows '\r': cut there, it would never be consumed, and the
  // buffer would double until the 1 GiB record limit.
  const char* limit = e;
  if (!has_quote && !at_eof) {
    const void* nl = ::memrchr(b, '\n', static_cast<std::size_t>(e - b));
    limit = nl ? static_cast<const char*>(nl) + 1 : b;
  }
  if (!has_quote && n_threads > 1 && static_cast<std::size_t>(limit - b) >= kParallelMinBytes) {
    // Several ranges per thread, handed out in order as threads come free: on a
    // shared machine one core is often slowed by another process, and with one
    // range per thread the other would sit idle waiting for it. Where the cuts
    // fall changes no value, line number or message, only who parses what.
    const unsigned n_parts = n_threads * kRangesPerThread;
    std::vector<const char*> cuts{b};
    for (unsigned t = 1; t < n_parts; ++t) {
      const char* guess = b + (limit - b) * t / n_parts;
      const char* nl = static_cast<const char*>(std::memchr(guess, '\n', static_cast<std::size_t>(limit - guess)));
      cuts.push_back(nl ? nl + 1 : limit);
    }
    cuts.push_back(limit);
    const std::size_t n_ranges = cuts.size() - 1;
    std::vector<Block> part(n_ranges);
    std::vector<std::optional<RangeError>> errors(n_ranges);
    auto work = [&](std::size_t r) {
      RangeParser parser(plan, proto.delimiter, options.missing, options.header, verbatim);
      // Only the first range knows its line before the others are counted; the rest
      // get a placeholder (their errors are relocated below).
      parser.set_position(r == 0 ? line_no : std::uint64_t{1} << 62,
                          bytes_before + static_cast<std::uint64_t>(cuts[r] - data));
      try {
        // The range that reaches the end of the input is the one to end there: when
        // the input has no '\n' past a cut (lone CR line ends), the ranges after it
        // are empty, and the last record was taken for an unfinished one and lost.
        parser.parse(cuts[r], cuts[r + 1], at_eof && cuts[r + 1] == e, part[r]);
      } catch (const RangeError& err) {
        errors[r] = err;
      }
    };
    parallel_for(n_ranges, work, n_threads);
    for (std::size_t r = 0; r < n_ranges; ++r) {
      if (errors[r]) raise_at(source, line_no + errors[r]->line, *errors[r]);
      for (auto& l : part[r].lines) l += line_no;
      line_no += part[r].line_count;
      blocks.push_back(std::move(part[r]));
    }
    stop = limit;
  } else {
    RangeParser parser(plan, proto.delimiter, options.missing, options.header, verbatim);
    parser.set_position(line_no, bytes_before + static_cast<std::uint64_t>(b - data));
    Block block;
    try {
      stop = parser.parse(b, e, at_eof, block);
    } catch (const RangeError& err) {
      raise_at(source, line_no + err.line, err);
    }
    for (auto& l : block.lines) l += line_no;
    line_no += block.line_count;
    blocks.push_back(std::move(block));
  }
  if (at_eof) {
    if (stop != e) throw Error("internal: CSV parser stopped early", kExitSoftware);
    if (hashing.valid()) hashing.get();
    digest = hashed ? hash.hex_digest() : std::string();
    done = true;
    return true;
  }
  // Keep the unfinished record, read more behind it.
  if (static_cast<std::size_t>(e - stop) >= kMaxRecordBytes)
    throw DataError(source + ":" + std::to_string(line_no) + ": a record longer than 1 GiB");
  refill(static_cast<std::size_t>(stop - data));
  start = 0;
  return true;
}

void CsvChunks::Impl::refill(std::size_t keep) {
  const std::size_t carry = len - keep;
  bytes_before += keep;
  std::size_t got = 0;
  if (mapped) {
    if (carry == capacity) capacity *= 2;  // a record longer than the window
    // The window moves to the first byte kept; the kept bytes are mapped again, not copied.
    const std::uint64_t at = origin + bytes_before;
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(capacity, file_end - at));
    window = MappedWindow(src, at, n);
    data = window.data();
    got = n - carry;
    at_eof = at + n == file_end;
  } else if (in_place) {
    got = refill_in_place(data + keep, carry);
  } else {
    if (carry == capacity) {  // a record longer than the buffer
      std::unique_ptr<char[]> bigger(new char[capacity * 2]);
      std::memcpy(bigger.get(), data + keep, carry);
      buf = std::move(bigger);
      capacity *= 2;
    } else if (carry) {
      std::memmove(buf.get(), data + keep, carry);
    }
    data = buf.get();
    got = take(buf.get() + carry, capacity - carry);
    // At the end when no byte follows, as a mapped window knows from the file's
    // size: a buffer that the input's last bytes fill exactly is the last one too.
    at_eof = got < capacity - carry || (taken == piece_bytes && !next_piece());
  }
  total_bytes += got;
  len = carry + got;
}

bool CsvChunks::Impl::next_piece() {
  if (!ahead.valid()) return false;  // the input has ended
  piece_bytes = ahead.get();
  taken = 0;
  current = 1 - current;
  if (piece_bytes == piece_size) read_ahead(1 - current);  // into the piece drained
  return piece_bytes > 0;
}

std::size_t CsvChunks::Impl::take(char* to, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    if (taken == piece_bytes && !next_piece()) break;
    const std::size_t k = std::min(n - got, piece_bytes - taken);
    std::memcpy(to + got, pieces[current].get() + taken, k);
    taken += k;
    got += k;
  }
  return got;
}

void CsvChunks::Impl::read_ahead(int k) {
  ahead = std::async(std::launch::async, [this, k] {
    char* const to = pieces[k].get() + headroom;
    const std::size_t n = src.read(to, piece_size);
    hash.update(to, n);
    if (in_place) piece_quoted[k] = std::memchr(to, '"', n) != nullptr;
    return n;
  });
}

std::size_t CsvChunks::Impl::refill_in_place(const char* kept, std::size_t carry) {
  const std::size_t got = ahead.valid() ? ahead.get() : 0;  // none in flight: the input had ended
  const int next = 1 - current;
  const char* const piece = pieces[next].get() + headroom;
  buffer_quoted = piece_quoted[next] || (carry && std::memchr(kept, '"', carry));
  // `kept` lies in the spill buffer exactly when the buffer parsed was it.
  const std::size_t kept_at = spill ? static_cast<std::size_t>(kept - spill.get()) : 0;
  if (carry <= headroom) {
    char* const to = pieces[next].get() + headroom - carry;
    if (carry) std::memcpy(to, kept, carry);
    data = to;
    spill.reset();  // after the copy: the carry may have been in it
  } else if (spill && kept_at + carry + got <= spill_size) {
    // A record longer than the headroom, already in the buffer of its own: the piece
    // goes on behind it.
    char* const at = spill.get() + kept_at;
    std::memcpy(at + carry, piece, got);
    data = at;
  } else {
    // A record longer than the headroom: the carry and the piece joined in a buffer of
    // their own, twice their size, so that a long record is copied a bounded number
    // of times, not once per piece.
    spill_size = 2 * (carry + got);
    std::unique_ptr<char[]> joined(new char[spill_size]);
    std::memcpy(joined.get(), kept, carry);
    std::memcpy(joined.get() + carry, piece, got);
    spill = std::move(joined);
    data = spill.get();
  }
  current = next;
  // A short piece was the input's last; after a full one, the next is read into the
  // piece just parsed (its carry has been copied out).
  at_eof = got < piece_size;
  if (!at_eof) read_ahead(1 - current);
  return got;
}

void CsvChunks::Impl::assemble(std::vector<Block>& blocks, Table& table) const {
  std::size_t n = 0;
  for (const auto& bl : blocks) {
    n += bl.rows;
    table.dropped_rows += bl.dropped;
  }
  const std::size_t p = plan.n_features;
  if (placed) {
    close_gaps(table.X, n);
  } else {
    table.X.set_size(n, p);
  }
  table.lines.clear();
  table.lines.reserve(n);
  table.text.assign(plan.n_text, TextColumn());
  for (std::size_t t = 0; t < plan.n_text; ++t) {
    table.text[t].name = header[0];
    for (std::size_t c = 0; c < header.size(); ++c)
      if ((plan.role[c] == Role::text || plan.role[c] == Role::category) && plan.slot[c] == t) {
        table.text[t].name = header[c];
        table.text[t].position = c + 1;
      }
    table.text[t].values.reserve(n);
  }
  // The values: each block copied and freed by whichever thread takes it, so the
  // copy and the first touch of the matrix's pages are shared by the cores, and the
  // peak stays near one copy of the data (a block is given back once copied).
  std::vector<std::size_t> first_row(blocks.size() + 1, 0);
  for (std::size_t b = 0; b < blocks.size(); ++b) first_row[b + 1] = first_row[b] + blocks[b].rows;
  parallel_for(
      blocks.size(),
      [&](std::size_t b) {
        Block& bl = blocks[b];
        if (bl.rows && bl.values)
          for (std::size_t j = 0; j < p; ++j)
            std::memcpy(table.X.colptr(j) + first_row[b], bl.values.get() + j * bl.capacity,
                        bl.rows * sizeof(double));
        bl.values.reset();
      },
      n_threads);
  for (auto& bl : blocks) {
    for (std::size_t t = 0; t < plan.n_text; ++t)
      for (auto& s : bl.text[t]) table.text[t].values.push_back(std::move(s));
    table.lines.insert(table.lines.end(), bl.lines.begin(), bl.lines.end());
    bl.text.clear();
  }
}

bool CsvChunks::Impl::place_rows(arma::mat& X) {
  std::uint64_t origin = 0, size = 0;
  if (plan.n_features == 0 || !src.regular(origin, size)) return false;
  const std::uint64_t from = origin + bytes_before + start;  // the first data line
  // Small inputs are in the first buffer already: blocks cost nothing there.
  if (size < from || size - from < kParallelMinBytes) return false;
  // The count, in one part per thread (whole grains of kGrain bytes each), each read
  // through windows of the mapped file; the line feeds of each grain kept apart.
  const unsigned parts = std::max(1u, n_threads);
  const std::uint64_t grains = (size - from + kGrain - 1) / kGrain;
  std::vector<std::uint64_t> feeds(grains);
  std::vector<detail::LineCounts> counts(parts);
  parallel_for(
      parts,
      [&](std::size_t t) {
        const std::uint64_t b = from + grains * t / parts * kGrain;
        const std::uint64_t e = std::min(size, from + grains * (t + 1) / parts * kGrain);
        for (std::uint64_t at = b; at < e;) {
          const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunkBytes, e - at));
          const MappedWindow piece(src, at, n);
          for (std::size_t i = 0; i < n; i += kGrain) {
            const std::uint64_t before = counts[t].lf;
            detail::count_lines(piece.data() + i, std::min<std::size_t>(kGrain, n - i), counts[t]);
            feeds[(at + i - from) / kGrain] = counts[t].lf - before;
          }
          at += n;
        }
      },
      n_threads);
  detail::LineCounts all;
  for (unsigned t = 0; t < parts; ++t) {
    const auto& c = counts[t];
    if (!c.started) continue;
    all.crlf += c.crlf + (all.last_cr && c.first_lf);
    all.lf += c.lf;
    all.cr += c.cr;
    all.quotes += c.quotes;
    all.last_cr = c.last_cr;
    all.last_lf = c.last_lf;
  }
  if (all.quotes || all.cr != all.crlf) return false;
  const std::uint64_t lines = all.lf + !all.last_lf;  // a last line without its line feed is one
  // Rows are also bounded by the bytes (as a block's are, see RangeParser::parse): a
  // file of blank lines under a wide header must not reserve a row per line.
  const std::size_t ncols = plan.role.size();
  const std::uint64_t by_bytes = options.missing == MissingPolicy::keep ? (size - from) / ncols + 2
                                                                        : (size - from) / (ncols - 1 + plan.n_features) + 1;
  if (lines > by_bytes) return false;
  placed_rows = lines;
  data_from = from;
  feeds_before.assign(grains + 1, 0);
  for (std::uint64_t g = 0; g < grains; ++g) feeds_before[g + 1] = feeds_before[g] + feeds[g];
  X.set_size(placed_rows, plan.n_features);
  placed = X.memptr();
  populate_for_writing(placed, placed_rows * plan.n_features * sizeof(double), n_threads);
  return true;
}

void CsvChunks::Impl::parse_placed(std::vector<Block>& blocks) {
  const std::string& source = src.name();
  window = MappedWindow();  // the header's window: the ranges map their own bytes
  const std::uint64_t data_end = file_end;
  const std::uint64_t n_ranges = (data_end - data_from + kPlacedRangeBytes - 1) / kPlacedRangeBytes;
  // Line feeds in [data_from, at) for `at` a multiple of kGrain after data_from, or the end.
  const auto feeds_to = [&](std::uint64_t at) {
    return at >= data_end ? feeds_before.back() : feeds_before[(at - data_from) / kGrain];
  };
  std::vector<Block> part(n_ranges);
  std::vector<std::uint64_t> first_line(n_ranges, 0);  // of each range, counted from data_from's
  // Range r owns the lines that start in [rb, re): from the first line start at or
  // after rb (after the first line feed at or after rb - 1) up to the end of the
  // line that holds byte re - 1, which may lie past re: a slack is mapped beyond
  // re, doubled while that line goes on. An error stops the loop (parallel_for
  // starts no task after a failure and rethrows the lowest range's): a bad cell
  // early in a large file is reported without parsing the rest. Its line is made
  // relative to data_from's on the way out.
  const auto work = [&](std::size_t r) {
    const std::uint64_t rb = data_from + r * kPlacedRangeBytes;
    const std::uint64_t re = std::min(data_end, rb + kPlacedRangeBytes);
    const std::uint64_t map_from = r == 0 ? rb : rb - 1;
    for (std::uint64_t slack = std::uint64_t{64} << 10;; slack *= 2) {
      const std::uint64_t map_to = std::min(data_end, re + slack);
      const MappedWindow bytes(src, map_from, static_cast<std::size_t>(map_to - map_from));
      const auto at = [&](std::uint64_t offset) { return bytes.data() + (offset - map_from); };
      const char* b = at(rb);
      std::uint64_t row = feeds_to(rb);  // the row (data line) that starts at b, if one does
      if (r > 0 && *at(rb - 1) != '\n') {
        const void* nl = std::memchr(b, '\n', static_cast<std::size_t>(re - rb));
        if (!nl) return;  // no line starts here: the range before owns them
        b = static_cast<const char*>(nl) + 1;
        ++row;
      }
      first_line[r] = row;
      const char* e = at(re);
      bool at_eof = re == data_end;
      if (!at_eof && e[-1] != '\n') {
        const void* nl = std::memchr(e, '\n', static_cast<std::size_t>(map_to - re));
        if (!nl && map_to < data_end) {  // the last line goes on past the slack
          if (slack < kMaxRecordBytes) continue;
          throw RangeError{feeds_to(re), 0, "a record longer than 1 GiB"};
        }
        e = nl ? static_cast<const char*>(nl) + 1 : at(map_to);
        at_eof = !nl;
      }
      target_rows(part[r], b, e, row, feeds_to(re) + detail::count_line_feeds(at(re), e) - row);
      RangeParser parser(plan, proto.delimiter, options.missing, options.header, verbatim);
      parser.set_position(line_no + row, map_from + static_cast<std::uint64_t>(b - bytes.data()) - origin);
      try {
        if (parser.parse(b, e, at_eof, part[r]) != e) raise_changed();
      } catch (RangeError& err) {
        err.line += row;
        throw;
      }
      return;
    }
  };
  try {
    parallel_for(n_ranges, work, n_threads);
  } catch (const RangeError& err) {
    raise_at(source, line_no + err.line, err);
  } catch (const InputChanged&) {
    raise_changed();
  }
  for (std::size_t r = 0; r < n_ranges; ++r) {
    if (!part[r].target) continue;  // no line starts in the range
    for (auto& l : part[r].lines) l += line_no + first_line[r];
    segments.emplace_back(part[r].first_row, part[r].rows);
    blocks.push_back(std::move(part[r]));
  }
  total_bytes = data_end - origin;
  if (hashing.valid()) hashing.get();
  digest = hashed ? hash.hex_digest() : std::string();
  done = true;
}

void CsvChunks::Impl::close_gaps(arma::mat& X, std::size_t n) const {
  const std::size_t p = plan.n_features;
  bool packed = n == placed_rows;
  std::uint64_t next = 0;
  for (const auto& [first, rows] : segments) {
    if (rows && first != next) packed = false;
    next = first + rows;
  }
  if (packed) return;  // every line was a row: X is n x p already
  // Row by row the destination is never past the source (a row moves up by the gaps
  // above it, a column by the gaps of the columns before it), so a forward pass of
  // memmoves is safe.
  double* const m = X.memptr();
  std::size_t to = 0;
  for (std::size_t j = 0; j < p; ++j)
    for (const auto& [first, rows] : segments) {
      if (rows) std::memmove(m + to, m + j * placed_rows + first, rows * sizeof(double));
      to += rows;
    }
  if (n * p <= arma::arma_config::mat_prealloc) {  // Armadillo would move it to its own small buffer
    X = arma::mat(m, n, p);                          // a copy of the n x p values
    return;
  }
  // Armadillo keeps an allocation large enough for the smaller size (Mat::init_warm):
  // the values stay where the memmoves put them. Checked, never assumed silently.
  X.set_size(n, p);
  if (X.memptr() != m) throw Error("internal: the matrix moved while its gaps were closed", kExitSoftware);
}

namespace {
[[noreturn]] void raise_no_rows(const std::string& source, std::uint64_t dropped, bool header) {
  throw DataError(source + ": no data rows" +
                  (dropped ? " left after dropping " + std::to_string(dropped) + " with missing values"
                           : std::string(header ? " (only a header)" : "")));
}
}  // namespace

namespace detail {
namespace {
thread_local bool rows_placed = false;
}
bool last_read_placed_rows() { return rows_placed; }
}  // namespace detail

Table read_csv(const std::string& path, const CsvOptions& options, const ColumnSelection& columns) {
  CsvChunks::Impl reader(path, options, columns, kChunkBytes, nullptr, /*whole_input=*/true);
  Table table = reader.proto;
  detail::rows_placed = false;
  detail::rows_placed = reader.place_rows(table.X);
  std::vector<Block> blocks;
  if (detail::rows_placed)
    reader.parse_placed(blocks);
  else
    while (reader.parse_next(blocks)) {
    }
  std::size_t n = 0, dropped = 0;
  for (const auto& bl : blocks) {
    n += bl.rows;
    dropped += bl.dropped;
  }
  if (n == 0) raise_no_rows(table.source, dropped, options.header);
  reader.assemble(blocks, table);
  table.bytes = reader.total_bytes;
  table.data_hash = reader.digest;
  return table;
}

CsvChunks::CsvChunks(const std::string& path, const CsvOptions& options, const ColumnSelection& columns,
                     std::size_t chunk_bytes, const FilePart* part)
    : impl_(std::make_unique<Impl>(path, options, columns, chunk_bytes, part)) {}

CsvChunks::~CsvChunks() = default;

bool CsvChunks::next(Table& chunk) {
  Impl& r = *impl_;
  std::vector<Block> blocks;
  // A buffer-full may hold no complete kept row (a long record being carried, or
  // only dropped rows): read on until one does or the input ends.
  for (;;) {
    blocks.clear();
    if (!r.parse_next(blocks)) break;
    std::size_t n = 0;
    for (const auto& bl : blocks) {
      n += bl.rows;
      r.dropped += bl.dropped;
    }
    if (n == 0) continue;
    chunk = r.proto;
    r.assemble(blocks, chunk);
    // Since the previous chunk: the rows dropped from buffer-fulls skipped above too.
    chunk.dropped_rows = r.dropped - r.dropped_returned;
    r.dropped_returned = r.dropped;
    chunk.bytes = r.total_bytes;
    r.rows += n;
    return true;
  }
  if (r.rows == 0) raise_no_rows(r.proto.source, r.dropped, r.options.header);
  return false;
}

const std::string& CsvChunks::source() const { return impl_->proto.source; }
const Names& CsvChunks::feature_names() const { return impl_->proto.feature_names; }
std::uint64_t CsvChunks::rows() const { return impl_->rows; }
std::uint64_t CsvChunks::dropped_rows() const { return impl_->dropped; }
std::uint64_t CsvChunks::bytes() const { return impl_->total_bytes; }

std::string CsvChunks::data_hash() const {
  if (!impl_->done) throw Error("internal: CsvChunks::data_hash before the end of the input", kExitSoftware);
  return impl_->digest;
}

Table CsvChunks::summary() const {
  Table t = impl_->proto;
  t.bytes = impl_->total_bytes;
  t.dropped_rows = impl_->dropped;
  if (impl_->done) t.data_hash = data_hash();
  return t;
}

}  // namespace mlt::io
