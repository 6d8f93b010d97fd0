// The chunked reader (io::CsvChunks) against read_csv on the same bytes: the chunks,
// joined, are read_csv's table (values bit for bit, lines, text columns, dropped rows,
// size and checksum), whatever the chunk size; and its errors name the same
// file:line:column as read_csv's, lines counted over the whole file.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/io/csv.hpp"
#include "mlt/io/csv_chunks.hpp"
#include "test_util.hpp"

namespace stream_csv_test {

using namespace mlt;
using mlt::test::TempFile;

namespace {

struct Joined {
  io::Table table;  // the chunks' rows, joined
  std::size_t chunks = 0;
  io::Table summary;
};

Joined read_in_chunks(const std::string& path, const io::CsvOptions& o, const io::ColumnSelection& sel,
                      std::size_t chunk_bytes) {
  io::CsvChunks reader(path, o, sel, chunk_bytes);
  Joined j;
  io::Table c;
  while (reader.next(c)) {
    ++j.chunks;
    REQUIRE(c.n_rows() >= 1);
    CHECK(c.feature_names == reader.feature_names());
    j.table.X = arma::join_cols(j.table.X, c.X);
    j.table.lines.insert(j.table.lines.end(), c.lines.begin(), c.lines.end());
    j.table.dropped_rows += c.dropped_rows;
    if (j.table.text.empty()) j.table.text = c.text;
    else
      for (std::size_t t = 0; t < c.text.size(); ++t)
        j.table.text[t].values.insert(j.table.text[t].values.end(), c.text[t].values.begin(), c.text[t].values.end());
  }
  CHECK(reader.rows() == j.table.X.n_rows);
  j.summary = reader.summary();
  return j;
}

// Bit-for-bit equality of two tables' rows and provenance.
void check_same(const Joined& got, const io::Table& want) {
  REQUIRE(got.table.X.n_rows == want.X.n_rows);
  REQUIRE(got.table.X.n_cols == want.X.n_cols);
  CHECK(arma::all(arma::vectorise(got.table.X == want.X)));
  CHECK(got.table.lines == want.lines);
  CHECK(got.table.dropped_rows <= want.dropped_rows);  // the last chunk's trailing ones in summary only
  CHECK(got.summary.dropped_rows == want.dropped_rows);
  REQUIRE(got.table.text.size() == want.text.size());
  for (std::size_t t = 0; t < want.text.size(); ++t) {
    CHECK(got.table.text[t].name == want.text[t].name);
    CHECK(got.table.text[t].values == want.text[t].values);
  }
  CHECK(got.summary.feature_names == want.feature_names);
  CHECK(got.summary.bytes == want.bytes);
  CHECK(got.summary.data_hash == want.data_hash);
  CHECK(got.summary.delimiter == want.delimiter);
  CHECK(got.summary.had_header == want.had_header);
}

// Quoted text cells with a delimiter, "" escapes and line ends inside (so a chunk
// boundary falls inside a quoted field for most chunk sizes), CRLF and lone CR line
// ends, blank lines, a missing value and no final newline.
const std::string kAwkward =
    "id,x,note,y\r\n"
    "1,0.5,\"plain\",1e3\r\n"
    "2,-1.25,\"two\nlines, and a comma\",7\r\n"
    "\r\n"
    "3,3.75,\"\"\"quoted\"\"\nand\nthree more\nlines\",-2.5\n"
    "4,NA,\"dropped under --na drop\",1\r"
    "5,12345.678,x,0.001\n"
    "\n\n"
    "6,1e-300,\"last\n\",42";

}  // namespace

TEST_CASE("chunks joined equal read_csv on a real file, for chunk sizes from 1 byte to the default") {
  const std::string path = test::fixture_path("data/iris.csv");
  io::ColumnSelection sel;
  sel.text = {"species"};
  const io::Table want = io::read_csv(path, {}, sel);
  for (std::size_t bytes : {std::size_t{1}, std::size_t{7}, std::size_t{100}, std::size_t{1000},
                            io::kDefaultChunkBytes}) {
    CAPTURE(bytes);
    const Joined got = read_in_chunks(path, {}, sel, bytes);
    check_same(got, want);
    // 150 records of about 30 bytes: a buffer smaller than a record doubles until one
    // fits (to 32 or 64 bytes), so one or two rows a chunk.
    if (bytes <= 100) CHECK(got.chunks >= 35);
    if (bytes == io::kDefaultChunkBytes) CHECK(got.chunks == 1);
  }
}

TEST_CASE("quoted fields spanning lines and chunk boundaries, every line-end style, --na drop") {
  const TempFile f(kAwkward);
  io::CsvOptions o;
  o.missing = io::MissingPolicy::drop;
  io::ColumnSelection sel;
  sel.text = {"note"};
  sel.ignore = {"id"};
  const io::Table want = io::read_csv(f.path(), o, sel);
  REQUIRE(want.n_rows() == 5);
  CHECK(want.dropped_rows == 1);
  CHECK(want.text[0].values[2] == "\"quoted\"\nand\nthree more\nlines");
  CHECK(want.lines == std::vector<std::uint64_t>{2, 3, 6, 11, 14});
  // Every chunk size up to the whole file: each boundary position is tried.
  for (std::size_t bytes = 1; bytes <= kAwkward.size() + 1; ++bytes) {
    CAPTURE(bytes);
    check_same(read_in_chunks(f.path(), o, sel, bytes), want);
  }
}

// A string kernel's feature column is text (ColumnSelection::features_as_text): every
// chunk names it as read_csv does, so predict can stream a model of strings.
TEST_CASE("a text feature column: each chunk's feature names are read_csv's") {
  const std::string path = test::fixture_path("data/dna_motifs.csv");
  io::ColumnSelection sel;
  sel.text = {"class"};
  sel.ignore = {"id"};
  sel.features_as_text = true;
  const io::Table want = io::read_csv(path, {}, sel);
  REQUIRE(want.feature_names == Names{"sequence"});
  CHECK(want.feature_columns == want.feature_names);
  const Joined got = read_in_chunks(path, {}, sel, 4096);
  CHECK(got.chunks > 1);
  check_same(got, want);
}

TEST_CASE("an error on a late line names the line of the whole file, not of the chunk") {
  std::string csv = "a,b,c\n";
  for (int i = 0; i < 500; ++i) csv += std::to_string(i) + ",\"q\nq\",1\n";  // two physical lines a row
  csv += "1,x,2\n3,x,oops\n";
  // The header is line 1, the 500 rows lines 2 to 1001, "oops" line 1003, column 3.
  const TempFile f(csv);
  io::ColumnSelection sel;
  sel.text = {"b"};
  const std::string expected = test::error_message([&] { io::read_csv(f.path(), {}, sel); }, kExitDataError);
  CHECK(expected.find(":1003:3:") != std::string::npos);
  for (std::size_t bytes : {std::size_t{5}, std::size_t{64}, std::size_t{4096}}) {
    CAPTURE(bytes);
    const std::string got = test::error_message(
        [&] {
          io::CsvChunks r(f.path(), {}, sel, bytes);
          io::Table c;
          while (r.next(c)) {
          }
        },
        kExitDataError);
    CHECK(got == expected);
  }
}

TEST_CASE("no data rows, a header longer than the chunk, standard input") {
  {
    const TempFile f("a,b\n");
    const std::string want = test::error_message([&] { io::read_csv(f.path(), {}, {}); }, kExitDataError);
    io::CsvChunks r(f.path(), {}, {}, 2);
    io::Table c;
    CHECK(test::error_message([&] { r.next(c); }, kExitDataError) == want);
  }
  {
    const TempFile f("a,b\nNA,1\n,2\n");
    io::CsvOptions o;
    o.missing = io::MissingPolicy::drop;
    const std::string want = test::error_message([&] { io::read_csv(f.path(), o, {}); }, kExitDataError);
    CHECK(want.find("after dropping 2") != std::string::npos);
    io::CsvChunks r(f.path(), o, {}, 3);
    io::Table c;
    CHECK(test::error_message([&] { r.next(c); }, kExitDataError) == want);
  }
  {
    // A 3-byte chunk cannot hold the header: the buffer grows for it, then the rows
    // come in small chunks again.
    std::string csv = "first_column,second_column\n";
    for (int i = 0; i < 40; ++i) csv += std::to_string(i) + "," + std::to_string(2 * i) + "\n";
    const TempFile f(csv);
    const Joined got = read_in_chunks(f.path(), {}, {}, 3);
    CHECK(got.table.X.n_rows == 40);
    CHECK(got.table.lines.back() == 41);
    CHECK(got.summary.feature_names == Names{"first_column", "second_column"});
    CHECK(got.chunks >= 2);
  }
}

TEST_CASE("parse_memory_size") {
  CHECK(io::parse_memory_size("100000", "--memory") == 100000);
  CHECK(io::parse_memory_size("512M", "--memory") == 512ull << 20);
  CHECK(io::parse_memory_size("2G", "--memory") == 2ull << 30);
  CHECK(io::parse_memory_size("2g", "--memory") == 2ull << 30);
  CHECK(io::parse_memory_size("1.5GiB", "--memory") == 3ull << 29);
  CHECK(io::parse_memory_size("64KB", "--memory") == 64ull << 10);
  CHECK(io::parse_memory_size("1T", "--memory") == 1ull << 40);
  for (const char* bad : {"", "0", "-1G", "2X", "G", "1e3", "nanG", "2 G", "0.1"}) {
    CAPTURE(bad);
    const std::string m = test::error_message([&] { io::parse_memory_size(bad, "--memory"); }, kExitUsage);
    CHECK(m.find("--memory") == 0);
  }
}

// Exact by construction: the counts of bytes and separators of small files.
TEST_CASE("bytes_per_cell: the first bytes' mean cell, at least 2") {
  CHECK(io::bytes_per_cell(TempFile("a,b\n12345,1.5\n-0.25,7\n").path()) == 22.0 / 6);
  CHECK(io::bytes_per_cell(TempFile("1,2\n3,4\n").path()) == 2.0);
  CHECK(io::bytes_per_cell(TempFile("x;y\ty\n").path()) == 2.0);          // ; and tab count too
  CHECK(io::bytes_per_cell(TempFile("no separator at all").path()) == 2.0);
  CHECK(io::bytes_per_cell(TempFile("123456789,1\n").path(), 5) == 2.0);   // none in the sample: the worst case
  CHECK(io::bytes_per_cell(TempFile("1234,5678\n").path(), 5) == 5.0);     // "1234," : 5 bytes, 1 cell
}

}  // namespace stream_csv_test
