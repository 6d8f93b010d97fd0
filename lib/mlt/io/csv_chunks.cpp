// The chunked reader itself lives in csv.cpp, beside the parser it reuses; this file
// has what only streaming needs, and the split of a file between MPI ranks.
#include "mlt/io/csv_chunks.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <string_view>

#include "mlt/core/error.hpp"
#include "mlt/core/log.hpp"

namespace mlt::io {

double bytes_per_cell(const std::string& path, std::size_t sample) {
  std::ifstream in(path, std::ios::binary);
  std::string buf(sample, '\0');
  in.read(buf.data(), static_cast<std::streamsize>(sample));
  const auto n = static_cast<std::size_t>(in.gcount());
  std::size_t separators = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = buf[i];
    separators += c == ',' || c == ';' || c == '\t' || c == '\n';
  }
  if (separators == 0) return 2.0;
  return std::max(2.0, static_cast<double>(n) / static_cast<double>(separators));
}

std::uint64_t parse_memory_size(const std::string& text, const std::string& what) {
  const auto bad = [&] {
    return UsageError(what + ": expected a size such as 512M, 2G or 1.5GiB (K, M, G, T: powers of 1024), not \"" +
                      text + "\"");
  };
  double value = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  auto [ptr, ec] = std::from_chars(b, e, value, std::chars_format::fixed);
  if (ec != std::errc() || ptr == b || !(value > 0) || !std::isfinite(value)) throw bad();
  std::string unit(ptr, e);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double scale = 1;
  if (!unit.empty() && (unit[0] == 'K' || unit[0] == 'M' || unit[0] == 'G' || unit[0] == 'T')) {
    scale = unit[0] == 'K' ? 0x1p10 : unit[0] == 'M' ? 0x1p20 : unit[0] == 'G' ? 0x1p30 : 0x1p40;
    unit.erase(0, 1);
    if (unit == "IB" || unit == "B") unit.clear();
  } else if (unit == "B") {
    unit.clear();
  }
  if (!unit.empty()) throw bad();
  const double bytes = value * scale;
  if (bytes < 1 || bytes >= 0x1p63) throw bad();
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace mlt::io

// ---- A file's parts, for MPI ranks ----

namespace mlt::io {
namespace {

// A file read at given offsets through a window (the split reads a few bytes around
// each cut and one nominal range straight through).
class FileBytes {
 public:
  explicit FileBytes(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw InputError(path + ": cannot open: " + std::strerror(errno));
  }
  ~FileBytes() { ::close(fd_); }
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  int fd() const { return fd_; }

  // Up to n bytes at `offset` into buf (fewer only at the end of the file).
  std::size_t read(char* buf, std::size_t n, std::uint64_t offset) const {
    std::size_t got = 0;
    while (got < n) {
      const ssize_t r = ::pread(fd_, buf + got, n - got, static_cast<off_t>(offset + got));
      if (r == 0) break;
      if (r < 0) {
        if (errno == EINTR) continue;
        throw IoError(path_ + ": read failed: " + std::strerror(errno));
      }
      got += static_cast<std::size_t>(r);
    }
    return got;
  }
  // The byte at `pos` (< the file's size), through a 64 KiB window.
  char at(std::uint64_t pos) {
    if (pos < window_begin_ || pos >= window_begin_ + window_.size()) {
      window_.resize(std::size_t{1} << 16);
      window_begin_ = pos;
      window_.resize(read(window_.data(), window_.size(), pos));
      if (window_.empty()) throw IoError(path_ + ": read failed: the file is shorter than it was");
    }
    return window_[pos - window_begin_];
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::string window_;
  std::uint64_t window_begin_ = 0;
};

bool is_line_end_at(FileBytes& f, std::uint64_t pos, std::uint64_t size) {
  const char c = f.at(pos);
  return c == '\n' || (c == '\r' && (pos + 1 == size || f.at(pos + 1) != '\n'));
}

}  // namespace

FileSplit::FileSplit(const std::string& path, bool header, std::size_t parts)
    : path_(path), parts_(std::max<std::size_t>(parts, 1)) {
  if (path == "-")
    throw UsageError("standard input cannot be split between ranks; give a file on a file system every rank reads");
  FileBytes f(path);
  struct stat st;
  if (::fstat(f.fd(), &st) != 0 || !S_ISREG(st.st_mode))
    throw UsageError(path + ": not a regular file, so it cannot be split between ranks; give a file");
  size_ = static_cast<std::uint64_t>(st.st_size);
  if (!header) return;
  // The header record as the reader takes it: after a UTF-8 byte-order mark and blank
  // lines, up to its first line end outside quotes (that line end included).
  std::uint64_t i = 0;
  if (size_ >= 3 && f.at(0) == '\xEF' && f.at(1) == '\xBB' && f.at(2) == '\xBF') i = 3;
  while (i < size_ && (f.at(i) == '\n' || f.at(i) == '\r')) header_lines_ += is_line_end_at(f, i++, size_);
  bool quoted = false;
  for (; i < size_; ++i) {
    const char c = f.at(i);
    if (c == '"') quoted = !quoted;
    else if (!quoted && (c == '\n' || c == '\r')) break;
    else if (c == '\n' || c == '\r') header_lines_ += is_line_end_at(f, i, size_);  // a quoted one counts
  }
  if (i < size_) {
    ++header_lines_;
    i += f.at(i) == '\r' && i + 1 < size_ && f.at(i + 1) == '\n' ? 2 : 1;
  }
  header_end_ = i;
}

// Rounded up, so that part 0 holds the first data byte whenever there is one: a part
// is empty only when the file has fewer data bytes than parts, or a record longer
// than a part.
std::uint64_t FileSplit::nominal_cut(std::size_t part) const {
  // ceil(span · part / parts) without the product's overflow.
  const std::uint64_t span = size_ - header_end_, q = span / parts_, r = span % parts_;
  return header_end_ + q * part + (r * part + parts_ - 1) / parts_;
}

PartScan FileSplit::scan(std::size_t part) const {
  PartScan s;
  const std::uint64_t begin = nominal_cut(part), end = nominal_cut(part + 1);
  FileBytes f(path_);
  std::string buf(std::size_t{1} << 20, '\0');
  for (std::uint64_t at = begin; at < end;) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), end - at));
    const std::size_t got = f.read(buf.data(), want, at);
    if (got < want) throw IoError(path_ + ": read failed: the file is shorter than it was");
    const char* b = buf.data();
    s.quotes += static_cast<std::uint64_t>(std::count(b, b + got, '"'));
    s.line_ends += static_cast<std::uint64_t>(std::count(b, b + got, '\n'));
    // A lone CR ends a line; the CR of a CRLF does not (its LF does), and the LF may
    // be the first byte after this piece.
    for (const char* p = b; (p = static_cast<const char*>(std::memchr(p, '\r', b + got - p))); ++p) {
      const std::uint64_t pos = at + static_cast<std::uint64_t>(p - b);
      const bool lf_next = p + 1 < b + got ? p[1] == '\n' : pos + 1 < size_ && f.at(pos + 1) == '\n';
      s.line_ends += !lf_next;
    }
    at += got;
  }
  return s;
}

ByteRange FileSplit::range(std::size_t part, const std::vector<PartScan>& scans) const {
  if (scans.size() != parts_) throw Error("internal: FileSplit::range with scans of another split", kExitSoftware);
  FileBytes f(path_);
  // The first record start at or after part i's nominal cut, and the line ends before it.
  const auto cut = [&](std::size_t i, std::uint64_t& lines) -> std::uint64_t {
    lines = header_lines_;
    std::uint64_t quotes = 0;
    for (std::size_t j = 0; j < i; ++j) {
      lines += scans[j].line_ends;
      quotes += scans[j].quotes;
    }
    if (i == 0) return header_end_;
    bool quoted = quotes % 2 != 0;
    std::uint64_t q = nominal_cut(i);
    for (; q < size_; ++q) {
      if (!quoted && q > 0) {
        const char prev = f.at(q - 1);
        if (prev == '\n' || (prev == '\r' && f.at(q) != '\n')) break;
      }
      if (q == 0) break;  // the start of a file without a header
      const char c = f.at(q);
      if (c == '"') quoted = !quoted;
      lines += (c == '\n' || c == '\r') && is_line_end_at(f, q, size_);
    }
    return q;
  };
  ByteRange r;
  std::uint64_t lines = 0, unused = 0;
  r.begin = cut(part, lines);
  r.first_line = lines + 1;
  r.end = part + 1 == parts_ ? size_ : cut(part + 1, unused);
  r.end = std::max(r.end, r.begin);
  return r;
}

namespace {
// The reader's "no data rows" (csv.cpp), which a part without rows must not raise.
constexpr std::string_view kNoDataRows = ": no data rows";
}  // namespace

CsvRangeChunks::CsvRangeChunks(const std::string& path, const FileSplit& split, const ByteRange& range,
                               const CsvOptions& options, const ColumnSelection& columns, std::size_t chunk_bytes)
    : path_(path), file_size_(split.size()) {
  CsvOptions opts = options;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> pieces;
  std::uint64_t prefix_lines = 0;
  if (options.header && split.header_end() > 0) {
    pieces.emplace_back(0, split.header_end());
    prefix_lines = split.header_lines();
  }
  if (range.end > range.begin) pieces.emplace_back(range.begin, range.end);
  if (!options.header && range.begin > 0) {
    if (range.end == range.begin) {  // nothing to read, and no header to check
      done_ = true;
      return;
    }
    // Without a header the delimiter is detected from the first record: the file's,
    // not this part's, which might read otherwise.
    if (!opts.delimiter) opts.delimiter = CsvChunks(path, options, columns, 1).summary().delimiter;
  }
  line_offset_ = static_cast<std::int64_t>(range.first_line) - 1 - static_cast<std::int64_t>(prefix_lines);
  prefix_lines_ = prefix_lines;

  auto input = std::make_shared<FileBytes>(path);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw IoError(std::string("cannot create a pipe: ") + std::strerror(errno));
  write_fd_ = fds[1];
  ::fcntl(write_fd_, F_SETPIPE_SZ, 1 << 20);  // as for standard input (csv.cpp): fewer turns; refused, no matter
  fed_name_ = "/proc/self/fd/" + std::to_string(fds[0]);
  feeder_ = std::thread([this, input, pieces] {
    // A reader that stops early (an error) closes the pipe: the write fails with
    // EPIPE, and the SIGPIPE it raises stays pending on this thread, which ends.
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
    std::string buf;  // only if the kernel cannot splice this file
    bool open = true;
    for (const auto& [begin, end] : pieces) {
      for (std::uint64_t at = begin; open && at < end;) {
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(std::uint64_t{1} << 20, end - at));
        // The file's pages go into the pipe by reference (splice), not copied twice
        // through a buffer of ours (pread, then write); the reader's read(2) is then
        // the only copy.
        if (buf.empty()) {
          auto offset = static_cast<loff_t>(at);
          const ssize_t n = ::splice(input->fd(), &offset, write_fd_, nullptr, want, SPLICE_F_MOVE | SPLICE_F_MORE);
          if (n > 0) {
            at += static_cast<std::uint64_t>(n);
            continue;
          }
          if (n < 0 && errno == EINTR) continue;
          if (n < 0 && errno == EPIPE) {  // the reader has gone
            open = false;
            break;
          }
          if (n == 0) {
            feed_error_ = path_ + ": read failed: the file is shorter than it was";
            open = false;
            break;
          }
          if (errno != EINVAL && errno != ENOSYS) {
            feed_error_ = path_ + ": read failed: " + std::strerror(errno);
            open = false;
            break;
          }
          buf.assign(std::size_t{1} << 20, '\0');  // no splice from this file system: copy
        }
        std::size_t got = 0;
        try {
          got = input->read(buf.data(), want, at);
        } catch (const Error& e) {
          feed_error_ = e.what();
        }
        if (got == 0) {
          if (feed_error_.empty()) feed_error_ = path_ + ": read failed: the file is shorter than it was";
          open = false;
          break;
        }
        for (std::size_t off = 0; off < got;) {
          const ssize_t w = ::write(write_fd_, buf.data() + off, got - off);
          if (w < 0 && errno == EINTR) continue;
          if (w < 0) {
            open = false;  // the reader has gone
            break;
          }
          off += static_cast<std::size_t>(w);
        }
        at += got;
      }
      if (!open) break;
    }
    ::close(write_fd_);
  });
  // The reader opens the pipe by name; warnings about the header name the file.
  const LogFunction outer = log_function();
  if (outer)
    set_log_function([outer, this](const std::string& m) {
      const std::size_t at = m.find(fed_name_);
      outer(at == std::string::npos ? m : m.substr(0, at) + path_ + m.substr(at + fed_name_.size()));
    });
  std::exception_ptr failure;
  try {
    reader_ = std::make_unique<CsvChunks>(fed_name_, opts, columns, chunk_bytes);
  } catch (...) {
    failure = std::current_exception();
  }
  set_log_function(outer);
  ::close(fds[0]);  // the reader has its own descriptor of the pipe, or failed
  if (failure) {
    finish_feed();
    rethrow_located(failure);
  }
}

CsvRangeChunks::~CsvRangeChunks() {
  reader_.reset();  // closes the pipe: a feeder still writing stops
  if (feeder_.joinable()) feeder_.join();
}

void CsvRangeChunks::finish_feed() {
  reader_.reset();
  if (feeder_.joinable()) feeder_.join();
}

void CsvRangeChunks::rethrow_located(const std::exception_ptr& e) const {
  try {
    std::rethrow_exception(e);
  } catch (const Error& err) {
    const std::string m = err.what();
    if (fed_name_.empty() || !m.starts_with(fed_name_)) throw;
    std::string rest = m.substr(fed_name_.size());
    std::size_t digits = 1;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
    if (rest.starts_with(':') && digits > 1) {
      std::uint64_t line = std::stoull(rest.substr(1, digits - 1));
      if (line > prefix_lines_) line = static_cast<std::uint64_t>(static_cast<std::int64_t>(line) + line_offset_);
      rest = ":" + std::to_string(line) + rest.substr(digits);
    }
    throw Error(path_ + rest, err.exit_status());
  }
}

bool CsvRangeChunks::next(Table& chunk) {
  if (done_) return false;
  bool more = false;
  try {
    more = reader_->next(chunk);
  } catch (const DataError& e) {
    if (!(reader_->rows() == 0 && std::string_view(e.what()).starts_with(fed_name_ + std::string(kNoDataRows))))
      rethrow_located(std::current_exception());
  } catch (...) {
    rethrow_located(std::current_exception());
  }
  if (!more) {
    done_ = true;
    dropped_ = reader_->dropped_rows();
    rows_ = reader_->rows();
    summary_ = reader_->summary();
    finish_feed();
    if (!feed_error_.empty()) throw IoError(feed_error_);
    return false;
  }
  chunk.source = path_;
  for (auto& l : chunk.lines) l = static_cast<std::uint64_t>(static_cast<std::int64_t>(l) + line_offset_);
  return true;
}

std::uint64_t CsvRangeChunks::rows() const { return reader_ ? reader_->rows() : rows_; }
std::uint64_t CsvRangeChunks::dropped_rows() const { return reader_ ? reader_->dropped_rows() : dropped_; }

Table CsvRangeChunks::summary() const {
  Table t = reader_ ? reader_->summary() : summary_;
  t.source = path_;
  t.bytes = file_size_;
  t.sha256.clear();
  t.dropped_rows = static_cast<std::size_t>(dropped_rows());
  return t;
}

}  // namespace mlt::io
