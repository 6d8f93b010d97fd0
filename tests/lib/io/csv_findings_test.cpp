// CSV reader: what the fuzzers (tests/fuzz/columns_fuzz.cpp) and the bad-input
// catalogue (tests/apps/bad_inputs_test.sh) found, each as a regression test; the
// fuzzers' reproducers are also in tests/fuzz/corpus/, replayed by ctest. The reader
// itself is tested in tests/lib/io/csv_test.cpp.
#include <doctest/doctest.h>

#include "../test_util.hpp"
#include "mlt/core/error.hpp"
#include "mlt/io/csv.hpp"

using mlt::io::ColumnSelection;
using mlt::io::CsvOptions;
using mlt::test::TempFile;

TEST_CASE("a column asked for as a feature and as a text column is refused, not left without values") {
  // The feature took the text column's slot, and the text column came back empty
  // (with one value per row promised): a crafted model naming its target among its
  // features reached "internal: text column was not read" (status 70).
  TempFile f("id,x,y\n1,2,3\n4,5,6\n");
  for (const char* ref : {"x", "2"}) {
    CAPTURE(ref);
    ColumnSelection sel;
    sel.features = {"id", ref};
    sel.text = {"x"};
    const std::string m =
        mlt::test::error_message([&] { mlt::io::read_csv(f.path(), {}, sel); }, mlt::kExitUsage);
    CHECK(m == "column \"x\" is named twice");
  }
  ColumnSelection twice;
  twice.features = {"x", "x"};
  CHECK(mlt::test::error_message([&] { mlt::io::read_csv(f.path(), {}, twice); }, mlt::kExitUsage) ==
        "column \"x\" is named twice");
}

TEST_CASE("a bad cell spanning lines is reported at the line where it starts") {
  // BAD-INPUTS A6: it was reported at the line where it ends ("4:2", a column line 4
  // does not have).
  TempFile f("a,b\n1,2\n3,\"4\n5\"\n6,7\n");
  CHECK(mlt::test::error_message([&] { mlt::io::read_csv(f.path(), CsvOptions{}, ColumnSelection{}); }, mlt::kExitDataError) ==
        f.path() + ":3:2: expected a number in column \"b\", found \"4\\x0a5\" (quoted)");
  TempFile g("a,b\n1,2\n3,\"\n\"\n");
  CHECK(mlt::test::error_message([&] { mlt::io::read_csv(g.path(), CsvOptions{}, ColumnSelection{}); }, mlt::kExitDataError)
            .rfind(g.path() + ":3:2: ", 0) == 0);
  TempFile h("a,b\n1,2\n\"1e999\n\",2\n");
  CHECK(mlt::test::error_message([&] { mlt::io::read_csv(h.path(), CsvOptions{}, ColumnSelection{}); }, mlt::kExitDataError)
            .rfind(h.path() + ":3:1: ", 0) == 0);
}
