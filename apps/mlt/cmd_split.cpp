// mlt split DATA --test F [--stratify COL] [--seed S] -o TRAIN TEST
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "commands.hpp"
#include "common.hpp"
#include "mlt/core/error.hpp"
#include "mlt/core/random.hpp"
#include "mlt/io/file.hpp"
#include "mlt/io/number_format.hpp"

namespace mlt::app {
namespace {

struct SplitOptions {
  DataOptions data;
  double test = 0.25;
  std::string stratify;
  std::uint64_t seed = kDefaultSeed;
  std::vector<std::string> outputs;
};

// Number of held-out rows among n: a fraction rounds up, as scikit-learn's
// train_test_split; a value >= 1 is a count.
std::size_t test_count(double test, std::size_t n) {
  return test < 1 ? static_cast<std::size_t>(std::ceil(test * static_cast<double>(n)))
                  : static_cast<std::size_t>(test);
}

void write_rows(const std::string& path, const io::Table& t, const std::vector<std::size_t>& rows,
                char delimiter) {
  io::OutputFile out(path);
  std::string buf;
  auto put_row = [&](auto cell_of) {
    for (std::size_t c = 0; c < t.text.size(); ++c) {
      if (c) buf += delimiter;
      io::append_cell(buf, cell_of(c), delimiter);
    }
    buf += '\n';
  };
  if (t.had_header) put_row([&](std::size_t c) -> const std::string& { return t.text[c].name; });
  for (std::size_t i : rows) {
    put_row([&](std::size_t c) -> const std::string& { return t.text[c].values[i]; });
    if (buf.size() > (1 << 16)) {
      out.write(buf);
      buf.clear();
    }
  }
  out.write(buf);
  out.commit();
}

void run_split(const SplitOptions& opt) {
  for (const auto& o : opt.outputs) refuse_overwrite(o, {opt.data.path});
  if (opt.outputs[0] == opt.outputs[1] || io::same_file(opt.outputs[0], opt.outputs[1]))
    throw UsageError("the train and test outputs must differ");
  io::ColumnSelection sel;
  sel.verbatim = true;
  io::CsvOptions csv = csv_options(opt.data);
  const io::Table t = io::read_csv(opt.data.path, csv, sel);
  const std::size_t n = t.n_rows();
  if (n < 2) throw DataError(t.source + ": 1 row cannot be split");

  // Groups of rows drawn from separately: one per class when stratifying.
  std::map<std::string, std::vector<std::size_t>> groups;
  if (opt.stratify.empty()) {
    for (std::size_t i = 0; i < n; ++i) groups[""].push_back(i);
  } else {
    std::size_t col = t.text.size();
    for (std::size_t c = 0; c < t.text.size(); ++c)
      if (t.text[c].name == opt.stratify) col = c;
    if (col == t.text.size()) {
      // Allow a 1-based column number.
      char* end = nullptr;
      unsigned long k = std::strtoul(opt.stratify.c_str(), &end, 10);
      if (*end || k < 1 || k > t.text.size())
        throw UsageError(t.source + ": no column named \"" + opt.stratify + "\" to stratify by");
      col = k - 1;
    }
    for (std::size_t i = 0; i < n; ++i) groups[t.text[col].values[i]].push_back(i);
  }
  const std::size_t n_test = test_count(opt.test, n);
  if (n_test == 0 || n_test >= n)
    throw DataError("--test " + std::to_string(opt.test) + " leaves " + std::to_string(n - std::min(n, n_test)) +
                    " training and " + std::to_string(n_test) + " test rows of " + std::to_string(n));
  Random rng(opt.seed);
  std::vector<std::size_t> train, test;
  std::size_t assigned = 0, seen = 0;
  for (auto& [label, rows] : groups) {
    rng.shuffle(rows);
    // Largest-remainder allocation, so the per-class counts add up to n_test.
    seen += rows.size();
    const std::size_t target = static_cast<std::size_t>(
        std::llround(static_cast<double>(n_test) * static_cast<double>(seen) / static_cast<double>(n)));
    const std::size_t take = std::min(rows.size(), target - std::min(target, assigned));
    assigned += take;
    test.insert(test.end(), rows.begin(), rows.begin() + static_cast<long>(take));
    train.insert(train.end(), rows.begin() + static_cast<long>(take), rows.end());
  }
  std::sort(train.begin(), train.end());
  std::sort(test.begin(), test.end());
  write_rows(opt.outputs[0], t, train, t.delimiter);
  write_rows(opt.outputs[1], t, test, t.delimiter);
  note("split: " + std::to_string(train.size()) + " training rows, " + std::to_string(test.size()) + " test rows");
}

}  // namespace

void setup_split(CLI::App& app) {
  auto opt = std::make_shared<SplitOptions>();
  auto* split = app.add_subcommand("split", "Split DATA into a training file and a held-out test file");
  add_data_options(split, opt->data);
  split->add_option("--test", opt->test, "Held-out share: a fraction in (0,1), or a row count")
      ->check(positive())
      ->capture_default_str();
  split->add_option("--stratify", opt->stratify, "Keep the class proportions of this column in both parts");
  split->add_option("--seed", opt->seed, "Seed of the shuffle")->check(seed())->capture_default_str();
  split->add_option("-o,--output", opt->outputs, "TRAIN and TEST files to write")->required()->expected(2);
  split->footer("Example:\n  mlt split data/iris.csv --test 0.2 --stratify species -o train.csv test.csv");
  split->callback([opt] { run_split(*opt); });
}

}  // namespace mlt::app
