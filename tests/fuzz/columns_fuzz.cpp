// libFuzzer target for column selection lists (--ignore a,3, --target y,z, a model's
// feature names; io::ColumnSelection resolved by read_csv): names, 1-based numbers,
// a header cell that is itself a number, "@last", repeats and overlaps. The input is
// three lines (features, text columns, ignored columns), each a comma-separated
// list as the command line splits it; a first byte with its low bit set reads the
// file without a header. Every input must end in a table whose columns are what
// was asked for, or in a UsageError / DataError, never another exception, a crash or
// a sanitizer report.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mlt/core/error.hpp"
#include "mlt/io/csv.hpp"

namespace {

char scratch_name[64];

void require(bool ok) {
  if (!ok) std::abort();
}

// A header with a name that is a number (a name wins over a position) and a text
// column; read_csv takes a path, so the file is written once.
const std::string& csv_path() {
  static const std::string path = [] {
    std::strcpy(scratch_name, "/tmp/mlt-columns-fuzz-XXXXXX");
    char* name = scratch_name;
    const int fd = ::mkstemp(name);
    if (fd < 0) std::abort();
    const std::string csv = "id,x,y,2,label\n1,2,3,4,a\n5,6,7,8,b\n9,10,11,12,a\n";
    if (::write(fd, csv.data(), csv.size()) != static_cast<ssize_t>(csv.size())) std::abort();
    ::close(fd);
    std::atexit([] { ::unlink(scratch_name); });  // a test run leaves nothing in /tmp
    return std::string(name);
  }();
  return path;
}

mlt::Names split_list(const std::string& s) {
  mlt::Names out;
  if (s.empty()) return out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = s.find(',', start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool header = (data[0] & 1) == 0;
  const std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<std::string> lines(3);
  for (std::size_t i = 0, start = 0; i < 3 && start <= input.size(); ++i) {
    const std::size_t end = input.find('\n', start);
    lines[i] = input.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  mlt::io::ColumnSelection sel;
  sel.features = split_list(lines[0]);
  sel.text = split_list(lines[1]);
  sel.ignore = split_list(lines[2]);
  mlt::io::CsvOptions options;
  options.header = header;
  options.threads = 1;
  try {
    const mlt::io::Table t = mlt::io::read_csv(csv_path(), options, sel);
    require(t.X.n_rows == (header ? 3u : 4u) || t.X.n_rows == 0);
    require(t.text.size() == sel.text.size());
    for (const auto& c : t.text) require(c.values.size() == t.X.n_rows);
    require(t.feature_names.size() == t.X.n_cols);
    if (!sel.features.empty()) require(t.X.n_cols == sel.features.size());
    // A column is one thing: not a feature and a text column at once, nor twice a feature.
    for (std::size_t i = 0; i < t.feature_names.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) require(t.feature_names[i] != t.feature_names[j]);
      for (const auto& c : t.text) require(c.name != t.feature_names[i]);
    }
  } catch (const mlt::Error& e) {
    require(e.exit_status() == mlt::kExitUsage || e.exit_status() == mlt::kExitDataError);
  }
  return 0;
}
