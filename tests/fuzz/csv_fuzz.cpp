// libFuzzer target for the CSV reader (io::read_csv): any bytes, read with and
// without a header, must end in a Table or an mlt::Error (a one-line refusal with
// its exit status), never in another exception, a crash or a sanitizer report.
// Built with -DMLT_FUZZ=ON (clang); scripts/fuzz runs it on a corpus from data/.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mlt/core/error.hpp"
#include "mlt/io/csv.hpp"

namespace {

char scratch_name[64];

// read_csv takes a path: the input goes to one private file, rewritten each run.
const std::string& scratch_path() {
  static const std::string path = [] {
    std::strcpy(scratch_name, "/tmp/mlt-csv-fuzz-XXXXXX");
    char* name = scratch_name;
    const int fd = ::mkstemp(name);
    if (fd < 0) std::abort();
    ::close(fd);
    std::atexit([] { ::unlink(scratch_name); });  // a test run leaves nothing in /tmp
    return std::string(name);
  }();
  return path;
}

void read_as(const mlt::io::CsvOptions& options, const mlt::io::ColumnSelection& columns) {
  try {
    const mlt::io::Table t = mlt::io::read_csv(scratch_path(), options, columns);
    if (t.X.n_rows != t.lines.size()) std::abort();  // one line number per kept row
  } catch (const mlt::Error& e) {
    if (e.exit_status() == mlt::kExitSoftware) std::abort();  // input must not reach "internal error"
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FILE* f = std::fopen(scratch_path().c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  mlt::io::CsvOptions options;
  options.threads = 1;
  read_as(options, {});
  options.header = false;
  read_as(options, {});
  options.header = true;
  options.missing = mlt::io::MissingPolicy::drop;
  mlt::io::ColumnSelection labels;
  labels.text = {mlt::io::kLastColumn};
  read_as(options, labels);
  mlt::io::ColumnSelection verbatim;
  verbatim.verbatim = true;
  read_as(options, verbatim);
  return 0;
}
