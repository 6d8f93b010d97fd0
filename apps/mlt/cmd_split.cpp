// mlt split DATA --test F [--stratify COL] [--seed S] -o TRAIN TEST
#include <cctype>
#include <memory>

#include "commands.hpp"
#include "cli_support.hpp"
#include "data_options.hpp"
#include "model_io.hpp"
#include "output.hpp"
#include "mlt/core/error.hpp"
#include "mlt/core/random.hpp"
#include "mlt/cv/train_test_split.hpp"
#include "mlt/io/file.hpp"

namespace mlt::app {
namespace {

struct SplitOptions {
  DataOptions data;
  double test = 0.25;
  std::string stratify;
  std::uint64_t seed = kDefaultSeed;
  std::vector<std::string> outputs;
};

void write_rows(CsvWriter& csv, const io::Table& t, const std::vector<std::size_t>& rows) {
  if (t.had_header) {
    for (const auto& column : t.text) csv.text(column.name);
    csv.end_row();
  }
  for (std::size_t i : rows) {
    for (const auto& column : t.text) csv.text(column.values[i]);
    csv.end_row();
  }
}

void run_split(const SplitOptions& opt) {
  for (const auto& o : opt.outputs) refuse_overwrite(o, {opt.data.path});
  if (opt.outputs[0] == opt.outputs[1] || io::same_file(opt.outputs[0], opt.outputs[1]))
    throw UsageError("the train and test outputs must differ");
  io::ColumnSelection sel;
  sel.verbatim = true;
  io::CsvOptions csv = csv_options(opt.data);
  const io::Table t = io::read_csv(opt.data.path, csv, sel);
  if (t.n_rows() < 2) throw DataError(t.source + ": 1 row cannot be split");

  const std::vector<std::string>* strata = nullptr;
  if (!opt.stratify.empty()) {
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
    strata = &t.text[col].values;
  }
  const cv::TrainTest split = cv::train_test_split(t.n_rows(), opt.test, opt.seed, strata ? *strata : std::vector<std::string>{});
  const std::vector<std::size_t>& train = split.train;
  const std::vector<std::size_t>& test = split.test;
  // Both outputs are opened (their temporaries created) before either is written, so
  // an unwritable place for the second leaves nothing of the first behind.
  CsvWriter train_csv(opt.outputs[0], t.delimiter);
  CsvWriter test_csv(opt.outputs[1], t.delimiter);
  write_rows(train_csv, t, train);
  write_rows(test_csv, t, test);
  // Standard output first: a reader that stops early (| head) fails the run before
  // either file is put in place, so a failed split leaves no file written.
  const bool test_first = opt.outputs[1] == "-";
  (test_first ? test_csv : train_csv).commit();
  (test_first ? train_csv : test_csv).commit();
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
  // A flag after --stratify (--stratify -o a b) would be taken for its column, and the
  // user told that --output is missing: said as what it is.
  split->add_option("--stratify", opt->stratify, "Keep the class proportions of this column in both parts")
      ->check(CLI::Validator(
          [](std::string& column) {
            return column.size() > 1 && column[0] == '-' && !std::isdigit(static_cast<unsigned char>(column[1]))
                       ? "takes a column name, and " + column + " is a flag: give the column first"
                       : std::string();
          },
          "COLUMN"));
  split->add_option("--seed", opt->seed, "Seed of the shuffle")->check(seed())->capture_default_str();
  split->add_option("-o,--output", opt->outputs, "TRAIN and TEST files to write")->required()->expected(2);
  split->footer("Example:\n  mlt split data/iris.csv --test 0.2 --stratify species -o train.csv test.csv");
  split->callback([opt] { run_split(*opt); });
}

}  // namespace mlt::app
