// A file split between ranks (io::FileSplit, io::CsvRangeChunks), checked in one
// process: for every number of parts, the parts' ranges tile the data exactly, each
// starts at a record start with its physical line (against a plain sequential walk of
// the whole file), and the parts' rows, read and joined in part order, are read_csv's
// rows of the whole file bit for bit (values, lines, text cells, dropped rows); a bad
// cell in a late part names the file and its line in the whole file. The reader is the
// same code either way, so bit-for-bit equality is by construction, not by luck.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/io/csv_chunks.hpp"
#include "../test_util.hpp"

namespace io_csv_split_test {

using namespace mlt;
using mlt::test::TempFile;

namespace {

// The record starts of the data and their physical lines, by one sequential walk:
// a record starts after a line end (LF, CRLF, lone CR) outside quotes.
struct Starts {
  std::vector<std::uint64_t> offsets, lines;
};
Starts record_starts(const std::string& s, std::uint64_t data_begin) {
  Starts st;
  std::uint64_t line = 1;
  bool quoted = false;
  for (std::uint64_t i = 0; i < s.size(); ++i) {
    if (i >= data_begin && !quoted && (i == data_begin || s[i - 1] == '\n' || (s[i - 1] == '\r' && s[i] != '\n'))) {
      st.offsets.push_back(i);
      st.lines.push_back(line);
    }
    if (s[i] == '"') quoted = !quoted;
    if (s[i] == '\n' || (s[i] == '\r' && (i + 1 == s.size() || s[i + 1] != '\n'))) ++line;
  }
  return st;
}

std::vector<io::ByteRange> ranges_of(const io::FileSplit& split) {
  std::vector<io::PartScan> scans;
  for (std::size_t i = 0; i < split.parts(); ++i) scans.push_back(split.scan(i));
  std::vector<io::ByteRange> ranges;
  for (std::size_t i = 0; i < split.parts(); ++i) ranges.push_back(split.range(i, scans));
  return ranges;
}

// The split's ranges against the sequential walk.
void check_ranges(const std::string& content, const std::string& path, bool header, std::size_t parts) {
  io::FileSplit split(path, header, parts);
  const auto ranges = ranges_of(split);
  const Starts st = record_starts(content, split.header_end());
  REQUIRE(ranges.size() == parts);
  CHECK(ranges.front().begin == split.header_end());
  CHECK(ranges.back().end == content.size());
  for (std::size_t i = 0; i < parts; ++i) {
    const io::ByteRange& r = ranges[i];
    CHECK(r.begin <= r.end);
    if (i + 1 < parts) CHECK(r.end == ranges[i + 1].begin);
    if (r.begin == r.end) continue;
    bool found = false;
    for (std::size_t k = 0; k < st.offsets.size(); ++k)
      if (st.offsets[k] == r.begin) {
        found = true;
        CHECK(r.first_line == st.lines[k]);
      }
    CHECK_MESSAGE(found, "part " << i << " of " << parts << " starts at byte " << r.begin << ", not a record start");
  }
}

// The parts' rows joined in part order.
io::Table read_parts(const std::string& path, const io::CsvOptions& o, const io::ColumnSelection& sel,
                     std::size_t parts, std::size_t chunk_bytes) {
  io::FileSplit split(path, o.header, parts);
  io::Table all;
  std::size_t dropped = 0;
  for (const io::ByteRange& r : ranges_of(split)) {
    io::CsvRangeChunks reader(path, split, r, o, sel, chunk_bytes);
    io::Table c;
    while (reader.next(c)) {
      CHECK(c.source == path);
      all.X = arma::join_cols(all.X, c.X);
      all.lines.insert(all.lines.end(), c.lines.begin(), c.lines.end());
      if (all.text.empty()) all.text = c.text;
      else
        for (std::size_t t = 0; t < c.text.size(); ++t)
          all.text[t].values.insert(all.text[t].values.end(), c.text[t].values.begin(), c.text[t].values.end());
    }
    CHECK(reader.finished());
    dropped += reader.dropped_rows();
    const io::Table s = reader.summary();
    CHECK(s.source == path);
    CHECK(s.bytes == split.size());
  }
  all.dropped_rows = dropped;
  return all;
}

void check_same_rows(const io::Table& got, const io::Table& want) {
  REQUIRE(got.X.n_rows == want.X.n_rows);
  REQUIRE(got.X.n_cols == want.X.n_cols);
  CHECK(arma::all(arma::vectorise(got.X == want.X)));
  CHECK(got.lines == want.lines);
  CHECK(got.dropped_rows == want.dropped_rows);
  REQUIRE(got.text.size() == want.text.size());
  for (std::size_t t = 0; t < want.text.size(); ++t) CHECK(got.text[t].values == want.text[t].values);
}

// A file of `n` rows a,b,y with every kind of line end and some quoted cells that
// span lines (when `quoted`).
std::string mixed_file(std::size_t n, bool quoted) {
  std::string s = "\xEF\xBB\xBF\n\"a\",b,y,note\r\n";
  for (std::size_t i = 0; i < n; ++i) {
    s += std::to_string(i) + "," + std::to_string(i % 7) + ".5," + std::to_string(2 * i) + ",";
    if (quoted && i % 3 == 1) s += "\"one\nline, \"\"two\"\"\r\nthree\"";
    else (s += 'x') += std::to_string(i);
    s += i % 4 == 0 ? "\r\n" : i % 4 == 1 ? "\r" : "\n";
    if (i % 11 == 5) s += "\n";  // a blank line
  }
  return s;
}

}  // namespace

TEST_CASE("FileSplit: the parts tile the data at record starts, with their lines in the whole file") {
  for (const bool quoted : {false, true}) {
    const std::string content = mixed_file(60, quoted);
    TempFile f(content);
    for (std::size_t parts = 1; parts <= 9; ++parts) {
      CAPTURE(quoted);
      CAPTURE(parts);
      check_ranges(content, f.path(), true, parts);
    }
  }
  // Without a header the data start at byte 0; more parts than bytes leaves some empty.
  const std::string tiny = "1,2\n3,4\n";
  TempFile t(tiny);
  for (std::size_t parts = 1; parts <= 12; ++parts) check_ranges(tiny, t.path(), false, parts);
  // A header only, and an empty file: every part empty.
  TempFile h("a,b\n");
  for (const auto& r : ranges_of(io::FileSplit(h.path(), true, 3))) CHECK(r.begin == r.end);
}

TEST_CASE("CsvRangeChunks: the parts' rows, joined, are read_csv's rows bit for bit") {
  for (const bool quoted : {false, true}) {
    TempFile f(mixed_file(300, quoted));
    io::CsvOptions o;
    io::ColumnSelection sel;
    sel.text = {"y"};
    sel.ignore = {"note"};
    const io::Table want = io::read_csv(f.path(), o, sel);
    for (const std::size_t parts : {1, 2, 3, 5, 8})
      for (const std::size_t chunk : {std::size_t{64}, io::kDefaultChunkBytes}) {
        CAPTURE(quoted);
        CAPTURE(parts);
        CAPTURE(chunk);
        check_same_rows(read_parts(f.path(), o, sel, parts, chunk), want);
      }
  }
  // No header, a detected delimiter, rows dropped under --na drop (some parts keep none).
  std::string s;
  for (int i = 0; i < 200; ++i) {
    if (i % 50 >= 45) s += std::to_string(i);  // else the first cell is missing
    s += ';';
    s += std::to_string(i);
    s += '\n';
  }
  TempFile g(s);
  io::CsvOptions o;
  o.header = false;
  o.missing = io::MissingPolicy::drop;
  const io::Table want = io::read_csv(g.path(), o, {});
  for (const std::size_t parts : {2, 4, 7, 40}) check_same_rows(read_parts(g.path(), o, {}, parts, 64), want);
}

TEST_CASE("CsvRangeChunks: a bad cell in a late part names the file and its line in the whole file") {
  std::string s = "a,b,y\n";
  for (int i = 0; i < 1000; ++i) s += std::to_string(i) + "," + std::to_string(i % 7) + "," + std::to_string(2 * i) + "\n";
  s += "4,oops,5\n6,7,8\n";
  TempFile f(s);
  io::FileSplit split(f.path(), true, 3);
  const auto ranges = ranges_of(split);
  io::ColumnSelection sel;
  sel.text = {"y"};
  io::CsvRangeChunks last(f.path(), split, ranges[2], {}, sel, 100);
  io::Table c;
  const std::string message = mlt::test::error_message(
      [&] {
        while (last.next(c)) {
        }
      },
      kExitDataError);
  CHECK(message.starts_with(f.path() + ":1002:2: "));
  // The earlier parts read on without it.
  io::CsvRangeChunks first(f.path(), split, ranges[0], {}, sel, 100);
  while (first.next(c)) {
  }
  CHECK(first.rows() > 0);
}

TEST_CASE("FileSplit refuses what cannot be split") {
  CHECK(mlt::test::error_message([] { io::FileSplit("-", true, 2); }, kExitUsage).find("standard input") !=
        std::string::npos);
  CHECK(mlt::test::error_message([] { io::FileSplit("/nonexistent/x.csv", true, 2); }, kExitNoInput)
            .find("cannot open") != std::string::npos);
}

}  // namespace io_csv_split_test
