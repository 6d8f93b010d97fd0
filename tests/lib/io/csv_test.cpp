// CSV reader: every accepted dialect parses to the same numbers, every bad input is
// refused with file:line:column and what was expected (BAD-INPUTS.md section A).
#include "mlt/io/csv.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../test_util.hpp"
#include "mlt/io/number_format.hpp"

namespace io_csv_test {

using mlt::io::ColumnSelection;
using mlt::io::CsvOptions;
using mlt::io::read_csv;
using mlt::test::TempFile;

namespace {

mlt::io::Table read(const std::string& content, CsvOptions options = {}, ColumnSelection columns = {}) {
  TempFile f(content);
  return read_csv(f.path(), options, columns);
}

// The DataError message for `content`, with the temporary path replaced by "F".
std::string data_error(const std::string& content, CsvOptions options = {}, ColumnSelection columns = {}) {
  TempFile f(content);
  std::string m = mlt::test::error_message([&] { read_csv(f.path(), options, columns); }, mlt::kExitDataError);
  const auto pos = m.find(f.path());
  return pos == std::string::npos ? m : m.substr(0, pos) + "F" + m.substr(pos + f.path().size());
}

const arma::mat kTwoByTwo = {{1, 2}, {3, 4}};

}  // namespace

TEST_CASE("dialects that must read as the same two rows") {
  const char* variants[] = {
      "a,b\n1,2\n3,4\n",             // plain
      "a,b\n1,2\n3,4",               // no final newline
      "a,b\r\n1,2\r\n3,4\r\n",       // CRLF
      "a,b\r1,2\r3,4\r",             // lone CR
      "a,b\n1,2\r\n3,4\r",           // mixed
      "\xEF\xBB\xBF" "a,b\n1,2\n3,4\n",  // UTF-8 byte-order mark
      "a,b\n\n1,2\n\n\n3,4\n\n",     // blank lines
      "\"a\",\"b\"\n\"1\",\"2\"\n3,\"4\"\n",  // quoted header and numbers
      "a;b\n1;2\n3;4\n",             // semicolons, detected
      "a\tb\n1\t2\n3\t4\n",          // tabs, detected
      "a,b\n 1 ,2\n3,  4\t\n",       // blanks around numbers are ignored
  };
  for (const char* v : variants) {
    CAPTURE(v);
    const auto t = read(v);
    CHECK(arma::approx_equal(t.X, kTwoByTwo, "absdiff", 0.0));
    CHECK(t.feature_names == mlt::Names{"a", "b"});
  }
}

TEST_CASE("line numbers are physical lines") {
  const auto t = read("a,b\n\n1,2\r\n\r\n3,4\n");
  REQUIRE(t.lines.size() == 2);
  CHECK(t.lines[0] == 3);
  CHECK(t.lines[1] == 5);
  ColumnSelection text_a;
  text_a.text = {"a"};
  // The quoted newline in line 4 counts: the bad cell is on physical line 6.
  CHECK(data_error("a,b\n1,2\n\n\"x\ny\",3\nz,w\n", {}, text_a) ==
        "F:6:2: expected a number in column \"b\", found \"w\"");
}

TEST_CASE("numbers are read exactly and only whole fields count") {
  const auto t = read("x\n0.1\n-0\n4.9e-324\n1.7976931348623157e308\n2.2250738585072014e-308\n");
  CHECK(t.X(0, 0) == 0.1);
  CHECK(t.X(1, 0) == 0.0);
  CHECK(std::signbit(t.X(1, 0)));
  CHECK(t.X(2, 0) == 4.9e-324);
  CHECK(t.X(3, 0) == 1.7976931348623157e308);
  for (const char* bad : {"1_000", "1d5", "1.5e", "0x1p3", "0x10", "+1", "1,5", "--1", "1.2.3", "abc"}) {
    CAPTURE(bad);
    const std::string cell = std::string(bad) == "1,5" ? "\"1,5\"" : bad;
    CHECK(data_error("x,y\n1,2\n" + cell + ",3\n").rfind("F:3:1: expected a number in column \"x\"", 0) == 0);
  }
}

TEST_CASE("missing and non-finite values") {
  for (const char* na : {"", "NA", "NaN", "nan", "N/A", "null", "nan(0x1)"}) {
    CAPTURE(na);
    CHECK(data_error(std::string("x,y\n1,2\n3,") + na + "\n").rfind("F:3:2: missing value", 0) == 0);
  }
  for (const char* inf : {"inf", "-inf", "Infinity", "-infinity"}) {
    CAPTURE(inf);
    CHECK(data_error(std::string("x,y\n1,2\n3,") + inf + "\n").rfind("F:3:2: non-finite value", 0) == 0);
  }
  CHECK(data_error("x,y\n1,2\n3,1e309\n").find("out of the range of a double") != std::string::npos);
  CHECK(data_error("x,y\n1,2\n3,-1e309\n").find("out of the range of a double") != std::string::npos);
  CHECK(data_error("x,y\n1,2\n3,1e-400\n").find("out of the range of a double") != std::string::npos);

  CsvOptions drop;
  drop.missing = mlt::io::MissingPolicy::drop;
  const auto t = read("x,y\n1,2\nNA,3\n5,\n7,8\n", drop);
  CHECK(t.dropped_rows == 2);
  CHECK(arma::approx_equal(t.X, arma::mat{{1, 2}, {7, 8}}, "absdiff", 0.0));
  CHECK(t.lines == std::vector<std::uint64_t>{2, 5});
  CHECK(data_error("x,y\nNA,2\n", drop) == "F: no data rows left after dropping 1 with missing values");
}

TEST_CASE("malformed files") {
  CHECK(data_error("") == "F: empty file: expected a header and data rows");
  CHECK(data_error("\n\n") == "F: empty file: expected a header and data rows");
  CHECK(data_error("a,b\n") == "F: no data rows (only a header)");
  CHECK(data_error("a,b\n1,2\n3\n") == "F:3: 1 field, expected 2");
  CHECK(data_error("a,b\n1,2\n3,4,5\n") == "F:3: 3 fields, expected 2");
  CHECK(data_error("a,b\n1,2\n,,\n") ==
        "F:3:1: missing value \"\" in column \"a\" (use `na` drop to skip such rows)");
  CHECK(data_error("a,b\n1,\"2\n3,4\n") == "F:2:2: unterminated quote opened here");
  CHECK(data_error("a,b\n12,1\",\n") == "F:2:2: stray quote inside an unquoted field");
  CHECK(data_error("a,b\n\"1\"x,2\n") == "F:2:1: unexpected \"x\" after a closing quote");
  CHECK(data_error("a,a\n1,2\n") == "F:1: duplicate column name \"a\" (columns 1 and 2)");
  CHECK(data_error("\xFF\xFE" "a\0,\0b\0" "\n") == "F:1: UTF-16 input is not supported; convert it to UTF-8");
  CHECK(data_error("a,\xC3(\n1,2\n") == "F:1: invalid UTF-8 in the header at byte offset 2");
  CHECK(data_error(std::string("a,b\0c\n1,2\n", 10)) == "F:1: NUL byte in the header at byte offset 3");
  CHECK(data_error(std::string("a,b\n1,2\0" "3\n", 10)).find("NUL byte at byte offset 7") != std::string::npos);
  CHECK(data_error("a,b\n1,\"1,5\"\n").find("F:2:2: expected a number") == 0);
  CHECK(data_error("a,\"b\nc\",d\n1,2,3\n4,x,6\n") == "F:4:2: expected a number in column \"b\\x0ac\", found \"x\"");
  CHECK(data_error("a,b\n1,2\n3,\xff\n", {}, ColumnSelection{{}, {"b"}, {}, false}) ==
        "F:3:2: invalid UTF-8 in column \"b\" at byte 1 of the cell");
  CHECK(data_error("a\tb\n1\t2\n", CsvOptions{true, ',', {}, 0}).find("wrong `delimiter`?") != std::string::npos);
  CHECK(data_error("a,b\nx,1\n", CsvOptions{false, 0, {}, 0}).find("is line 1 a header?") != std::string::npos);
  CHECK(data_error("a,b\n1,\"" + std::string(1 << 21, 'x') + "\"\n").find("longer than 1 MiB") != std::string::npos);
}

TEST_CASE("a header of numbers is read as names, with a warning that suggests no_header") {
  mlt::test::Warnings warnings;
  const auto t = read("1,2\n3,4\n");
  CHECK(t.feature_names == mlt::Names{"1", "2"});
  CHECK(t.X.n_rows == 1);
  CHECK(warnings.any(":1: every column name is a number; if the file has no header row, pass `no_header`"));
}

TEST_CASE("column selection: names, numbers, text, ignore, last") {
  const std::string csv = "id,x,y,label\n7,1,2,cat\n8,3,4,\"dog, big\"\n";
  ColumnSelection sel;
  sel.text = {mlt::io::kLastColumn};
  sel.ignore = {"1"};
  const auto t = read(csv, {}, sel);
  CHECK(t.feature_names == mlt::Names{"x", "y"});
  CHECK(arma::approx_equal(t.X, kTwoByTwo, "absdiff", 0.0));
  REQUIRE(t.text.size() == 1);
  CHECK(t.text[0].name == "label");
  CHECK(t.text[0].values == std::vector<std::string>{"cat", "dog, big"});

  ColumnSelection by_name;
  by_name.features = {"y", "x"};  // a model's order, not the file's
  const auto u = read(csv, {}, by_name);
  CHECK(arma::approx_equal(u.X, arma::mat{{2, 1}, {4, 3}}, "absdiff", 0.0));

  ColumnSelection missing;
  missing.ignore = {"nope"};
  TempFile f(csv);
  const std::string m = mlt::test::error_message([&] { read_csv(f.path(), {}, missing); }, mlt::kExitUsage);
  CHECK(m.find("no column named \"nope\"; columns are: id, x, y, label") != std::string::npos);
}

TEST_CASE("text labels are kept verbatim") {
  ColumnSelection sel;
  sel.text = {"label"};
  const auto t = read("x,label\n1,a\n2,a \n3, a\n", {}, sel);
  CHECK(t.text[0].values == std::vector<std::string>{"a", "a ", " a"});
}

TEST_CASE("no header: columns are numbered") {
  CsvOptions o;
  o.header = false;
  ColumnSelection sel;
  sel.text = {"3"};
  const auto t = read("1,2,x\n3,4,y\n", o, sel);
  CHECK(t.feature_names == mlt::Names{"1", "2"});
  CHECK(arma::approx_equal(t.X, kTwoByTwo, "absdiff", 0.0));
}

TEST_CASE("large input parsed in parallel agrees with the sequential parse") {
  // ~3 MB, so chunks are split across threads; an error deep inside must still be
  // reported at its physical line.
  std::string csv = "a,b,c\n";
  arma::mat expected(100000, 3);
  for (int i = 0; i < 100000; ++i) {
    expected(i, 0) = i;
    expected(i, 1) = i * 0.5;
    expected(i, 2) = -i / 3.0;
    csv += std::to_string(i) + "," + std::to_string(i * 0.5) + ",";
    mlt::io::append_number(csv, -i / 3.0);
    csv += i % 1000 == 0 ? "\r\n" : "\n";
  }
  CsvOptions parallel;
  parallel.threads = 2;
  CsvOptions sequential;
  sequential.threads = 1;
  const auto a = read(csv, parallel);
  const auto b = read(csv, sequential);
  CHECK(arma::approx_equal(a.X, expected, "absdiff", 0.0));
  CHECK(arma::approx_equal(b.X, expected, "absdiff", 0.0));
  CHECK(a.lines == b.lines);
  CHECK(a.lines.back() == 100001);
  CHECK(a.data_hash == b.data_hash);

  std::string broken = csv;
  const std::string needle = "\n90000,";
  broken.replace(broken.find(needle) + 1, 5, "9000x");
  CHECK(data_error(broken, parallel) == "F:90002:1: expected a number in column \"a\", found \"9000x\"");
  CHECK(data_error(broken, sequential) == "F:90002:1: expected a number in column \"a\", found \"9000x\"");
}

TEST_CASE("a record's leading numbers are taken in one run, and any other cell where it stands") {
  // The parse loop takes a record's leading feature columns in one run while each
  // cell is a short decimal ending where it should, and hands the first other cell
  // (a missing value, a long or odd number, a text column, a record cut short or
  // too long) to the general loop. Values are checked against strtod of the text
  // written, on one thread and two, and messages name the cell's line and column.
  const int rows = 30000;
  std::string csv = "a,b,label,c\n";
  std::vector<std::array<std::string, 3>> cells;
  for (int i = 0; i < rows; ++i) {
    std::array<std::string, 3> r;
    char buf[40];
    for (int j = 0; j < 3; ++j) {
      std::snprintf(buf, sizeof buf, "%.7g", i * 0.125 + j - 1000);  // every line its own
      r[static_cast<std::size_t>(j)] = buf;
    }
    if (i % 7 == 1) r[0] = "1.2345678901234567e-3";  // more than 16 digits: fast_float
    if (i % 11 == 2) r[1] = "12345678901234567";     // past 2^53: fast_float
    if (i % 13 == 3) r[2] = "-.5";
    if (i % 17 == 4) r[1] = "7e2";                   // an exponent: not the vector converter's
    cells.push_back(r);
    csv += r[0] + "," + r[1] + "," + (i % 2 ? "x" : "y") + "," + r[2] + (i % 5 == 0 ? "\r\n" : "\n");
  }
  ColumnSelection columns;
  columns.text = {"label"};
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    CsvOptions options;
    options.threads = threads;
    const auto t = read(csv, options, columns);
    REQUIRE(t.X.n_rows == static_cast<arma::uword>(rows));
    REQUIRE(t.X.n_cols == 3);
    bool same = true;
    for (int i = 0; i < rows && same; ++i)
      for (int j = 0; j < 3; ++j)
        same = same && t.X(static_cast<arma::uword>(i), static_cast<arma::uword>(j)) ==
                           std::strtod(cells[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)].c_str(), nullptr);
    CHECK(same);
    CHECK(t.text_column("label").values[1] == "x");

    // Line 20003 is data row 20001 (0-based), all short decimals (none of the special
    // cells above), so that the run reaches each break; label "x" (odd row).
    auto broken = [&](const std::string& from, const std::string& to) {
      std::string b = csv;
      const std::size_t at = b.find(from);
      REQUIRE(at != std::string::npos);
      b.replace(at, from.size(), to);
      return data_error(b, options, columns);
    };
    const auto& r = cells[20001];
    const std::string line = "\n" + r[0] + "," + r[1] + ",x," + r[2] + "\n";
    CHECK(broken(line, "\n" + r[0] + ",oops,x," + r[2] + "\n") ==
          "F:20003:2: expected a number in column \"b\", found \"oops\"");
    CHECK(broken(line, "\n" + r[0] + "," + r[1] + "\n") == "F:20003: 2 fields, expected 4");
    CHECK(broken(line, "\n" + r[0] + "," + r[1] + ",x," + r[2] + ",9\n") == "F:20003: 5 fields, expected 4");
    CHECK(broken(line, "\n" + r[0] + ",,x," + r[2] + "\n").rfind("F:20003:2: missing value \"\" in column \"b\"", 0) ==
          0);
    CsvOptions drop = options;
    drop.missing = mlt::io::MissingPolicy::drop;
    std::string b = csv;
    b.replace(b.find(line), line.size(), "\n" + r[0] + ",NA,x," + r[2] + "\n");
    const auto d = read(b, drop, columns);
    CHECK(d.X.n_rows == static_cast<arma::uword>(rows - 1));
    CHECK(d.X(20001, 0) == std::strtod(cells[20002][0].c_str(), nullptr));
  }
}

TEST_CASE("the data hash of the input bytes") {
  // printf 'a\n1\n' | xxhsum -H2   (xxhsum 0.8.1, Debian's xxhash package)
  CHECK(read("a\n1\n").data_hash == "88628656e70b863b619fa490c55d4bde");
}

TEST_CASE("cells are written back exactly") {
  std::string out;
  for (double v : {0.1, 1.0 / 3, -2.5e-300, 1e22, 123456789.0}) {
    out.clear();
    mlt::io::append_number(out, v);
    double back = 0;
    CHECK(mlt::io::parse_cell(out, back) == mlt::io::CellStatus::number);
    CHECK(back == v);
  }
  out.clear();
  mlt::io::append_cell(out, "a,\"b\"");
  CHECK(out == "\"a,\"\"b\"\"\"");
}

}  // namespace io_csv_test
