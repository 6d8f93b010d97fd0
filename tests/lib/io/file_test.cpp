// Whole-file reads: a mapped regular file, and the files that cannot be mapped (empty,
// or sized 0 by the kernel though they hold bytes), give exactly the bytes read(2)
// gives; a missing file or a directory is an input error.
#include "mlt/io/file.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "../test_util.hpp"

namespace io_file_test {

using mlt::io::FileBytes;
using mlt::io::read_whole_file;

TEST_CASE("FileBytes: a regular file, every byte value and a size that is not a page multiple") {
  std::string content;
  for (int i = 0; i < 3 * 4096 + 17; ++i) content += static_cast<char>(i * 7 % 256);
  mlt::test::TempFile f(content, "model.bin");
  const FileBytes bytes(f.path());
  CHECK(bytes.view() == content);
  CHECK(read_whole_file(f.path()) == content);
}

TEST_CASE("FileBytes: an empty file is empty") {
  mlt::test::TempFile f("", "empty");
  const FileBytes bytes(f.path());
  CHECK(bytes.view().empty());
}

TEST_CASE("FileBytes: a file the kernel sizes as 0 is read to its end") {
  // /proc files report st_size 0 and are never mapped: read through to the end.
  const std::string path = "/proc/self/cmdline";
  std::ifstream in(path, std::ios::binary);
  const std::string expected((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(!expected.empty());
  const FileBytes bytes(path);
  CHECK(bytes.view() == expected);
}

TEST_CASE("FileBytes: a missing file and a directory are input errors naming the path") {
  mlt::test::TempFile f("x", "present");
  CHECK(mlt::test::error_message([&] { FileBytes b(f.dir() + "/absent"); }, mlt::kExitNoInput)
            .find("/absent: cannot open") != std::string::npos);
  CHECK(mlt::test::error_message([&] { FileBytes b(f.dir()); }, mlt::kExitNoInput).find("is a directory") !=
        std::string::npos);
}

}  // namespace io_file_test
