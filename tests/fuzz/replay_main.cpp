// A stand-in for libFuzzer's main, so that any compiler (GCC has no libFuzzer) can
// run a fuzz target's LLVMFuzzerTestOneInput on a checked-in corpus: under the
// sanitizer build, every test run replays every input the fuzzers ever found
// interesting. Each argument is a file, or a directory whose regular files are
// replayed in name order (so a failure reproduces in the same order).
//
//   <target>_replay tests/fuzz/corpus/<target>/ [FILE...]
//
// A target reports a broken promise by aborting; the name of the input being
// replayed is printed before it runs, so the last name printed is the culprit.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "replay: cannot open %s\n", file.c_str());
    return false;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A buffer of exactly the input's size, as libFuzzer gives: AddressSanitizer then
  // catches a read one byte past the end.
  const std::unique_ptr<std::uint8_t[]> data(new std::uint8_t[bytes.size()]);
  std::copy(bytes.begin(), bytes.end(), data.get());
  std::fprintf(stderr, "%s\n", file.c_str());
  LLVMFuzzerTestOneInput(data.get(), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS-DIR-OR-FILE...\n", argv[0]);
    return 64;
  }
  std::size_t n = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      for (const auto& e : std::filesystem::directory_iterator(arg, ec))
        if (e.is_regular_file()) files.push_back(e.path());
      if (ec) {
        std::fprintf(stderr, "replay: cannot list %s: %s\n", arg.c_str(), ec.message().c_str());
        return 66;
      }
      std::sort(files.begin(), files.end());
      // An empty corpus would make the test pass without testing anything.
      if (files.empty()) {
        std::fprintf(stderr, "replay: %s holds no inputs\n", arg.c_str());
        return 66;
      }
    } else {
      files.push_back(arg);
    }
    for (const auto& f : files) {
      if (!replay(f)) return 66;
      ++n;
    }
  }
  std::printf("replayed %zu inputs\n", n);
  return 0;
}
