// read_csv's rows placed straight into the matrix (a regular file over 1 MiB without
// quotes: line i after the header is row i, gaps closed at the end) against values
// known from how the file was written, and against the block path the reader takes
// for the same rows when placing is not possible (quotes, lone CRs): every dialect
// of csv_test's "dialects" case, at a size where the parallel paths run.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "../test_util.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/io/csv_chunks.hpp"
#include "mlt/io/number_format.hpp"
#include "mlt/io/data_hash.hpp"

namespace io_csv_placed_test {

using mlt::io::ColumnSelection;
using mlt::io::CsvOptions;
using mlt::test::TempFile;

namespace {

std::uint64_t bits(double v) {
  std::uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

// A file of `rows` data rows (a,b,c: i, i / 4, -i / 3 written exactly) in a dialect,
// with the matrix and the physical lines the reader must return.
struct Written {
  std::string csv;
  arma::mat X;
  std::vector<std::uint64_t> lines;
  std::vector<std::string> labels;  // column "label", when asked for
};

struct Dialect {
  const char* name;
  const char* line_end = "\n";
  int blank_every = 0;   // a blank line after every k-th row
  int drop_every = 0;    // an NA cell in every k-th row (dropped under `na` drop)
  bool quotes = false;   // every 1000th row's first cell quoted
  bool final_newline = true;
  int trailing_blank = 0;
  bool label = false;    // a text column last
};

// The n x 3 matrix of the values kept, three to a row.
arma::mat rows_of(const std::vector<double>& kept) {
  return arma::mat(kept.data(), 3, kept.size() / 3).t();
}

Written write(const Dialect& d, int rows) {
  Written w;
  w.csv = d.label ? "a,b,c,label" : "a,b,c";
  w.csv += d.line_end;
  std::uint64_t line = 2;
  std::vector<double> kept;
  for (int i = 0; i < rows; ++i) {
    const bool drop = d.drop_every && i % d.drop_every == 0;
    const bool quoted = d.quotes && i % 1000 == 0;
    // Appended piece by piece: GCC 12 warns about "literal" + std::string at -O3 (a
    // false positive, bug 105651).
    if (quoted) w.csv += '"';
    w.csv += std::to_string(i);
    if (quoted) w.csv += '"';
    w.csv += ",";
    if (drop) w.csv += "NA";
    else mlt::io::append_number(w.csv, i / 4.0);
    w.csv += ",";
    mlt::io::append_number(w.csv, -i / 3.0);
    std::string label = "x";
    label += std::to_string(i % 7);
    if (d.label) w.csv += "," + label;
    if (i + 1 < rows || d.final_newline) w.csv += d.line_end;
    if (!drop) {
      kept.insert(kept.end(), {static_cast<double>(i), i / 4.0, -i / 3.0});
      w.lines.push_back(line);
      if (d.label) w.labels.push_back(label);
    }
    ++line;
    if (d.blank_every && i % d.blank_every == d.blank_every - 1) {
      w.csv += d.line_end;
      ++line;
    }
  }
  for (int k = 0; k < d.trailing_blank; ++k) w.csv += d.line_end;
  w.X = rows_of(kept);
  return w;
}

void check_table(const mlt::io::Table& t, const Written& w) {
  REQUIRE(t.X.n_rows == w.X.n_rows);
  REQUIRE(t.X.n_cols == w.X.n_cols);
  std::size_t mismatches = 0;
  for (std::size_t k = 0; k < w.X.n_elem; ++k) mismatches += bits(t.X(k)) != bits(w.X(k));
  CHECK(mismatches == 0);
  CHECK(t.lines == w.lines);
  if (!w.labels.empty()) CHECK(t.text_column("label").values == w.labels);
}

// Runs `read` with standard input a pipe that another thread fills with `bytes`
// (in pieces of 4 KiB, as a producer would), then puts standard input back.
void from_pipe(const std::string& bytes, const std::function<void()>& read) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const int saved = ::dup(0);
  REQUIRE(::dup2(fds[0], 0) == 0);
  ::close(fds[0]);
  std::thread producer([&, out = fds[1]] {
    for (std::size_t at = 0; at < bytes.size();) {
      const ssize_t w = ::write(out, bytes.data() + at, std::min<std::size_t>(4096, bytes.size() - at));
      if (w <= 0) break;  // the reader stopped early (a failed check)
      at += static_cast<std::size_t>(w);
    }
    ::close(out);
  });
  const auto restore = [&] {
    ::close(0);  // the producer then stops, if the reader did not read to the end
    producer.join();
    ::dup2(saved, 0);
    ::close(saved);
  };
  try {
    read();
  } catch (...) {
    restore();
    throw;
  }
  restore();
}

}  // namespace

TEST_CASE("rows placed in the matrix: every dialect, on one thread and two") {
  const Dialect dialects[] = {
      {"plain"},
      {"CRLF", "\r\n"},
      {"lone CR (not placed: blocks)", "\r"},
      {"quotes (not placed: blocks)", "\n", 0, 0, true},
      {"blank lines", "\n", 97},
      {"blank CRLF lines", "\r\n", 13},
      {"dropped rows", "\n", 0, 11},
      {"no final newline", "\n", 0, 0, false, false},
      {"trailing blank lines", "\n", 0, 0, false, true, 5},
      {"a text column", "\n", 0, 0, false, true, 0, true},
      {"everything", "\r\n", 31, 17, false, false, 0, true},
  };
  for (const Dialect& d : dialects) {
    const std::string name = d.name;
    CAPTURE(name);
    const Written w = write(d, 120000);  // ~2.5 MB: placed, and split among threads
    REQUIRE(w.csv.size() > (std::size_t{2} << 20));
    TempFile f(w.csv);
    for (unsigned threads : {1u, 2u}) {
      CAPTURE(threads);
      CsvOptions options;
      options.threads = threads;
      if (d.drop_every) options.missing = mlt::io::MissingPolicy::drop;
      ColumnSelection columns;
      if (d.label) columns.text = {"label"};
      const auto t = mlt::io::read_csv(f.path(), options, columns);
      CHECK(mlt::io::detail::last_read_placed_rows() == (std::strstr(d.name, "not placed") == nullptr));
      check_table(t, w);
      CHECK(t.dropped_rows == (d.drop_every ? (120000 + d.drop_every - 1) / d.drop_every : 0));
    }
  }
}

TEST_CASE("rows placed in the matrix: a few rows under many blank lines") {
  // One column (a blank line is then as long as the shortest record, so the lines are
  // placed), 1.5 MiB of blank lines and 3 rows: the gaps are nearly all of the counted
  // lines, and the 3 values end in Armadillo's small-matrix buffer.
  std::string csv = "a\n1\n" + std::string(std::size_t{3} << 19, '\n') + "2\n\n-3";
  TempFile f(csv);
  for (unsigned threads : {1u, 2u}) {
    CsvOptions options;
    options.threads = threads;
    const auto t = mlt::io::read_csv(f.path(), options, ColumnSelection{});
    CHECK(mlt::io::detail::last_read_placed_rows());
    const arma::mat want = arma::vec{1, 2, -3};
    // Exact: small integers parse to exactly these doubles, and placing moves bits.
    CHECK(arma::approx_equal(t.X, want, "absdiff", 0.0));
    const std::uint64_t second = 3 + (std::uint64_t{3} << 19);
    CHECK(t.lines == std::vector<std::uint64_t>{2, second, second + 2});
  }
}

TEST_CASE("rows placed in the matrix: standard input redirected from a file, not at its start") {
  // `(read header; mlt ... -) < file` hands mlt a descriptor already past the first
  // line: the count must start where reading does, not at the file's start.
  const Written w = write(Dialect{"plain"}, 100000);
  const std::string junk = "this line was read by someone else\n";
  TempFile f(junk + w.csv);
  const int saved = ::dup(0);
  const int fd = ::open(f.path().c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::lseek(fd, static_cast<off_t>(junk.size()), SEEK_SET) == static_cast<off_t>(junk.size()));
  REQUIRE(::dup2(fd, 0) == 0);
  ::close(fd);
  mlt::io::Table t;
  try {
    t = mlt::io::read_csv("-", CsvOptions{}, ColumnSelection{});
  } catch (...) {
    ::dup2(saved, 0);
    ::close(saved);
    throw;
  }
  ::dup2(saved, 0);
  ::close(saved);
  CHECK(mlt::io::detail::last_read_placed_rows());
  check_table(t, w);
  CHECK(t.bytes == w.csv.size());
  CHECK(t.data_hash == mlt::io::data_hash_hex(w.csv));  // from where reading starts
}

TEST_CASE("rows placed in the matrix: an error deep in a placed file keeps its line and column") {
  Written w = write(Dialect{"blank lines", "\n", 97}, 100000);
  const std::string needle = "\n90000,";
  w.csv.replace(w.csv.find(needle) + 1, 5, "9000x");
  TempFile f(w.csv);
  for (unsigned threads : {1u, 2u}) {
    CsvOptions options;
    options.threads = threads;
    const std::string m = mlt::test::error_message(
        [&] { mlt::io::read_csv(f.path(), options, ColumnSelection{}); }, mlt::kExitDataError);
    CHECK(mlt::io::detail::last_read_placed_rows());
    // Row 90000 is on line 2 + 90000 + 90000 / 97 (the blank lines before it).
    CHECK(m == f.path() + ":" + std::to_string(2 + 90000 + 90000 / 97) +
                   ":1: expected a number in column \"a\", found \"9000x\"");
  }
}

TEST_CASE("rows placed in the matrix: across the reader's 16 MiB buffers") {
  // ~20 MB: records cut by a buffer's end are carried to the next buffer, and the
  // row of each buffer's first line continues the count of the one before, blank
  // lines and dropped rows included. The hash reads the same windows, each byte
  // once though windows overlap by the record carried.
  const Written w = write(Dialect{"everything", "\r\n", 31, 17, false, false, 0, true}, 900000);
  REQUIRE(w.csv.size() > (std::size_t{17} << 20));
  TempFile f(w.csv);
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    CsvOptions options;
    options.threads = threads;
    options.missing = mlt::io::MissingPolicy::drop;
    ColumnSelection columns;
    columns.text = {"label"};
    const auto t = mlt::io::read_csv(f.path(), options, columns);
    CHECK(mlt::io::detail::last_read_placed_rows());
    check_table(t, w);
    CHECK(t.data_hash == mlt::io::data_hash_hex(w.csv));
  }
}

TEST_CASE("rows placed in the matrix: a line longer than the parse's 4 MiB ranges") {
  // The parse of a placed file maps 4 MiB ranges, each owning the lines that start in
  // it. Here one line of ~5.4 MB (six text cells of 900,000 bytes) starts before the
  // first range's end and goes past the whole second range: the first maps more and
  // more of what follows, the second has no line of its own. Then 300,000 short rows.
  const int rows = 300000, long_row = 150000;
  std::string csv = "a,t1,t2,t3,t4,t5,t6\n";
  std::vector<std::string> t1;
  for (int i = 0; i < rows; ++i) {
    const std::string cell = i == long_row ? std::string(900000, 'y') : "x" + std::to_string(i % 10);
    csv += std::to_string(i);
    for (int k = 0; k < 6; ++k) csv += "," + cell;
    csv += "\n";
    t1.push_back(cell);
  }
  const std::size_t long_at = csv.find(std::string(900000, 'y'));
  REQUIRE(long_at < (std::size_t{4} << 20));
  REQUIRE(long_at + 6 * 900001 > (std::size_t{8} << 20));
  ColumnSelection columns;
  columns.text = {"t1", "t2", "t3", "t4", "t5", "t6"};
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    CsvOptions options;
    options.threads = threads;
    {
      TempFile f(csv);
      const auto t = mlt::io::read_csv(f.path(), options, columns);
      CHECK(mlt::io::detail::last_read_placed_rows());
      REQUIRE(t.X.n_rows == static_cast<std::size_t>(rows));
      REQUIRE(t.X.n_cols == 1);
      std::size_t wrong = 0;
      for (int i = 0; i < rows; ++i) wrong += t.X(static_cast<std::size_t>(i), 0) != i || t.lines[i] != i + 2u;
      CHECK(wrong == 0);
      CHECK(t.text_column("t1").values == t1);
      CHECK(t.text_column("t6").values == t1);
      CHECK(t.data_hash == mlt::io::data_hash_hex(csv));
    }
    // An error past the long line is reported at its own line.
    std::string bad = csv;
    const std::string needle = "\n250000,";
    bad.replace(bad.find(needle) + 1, 6, "25000z");
    TempFile f(bad);
    const std::string m = mlt::test::error_message([&] { mlt::io::read_csv(f.path(), options, columns); },
                                                   mlt::kExitDataError);
    CHECK(m == f.path() + ":250002:1: expected a number in column \"a\", found \"25000z\"");
  }
}

TEST_CASE("standard input from a pipe: the same rows, the next buffer read ahead") {
  // A pipe cannot be mapped or counted first: it is read into buffers, the next one
  // read (and hashed) while this one is parsed, and records cut by a buffer's end
  // are carried into the next. ~20 MB crosses the 16 MiB buffers.
  for (const Dialect& d : {Dialect{"plain"}, Dialect{"everything", "\r\n", 31, 17, false, false, 0, true}}) {
    const std::string name = d.name;
    CAPTURE(name);
    const Written w = write(d, 900000);
    REQUIRE(w.csv.size() > (std::size_t{17} << 20));
    for (unsigned threads : {1u, 2u}) {
      CAPTURE(threads);
      CsvOptions options;
      options.threads = threads;
      if (d.drop_every) options.missing = mlt::io::MissingPolicy::drop;
      ColumnSelection columns;
      if (d.label) columns.text = {"label"};
      mlt::io::Table t;
      from_pipe(w.csv, [&] { t = mlt::io::read_csv("-", options, columns); });
      CHECK_FALSE(mlt::io::detail::last_read_placed_rows());
      check_table(t, w);
      CHECK(t.bytes == w.csv.size());
      CHECK(t.data_hash == mlt::io::data_hash_hex(w.csv));
    }
  }
}

TEST_CASE("a record longer than the buffer: the mapped window and the pipe's buffer grow") {
  // Chunks of 4 KiB and one label of 50,000 bytes: the window over the file doubles
  // until the record fits, and so does the pipe's buffer (its pieces read ahead stay
  // 4 KiB); the rows, the labels and the hash come out as written either way, and
  // the chunks are the same rows.
  Written w = write(Dialect{"a text column", "\n", 0, 0, false, true, 0, true}, 3000);
  const std::string needle = ",x3\n";
  const std::size_t at = w.csv.find(needle, w.csv.size() / 2);
  REQUIRE(at != std::string::npos);
  const std::size_t row = static_cast<std::size_t>(std::count(w.csv.begin(), w.csv.begin() + at, '\n')) - 1;
  const std::string long_label = "x3" + std::string(50000, 'y');
  w.csv.replace(at + 1, 2, long_label);
  w.labels[row] = long_label;
  TempFile f(w.csv);
  ColumnSelection columns;
  columns.text = {"label"};
  const auto read_all = [&](const std::string& path) {
    mlt::io::CsvChunks chunks(path, CsvOptions{}, columns, 4096);
    mlt::io::Table all, chunk;
    std::vector<double> values;
    std::vector<std::size_t> chunk_rows;
    while (chunks.next(chunk)) {
      chunk_rows.push_back(chunk.X.n_rows);
      for (std::size_t i = 0; i < chunk.X.n_rows; ++i)
        for (std::size_t j = 0; j < 3; ++j) values.push_back(chunk.X(i, j));
      all.lines.insert(all.lines.end(), chunk.lines.begin(), chunk.lines.end());
      if (all.text.empty()) all.text = chunk.text;
      else for (auto& v : chunk.text[0].values) all.text[0].values.push_back(v);
    }
    CHECK(chunk_rows.size() > 10);  // the buffers were many, not one grown to the file
    all.X = arma::mat(values.data(), 3, values.size() / 3).t();
    check_table(all, w);
    CHECK(chunks.data_hash() == mlt::io::data_hash_hex(w.csv));
    CHECK(chunks.bytes() == w.csv.size());
    return chunk_rows;
  };
  const std::vector<std::size_t> mapped = read_all(f.path());
  std::vector<std::size_t> piped;
  from_pipe(w.csv, [&] { piped = read_all("-"); });
  // The same chunks: a streamed fit then adds the same rows in the same order.
  CHECK(piped == mapped);
}

namespace {
// Rows (i, i / 4, -i / 3, label, notes...) one after the other, with what the reader
// must return. The notes (kNotes columns, ignored by the read) make records longer
// than a field may be (1 MiB); a note is quoted when it is not empty.
constexpr std::size_t kNotes = 24;
struct RowWriter {
  Written w;
  std::vector<double> kept;
  std::uint64_t line = 2;
  int i = 0;
  RowWriter() {
    w.csv = "a,b,c,label";
    for (std::size_t k = 1; k <= kNotes; ++k) w.csv += ",note" + std::to_string(k);
    w.csv += "\n";
  }
  static ColumnSelection columns() {
    ColumnSelection c;
    c.text = {"label"};
    for (std::size_t k = 1; k <= kNotes; ++k) c.ignore.push_back("note" + std::to_string(k));
    return c;
  }
  std::string row(const std::string& label, const std::vector<std::string>& notes) const {
    std::string r = std::to_string(i) + ",";
    mlt::io::append_number(r, i / 4.0);
    r += ",";
    mlt::io::append_number(r, -i / 3.0);
    r += "," + label;
    for (std::size_t k = 0; k < kNotes; ++k) {
      r += ",";
      if (k < notes.size() && !notes[k].empty()) r += "\"" + notes[k] + "\"";
    }
    return r + "\n";
  }
  void add(const std::string& label, const std::vector<std::string>& notes = {}) {
    w.csv += row(label, notes);
    kept.insert(kept.end(), {static_cast<double>(i), i / 4.0, -i / 3.0});
    w.lines.push_back(line);
    w.labels.push_back(label);
    line += 1 + static_cast<std::uint64_t>(std::count(label.begin(), label.end(), '\n'));
    for (const auto& n : notes) line += static_cast<std::uint64_t>(std::count(n.begin(), n.end(), '\n'));
    ++i;
  }
  void add_until(std::size_t bytes) {
    while (w.csv.size() < bytes) add("x" + std::to_string(i % 7));
  }
  Written done() {
    w.X = rows_of(kept);
    return w;
  }
};

std::string short_lines(std::size_t bytes) {
  std::string s;
  while (s.size() < bytes) s += "yyyyyyy\n";
  s.resize(bytes);
  s.back() = 'z';
  return s;
}
}  // namespace

TEST_CASE("standard input from a pipe: each piece parsed where it was read, records carried across") {
  // read_csv reads a pipe in pieces of 16 MiB and parses each where it was read: the
  // unfinished record at a piece's end is copied into the room in front of the next
  // piece (1 MiB), or, longer than that, joined with it in a buffer of its own. The
  // thread that read a piece has looked for quotes in it; a quote in the carried
  // record alone must still send the buffer to the sequential parse, since a cut of
  // the parallel one could fall inside a quoted field.
  constexpr std::size_t kPiece = std::size_t{16} << 20;
  std::vector<std::pair<std::string, Written>> inputs;
  {
    // A record of 3.5 MB in quoted notes of short lines (longer than the room, and
    // than the parallel ranges of the next buffer), its last closing quote the
    // piece's last byte: the next piece has no quote of its own.
    RowWriter r;
    r.add_until(kPiece - 3500000);
    std::vector<std::string> notes(4, short_lines(1000000));
    notes[3] = short_lines(400000);
    const std::size_t last_quote = r.w.csv.size() + r.row("x", notes).find_last_of('"');
    notes[3] = short_lines(400000 + (kPiece - 1) - last_quote);
    r.add("x", notes);
    REQUIRE(r.w.csv[kPiece - 1] == '"');
    REQUIRE(r.w.csv.size() > kPiece);
    r.add_until(std::size_t{20} << 20);
    REQUIRE(r.w.csv.find('"', kPiece) == std::string::npos);
    inputs.emplace_back("a quoted record carried into a piece without quotes", r.done());
  }
  {
    // A record of 21 MB from 14 MB on: carried past two pieces' ends, the second time
    // inside the buffer of its own, which has room for the next piece behind it.
    RowWriter r;
    r.add_until(std::size_t{14} << 20);
    r.add("x", std::vector<std::string>(21, std::string(1000000, 'y')));
    r.add_until(std::size_t{40} << 20);
    inputs.emplace_back("a record longer than a piece", r.done());
  }
  {
    // Exactly two pieces: the input's end is known from the third, empty, read.
    RowWriter r;
    r.add_until(2 * kPiece - 200);
    REQUIRE(r.w.csv.size() < 2 * kPiece);
    r.w.csv.append(2 * kPiece - r.w.csv.size(), '\n');
    inputs.emplace_back("two whole pieces", r.done());
  }
  for (const auto& [name, w] : inputs) {
    CAPTURE(name);
    for (unsigned threads : {1u, 2u}) {
      CAPTURE(threads);
      CsvOptions options;
      options.threads = threads;
      mlt::io::Table t;
      from_pipe(w.csv, [&] { t = mlt::io::read_csv("-", options, RowWriter::columns()); });
      check_table(t, w);
      CHECK(t.bytes == w.csv.size());
      CHECK(t.data_hash == mlt::io::data_hash_hex(w.csv));
    }
  }
}

}  // namespace io_csv_placed_test
