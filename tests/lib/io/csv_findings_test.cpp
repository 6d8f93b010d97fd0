// CSV reader: what the fuzzers (tests/fuzz/columns_fuzz.cpp) and the bad-input
// catalogue (tests/apps/bad_inputs_test.sh) found, each as a regression test; the
// fuzzers' reproducers are also in tests/fuzz/corpus/, replayed by ctest. The reader
// itself is tested in tests/lib/io/csv_test.cpp.
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <new>

#include "../test_util.hpp"
#include "mlt/core/error.hpp"
#include "mlt/io/csv.hpp"

namespace io_csv_findings_test {

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

TEST_CASE("blank lines under a wide header do not reserve a row of the matrix each") {
  // Found in review of the column-major blocks, sized by a range's line ends: 4
  // million blank lines under 2,000 columns asked for 64 GB up front (bad_alloc, or
  // an abort under AddressSanitizer). Kept rows are bounded by the bytes too.
  std::string csv;
  for (int c = 0; c < 2000; ++c) csv += (c ? ",c" : "c") + std::to_string(c);
  csv += '\n';
  csv += std::string(std::size_t{4} << 20, '\n');
  for (int c = 0; c < 2000; ++c) csv += c ? ",1" : "1";
  csv += '\n';
  TempFile f(csv);
  // Each of the parallel ranges asked for ~8 GB, which the kernel's overcommit
  // grants: cap the address space at 2 GB above today's to see the difference
  // (not under AddressSanitizer, whose shadow memory needs the address space).
  struct rlimit saved {};
  getrlimit(RLIMIT_AS, &saved);
#ifndef __SANITIZE_ADDRESS__
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  struct rlimit capped = saved;
  capped.rlim_cur = static_cast<rlim_t>(pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) + (std::size_t{2} << 30));
  if (saved.rlim_cur == RLIM_INFINITY || capped.rlim_cur < saved.rlim_cur) setrlimit(RLIMIT_AS, &capped);
#endif
  mlt::io::Table t;
  try {
    t = mlt::io::read_csv(f.path(), CsvOptions{}, ColumnSelection{});
  } catch (const std::bad_alloc&) {
    setrlimit(RLIMIT_AS, &saved);
    FAIL("bad_alloc");
  }
  setrlimit(RLIMIT_AS, &saved);
  CHECK(t.X.n_rows == 1);
  CHECK(t.X.n_cols == 2000);
  CHECK(t.lines == std::vector<std::uint64_t>{(std::uint64_t{4} << 20) + 2});
}

}  // namespace io_csv_findings_test
