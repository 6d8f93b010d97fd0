#include "common.hpp"

#include <charconv>
#include <cstdint>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "mlt/core/error.hpp"
#include "mlt/io/file.hpp"
#include "mlt/metrics.hpp"
#include "mlt/io/number_format.hpp"

namespace mlt::app {
namespace {
std::string command_line;
bool quiet_ = false;
bool timings_ = false;

void report_read(PhaseTimer& timer, const io::Table& t) {
  const double mb = static_cast<double>(t.bytes) / 1e6;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%zu rows x %zu features, %.1f MB (%.0f MB/s)", t.n_rows(),
                static_cast<std::size_t>(t.X.n_cols), mb, mb / std::max(timer.seconds(), 1e-9));
  timer.set_detail(buf);
}
}  // namespace

void set_timings(bool on) { timings_ = on; }

PhaseTimer::PhaseTimer(std::string name) : name_(std::move(name)), start_(std::chrono::steady_clock::now()) {}

double PhaseTimer::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

PhaseTimer::~PhaseTimer() {
  if (!timings_) return;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f s", seconds());
  std::cerr << "mlt: time: " << name_ << " " << buf << (detail_.empty() ? "" : ", " + detail_) << '\n';
}

void set_command_line(int argc, char** argv) {
  command_line.clear();
  for (int i = 0; i < argc; ++i) {
    if (i) command_line += ' ';
    command_line += i == 0 ? "mlt" : argv[i];
  }
}

bool quiet() { return quiet_; }
void set_quiet(bool q) { quiet_ = q; }
void note(const std::string& message) {
  if (!quiet_) std::cerr << "mlt: " << message << '\n';
}

namespace {
// A finite number accepted by `ok`, described as `what` in --help and errors.
CLI::Validator number_check(bool (*ok)(double), const std::string& what) {
  return CLI::Validator(
      [ok, what](std::string& s) -> std::string {
        double v = 0;
        try {
          std::size_t used = 0;
          v = std::stod(s, &used);
          if (used != s.size()) return "expected a number, got " + s;
        } catch (...) {
          return "expected a number, got " + s;
        }
        if (!std::isfinite(v) || !ok(v)) return "must be " + what + ", got " + s;
        return "";
      },
      what);
}
}  // namespace

CLI::Validator non_negative() {
  return number_check([](double v) { return v >= 0; }, "a finite number >= 0");
}
CLI::Validator positive() {
  return number_check([](double v) { return v > 0; }, "a finite number > 0");
}
CLI::Validator positive_integer() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 12 ||
            std::stoull(s) == 0)
          return "must be a whole number >= 1, got " + s;
        return "";
      },
      "INTEGER>=1");
}

std::string flag_names(const std::string& message) {
  std::string out;
  for (std::size_t i = 0; i < message.size(); ++i) {
    const std::size_t close = message[i] == '`' ? message.find('`', i + 1) : std::string::npos;
    const std::string_view name =
        close == std::string::npos ? std::string_view() : std::string_view(message).substr(i + 1, close - i - 1);
    if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string_view::npos) {
      out += message[i];
      continue;
    }
    out += "--";
    for (char c : name) out += c == '_' ? '-' : c;
    i = close;
  }
  return out;
}

CLI::Validator seed() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        std::uint64_t value = 0;
        const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || error != std::errc() ||
            end != s.data() + s.size())
          return "a seed is a whole number from 0 to 18446744073709551615, got " + s;
        return "";
      },
      "SEED");
}

CLI::Validator open_unit_interval() {
  return number_check([](double v) { return v > 0 && v < 1; }, "a number in (0, 1)");
}

void add_data_options(CLI::App* cmd, DataOptions& opt) {
  cmd->add_option("data", opt.path, "CSV file, - for standard input")->required();
  cmd->add_flag("--no-header", opt.no_header, "The first line is data, not column names");
  cmd->add_option("--delimiter", opt.delimiter, "Field delimiter: , ; or tab (default: detected)")
      ->check(CLI::Validator(
          [](std::string& d) {
            return d == "," || d == ";" || d == "tab" || d == "\t" ? std::string()
                                                                     : "expected , ; or tab, not \"" + d + "\"";
          },
          "{, ; tab}"));  // IsMember would print the accepted literal tab character in --help
  cmd->add_option("--na", opt.na, "Missing values: error (stop at the first) or drop (skip the row)")
      ->check(one_of<io::MissingPolicy>())
      ->capture_default_str();
  cmd->add_option("--ignore", opt.ignore, "Columns to skip (names or 1-based numbers, comma separated)")
      ->delimiter(',');
}

io::CsvOptions csv_options(const DataOptions& opt) {
  io::CsvOptions o;
  o.header = !opt.no_header;
  o.delimiter = opt.delimiter.empty() ? 0 : (opt.delimiter == "tab" ? '\t' : opt.delimiter[0]);
  o.missing = parse_name<io::MissingPolicy>(opt.na);
  return o;
}

namespace {
void report_dropped(const io::Table& t) {
  if (t.dropped_rows)
    note(t.source + ": dropped " + std::to_string(t.dropped_rows) + (t.dropped_rows == 1 ? " row" : " rows") +
         " with missing values");
}
}  // namespace

io::Table read_training_data(const DataOptions& opt, const Names& text_columns) {
  io::ColumnSelection sel;
  sel.text = text_columns;
  sel.ignore = opt.ignore;
  PhaseTimer timer("read");
  io::Table t = io::read_csv(opt.path, csv_options(opt), sel);
  report_read(timer, t);
  report_dropped(t);
  return t;
}

LoadedModel read_model(const std::string& path, const std::string& kind) {
  const std::string bytes = io::read_whole_file(path);
  LoadedModel m{io::ModelReader::parse(bytes, path == "-" ? "<stdin>" : path), {}};
  if (!kind.empty()) m.reader.expect_kind(kind);
  const auto& r = m.reader;
  m.schema = io::read_schema(r);
  return m;
}

io::Table read_data_for(const DataSchema& schema, const DataOptions& opt, const Names& text_columns) {
  io::ColumnSelection sel;
  sel.text = text_columns;
  sel.ignore = opt.ignore;
  const bool by_name = schema.header && !opt.no_header;
  if (by_name) sel.features = schema.features;
  io::Table t;
  PhaseTimer timer("read");
  try {
    t = io::read_csv(opt.path, csv_options(opt), sel);
    report_read(timer, t);
  } catch (const UsageError& e) {
    // A feature column the model needs is absent: that is the data's fault.
    if (by_name) throw DataError(std::string(e.what()) + " (the model needs it)");
    throw;
  }
  if (t.X.n_cols != schema.features.size())
    throw DataError(t.source + ": model trained on " + std::to_string(schema.features.size()) +
                    " features, input has " + std::to_string(t.X.n_cols));
  report_dropped(t);
  return t;
}

void add_target_option(CLI::App* cmd, Names& target, bool multiple) {
  auto* o = cmd->add_option("--target", target,
                            multiple ? "Target column(s), comma separated (default: the last column)"
                                     : "Target column (default: the last column)");
  if (multiple) o->delimiter(',');
  else o->expected(1);
}

RegressionData read_regression_data(const DataOptions& opt, const Names& targets, const Names& extra_text) {
  RegressionData d;
  Names wanted = targets.empty() ? Names{io::kLastColumn} : targets;
  const std::size_t n_targets = wanted.size();
  wanted.insert(wanted.end(), extra_text.begin(), extra_text.end());
  d.table = read_training_data(opt, wanted);
  d.Y.set_size(d.table.n_rows(), n_targets);
  for (std::size_t t = 0; t < n_targets; ++t) {
    const auto& col = d.table.text[t];
    d.Y.col(t) = parse_numeric_target(col.values, col.name, d.table.source, d.table.lines);
    d.target_names.push_back(col.name);
  }
  return d;
}

ClassificationData read_classification_data(const DataOptions& opt, const std::string& target,
                                            const Names& extra_text) {
  ClassificationData d;
  Names wanted{target.empty() ? std::string(io::kLastColumn) : target};
  wanted.insert(wanted.end(), extra_text.begin(), extra_text.end());
  d.table = read_training_data(opt, wanted);
  const auto& col = d.table.text[0];
  d.target = col.name;
  if (looks_continuous(col.values))
    throw DataError(d.table.source + ": target column \"" + col.name +
                    "\" holds non-integer numbers: labels look continuous (a regression target?)");
  d.y = d.encoder.fit_encode(col.values);
  if (d.encoder.n_classes() < 2)
    throw DataError(d.table.source + ": only one class (\"" + d.encoder.classes()[0] + "\") in column \"" +
                    col.name + "\"; a classifier needs at least two");
  return d;
}

arma::mat regression_truth(const io::Table& t, const DataSchema& schema) {
  const Names& names = schema.targets.empty() ? Names{schema.target} : schema.targets;
  arma::mat Y(t.n_rows(), names.size());
  for (std::size_t j = 0; j < names.size(); ++j) {
    const auto& col = t.text_column(names[j]);
    Y.col(j) = parse_numeric_target(col.values, col.name, t.source, t.lines);
  }
  return Y;
}

Labels class_truth(const io::Table& t, const DataSchema& schema) {
  return LabelEncoder(schema.classes).encode(t.text_column(schema.target).values, t.source, &t.lines);
}

std::vector<std::pair<std::string, double>> regression_scores(const arma::mat& y, const arma::mat& prediction) {
  std::vector<std::pair<std::string, double>> s;
  for (const std::string& name : metrics::names(metrics::Task::regression))
    s.emplace_back(name, metrics::regression_score(name, y, prediction));
  return s;
}

namespace {

std::vector<std::pair<std::string, double>> classification_scores(const Labels& y, const Labels& prediction,
                                                                  const arma::mat* probabilities,
                                                                  const Names& classes, nlohmann::json& extra) {
  std::vector<std::pair<std::string, double>> s;
  for (const std::string& name : metrics::names(metrics::Task::classification, probabilities != nullptr))
    s.emplace_back(name, metrics::classification_score(name, y, prediction, probabilities));
  const arma::umat c = metrics::confusion_matrix(y, prediction, classes.size());
  std::vector<std::vector<arma::uword>> rows(c.n_rows);
  for (arma::uword i = 0; i < c.n_rows; ++i) rows[i] = arma::conv_to<std::vector<arma::uword>>::from(c.row(i));
  extra["classes"] = classes;
  extra["confusion_matrix"] = rows;  // rows: true class, columns: predicted
  extra["n_samples"] = y.n_elem;
  return s;
}

std::string confusion_text(const Labels& y, const Labels& prediction, const Names& classes) {
  const arma::umat c = metrics::confusion_matrix(y, prediction, classes.size());
  std::string out = "confusion matrix (rows: true, columns: predicted)\n";
  std::size_t width = 4;
  for (const auto& k : classes) width = std::max(width, k.size());
  auto pad = [&](const std::string& s) { return s + std::string(width + 2 - std::min(width + 1, s.size()), ' '); };
  const auto end_line = [&out] {  // no trailing blanks
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  };
  out += pad("");
  for (const auto& k : classes) out += pad(k);
  end_line();
  for (arma::uword i = 0; i < c.n_rows; ++i) {
    out += pad(classes[i]);
    for (arma::uword j = 0; j < c.n_cols; ++j) out += pad(std::to_string(c(i, j)));
    end_line();
  }
  return out;
}

}  // namespace

void print_classification_scores(const Labels& y, const Labels& prediction, const arma::mat* probabilities,
                                 const Names& classes, bool json) {
  nlohmann::json extra;
  print_scores(classification_scores(y, prediction, probabilities, classes, extra), json, extra);
  if (json) return;
  io::OutputFile out("-");
  out.write(confusion_text(y, prediction, classes));
  out.commit();
}

void write_model(const std::string& path, io::ModelWriter& writer, const DataSchema& schema,
                 const io::Table& training) {
  auto& h = writer.header();
  io::write_schema(writer, schema);
  h["provenance"] = {{"mlt_version", MLT_VERSION},
                     {"command", command_line},
                     {"data_file", training.source},
                     {"data_sha256", training.sha256},
                     {"data_bytes", training.bytes},
                     {"data_rows", training.n_rows()},
                     {"dropped_rows", training.dropped_rows}};
  PhaseTimer timer("write model");
  io::OutputFile out(path);
  out.write(writer.bytes());
  out.commit();
}

void refuse_overwrite(const std::string& output, const std::vector<std::string>& inputs) {
  for (const auto& in : inputs)
    if (output == in && output != "-")
      throw UsageError("refusing to overwrite input " + in);
    else if (io::same_file(output, in))
      throw UsageError("refusing to overwrite input " + in + " (same file as " + output + ")");
}

void CsvWriter::separate() {
  if (!first_) buf_ += delimiter_;
  first_ = false;
}

void CsvWriter::text(std::string_view cell) {
  separate();
  io::append_cell(buf_, cell, delimiter_);
}

void CsvWriter::number(double value) {
  separate();
  io::append_number(buf_, value);
}

void CsvWriter::end_row() {
  buf_ += '\n';
  first_ = true;
  if (buf_.size() > (1 << 16)) {
    out_.write(buf_);
    buf_.clear();
  }
}

void CsvWriter::commit() {
  out_.write(buf_);
  buf_.clear();
  out_.commit();
}

void write_csv(const std::string& path, const CsvColumns& c) {
  CsvWriter csv(path);
  for (const auto& n : c.text_names) csv.text(n);
  for (const auto& n : c.names) csv.text(n);
  csv.end_row();
  const arma::uword n_rows = c.values ? c.values->n_rows : (c.text.empty() ? 0 : c.text[0]->size());
  for (arma::uword i = 0; i < n_rows; ++i) {
    for (const auto* col : c.text) csv.text((*col)[i]);
    if (c.values)
      for (arma::uword j = 0; j < c.values->n_cols; ++j) csv.number((*c.values)(i, j));
    csv.end_row();
  }
  csv.commit();
}

void print_scores(const std::vector<std::pair<std::string, double>>& scores, bool json,
                  const nlohmann::json& extra) {
  std::string text;
  if (json) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : scores) j[k] = v;
    if (extra.is_object())
      for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
    text = j.dump() + "\n";
  } else {
    for (const auto& [k, v] : scores) {
      text += k + ' ';
      io::append_number(text, v);
      text += '\n';
    }
  }
  io::OutputFile out("-");
  out.write(text);
  out.commit();
}

}  // namespace mlt::app
